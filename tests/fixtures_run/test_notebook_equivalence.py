"""CI equivalence of the fixture notebooks: `tfmigrate verify` on each (original.ipynb, migrated.ipynb) pair runs
the code cells of each as a program (the original on TF 2.15, the migrated one on TF 2.21) and must say equivalent."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NOTEBOOKS = sorted(p.name for p in FIXTURES.iterdir() if (p / "migrated.ipynb").exists())
TRAINED = {"notebook_hook": 150}  # PatienceHook requests the stop after the 150th of max_steps=200


def test_the_notebook_fixtures_are_found():
    assert NOTEBOOKS == ["notebook_canned", "notebook_hook", "notebook_model_fn"]


@pytest.mark.equivalence
@pytest.mark.tfenv
@pytest.mark.parametrize("case", NOTEBOOKS)
def test_notebook_fixture_verifies(case, tmp_path):
    report = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(FIXTURES / case / "original.ipynb"),
         str(FIXTURES / case / "migrated.ipynb"), "--workers", "1", "--run-dir", str(tmp_path / "run"),
         "--json", str(report), "--timeout", "300"],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "is a notebook: its code cells run as" in proc.stdout
    comparison = json.loads(report.read_text())["comparison"]
    assert comparison["equivalent"], comparison["problems"]
    for worker in comparison["workers"].values():
        assert worker["compared"] >= TRAINED.get(case, 200), worker
