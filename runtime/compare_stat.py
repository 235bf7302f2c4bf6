"""Statistical comparison for async parameter-server runs (pure Python; equivalence study §4.3).

Async PS training is not reproducible step by step (which worker applies which update depends on
timing), so the original is run R times from the same canonical checkpoint and the migrated run must
look like one more draw from those runs.

Rule. Each run's losses (original: global-step order; migrated: execution order) are cut into `bins`
equal fractions; the last `final_frac` of the steps is one more check, the "final" bin. For each of
these K = bins + 1 checks, with original bin means o_1..o_R (mean c, sample standard deviation s):

    margin = sqrt(1 + 1/R) * max(t_q(R-1) * s, z_q * se),     q = 1 - ALPHA / (2 K)
    pass   iff   c - margin <= migrated bin mean <= c + margin         for every check

* t_q(R-1) * s * sqrt(1 + 1/R) is the prediction interval of one more run drawn from the original's
  run-to-run spread (Student t, R-1 degrees of freedom). Few repeats make it wide on purpose: with
  K = 11, R = 3 gives 38 s, R = 5 gives 9.7 s. R >= 3 is required (R = 2 gives 860 s: no test at all).
* se is the bin mean's own sampling noise, from the original runs' step-to-step scatter
  (se^2 = mean over runs of MSSD/2/n, MSSD = mean squared successive difference: insensitive to the
  slow downward trend), z_q the normal quantile. It sets the floor where the original runs agree (for
  example a stretch that only the chief trained, which is deterministic): a bin mean cannot be pinned
  down more finely than its own noise.
* ALPHA = 1% over all K checks together (Bonferroni): under a normal model a correct migration is
  reported NOT equivalent at most 1% of the time.
What it cannot see: differences smaller than the margin, which is reported per bin (a learning rate a
few percent off can pass). A wrong loss, a learning rate off by a large factor, or a model computing another
function of the same weights fails in the bins where the original is deterministic or tight.
"""
from __future__ import annotations

import math
from typing import Sequence

ALPHA = 0.01  # chance that a correct migration fails the whole comparison (normal model)
MIN_REPEATS = 3


RULE = ("margin = sqrt(1+1/R)·max(t_q(R-1)·s, z_q·se), q = 1 − 1%/(2·checks); pass iff |migrated − mean| ≤ margin "
        "in every bin and the final bin (s: spread of the original runs' bin means; se: a bin mean's own step noise; "
        "a correct migration fails with ≤1% probability)")


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def _t_cdf(t: float, df: int) -> float:
    x = df / (df + t * t)
    a, b = df / 2, 0.5
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    ib = front * _betacf(a, b, x) / a if x < (a + 1) / (a + b + 2) else 1 - front * _betacf(b, a, 1 - x) / b
    return 1 - ib / 2 if t >= 0 else ib / 2


def _quantile(cdf, q: float) -> float:
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < q else (lo, mid)
    return (lo + hi) / 2


def t_quantile(q: float, df: int) -> float:
    """Student t quantile (df >= 1)."""
    return _quantile(lambda t: _t_cdf(t, df), q)


def z_quantile(q: float) -> float:
    return _quantile(lambda z: 0.5 * math.erfc(-z / math.sqrt(2)), q)


def bin_edges(n: int, bins: int) -> list[tuple[int, int]]:
    """[lo, hi) index ranges of `bins` equal fractions of n steps (each at least one step)."""
    out = []
    for k in range(bins):
        lo = min((k * n) // bins, max(n - 1, 0))
        out.append((lo, max(((k + 1) * n) // bins, lo + 1)))
    return out


def binned_means(seq: Sequence[float], bins: int) -> list[float]:
    """Mean of each of `bins` equal fractions of the run (runs of different length stay comparable)."""
    if not seq:
        return [math.nan] * bins
    return [math.fsum(seq[lo:hi]) / len(seq[lo:hi]) for lo, hi in bin_edges(len(seq), bins)]


def final_loss(seq: Sequence[float], frac: float = 0.05) -> float:
    """Mean of the last `frac` of the steps (at least one step)."""
    if not seq:
        return math.nan
    k = max(1, int(len(seq) * frac))
    return math.fsum(seq[-k:]) / k


def mean_se(chunk: Sequence[float]) -> float:
    """Standard error of a chunk's mean from its step-to-step scatter (von Neumann: trend-insensitive)."""
    n = len(chunk)
    if n < 2:
        return 0.0
    mssd = math.fsum((chunk[i + 1] - chunk[i]) ** 2 for i in range(n - 1)) / (n - 1)
    return math.sqrt(mssd / 2 / n)


def _chunks(seq: Sequence[float], bins: int, final_frac: float) -> list[Sequence[float]]:
    out = [seq[lo:hi] for lo, hi in bin_edges(len(seq), bins)]
    out.append(seq[-max(1, int(len(seq) * final_frac)):])
    return out


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs) if xs else math.nan


def band(orig_chunks: list[Sequence[float]], q: float) -> dict:
    """Band of one check from the original runs' chunks, at quantile q (see the module docstring)."""
    means = [_mean(c) for c in orig_chunks]
    r = len(means)
    c = _mean(means)
    s = math.sqrt(math.fsum((m - c) ** 2 for m in means) / (r - 1)) if r > 1 else math.inf
    se = math.sqrt(_mean([mean_se(ch) ** 2 for ch in orig_chunks]))
    spread, noise = t_quantile(q, r - 1) * s, z_quantile(q) * se
    margin = math.sqrt(1 + 1 / r) * max(spread, noise)
    return {"original": means, "mean": c, "sd": s, "se": se, "margin": margin,
            "lo": c - margin, "hi": c + margin, "by": "spread" if spread >= noise else "noise"}


def compare_statistical(original_runs: Sequence[Sequence[float]], migrated_runs: Sequence[Sequence[float]],
                        bins: int = 10, final_frac: float = 0.05, min_repeats: int = MIN_REPEATS,
                        alpha: float = ALPHA) -> dict:
    """Every migrated bin mean (and final mean) inside the original runs' prediction band."""
    if len(original_runs) < min_repeats:
        raise ValueError(f"statistical comparison needs >= {min_repeats} runs of the original, "
                         f"got {len(original_runs)}")
    if not migrated_runs or not all(migrated_runs):
        raise ValueError("no migrated run (or a migrated run without steps)")
    if not all(original_runs):
        raise ValueError("an original run without steps")
    ochunks = [_chunks(r, bins, final_frac) for r in original_runs]
    mchunks = [_chunks(r, bins, final_frac) for r in migrated_runs]
    rows, problems = [], []
    q = 1 - alpha / (2 * (bins + 1))
    for k in range(bins + 1):
        b = band([c[k] for c in ochunks], q)
        mig = [_mean(c[k]) for c in mchunks]
        ok = all(b["lo"] <= v <= b["hi"] for v in mig)
        name = "final" if k == bins else k
        steps = bin_edges(len(migrated_runs[0]), bins)[k] if k < bins else None
        rows.append({"bin": name, "steps": steps, **b, "migrated": mig,
                     "rel_margin": b["margin"] / abs(b["mean"]) if b["mean"] else math.inf, "ok": ok})
        if not ok:
            what = "final loss" if k == bins else f"bin {k}"
            problems.append(f"{what}: migrated mean {', '.join(f'{v:.4g}' for v in mig)} outside the original "
                            f"band [{b['lo']:.4g}, {b['hi']:.4g}] (mean {b['mean']:.4g} ± {b['margin']:.3g}, "
                            f"by {b['by']})")
    return {
        "mode": "statistical",
        "rule": RULE,
        "alpha": alpha,
        "quantile": q,
        "t": t_quantile(q, len(original_runs) - 1),
        "z": z_quantile(q),
        "bins": rows[:bins],
        "final": rows[bins],
        "final_frac": final_frac,
        "repeats": len(original_runs),
        "steps_original": [len(r) for r in original_runs],
        "steps_migrated": [len(r) for r in migrated_runs],
        "equivalent": not problems,
        "problems": problems,
    }
