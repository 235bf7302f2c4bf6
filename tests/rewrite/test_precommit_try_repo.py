"""Both hooks of .pre-commit-hooks.yaml as pre-commit runs them: `pre-commit try-repo` installs tfmigrate from this
checkout into its own environment (its dependencies from PyPI) and runs the hook on a sample repository.

Skipped without pre-commit (`pip install pre-commit`) or without network access to PyPI. Slow (~1 min: the hook
environment is built for the call).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "regression_adagrad"


def _pre_commit() -> list[str] | None:
    exe = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    return [exe] if exe else None


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
        return True
    except OSError:
        return False


pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(_pre_commit() is None, reason="pre-commit is not installed (pip install pre-commit)"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=repo, check=True,
                   capture_output=True)


def test_try_repo_check_then_rewrite(tmp_path):
    if not _pypi_reachable():
        pytest.skip("no network access to PyPI (the hook environment installs tfmigrate's dependencies)")
    repo = tmp_path / "sample"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "train.py").write_bytes((FIXTURE / "original.py").read_bytes())
    (repo / "pyproject.toml").write_text('[tool.tfmigrate]\ntarget = "keras"\n')
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "sample")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")
    env.pop("TFMIGRATE_CACHE_DIR", None)  # the hook's own process: its default cache is fine

    # one call, both hooks in their order (try-repo builds the hook environment afresh on every call)
    run = subprocess.run([*_pre_commit(), "try-repo", str(ROOT), "--files", "train.py"], cwd=repo,
                         env=env, capture_output=True, text=True, timeout=900)
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    check, rewrite = out.split("- hook id: tfmigrate-check", 1)[1].split("- hook id: tfmigrate-rewrite", 1)
    assert "exit code: 1" in check and "would rewrite train.py" in check
    # the rewrite hook converted everything (tfmigrate exits 0); pre-commit still fails a hook that changed files,
    # so the user reviews the change and adds it
    assert "files were modified by this hook" in rewrite and "exit code" not in rewrite, rewrite
    assert (repo / "train.py").read_text() == (FIXTURE / "migrated.py").read_text()
