"""`tfmigrate verify`: run ORIGINAL (legacy env) then MIGRATED (target env) on local clusters,
capture per-step losses, compare, report. Exit 0 equivalent / 1 not equivalent / 2 error.
"""
from __future__ import annotations

import json
import platform
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import capture, cluster, compare, envs

EXIT_EQUIVALENT, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2


@dataclass
class Settings:
    original: Path
    migrated: Path
    workers: int = 2
    ps: int = 0
    evaluator: bool = False
    steps: int | None = None  # compare at most the first K steps
    repeats: int = 3
    rtol: float = 1e-5
    atol: float = 1e-6
    json_out: Path | None = None
    html_out: Path | None = None
    timeout: float = 600.0
    args: list[str] = field(default_factory=list)
    run_dir: Path | None = None


class VerifyError(RuntimeError):
    pass


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


def _run_side(side: str, python: Path, boot: Path, program: Path, s: Settings, root: Path,
              tasks: list[cluster.Task], extra_env: dict[str, str], say) -> SideRun:
    cap, md, logs = root / "capture", root / "model_dir", root / "logs"
    for d in (cap, md):
        d.mkdir(parents=True, exist_ok=True)
    env = {"TFMIGRATE_CAPTURE_DIR": str(cap), "TFMIGRATE_MODEL_DIR": str(md), **extra_env}
    first = {}

    def poll():
        if "t" not in first and capture.has_data(cap):
            first["t"] = time.monotonic()

    names = ", ".join(t.name for t in tasks)
    say(f"[bold]{side}[/]: {program.name} on {names}")
    t0 = time.monotonic()
    run = cluster.run_cluster(
        lambda t: [str(python), str(boot), str(program), *s.args], tasks, logs, env,
        timeout=s.timeout, on_poll=poll,
    )
    t1 = time.monotonic()
    for n in run.notes:
        say(f"  {n}")
    killed = [r.task.name for r in run.results if r.killed]
    if killed:
        say(f"  stopped after the trainers finished: {', '.join(killed)}")
    ft = first.get("t")
    return SideRun(
        side, t1 - t0, (ft - t0) if ft else None, (t1 - ft) if ft else None, cap, md, logs,
        [{"task": r.task.name, "exit": r.returncode, "wall": round(r.wall, 3), "killed": r.killed,
          "log": str(r.log)} for r in run.results],
    )


def run(s: Settings, say=print) -> dict:
    """Do the whole verification; returns the result dict (raises on errors -> exit 2)."""
    timings: dict[str, float] = {}
    t = time.monotonic()
    pythons = envs.ensure_all(progress=lambda m: say(f"env {m}"))
    timings["env_check"] = time.monotonic() - t
    versions = {n: (envs.read_marker(n) or {}).get("versions") for n in envs.SPECS}

    for p in (s.original, s.migrated):
        if not p.is_file():
            raise VerifyError(f"no such program: {p}")
    root = s.run_dir or Path(tempfile.mkdtemp(prefix="tfmigrate-verify-"))
    root.mkdir(parents=True, exist_ok=True)
    say(f"run dir: {root}")
    tasks = cluster.layout(s.workers, s.ps, s.evaluator)
    result: dict = {
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(s).items()},
        "versions": versions,
        "host": {"python": platform.python_version(), "platform": platform.platform()},
        "run_dir": str(root),
    }
    if s.ps == 0:
        orig = _run_side("original", pythons["legacy"], capture.LEGACY_BOOT, s.original, s,
                         root / "original", tasks, {}, say)
        ckpt0 = capture.find_ckpt0(orig.model_dir)
        if ckpt0 is None:
            raise VerifyError(f"the original wrote no model.ckpt-0 in {orig.model_dir}: cannot transfer initial weights")
        migr = _run_side("migrated", pythons["target"], capture.TARGET_BOOT, s.migrated, s,
                         root / "migrated", tasks, {"TFMIGRATE_INIT_CKPT": str(ckpt0)}, say)
        a = capture.read_legacy(orig.capture_dir)
        b = capture.read_target(migr.capture_dir)
        for side, d in (("original", a), ("migrated", b)):
            if not any(d.values()):
                raise VerifyError(f"no per-step losses were captured from the {side} program "
                                  f"(see logs in {root / side / 'logs'})")
        t = time.monotonic()
        cmp = compare.compare_sync(a, b, s.rtol, s.atol, s.steps)
        timings["comparison"] = time.monotonic() - t
        result["losses"] = {"original": {w: [x[0] for x in v] for w, v in a.items()},
                            "migrated": {w: [x[0] for x in v] for w, v in b.items()},
                            "batch_original": {w: [x[1] for x in v] for w, v in a.items()},
                            "batch_migrated": {w: [x[1] for x in v] for w, v in b.items()}}
        sides = [orig, migr]
        result["weights"] = _read_weights(migr.capture_dir)
        result["init_checkpoint"] = str(ckpt0)
    else:
        if s.repeats < 2:
            raise VerifyError("async PS needs --repeats >= 2 runs of the original for a band")
        sides, orig_runs = [], []
        ckpt0 = None
        for r in range(s.repeats):
            o = _run_side(f"original#{r + 1}", pythons["legacy"], capture.LEGACY_BOOT, s.original, s,
                          root / f"original-{r + 1}", tasks, {}, say)
            sides.append(o)
            orig_runs.append(capture.read_legacy_gs(o.capture_dir))
            ckpt0 = ckpt0 or capture.find_ckpt0(o.model_dir)
        extra = {"TFMIGRATE_INIT_CKPT": str(ckpt0)} if ckpt0 else {}
        m = _run_side("migrated", pythons["target"], capture.TARGET_BOOT, s.migrated, s,
                      root / "migrated", tasks, extra, say)
        sides.append(m)
        mig = [x[0] for rows in capture.read_target(m.capture_dir).values() for x in rows]
        if s.steps:
            orig_runs = [r[: s.steps] for r in orig_runs]
            mig = mig[: s.steps]
        t = time.monotonic()
        cmp = compare.compare_statistical(orig_runs, [mig])
        timings["comparison"] = time.monotonic() - t
        result["losses"] = {"original_runs": orig_runs, "migrated_runs": [mig]}
    for sd in sides:
        timings[f"{sd.side}_total"] = sd.wall
        if sd.cluster_start is not None:
            timings[f"{sd.side}_cluster_start"] = sd.cluster_start
            timings[f"{sd.side}_training"] = sd.training
    result["sides"] = [{k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(sd).items()} for sd in sides]
    result["comparison"] = cmp
    result["timings"] = timings
    result["verdict"] = "equivalent" if cmp["equivalent"] else "NOT equivalent"
    return result


def _read_weights(capture_dir: Path) -> dict:
    out = {}
    for f in sorted(Path(capture_dir).glob("*.weights.json")):
        try:
            out[f.name.split(".")[0]] = json.loads(f.read_text())
        except ValueError:
            pass
    return out
