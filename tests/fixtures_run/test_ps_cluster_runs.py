"""A parameter-server Estimator program and its migration, each run on the runtime's local cluster: the original on
TF 2.15 (legacy boot), the migrated program (custom loop, ParameterServerStrategy + ClusterCoordinator) on TF 2.21
(target boot).

One training task on each side, so the global step is that task's own step and both runs are deterministic: the
original on chief + ps (the Estimator's chief trains; variables on the ps), the migrated program on chief + worker
+ ps (the chief coordinates, the one worker trains, variables on the ps). With a TF1 worker next to the chief the
worker only joins after its readiness poll (measured: on chief + worker + ps with NaN labels at step 47 the chief
made all 46 recorded steps and raised alone, the same as here), and several trainers make the steps asynchronous.

- Checkpoint steps (save_checkpoints_steps=20): a fresh run to step 50, then the same model_dir resumed to step 90.
  The Estimator's chief saved 0, 20, 40, 50, then 50, 70, 90 (every 20 steps after the last save, not at multiples
  of 20: no 60, 80); the migrated chief must save the same steps under the same names.
- NaN labels at step K (`--nan_at_step K` corrupts the K-th batch every trainer reads): the Estimator's chief raised
  NanLossDuringTrainingError after step K (its capture hook, run after the NanTensorHook, recorded steps 1..K-1),
  with the checkpoints up to K on disk (K's own when K is a checkpoint step: its saver ran before the NaN check).
  The migrated chief reads the loss at each log/checkpoint boundary only (log_step_count_steps=25,
  save_checkpoints_steps=20): it raises the same error at the first boundary B >= K, after the worker ran steps
  1..B (measured: K=47 -> B=50, K=55 -> B=60, K=60 -> B=60); it writes B's checkpoint only when B == K, so the
  checkpoints on disk are the Estimator's (a loop saving at every checkpoint boundary left a model.ckpt-60 of NaN
  weights for K=55, which the Estimator never wrote: measured).

Marked `tfenv` and `equivalence` (clusters of TensorFlow processes); run it alone, under nice. About 12 cluster
runs of ~10 s each on 2 cores.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tfmigrate.runtime import capture, cluster, envs

pytestmark = [pytest.mark.tfenv, pytest.mark.equivalence, pytest.mark.cluster]

ERROR = "NanLossDuringTrainingError: NaN loss during training."
DIVERGED = "Model diverged with loss = NaN."
SAVE_STEPS, LOG_STEPS = 20, 25

PROGRAM = '''\
import argparse

import numpy as np
import tensorflow as tf


def data(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1.0, 1.0, size=(n, 4)).astype(np.float32)
    y = (x[:, :1] + x[:, 1:2] * x[:, 2:3] > 0.0).astype(np.float32)
    return {"x": x}, y


def train_input_fn(nan_at_step):
    batches = tf.data.Dataset.from_tensor_slices(data(640, 3)).repeat().batch(16)

    def corrupt(index, batch):
        features, labels = batch
        # every trainer reads the whole stream: its batch `index` is its (index + 1)-th step
        bad = tf.logical_and(tf.greater(nan_at_step, 0), tf.equal(index, nan_at_step - 1))
        return features, tf.where(bad, tf.fill(tf.shape(labels), np.float32("nan")), labels)

    return batches.enumerate().map(corrupt)


def model_fn(features, labels, mode, params):
    net = tf.compat.v1.layers.dense(features["x"], 8, activation=tf.nn.tanh)
    logits = tf.compat.v1.layers.dense(net, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probability": tf.sigmoid(logits)})
    loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(args):
    config = tf.estimator.RunConfig(model_dir=args.model_dir, tf_random_seed=5, save_checkpoints_steps=20,
                                    log_step_count_steps=25, keep_checkpoint_max=20)
    est = tf.estimator.Estimator(model_fn=model_fn, config=config)
    tf.estimator.train_and_evaluate(
        est,
        tf.estimator.TrainSpec(lambda: train_input_fn(args.nan_at_step), max_steps=args.steps),
        tf.estimator.EvalSpec(lambda: tf.data.Dataset.from_tensor_slices(data(64, 4)).batch(32), steps=None,
                              throttle_secs=0),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=90)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--nan_at_step", type=int, default=0)
    main(parser.parse_args())
'''


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    from tfmigrate.engine import Options, migrate_source

    d = tmp_path_factory.mktemp("ps_programs")
    original, migrated = d / "ps_original.py", d / "ps_migrated.py"
    original.write_text(PROGRAM)
    result = migrate_source(PROGRAM.encode(), str(migrated), Options(target="ctl", strategy="parameter-server"))
    assert result.status == "changed", [x.format() for x in result.diagnostics]
    assert any(x.code == "TFM611" and "approximated under parameter servers" in x.message
               for x in result.diagnostics)
    migrated.write_bytes(result.output)
    assert "self._train_scheduled(" in result.output.decode()
    return {"original": original, "migrated": migrated}


def _run(side: str, program: Path, root: Path, model_dir: Path, *args: str) -> tuple[str | None, Path]:
    """One side on the local cluster: (None if every trainer exited 0, else the failed task's whole log; capture
    dir). The original on chief + ps (legacy boot, TF 2.15), the migrated program on chief + worker + ps (target
    boot, TF 2.21; its worker and ps serve forever, the chief's exit ends the run)."""
    legacy = side == "original"
    tasks = cluster.layout(workers=1 if legacy else 2, ps=1)
    python = envs.ensure("legacy" if legacy else "target")
    boot = capture.LEGACY_BOOT if legacy else capture.TARGET_BOOT
    cap = root / "capture"
    cap.mkdir(parents=True, exist_ok=True)
    model_dir.mkdir(parents=True, exist_ok=True)
    env = {"TFMIGRATE_CAPTURE_DIR": str(cap), "TFMIGRATE_MODEL_DIR": str(model_dir), "TMPDIR": str(root),
           "KERAS_HOME": str(root / "keras")}
    try:
        cluster.run_cluster(lambda t: [str(python), str(boot), str(program), "--model_dir", str(model_dir), *args],
                            tasks, root / "logs", env, timeout=300, grace=10.0 if legacy else 0.0)
    except cluster.ClusterError as err:
        assert err.kind == "crash" and err.task == cluster.Task("chief", 0), str(err)
        return (root / "logs" / "chief-0.log").read_text(errors="replace"), cap
    return None, cap


def steps_on_disk(model_dir: Path) -> list[int]:
    return sorted(int(p.name[len("model.ckpt-"):-len(".index")]) for p in model_dir.glob("model.ckpt-*.index"))


def listed_steps(model_dir: Path) -> list[int]:
    """The steps the migrated chief's "checkpoint" state file lists (keep_checkpoint_max=20 keeps every one)."""
    state = (model_dir / "checkpoint").read_text()
    return [int(n.rsplit("-", 1)[1]) for n in re.findall(r'^all_model_checkpoint_paths: "(.*)"$', state, re.M)]


def test_checkpoint_steps_and_a_resume_match_the_estimators_chief(programs, tmp_path):
    steps = {}
    for side in ("original", "migrated"):
        model_dir = tmp_path / side / "model_dir"
        failed, _ = _run(side, programs[side], tmp_path / side / "first", model_dir, "--steps", "50")
        assert failed is None, (side, failed[-3000:])
        first = steps_on_disk(model_dir)
        failed, _ = _run(side, programs[side], tmp_path / side / "resumed", model_dir, "--steps", "90")
        assert failed is None, (side, failed[-3000:])
        steps[side] = (first, steps_on_disk(model_dir))
        if side == "migrated":
            assert listed_steps(model_dir) == steps[side][1]
    # measured on TF 2.15: the resumed chief saved at the step it started from, then 20 steps after each save
    assert steps["original"] == ([0, 20, 40, 50], [0, 20, 40, 50, 70, 90]), steps
    assert steps["migrated"] == steps["original"], steps


def _boundary(k: int) -> int:
    """The first log or checkpoint step at or after k (checkpoints every SAVE_STEPS from 0, logs at multiples)."""
    return min(-(-k // LOG_STEPS) * LOG_STEPS, -(-k // SAVE_STEPS) * SAVE_STEPS)


@pytest.mark.parametrize("nan_at", [47, 55, 60])  # before a log step, before a checkpoint step, on a checkpoint step
def test_a_nan_loss_raises_the_estimators_error_with_the_same_checkpoints(programs, tmp_path, nan_at):
    original_dir, migrated_dir = tmp_path / "original" / "model_dir", tmp_path / "migrated" / "model_dir"
    log, cap = _run("original", programs["original"], tmp_path / "original", original_dir,
                    "--nan_at_step", str(nan_at))
    assert log is not None and ERROR in log and DIVERGED in log, log
    losses = [loss for loss, _ in capture.read_legacy(cap)["chief0"]]
    assert len(losses) == nan_at - 1 and all(math.isfinite(x) for x in losses)  # raised after step K
    expected = [s for s in range(0, nan_at + 1, SAVE_STEPS)]
    assert steps_on_disk(original_dir) == expected

    log, cap = _run("migrated", programs["migrated"], tmp_path / "migrated", migrated_dir,
                    "--nan_at_step", str(nan_at))
    assert log is not None and ERROR in log and DIVERGED in log, log
    losses = [loss for loss, _ in capture.read_target(cap)["worker0"]]
    # the approximation: the worker ran every step up to the boundary the chief checks at
    assert len(losses) == _boundary(nan_at), (len(losses), nan_at)
    assert all(math.isfinite(x) for x in losses[:nan_at - 1]) and all(math.isnan(x) for x in losses[nan_at - 1:])
    assert steps_on_disk(migrated_dir) == expected and listed_steps(migrated_dir) == expected
