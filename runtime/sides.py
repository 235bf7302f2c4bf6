"""Run one side (original or migrated program) on a local cluster under its boot script."""
from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from . import capture, cluster


@dataclass
class SideRun:
    side: str
    wall: float
    cluster_start: float | None  # launch -> first captured step
    training: float | None  # first captured step -> trainers done
    capture_dir: Path
    model_dir: Path
    log_dir: Path
    tasks: list[dict]


class Progress:
    """Steps done per task while a side runs, read from the capture files (never from the programs' output).

    On a terminal (`live` given) one status line is updated in place; elsewhere (CI logs) a plain line is printed
    every `every` seconds when something changed, so a long run is never silent."""

    def __init__(self, side: str, cap: Path, say, update=None, every: float = 15.0, clock=time.monotonic):
        self.side, self.cap, self.say, self.update, self.every, self.clock = side, cap, say, update, every, clock
        self.t0 = clock()
        self.last_read = self.last_said = self.t0
        self.counts: dict[str, int] = {}
        self.said: dict[str, int] = {}

    def line(self) -> str:
        took = f"{self.clock() - self.t0:.0f} s"
        if not self.counts:
            return f"{self.side}: starting the cluster ({took})"
        steps = " · ".join(f"{t} {n}" for t, n in sorted(self.counts.items()))
        return f"{self.side}: steps done {steps} ({took})"

    def poll(self) -> None:
        now = self.clock()
        if now - self.last_read < 1.0:  # the supervisor polls every 0.1 s; reading files each time is waste
            return
        self.last_read = now
        self.counts = capture.step_counts(self.cap)
        if self.update is not None:
            self.update(self.line())
        elif now - self.last_said >= self.every and self.counts != self.said:
            self.last_said, self.said = now, dict(self.counts)
            self.say(f"  {self.line()}")


def run_side(side: str, python: Path, boot: Path, program: Path, s, root: Path, tasks: list[cluster.Task],
             extra_env: dict[str, str], say, grace: float = 10.0, live=None) -> SideRun:
    """`grace`: how long workers may outlive the chief (0: they serve forever, the chief's exit ends the run).
    `live`: a status-line context (commands.live_status) on a terminal, None for plain progress lines."""
    cap, md, logs, tmp = root / "capture", root / "model_dir", root / "logs", root / "tmp"
    for d in (cap, md, tmp):
        d.mkdir(parents=True, exist_ok=True)
    # TMPDIR: what the program writes to temporary files stays in the run dir, removed with it; KERAS_HOME: Keras
    # (2 and 3) writes keras.json there instead of the user's ~/.keras
    env = {"TFMIGRATE_CAPTURE_DIR": str(cap), "TFMIGRATE_MODEL_DIR": str(md), "TMPDIR": str(tmp),
           "KERAS_HOME": str(tmp / "keras"), **extra_env}
    first = {}
    names = ", ".join(t.name for t in tasks)
    say(f"[bold]{side}[/]: {program.name} on {names}")
    t0 = time.monotonic()
    with (live(f"{side}: starting the cluster") if live is not None else contextlib.nullcontext()) as update:
        progress = Progress(side, cap, say, update)

        def poll():
            if "t" not in first and capture.has_data(cap):
                first["t"] = time.monotonic()
            progress.poll()

        run = cluster.run_cluster(
            lambda t: [str(python), str(boot), str(program), *s.args], tasks, logs, env,
            timeout=s.timeout, on_poll=poll, grace=grace,
        )
    t1 = time.monotonic()
    if progress.counts or capture.has_data(cap):
        progress.counts = capture.step_counts(cap)
        say(f"  {progress.line()}")
    for n in run.notes:
        say(f"  {n}")
    killed = [r.task.name for r in run.results if r.killed]
    if killed:
        why = "the chief exited" if grace == 0 else "the trainers finished"
        say(f"  stopped after {why}: {', '.join(killed)}")
    ft = first.get("t")
    return SideRun(
        side, t1 - t0, (ft - t0) if ft else None, (t1 - ft) if ft else None, cap, md, logs,
        [{"task": r.task.name, "exit": r.returncode, "wall": round(r.wall, 3), "killed": r.killed,
          "log": str(r.log)} for r in run.results],
    )


def read_task_json(capture_dir: Path, kind: str) -> dict[str, dict]:
    """{task: doc} from the boot scripts' <task>.<kind>.json files (kind: "meta" from legacy_boot,
    "weights" from target_boot); unreadable files are skipped."""
    out = {}
    for f in sorted(Path(capture_dir).glob(f"*.{kind}.json")):
        try:
            out[f.name.split(".")[0]] = json.loads(f.read_text())
        except ValueError:
            pass
    return out
