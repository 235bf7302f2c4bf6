"""docs/: the GitHub Actions workflow and GitLab CI job are valid for their CI, and call tfmigrate as it is.

actionlint is not installable from a package registry here, so the files are checked against the GitHub workflow
and GitLab CI JSON schemas (vendored under tests/data/ci-schemas, see tests/data/README.md) and structurally."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SCHEMAS = ROOT / "tests" / "data" / "ci-schemas"


def load_yaml(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text())
    if True in doc:  # YAML 1.1 reads the `on:` key as a boolean
        doc["on"] = doc.pop(True)
    return doc


def schema_errors(doc: dict, schema_file: str) -> list[str]:
    schema = json.loads((SCHEMAS / schema_file).read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def test_github_workflow_is_valid():
    doc = load_yaml(DOCS / "github-actions.yml")
    assert not schema_errors(doc, "github-workflows.json")
    jobs = doc["jobs"]
    assert set(jobs) == {"rewrite-check", "equivalence"}
    for name, job in jobs.items():
        assert job["runs-on"] and job["steps"] and job["timeout-minutes"] > 0, name
        uses = [s["uses"] for s in job["steps"] if "uses" in s]
        assert all(re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+", u) for u in uses), uses
    steps = {s.get("name"): s for s in jobs["equivalence"]["steps"]}
    key = steps["TF environments cache key"]
    cache = steps["Cache the TF environments"]
    assert cache["uses"].startswith("actions/cache@")
    assert "steps.envs.outputs.key" in cache["with"]["key"] and cache["with"]["path"] == "${{ steps.envs.outputs.path }}"
    assert key["id"] == "envs" and "tfmigrate env key" in key["run"] and "tfmigrate env path" in key["run"]
    assert steps["Keep the report and logs"]["if"] == "always()"
    assert jobs["rewrite-check"]["permissions"]["security-events"] == "write"


def test_gitlab_ci_is_valid():
    doc = load_yaml(DOCS / "gitlab-ci.yml")
    assert not schema_errors(doc, "gitlab-ci.json")
    jobs = {k: v for k, v in doc.items() if isinstance(v, dict) and "script" in v}
    assert set(jobs) == {"tfmigrate-rewrite-check", "tfmigrate-equivalence"}
    assert all(job["stage"] in doc["stages"] for job in jobs.values())
    eq = jobs["tfmigrate-equivalence"]
    assert eq["cache"]["paths"] == [".tfmigrate/envs"]
    assert doc["variables"]["TFMIGRATE_HOME"] == "$CI_PROJECT_DIR/.tfmigrate"
    assert eq["artifacts"]["reports"]["junit"] == "verify.xml"


def _commands() -> list[list[str]]:
    """Every `tfmigrate ...` command line in docs/ (YAML run/script lines, shell code and prose of every page)."""
    found = []
    for path in sorted(p for p in DOCS.rglob("*") if p.suffix in (".md", ".yml")):
        for line in path.read_text().splitlines():
            for m in re.finditer(r"(?:^|[\s\"'(`$])(tfmigrate (?:rewrite|verify|env|rule|rules)\b[^`\"\n)|&]*)", line):
                text = m.group(1).split(" || ")[0].split(" >>")[0].strip()
                found.append(shlex.split(text.replace("$TFMIGRATE_SPEC", "x")))
    return found


def test_docs_call_existing_commands_and_options():
    commands = _commands()
    assert any(c[:3] == ["tfmigrate", "verify", "--all"] for c in commands)
    assert ["tfmigrate", "env", "key"] in commands and ["tfmigrate", "env", "setup"] in commands
    for cmd in commands:
        words = cmd[1:3] if cmd[1] == "env" else cmd[1:2]
        result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "300"})
        assert result.exit_code == 0, cmd
        for option in (w for w in cmd if w.startswith("--")):
            assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", result.stdout), (cmd, option)


def test_env_key_is_stable_and_names_the_python():
    first = CliRunner().invoke(app, ["env", "key"])
    second = CliRunner().invoke(app, ["env", "key"])
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert re.fullmatch(r"py[\d.\-a-z]+-[0-9a-f]{16}\n", first.stdout)


def test_env_key_changes_with_the_specs(monkeypatch):
    from tfmigrate.runtime import envs

    before = envs.cache_key()
    monkeypatch.setitem(envs.SPECS, "target", ["tensorflow-cpu==2.22.*", "tf-keras==2.22.*"])
    assert envs.cache_key() != before


def test_pre_commit_hooks_force_excludes():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"tfmigrate-check", "tfmigrate-rewrite"}
    assert all("--force-exclude" in h["entry"] for h in hooks)
