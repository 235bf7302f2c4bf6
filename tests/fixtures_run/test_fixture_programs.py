"""Every golden fixture runs: the original on TF 2.15 + Estimator, the migrated program on TF 2.21 (Keras 3).

Marked `tfenv`: needs the bundled environments (`tfmigrate env setup`, done on demand here).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from _runs import run_program

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.py").exists())
STEPS = "20"


FIXED_DIR = re.compile(r'"(/tmp/tfmigrate-fixtures/[A-Za-z0-9_]+)"')
# what verify runs an original under (runtime/boot/legacy_boot.py): a TF 1.x original that names what TF 2.15 lacks
# (case.toml `legacy_boot = true`: tf.contrib.learn.ModeKeys, tensorflow.python.keras as tf.keras) runs under it
LEGACY_BOOT = Path(__file__).resolve().parents[2] / "runtime" / "boot" / "legacy_boot.py"


def _case_of(program: Path) -> dict:
    case = next(p for p in program.parents if p.parent == FIXTURES)
    return tomllib.loads((case / "case.toml").read_text())


def _run(env: str, program: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    # a fixture that keeps its model_dir in a constant (numpy_input: the "constants" shape) ignores --model_dir: it
    # starts from an empty one, as on a fresh machine (the migrated program's TF2 checkpoints there from an earlier
    # run would make TF 2.15's Estimator fail to restore them)
    for fixed in FIXED_DIR.findall(program.read_text()):
        shutil.rmtree(fixed, ignore_errors=True)
    # a fork of a Python that imported TensorFlow once (see _runs.run_program), as `python PROGRAM` would run it
    if env == "legacy" and _case_of(program).get("legacy_boot"):  # the boot's model_dir and capture, as verify's
        return run_program(env, [str(LEGACY_BOOT), str(program), "--steps", STEPS, "--model_dir", str(tmp_path / env)],
                           tmp_path, capture_dir=tmp_path / "capture", model_dir=tmp_path / env, timeout=300)
    return run_program(env, [str(program), "--steps", STEPS, "--model_dir", str(tmp_path / env)], tmp_path,
                       timeout=300)


def _cases(cases: list[str]) -> list:
    """A case's runs share one xdist group, so they run one after another as in one process: a program that keeps
    its model_dir in a constant (FIXED_DIR) uses the same directory on both TF versions."""
    return [pytest.param(c, marks=pytest.mark.xdist_group(f"fixture-{c}")) for c in cases]


PACKAGES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original").is_dir())


def _program(case: str, side: str) -> Path:
    """original.py / migrated.py, or for a package the case's `program` inside original/ or migrated/."""
    if (FIXTURES / case / "original").is_dir():
        meta = tomllib.loads((FIXTURES / case / "case.toml").read_text())
        return FIXTURES / case / side / meta["program"]
    return FIXTURES / case / f"{side}.py"


@pytest.mark.tfenv
@pytest.mark.parametrize("case", _cases(PACKAGES))
def test_package_runs_on_both(case, tmp_path):
    original = _run("legacy", _program(case, "original"), tmp_path)
    assert original.returncode == 0, original.stderr[-3000:]
    migrated = _run("target", _program(case, "migrated"), tmp_path)
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    assert "final eval:" in migrated.stdout


def _verified(case: str) -> bool:
    """A pair test_fixture_equivalence verifies: its verify runs this original on TF 2.15 (the same program, its
    Estimator's model_dir and loss capture set by verify's boot) and fails when it does not run."""
    meta = tomllib.loads((FIXTURES / case / "case.toml").read_text())
    return (FIXTURES / case / "migrated.py").exists() and not meta.get("unstable")


@pytest.mark.tfenv
@pytest.mark.parametrize("case", _cases([c for c in CASES if not _verified(c)]))
def test_original_runs_on_tf215(case, tmp_path):
    """Originals verify does not run (kept unchanged, or their verify skipped as unstable). A pair's original runs in
    its verify (test_fixture_equivalence.py), which is where it fails: running it here too only cost time."""
    result = _run("legacy", FIXTURES / case / "original.py", tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.tfenv
@pytest.mark.parametrize("case", _cases([c for c in CASES if (FIXTURES / c / "migrated.py").exists()]))
def test_migrated_runs_on_tf221(case, tmp_path):
    result = _run("target", FIXTURES / case / "migrated.py", tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "final eval:" in result.stdout  # trained, evaluated and reported like the original


def test_every_fixture_is_described():
    for case in CASES:
        meta = tomllib.loads((FIXTURES / case / "case.toml").read_text())
        assert meta["description"]
        assert meta.get("expect") == "unchanged" or (FIXTURES / case / "migrated.py").exists(), case
