"""The HTML report's charts: matplotlib figures rendered to inline SVG in the tfmigrate process (never in a
TF environment). Optional dependency: `pip install 'tfmigrate[report]'`.

Stepwise (sync) runs: one panel per worker, the loss of both sides on top (the original wide and pale, the
migrated thin and dashed over it, so agreeing curves stay both visible) and |Δ| per step below on a log axis
with the tolerance atol + rtol·|original| it must stay under; steps where the two are bit-equal (Δ = 0, not
drawable on a log axis) are ticked along the bottom; the first step over tolerance is marked in both.
Statistical (async PS) runs: the original runs, their per-bin band and the migrated bin means.
"""
from __future__ import annotations

import io
import math
import re

ORIGINAL, MIGRATED, DELTA, TOL, BREAK, BAND = "#7fb2e5", "#c62828", "#2e7d32", "#616161", "#ef6c00", "#1565c0"


class ChartsUnavailable(RuntimeError):
    pass


def require() -> None:
    """Fail before a long verify run, not after it, when --html cannot be drawn."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ChartsUnavailable("--html draws its charts with matplotlib: pip install 'tfmigrate[report]'") from None


def _figure(rows: int, height: float):
    require()
    import matplotlib

    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    matplotlib.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.titlesize": 10,
                                "font.family": "sans-serif"})
    fig = Figure(figsize=(8.0, height), layout="constrained")
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    return fig, axes


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG goes inline
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)  # creator/date: not for the reader
    # matplotlib sizes the SVG in pt; let the page scale it to its column instead
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 class="chart" role="img"', text, count=1)


def _finite(values):
    return [v for v in values if v is not None and math.isfinite(v)]


def stepwise(worker: str, original: list[float], migrated: list[float], rtol: float, atol: float,
             first_break: dict | None) -> str:
    """One worker: loss of both sides and |Δ| with its tolerance, as an inline SVG."""
    fig, (top, bottom) = _figure(2, 4.6)
    top.plot(range(len(original)), original, color=ORIGINAL, linewidth=4.0, label="original (TF 1 Estimator)",
             solid_capstyle="round")
    top.plot(range(len(migrated)), migrated, color=MIGRATED, linewidth=1.2, linestyle=(0, (4, 2)),
             label="migrated (TF 2)")
    vals = _finite(original + migrated)
    if vals and min(vals) > 0 and max(vals) / min(vals) > 20:
        top.set_yscale("log")
    top.set_ylabel("loss")
    top.set_title(f"{worker}: loss per step")
    top.grid(True, alpha=0.3)
    top.legend(loc="upper right", frameon=False)

    n = min(len(original), len(migrated))
    steps = list(range(n))
    delta = [abs(a - b) for a, b in zip(original, migrated)]
    tol = [atol + rtol * abs(a) for a in original[:n]]
    shown = [(i, d) for i, d in zip(steps, delta) if d > 0 and math.isfinite(d)]
    if shown:
        bottom.plot([i for i, _ in shown], [d for _, d in shown], color=DELTA, linewidth=1.0, marker=".",
                    markersize=3, label="|original − migrated|")
    bottom.plot(steps, tol, color=TOL, linewidth=1.2, linestyle="--", label=f"tolerance {atol:g} + {rtol:g}·|original|")
    bottom.set_yscale("log")
    low = min([d for _, d in shown] + tol, default=1e-9) / 10
    equal = [i for i, d in zip(steps, delta) if d == 0]
    if equal:  # Δ = 0 has no place on a log axis: tick those steps along the bottom
        bottom.plot(equal, [low] * len(equal), linestyle="none", marker="|", markersize=8, color=DELTA, alpha=0.6,
                    label=f"bit-equal ({len(equal)} of {n} steps)")
    high = max([d for _, d in shown] + tol, default=1.0)
    bottom.set_ylim(low / 2, high * 60)  # headroom above the data for the legend
    bottom.set_ylabel("|Δ| (log)")
    bottom.set_xlabel("step")
    bottom.set_title(f"{worker}: |Δ| per step (pass iff under the tolerance line)")
    bottom.grid(True, which="major", alpha=0.3)
    if first_break is not None:
        s = first_break["step"]
        for ax in (top, bottom):
            ax.axvline(s, color=BREAK, linewidth=1.5)
        late = s > 0.7 * max(n - 1, 1)  # label on the side of the line with room for it
        bottom.annotate(f"first break: step {s}", xy=(s, 0.5), xycoords=bottom.get_xaxis_transform(),
                        xytext=(-8 if late else 8, 0), textcoords="offset points", ha="right" if late else "left",
                        va="center", color=BREAK, fontweight="bold",
                        bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": BREAK, "alpha": 0.9})
    bottom.legend(loc="upper left", frameon=False, fontsize=8, ncols=3)
    return _svg(fig)


def statistical(original_runs: list[list[float]], migrated_runs: list[list[float]], cmp: dict) -> str:
    """Async PS: each run over its training progress, the original's band per bin, the migrated bin means."""
    fig, (ax,) = _figure(1, 3.6)
    for k, run in enumerate(original_runs):
        n = max(len(run) - 1, 1)
        ax.plot([i / n for i in range(len(run))], run, color=ORIGINAL, linewidth=0.8, alpha=0.7,
                label=f"original runs ({len(original_runs)})" if k == 0 else None)
    for k, run in enumerate(migrated_runs):
        n = max(len(run) - 1, 1)
        ax.plot([i / n for i in range(len(run))], run, color=MIGRATED, linewidth=0.6, alpha=0.35,
                label="migrated run" if k == 0 else None)
    bins = cmp.get("bins", [])
    width = 1.0 / max(len(bins), 1)
    seen: dict[str, bool] = {}
    for k, b in enumerate(bins + [cmp["final"]] if cmp.get("final") else bins):
        final = k == len(bins)
        x0, x1 = (1 - cmp.get("final_frac", 0.05), 1.0) if final else (k * width, (k + 1) * width)
        ax.fill_between([x0, x1], [b["lo"]] * 2, [b["hi"]] * 2, color=TOL if final else BAND, alpha=0.3,
                        linewidth=0, label=("original band (mean ± margin)" if k == 0 else None))
        for v in b["migrated"]:
            ax.plot([(x0 + x1) / 2], [v], marker="o" if b["ok"] else "X", markersize=6 if b["ok"] else 9,
                    color=MIGRATED, linestyle="none", label=None if (b["ok"] and seen.get("ok")) or (
                        not b["ok"] and seen.get("bad")) else ("migrated bin mean" if b["ok"] else "outside the band"))
            seen["ok" if b["ok"] else "bad"] = True
    vals = _finite([v for r in original_runs + migrated_runs for v in r])
    if vals and min(vals) > 0 and max(vals) / min(vals) > 20:
        ax.set_yscale("log")
    ax.set_xlabel("training progress (fraction of each run's steps)")
    ax.set_ylabel("loss")
    ax.set_title("loss of every run; the migrated bin means must fall in the original's band")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", frameon=False, fontsize=8)
    return _svg(fig)
