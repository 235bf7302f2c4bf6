"""List classes over 600 lines and functions over 120 lines (issue #26's limits) in tfmigrate's sources.

`python tools/sizes.py` prints them; a definition whose first lines hold a comment starting `# size:` says why it
is allowed to be longer, and is listed as allowed. Exit 1 when one is over its limit without a reason."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMITS = {ast.ClassDef: 600, ast.FunctionDef: 120, ast.AsyncFunctionDef: 120}


def oversized(path: Path):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        limit = LIMITS.get(type(node))
        if limit and node.end_lineno - node.lineno + 1 > limit:
            head = lines[max(node.lineno - 3, 0): node.lineno + 2]
            reason = next((line.split("# size:", 1)[1].strip() for line in head if "# size:" in line), None)
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1, limit, reason


def main() -> int:
    bad = 0
    for folder in ("migrator", "rules", "runtime"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name, line, size, limit, reason in oversized(path):
                where = f"{path.relative_to(ROOT)}:{line}: {name} {size} lines (limit {limit})"
                print(where + (f" allowed: {reason}" if reason else ""))
                bad += reason is None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
