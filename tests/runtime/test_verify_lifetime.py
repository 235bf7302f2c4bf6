"""Tasks never outlive verify (issue 31 item 7): kill -9 of the process running a cluster takes its tasks with it
(parent-death signal), and the next registered run stops what a killed one left (a task's own children) and removes
its temporary run dir. Plain-python dummy tasks: no TF."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfmigrate.runtime import cluster

DUMMY = Path(__file__).parent / "data" / "dummy_task.py"
pytestmark = [pytest.mark.skipif(not os.path.exists("/proc/self"), reason="Linux: prctl and /proc"),
              pytest.mark.usefixtures("plain_task_start")]  # these test the plain start of a task


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _pids(d: Path) -> list[int]:
    return [int(x) for f in d.glob("*.pid") for x in f.read_text().split()]


def _start_cluster(tmp_path: Path, env: dict, registered: bool, expect: int):
    """A process running a chief + worker + ps cluster of hanging dummy tasks (as verify runs its sides)."""
    pids = tmp_path / "pids"
    pids.mkdir()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    env = {"DUMMY_PIDS": str(pids), **env}
    script = (
        "import sys, json, contextlib\n"
        "from pathlib import Path\n"
        "from tfmigrate.runtime import cluster\n"
        f"env = json.loads({json.dumps(json.dumps(env))})\n"
        f"with (cluster.registered(Path({str(run_dir)!r})) if {registered} else contextlib.nullcontext()):\n"
        f"    cluster.run_cluster(lambda t: [sys.executable, {str(DUMMY)!r}], cluster.layout(2, ps=1), "
        f"{str(run_dir / 'logs')!r}, env, timeout=120)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "TFMIGRATE_HOME": str(tmp_path / "home")})
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(_pids(pids)) < expect:
        time.sleep(0.05)
    return p, pids, run_dir


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(q) for q in pids):
        time.sleep(0.05)
    return [q for q in pids if _alive(q)]


def test_kill_9_of_the_launcher_takes_every_task_with_it(tmp_path):
    p, pids, _ = _start_cluster(tmp_path, {"DUMMY_CHIEF": "hang", "DUMMY_WORKER": "hang", "DUMMY_PS": "hang"},
                                registered=False, expect=3)
    tasks = _pids(pids)
    assert len(tasks) == 3, "the tasks never started"
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=10)
    left = _wait_gone(tasks, 5)
    for q in left:  # (a failing run must not leave them either)
        os.kill(q, signal.SIGKILL)
    assert not left


def test_the_next_run_stops_what_a_killed_one_left_and_removes_its_run_dir(tmp_path, monkeypatch):
    p, pids, run_dir = _start_cluster(tmp_path, {"DUMMY_CHIEF": "child", "DUMMY_WORKER": "hang", "DUMMY_PS": "hang"},
                                      registered=True, expect=4)
    everything = _pids(pids)
    assert len(everything) == 4  # chief, its child, worker, ps
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=10)
    try:
        # the parent-death signal reaches the tasks, not the chief's own child (its parent was the chief)
        left = _wait_gone(everything, 2)
        assert left and run_dir.exists()
        monkeypatch.setenv("TFMIGRATE_HOME", str(tmp_path / "home"))
        said = []
        with cluster.registered(None, said.append):
            pass
        assert not _wait_gone(everything, 5)
        assert not run_dir.exists()
        assert len(said) == 1 and f"a killed verify (pid {p.pid})" in said[0] and "run dir" in said[0]
        assert not list((tmp_path / "home" / "running").glob("*.json"))
    finally:
        for q in everything:
            if _alive(q):
                os.kill(q, signal.SIGKILL)


def test_a_live_run_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("TFMIGRATE_HOME", str(tmp_path / "home"))
    with cluster.registered(tmp_path) as token:
        assert os.environ[cluster.RUN_ENV] == token
        assert cluster.clean_leftovers() == []  # this process is alive: its entry stays
        assert len(list((tmp_path / "home" / "running").glob("*.json"))) == 1
    assert cluster.RUN_ENV not in os.environ
    assert tmp_path.exists()
