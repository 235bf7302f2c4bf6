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
