"""Run one side (original or migrated program) on a local cluster under its boot script."""
from __future__ import annotations

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


def run_side(side: str, python: Path, boot: Path, program: Path, s, root: Path, tasks: list[cluster.Task],
             extra_env: dict[str, str], say, grace: float = 10.0) -> SideRun:
    """`grace`: how long workers may outlive the chief (0: they serve forever, the chief's exit ends the run)."""
    cap, md, logs, tmp = root / "capture", root / "model_dir", root / "logs", root / "tmp"
    for d in (cap, md, tmp):
        d.mkdir(parents=True, exist_ok=True)
    # TMPDIR: what the program writes to temporary files stays in the run dir, removed with it
    env = {"TFMIGRATE_CAPTURE_DIR": str(cap), "TFMIGRATE_MODEL_DIR": str(md), "TMPDIR": str(tmp), **extra_env}
    first = {}

    def poll():
        if "t" not in first and capture.has_data(cap):
            first["t"] = time.monotonic()

    names = ", ".join(t.name for t in tasks)
    say(f"[bold]{side}[/]: {program.name} on {names}")
    t0 = time.monotonic()
    run = cluster.run_cluster(
        lambda t: [str(python), str(boot), str(program), *s.args], tasks, logs, env,
        timeout=s.timeout, on_poll=poll, grace=grace,
    )
    t1 = time.monotonic()
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
