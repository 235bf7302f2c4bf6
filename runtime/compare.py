"""Loss comparison and verdict. Pure Python (no numpy, no TensorFlow).

Sync modes (single process, MWMS): stepwise, per worker, per step
    pass  iff  |a - b| <= atol + rtol * |a|        (a = original, b = migrated)
Async PS: statistical, see compare_stat.
"""
from __future__ import annotations

import math
from typing import Sequence

# A step record: (loss, batch size or None)
Step = tuple  # (float, int | None)

# Per-step losses: verify's default tolerance (Settings.rtol / Settings.atol): float32 reductions in another
# order stay well inside it, a changed formula does not.
LOSS_RTOL, LOSS_ATOL = 1e-5, 1e-6
# evaluate() metrics (the last evaluation's dict): the same bound as one loss step. A metric is a ratio of
# float32 sums over the evaluation set computed from the final weights, so it moves with the weights' last
# bits (compared step by step at LOSS_RTOL) and the summation order; integer-valued results (global_step,
# counts) must be equal. Threshold metrics (auc, auc_precision_recall: 200 buckets) are held to the same bound:
# a prediction crossing a bucket edge between the sides would show here and be reported, not absorbed.
METRIC_RTOL, METRIC_ATOL = 1e-5, 1e-6


def rel_delta(a: float, b: float) -> float:
    d = abs(a - b)
    if d == 0:
        return 0.0
    return d / abs(a) if a != 0 else math.inf


def within(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= atol + rtol * abs(a)


def compare_worker(orig: Sequence[Step], migr: Sequence[Step], rtol: float, atol: float,
                   max_steps: int | None = None) -> dict:
    if max_steps is not None:
        orig, migr = orig[:max_steps], migr[:max_steps]
    n = min(len(orig), len(migr))
    max_abs = 0.0
    max_rel = 0.0
    bit_equal = 0
    first_break = None
    batch_mismatch = None
    for i in range(n):
        a, ba = orig[i][0], orig[i][1]
        b, bb = migr[i][0], migr[i][1]
        if ba is not None and bb is not None and ba != bb and batch_mismatch is None:
            batch_mismatch = {"step": i, "original": ba, "migrated": bb}
        d = abs(a - b)
        if not math.isnan(d):
            max_abs = max(max_abs, d)
            max_rel = max(max_rel, rel_delta(a, b))
        bit_equal += a == b
        if first_break is None and not within(a, b, rtol, atol):
            first_break = {"step": i, "original": a, "migrated": b, "abs": d, "rel": rel_delta(a, b)}
    return {
        "steps_original": len(orig),
        "steps_migrated": len(migr),
        "compared": n,
        "bit_equal": bit_equal,
        "max_abs": max_abs,
        "max_rel": max_rel,
        "first_break": first_break,
        "batch_mismatch": batch_mismatch,
        "step_count_mismatch": len(orig) != len(migr),
    }


def _worker_order(name: str) -> tuple:
    kind = name.rstrip("0123456789")
    idx = name[len(kind):]
    return ({"chief": 0, "worker": 1}.get(kind, 2), kind, int(idx or 0))


def compare_sync(original: dict[str, Sequence[Step]], migrated: dict[str, Sequence[Step]],
                 rtol: float = 1e-5, atol: float = 1e-6, max_steps: int | None = None) -> dict:
    """Stepwise verdict over every worker present on either side."""
    workers = sorted(set(original) | set(migrated), key=_worker_order)
    per: dict[str, dict] = {}
    problems: list[str] = []
    first_break = None
    for w in workers:
        if w not in original or w not in migrated:
            side = "original" if w not in original else "migrated"
            problems.append(f"{w}: no losses captured from the {side} program")
            continue
        r = compare_worker(original[w], migrated[w], rtol, atol, max_steps)
        per[w] = r
        if r["compared"] == 0:
            problems.append(f"{w}: no steps to compare")
        if r["batch_mismatch"]:
            bm = r["batch_mismatch"]
            problems.append(f"{w}: data differs at step {bm['step']} (batch {bm['original']} vs {bm['migrated']})")
        if r["step_count_mismatch"]:
            problems.append(f"{w}: step count differs ({r['steps_original']} original vs {r['steps_migrated']} migrated)")
        fb = r["first_break"]
        if fb:
            problems.append(
                f"{w}: first step breaking tolerance is {fb['step']}: "
                f"{fb['original']!r} vs {fb['migrated']!r} (|Δ|={fb['abs']:.3g}, rel={fb['rel']:.3g})"
            )
            if first_break is None or fb["step"] < first_break["step"]:
                first_break = dict(fb, worker=w)
    return {
        "mode": "stepwise",
        "rtol": rtol,
        "atol": atol,
        "equivalent": not problems,
        "workers": per,
        "max_abs": max((r["max_abs"] for r in per.values()), default=0.0),
        "max_rel": max((r["max_rel"] for r in per.values()), default=0.0),
        "first_break": first_break,
        "problems": problems,
    }


def compare_predictions(original: dict[str, list[dict]], migrated: dict[str, list[dict]],
                        rtol: float = 1e-5, atol: float = 1e-6) -> dict | None:
    """What each task's predict generator yielded, item by item (None when neither side predicted).

    Items are {key: {"dtype", "shape", "values"}} (capture format of boot/predictions_capture.py). Keys, shapes
    and non-float values must be equal; floats within `atol + rtol * |a|`; the largest |Δ| is reported."""
    tasks = sorted(set(original) | set(migrated), key=_worker_order)
    if not tasks:
        return None
    problems: list[str] = []
    per: dict[str, dict] = {}
    for task in tasks:
        a, b = original.get(task, []), migrated.get(task, [])
        max_abs, bit_equal, values = 0.0, 0, 0
        if len(a) != len(b):
            problems.append(f"{task}: {len(a)} predictions from the original, {len(b)} from the migrated program")
        for i, (x, y) in enumerate(zip(a, b)):
            if sorted(x) != sorted(y):
                problems.append(f"{task}: prediction {i} has keys {sorted(x)} vs {sorted(y)}")
                break
            bad = None
            for key in sorted(x):
                u, v = x[key], y[key]
                if u["shape"] != v["shape"]:
                    bad = f"{key!r} shape {u['shape']} vs {v['shape']}"
                    break
                floating = u["dtype"].startswith("float") and v["dtype"].startswith("float")
                for p, q in zip(u["values"], v["values"]):
                    values += 1
                    bit_equal += p == q
                    if floating:
                        d = abs(p - q)
                        if not math.isnan(d):
                            max_abs = max(max_abs, d)
                        if not within(p, q, rtol, atol):
                            bad = bad or f"{key!r} {p!r} vs {q!r} (|Δ|={d:.3g})"
                    elif p != q:
                        bad = bad or f"{key!r} {p!r} vs {q!r}"
            if bad:
                problems.append(f"{task}: prediction {i} differs: {bad}")
                break
        per[task] = {"original": len(a), "migrated": len(b), "values": values, "bit_equal": bit_equal,
                     "max_abs": max_abs}
    return {"equivalent": not problems, "tasks": per, "problems": problems,
            "max_abs": max((r["max_abs"] for r in per.values()), default=0.0)}


def _metric_row(key: str, u: dict | None, v: dict | None, rtol: float, atol: float) -> dict:
    """One key of the two evaluate() dicts (capture encoding {"dtype", "shape", "values"})."""
    row = {"key": key, "original": None, "migrated": None, "abs": None, "ok": False, "why": None}
    if u is None or v is None:
        row["why"] = "missing in the " + ("original" if u is None else "migrated") + " result"
        if u is not None:
            row["original"] = u["values"][0] if len(u["values"]) == 1 else u["values"]
        if v is not None:
            row["migrated"] = v["values"][0] if len(v["values"]) == 1 else v["values"]
        return row
    a, b = u["values"], v["values"]
    row["original"] = a[0] if len(a) == 1 else a
    row["migrated"] = b[0] if len(b) == 1 else b
    if u["shape"] != v["shape"]:
        row["why"] = f"shape {u['shape']} vs {v['shape']}"
        return row
    integral = u["dtype"][:3] in ("int", "uin", "boo") or v["dtype"][:3] in ("int", "uin", "boo")
    max_abs, ok = 0.0, True
    for p, q in zip(a, b):
        if isinstance(p, str) or isinstance(q, str):
            ok = ok and p == q
            continue
        d = abs(p - q)
        if not math.isnan(d):
            max_abs = max(max_abs, d)
        ok = ok and (p == q if integral else within(p, q, rtol, atol))
    row["abs"] = max_abs
    row["ok"] = ok
    if not ok:
        row["why"] = "must be equal" if integral else f"|Δ|={max_abs:.3g} > {atol:g} + {rtol:g}·|original|"
    return row


def compare_evaluations(original: dict[str, list[dict]], migrated: dict[str, list[dict]],
                        rtol: float = METRIC_RTOL, atol: float = METRIC_ATOL) -> dict:
    """The LAST evaluate() result of each task, key by key (capture format of boot/evaluations_capture.py).

    Every task that evaluated in the original must have evaluated in the migrated program, with the same keys
    (a missing or extra key fails, named) and values within `atol + rtol * |original|` (integers equal). A task
    that evaluated only in the migrated program (e.g. a worker of a multi-worker run where only the Estimator's
    chief evaluated) is noted, not compared, and so is a migrated program evaluating where the original evaluated nowhere. Neither side
    evaluating is no failure: the result says so."""
    tasks = sorted(set(original) | set(migrated), key=_worker_order)
    out = {"rtol": rtol, "atol": atol, "equivalent": True, "tasks": {}, "problems": [], "notes": []}
    if not tasks:
        out["notes"].append("no evaluate() on either side")
        return out
    if not original:
        # e.g. train_and_evaluate under MultiWorkerMirroredStrategy with no evaluator task: the Estimator ran no
        # evaluation at all, the migrated program evaluates after training. Nothing to compare: say so.
        out["notes"].append(f"the original ran no evaluate(); the migrated program evaluated on {', '.join(tasks)} "
                            "(nothing to compare; an Estimator under a multi-worker strategy evaluates only on an "
                            "evaluator task)")
    for task in tasks:
        a, b = original.get(task), migrated.get(task)
        if not a:
            if original:
                out["notes"].append(f"{task}: evaluated only in the migrated program ({len(b)}x); not compared")
            continue
        if not b:
            out["problems"].append(f"{task}: the original evaluated ({len(a)}x), the migrated program did not")
            continue
        x, y = a[-1], b[-1]
        rows = [_metric_row(k, x.get(k), y.get(k), rtol, atol) for k in sorted(set(x) | set(y))]
        out["tasks"][task] = {"evaluations_original": len(a), "evaluations_migrated": len(b), "metrics": rows}
        if len(a) != len(b):
            out["notes"].append(f"{task}: {len(a)} evaluations in the original, {len(b)} in the migrated program "
                                "(the last ones are compared)")
        for r in rows:
            if not r["ok"]:
                out["problems"].append(f"{task}: evaluate() key {r['key']!r}: {r['why']}"
                                       + (f" ({r['original']!r} vs {r['migrated']!r})"
                                          if r["original"] is not None and r["migrated"] is not None else ""))
    out["equivalent"] = not out["problems"]
    out["max_abs"] = {}
    for t in out["tasks"].values():
        for r in t["metrics"]:
            if r["abs"] is not None:
                out["max_abs"][r["key"]] = max(out["max_abs"].get(r["key"], 0.0), r["abs"])
    return out
