"""Run import-linter (.importlinter) over tfmigrate as it is installed: `python tools/lint_imports.py`.

The package maps three folders (pyproject: tfmigrate = migrator/, tfmigrate.rules = rules/, tfmigrate.runtime =
runtime/), which import-linter cannot follow through an editable install, so this lays them out as one package of
symlinks in a temporary directory and runs `lint-imports` there. Exit code: lint-imports'.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tfm-lint-") as tmp:
        package = Path(tmp, "tfmigrate")
        package.mkdir()
        for entry in (REPO / "migrator").iterdir():
            if entry.name != "__pycache__":
                (package / entry.name).symlink_to(entry)
        for sub in ("rules", "runtime"):
            (package / sub).symlink_to(REPO / sub)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, str(REPO)]))
        command = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command as c; "
                   "sys.exit(c())", "--no-cache", str(REPO / ".importlinter")]
        return subprocess.run(command, env=env, cwd=tmp).returncode


if __name__ == "__main__":
    sys.exit(main())
