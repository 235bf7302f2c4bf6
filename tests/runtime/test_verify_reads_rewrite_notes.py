"""verify reads the rewrite's own notes on ORIGINAL (runtime/verify.py rewrite_notes, no TensorFlow): a program
whose own runs differ (numpy_input_fn(shuffle=True)) is compared statistically without --statistical; --stepwise
keeps the step-by-step comparison; a program the rewrite says draws other random numbers gets a note."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.runtime import verify

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DROPOUT = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8)).batch(4).repeat()


def model_fn(features, labels, mode, params):
    x = tf.compat.v1.nn.dropout(features["x"], keep_prob=0.8)
    logits = tf.compat.v1.layers.dense(x, 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


estimator = tf.estimator.Estimator(model_fn, model_dir="/tmp/m")
estimator.train(input_fn, max_steps=5)
'''


def test_a_shuffled_numpy_input_fn_asks_for_the_statistical_comparison():
    said = verify.rewrite_notes(FIXTURES / "numpy_shuffle" / "original.py")
    assert set(said) == {"statistical"}
    assert said["statistical"].startswith("original.py:") and "shuffle=True" in said["statistical"]


def test_a_deterministic_program_says_nothing():
    assert verify.rewrite_notes(FIXTURES / "mwms_input_context" / "original.py") == {}


def test_dropout_masks_from_another_stream_are_said(tmp_path):
    program = tmp_path / "dropout.py"
    program.write_text(DROPOUT)
    said = verify.rewrite_notes(program)
    assert set(said) == {"random"} and said["random"].startswith("dropout.py:9:")


@pytest.mark.parametrize("flag, statistical", [([], True), (["--stepwise"], False), (["--statistical"], True)])
def test_the_cli_picks_the_statistical_comparison_itself(monkeypatch, tmp_path, flag, statistical):
    seen = {}

    def fake_run(settings, say=print, live=None):
        seen["statistical"] = settings.statistical
        raise verify.VerifyError("stopped by the test")

    monkeypatch.setattr(verify, "run", fake_run)
    monkeypatch.chdir(tmp_path)
    original = FIXTURES / "numpy_shuffle" / "original.py"
    result = CliRunner().invoke(app, ["verify", str(original), str(FIXTURES / "numpy_shuffle" / "migrated.py"),
                                      "--isolated", *flag])
    assert seen == {"statistical": statistical}, result.output
    assert ("comparing statistically" in result.output) == (flag == [])


def test_a_tpu_estimator_says_which_path_verify_compares():
    # rules/planners/tpu_strategy.py: the TPU path (TPUStrategy) cannot run here; the flag's default is the CPU path
    said = verify.rewrite_notes(FIXTURES / "tpu_strategy_flag" / "original.py")
    assert set(said) == {"tpu"}, said
    assert "with the flag's default (use_tpu False) verify runs and compares the CPU path" in said["tpu"]
