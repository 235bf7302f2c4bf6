"""predict_separate: predict / evaluate / export with nothing trained before them restore what the Estimator
restored. The original trains K steps on TF 2.15 into a model_dir; then, each on its own copy of that directory,
the original (`--mode predict`: a fresh Estimator restores the latest TF1 checkpoint) and the migrated program
(TF 2.21: `restore_checkpoint` reads the same checkpoint by TF1 name) predict, evaluate and export. No weights are
handed over by verify: the predictions, the evaluation loss and the exports' outputs (and the ctl target's
predictions and evaluation) must match within verify's
tolerance only because both restored the same checkpoint. On an empty model_dir the migrated program predicts from
fresh weights and then fails the export as the Estimator did ("Couldn't find trained model").

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from _runs import migrate_case
from tfmigrate.runtime import envs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASE = FIXTURES / "predict_separate"
STEPS = 60
RTOL, ATOL = 1e-5, 1e-6  # verify's defaults

# serving_default of both SavedModels on the same serialized tf.Example protos (run in the target env)
SERVE = textwrap.dedent('''
    import json, sys
    import numpy as np
    import tensorflow as tf

    rng = np.random.RandomState(9)
    examples = [tf.train.Example(features=tf.train.Features(feature={"xy": tf.train.Feature(
        float_list=tf.train.FloatList(value=[float(a), float(b)]))})).SerializeToString()
        for a, b in rng.uniform(-1, 1, size=(12, 2))]
    out = {}
    for side, path in (("original", sys.argv[1]), ("migrated", sys.argv[2])):
        outputs = tf.saved_model.load(path).signatures["serving_default"](examples=tf.constant(examples))
        out[side] = {k: v.numpy().astype("float64").ravel().tolist() for k, v in sorted(outputs.items())}
    print(json.dumps(out))
''')


def _run(env: str, argv: list[str], work: Path, check: bool = True) -> subprocess.CompletedProcess:
    environ = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    for key in ("TF_CONFIG", "TFMIGRATE_MODEL_DIR", "TFMIGRATE_CAPTURE_DIR", "TFMIGRATE_INIT_CKPT"):
        environ.pop(key, None)
    result = subprocess.run([str(envs.ensure(env)), *argv], cwd=work, env=environ, capture_output=True, text=True,
                            timeout=300)
    if check:
        assert result.returncode == 0, result.stderr[-3000:]
    return result


def _printed(stdout: str, tag: str) -> list[dict]:
    return [json.loads(line.split(":", 1)[1]) for line in stdout.splitlines() if line.startswith(tag + ":")]


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= ATOL + RTOL * abs(a)


def _migrated(tmp_path: Path, target: str = "keras") -> Path:
    return migrate_case(CASE, tmp_path, target)


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_migrated_predict_restores_the_estimators_checkpoint(tmp_path):
    migrated = _migrated(tmp_path)
    trained = tmp_path / "trained"
    _run("legacy", [str(CASE / "original.py"), "--mode", "train", "--steps", str(STEPS), "--model_dir", str(trained)],
         tmp_path)
    assert (trained / f"model.ckpt-{STEPS}.index").exists()
    runs = {}
    for side, env, program in (("original", "legacy", CASE / "original.py"), ("migrated", "target", migrated)):
        model_dir = tmp_path / side / "model"
        shutil.copytree(trained, model_dir)
        result = _run(env, [str(program), "--mode", "predict", "--model_dir", str(model_dir),
                            "--export_dir", str(tmp_path / side / "export")], tmp_path)
        runs[side] = result.stdout
        # restoring only reads: no checkpoint was added to the copy
        assert sorted(p.name for p in model_dir.iterdir() if p.name.startswith("model.ckpt")) == \
            sorted(p.name for p in trained.iterdir() if p.name.startswith("model.ckpt"))
    a, b = _printed(runs["original"], "prediction"), _printed(runs["migrated"], "prediction")
    assert len(a) == len(b) == 48
    assert [p["class_id"] for p in a] == [p["class_id"] for p in b]
    pairs = [(x, y) for p, q in zip(a, b) for x, y in zip(p["probabilities"], q["probabilities"])]
    assert all(_close(x, y) for x, y in pairs), max(abs(x - y) for x, y in pairs)
    loss_a, loss_b = _printed(runs["original"], "final eval")[0]["loss"], _printed(runs["migrated"], "final eval")[0]["loss"]
    assert _close(loss_a, loss_b), (loss_a, loss_b)

    # the custom-training-loop target restores into its trainer's model the same way (its evaluate: _build)
    ctl_dir = tmp_path / "ctl" / "model"
    shutil.copytree(trained, ctl_dir)
    ctl = _run("target", [str(_migrated(tmp_path, "ctl")), "--mode", "predict", "--model_dir", str(ctl_dir)],
               tmp_path).stdout
    c = _printed(ctl, "prediction")
    assert [p["class_id"] for p in c] == [p["class_id"] for p in a]
    assert all(_close(x, y) for p, q in zip(a, c) for x, y in zip(p["probabilities"], q["probabilities"]))
    assert _close(loss_a, _printed(ctl, "final eval")[0]["loss"])

    # the restore took effect: a fresh model (an empty model_dir) predicts something else ...
    empty = tmp_path / "empty"
    fresh = _run("target", [str(migrated), "--mode", "predict", "--model_dir", str(empty), "--export_dir",
                            str(tmp_path / "fresh_export")], tmp_path, check=False)
    fresh_b = _printed(fresh.stdout, "prediction")
    assert len(fresh_b) == 48 and any(not _close(p["probabilities"][0], q["probabilities"][0])
                                      for p, q in zip(fresh_b, b))
    # ... and cannot export without a checkpoint: the Estimator raised ValueError("Couldn't find trained model at
    # <model_dir>.") there (Estimator._export_all_saved_models in tensorflow_estimator 2.15)
    assert fresh.returncode != 0 and "Couldn't find trained model" in fresh.stderr, fresh.stderr[-2000:]

    # both exports serve the restored weights: the same outputs on the same tf.Example protos
    paths = [_printed_path(runs[side]) for side in ("original", "migrated")]
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    served = json.loads(_run("target", [str(script), *paths], tmp_path).stdout.strip().splitlines()[-1])
    assert sorted(served["original"]) == sorted(served["migrated"]) == ["class_ids", "probabilities"]
    for key in served["original"]:
        assert all(_close(x, y) for x, y in zip(served["original"][key], served["migrated"][key])), key


def _printed_path(stdout: str) -> str:
    return next(line.split(":", 1)[1].strip() for line in stdout.splitlines() if line.startswith("exported:"))
