"""Conversion rates of generated Estimator programs, per dimension value, and their blockers ranked by count.

    python tests/generated/report.py [N] [--seed S]

Samples N (default 400) programs from the strategies the property test uses (program_gen.shapes), migrates each,
and prints: the overall status counts; for every dimension value the conversion rate (changed / total); the
blockers ranked by the number of programs they block (grouped by code + message with `quoted` names elided; the
TFM600 "migrated as one unit" echo of a package's other file is left out); and for every blocker group a minimal
shape: starting from a blocked program, each dimension is set back to the baseline value while the same blocker
remains, so what is left is the smallest set of dimension values that still triggers it.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from program_gen import DIMENSIONS, Shape, migrate, shapes  # noqa: E402

BASELINE = Shape(site="main", args="keyword", config="assigned", specs="named", input_fn="plain", values="constants",
                 params="dict_literal", imports="tf_compat_v1", loss="mse", optimizer="GradientDescent", metrics="no",
                 early_returns="no", strategy="none", layout="single_file", unrelated="plain")


def group_key(diag) -> str:
    message = re.sub(r"`[^`]*`", "`…`", diag.message)
    message = re.sub(r"/tmp/\S+", "<path>", message)
    return f"{diag.code} {message[:110]}"


def blocker_groups(outcome) -> set[str]:
    if outcome.crash:
        return {f"CRASH {outcome.crash[:110]}"}
    failed = {f"FAILED {r.error}" for r in outcome.results.values() if r.status == "failed"}
    return failed | {group_key(d) for d in outcome.errors() if d.code != "TFM600"}


def sample(n: int, seed_value: int) -> list:
    outcomes = []

    @seed(seed_value)
    @settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(shapes())
    def collect(shape):
        outcomes.append(migrate(shape))

    collect()
    return outcomes


def minimize(shape: Shape, key: str) -> tuple[Shape, object]:
    """Set dimensions back to BASELINE one at a time while `key` still blocks the program."""
    current = shape
    outcome = migrate(current)
    for name in DIMENSIONS:
        base = getattr(BASELINE, name)
        if getattr(current, name) == base:
            continue
        trial = Shape(**{**current.__dict__, name: base})
        if trial.config == "none" and trial.strategy != "none":
            continue
        got = migrate(trial)
        if key in blocker_groups(got):
            current, outcome = trial, got
    return current, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", nargs="?", type=int, default=400)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--no-minimize", action="store_true")
    args = parser.parse_args()

    outcomes = sample(args.n, args.seed)
    total = len(outcomes)
    statuses = Counter(o.status for o in outcomes)
    print(f"# {total} generated programs (seed {args.seed})")
    print("status: " + ", ".join(f"{k} {v} ({v / total:.0%})" for k, v in statuses.most_common()))
    print()
    print(f"{'dimension':<14} {'value':<34} {'changed/total':>14} {'rate':>6}")
    for name, values in DIMENSIONS.items():
        for value in values:
            sel = [o for o in outcomes if getattr(o.shape, name) == value]
            ok = sum(o.status == "changed" for o in sel)
            rate = f"{ok / len(sel):.0%}" if sel else "-"
            print(f"{name:<14} {value:<34} {f'{ok}/{len(sel)}':>14} {rate:>6}")
        print()

    groups: dict[str, list] = defaultdict(list)
    for o in outcomes:
        if o.status != "changed":
            for key in blocker_groups(o) or {f"{o.status.upper()} (no diagnostic)"}:
                groups[key].append(o)
    print("# blockers, ranked by programs blocked (a program can count under several)")
    for key, sel in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(sel):>4}  {key}")
    if args.no_minimize:
        return
    print()
    print("# minimal shape per blocker (dimensions that differ from the baseline; baseline converts: "
          f"{migrate(BASELINE).status})")
    for key, sel in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        shape, outcome = minimize(sel[0].shape, key)
        diff = {n: getattr(shape, n) for n in DIMENSIONS if getattr(shape, n) != getattr(BASELINE, n)}
        print(f"\n## {key}\n   shape: {diff or 'baseline'}")
        for d in outcome.errors():
            print(f"   {d.format()}")


if __name__ == "__main__":
    main()
