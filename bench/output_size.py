"""How long the rewrite's output is against its input, per fixture: the lines `tfmigrate rewrite` writes for a
program (its migrated files + the support module, which a one-program fixture does not share) / the lines of
the files it changed. Prints each fixture's ratio, then the median and max, and the same without the support
module (what a reviewer reads in the program's own files).

    python bench/output_size.py [--tfmigrate PATH] [FIXTURE ...]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def measure(case: Path, tfm: str, support_name: str) -> tuple[int, int, int] | None:
    """(original lines of the changed files, their migrated lines, support module lines), None if nothing changed."""
    meta = tomllib.loads((case / "case.toml").read_text()) if (case / "case.toml").exists() else {}
    package = (case / "original").is_dir()
    source = case / "original" if package else case / "original.py"
    if not source.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        args = [tfm, "rewrite", "-q", "--out", str(out)]
        if not package:
            args += ["--strategy", meta.get("strategy", "keep")]
        # a relative path, as fixtures/regen.sh passes it: the output lands under out/<case>/
        subprocess.run([*args, str(source.relative_to(FIXTURES))], capture_output=True, text=True, cwd=FIXTURES)
        root = out if package else out / case.name
        originals = {p.relative_to(source): p for p in source.rglob("*.py")} if package else {Path("original.py"): source}
        before = after = support = 0
        for rel, orig in originals.items():
            new = root / rel
            if new.exists() and new.read_bytes() != orig.read_bytes():
                before += _lines(orig)
                after += _lines(new)
        for module in root.rglob(support_name):
            if module.relative_to(root) not in originals:
                support += _lines(module)
        return (before, after, support) if before else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*")
    parser.add_argument("--tfmigrate", default=shutil.which("tfmigrate") or "tfmigrate")
    parser.add_argument("--support-name", default="estimator_compat.py")
    args = parser.parse_args()
    cases = [FIXTURES / c for c in args.cases] or sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    with_support, own = [], []
    print(f"{'fixture':32} {'orig':>5} {'files':>6} {'support':>7} {'ratio':>6} {'files only':>10}")
    for case in cases:
        m = measure(case, args.tfmigrate, args.support_name)
        if m is None:
            continue
        before, after, support = m
        with_support.append((after + support) / before)
        own.append(after / before)
        print(f"{case.name:32} {before:5} {after:6} {support:7} {with_support[-1]:6.2f} {own[-1]:10.2f}")
    if not own:
        print("no fixture converted")
        return 1
    print(f"\n{len(own)} fixtures  files + support module: median {statistics.median(with_support):.2f}x "
          f"max {max(with_support):.2f}x  |  migrated files only: median {statistics.median(own):.2f}x "
          f"max {max(own):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
