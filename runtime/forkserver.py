"""Shared TensorFlow processes: a task forked from a Python that has already imported TensorFlow.

Importing TensorFlow (and the legacy environment's tensorflow_estimator) costs 3-5 CPU-s, the larger part of a small
verify. When `TFMIGRATE_FORKSERVER_DIR` names a directory, each verify task is forked from a server kept there per
TF environment (and per value of the variables Python or TensorFlow read while importing), instead of started with
a fresh `python`: the test suite sets it, so hundreds of verifies pay the import once per environment and worker.
Unset (the default), tasks start as before.

The child runs `python BOOT PROGRAM ARGS` as that command would: its own session (a process group verify signals),
its own cwd, environment, log on stdout and stderr, __main__, sys.path[0], exit code (signals as negative codes),
the interpreter's normal shutdown (atexit, threads). No TensorFlow runtime starts before the fork (only the
import runs in the server), so the same ops run with the same threads: the losses stay bit-equal (checked by
tests/runtime/test_forkserver.py against a plain start).

Nothing outlives its owner: a task is killed when the connection of the verify that asked for it closes (verify
exited or was killed), and a server exits, killing its tasks, when the process named as its owner (the pytest
worker) is gone. This file runs under the TF environments' Python: standard library only.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import sys
import time

ENV_DIR = "TFMIGRATE_FORKSERVER_DIR"
ENV_OWNER = "TFMIGRATE_FORKSERVER_OWNER"
# What the interpreter or TensorFlow may read while importing, before the fork: one server per value of these.
# TF_CONFIG and GRPC_* are read when a strategy starts (after the fork); TFMIGRATE_* by the boots at run time.
IMPORT_TIME = ("TF_", "CUDA_", "PYTHON", "OMP_", "KMP_", "MKL_", "LD_", "KERAS_BACKEND")
RUN_TIME = ("TF_CONFIG",)
MAX_SOCKET_PATH = 107  # a Unix socket's path (sun_path) holds 108 bytes with its NUL


def import_env(env: dict) -> dict:
    return {k: v for k, v in env.items() if k.startswith(IMPORT_TIME) and k not in RUN_TIME}


# ---- server (in the TF environment's Python) -----------------------------------------------------------------------

def _serve(path: str, owner: int) -> dict:
    """Accept requests until the owner is gone; returns only in a forked child, with that child's request."""
    import selectors

    import tensorflow  # noqa: F401  (what every task would import first)
    try:
        import tensorflow_estimator  # noqa: F401  (the legacy environment's second large import)
    except ImportError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = f"{path}.{os.getpid()}"
    listener.bind(tmp)
    listener.listen(64)
    os.rename(tmp, path)  # the socket appears ready, never half made
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    pending: dict[socket.socket, bytes] = {}
    task_of: dict[socket.socket, int] = {}
    conn_of: dict[int, socket.socket] = {}
    checked = 0.0

    def drop(conn):
        sel.unregister(conn)
        pending.pop(conn, None)
        conn.close()

    while True:
        for key, _ in sel.select(timeout=0.1):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pending[conn] = b""
                sel.register(conn, selectors.EVENT_READ)
                continue
            conn = key.fileobj
            data = conn.recv(1 << 20)
            if conn in task_of:  # the asker hung up (verify ended or died): its task goes too
                if not data:
                    pid = task_of.pop(conn)
                    _kill_task(pid)
                    conn_of[pid] = None
                    drop(conn)
                continue
            if not data:
                drop(conn)
                continue
            pending[conn] += data
            if b"\n" not in pending[conn]:
                continue
            req = json.loads(pending.pop(conn).split(b"\n", 1)[0])
            pid = os.fork()
            if pid == 0:  # the task: leave the server's state behind and run the request
                sel.close()
                listener.close()
                for c in [*task_of, *pending]:
                    c.close()
                req["_conn"] = conn
                return req
            task_of[conn] = pid  # (the task itself tells the asker its pid, once it has its own group)
            conn_of[pid] = conn
        while conn_of:  # reap finished tasks and tell their askers
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = conn_of.pop(pid, None)
            if conn is not None:
                task_of.pop(conn, None)
                try:
                    conn.sendall(json.dumps({"pid": pid, "exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                except OSError:
                    pass
                drop(conn)
        now = time.monotonic()
        if now - checked > 1.0:
            checked = now
            if not _alive(owner):
                for pid in list(conn_of):
                    _kill_task(pid)
                try:
                    os.unlink(path)
                except OSError:
                    pass
                os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_task(pid: int) -> None:
    """Kill a task (a child of this server) and its group. A task forked a moment ago may not have called setsid()
    yet: its group does not exist then, and killpg alone would leave it running. Its pid is safe to signal: this
    server has not reaped it."""
    _killpg(pid)
    _kill(pid)


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _become(req: dict) -> None:
    """In the forked child: become `python BOOT PROGRAM ARGS` run as the request says."""
    import resource
    import tempfile

    os.setsid()  # its own session and group, as Popen(start_new_session=True)
    # only now the asker learns the pid: a group it signals (verify's killpg) exists, as after Popen returns
    with contextlib.suppress(OSError):
        req["_conn"].sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a timed-out task's SIGABRT writes no core file
    for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    tempfile.tempdir = None  # TMPDIR is the run's: read it again
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, req["log"]), (2, req.get("stderr") or req["log"])):
        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        os.dup2(out, fd)
        os.close(out)
    req["_conn"].close()
    if req["env"].get("PYTHONFAULTHANDLER"):
        import faulthandler

        faulthandler.enable()
    script = req["argv"][1]
    sys.argv = list(req["argv"][1:])
    sys.path[0] = os.path.dirname(os.path.abspath(script))


def main() -> None:
    path, owner = sys.argv[1], int(sys.argv[2])
    req = _serve(path, owner)
    _become(req)
    import runpy

    # SystemExit, an uncaught exception's traceback and exit code 1, atexit and non-daemon threads: as in
    # `python BOOT ...`, since the program runs in this process's own __main__ path to the end
    runpy.run_path(sys.argv[0], run_name="__main__")


# ---- client (in verify) -----------------------------------------------------------------------------------------------

class Task:
    """A forked task with what cluster.py uses of a Popen: pid, returncode, poll(), wait()."""

    def __init__(self, conn: socket.socket, pid: int, argv: list[str]):
        self.conn, self.pid, self.args, self.returncode = conn, pid, argv, None
        self._buf = b""

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(block=False)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import subprocess

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._read(block=True, timeout=0.05)
        return self.returncode

    def _read(self, block: bool, timeout: float = 0.0) -> None:
        self.conn.settimeout(timeout if block else 0.0)
        try:
            data = self.conn.recv(4096)
        except (TimeoutError, BlockingIOError):
            return
        except OSError:
            data = b""
        if not data:  # the server died without a word: its task was killed with it
            _killpg(self.pid)
            self.returncode = -signal.SIGKILL
            self.conn.close()
            return
        self._take(data)

    def _take(self, data: bytes) -> None:
        self._buf += data
        for line in self._buf.split(b"\n")[:-1]:
            msg = json.loads(line)
            if "exit" in msg:
                self.returncode = msg["exit"]
                self.conn.close()
        self._buf = self._buf.rsplit(b"\n", 1)[-1]


def _socket_path(directory: str, python: str, env: dict) -> str:
    key = json.dumps([os.path.abspath(python), sorted(import_env(env).items())])
    return os.path.join(directory, hashlib.sha1(key.encode()).hexdigest()[:16] + ".sock")


def _connect(path: str) -> socket.socket | None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError:
        s.close()
        return None
    return s


def _server(directory: str, python: str, env: dict, wait: float = 180.0) -> socket.socket | None:
    """A connection to the server for this Python and import-time environment, started if there is none."""
    import fcntl
    import subprocess

    path = _socket_path(directory, python, env)
    conn = _connect(path)
    if conn is not None or os.path.exists(path + ".failed"):
        return conn
    owner = env.get(ENV_OWNER) or os.environ.get(ENV_OWNER)
    if not owner:
        return None
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one start per key, even with several verifies at once
        conn = _connect(path)
        if conn is not None:
            return conn
        with contextlib.suppress(OSError):
            os.unlink(path)
        # the server's own environment: the task's without anything of one run (a verify's token, its dirs)
        server_env = {k: v for k, v in env.items()
                      if not k.startswith("TFMIGRATE_") and k not in ("TF_CONFIG", "TMPDIR", "KERAS_HOME")}
        server_env["KERAS_HOME"] = os.path.join(directory, "keras")
        with open(path + ".log", "ab") as log:
            proc = subprocess.Popen([python, os.path.abspath(__file__), path, owner], env=server_env,
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=directory)
        with open(path + ".pid", "w") as fh:
            fh.write(str(proc.pid))
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and proc.poll() is None:
            conn = _connect(path)
            if conn is not None:
                return conn
            time.sleep(0.05)
        # no TensorFlow there, or it failed: this key's tasks start the plain way from now on (see the .log)
        _kill(proc.pid)
        open(path + ".failed", "w").close()
    return None


def stop_all(directory: str) -> None:
    """Stop the servers started in `directory` (their tasks' askers are gone by then) and remove it."""
    import glob
    import shutil

    for pid_file in glob.glob(os.path.join(directory, "*.pid")):
        with contextlib.suppress(OSError, ValueError):
            _kill(int(open(pid_file).read()))
    shutil.rmtree(directory, ignore_errors=True)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def spawn(argv: list[str], env: dict, log: str, cwd: str | None = None, stderr: str | None = None) -> Task | None:
    """`argv` ([python, script, args...]) forked from a shared server when `TFMIGRATE_FORKSERVER_DIR` is set in
    `env`; None when it is not, or no server could start (the caller then starts the process itself). stdout and
    stderr go to `log` (stderr to its own file if given)."""
    directory = env.get(ENV_DIR)
    if not directory or len(argv) < 2 or argv[1].startswith("-"):  # `python -c ...` / `-m`: started plainly
        return None
    if len(_socket_path(directory, argv[0], env)) + 8 > MAX_SOCKET_PATH:  # (+ the server's temporary suffix)
        return None
    conn = _server(directory, argv[0], env)
    if conn is None:
        return None
    try:
        conn.sendall(json.dumps({"argv": argv, "env": env, "log": log, "stderr": stderr,
                                 "cwd": cwd or os.getcwd()}).encode() + b"\n")
        buf = b""
        conn.settimeout(60)
        while b"\n" not in buf:
            data = conn.recv(4096)
            if not data:
                raise OSError("the fork server closed the connection")
            buf += data
    except OSError:
        conn.close()
        return None
    # the task's pid, from the task once it made its own group, or with its exit if it died before that
    task = Task(conn, json.loads(buf.split(b"\n", 1)[0])["pid"], argv)
    task._take(buf)
    return task


if __name__ == "__main__":
    main()
