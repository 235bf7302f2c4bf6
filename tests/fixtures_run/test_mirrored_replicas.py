"""MirroredStrategy with more than one replica in one process: fixture canned_embedding_mirrored splits the CPU into
two logical devices (its --replicas, default 2) on both sides, so the sparse gradients of its embedding columns are
combined across replicas by the collective all-reduce on TF 2.15 and on TF 2.21. tests/fixtures_run/
test_fixture_equivalence.py checks its verdict; this test checks it really ran two replicas on each side, and that
verify compared one loss per step (the first replica's, whose hooks the Estimator ran: runtime/boot/target_boot.py).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "canned_embedding_mirrored"
STEPS = 40


@pytest.mark.equivalence
@pytest.mark.tfenv
@pytest.mark.parametrize("replicas", [2, 1])
def test_sparse_columns_train_bit_equal_on_mirrored_replicas(replicas, tmp_path):
    report, run = tmp_path / "verify.json", tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(CASE / "original.py"), str(CASE / "migrated.py"),
         "--workers", "1", "--run-dir", str(run), "--keep", "--json", str(report), "--timeout", "300",
         "--", "--steps", str(STEPS), "--replicas", str(replicas)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    for side in ("original", "migrated"):
        log = (run / side / "logs" / "chief-0.log").read_text()
        assert f"replicas in sync: {replicas}\n" in log, (side, log[-2000:])
    result = json.loads(report.read_text())
    assert len(result["losses"]["migrated"]["chief0"]) == STEPS  # one loss per step, not one per replica
    worker = result["comparison"]["workers"]["chief0"]
    assert worker["compared"] == STEPS and worker["bit_equal"] == STEPS, worker
