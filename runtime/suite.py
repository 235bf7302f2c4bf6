"""Equivalence suites for CI: cases declared once, run by `tfmigrate verify --all` and `pytest --tfmigrate-verify`.

A case is a `[[tool.tfmigrate.verify]]` table in pyproject.toml (or `[[verify]]` in a tfmigrate.toml):

    [tool.tfmigrate.verify-defaults]      # every case, and plain `tfmigrate verify`
    workers = 2
    timeout = 300

    [[tool.tfmigrate.verify]]
    name = "regression"                   # default: the original's path
    original = "src/train.py"             # relative to the file's directory
    migrated = "migrated/src/train.py"
    steps = 200
    args = ["--steps", "200"]
    rtol = 1e-5
    atol = 1e-6
    # expect = "not-equivalent"           # a known, explained difference

Each case runs as its own `tfmigrate verify` process (its clusters, its logs) so cases are isolated and a Ctrl-C
stops all of them; cases run in parallel while their tasks fit the machine's cores. The result is one table, one
exit code (0 every case reached its expected verdict, 1 some did not, 2 some could not run) and, on request, a
JUnit XML report in which every case is a test case.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from xml.etree import ElementTree as ET

from tfmigrate.config import Config

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2
DEFAULTS = {"workers": 2, "ps": 0, "evaluator": False, "steps": None, "repeats": 3, "statistical": False, "rtol": 1e-5, "atol": 1e-6,
            "timeout": 600.0, "args": []}


# --statistical on a synchronous program: runs are cheap, and with 3 the band admits a learning rate 4x off
STATISTICAL_REPEATS = 10


def repeats_for(statistical: bool, *given) -> int:
    """--repeats as given (CLI, case table, verify-defaults: the first not None), else the mode's default."""
    chosen = next((g for g in given if g is not None), None)
    return chosen if chosen is not None else STATISTICAL_REPEATS if statistical else DEFAULTS["repeats"]


class SuiteError(ValueError):
    pass


@dataclass
class Case:
    name: str
    original: Path
    migrated: Path
    workers: int = 2
    ps: int = 0
    evaluator: bool = False
    steps: int | None = None
    repeats: int = 3
    statistical: bool = False
    rtol: float = 1e-5
    atol: float = 1e-6
    timeout: float = 600.0
    args: list[str] = field(default_factory=list)
    expect: str = "equivalent"
    source: Path | None = None  # the configuration file that declared it

    @property
    def tasks(self) -> int:
        """Processes one cluster of this case runs at once."""
        return self.workers + self.ps + int(self.evaluator)

    def verify_args(self, *extra: str) -> list[str]:
        """The `tfmigrate verify` command line of this case (what follows `tfmigrate verify`)."""
        out = [str(self.original), str(self.migrated), "--workers", str(self.workers), "--ps", str(self.ps),
               "--repeats", str(self.repeats), "--rtol", repr(self.rtol), "--atol", repr(self.atol),
               "--timeout", repr(self.timeout), "--isolated", *extra]
        if self.evaluator:
            out.append("--evaluator")
        if self.statistical:
            out.append("--statistical")
        if self.steps is not None:
            out += ["--steps", str(self.steps)]
        return out + ["--", *self.args] if self.args else out


@dataclass
class CaseResult:
    case: Case
    verdict: str  # "equivalent" | "not-equivalent" | "error"
    seconds: float = 0.0
    detail: str = ""  # the first break, or what went wrong
    max_rel: float | None = None
    report: dict | None = None  # verify's --json document
    log: Path | None = None
    output: str = ""
    returncode: int | None = None  # the verify process's exit code (130 / 143: it was interrupted)

    @property
    def interrupted(self) -> bool:
        return self.returncode in (130, 143, -signal.SIGINT, -signal.SIGTERM)

    @property
    def ok(self) -> bool:
        return self.verdict == self.case.expect

    @property
    def equivalent(self) -> bool:
        return self.verdict == "equivalent"


def load_cases(config: Config) -> list[Case]:
    """The declared cases, each filled from `verify-defaults` and then tfmigrate's defaults."""
    defaults = {**DEFAULTS, **config.get("verify-defaults", {})}
    root = config.root or Path.cwd()
    cases, names = [], set()
    for i, table in enumerate(config.get("verify", [])):
        where = f"{config.describe()}: verify[{i}]"
        missing = [k for k in ("original", "migrated") if k not in table]
        if missing:
            raise SuiteError(f"{where}: missing {' and '.join(missing)}")
        values = {**defaults, **table}
        values["repeats"] = repeats_for(values["statistical"], table.get("repeats"),
                                        config.get("verify-defaults", {}).get("repeats"))
        original, migrated = (root / values.pop("original")), (root / values.pop("migrated"))
        name = values.pop("name", None) or _relative(original, root)
        if name in names:
            raise SuiteError(f"{where}: a second case named {name!r} (give each case a `name`)")
        names.add(name)
        cases.append(Case(name=name, original=original, migrated=migrated, source=config.path,
                          args=list(values.pop("args")), **values))
    return cases


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


Runner = Callable[[Case, Path], CaseResult]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


_RUNNING: set[subprocess.Popen] = set()  # the case processes under way (stop_running signals them)
_STOPPING = threading.Event()


def stop_running(signum: int = signal.SIGTERM, wait: float = 30.0) -> None:
    """Pass a stop signal on to every running case's `tfmigrate verify`, which stops its own clusters; kill what
    is still there after `wait` seconds. A terminal's Ctrl-C reaches them directly; SIGTERM to this process
    (a cancelled CI job) does not, hence this."""
    _STOPPING.set()
    procs = list(_RUNNING)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signum)
    deadline = time.monotonic() + wait
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run_case(case: Case, work: Path) -> CaseResult:
    """Run one case as its own `tfmigrate verify` process; its log and run files go under `work`."""
    work.mkdir(parents=True, exist_ok=True)
    report_path, log = work / "verify.json", work / "verify.log"
    cmd = [sys.executable, "-m", "tfmigrate", "verify",
           *case.verify_args("--json", str(report_path), "--run-dir", str(work / "run"))]
    t0 = time.monotonic()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=dict(os.environ, COLUMNS="120", NO_COLOR="1"))
        _RUNNING.add(proc)
        proc.wait()  # an interrupt here leaves proc in _RUNNING, for stop_running to stop
        _RUNNING.discard(proc)
    seconds = time.monotonic() - t0
    output = ANSI.sub("", log.read_text(errors="replace"))
    report = None
    if report_path.is_file():
        try:
            report = json.loads(report_path.read_text())
        except ValueError:
            report = None
    if proc.returncode not in (0, 1) or report is None:
        lines = [ln for ln in output.splitlines() if ln.strip()]
        error = next((ln for ln in lines if ln.startswith("error:")), lines[-1] if lines else "no output")
        return CaseResult(case, "error", seconds, error, log=log, output=output, returncode=proc.returncode)
    cmp = report["comparison"]
    return CaseResult(case, "equivalent" if cmp["equivalent"] else "not-equivalent", seconds,
                      describe(cmp), cmp.get("max_rel"), report, log, output, proc.returncode)


def describe(cmp: dict) -> str:
    """One line about a comparison: where it first broke, or how close it was."""
    fb = cmp.get("first_break")
    if fb:
        worker = f"{fb['worker']} " if fb.get("worker") else ""
        return f"{worker}step {fb['step']}: {fb.get('original', float('nan')):.6g} vs {fb.get('migrated', float('nan')):.6g}"
    if cmp.get("problems"):
        return str(cmp["problems"][0])
    return f"max rel Δ {cmp['max_rel']:.2g}" if cmp.get("max_rel") is not None else ""


def default_jobs(cases: list[Case]) -> int:
    """Cases at once: as many as the cores hold, counting every task of a case's cluster as a core."""
    cores = os.cpu_count() or 1
    widest = max((c.tasks for c in cases), default=1)
    return max(1, cores // max(1, widest))


def run_all(cases: list[Case], work: Path, runner: Runner | None = None, jobs: int | None = None,
            on_start: Callable[[Case], None] | None = None,
            on_done: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Run every case; at most `jobs` at once and never more tasks than cores (a wide case runs alone)."""
    runner = runner or run_case
    jobs = jobs or default_jobs(cases)
    cores = max(os.cpu_count() or 1, max((c.tasks for c in cases), default=1))
    free = [cores]  # cores not taken by a running case's tasks (taken all at once: no partial holds, no deadlock)
    room = threading.Condition()
    results: dict[int, CaseResult] = {}

    def one(i: int, case: Case) -> None:
        need = min(case.tasks, cores) if jobs > 1 else 0
        with room:
            room.wait_for(lambda: free[0] >= need)
            free[0] -= need
        try:
            if _STOPPING.is_set():  # interrupted while this case waited for cores: start nothing new
                return
            if on_start:
                on_start(case)
            t0 = time.monotonic()
            try:
                result = runner(case, work / _slug(case.name))
            except Exception as exc:  # a runner defect is this case's error, not the suite's crash
                result = CaseResult(case, "error", time.monotonic() - t0, f"{type(exc).__name__}: {exc}")
            results[i] = result
            if on_done:
                on_done(result)
        finally:
            with room:
                free[0] += need
                room.notify_all()

    _STOPPING.clear()
    try:
        if jobs == 1 or len(cases) < 2:
            for i, case in enumerate(cases):
                one(i, case)
        else:
            pool = ThreadPoolExecutor(max_workers=jobs)
            try:
                for future in [pool.submit(one, i, c) for i, c in enumerate(cases)]:
                    future.result()
            except KeyboardInterrupt:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown()
    except KeyboardInterrupt as exc:  # Ctrl-C or (under stop_on_signals) SIGTERM: stop every running case
        stop_running(getattr(exc, "signum", signal.SIGINT))
        raise
    return [results[i] for i in range(len(cases))]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "case"


def exit_code(results: list[CaseResult]) -> int:
    if any(r.verdict == "error" for r in results):
        return EXIT_ERROR
    if not all(r.ok for r in results):
        return EXIT_FAILED
    return EXIT_OK


def table(results: list[CaseResult], wide: bool = False):
    """One summary table (readable at 80 columns: the detail column wraps; `wide`, a CI log: case names whole)."""
    from rich.table import Table

    tab = Table(title="tfmigrate verify --all", title_justify="left", expand=False)
    tab.add_column("case", overflow="fold", max_width=None if wide else 28, no_wrap=wide)
    tab.add_column("cluster", no_wrap=True)
    tab.add_column("verdict", no_wrap=True)
    tab.add_column("time", justify="right", no_wrap=True)
    tab.add_column("detail", overflow="fold", ratio=1)
    for r in results:
        c = r.case
        cluster = f"{c.workers}w" + (f"+{c.ps}ps" if c.ps else "") + ("+ev" if c.evaluator else "")
        if r.verdict == "error":
            verdict = "[bold red]error[/]"
        elif r.ok:
            verdict = f"[green]{r.verdict}[/]" + ("" if c.expect == "equivalent" else " (expected)")
        else:
            verdict = f"[bold red]{r.verdict}[/] (expected {c.expect})"
        tab.add_row(c.name, cluster, verdict, f"{r.seconds:.0f}s", _escape(r.detail))
    return tab


def _escape(s: str) -> str:
    from rich.markup import escape

    return escape(s)


def summary_line(results: list[CaseResult]) -> str:
    ok = sum(r.ok for r in results)
    errors = sum(r.verdict == "error" for r in results)
    failed = len(results) - ok - errors
    return (f"{len(results)} case{'s' if len(results) != 1 else ''}: {ok} as expected, {failed} not, "
            f"{errors} error{'s' if errors != 1 else ''}")


def write_junit(results: list[CaseResult], path: Path, logs_kept: bool = True) -> None:
    """JUnit XML: one <testcase> per case (classname tfmigrate.verify), failures and errors with the log's end;
    the logs' paths only when they are kept (not removed with a temporary run dir)."""
    suite = ET.Element("testsuite", name="tfmigrate-verify", tests=str(len(results)),
                       failures=str(sum(not r.ok and r.verdict != "error" for r in results)),
                       errors=str(sum(r.verdict == "error" for r in results)),
                       time=f"{sum(r.seconds for r in results):.3f}")
    for r in results:
        case = ET.SubElement(suite, "testcase", classname="tfmigrate.verify", name=r.case.name,
                             time=f"{r.seconds:.3f}", file=str(r.case.original))
        tail = "\n".join(r.output.splitlines()[-40:])
        if r.verdict == "error":
            ET.SubElement(case, "error", message=r.detail, type="VerifyError").text = tail
        elif not r.ok:
            ET.SubElement(case, "failure", message=f"{r.verdict} (expected {r.case.expect}): {r.detail}",
                          type="NotEquivalent").text = tail
        props = ET.SubElement(case, "properties")
        for key in ("workers", "ps", "steps", "rtol", "atol"):
            if getattr(r.case, key) is not None:  # unset (verify's default): no property rather than "None"
                ET.SubElement(props, "property", name=key, value=str(getattr(r.case, key)))
        if r.log and logs_kept:
            ET.SubElement(case, "system-out").text = f"log: {r.log}"
    root = ET.Element("testsuites", name="tfmigrate", tests=suite.get("tests"), failures=suite.get("failures"),
                      errors=suite.get("errors"), time=suite.get("time"))
    root.append(suite)
    ET.indent(root)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def run_suite(config: Config, say, runner: Runner | None = None, jobs: int | None = None,
              only: list[str] | None = None, run_dir: Path | None = None,
              junit_xml: Path | None = None) -> tuple[int, list[CaseResult]]:
    """`tfmigrate verify --all`: every case (or those named in `only`), one table, one exit code."""
    cases = load_cases(config)
    if only:
        unknown = [n for n in only if n not in {c.name for c in cases}]
        if unknown:
            raise SuiteError(f"no case named {', '.join(unknown)} (cases: {', '.join(c.name for c in cases)})")
        cases = [c for c in cases if c.name in only]
    if not cases:
        raise SuiteError(f"no verify cases declared in {config.describe()}: add [[tool.tfmigrate.verify]] tables "
                         "(original = ..., migrated = ...) to pyproject.toml, or [[verify]] to a tfmigrate.toml")
    missing = [f"{c.name}: {p}" for c in cases for p in (c.original, c.migrated) if not p.is_file()]
    if missing:
        raise SuiteError("programs not found: " + "; ".join(missing))
    work = Path(run_dir) if run_dir else Path(tempfile.mkdtemp(prefix="tfmigrate-suite-"))
    jobs = jobs or default_jobs(cases)
    say(f"{len(cases)} case{'s' if len(cases) != 1 else ''} from {config.describe()}, "
        f"{jobs} at a time; logs in {work}")
    lock = threading.Lock()

    def started(case: Case) -> None:
        with lock:
            say(f"  start  {case.name}")

    def done(result: CaseResult) -> None:
        with lock:
            mark = "ok " if result.ok else ("ERR" if result.verdict == "error" else "BAD")
            say(f"  {mark}    {result.case.name}: {result.verdict} in {result.seconds:.0f}s"
                + (f" — {result.detail}" if result.detail and not result.ok else ""))

    results = run_all(cases, work, runner or run_case, jobs, started, done)
    code = exit_code(results)
    removed = code == EXIT_OK and run_dir is None
    if junit_xml:
        write_junit(results, junit_xml, logs_kept=not removed)
    if removed:
        shutil.rmtree(work, ignore_errors=True)
    else:
        say(f"logs and run files kept in {work}")
    return code, results
