"""Run in a TF environment's Python by tests/fixtures_run/_runs.py: imports TensorFlow once, then forks one child
per request (a JSON line on stdin) that runs the program as `python PROGRAM ARGS` would: its own process, run as
__main__, sys.path[0] its directory, its own cwd, environment, stdout and stderr files, its exit code. The ~2-3 CPU-s
TensorFlow import is paid once per environment instead of once per program; no TF runtime starts before the fork."""
import ctypes
import json
import os
import runpy
import signal
import sys
import time

import tensorflow  # noqa: F401
try:
    import tensorflow_estimator  # noqa: F401  (the legacy environment's second large import)
except ImportError:
    pass


def _die_with_parent() -> None:
    """No process outlives the test run: the kernel kills this process when its parent dies."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(req: dict) -> None:
    _die_with_parent()
    os.setpgid(0, 0)  # its own group: a timeout kills the program and whatever it started
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, fd)
        os.close(out)
    program = req["argv"][0]
    sys.argv = list(req["argv"])
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    # SystemExit and an uncaught exception's traceback and exit code 1 behave as in `python PROGRAM`
    runpy.run_path(program, run_name="__main__")


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def main() -> None:
    _die_with_parent()
    for line in sys.stdin:
        req = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            sys.stdin.close()
            _child(req)
            sys.exit(0)  # through the interpreter's normal shutdown (atexit, threads), as a program's end would
        print(json.dumps({"returncode": _wait(pid, req["timeout"])}), flush=True)


main()
