"""warm_start: the original (TF 2.15 Estimator, WarmStartSettings with a regex) and the migrated program (TF 2.21,
warm_start_from_tf1) warm-start from the same TF1 checkpoint of an earlier original run and train step for step
alike. No initial weights are handed over by verify here: everything the programs start from comes from the
checkpoint, so a loader that skipped a variable, or read the wrong one, breaks the comparison at step 0.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tfmigrate.runtime import capture, compare, envs

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "warm_start"


def _run(env: str, argv: list[str], work: Path, capture_dir: Path | None = None) -> None:
    environ = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    environ.pop("TF_CONFIG", None)
    if capture_dir is not None:
        environ.update(TFMIGRATE_CAPTURE_DIR=str(capture_dir), TFMIGRATE_MODEL_DIR=str(capture_dir.parent / "model"))
    result = subprocess.run([str(envs.ensure(env)), *argv], cwd=work, env=environ, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_warm_started_programs_train_alike(tmp_path, target):
    migrated = FIXTURE / "migrated.py"
    if target == "ctl":  # the golden file is the Keras target; the custom loop warm-starts in ModelTrainer._build
        migrated = tmp_path / "migrated_ctl.py"
        from tfmigrate.engine import Options, migrate_source

        result = migrate_source((FIXTURE / "original.py").read_bytes(), str(migrated), Options(target="ctl"))
        assert result.status == "changed"
        migrated.write_bytes(result.output)
    earlier = tmp_path / "earlier"
    _run("legacy", [str(FIXTURE / "original.py"), "--steps", "40", "--model_dir", str(earlier)], tmp_path)
    assert (earlier / "checkpoint").exists()
    runs = {}
    for side, env, boot, program in (("original", "legacy", capture.LEGACY_BOOT, FIXTURE / "original.py"),
                                     ("migrated", "target", capture.TARGET_BOOT, migrated)):
        cap = tmp_path / side / "capture"
        cap.parent.mkdir()
        _run(env, [str(boot), str(program), "--steps", "30", "--warm_start_from", str(earlier)], tmp_path, cap)
        runs[side] = cap
    a, b = capture.read_legacy(runs["original"]), capture.read_target(runs["migrated"])
    result = compare.compare_sync(a, b)
    assert result["equivalent"], result["problems"]
    assert result["workers"]["chief0"]["compared"] == 30
    # the warm start took effect: the first loss is that of a model trained 40 steps, not of a fresh one
    scratch = tmp_path / "scratch" / "capture"
    scratch.parent.mkdir()
    _run("legacy", [str(capture.LEGACY_BOOT), str(FIXTURE / "original.py"), "--steps", "1"], tmp_path, scratch)
    assert a["chief0"][0][0] < 0.8 * capture.read_legacy(scratch)["chief0"][0][0]
