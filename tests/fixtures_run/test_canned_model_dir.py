"""Canned estimators and an Estimator model_dir (fixtures/canned_model_dir): the migrated canned models read the
Estimator's TF1 checkpoint by the canned variable names (dnn/hiddenlayer_0/kernel, dnn/input_from_feature_columns/
input_layer/<column>_embedding/embedding_weights, linear/linear_model/<column>/weights, the optimizers' slots,
global_step).

Predict: the original trains STEPS on TF 2.15 into a model_dir; then, each on its own copy, the original (`--mode
predict`: a new Estimator restores the latest checkpoint) and the migrated program (TF 2.21, Keras target golden
and the custom-loop rewrite: `restore_checkpoint`) predict the same held-out examples. Nothing is handed over but
the model_dir, so equal predictions mean every weight was read under the right name. Tolerance: verify's (rtol
1e-5, atol 1e-6): the restored float32 weights are bit-equal, what may differ is the last bits of TF 2.21's
kernels against TF 2.15's (softmax/sigmoid, a few ulp: ulp(1.0) = 1.2e-7); the measured maximum |Δ| is printed.
An empty model_dir predicts something else (the restore took effect).

Resume: the original trains EARLIER steps into a model_dir; on copies, the original continues to FINAL and the
migrated program (Keras fit: `restore_model_dir`, then steps_per_epoch = FINAL - the restored global step; custom
loop: the trainer's _build) does too; both must train FINAL - EARLIER steps, step for step equal within verify's
tolerance, which needs the optimizer slots (Adagrad accumulators, Ftrl accumulators and linears, SGD momentum)
restored too. A model_dir of the other estimator is an error naming the variables, not a fresh start.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures_run.test_resume_runs import _run as run_checked
from _runs import migrate_case
from tfmigrate.runtime import capture, compare, envs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASE = FIXTURES / "canned_model_dir"
STEPS, EARLIER, FINAL = 60, 40, 100
RTOL, ATOL = 1e-5, 1e-6  # verify's defaults


def _run(env: str, argv: list[str], work: Path, check: bool = True, capture_dir: Path | None = None,
         model_dir: Path | None = None) -> subprocess.CompletedProcess:
    if check:
        return run_checked(env, argv, work, capture_dir, model_dir)
    environ = {k: v for k, v in os.environ.items() if k not in ("TF_CONFIG", "TFMIGRATE_MODEL_DIR",
                                                                "TFMIGRATE_CAPTURE_DIR", "TFMIGRATE_INIT_CKPT")}
    return subprocess.run([str(envs.ensure(env)), *argv], cwd=work, capture_output=True, text=True, timeout=600,
                          env={**environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})


def _migrated(tmp_path: Path, target: str) -> Path:
    return migrate_case(CASE, tmp_path, target)


def _predictions(stdout: str) -> list[dict]:
    return [json.loads(line.split(":", 1)[1]) for line in stdout.splitlines() if line.startswith("prediction:")]


def _max_delta(a: list[dict], b: list[dict]) -> float:
    """The largest |Δ| over every logit and probability; asserts each is within tolerance."""
    assert len(a) == len(b) == 64
    worst = 0.0
    for p, q in zip(a, b):
        for key in ("logits", "probabilities"):
            assert len(p[key]) == len(q[key])
            for x, y in zip(p[key], q[key]):
                assert abs(x - y) <= ATOL + RTOL * abs(x), (key, x, y)
                worst = max(worst, abs(x - y))
    return worst


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("estimator", ["dnn", "wide_deep"])
def test_migrated_canned_model_predicts_from_the_estimators_model_dir(tmp_path, estimator):
    original = CASE / "original.py"
    programs = {"keras": _migrated(tmp_path, "keras"), "ctl": _migrated(tmp_path, "ctl")}
    trained = tmp_path / "trained"
    _run("legacy", [str(original), "--model", estimator, "--mode", "train", "--steps", str(STEPS),
                    "--model_dir", str(trained)], tmp_path)
    assert (trained / f"model.ckpt-{STEPS}.index").exists()
    runs = {}
    for side, env, program in (("original", "legacy", original), ("keras", "target", programs["keras"]),
                               ("ctl", "target", programs["ctl"])):
        model_dir = tmp_path / side / "model"
        shutil.copytree(trained, model_dir)
        result = _run(env, [str(program), "--model", estimator, "--mode", "predict", "--model_dir",
                            str(model_dir)], tmp_path)
        runs[side] = _predictions(result.stdout)
        # restoring only reads: no checkpoint was added to the copy
        assert sorted(p.name for p in model_dir.iterdir()) == sorted(p.name for p in trained.iterdir())
    for side in ("keras", "ctl"):
        print(f"{estimator} {side}: max |Δ| {_max_delta(runs['original'], runs[side]):.3g} over 64 predictions")
    # the restore took effect: a fresh model (an empty model_dir) predicts something else
    fresh = _predictions(_run("target", [str(programs["keras"]), "--model", estimator, "--mode", "predict",
                                         "--model_dir", str(tmp_path / "empty")], tmp_path).stdout)
    assert len(fresh) == 64 and any(abs(p["logits"][0] - q["logits"][0]) > 1e-3
                                    for p, q in zip(fresh, runs["original"]))


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("estimator, target", [("dnn", "keras"), ("wide_deep", "keras"), ("wide_deep", "ctl")])
def test_migrated_canned_model_resumes_training_from_the_estimators_model_dir(tmp_path, estimator, target):
    original = CASE / "original.py"
    migrated = _migrated(tmp_path, target)
    earlier = tmp_path / "earlier"
    _run("legacy", [str(original), "--model", estimator, "--mode", "train", "--steps", str(EARLIER),
                    "--model_dir", str(earlier)], tmp_path)
    assert (earlier / f"model.ckpt-{EARLIER}.index").exists()
    caps, evals = {}, {}
    for side in ("original", "migrated"):
        model_dir = tmp_path / side / "model"
        shutil.copytree(earlier, model_dir)
        cap = tmp_path / side / "capture"
        if side == "original":
            result = _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--model", estimator, "--mode",
                                     "train", "--steps", str(FINAL)], tmp_path, capture_dir=cap, model_dir=model_dir)
        else:
            result = _run("target", [str(capture.TARGET_BOOT), str(migrated), "--model", estimator, "--mode",
                                     "train", "--steps", str(FINAL), "--model_dir", str(model_dir)], tmp_path,
                          capture_dir=cap)
        caps[side] = cap
        evals[side] = json.loads(next(line.split(":", 1)[1] for line in result.stdout.splitlines()
                                      if line.startswith("final eval:")))
    a, b = capture.read_legacy(caps["original"]), capture.read_target(caps["migrated"])
    assert len(a["chief0"]) == FINAL - EARLIER  # the Estimator went on from its global step
    assert len(b["chief0"]) == FINAL - EARLIER  # so did the migrated program: the remaining steps, no more
    assert evals["original"]["global_step"] == evals["migrated"]["global_step"] == FINAL
    result = compare.compare_sync(a, b)
    assert result["equivalent"], result["problems"]
    assert result["workers"]["chief0"]["compared"] == FINAL - EARLIER
    print(f"{estimator} {target}: {FINAL - EARLIER} resumed steps, max rel Δ {result.get('max_rel', 'n/a')}")

    # a checkpoint of another model is an error naming what does not fit, not a fresh start
    other = tmp_path / "other"
    shutil.copytree(earlier, other)
    bad = _run("target", [str(migrated), "--model", "dnn" if estimator == "wide_deep" else "wide_deep",
                          "--mode", "train", "--steps", str(FINAL), "--model_dir", str(other)], tmp_path, check=False)
    assert bad.returncode != 0
    assert "cannot resume from the Estimator checkpoint" in bad.stderr, bad.stderr[-2000:]


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("estimator", ["dnn", "wide_deep"])
def test_migrated_canned_program_resumes_its_own_checkpoints(tmp_path, estimator):
    """The Keras fit of a canned model writes the Estimator's checkpoints (EstimatorCheckpoints: model.ckpt-<step>,
    a tf.train.Checkpoint of the model and its optimizer, a wide and deep model's two optimizers included). From
    one Estimator checkpoint (step EARLIER, so both start from the same weights), each program trains to MID in its
    own copy, then runs again there to FINAL: the migrated second run reads its own model.ckpt-MID, and must match
    the Estimator's step for step (every weight and slot restored); predict from those model_dirs must agree."""
    original = CASE / "original.py"
    migrated = _migrated(tmp_path, "keras")
    mid = (EARLIER + FINAL) // 2
    earlier = tmp_path / "earlier"
    _run("legacy", [str(original), "--model", estimator, "--mode", "train", "--steps", str(EARLIER),
                    "--model_dir", str(earlier)], tmp_path)
    caps, dirs = {}, {}
    for side in ("original", "migrated"):
        dirs[side] = tmp_path / side / "model"
        shutil.copytree(earlier, dirs[side])
        for steps in (mid, FINAL):
            caps[side, steps] = cap = tmp_path / side / f"capture{steps}"
            if side == "original":
                _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--model", estimator, "--mode", "train",
                                "--steps", str(steps)], tmp_path, capture_dir=cap, model_dir=dirs[side])
            else:
                _run("target", [str(capture.TARGET_BOOT), str(migrated), "--model", estimator, "--mode", "train",
                                "--steps", str(steps), "--model_dir", str(dirs[side])], tmp_path, capture_dir=cap)
    checkpoints = sorted(p.name for p in dirs["migrated"].glob("model.ckpt-*.index"))
    assert checkpoints == sorted(p.name for p in dirs["original"].glob("model.ckpt-*.index")), checkpoints
    assert not (dirs["migrated"] / "latest.weights.h5").exists()
    for steps, done in ((mid, EARLIER), (FINAL, mid)):
        a, b = capture.read_legacy(caps["original", steps]), capture.read_target(caps["migrated", steps])
        assert len(a["chief0"]) == len(b["chief0"]) == steps - done
        result = compare.compare_sync(a, b)
        assert result["equivalent"], (steps, result["problems"])
    predictions = {side: _predictions(_run(env, [str(program), "--model", estimator, "--mode", "predict",
                                                 "--model_dir", str(dirs[side])], tmp_path).stdout)
                   for side, env, program in (("original", "legacy", original), ("migrated", "target", migrated))}
    print(f"{estimator}: own checkpoints, max |Δ| {_max_delta(predictions['original'], predictions['migrated']):.3g}")
