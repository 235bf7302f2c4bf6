"""Package fixtures (fixtures/<case>/original/ → migrated/): the tree is migrated as one unit, file by file
equal to the golden tree, idempotent; a blocker in one file leaves every file of the package unchanged."""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PACKAGES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original").is_dir())


def _migrate_tree(root: Path):
    files = discover([str(root)])
    return {Path(r.path).relative_to(root): r for r in migrate_paths(files, Options(), jobs=1)}


def test_there_is_a_package_fixture():
    assert PACKAGES


@pytest.mark.parametrize("name", PACKAGES)
def test_package_golden(name, tmp_path):
    tree = tmp_path / "original"
    shutil.copytree(FIXTURES / name / "original", tree)
    results = _migrate_tree(tree)
    golden = FIXTURES / name / "migrated"
    expected = {p.relative_to(golden) for p in golden.rglob("*.py")}
    assert set(results) == expected
    changed = [rel for rel, r in results.items() if r.status == "changed"]
    assert len(changed) >= 1, {rel: (r.status, [d.format() for d in r.diagnostics]) for rel, r in results.items()}
    for rel, result in results.items():
        assert result.status in ("changed", "unchanged", "skipped"), (rel, [d.format() for d in result.diagnostics])
        assert all(d.severity == "note" for d in result.diagnostics)
        assert (result.output or result.source) == (golden / rel).read_bytes(), rel


@pytest.mark.parametrize("name", PACKAGES)
def test_package_idempotent(name, tmp_path):
    tree = tmp_path / "migrated"
    shutil.copytree(FIXTURES / name / "migrated", tree)
    for rel, result in _migrate_tree(tree).items():
        assert result.status in ("unchanged", "skipped"), (rel, result.status, [d.format() for d in result.diagnostics])


@pytest.mark.parametrize("name", PACKAGES)
def test_package_blocked_as_a_unit(name, tmp_path):
    """A blocker in the driver file leaves the model file unchanged too, and each file says why."""
    tree = tmp_path / "original"
    shutil.copytree(FIXTURES / name / "original", tree)
    program = tomllib.loads((FIXTURES / name / "case.toml").read_text())["program"]
    driver = tree / program
    text = driver.read_text()
    if "import tensorflow as tf" not in text:  # an entry point that leaves TF to the package (builder_methods)
        text = text.replace("\n\n\ndef main(", "\nimport tensorflow as tf\n\n\ndef main(", 1)
    driver.write_text(text.replace("if __name__ ==", "_hook = tf.estimator.SessionRunHook()\n\n\nif __name__ =="))
    results = _migrate_tree(tree)
    statuses = {rel: r.status for rel, r in results.items()}
    assert "changed" not in statuses.values(), statuses
    assert all(r.output == r.source for r in results.values())
    blocked = [r for r in results.values() if r.status == "blocked"]
    assert len(blocked) >= 2
    assert any(d.code == "TFM600" for r in blocked for d in r.diagnostics)
