"""Verify's tasks forked from a Python that imported TensorFlow once (runtime/forkserver.py), as the suite runs them:
the same losses as a plain start, nothing left behind when the asker or the owner goes, and a stuck task still
shows where it was stuck."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tfmigrate.runtime import cluster, envs, forkserver

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
pytestmark = pytest.mark.tfenv


def _verify(tmp_path: Path, name: str, env: dict) -> dict:
    case = FIXTURES / "adam_mae"
    report = tmp_path / f"{name}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(case / "original.py"), str(case / "migrated.py"),
         "--workers", "1", "--run-dir", str(tmp_path / name), "--json", str(report), "--timeout", "300",
         "--", "--steps", "30"], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(report.read_text())


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/stat") as fh:  # a zombie (not reaped yet) is gone too
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:  # reaped between the two looks
            return True
        time.sleep(0.1)
    return False


def _servers_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="tfm-fs-"))  # short: a socket path holds 107 bytes


def test_forked_tasks_give_the_plain_starts_losses(tmp_path):
    servers = _servers_dir()
    plain_env = {k: v for k, v in os.environ.items() if k != forkserver.ENV_DIR}
    forked_env = {**plain_env, forkserver.ENV_DIR: str(servers), forkserver.ENV_OWNER: str(os.getpid())}
    try:
        plain = _verify(tmp_path, "plain", plain_env)
        forked = _verify(tmp_path, "forked", forked_env)
        again = _verify(tmp_path, "again", forked_env)
        assert len(list(servers.glob("*.sock"))) == 2  # one per TF environment, the second verify reused them
        assert not list(servers.glob("*.failed"))
    finally:
        forkserver.stop_all(str(servers))
    for side in ("original", "migrated"):
        assert plain["losses"][side] == forked["losses"][side] == again["losses"][side]
        assert len(plain["losses"][side]["chief0"]) == 30
    # the forked task ran where the plain one would: its log is the run's
    assert "final eval:" in (tmp_path / "forked" / "migrated" / "logs" / "chief-0.log").read_text()


def _program(tmp_path: Path, text: str) -> Path:
    program = tmp_path / "program.py"
    program.write_text(text)
    return program


def test_a_task_dies_with_its_askers_connection_and_a_server_with_its_owner(tmp_path):
    python = str(envs.ensure("target"))
    owner = subprocess.Popen(["sleep", "300"])
    servers = _servers_dir()
    env = {**os.environ, forkserver.ENV_DIR: str(servers), forkserver.ENV_OWNER: str(owner.pid)}
    program = _program(tmp_path, "import time\nprint('started', flush=True)\ntime.sleep(300)\n")
    try:
        task = forkserver.spawn([python, str(program)], env, str(tmp_path / "task.log"))
        assert task is not None and task.poll() is None
        task.conn.close()  # the verify that asked for it is gone
        assert _gone(task.pid)
        server = int(next(servers.glob("*.pid")).read_text())
        second = forkserver.spawn([python, str(program)], env, str(tmp_path / "task2.log"))
        assert second is not None
        owner.kill()  # the pytest worker that owns the servers is gone
        owner.wait()
        assert _gone(server) and _gone(second.pid)
    finally:
        owner.kill()
        forkserver.stop_all(str(servers))


def test_exit_codes_and_a_stuck_tasks_stack_come_through(tmp_path, monkeypatch):
    python = str(envs.ensure("target"))
    servers = _servers_dir()
    monkeypatch.setenv(forkserver.ENV_DIR, str(servers))
    monkeypatch.setenv(forkserver.ENV_OWNER, str(os.getpid()))
    try:
        failing = _program(tmp_path, "import sys\nsys.exit(3)\n")
        run = cluster.run_cluster(lambda t: [python, str(failing)], [cluster.Task("chief", 0)], tmp_path / "a",
                                  timeout=120)
        pytest.fail(f"exit 3 passed: {run}")
    except cluster.ClusterError as err:
        assert "exit code 3" in str(err)
    stuck = _program(tmp_path, "import time\n\ndef wait_for_peer():\n    time.sleep(300)\n\nwait_for_peer()\n")
    with pytest.raises(cluster.ClusterError) as err:
        cluster.run_cluster(lambda t: [python, str(stuck)], [cluster.Task("chief", 0)], tmp_path / "b", timeout=20)
    servers_pids = [int(p.read_text()) for p in servers.glob("*.pid")]
    try:
        assert err.value.kind == "timeout"
        assert "where it was stuck" in str(err.value) and "wait_for_peer" in str(err.value)
        assert _gone(int((tmp_path / "b" / "chief-0.pid").read_text()))
    finally:
        forkserver.stop_all(str(servers))
    assert servers_pids and all(_gone(pid) for pid in servers_pids)


def test_a_task_signalled_by_its_group_right_after_it_started_dies(tmp_path, monkeypatch):
    """verify stops a task with killpg(pid) (cluster._kill_group), maybe right after it started (Ctrl-C, a port
    retry): the pid comes from the task once it has its own group, or that signal would miss it (8 of 10 did)."""
    python = str(envs.ensure("target"))
    servers = _servers_dir()
    env = {**os.environ, forkserver.ENV_DIR: str(servers), forkserver.ENV_OWNER: str(os.getpid())}
    program = _program(tmp_path, "import time\ntime.sleep(300)\n")
    try:
        for i in range(5):
            task = forkserver.spawn([python, str(program)], env, str(tmp_path / f"task{i}.log"))
            assert task is not None
            os.killpg(task.pid, signal.SIGKILL)
            assert task.wait(timeout=30) == -signal.SIGKILL
    finally:
        forkserver.stop_all(str(servers))
