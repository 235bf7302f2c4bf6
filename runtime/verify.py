"""`tfmigrate verify`: run ORIGINAL (legacy env) then MIGRATED (target env) on local clusters,
capture per-step losses and evaluate() results, compare, report. Exit 0 equivalent / 1 not equivalent / 2 error.
"""
from __future__ import annotations

import os
import platform
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import capture, cluster, compare, envs, ps_verify
from .sides import read_task_json, run_side

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
    statistical: bool = False  # a synchronous program whose own runs differ: compared like async PS
    rtol: float = compare.LOSS_RTOL
    atol: float = compare.LOSS_ATOL
    metric_rtol: float = compare.METRIC_RTOL  # the last evaluate() dict (see compare.METRIC_RTOL)
    metric_atol: float = compare.METRIC_ATOL
    json_out: Path | None = None
    html_out: Path | None = None
    timeout: float = 600.0
    args: list[str] = field(default_factory=list)
    run_dir: Path | None = None
    keep: bool = False  # keep the temporary run dir even after an equivalent verdict


class VerifyError(RuntimeError):
    pass


def check_program(what: str, path: Path) -> None:
    """verify runs one program file per side: say what is wrong with `path` (before any environment is built)."""
    if path.is_dir():
        scripts = sorted(p for p in path.rglob("*.py") if "__main__" in p.read_text(errors="replace"))[:5]
        hint = (f"; programs in it: {', '.join(str(p) for p in scripts)}" if scripts else
                "; it holds no file with `if __name__ == \"__main__\":`")
        raise VerifyError(f"{what} {path} is a directory: verify expects the program file to run (python FILE), "
                          f"e.g. the script of a package that imports the rest{hint}")
    if not path.exists():
        raise VerifyError(f"{what} {path}: no such file")
    if not path.is_file():
        raise VerifyError(f"{what} {path} is not a regular file: verify expects a Python program file")


def _program(path: Path, where: Path, what: str, say=None) -> Path:
    """The program file to run for `path`: itself, or for a Jupyter notebook its code cells exported to a script
    in `where` (IPython lines dropped, with a note; the notebook's directory first on sys.path, as in Jupyter)."""
    if Path(path).suffix != ".ipynb":
        return path
    from tfmigrate.notebooks import NotebookError, export

    try:
        code, dropped = export(Path(path).read_bytes())
    except (OSError, NotebookError) as exc:
        raise VerifyError(f"{what} {path}: cannot read the notebook: {exc}") from None
    where.mkdir(parents=True, exist_ok=True)
    script = where / (Path(path).stem + ".py")
    script.write_text(f"import sys\nsys.path.insert(0, {str(Path(path).resolve().parent)!r})\n\n" + code)
    if say is not None:
        say(f"{what} {Path(path).name} is a notebook: its code cells run as {script}"
            + (f" (IPython lines dropped: {'; '.join(dropped)})" if dropped else ""))
    return script


def trainers_for(original: Path) -> tuple[int | None, str]:
    """(1, why) when every Estimator of ORIGINAL trains under no distribution strategy or an in-process one, as the
    rewrite's program model reads it (no TensorFlow); (None, "") when it needs a cluster or cannot be told."""
    from tfmigrate.engine import Options, explain_paths

    if Path(original).suffix == ".ipynb":  # the notebook's code cells, as verify runs them
        with tempfile.TemporaryDirectory() as tmp:
            try:
                needed, _ = trainers_for(_program(original, Path(tmp), "ORIGINAL"))
            except VerifyError:
                return None, ""
        return needed, f"{Path(original).name} sets no multi-worker train_distribute" if needed else ""
    try:
        plans = [p for p in explain_paths([Path(original)], Options()) if "estimator" in p]
    except Exception:  # an unreadable or unparsable program: verify reports that itself
        return None, ""
    ran = [set((p.get("strategy") or {}).get("tf1_ran_under") or ()) for p in plans]
    if not ran or not all(ran) or set().union(*ran) - {"default", "one-device", "mirrored"}:
        return None, ""
    return 1, f"{Path(original).name} sets no multi-worker train_distribute"


# the rewrite's notes that speak to verify (rules/planners/numpy_inputs.py SHUFFLE_NOTE; tf1_calls dropout note)
_STATISTICAL_NOTE = "verify --statistical"
_RANDOM_NOTE = "random stream"
_TPU_NOTE = "not verified on this machine (no TPU)"  # rules/planners/tpu_strategy.py: which path verify runs


def rewrite_notes(original: Path) -> dict[str, str]:
    """What the rewrite's own notes on ORIGINAL say about comparing it step by step (no TensorFlow, nothing written):
    {"statistical": "path:line: note"} when its own runs differ from one another (numpy_input_fn(shuffle=True)),
    {"random": ...} when the migrated program draws other random numbers (dropout masks), {"tpu": ...} when its
    TPU path (TPUStrategy) cannot run here and which path verify compares; {} otherwise."""
    from tfmigrate.engine import Options, migrate_source

    if Path(original).suffix == ".ipynb":
        with tempfile.TemporaryDirectory() as tmp:
            try:
                return rewrite_notes(_program(original, Path(tmp), "ORIGINAL"))
            except VerifyError:
                return {}
    try:
        result = migrate_source(Path(original).read_bytes(), str(original), Options())
    except Exception:  # unreadable: verify reports that itself
        return {}
    found: dict[str, str] = {}
    for d in result.diagnostics:
        for key, words in (("statistical", _STATISTICAL_NOTE), ("random", _RANDOM_NOTE), ("tpu", _TPU_NOTE)):
            if words in d.message and key not in found:
                found[key] = f"{Path(original).name}:{d.line}: {d.message}"
    return found


def run(s: Settings, say=print, live=None) -> dict:
    """Do the whole verification; returns the result dict (raises on errors -> exit 2).

    Everything a run writes goes under its run dir. A temporary run dir (no --run-dir) is removed after an
    equivalent verdict or an interrupt unless `keep`; after an error or a NOT equivalent verdict it stays,
    since its logs are what explains the result."""
    for what, p in (("ORIGINAL", s.original), ("MIGRATED", s.migrated)):
        check_program(what, p)
    if os.environ.get("TF_CONFIG"):
        say("note: TF_CONFIG in this shell is ignored; verify gives every task its own (local cluster)")
    temporary = s.run_dir is None
    if temporary:
        s.run_dir = Path(tempfile.mkdtemp(prefix="tfmigrate-verify-"))
    try:
        s.original, s.migrated = (_program(p, s.run_dir / f"notebook-{side}", side.upper(), say)
                                  for side, p in (("original", s.original), ("migrated", s.migrated)))
        with cluster.registered(s.run_dir if temporary else None, say):  # a killed run is cleaned by the next
            result = _run(s, say, live)
    except (KeyboardInterrupt, cluster.ClusterError) as exc:
        interrupted = isinstance(exc, KeyboardInterrupt) or exc.kind == "interrupt"
        if interrupted and temporary and not s.keep:
            shutil.rmtree(s.run_dir, ignore_errors=True)
        elif temporary:
            say(f"run files kept in {s.run_dir}")
        raise
    except BaseException:
        if temporary:
            say(f"run files kept in {s.run_dir}")
        raise
    result["run_dir_kept"] = True
    if temporary and not s.keep and result["comparison"]["equivalent"]:
        shutil.rmtree(s.run_dir, ignore_errors=True)
        result["run_dir_kept"] = False
        say("run dir removed (equivalent; --keep keeps it)")
    return result


def _run(s: Settings, say, live) -> dict:
    timings: dict[str, float] = {}
    t = time.monotonic()
    pythons = envs.ensure_all(progress=lambda m: say(f"env {m}"), live=live)
    timings["env_check"] = time.monotonic() - t
    versions = {n: (envs.read_marker(n) or {}).get("versions") for n in envs.SPECS}

    root = s.run_dir
    root.mkdir(parents=True, exist_ok=True)
    say(f"run dir: {root}")
    tasks = cluster.layout(s.workers, s.ps, s.evaluator)
    result: dict = {
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(s).items()},
        "versions": versions,
        "host": {"python": platform.python_version(), "platform": platform.platform()},
        "run_dir": str(root),
    }
    if s.ps == 0 and not s.statistical:
        orig = run_side("original", pythons["legacy"], capture.LEGACY_BOOT, s.original, s,
                        root / "original", tasks, {}, say, live=live)
        ckpt0 = capture.find_ckpt0(orig.model_dir)
        if ckpt0 is None:
            raise VerifyError(f"the original wrote no model.ckpt-0 in {orig.model_dir}: cannot transfer initial weights")
        migr = run_side("migrated", pythons["target"], capture.TARGET_BOOT, s.migrated, s,
                        root / "migrated", tasks, {"TFMIGRATE_INIT_CKPT": str(ckpt0)}, say, live=live)
        a = capture.read_legacy(orig.capture_dir)
        b = capture.read_target(migr.capture_dir)
        for side, d in (("original", a), ("migrated", b)):
            if not any(d.values()):
                raise VerifyError(f"no per-step losses were captured from the {side} program "
                                  f"(see logs in {root / side / 'logs'})")
        t = time.monotonic()
        cmp = compare.compare_sync(a, b, s.rtol, s.atol, s.steps)
        predictions = compare.compare_predictions(capture.read_predictions(orig.capture_dir),
                                                  capture.read_predictions(migr.capture_dir), s.rtol, s.atol)
        if predictions is not None:  # what predict() yielded after training must agree as well
            cmp["predictions"] = predictions
            cmp["problems"] = cmp["problems"] + [f"predictions: {p}" for p in predictions["problems"]]
            cmp["equivalent"] = cmp["equivalent"] and predictions["equivalent"]
        evaluations = compare.compare_evaluations(capture.read_evaluations(orig.capture_dir),
                                                  capture.read_evaluations(migr.capture_dir),
                                                  s.metric_rtol, s.metric_atol)
        cmp["evaluations"] = evaluations  # the last evaluate() result must agree too
        cmp["problems"] = cmp["problems"] + [f"evaluate: {p}" for p in evaluations["problems"]]
        cmp["equivalent"] = cmp["equivalent"] and evaluations["equivalent"]
        timings["comparison"] = time.monotonic() - t
        result["losses"] = {"original": {w: [x[0] for x in v] for w, v in a.items()},
                            "migrated": {w: [x[0] for x in v] for w, v in b.items()},
                            "batch_original": {w: [x[1] for x in v] for w, v in a.items()},
                            "batch_migrated": {w: [x[1] for x in v] for w, v in b.items()}}
        sides = [orig, migr]
        result["weights"] = read_task_json(migr.capture_dir, "weights")
        result["init_checkpoint"] = str(ckpt0)
    else:
        try:
            fields, sides, ps_timings = ps_verify.run(s, pythons, tasks, root, say, sync=s.ps == 0, live=live)
        except ps_verify.PsVerifyError as exc:
            raise VerifyError(str(exc)) from None
        cmp = fields.pop("comparison")
        result.update(fields)
        timings.update(ps_timings)
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
