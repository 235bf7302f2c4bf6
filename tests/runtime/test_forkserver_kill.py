"""The shared TF processes' server kills a task it forked a moment ago (runtime/forkserver.py): such a task may not
have made its own process group yet (setsid), so killing the group alone misses it and it runs on."""
from __future__ import annotations

import subprocess

from tfmigrate.runtime import forkserver


def test_a_task_without_its_own_group_yet_is_killed():
    task = subprocess.Popen(["sleep", "300"])  # in this process's group: no group has its pid, as before setsid()
    try:
        forkserver._kill_task(task.pid)
        assert task.wait(timeout=10) == -9
    finally:
        task.kill()
        task.wait()
