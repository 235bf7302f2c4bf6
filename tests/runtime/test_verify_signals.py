"""verify never leaves a mess: signals stop every task, taken ports are picked again, temporary run dirs go away.

The launcher tests use the plain-python dummy task; the end-to-end ones (marked) run real TF clusters and look
for leftovers by scanning /proc for processes whose environment points into the run dir.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfmigrate.runtime import cluster, envs, verify
from tfmigrate.runtime.cluster import ClusterError

pytestmark = pytest.mark.usefixtures("plain_task_start")  # these test the plain start of a task

DATA = Path(__file__).parent / "data"
DUMMY = DATA / "dummy_task.py"
CLI = [sys.executable, "-c", "from tfmigrate.cli import app; app()", "verify"]


def _pids(d: Path) -> list[int]:
    return [int(x) for f in d.glob("*.pid") for x in f.read_text().split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _processes_pointing_into(path: Path) -> list[int]:
    """Live processes whose environment or command line mentions `path` (every task of a run gets its run dir in
    its env; a suite's case process gets it as --run-dir)."""
    mine, left = str(path).encode(), []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and int(p.name) != os.getpid():
            try:
                seen = (p / "environ").read_bytes() + (p / "cmdline").read_bytes()
                if mine in seen and _alive(int(p.name)):
                    left.append(int(p.name))
            except OSError:
                pass
    return left


def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- launcher (no TF)

def test_ports_taken_before_launch_are_picked_again(tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    taken = busy.getsockname()[1]
    calls = []

    def picker(n):
        calls.append(n)
        fresh = cluster.pick_ports(n)
        return [taken] + fresh[1:] if len(calls) == 1 else fresh

    pids = tmp_path / "pids"
    pids.mkdir()
    try:
        run = cluster.run_cluster(lambda t: [sys.executable, str(DUMMY)], cluster.layout(2), tmp_path / "logs",
                                  {"DUMMY_PIDS": str(pids), "DUMMY_CHIEF": "bind", "DUMMY_WORKER": "bind"},
                                  timeout=30, ports=picker)
    finally:
        busy.close()
    assert calls == [2, 2] and run.attempts == 1  # caught before any task started
    assert any("in use; picking again" in n for n in run.notes)
    assert [r.returncode for r in run.results] == [0, 0]
    cfg = json.loads((tmp_path / "logs" / "chief-0.log").read_text().split("TF_CONFIG ", 1)[1].splitlines()[0])
    assert f"127.0.0.1:{taken}" not in cfg["cluster"]["chief"] + cfg["cluster"]["worker"]


def test_ports_that_stay_taken_fail_after_bounded_tries(tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    calls = []
    try:
        with pytest.raises(ClusterError) as ei:
            cluster.run_cluster(lambda t: [sys.executable, str(DUMMY)], cluster.layout(2), tmp_path / "logs", {},
                                timeout=30, port_retries=2, ports=lambda n: calls.append(n) or [port] + cluster.pick_ports(n - 1))
    finally:
        busy.close()
    assert ei.value.kind == "ports" and "free ports" in str(ei.value)
    assert len(calls) == 4  # port_retries + 2, then a clear error rather than a loop
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").glob("*.pid"))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_every_process_group(tmp_path, sig):
    """SIGTERM is handled like Ctrl-C: the chief's grandchild, the hanging worker and the ps are all gone."""
    pids = tmp_path / "pids"
    pids.mkdir()
    env = {"DUMMY_PIDS": str(pids), "DUMMY_CHIEF": "child", "DUMMY_WORKER": "hang", "DUMMY_PS": "hang"}
    script = (
        "import sys, json\n"
        "from tfmigrate.runtime import cluster\n"
        f"env = json.loads({json.dumps(json.dumps(env))})\n"
        "try:\n"
        "    with cluster.stop_on_signals():\n"
        f"        cluster.run_cluster(lambda t: [sys.executable, {str(DUMMY)!r}], cluster.layout(2, ps=1), "
        f"{str(tmp_path / 'logs')!r}, env, timeout=600)\n"
        "except cluster.ClusterError as e:\n"
        "    print('ERR', e.kind, e.signum, e); sys.exit(128 + e.signum)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120  # a margin for a loaded machine: starting 4 Pythons is not what is tested
    while time.monotonic() < deadline and len(_pids(pids)) < 4:
        time.sleep(0.05)
    assert len(_pids(pids)) == 4, "the tasks never started"
    t = time.monotonic()
    p.send_signal(sig)
    out, _ = p.communicate(timeout=120)
    assert time.monotonic() - t < 60  # stopped on the signal, not by the 600 s timeout
    assert p.returncode == 128 + sig, out
    assert f"ERR interrupt {int(sig)} interrupted ({sig.name}); all tasks stopped" in out
    time.sleep(0.2)
    assert not [q for q in _pids(pids) if _alive(q)]


# --------------------------------------------------------------------------- run dir (no TF)

def _fake_run(monkeypatch, tmp_path, outcome):
    monkeypatch.setattr(envs, "ensure_all", lambda **kw: {})
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR

    def fake(s, say, live):
        (s.run_dir / "original" / "logs").mkdir(parents=True)
        if isinstance(outcome, BaseException):
            raise outcome
        return {"comparison": {"equivalent": outcome}}

    monkeypatch.setattr(verify, "_run", fake)
    o = tmp_path / "o.py"
    o.write_text("x = 1\n")
    return verify.Settings(original=o, migrated=o)


@pytest.mark.parametrize("outcome, keep, left", [
    (True, False, False),            # equivalent: nothing to look at afterwards
    (True, True, True),              # --keep
    (False, False, True),            # NOT equivalent: the logs explain it
    (KeyboardInterrupt(), False, False),
    (ClusterError("task chief-0 failed (exit code 1)"), False, True),
])
def test_temporary_run_dir_is_removed_unless_it_explains_something(monkeypatch, tmp_path, outcome, keep, left):
    s = _fake_run(monkeypatch, tmp_path, outcome)
    s.keep = keep
    said = []
    try:
        verify.run(s, say=said.append)
    except (KeyboardInterrupt, ClusterError):
        pass
    kept = list((tmp_path / "tmp").iterdir())
    assert bool(kept) == left, said
    if left and not keep and outcome is not False:
        assert any("run files kept in" in m for m in said)


def test_named_run_dir_is_never_removed(monkeypatch, tmp_path):
    s = _fake_run(monkeypatch, tmp_path, True)
    s.run_dir = tmp_path / "mine"
    verify.run(s, say=lambda m: None)
    assert (tmp_path / "mine" / "original" / "logs").is_dir()


def test_tf_config_in_the_shell_gets_a_note(monkeypatch, tmp_path):
    s = _fake_run(monkeypatch, tmp_path, True)
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {}}')
    said = []
    verify.run(s, say=said.append)
    assert any("TF_CONFIG in this shell is ignored" in m for m in said)
    assert "TF_CONFIG" not in cluster.base_env()


# --------------------------------------------------------------------------- real clusters

def _user_copy(tmp_path: Path) -> Path:
    user = tmp_path / "user"
    user.mkdir()
    for name in ("regression_original.py", "regression_ctl.py", "regdata.py"):
        (user / name).write_bytes((DATA / name).read_bytes())
    return user


def _env(tmp_path: Path) -> dict:
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return dict(os.environ, COLUMNS="200", TMPDIR=str(tmp_path / "tmp"))


@pytest.mark.cluster
@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_verify_stops_cleanly_on_signal(tmp_path, sig):
    user = _user_copy(tmp_path)
    before = _tree_digest(user)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    p = subprocess.Popen([*CLI, str(user / "regression_original.py"), str(user / "regression_ctl.py"),
                          "--workers", "2", "--timeout", "120", "--", "--steps", "20000"],
                         cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(tmp_path))
    deadline = time.monotonic() + 120
    caps = []
    while time.monotonic() < deadline and p.poll() is None:
        caps = [c for c in (tmp_path / "tmp").glob("tfmigrate-verify-*/original/capture/worker0.jsonl")
                if c.stat().st_size > 0]
        if caps:
            break
        time.sleep(0.1)
    assert caps, "the workers never started training: " + (p.stdout.read() if p.poll() is not None else "")
    run_dir = caps[0].parents[2]
    assert len(_processes_pointing_into(run_dir)) >= 2  # chief and worker are up
    t = time.monotonic()
    p.send_signal(sig)
    out, _ = p.communicate(timeout=30)
    assert time.monotonic() - t < 10, "verify took too long to stop"
    assert p.returncode == 128 + sig, out
    assert f"interrupted ({sig.name}): every task stopped, no verdict" in out
    assert "Traceback" not in out
    time.sleep(0.3)
    assert not _processes_pointing_into(run_dir)
    assert not run_dir.exists()  # a temporary run dir goes with the interrupt
    assert _tree_digest(user) == before and not list(cwd.iterdir())


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_equivalent_verify_writes_nothing_outside_its_run_dir(tmp_path):
    user = _user_copy(tmp_path)
    before = _tree_digest(user)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    r = subprocess.run([*CLI, str(user / "regression_original.py"), str(user / "regression_ctl.py"),
                        "--workers", "1", "--", "--steps", "20", "--no_eval"],
                       cwd=cwd, capture_output=True, text=True, timeout=240, env=_env(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "run dir removed" in r.stdout
    assert not list((tmp_path / "tmp").iterdir())  # run dir and every temporary file of the programs: gone
    assert not list(cwd.iterdir())
    assert _tree_digest(user) == before
    assert not Path("/tmp/regression_original_model").exists() and not Path("/tmp/regression_ctl_model").exists()


@pytest.mark.cluster
@pytest.mark.tfenv
@pytest.mark.equivalence
def test_real_tf_task_losing_its_port_is_retried(tmp_path, monkeypatch):
    """The bind race on a real TF cluster: the first ports pass the check but one is taken when TF binds it."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    calls = []
    real = cluster.pick_ports

    def picker(n):
        calls.append(n)
        fresh = real(n)
        return [fresh[0], busy.getsockname()[1]] + fresh[2:] if len(calls) == 1 else fresh

    monkeypatch.setattr(cluster, "ports_free", lambda ports: True)
    monkeypatch.setattr(cluster, "pick_ports", picker)
    monkeypatch.setattr(cluster.run_cluster, "__defaults__", tuple(
        picker if d is real else d for d in cluster.run_cluster.__defaults__))
    said = []
    s = verify.Settings(original=DATA / "regression_original.py", migrated=DATA / "regression_ctl.py", workers=2,
                        args=["--steps", "20"], run_dir=tmp_path / "run", timeout=120)
    try:
        result = verify.run(s, say=said.append)
    finally:
        busy.close()
    assert result["comparison"]["equivalent"], result["comparison"]["problems"]
    assert any("address in use, retrying with new ports" in m for m in said), said
    assert len(calls) >= 3  # original: taken + fresh; migrated: fresh


@pytest.mark.cluster
@pytest.mark.tfenv
@pytest.mark.equivalence
def test_verify_all_passes_sigterm_on_to_its_cases(tmp_path):
    """A cancelled CI job sends SIGTERM to `verify --all` only: it must stop the cases' verify processes, which
    stop their clusters."""
    user = _user_copy(tmp_path)
    (user / "pyproject.toml").write_text(
        '[[tool.tfmigrate.verify]]\nname = "reg"\noriginal = "regression_original.py"\n'
        'migrated = "regression_ctl.py"\nworkers = 2\ntimeout = 120\nargs = ["--steps", "20000"]\n')
    work = tmp_path / "suite"
    p = subprocess.Popen([*CLI, "--all", "--run-dir", str(work)], cwd=user, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=_env(tmp_path))
    cap = work / "reg" / "run" / "original" / "capture" / "worker0.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None and not (cap.exists() and cap.stat().st_size > 0):
        time.sleep(0.1)
    assert cap.exists(), "the case never started training: " + (p.stdout.read() if p.poll() is not None else "")
    assert len(_processes_pointing_into(work)) >= 3  # the case's verify, chief, worker
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 143, out
    assert "interrupted (SIGTERM): every task stopped, no verdict" in out
    time.sleep(0.3)
    assert not _processes_pointing_into(work)


@pytest.mark.cluster
@pytest.mark.tfenv
@pytest.mark.equivalence
def test_verify_timeout_names_the_stuck_tasks_with_their_log_tails(tmp_path):
    user = _user_copy(tmp_path)
    r = subprocess.run([*CLI, str(user / "regression_original.py"), str(user / "regression_ctl.py"),
                        "--workers", "2", "--timeout", "25", "--", "--steps", "200000"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=240, env=_env(tmp_path))
    out = " ".join(r.stdout.split())
    assert r.returncode == 2, r.stdout + r.stderr
    assert "timeout after 25 s; still running: chief-0, worker-0" in out
    assert "--- last lines of chief-0 (" in out and "--- last lines of worker-0 (" in out
    (run_dir,) = (tmp_path / "tmp").glob("tfmigrate-verify-*")  # kept: its logs explain the error
    assert f"run files kept in {run_dir}" in out
    time.sleep(0.3)
    assert not _processes_pointing_into(run_dir)


def test_interrupted_environment_build_stops_pip(tmp_path):
    """An interrupt while the environment builds stops the build's subprocess instead of waiting for it."""
    script = "import time\nprint('step', flush=True)\ntime.sleep(120)\n"

    def interrupt(line):
        raise cluster.Interrupted(signal.SIGTERM)

    t = time.monotonic()
    with pytest.raises(cluster.Interrupted):
        envs._run_logged([sys.executable, "-c", script], tmp_path / "build.log", None, "pip install", interrupt)
    assert time.monotonic() - t < 10
    assert "$ " in (tmp_path / "build.log").read_text()
