"""Resume from an Estimator model_dir: the original trains K steps on TF 2.15 into a model_dir; then, each on its
own copy of that directory, the original continues to max_steps and the migrated program (TF 2.21) does too,
reading the Estimator's TF1 checkpoint by name (weights, optimizer slots, global_step). The continuations must
match step for step within verify's tolerance. No initial weights are handed over by verify: a weight or slot
the migrated program did not restore, or a step counter it did not carry over (max_steps is absolute; the
schedules read the step), breaks the comparison at the first step.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from _runs import run_program
from tfmigrate.runtime import capture, compare, envs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
EARLIER, FINAL = 60, 140


def _run(env: str, argv: list[str], work: Path, capture_dir: Path | None = None, model_dir: Path | None = None):
    result = run_program(env, argv, work, capture_dir, model_dir, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _migrated(case: str, target: str, tmp_path: Path) -> Path:
    from tfmigrate.engine import Options, migrate_source

    out = tmp_path / f"migrated_{target}.py"
    result = migrate_source((FIXTURES / case / "original.py").read_bytes(), str(out), Options(target=target))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert b"import tfmigrate" not in result.output and b"from tfmigrate" not in result.output
    out.write_bytes(result.output)
    return out


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("case, target", [("adam_mae", "keras"), ("momentum_decay", "ctl"),
                                          ("shim_get_variable", "ctl"), ("canned_proximal_adagrad", "keras")])
def test_migrated_program_resumes_an_estimator_model_dir(tmp_path, case, target):
    """adam_mae: Adam's m/v slots and beta1_power/beta2_power; momentum_decay: the Momentum accumulator and a
    staircase decay on the global step (a step counter restarted at 0 would use the wrong rate); shim_get_variable: a
    forward pass under the model-mapping shim (tf_keras), its get_variable weights and Adam slots by TF1 name."""
    original = FIXTURES / case / "original.py"
    migrated = _migrated(case, target, tmp_path)
    earlier = tmp_path / "earlier"
    _run("legacy", [str(original), "--steps", str(EARLIER), "--model_dir", str(earlier)], tmp_path)
    assert (earlier / f"model.ckpt-{EARLIER}.index").exists()
    runs = {}
    for side in ("original", "migrated"):
        model_dir = tmp_path / side / "model"
        shutil.copytree(earlier, model_dir)
        cap = tmp_path / side / "capture"
        if side == "original":
            _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--steps", str(FINAL)], tmp_path, cap, model_dir)
        else:
            _run("target", [str(capture.TARGET_BOOT), str(migrated), "--steps", str(FINAL), "--model_dir",
                            str(model_dir)], tmp_path, cap)
        runs[side] = cap
    a, b = capture.read_legacy(runs["original"]), capture.read_target(runs["migrated"])
    assert len(a["chief0"]) == FINAL - EARLIER  # the Estimator went on from its global step
    result = compare.compare_sync(a, b)
    assert result["equivalent"], result["problems"]
    assert result["workers"]["chief0"]["compared"] == FINAL - EARLIER
    # the resume took effect: the first loss is that of a model trained EARLIER steps, not of a fresh one
    fresh = tmp_path / "fresh" / "capture"
    _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--steps", "1"], tmp_path, fresh, tmp_path / "fresh" / "m")
    assert a["chief0"][0][0] < 0.9 * capture.read_legacy(fresh)["chief0"][0][0]


@pytest.mark.tfenv
def test_max_steps_already_reached_trains_nothing_and_a_bad_checkpoint_is_named(tmp_path):
    """An Estimator whose model_dir holds max_steps already trains nothing: neither does the migrated program.
    A checkpoint of another model is an error that names the variable, not a fresh start."""
    migrated = _migrated("regression_adagrad", "keras", tmp_path)
    earlier = tmp_path / "earlier"
    _run("legacy", [str(FIXTURES / "regression_adagrad" / "original.py"), "--steps", "30", "--model_dir",
                    str(earlier)], tmp_path)
    cap = tmp_path / "capture"
    _run("target", [str(capture.TARGET_BOOT), str(migrated), "--steps", "20", "--model_dir", str(earlier)], tmp_path, cap)
    assert capture.read_target(cap).get("chief0", []) == []
    other = tmp_path / "other"
    _run("legacy", [str(FIXTURES / "adam_mae" / "original.py"), "--steps", "5", "--model_dir", str(other)], tmp_path)
    environ = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    result = subprocess.run([str(envs.ensure("target")), str(migrated), "--steps", "40", "--model_dir", str(other)],
                            cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert "cannot resume from the Estimator checkpoint" in result.stderr, result.stderr[-2000:]


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_a_keras_program_run_again_on_its_own_model_dir_goes_on_to_max_steps(tmp_path):
    """The migrated fit runs one epoch; its BackupAndRestore backup then says "epoch 1 done", which made a second
    run (the Estimator's `--steps 40` after `--steps 20`) skip training entirely. It must train the remaining steps
    from where the first run stopped, as the Estimator did, and match the original's continuation."""
    # custom_hook: no save_checkpoints_steps, so the backup is written at the end of fit's one epoch
    original = FIXTURES / "custom_hook" / "original.py"
    migrated = _migrated("custom_hook", "keras", tmp_path)
    earlier, final = 60, 100  # under the fixture's hook budget (130 steps per run)
    caps = {}
    for side in ("original", "migrated"):
        model_dir = tmp_path / side / "model"
        for steps in (earlier, final):
            cap = tmp_path / side / f"capture{steps}"
            if side == "original":
                _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--steps", str(steps)], tmp_path, cap,
                     model_dir)
            else:
                _run("target", [str(capture.TARGET_BOOT), str(migrated), "--steps", str(steps), "--model_dir",
                                str(model_dir)], tmp_path, cap)
            caps[side, steps] = cap
    second = capture.read_target(caps["migrated", final])
    assert len(second.get("chief0", [])) == final - earlier  # not 0: the second run trained on
    assert len(capture.read_legacy(caps["original", final])["chief0"]) == final - earlier


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_a_keras_program_resumes_its_own_checkpoint_with_the_optimizer_slots(tmp_path):
    """adam_mae (Keras target): from one Estimator checkpoint (step EARLIER), each program trains to MID in its own
    copy, then again to FINAL there; the migrated second run reads its own model.ckpt-MID (EstimatorCheckpoints).
    Restoring it before the optimizer was built left Adam's m and v at zero (the weights and the step were right),
    so the second run trained differently from the Estimator's from its first step."""
    original = FIXTURES / "adam_mae" / "original.py"
    migrated = _migrated("adam_mae", "keras", tmp_path)
    mid = (EARLIER + FINAL) // 2
    earlier = tmp_path / "earlier"
    _run("legacy", [str(original), "--steps", str(EARLIER), "--model_dir", str(earlier)], tmp_path)
    caps = {}
    for side in ("original", "migrated"):
        model_dir = tmp_path / side / "model"
        shutil.copytree(earlier, model_dir)
        for steps in (mid, FINAL):
            caps[side, steps] = cap = tmp_path / side / f"capture{steps}"
            if side == "original":
                _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--steps", str(steps)], tmp_path, cap,
                     model_dir)
            else:
                _run("target", [str(capture.TARGET_BOOT), str(migrated), "--steps", str(steps), "--model_dir",
                                str(model_dir)], tmp_path, cap)
    for steps, done in ((mid, EARLIER), (FINAL, mid)):
        a, b = capture.read_legacy(caps["original", steps]), capture.read_target(caps["migrated", steps])
        assert len(a["chief0"]) == len(b["chief0"]) == steps - done
        result = compare.compare_sync(a, b)
        assert result["equivalent"], (steps, result["problems"])
