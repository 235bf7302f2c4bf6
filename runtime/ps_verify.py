"""`verify --ps` and `verify --statistical`: runs compared statistically (equivalence study §4.3, §6).

Async parameter servers are not reproducible step by step; neither is a synchronous program whose input order
changes from run to run (numpy_input_fn(shuffle=True): a queue fed by a thread). Both are checked the same way:

1. Canonical start: the original runs once as a single process and stops right before its first step;
   its model.ckpt-0 is the start of every run (a PS run's own ckpt-0 may already hold updates).
2. The original runs `repeats` times on the cluster, each warm-started from that checkpoint (trainable
   variables; optimizer slots start from their constant initializers on both sides). The chief checks
   that its variables hold the checkpoint's values before training.
3. The migrated program runs once from the same checkpoint (target_boot maps it by name and checks each
   weight bit for bit). Its workers and ps serve forever: the chief's (coordinator's) exit ends the run.
4. compare_stat.compare_statistical: original losses in global-step order vs migrated losses in execution order
   (async PS); for a synchronous program (`sync`), the chief's losses step by step on both sides.
"""
from __future__ import annotations

import time
from pathlib import Path

from . import capture, cluster, compare_stat
from .sides import read_task_json, run_side

READY_POLL_SECS = 1.0  # TF1 worker readiness poll (TF default 30 s): timing only


class PsVerifyError(RuntimeError):
    pass


def _init_checkpoint(python: Path, s, root: Path, say) -> tuple[Path, float]:
    say("canonical start: original as one process, stopped before its first step")
    t0 = time.monotonic()
    run = run_side("init", python, capture.LEGACY_BOOT, s.original, s, root / "init",
                   [cluster.Task("chief", 0)], {"TFMIGRATE_INIT_ONLY": "1"}, say)
    ckpt = capture.find_ckpt0(run.model_dir)
    if ckpt is None:
        raise PsVerifyError(f"the init-only run of the original wrote no model.ckpt-0 in {run.model_dir}")
    return ckpt, time.monotonic() - t0


def _warm_start_problem(meta: dict, ckpt: Path) -> str | None:
    ws = (meta.get("chief0") or {}).get("warm_start")
    if ws is None:
        return "the chief never reported its warm start"
    if ws["checkpoint"] != str(ckpt):
        return f"warm-started from {ws['checkpoint']}, not {ckpt}"
    if ws["mismatched"] and ws["global_step"] == 0:
        return f"variables differ from the canonical checkpoint: {', '.join(ws['mismatched'])}"
    if ws["checked"] == 0:
        return "no trainable variable was warm-started"
    return None


def _weights_problems(weights: dict) -> list[str]:
    chief = weights.get("chief0") or {}
    out = [f"weight {u['weight']} {u['shape']} has no checkpoint variable" for u in chief.get("unmatched", [])]
    out += [f"checkpoint variable {n} was not loaded into any weight of the migrated model"
            for n in chief.get("unused_checkpoint_vars", [])]
    out += [f"weight {m['weight']} does not hold its checkpoint value" for m in chief.get("mapped", [])
            if m.get("exact") is False]
    if not chief.get("mapped"):
        out.append("the migrated model took no weight from the canonical checkpoint")
    return out


def _per_task(rows, key) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[key(r)] = out.get(key(r), 0) + 1
    return out


def _chief(rows_by_task: dict[str, list]) -> str | None:
    """The task whose losses a synchronous run is judged by: the chief (every replica took the same step)."""
    return "chief0" if "chief0" in rows_by_task else min(rows_by_task, default=None)


def _sync_losses(by_task: dict[str, list[tuple]]) -> tuple[list[float], str | None]:
    task = _chief({t: r for t, r in by_task.items() if r})
    return ([row[0] for row in by_task[task]] if task else []), task


LONE_SHARE = 0.95  # one task making this share of a run's steps: the other workers barely trained


def lone_worker_caveats(runs: list[dict], tasks: list[cluster.Task]) -> list[str]:
    """What an async comparison did not exercise: a run in which one task made nearly every step, although the
    cluster had several that train (TF1: chief and workers; migrated: the workers, the chief coordinates). On a
    small machine one worker can take every step; the comparison then covers one async worker, not N."""
    trainers = {"original": sum(t.type in ("chief", "worker") for t in tasks),
                "migrated": sum(t.type == "worker" for t in tasks)}
    caveats = []
    for run in runs:
        steps = run["steps_per_task"]
        total = sum(steps.values())
        side = "migrated" if run["side"] == "migrated" else "original"
        if trainers[side] < 2 or not total:
            continue
        task, most = max(steps.items(), key=lambda kv: kv[1])
        if most >= LONE_SHARE * total:
            caveats.append(f"{run['side']}: {task} made {most} of {total} steps although {trainers[side]} tasks "
                           "train: this run compared one asynchronous worker, not several")
    return caveats


def run(s, pythons: dict, tasks: list[cluster.Task], root: Path, say, sync: bool = False,
        live=None) -> tuple[dict, list, dict]:
    """-> (result fields, side runs, timings). `sync`: a synchronous program (no ps) whose own runs differ."""
    what = "a statistical comparison" if sync else "async PS"
    if s.repeats < compare_stat.MIN_REPEATS:
        raise PsVerifyError(f"{what} needs --repeats >= {compare_stat.MIN_REPEATS} runs of the original "
                            "(with 2 the band admits almost anything)")
    timings: dict[str, float] = {}
    ckpt, timings["init_total"] = _init_checkpoint(pythons["legacy"], s, root, say)
    say(f"canonical initial checkpoint: {ckpt}")
    env = {"TFMIGRATE_WARM_START": str(ckpt)}
    if not sync:  # only PS workers poll for a ready model
        say(f"original: TF1 worker readiness poll {READY_POLL_SECS:g} s instead of 30 s (timing only)")
        env["TFMIGRATE_READY_POLL_SECS"] = str(READY_POLL_SECS)
    sides, runs, orig_runs, orig_tasks = [], [], [], []
    for r in range(s.repeats):
        o = run_side(f"original#{r + 1}", pythons["legacy"], capture.LEGACY_BOOT, s.original, s,
                     root / f"original-{r + 1}", tasks, env, say, live=live)
        sides.append(o)
        meta = read_task_json(o.capture_dir, "meta")
        problem = _warm_start_problem(meta, ckpt)
        if problem:
            raise PsVerifyError(f"original#{r + 1}: warm start from the canonical checkpoint failed: {problem}")
        if sync:
            by_task = capture.read_legacy(o.capture_dir)
            losses, task = _sync_losses(by_task)
            rows = [(i, 0.0, task, loss) for i, loss in enumerate(losses)]
        else:
            rows = capture.read_legacy_ordered(o.capture_dir)
        if not rows:
            raise PsVerifyError(f"no per-step losses were captured from original#{r + 1} (logs: {o.log_dir})")
        steps = ({t: len(v) for t, v in by_task.items() if v} if sync else _per_task(rows, lambda x: x[2]))
        say(f"  steps per task: {steps}")
        runs.append({"side": o.side, "steps_per_task": steps, "first_gs_per_task":
                     {t: min(x[0] for x in rows if x[2] == t) for t in {x[2] for x in rows}},
                     "warm_start": meta["chief0"]["warm_start"]})
        orig_runs.append([x[3] for x in rows])
        orig_tasks.append([x[2] for x in rows])
    # PS: the workers and ps of the migrated job serve forever, the chief's exit ends the run
    m = run_side("migrated", pythons["target"], capture.TARGET_BOOT, s.migrated, s, root / "migrated", tasks,
                 {"TFMIGRATE_INIT_CKPT": str(ckpt)}, say, live=live, **({} if sync else {"grace": 0.0}))
    sides.append(m)
    weights = read_task_json(m.capture_dir, "weights")
    if sync:
        by_task = capture.read_target(m.capture_dir)
        losses, task = _sync_losses(by_task)
        rows = [(float(i), task, loss) for i, loss in enumerate(losses)]
        steps = {t: len(v) for t, v in by_task.items() if v}
    else:
        rows = capture.read_target_ordered(m.capture_dir)
        steps = _per_task(rows, lambda x: x[1])
    if not rows:
        raise PsVerifyError(f"no per-step losses were captured from the migrated program (logs: {m.log_dir})")
    say(f"  steps per task: {steps}")
    runs.append({"side": "migrated", "steps_per_task": steps})
    mig = [x[2] for x in rows]
    if s.steps:
        orig_runs = [r[: s.steps] for r in orig_runs]
        mig = mig[: s.steps]
    t = time.monotonic()
    cmp = compare_stat.compare_statistical(orig_runs, [mig])
    timings["comparison"] = time.monotonic() - t
    start = _weights_problems(weights)
    if start:
        cmp["problems"] = start + cmp["problems"]
        cmp["equivalent"] = False
    fields = {
        "init_checkpoint": str(ckpt),
        "ready_poll_secs": READY_POLL_SECS,
        "runs": runs,
        "weights": weights,
        "losses": {"original_runs": orig_runs, "migrated_runs": [mig],  # global-step / execution order
                   "original_tasks": [t[: len(r)] for t, r in zip(orig_tasks, orig_runs)],
                   "migrated_tasks": [[x[1] for x in rows][: len(mig)]]},
        "comparison": cmp,
        "caveats": [] if sync else lone_worker_caveats(runs, tasks),
    }
    return fields, sides, timings
