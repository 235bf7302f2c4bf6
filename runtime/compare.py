"""Loss comparison and verdict. Pure Python (no numpy, no TensorFlow).

Sync modes (single process, MWMS): stepwise, per worker, per step
    pass  iff  |a - b| <= atol + rtol * |a|        (a = original, b = migrated)
Async PS: statistical -- binned mean curves and final loss of the migrated runs must lie inside the
band spanned by several runs of the original (widened by a margin, see `compare_statistical`).
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


# --------------------------------------------------------------------------- statistical (async PS)
def binned_means(seq: Sequence[float], bins: int) -> list[float]:
    """Mean of each of `bins` equal fractions of the run (runs of different length stay comparable)."""
    n = len(seq)
    if n == 0:
        return [math.nan] * bins
    out = []
    for k in range(bins):
        lo = (k * n) // bins
        hi = max(((k + 1) * n) // bins, lo + 1)
        chunk = seq[lo:min(hi, n)]
        out.append(math.fsum(chunk) / len(chunk))
    return out


def final_loss(seq: Sequence[float], frac: float = 0.05) -> float:
    """Mean of the last `frac` of the steps (at least one step)."""
    if not seq:
        return math.nan
    k = max(1, int(len(seq) * frac))
    return math.fsum(seq[-k:]) / k


def compare_statistical(original_runs: Sequence[Sequence[float]], migrated_runs: Sequence[Sequence[float]],
                        bins: int = 10, band_rtol: float = 0.1, min_repeats: int = 2) -> dict:
    """Migrated binned curve + final loss vs. the band of several original runs.

    band per bin = [min - m, max + m] over the original runs, m = max(band_rtol * |mean|, max - min):
    the observed run-to-run spread of the original is doubled, and never below band_rtol relative.
    """
    if len(original_runs) < min_repeats:
        raise ValueError(f"statistical comparison needs >= {min_repeats} runs of the original, got {len(original_runs)}")
    if not migrated_runs:
        raise ValueError("no migrated run")

    def band(values: list[float]) -> tuple[float, float]:
        lo, hi = min(values), max(values)
        mean = math.fsum(values) / len(values)
        m = max(band_rtol * abs(mean), hi - lo)
        return lo - m, hi + m

    ob = [binned_means(r, bins) for r in original_runs]
    mb = [binned_means(r, bins) for r in migrated_runs]
    rows = []
    problems = []
    for k in range(bins):
        lo, hi = band([b[k] for b in ob])
        mig = [b[k] for b in mb]
        ok = all(lo <= v <= hi for v in mig)
        rows.append({"bin": k, "lo": lo, "hi": hi, "original": [b[k] for b in ob], "migrated": mig, "ok": ok})
        if not ok:
            problems.append(f"bin {k}: migrated mean {mig} outside the original band [{lo:.4g}, {hi:.4g}]")
    of = [final_loss(r) for r in original_runs]
    mf = [final_loss(r) for r in migrated_runs]
    flo, fhi = band(of)
    final_ok = all(flo <= v <= fhi for v in mf)
    if not final_ok:
        problems.append(f"final loss {mf} outside the original band [{flo:.4g}, {fhi:.4g}]")
    return {
        "mode": "statistical",
        "bins": rows,
        "final": {"lo": flo, "hi": fhi, "original": of, "migrated": mf, "ok": final_ok},
        "band_rtol": band_rtol,
        "repeats": len(original_runs),
        "equivalent": not problems,
        "problems": problems,
    }
