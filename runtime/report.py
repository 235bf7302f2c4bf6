"""Verdict output: one rich screen, --json full result, --html self-contained report (matplotlib charts as inline SVG)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import jinja2
from rich.console import Console
from rich.table import Table

TEMPLATES = Path(__file__).resolve().parent / "templates"
JSON_SCHEMA_VERSION = 1


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
        _print_evaluations(cmp.get("evaluations"), console)
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


def _print_evaluations(ev: dict | None, console: Console) -> None:
    """The metric table of the last evaluate() result per task (key, original, migrated, |Δ|, ok)."""
    if ev is None:
        return
    for n in ev["notes"]:
        console.print(f"evaluate: {n}", highlight=False)
    for task, t in ev["tasks"].items():
        tab = Table(title=f"evaluate() {task}: last of {t['evaluations_original']}/{t['evaluations_migrated']} "
                          f"(|Δ| ≤ {ev['atol']:g} + {ev['rtol']:g}·|original|, integers equal)")
        for col in ("key", "original", "migrated", "|Δ|", "ok"):
            tab.add_column(col)
        for m in t["metrics"]:
            tab.add_row(m["key"], _value(m["original"]), _value(m["migrated"]), _fmt(m["abs"]),
                        "yes" if m["ok"] else f"NO: {m['why']}")
        console.print(tab)


def _value(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.9g}"
    return str(x)


def _print_statistical(result: dict, cmp: dict, console: Console) -> None:
    r = cmp["repeats"]
    sync = not result.get("settings", {}).get("ps")
    why = "--statistical: the original's own runs differ; the chief's losses" if sync else "async parameter servers"
    console.print(f"mode: statistical ({why}: {r} runs of the original, 1 migrated run)", highlight=False)
    if result.get("init_checkpoint"):
        console.print(f"canonical initial checkpoint: {result['init_checkpoint']}", highlight=False)
    if result.get("ready_poll_secs") is not None:
        console.print(f"original: TF1 worker readiness poll {result['ready_poll_secs']:g} s instead of 30 s "
                      "(timing only)", highlight=False)
    for run in result.get("runs", []):
        console.print(f"  {run['side']}: steps per task {run['steps_per_task']}", highlight=False)
    for caveat in result.get("caveats", []):
        console.print(f"[yellow]caveat:[/] {caveat}", highlight=False)
    console.print(f"rule: {cmp['rule']}", highlight=False)
    console.print(f"      here R = {r}, {len(cmp['bins']) + 1} checks, q = {cmp['quantile']:.5f}: t = {cmp['t']:.3g}, "
                  f"z = {cmp['z']:.3g}; bins marked 'spread' get tighter with more --repeats", highlight=False)
    tab = Table(title=f"statistical comparison ({r} original runs; " + (
        "the chief's steps in order)" if sync else "original by global step, migrated by execution order)"))
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

    from tfmigrate.cli import version

    # which tfmigrate wrote it, and the layout's version (bumped when a key changes meaning or goes away)
    doc = {"schema_version": JSON_SCHEMA_VERSION, "tfmigrate_version": version(), **result}
    Path(path).write_text(json.dumps(clean(doc), indent=1))


def write_html(result: dict, path: Path) -> None:
    """A self-contained page: verdict, settings, first divergence, tables and one matplotlib chart per worker."""
    from . import charts

    panels = []
    losses = result.get("losses", {})
    cmp = result["comparison"]
    if cmp["mode"] == "stepwise":
        for w, r in cmp["workers"].items():
            panels.append({"worker": w, "svg": charts.stepwise(
                w, losses.get("original", {}).get(w, []), losses.get("migrated", {}).get(w, []),
                cmp["rtol"], cmp["atol"], r.get("first_break"))})
    else:
        panels.append({"worker": "cluster", "svg": charts.statistical(
            losses.get("original_runs", []), losses.get("migrated_runs", []), cmp)})
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
    html = env.get_template("report.html.j2").render(r=result, cmp=cmp, charts=panels, fmt=_fmt)
    Path(path).write_text(html)
