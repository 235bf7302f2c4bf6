"""Verdict output: one rich screen, --json full result, --html self-contained report (inline SVG)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import jinja2
from rich.console import Console
from rich.table import Table

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _fmt(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def print_verdict(result: dict, console: Console) -> None:
    cmp = result["comparison"]
    t = result.get("timings", {})
    if cmp["mode"] == "stepwise":
        tab = Table(title=f"stepwise comparison (rtol {cmp['rtol']:g}, atol {cmp['atol']:g})")
        for col in ("worker", "steps orig/migr", "compared", "bit-equal", "max |Δ|", "max rel Δ", "first break"):
            tab.add_column(col)
        for w, r in cmp["workers"].items():
            fb = r["first_break"]
            tab.add_row(w, f"{r['steps_original']}/{r['steps_migrated']}", str(r["compared"]), str(r["bit_equal"]),
                        _fmt(r["max_abs"]), _fmt(r["max_rel"]),
                        f"step {fb['step']}: {fb['original']:.9g} vs {fb['migrated']:.9g}" if fb else "–")
        console.print(tab)
        console.print(f"max |Δ| {_fmt(cmp['max_abs'])}   max rel Δ {_fmt(cmp['max_rel'])}")
        preds = cmp.get("predictions")
        if preds:
            for task, r in preds["tasks"].items():
                console.print(f"predictions {task}: {r['original']}/{r['migrated']} items, {r['values']} values, "
                              f"{r['bit_equal']} bit-equal, max |Δ| {_fmt(r['max_abs'])}")
    else:
        _print_statistical(result, cmp, console)
    if t:
        console.print("time: " + "  ".join(f"{k.replace('_', ' ')} {v:.1f}s" for k, v in t.items()))
    for p in cmp["problems"][:10]:
        console.print(f"[yellow]• {p}[/]", highlight=False)
    if cmp["equivalent"]:
        console.print("[bold green]verdict: equivalent[/]")
    else:
        console.print("[bold red]verdict: NOT equivalent[/]")


def _print_statistical(result: dict, cmp: dict, console: Console) -> None:
    r = cmp["repeats"]
    console.print(f"mode: statistical (async parameter servers: {r} runs of the original, 1 migrated run)",
                  highlight=False)
    if result.get("init_checkpoint"):
        console.print(f"canonical initial checkpoint: {result['init_checkpoint']}", highlight=False)
    if result.get("ready_poll_secs") is not None:
        console.print(f"original: TF1 worker readiness poll {result['ready_poll_secs']:g} s instead of 30 s "
                      "(timing only)", highlight=False)
    for run in result.get("runs", []):
        console.print(f"  {run['side']}: steps per task {run['steps_per_task']}", highlight=False)
    console.print(f"rule: {cmp['rule']}", highlight=False)
    console.print(f"      here R = {r}, {len(cmp['bins']) + 1} checks, q = {cmp['quantile']:.5f}: t = {cmp['t']:.3g}, "
                  f"z = {cmp['z']:.3g}; bins marked 'spread' get tighter with more --repeats", highlight=False)
    tab = Table(title=f"statistical comparison ({r} original runs; original by global step, migrated by "
                      "execution order)")
    for col in ("bin", "steps", *[f"orig #{i + 1}" for i in range(r)], "mean", "± margin", "by",
                "band lo", "band hi", "migrated", "ok"):
        tab.add_column(col)
    final = cmp["final"]
    for row in cmp["bins"] + [final]:
        steps = f"{row['steps'][0]}–{row['steps'][1] - 1}" if row.get("steps") else \
            f"last {cmp['final_frac']:.0%}"
        tab.add_row(str(row["bin"]), steps, *[_fmt(v) for v in row["original"]], _fmt(row["mean"]),
                    f"{_fmt(row['margin'])} ({row['rel_margin']:.0%})", row["by"], _fmt(row["lo"]),
                    _fmt(row["hi"]), ", ".join(_fmt(v) for v in row["migrated"]), "yes" if row["ok"] else "NO")
    console.print(tab)


def write_json(result: dict, path: Path) -> None:
    def clean(o):
        if isinstance(o, float) and not math.isfinite(o):
            return repr(o)
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return o

    Path(path).write_text(json.dumps(clean(result), indent=1))


# --------------------------------------------------------------------------- SVG
W, H, PAD = 640, 220, 40


def _polyline(ys: list[float], lo: float, hi: float, n: int, log: bool) -> str:
    pts = []
    span = (hi - lo) or 1.0
    for i, y in enumerate(ys):
        if y is None or not math.isfinite(y) or (log and y <= 0):
            continue
        v = math.log10(y) if log else y
        x = PAD + (W - 2 * PAD) * (i / max(n - 1, 1))
        py = H - PAD - (H - 2 * PAD) * ((v - lo) / span)
        pts.append(f"{x:.1f},{py:.1f}")
    return " ".join(pts)


def svg_chart(series: list[tuple[str, list[float], str]], title: str, log: bool = False) -> str:
    """Inline SVG line chart; series = [(label, values, css colour)]."""
    vals = [v for _, ys, _ in series for v in ys if v is not None and math.isfinite(v) and (not log or v > 0)]
    if not vals:
        return f"<p>{title}: no data</p>"
    tr = (lambda v: math.log10(v)) if log else (lambda v: v)
    lo, hi = tr(min(vals)), tr(max(vals))
    n = max(len(ys) for _, ys, _ in series)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
             f'<rect x="{PAD}" y="{PAD}" width="{W - 2 * PAD}" height="{H - 2 * PAD}" fill="none" stroke="#ccc"/>',
             f'<text x="{PAD}" y="{PAD - 22}" font-size="13">{jinja2.utils.markupsafe.escape(title)}</text>',
             f'<text x="2" y="{PAD + 4}" font-size="10">{(10 ** hi if log else hi):.3g}</text>',
             f'<text x="2" y="{H - PAD}" font-size="10">{(10 ** lo if log else lo):.3g}</text>',
             f'<text x="{W - PAD - 40}" y="{H - PAD + 14}" font-size="10">step {n - 1}</text>']
    for k, (label, ys, colour) in enumerate(series):
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.3" '
                     f'points="{_polyline(ys, lo, hi, n, log)}"/>')
        parts.append(f'<text x="{PAD + 140 * k}" y="{PAD - 6}" font-size="11" fill="{colour}">{label}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def write_html(result: dict, path: Path) -> None:
    charts = []
    losses = result.get("losses", {})
    cmp = result["comparison"]
    if cmp["mode"] == "stepwise":
        for w in cmp["workers"]:
            a = losses["original"].get(w, [])
            b = losses["migrated"].get(w, [])
            d = [abs(x - y) for x, y in zip(a, b)]
            charts.append({"worker": w,
                           "loss": svg_chart([("original", a, "#1f77b4"), ("migrated", b, "#d62728")],
                                             f"{w}: loss per step", log=min(a + b, default=1) > 0),
                           "delta": svg_chart([("|Δ|", d, "#2ca02c")], f"{w}: |original − migrated|")})
    else:
        series = [(f"original #{i + 1}", r, "#1f77b4") for i, r in enumerate(losses.get("original_runs", []))]
        series += [("migrated", r, "#d62728") for r in losses.get("migrated_runs", [])]
        charts.append({"worker": "cluster", "loss": svg_chart(series, "loss by global step", log=True), "delta": ""})
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
    html = env.get_template("report.html.j2").render(r=result, cmp=cmp, charts=charts, fmt=_fmt)
    Path(path).write_text(html)
