"""fixtures/estimator_choice_flag with the other values of its --model_type flag: test_fixture_equivalence.py verifies
its default (wide_deep); here `tfmigrate verify` runs both programs with `--model_type wide` (LinearClassifier) and
`--model_type deep` (DNNClassifier), so each branch of the if/elif the migrated program keeps builds the model of
the Estimator the original built there, trained, evaluated and predicted alike (issue 28).

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "estimator_choice_flag"
STEPS = 100


@pytest.mark.equivalence
@pytest.mark.tfenv
@pytest.mark.parametrize("model_type", ["wide", "deep"])
def test_each_branch_of_the_choice_verifies_equivalent(model_type, tmp_path):
    report = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(CASE / "original.py"), str(CASE / "migrated.py"),
         "--workers", "1", "--run-dir", str(tmp_path / "run"), "--json", str(report), "--timeout", "300",
         "--", "--steps", str(STEPS), "--model_type", model_type],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    comparison = json.loads(report.read_text())["comparison"]
    assert comparison["equivalent"], comparison
    for worker in comparison["workers"].values():
        assert worker["compared"] >= STEPS, worker
