import contextlib
import json
import os
import resource
import socket
import sys
import time
from pathlib import Path

import pytest

from tfmigrate.runtime import cluster
from tfmigrate.runtime.cluster import ClusterError, Task

pytestmark = pytest.mark.usefixtures("plain_task_start")  # these test the plain start of a task

DUMMY = Path(__file__).parent / "data" / "dummy_task.py"


def _cmd(task):
    return [sys.executable, str(DUMMY)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is not "left behind" work, but we reap our children, so treat it as alive
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def _all_pids(d: Path):
    out = []
    for f in d.glob("*.pid"):
        out += [int(x) for x in f.read_text().split()]
    return out


def _as_a_shell_starts_it() -> None:
    import signal

    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def _signal_state(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "(gone)"
    return " ".join(line.replace("\t", "") for line in status.splitlines()
                    if line.startswith(("State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")))


def _env(tmp_path, **modes):
    pids = tmp_path / "pids"
    pids.mkdir(exist_ok=True)
    env = {"DUMMY_PIDS": str(pids)}
    env.update({f"DUMMY_{k.upper()}": v for k, v in modes.items()})
    return env, pids


def test_layout_and_tf_config_use_loopback_only():
    tasks = cluster.layout(3, ps=2, evaluator=True)
    assert [t.name for t in tasks] == ["chief-0", "worker-0", "worker-1", "ps-0", "ps-1", "evaluator-0"]
    ports = cluster.pick_ports(5)
    assert len(set(ports)) == 5
    spec = cluster.cluster_spec(tasks, ports)
    assert set(spec) == {"chief", "worker", "ps"}  # evaluator is not a cluster member
    for addrs in spec.values():
        for a in addrs:
            assert a.startswith("127.0.0.1:")
    cfg = json.loads(cluster.tf_config(spec, Task("worker", 1)))
    assert cfg["task"] == {"type": "worker", "index": 1}
    assert cfg["cluster"]["worker"][1] == f"127.0.0.1:{ports[2]}"


def test_task_env():
    env = cluster.base_env({"X": "1"})
    assert env["TF_CPP_MIN_LOG_LEVEL"] == "2" and env["PYTHONHASHSEED"] == "0"
    assert env["CUDA_VISIBLE_DEVICES"] == "" and env["GRPC_FAIL_FAST"] == "use_caller"
    assert "TF_CONFIG" not in env and env["X"] == "1"


def test_ok_cluster_logs_per_task(tmp_path):
    env, _ = _env(tmp_path)
    run = cluster.run_cluster(_cmd, cluster.layout(2), tmp_path / "logs", env, timeout=30)
    assert [r.returncode for r in run.results] == [0, 0]
    log = (tmp_path / "logs" / "worker-0.log").read_text()
    assert "127.0.0.1" in log and "done worker-0" in log


def test_single_process_has_no_tf_config(tmp_path):
    env, _ = _env(tmp_path)
    cluster.run_cluster(_cmd, cluster.layout(1), tmp_path / "logs", env, timeout=30)
    assert "TF_CONFIG None" in (tmp_path / "logs" / "chief-0.log").read_text()


def test_crash_names_task_and_log_tail_and_kills_everyone(tmp_path):
    env, pids = _env(tmp_path, worker="crash", chief="child", ps="hang")
    with pytest.raises(ClusterError) as ei:
        cluster.run_cluster(_cmd, cluster.layout(2, ps=1), tmp_path / "logs", env, timeout=30)
    e = ei.value
    assert e.task == Task("worker", 0)
    assert "worker-0" in str(e) and "something went wrong in worker-0" in str(e)
    time.sleep(0.2)
    assert pids.glob("*.pid")
    assert not [p for p in _all_pids(pids) if _alive(p)]


def test_hang_times_out_and_nothing_is_left(tmp_path):
    env, pids = _env(tmp_path, chief="child", worker="hang")
    t = time.monotonic()
    with pytest.raises(ClusterError) as ei:
        cluster.run_cluster(_cmd, cluster.layout(2), tmp_path / "logs", env, timeout=2)
    assert ei.value.kind == "timeout" and "chief-0" in str(ei.value)
    assert time.monotonic() - t < 10
    time.sleep(0.2)
    assert len(_all_pids(pids)) == 3  # chief, its grandchild, worker
    assert not [p for p in _all_pids(pids) if _alive(p)]


def test_timeout_shows_the_stuck_tasks_log_tails(tmp_path):
    """The chief finished; the worker hangs: the message names it and shows the end of its log (not the ps)."""
    env, _ = _env(tmp_path, chief="ok", worker="hang", ps="hang")
    with pytest.raises(ClusterError) as ei:
        cluster.run_cluster(_cmd, cluster.layout(2, ps=1), tmp_path / "logs", env, timeout=2, grace=30)
    text = str(ei.value)
    assert ei.value.kind == "timeout" and "still running: worker-0, ps-0" in text
    assert "--- last lines of worker-0 (" in text and "task worker-0 mode hang" in text
    assert "last lines of ps-0" not in text
    assert str(tmp_path / "logs" / "worker-0.log") in text


def test_ps_never_exits_and_is_killed(tmp_path):
    env, pids = _env(tmp_path, ps="hang", evaluator="sleep:0.5")
    run = cluster.run_cluster(_cmd, cluster.layout(2, ps=2, evaluator=True), tmp_path / "logs", env, timeout=30)
    by = {r.task.name: r for r in run.results}
    assert by["ps-0"].killed and by["ps-1"].killed
    assert by["chief-0"].returncode == 0 and not by["chief-0"].killed
    assert by["evaluator-0"].returncode == 0
    time.sleep(0.2)
    assert not [p for p in _all_pids(pids) if _alive(p)]


def test_lingering_worker_killed_after_grace(tmp_path):
    env, pids = _env(tmp_path, worker="hang")
    t = time.monotonic()
    run = cluster.run_cluster(_cmd, cluster.layout(2), tmp_path / "logs", env, timeout=30, grace=1.0)
    assert time.monotonic() - t < 10
    by = {r.task.name: r for r in run.results}
    assert by["worker-0"].killed
    assert not [p for p in _all_pids(pids) if _alive(p)]


def test_serving_workers_stop_when_the_chief_exits(tmp_path):
    """PSS: workers and ps serve forever; with grace 0 the chief's (coordinator's) exit ends the run."""
    env, pids = _env(tmp_path, worker="hang", ps="hang", chief="sleep:0.5")
    t = time.monotonic()
    run = cluster.run_cluster(_cmd, cluster.layout(3, ps=1), tmp_path / "logs", env, timeout=30, grace=0.0)
    assert time.monotonic() - t < 5
    by = {r.task.name: r for r in run.results}
    assert not by["chief-0"].killed and by["chief-0"].returncode == 0
    assert by["worker-0"].killed and by["worker-1"].killed and by["ps-0"].killed
    time.sleep(0.2)
    assert not [p for p in _all_pids(pids) if _alive(p)]


def test_port_in_use_is_retried_with_new_ports(tmp_path, monkeypatch):
    """The race: a port is free when checked and taken when the task binds it; the task's failure is retried."""
    monkeypatch.setattr(cluster, "ports_free", lambda ports: True)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    calls = []

    def ports(n):
        calls.append(n)
        fresh = cluster.pick_ports(n)
        return [busy.getsockname()[1]] + fresh[1:] if len(calls) == 1 else fresh

    env, _ = _env(tmp_path, chief="bind", worker="bind")
    try:
        run = cluster.run_cluster(_cmd, cluster.layout(2), tmp_path / "logs", env, timeout=30, ports=ports)
    finally:
        busy.close()
    assert len(calls) == 2 and run.attempts == 2
    assert any("address in use" in n for n in run.notes)
    assert [r.returncode for r in run.results] == [0, 0]


def test_ctrl_c_tears_everything_down(tmp_path):
    import signal
    import subprocess

    env, pids = _env(tmp_path, chief="child", worker="hang", ps="hang")
    script = (
        "import sys, json\n"
        "from tfmigrate.runtime import cluster\n"
        f"env = json.loads({json.dumps(json.dumps(env))})\n"
        "try:\n"
        f"    cluster.run_cluster(lambda t: [sys.executable, {str(DUMMY)!r}], cluster.layout(2, ps=1), "
        f"{str(tmp_path / 'logs')!r}, env, timeout=600)\n"
        "except cluster.ClusterError as e:\n"
        "    print('ERR', e.kind); sys.exit(2)\n"
    )
    # started as a shell starts a program: SIGINT/SIGTERM at their defaults, no signal blocked (a pytest worker's
    # state is not a user's terminal: an ignored or blocked SIGINT would be inherited); faulthandler for the stack
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONFAULTHANDLER": "1"}, preexec_fn=_as_a_shell_starts_it)
    # margins for a loaded machine (4 Python starts can take many seconds): nothing here measures speed; an
    # ignored Ctrl-C would end in the cluster's 600 s timeout ("ERR timeout"), far beyond the 120 s waited
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(_all_pids(pids)) < 4:
        time.sleep(0.05)
    assert len(_all_pids(pids)) == 4
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # say where the launcher was and what its signal state was, for the record
        state = _signal_state(p.pid)
        p.send_signal(signal.SIGABRT)  # faulthandler prints its Python stack
        out, err = p.communicate(timeout=30)
        for q in _all_pids(pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(q, signal.SIGKILL)
        pytest.fail(f"the launcher did not exit 120 s after SIGINT; launcher {state}; this test process "
                    f"{_signal_state(os.getpid())}\nits stderr:\n{err[-3000:]}")
    assert p.returncode == 2 and "ERR interrupt" in out, err[-2000:]
    time.sleep(0.2)
    assert not [q for q in _all_pids(pids) if _alive(q)]


def test_timeout_shows_where_each_stuck_task_was(tmp_path):
    """A hang is stopped with SIGABRT under PYTHONFAULTHANDLER: the error shows the stuck task's Python stack."""
    env, pids = _env(tmp_path, chief="hang", worker="hang")
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if hard != 0:  # tasks would inherit a nonzero soft limit: the launcher must set it to 0 itself
        raised = 1 << 20 if hard == resource.RLIM_INFINITY else min(1 << 20, hard)
        resource.setrlimit(resource.RLIMIT_CORE, (raised, hard))
    try:
        with pytest.raises(ClusterError) as ei:
            cluster.run_cluster(_cmd, cluster.layout(2), tmp_path / "logs", env, timeout=2)
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))
    text = str(ei.value)
    assert text.count("--- where it was stuck (Python stack, innermost call first) ---") == 2
    assert 'dummy_task.py", line' in text and "task chief-0 mode hang" in text
    assert text.count("core file limit 0") == 2  # the SIGABRT writes no core file
    time.sleep(0.2)
    assert not [p for p in _all_pids(pids) if _alive(p)]
