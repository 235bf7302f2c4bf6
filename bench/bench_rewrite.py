#!/usr/bin/env python
"""Benchmark `tfmigrate rewrite --check` against the naive LibCST pipeline and the `ast.parse` floor.

Corpora (built in a temp dir):
  fixtures  the fixtures' original.py files copied --copies times (every file is a TF program)
  tree      --files files: --tf-fraction Estimator programs (fixtures with renamed layers/units), the rest
            plain Python modules of ~--lines lines that never mention tensorflow (a typical monorepo)

Measured per corpus (wall and CPU, CPU includes worker processes):
  tf_upgrade_v2                   the TF 2.15 environment's tf_upgrade_v2 over the same tree (when it is built)
  tfmigrate -j1 / tfmigrate -jN   the console script, `rewrite --check -q --no-cache` (prefilter, parse, migrate,
                                  render; bench/bench_repo.py measures the cache)
  libcst naive                    single process: parse_module + MetadataWrapper.resolve(QualifiedNameProvider) + render
  ast.parse                       single process: read + ast.parse (the floor for "looks at every file")

Usage: python bench/bench_rewrite.py [--files 2000] [--copies 25] [--jobs N] [--keep DIR]
"""
from __future__ import annotations

import argparse
import ast
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
_SCRIPT = Path(sys.executable).parent / "tfmigrate"
TFMIGRATE = str(_SCRIPT) if _SCRIPT.exists() else (shutil.which("tfmigrate") or "tfmigrate")


# ---- corpora -------------------------------------------------------------------------------------------------------

def fixture_sources() -> list[tuple[str, str]]:
    return [(p.parent.name, p.read_text()) for p in sorted(FIXTURES.glob("*/original.py"))]


def vary_program(text: str, rng: random.Random, k: int) -> str:
    """A fixture with its model_fn a little different: renamed hidden tensors, other units/batch sizes."""
    text = re.sub(r"\bnet\b", f"hidden{k}", text)
    text = re.sub(r'"hidden_units": \d+', f'"hidden_units": {rng.choice([4, 8, 16, 32, 64])}', text)
    text = re.sub(r"BATCH_SIZE = \d+", f"BATCH_SIZE = {rng.choice([16, 32, 64])}", text)
    text = re.sub(r"layers\.dense\((\w+), (\d+)\)", lambda m: f"layers.dense({m.group(1)}, {m.group(2)})", text)
    return text + f"\n\ndef _variant_{k}():\n    return {k}\n"


_WORDS = ("alpha beta gamma delta record batch item value total count index name path size limit offset cache "
          "buffer entry node edge graph score weight state token chunk frame block").split()


def plain_module(rng: random.Random, target_lines: int) -> str:
    """Varied ordinary Python (classes, functions, loops, comprehensions, f-strings), no TensorFlow."""
    w = lambda: rng.choice(_WORDS)  # noqa: E731
    out = [f'"""Module {w()} {w()}: generated for the benchmark."""', "from __future__ import annotations", "",
           "import collections", "import itertools", "import json", "", f"{w().upper()}_LIMIT = {rng.randint(1, 999)}", ""]
    n = 0
    while len(out) < target_lines:
        n += 1
        kind = rng.random()
        if kind < 0.35:
            a, b = w(), w()
            out += ["", f"class {a.title()}{b.title()}{n}:", f'    """Holds {a} and {b}."""', "",
                    f"    def __init__(self, {a}, {b}=None):", f"        self.{a} = {a}", f"        self.{b} = {b} or []", "",
                    f"    def {w()}_{n}(self, items):", "        total = 0",
                    "        for i, item in enumerate(items):", f"            if i % {rng.randint(2, 9)} == 0:",
                    f"                total += len(str(item)) * {rng.randint(1, 5)}", "            else:",
                    "                total -= 1", f"        return total + len(self.{b})", ""]
        elif kind < 0.7:
            a = w()
            out += ["", f"def {a}_{n}(data, *, key=None, limit={rng.randint(1, 100)}):",
                    f'    """Group {a} records by key."""', "    groups = collections.defaultdict(list)",
                    "    for row in data[:limit]:", "        groups[key(row) if key else row].append(row)",
                    f"    result = {{k: len(v) for k, v in groups.items() if len(v) > {rng.randint(0, 3)}}}",
                    f'    return json.dumps(result, sort_keys=True) + f"-{{len(result)}}-{a}"', ""]
        else:
            a, b = w(), w()
            out += ["", f"def pairs_{n}({a}s, {b}s):", "    seen = set()",
                    f"    for x, y in itertools.product({a}s, {b}s):", "        if (y, x) in seen:", "            continue",
                    "        seen.add((x, y))", "        yield x, y", "",
                    f"{a.upper()}_{n} = [({rng.randint(0, 9)}, {rng.random():.3f}), (\"{b}\", None)]", ""]
    return "\n".join(out) + "\n"


def build_fixture_corpus(root: Path, copies: int) -> None:
    for c in range(copies):
        for name, text in fixture_sources():
            d = root / f"copy{c:03d}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{name}.py").write_text(text)


def build_tree_corpus(root: Path, files: int, tf_fraction: float, lines: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    sources = [t for n, t in fixture_sources() if n != "unsupported_hook"]
    n_tf = round(files * tf_fraction)
    for i in range(files):
        d = root / f"pkg{i % 40:02d}" / f"sub{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        if i < n_tf:
            text = vary_program(sources[i % len(sources)], rng, i)
            (d / f"train_{i:05d}.py").write_text(text)
        else:
            (d / f"mod_{i:05d}.py").write_text(plain_module(rng, lines))


# ---- measurements --------------------------------------------------------------------------------------------------

def corpus_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


ENV: dict | None = None  # bench_repo.py's ENV: bytecode cached in a scratch dir unless --no-bytecode-cache


def run_tfmigrate(root: Path, jobs: int | None, exe: str | None = None, full: bool = False) -> tuple[float, float, int]:
    args = [exe or TFMIGRATE, "rewrite", "--check", "-q", "--no-cache", str(root)]  # the migration, not the cache
    if full:
        args.remove("-q")
    if jobs:
        args[3:3] = ["-j", str(jobs)]
    cpu0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, env=ENV)
    if full:
        return time.perf_counter() - t0, children_cpu() - cpu0, (proc.returncode, proc.stderr)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"tfmigrate failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, cpu, proc.returncode


def run_libcst(files: list[Path]) -> tuple[float, float]:
    import libcst
    from libcst.metadata import MetadataWrapper, QualifiedNameProvider

    cpu0, t0 = time.process_time(), time.perf_counter()
    for f in files:
        module = libcst.parse_module(f.read_bytes().decode("utf-8"))
        MetadataWrapper(module).resolve(QualifiedNameProvider)
        module.code  # noqa: B018 - render, as a rewrite would
    return time.perf_counter() - t0, time.process_time() - cpu0


def tf_upgrade_v2() -> Path | None:
    """tf_upgrade_v2 from the legacy (TF 2.15) environment tfmigrate builds, if it is there."""
    home = Path(os.environ.get("TFMIGRATE_HOME", Path.home() / ".cache" / "tfmigrate"))
    path = home / "envs" / "legacy" / "bin" / "tf_upgrade_v2"
    return path if path.exists() else None


def run_tf_upgrade(tool: Path, root: Path) -> tuple[float, float]:
    """tf_upgrade_v2 over the same tree (it renames symbols only; its CPU includes importing TensorFlow)."""
    out = Path(tempfile.mkdtemp(prefix="tfmigrate-bench-upgrade-"))
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run([str(tool), "--intree", str(root), "--outtree", str(out / "tree"), "--reportfile",
                    str(out / "report.txt")], capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    shutil.rmtree(out, ignore_errors=True)
    return wall, cpu


def run_ast(files: list[Path]) -> tuple[float, float]:
    cpu0, t0 = time.process_time(), time.perf_counter()
    for f in files:
        ast.parse(f.read_bytes())
    return time.perf_counter() - t0, time.process_time() - cpu0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--tf-fraction", type=float, default=0.10)
    parser.add_argument("--lines", type=int, default=150)
    parser.add_argument("--copies", type=int, default=25, help="copies of the fixtures in the fixtures corpus")
    parser.add_argument("--jobs", type=int, default=0, help="jobs for the parallel tfmigrate run (default: CPU count)")
    parser.add_argument("--keep", type=Path, help="build the corpora here and keep them")
    parser.add_argument("--baseline", help="another tfmigrate console script: `-j1 --no-cache` of both on the "
                        "fixtures corpus only, --repeat alternating runs (with tf_upgrade_v2 in each round when the TF 2.15 "
                        "environment is built), median CPU-s and the ratios")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-bytecode-cache", action="store_true", help="as bench_repo.py's")
    args = parser.parse_args()
    global ENV
    scratch = Path(tempfile.mkdtemp(prefix="tfmigrate-bench-pyc-"))
    if not args.no_bytecode_cache:
        ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        ENV["PYTHONPYCACHEPREFIX"] = str(scratch)
    if args.baseline:
        try:
            compare(args.baseline, args.copies, args.repeat)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return

    base = args.keep or Path(tempfile.mkdtemp(prefix="tfmigrate-bench-"))
    corpora = {"fixtures": base / "fixtures", "tree": base / "tree"}
    for path in corpora.values():
        shutil.rmtree(path, ignore_errors=True)
    build_fixture_corpus(corpora["fixtures"], args.copies)
    build_tree_corpus(corpora["tree"], args.files, args.tf_fraction, args.lines)

    jobs = args.jobs or os.cpu_count() or 1
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, tfmigrate at {TFMIGRATE}\n")
    rows = []
    try:
        for name, root in corpora.items():
            files = corpus_files(root)
            kloc = sum(f.read_bytes().count(b"\n") for f in files) / 1000
            n_tf = sum(b"tensorflow" in f.read_bytes() for f in files)
            run_ast(files[:50])  # warm the page cache and imports
            measures = {}
            measures["tfmigrate -j1"] = run_tfmigrate(root, 1)[:2]
            measures[f"tfmigrate -j{jobs} (default)" if not args.jobs else f"tfmigrate -j{jobs}"] = run_tfmigrate(root, None if not args.jobs else jobs)[:2]
            measures["libcst naive (1 proc)"] = run_libcst(files)
            measures["ast.parse floor (1 proc)"] = run_ast(files)
            if tf_upgrade_v2() is not None:
                measures["tf_upgrade_v2 (TF 2.15 env)"] = run_tf_upgrade(tf_upgrade_v2(), root)
            base_wall, base_cpu = measures["libcst naive (1 proc)"]
            for method, (wall, cpu) in measures.items():
                rows.append((name, len(files), n_tf, kloc, method, wall, cpu, len(files) / wall, kloc / wall, kloc / cpu,
                             base_wall / wall, base_cpu / cpu))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    print("| corpus | files (TF) | kLOC | method | wall s | CPU s | files/s | kLOC/s wall | kLOC/s CPU | × baseline wall | × baseline CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, n, n_tf, kloc, method, wall, cpu, fps, kps, kpc, rw, rc in rows:
        print(f"| {name} | {n} ({n_tf}) | {kloc:.1f} | {method} | {wall:.2f} | {cpu:.2f} | {fps:.0f} | {kps:.1f} | {kpc:.1f} "
              f"| {rw:.2f} | {rc:.2f} |")
    print("\nbaseline = libcst naive (parse + QualifiedNameProvider + render, single process); × > 1 means faster than it.")
    print("tfmigrate times include interpreter start-up (~0.5 s) and, for the tree, the prefilter that skips non-TF files.")


def compare(baseline: str, copies: int, repeat: int) -> None:
    """Files that convert: this tfmigrate and `baseline`, `rewrite --check -j1 --no-cache`, alternating runs."""
    import statistics

    root = Path(tempfile.mkdtemp(prefix="tfmigrate-bench-cmp-"))
    try:
        build_fixture_corpus(root, copies)
        files = corpus_files(root)
        kloc = sum(f.read_bytes().count(b"\n") for f in files) / 1000
        exes = {"this": TFMIGRATE, "baseline": baseline}
        for exe in exes.values():  # prime the bytecode cache (untimed)
            run_tfmigrate(FIXTURES / "cnn" / "original.py", 1, exe)
        cpu: dict[str, list[float]] = {w: [] for w in exes}
        seen: dict[str, set] = {w: set() for w in exes}
        upgrade = tf_upgrade_v2()
        upgrade_cpu: list[float] = []
        for _ in range(repeat):
            for who, exe in exes.items():
                _, c, result = run_tfmigrate(root, 1, exe, full=True)
                cpu[who].append(c)
                seen[who].add(result)
            if upgrade is not None:  # in the same rounds: the same load
                upgrade_cpu.append(run_tf_upgrade(upgrade, root)[1])
        med = {w: statistics.median(v) for w, v in cpu.items()}
        print(f"fixtures corpus: {len(files)} files, {kloc:.1f} kLOC; `rewrite --check -j1 --no-cache`; "
              f"median CPU-s of {repeat} alternating runs; bytecode {'cached' if ENV else 'compiled each run'}\n")
        print("| version | CPU-s (median) | all runs | kLOC/CPU-s |")
        print("|---|---|---|---|")
        for who in exes:
            print(f"| {who} ({exes[who]}) | {med[who]:.2f} | {' '.join(f'{c:.2f}' for c in cpu[who])} "
                  f"| {kloc / med[who]:.2f} |")
        if upgrade_cpu:
            up = statistics.median(upgrade_cpu)
            print(f"| tf_upgrade_v2 (TF 2.15 env, renames only; includes importing TF) | {up:.2f} | "
                  f"{' '.join(f'{c:.2f}' for c in upgrade_cpu)} | {kloc / up:.2f} |")
        print(f"\nthis is {med['baseline'] / med['this']:.2f}x the baseline's throughput; results (exit code, every "
              f"line printed) identical in every run of both: {'yes' if len(seen['this'] | seen['baseline']) == 1 else 'NO'}")
        if upgrade_cpu:
            print(f"this takes {med['this'] / up:.2f}x tf_upgrade_v2's CPU-s on the same files "
                  f"(throughput {up / med['this']:.2f}x tf_upgrade_v2's)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
