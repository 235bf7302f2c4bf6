"""docs/ as copied: the GitHub Actions and GitLab CI templates' install and check steps, and the pre-commit snippet
of docs/ci.md, run against a local clone of this repository pinned to its commit (the templates install tfmigrate
from git: it is on no package index). Needs network for tfmigrate's dependencies (~1-2 min)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from test_ci_docs import DOCS, load_yaml
from test_precommit_try_repo import _git, _pre_commit, _pypi_reachable

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "fixtures" / "regression_adagrad" / "original.py"

pytestmark = [pytest.mark.network,
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]


@pytest.fixture(scope="module")
def pinned(tmp_path_factory):
    """(clone, commit, venv bin dir): a clone of this repository's HEAD, and a fresh venv for the install steps."""
    if not _pypi_reachable():
        pytest.skip("no network access to PyPI (the install steps fetch tfmigrate's dependencies)")
    tmp = tmp_path_factory.mktemp("ci-templates")
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True,
                         text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True)
    return clone, sha, tmp / "venv" / "bin"


def _sample(where: Path) -> Path:
    where.mkdir()
    (where / "train.py").write_bytes(PROGRAM.read_bytes())
    return where


def _shell(command: str, cwd: Path, pinned, variables: dict) -> subprocess.CompletedProcess:
    clone, sha, bin_dir = pinned
    # pip 23 (Python 3.11's own) wants a host in a git+file URL
    env = {**os.environ, **variables, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "TFMIGRATE_REPO": f"file://localhost{clone}", "TFMIGRATE_REV": sha}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(["bash", "-ec", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_github_template_installs_the_pinned_commit_and_checks(pinned, tmp_path):
    doc = load_yaml(DOCS / "github-actions.yml")
    assert re.fullmatch(r"[0-9a-f]{40}", doc["env"]["TFMIGRATE_REV"])  # a commit, as pip and pre-commit take it
    steps = {s.get("name"): s.get("run") for s in doc["jobs"]["rewrite-check"]["steps"]}
    work = _sample(tmp_path / "repo")
    install = _shell(steps["Install tfmigrate"], work, pinned, {})
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    version = _shell("tfmigrate --version && pip show tfmigrate", work, pinned, {})
    assert version.returncode == 0 and "tfmigrate 0." in version.stdout
    check = _shell(steps["Findings as annotations"], work, pinned, {})
    assert check.returncode == 1, check.stdout + check.stderr  # the Estimator program would be rewritten
    assert re.search(r"^::(error|warning|notice) file=train\.py,line=\d+", check.stdout, re.M), check.stdout
    sarif = _shell(steps["Findings as SARIF"], work, pinned, {})
    assert sarif.returncode == 0 and (work / "tfmigrate.sarif").read_text().startswith("{")


def test_gitlab_template_installs_the_pinned_commit_and_checks(pinned, tmp_path):
    doc = load_yaml(DOCS / "gitlab-ci.yml")
    assert re.fullmatch(r"[0-9a-f]{40}", doc["variables"]["TFMIGRATE_REV"])
    install, check = doc["tfmigrate-rewrite-check"]["script"]
    work = _sample(tmp_path / "repo")
    done = _shell(install, work, pinned, {})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run = _shell(check, work, pinned, {})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "<testsuite" in (work / "tfmigrate-rewrite.xml").read_text()


@pytest.mark.skipif(_pre_commit() is None, reason="pre-commit is not installed")
def test_precommit_snippet_with_a_commit_as_rev(pinned, tmp_path):
    clone, sha, _ = pinned
    snippet = re.search(r"## pre-commit\n\n```yaml\n(.*?)```", (DOCS / "ci.md").read_text(), re.S).group(1)
    (repo_entry,) = yaml.safe_load(snippet)
    assert re.fullmatch(r"[0-9a-f]{40}", str(repo_entry["rev"]))
    repo_entry.update(repo=str(clone), rev=sha)
    work = _sample(tmp_path / "repo")
    _git(work, "init", "-q")
    (work / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [repo_entry]}))
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "sample")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")
    run = subprocess.run([*_pre_commit(), "run", "--all-files"], cwd=work, env=env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 1 and "would rewrite train.py" in run.stdout, run.stdout + run.stderr
