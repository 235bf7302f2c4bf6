"""fixtures/nan_checkpoint_hooks run on both sides: the original on TF 2.15 (Estimator), the migrated program on
TF 2.21, Keras and custom-loop targets.

- A NaN loss at global step K (`--nan_at_step K` corrupts that step's labels): the Estimator's NanTensorHook raised
  NanLossDuringTrainingError ("NaN loss during training.") after step K and its checkpoint, and wrote no final
  one. The migrated program must raise the same error after the same step and leave the same checkpoints.
- The checkpoint steps of a whole run (RunConfig(save_checkpoints_steps=40), max_steps 230): the Estimator saved
  at steps 0, 40, ..., 200 and 230; the migrated program must save the same steps, under the same names.

Marked `tfenv` and `equivalence` (it runs TensorFlow); run it alone.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from _runs import run_program
from tfmigrate.runtime import capture

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASE = FIXTURES / "nan_checkpoint_hooks"
ERROR = "NanLossDuringTrainingError: NaN loss during training."
DIVERGED = "Model diverged with loss = NaN."


_run = run_program


def _migrated(target: str, tmp_path: Path, original: Path = CASE / "original.py") -> Path:
    from tfmigrate.engine import Options, migrate_source

    out = tmp_path / f"migrated_{target}.py"
    result = migrate_source(original.read_bytes(), str(out), Options(target=target))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out.write_bytes(result.output)
    return out


def checkpoint_steps(model_dir: Path) -> list[int]:
    """The steps the "checkpoint" state file lists (all_model_checkpoint_paths), each with its files on disk."""
    state = (model_dir / "checkpoint").read_text()
    names = re.findall(r'^all_model_checkpoint_paths: "(.*)"$', state, re.M)
    steps = []
    for name in names:
        prefix = Path(name) if Path(name).is_absolute() else model_dir / name
        assert prefix.name.startswith("model.ckpt-"), name  # the Estimator's names, which the user looks for
        assert Path(f"{prefix}.index").exists(), name
        steps.append(int(prefix.name.rsplit("-", 1)[1]))
    return steps


def steps_on_disk(model_dir: Path) -> list[int]:
    """The steps of the model.ckpt-<step> checkpoints in model_dir (the legacy boot keeps every one it writes, but
    its "checkpoint" file then lists the latest only)."""
    return sorted(int(p.name[len("model.ckpt-"):-len(".index")]) for p in model_dir.glob("model.ckpt-*.index"))


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("nan_at", [80, 97])  # on a checkpoint step (40, 80, ...) and between two
def test_a_nan_loss_raises_the_estimators_error_after_the_same_step(tmp_path, nan_at):
    _raises_after_the_same_step(CASE / "original.py", nan_at, tmp_path)


def _raises_after_the_same_step(original: Path, nan_at: int, tmp_path: Path, checkpoints: bool = True) -> None:
    """`original` (fixtures/nan_checkpoint_hooks or a variant) on TF 2.15 and migrated on TF 2.21 (Keras and custom
    loop) with NaN labels at step nan_at: the same error after the same step; with `checkpoints`, the same
    checkpoints on disk and listed."""
    run = _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--nan_at_step", str(nan_at)],
               tmp_path, tmp_path / "o_capture", tmp_path / "o_model")
    assert run.returncode != 0 and ERROR in run.stderr and DIVERGED in run.stderr, run.stderr[-3000:]
    # the boot's capture hook runs after the Estimator's NanTensorHook: steps 1..K-1 recorded, step K raised
    losses = [loss for loss, _ in capture.read_legacy(tmp_path / "o_capture")["chief0"]]
    assert len(losses) == nan_at - 1 and all(math.isfinite(x) for x in losses)
    expected = steps_on_disk(tmp_path / "o_model")
    # TF1 ran the chief's CheckpointSaverHook before the NanTensorHook: step K's checkpoint (NaN weights) is
    # written, the final one is not
    assert expected == [s for s in (0, 40, 80) if s <= nan_at]
    for target in ("keras", "ctl"):
        migrated = _migrated(target, tmp_path, original)
        model_dir = tmp_path / f"{target}_model"
        run = _run("target", [str(capture.TARGET_BOOT), str(migrated), "--nan_at_step", str(nan_at), "--model_dir",
                              str(model_dir)], tmp_path, tmp_path / f"{target}_capture")
        assert run.returncode != 0 and ERROR in run.stderr and DIVERGED in run.stderr, (target, run.stderr[-3000:])
        # the target boot records a step before the program's check sees it: steps 1..K, the K-th NaN
        losses = [loss for loss, _ in capture.read_target(tmp_path / f"{target}_capture")["chief0"]]
        assert len(losses) == nan_at, target
        assert all(math.isfinite(x) for x in losses[:-1]) and math.isnan(losses[-1]), target
        if checkpoints:
            assert steps_on_disk(model_dir) == expected and checkpoint_steps(model_dir) == expected, target


HOOK = '''    nan_guard = tf.compat.v1.train.NanTensorHook(loss)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[nan_guard])
'''
CANNED_ESTIMATOR = '''    est = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("xy", shape=(2,))],
                                       config=config, optimizer="Adagrad")
'''


def _without_hook(tmp_path: Path, canned: bool) -> Path:
    """fixtures/nan_checkpoint_hooks with no hook at all: its model_fn, or a canned LinearRegressor instead (a
    classifier's head asserted its labels >= 0 before any loss: NaN labels failed there)."""
    text = (CASE / "original.py").read_text()
    assert HOOK in text
    text = text.replace(HOOK, "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)\n")
    if canned:
        model_fn = '    est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.02})\n'
        assert model_fn in text
        text = text.replace(model_fn, CANNED_ESTIMATOR)
        text = text[:text.index("def model_fn(")] + text[text.index("def main("):]  # no model_fn left
    assert "Hook" not in text.split('"""', 2)[2]
    out = tmp_path / ("canned_original.py" if canned else "no_hook_original.py")
    out.write_text(text)
    return out


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("canned", [False, True], ids=["model_fn", "canned"])
def test_without_any_hook_a_nan_loss_raises_the_estimators_error_after_the_same_step(tmp_path, canned):
    """The Estimator added NanTensorHook(loss) to every training itself (TF 2.15 estimator.py
    _train_with_estimator_spec): a program with no hook at all raised NanLossDuringTrainingError after the step whose
    loss was NaN. Without the conversion's own check, the migrated program trained on with NaN weights. A model_fn
    Estimator (same checkpoints as the Estimator's too) and a canned one, on both targets."""
    # step 80, a checkpoint step: its checkpoint (NaN weights) is written, then the error; a canned Keras fit keeps
    # BackupAndRestore, not the Estimator's checkpoint files
    _raises_after_the_same_step(_without_hook(tmp_path, canned), 80, tmp_path, checkpoints=not canned)


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_checkpoint_steps_match_the_estimators(tmp_path):
    """save_checkpoints_steps=40, max_steps=230, keep_checkpoint_max=10: the first step, every 40, the last."""
    original = _run("legacy", [str(CASE / "original.py"), "--model_dir", str(tmp_path / "o_model")], tmp_path)
    assert original.returncode == 0, original.stderr[-3000:]
    expected = checkpoint_steps(tmp_path / "o_model")
    assert expected == [0, 40, 80, 120, 160, 200, 230]
    for target in ("keras", "ctl"):
        migrated = _migrated(target, tmp_path)
        run = _run("target", [str(migrated), "--model_dir", str(tmp_path / f"{target}_model")], tmp_path)
        assert run.returncode == 0, (target, run.stderr[-3000:])
        assert checkpoint_steps(tmp_path / f"{target}_model") == expected, target


SAVER_PROGRAM = '''\
import argparse
import os

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    x = np.random.RandomState(0).randn(64, 2).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1] * 2.0)).repeat().batch(8)


def main(args):
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=4, keep_checkpoint_max=4)
    est = tf.estimator.Estimator(model_fn, config=config)
    saver = tf.estimator.CheckpointSaverHook(os.path.join(args.model_dir, "extra"), save_steps=3,
                                             checkpoint_basename="run.ckpt")
    est.train(train_input_fn, hooks=[saver], max_steps=args.steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--model_dir", required=True)
    main(parser.parse_args())
'''


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_a_checkpoint_saver_hook_writes_the_same_steps_to_its_directory(tmp_path):
    """CheckpointSaverHook(model_dir/extra, save_steps=3, checkpoint_basename="run.ckpt"), max_steps 10,
    keep_checkpoint_max 4: TF 2.15 wrote run.ckpt-0, 3, 6, 9, 10 there, listed the newest 4, and wrote no checkpoint
    to model_dir (the Estimator adds no saver of its own next to the hook). Keras target (EstimatorCheckpoints) and
    custom loop (the trainer's own saver) alike."""
    from tfmigrate.engine import Options, migrate_source

    original = tmp_path / "saver_original.py"
    original.write_text(SAVER_PROGRAM)
    runs = [("original", "legacy", original)]
    for target in ("keras", "ctl"):
        migrated = tmp_path / f"saver_migrated_{target}.py"
        result = migrate_source(SAVER_PROGRAM.encode(), str(migrated), Options(target=target))
        assert result.status == "changed", [d.format() for d in result.diagnostics]
        migrated.write_bytes(result.output)
        runs.append((target, "target", migrated))
    steps = {}
    for side, env, program in runs:
        model_dir = tmp_path / side
        run = _run(env, [str(program), "--model_dir", str(model_dir)], tmp_path)
        assert run.returncode == 0, (side, run.stderr[-3000:])
        assert not list(model_dir.glob("*.index")) and not (model_dir / "checkpoint").exists(), side
        extra = model_dir / "extra"
        state = (extra / "checkpoint").read_text()
        listed = [int(n.rsplit("-", 1)[1]) for n in re.findall(r'^all_model_checkpoint_paths: "(.*)"$', state, re.M)]
        on_disk = sorted(int(p.name[len("run.ckpt-"):-len(".index")]) for p in extra.glob("run.ckpt-*.index"))
        steps[side] = (listed, on_disk)
    assert steps["original"] == ([3, 6, 9, 10], [3, 6, 9, 10]), steps  # the 4 newest kept, run.ckpt-0 deleted
    assert steps["keras"] == steps["original"], steps
    assert steps["ctl"] == steps["original"], steps
