"""Local cluster launcher: one OS process per task, TF_CONFIG per task, 127.0.0.1 ports only.

Every task runs in its own session / process group, its stdout+stderr go to
``<log_dir>/<task>-<i>.log``. The launcher waits for the trainers (chief + workers), gives lingering
workers a grace period, kills tasks that never exit (ps), and tears everything down on timeout,
crash or Ctrl-C. Pure standard library: this runs in the tfmigrate process (no TensorFlow).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from . import forkserver

HOST = "127.0.0.1"  # never any other address
TRAINER_TYPES = ("chief", "worker")
ADDRESS_IN_USE = re.compile(
    r"address already in use|Could not start gRPC server|Failed to add port|bind.*failed|EADDRINUSE",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Task:
    type: str
    index: int

    @property
    def name(self) -> str:
        return f"{self.type}-{self.index}"


@dataclass
class TaskResult:
    task: Task
    returncode: int | None
    log: Path
    wall: float
    killed: bool = False  # killed by the launcher after the trainers were done (ps, lingering worker)


@dataclass
class ClusterRun:
    results: list[TaskResult]
    started: float
    finished: float
    attempts: int = 1
    notes: list[str] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return self.finished - self.started


class ClusterError(RuntimeError):
    """A task crashed, the run timed out, or the user interrupted it. ``exit code 2`` territory."""

    def __init__(self, message: str, task: Task | None = None, log_tail: str = "", kind: str = "crash",
                 tails: list[tuple[Task, Path, str]] | None = None):
        super().__init__(message)
        self.task = task
        self.log_tail = log_tail
        self.kind = kind
        self.tails = tails or []  # (task, log, last lines) of every task a timeout found still running
        self.signum: int | None = None  # kind "interrupt": the signal that stopped the run

    def __str__(self) -> str:  # message + tail of the guilty log(s)
        s = self.args[0]
        if self.tails:
            for task, log, tail in self.tails:
                s += f"\n--- last lines of {task.name} ({log}) ---\n" + (tail or "(the task printed nothing)")
        elif self.log_tail:
            s += "\n--- tail of " + (self.task.name + ".log" if self.task else "log") + " ---\n" + self.log_tail
        return s


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM while a run is under way. A KeyboardInterrupt, so every teardown path that stops
    the tasks on Ctrl-C stops them on SIGTERM too."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:  # the shell's convention: 128 + signal number (130 SIGINT, 143 SIGTERM)
        return 128 + self.signum


@contextlib.contextmanager
def stop_on_signals():
    """While the block runs, SIGINT and SIGTERM raise Interrupted (main thread only). A second signal while
    the tasks are being stopped is ignored, so the teardown itself is never cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen: list[int] = []

    def handler(signum, frame):
        if seen:
            return
        seen.append(signum)
        raise Interrupted(signum)

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def layout(workers: int = 2, ps: int = 0, evaluator: bool = False) -> list[Task]:
    """Task layout: chief 0 + worker 0..N-2 (+ ps 0..M-1) (+ evaluator 0). N = total trainers."""
    if workers < 1:
        raise ValueError("need at least one trainer (--workers >= 1)")
    tasks = [Task("chief", 0)] + [Task("worker", i) for i in range(workers - 1)]
    tasks += [Task("ps", i) for i in range(ps)]
    if evaluator:
        tasks.append(Task("evaluator", 0))
    return tasks


def pick_ports(n: int) -> list[int]:
    """n distinct free ports on 127.0.0.1 (bind port 0; all sockets held until every port is picked)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((HOST, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def ports_free(ports: list[int]) -> bool:
    """Whether every port can still be bound on 127.0.0.1 (another process may have taken one since it was picked)."""
    for port in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        finally:
            s.close()
    return True


def fresh_ports(n: int, picker: Callable[[int], list[int]], tries: int, notes: list[str]) -> list[int]:
    """Ports from `picker` that are still free just before launch; a taken one means picking again (bounded)."""
    for i in range(1, tries + 1):
        ports = picker(n)
        if len(set(ports)) == len(ports) and ports_free(ports):
            return ports
        notes.append(f"picked ports {ports} are in use; picking again ({i}/{tries})")
    raise ClusterError(f"could not find {n} free ports on {HOST} after {tries} tries", kind="ports")


def cluster_spec(tasks: Iterable[Task], ports: list[int]) -> dict[str, list[str]]:
    """The TF ``cluster`` dict; the evaluator is not part of the cluster (as in TF)."""
    members = [t for t in tasks if t.type != "evaluator"]
    if len(ports) < len(members):
        raise ValueError("not enough ports")
    spec: dict[str, list[str]] = {}
    for t, port in zip(members, ports):
        spec.setdefault(t.type, []).append(f"{HOST}:{port}")
    return spec


def tf_config(spec: dict[str, list[str]], task: Task) -> str:
    return json.dumps({"cluster": spec, "task": {"type": task.type, "index": task.index}})


def base_env(extra: dict[str, str] | None = None, cluster: bool = True) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"):
        env.pop(k, None)
    env.update(TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="", PYTHONUNBUFFERED="1")
    # a task imports the user's modules: no __pycache__ written beside them (verify writes only in its run dir)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # a task that hangs is stopped with SIGABRT first: Python's faulthandler then writes every thread's stack to
    # its log, so a timeout says where each stuck task was (see _dump_stacks)
    env["PYTHONFAULTHANDLER"] = "1"
    if cluster:
        env["GRPC_FAIL_FAST"] = "use_caller"
    if extra:
        env.update(extra)
    return env


# TensorFlow's start-up lines, the same in every task of a CPU machine: left out of the tails an error shows
TF_STARTUP_NOISE = re.compile(
    r"oneDNN custom operations are on|Could not find cuda drivers|failed call to cuInit"
    r"|^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$")


def _own_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if not TF_STARTUP_NOISE.search(ln)]


def log_tail(path: Path, lines: int = 25) -> str:
    try:
        data = path.read_bytes()[-20000:].decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(_own_lines(data)[-lines:])


# ---- tasks never outlive verify ----------------------------------------------------------------------------------
# Every task runs in its own session (a Ctrl-C in the terminal reaches verify only, which stops them in order), so
# nothing would stop them if verify itself were killed (kill -9, OOM): each task asks the kernel for SIGKILL when
# its parent dies (prctl PR_SET_PDEATHSIG), and each verify run is registered under tfmigrate's home with a token
# every task (and their children) carries in its environment; the next verify kills what a killed one left and
# removes its temporary run dir.

PR_SET_PDEATHSIG = 1
RUN_ENV = "TFMIGRATE_VERIFY_RUN"


def die_with_parent():
    """A Popen preexec_fn: the child is SIGKILLed when this process dies (Linux; None elsewhere). The signal follows
    the thread that forked, so only the main thread (the one that outlives the run) asks for it."""
    if not os.path.exists("/proc/self") or threading.current_thread() is not threading.main_thread():
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it
    parent = os.getpid()

    def arm() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the SIGABRT of a timed-out task writes no core file
        if os.getppid() != parent:  # the parent died before prctl: no signal will come; the child exits
            raise ChildProcessError("verify exited before its task started")
    return arm


def _running_dir() -> Path:
    from tfmigrate.home import home

    return home() / "running"


def _started(pid: int) -> str | None:
    """A process's start time (clock ticks since boot, /proc/<pid>/stat): with the pid it names one process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _carrying(token: str) -> list[int]:
    """Live processes whose environment holds this run's token (its tasks and anything they started)."""
    needle, found = f"{RUN_ENV}={token}\0".encode(), []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as fh:
                    if needle in fh.read():
                        found.append(int(entry.name))
            except OSError:
                pass
    return found


def clean_leftovers() -> list[str]:
    """Stop the tasks of verify runs that were killed (their registered verify is gone) and remove their temporary
    run dirs; returns one line per run cleaned."""
    import shutil

    cleaned = []
    try:
        entries = list(_running_dir().glob("*.json"))
    except OSError:
        return cleaned
    for path in entries:
        try:
            doc = json.loads(path.read_text())
            token, pid, start = str(doc["token"]), int(doc["pid"]), doc["start"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _started(pid) == start:
            continue  # still running
        stopped = 0
        for task in _carrying(token):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(task, signal.SIGKILL)
                stopped += 1
        line = f"a killed verify (pid {pid}) left {stopped} task process{'es' if stopped != 1 else ''}: stopped"
        if doc.get("run_dir") and os.path.isdir(doc["run_dir"]):
            shutil.rmtree(doc["run_dir"], ignore_errors=True)
            line += f"; its temporary run dir {doc['run_dir']} removed"
        with contextlib.suppress(OSError):
            path.unlink()
        cleaned.append(line)
    return cleaned


@contextlib.contextmanager
def registered(temporary_run_dir: Path | None = None, say: Callable[[str], None] | None = None):
    """While the block runs, this process is a registered verify run: the tasks it starts carry its token, and if
    it is killed the next registered run stops them and removes `temporary_run_dir`."""
    import uuid

    for line in clean_leftovers():
        if say is not None:
            say(f"note: {line}")
    token = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
    entry = _running_dir() / f"{token}.json"
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_text(json.dumps({"token": token, "pid": os.getpid(), "start": _started(os.getpid()),
                                     "run_dir": str(temporary_run_dir) if temporary_run_dir else None}))
    except OSError:
        entry = None  # no home to write to: the parent-death signal alone
    old = os.environ.get(RUN_ENV)
    os.environ[RUN_ENV] = token  # base_env copies the environment: every task carries it
    try:
        yield token
    finally:
        if old is None:
            os.environ.pop(RUN_ENV, None)
        else:
            os.environ[RUN_ENV] = old
        if entry is not None:
            with contextlib.suppress(OSError):
                entry.unlink()


def _kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate_all(procs: dict[Task, subprocess.Popen], soft: float = 1.0) -> None:
    """SIGTERM every group, wait up to `soft` s, then SIGKILL every group and reap."""
    live = [p for p in procs.values()]
    for p in live:
        _kill_group(p, signal.SIGTERM)
    deadline = time.monotonic() + soft
    while time.monotonic() < deadline and any(p.poll() is None for p in live):
        time.sleep(0.05)
    for p in live:  # the group may hold grandchildren even when the leader exited
        _kill_group(p, signal.SIGKILL)
    for p in live:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass


class _Attempt:
    def __init__(self, tasks, command, log_dir, env, single):
        self.tasks = tasks
        self.command = command
        self.log_dir = log_dir
        self.env = env
        self.single = single
        self.procs: dict[Task, subprocess.Popen] = {}
        self.start: dict[Task, float] = {}
        self.end: dict[Task, float] = {}
        self.killed: set[Task] = set()

    def launch(self, ports: list[int]) -> None:
        spec = None if self.single else cluster_spec(self.tasks, ports)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for t in self.tasks:
            env = dict(self.env)
            if spec is not None:
                env["TF_CONFIG"] = tf_config(spec, t)
            # forked from a process that imported TF already, when the suite asks for it (runtime/forkserver.py)
            proc = forkserver.spawn(self.command(t), env, str(self.log_dir / f"{t.name}.log"))
            if proc is None:
                log = open(self.log_dir / f"{t.name}.log", "wb")
                try:
                    proc = subprocess.Popen(
                        self.command(t), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                        env=env, start_new_session=True, preexec_fn=die_with_parent(),
                    )
                finally:
                    log.close()
            self.procs[t] = proc
            (self.log_dir / f"{t.name}.pid").write_text(str(self.procs[t].pid))
            self.start[t] = time.monotonic()

    def log(self, t: Task) -> Path:
        return self.log_dir / f"{t.name}.log"


def run_cluster(
    command: Callable[[Task], list[str]],
    tasks: list[Task],
    log_dir: Path,
    env: dict[str, str] | None = None,
    timeout: float = 600.0,
    grace: float = 10.0,
    evaluator_grace: float = 60.0,
    port_retries: int = 3,
    ports: Callable[[int], list[int]] = pick_ports,
    on_poll: Callable[[], None] | None = None,
    poll_interval: float = 0.1,
) -> ClusterRun:
    """Run one cluster to completion. Raises ClusterError (crash / timeout / interrupt)."""
    log_dir = Path(log_dir)
    single = len(tasks) == 1 and tasks[0].type == "chief"
    full_env = base_env(env, cluster=not single)
    started = time.monotonic()
    deadline = started + timeout
    notes: list[str] = []
    for attempt_no in range(1, port_retries + 2):
        att = _Attempt(tasks, command, log_dir, full_env, single)
        n_ports = len([t for t in tasks if t.type != "evaluator"])
        try:
            att.launch(fresh_ports(n_ports, ports, port_retries + 2, notes) if not single else [])
            outcome = _supervise(att, deadline, grace, evaluator_grace, on_poll, poll_interval, timeout)
        except BaseException:
            _terminate_all(att.procs)
            raise
        if outcome == "retry" and attempt_no <= port_retries:
            notes.append(f"attempt {attempt_no}: address in use, retrying with new ports")
            continue
        if outcome == "retry":
            raise ClusterError(f"could not start the cluster: ports in use after {attempt_no} attempts",
                               kind="ports")
        now = time.monotonic()
        results = [
            TaskResult(t, att.procs[t].returncode, att.log(t), att.end.get(t, now) - att.start[t], t in att.killed)
            for t in tasks
        ]
        return ClusterRun(results, started, now, attempt_no, notes)
    raise AssertionError("unreachable")  # pragma: no cover


def _dump_stacks(procs: list[subprocess.Popen], wait: float = 3.0) -> None:
    """SIGABRT each stuck task (PYTHONFAULTHANDLER=1: Python writes all its threads' stacks to the log and exits),
    waiting up to `wait` s in all for them to die; whatever is still alive is killed by the caller."""
    for p in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(p.pid, signal.SIGABRT)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(p.poll() is None for p in procs):
        time.sleep(0.05)


STACK_START = re.compile(r"^(Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):", re.M)


def _stuck_tail(log: Path, lines: int = 15) -> str:
    """The end of a stuck task's log: its own last lines before the stack dump, then the main thread's stack."""
    try:
        text = log.read_bytes()[-200000:].decode("utf-8", "replace")
    except OSError:
        return ""
    starts = [m.start() for m in STACK_START.finditer(text)]
    if not starts:
        return "\n".join(_own_lines(text)[-lines:])
    own = [ln for ln in _own_lines(text[:starts[0]].rstrip()) if ln != "Fatal Python error: Aborted"]  # our SIGABRT
    before = "\n".join(own[-lines:])
    # the main thread's block ("Current thread" when the signal hit it, else the last one: faulthandler lists it last)
    main = next((i for i in starts if text.startswith("Current thread", i)), starts[-1])
    end = min([i for i in starts if i > main] + [len(text)])
    block = [ln for ln in text[main:end].splitlines() if ln.strip() and not ln.startswith("Extension modules:")]
    frames = block[:25] + (["  ..."] if len(block) > 25 else [])
    return before + "\n--- where it was stuck (Python stack, innermost call first) ---\n" + "\n".join(frames)


def _supervise(att: _Attempt, deadline, grace, evaluator_grace, on_poll, poll_interval, timeout) -> str:
    trainers = [t for t in att.tasks if t.type in TRAINER_TYPES]
    evaluators = [t for t in att.tasks if t.type == "evaluator"]
    chief = next((t for t in trainers if t.type == "chief"), trainers[0])
    chief_done_at = None
    try:
        while True:
            now = time.monotonic()
            for t, p in att.procs.items():
                if t in att.end:
                    continue
                rc = p.poll()
                if rc is None:
                    continue
                att.end[t] = now
                if rc != 0:
                    tail = log_tail(att.log(t))
                    _terminate_all(att.procs)
                    if ADDRESS_IN_USE.search(tail) and now - att.start[t] < 120:
                        return "retry"
                    how = f"signal {-rc}" if rc < 0 else f"exit code {rc}"
                    raise ClusterError(f"task {t.name} failed ({how})", t, tail)
            if on_poll is not None:
                on_poll()
            if chief in att.end and chief_done_at is None:
                chief_done_at = now
            if all(t in att.end for t in trainers) and all(t in att.end for t in evaluators):
                break
            if chief_done_at is not None:
                late = [t for t in trainers if t not in att.end]
                if late and now - chief_done_at > grace:
                    for t in late:  # lingering workers after the chief finished: kill, not an error
                        _kill_group(att.procs[t])
                        att.procs[t].wait()
                        att.end[t] = time.monotonic()
                        att.killed.add(t)
                late_eval = [t for t in evaluators if t not in att.end]
                if late_eval and now - chief_done_at > evaluator_grace:
                    for t in late_eval:
                        _kill_group(att.procs[t])
                        att.procs[t].wait()
                        att.end[t] = time.monotonic()
                        att.killed.add(t)
            if now > deadline:
                running = [t for t in att.tasks if t in att.procs and t not in att.end]
                # the stuck ones: trainers and evaluators still running (a ps always runs; shown only if alone)
                stuck = [t for t in running if t.type != "ps"] or running
                _dump_stacks([att.procs[t] for t in stuck])
                tails = [(t, att.log(t), _stuck_tail(att.log(t))) for t in stuck]
                _terminate_all(att.procs)
                raise ClusterError(
                    f"timeout after {timeout:.0f} s; still running: {', '.join(t.name for t in running)}",
                    stuck[0] if stuck else None, tails[0][2] if tails else "", "timeout", tails=tails,
                )
            time.sleep(poll_interval)
    except KeyboardInterrupt as exc:
        _terminate_all(att.procs)
        signum = getattr(exc, "signum", signal.SIGINT)
        err = ClusterError(f"interrupted ({signal.Signals(signum).name}); all tasks stopped", kind="interrupt")
        err.signum = signum
        raise err from None
    # trainers done: ps (and anything else) never exits on its own
    for t, p in att.procs.items():
        if t not in att.end:
            att.killed.add(t)
            att.end[t] = time.monotonic()
    _terminate_all(att.procs, soft=0.0)
    return "ok"
