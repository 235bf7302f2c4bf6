"""tf.contrib.learn.ModeKeys.TRAIN/EVAL/INFER read as tf.estimator.ModeKeys.TRAIN/EVAL/PREDICT (the same strings in
TF 1.15's sources: rules/facts/contrib_learn.py): a program spelled with them converts exactly as the same program
spelled with tf.estimator's keys, with a note; the class itself stays blocked (TFM603)."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, rewrite

BRANCHES = '''
def model_fn(features, labels, mode, params):
    training = mode == {TRAIN}
    net = tf.compat.v1.layers.dropout(features["x"], rate=0.5, training=training)
    logits = tf.compat.v1.layers.dense(net, 1)
    if mode == {INFER}:
        return tf.estimator.EstimatorSpec(mode, predictions={{"y": logits}})
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    if mode == {EVAL}:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={{
            "mae": tf.compat.v1.metrics.mean_absolute_error(labels, logits)}})
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''
INPUT = '''
def mode_input_fn(mode):
    ds = tf.data.Dataset.from_tensor_slices(({{"x": [[1.0, 2.0]]}}, [[1.0]])).batch(1)
    return ds.repeat() if mode == {TRAIN} else ds.take(1) if mode == {INFER} else ds
'''
DRIVE = '''
est.train(input_fn=lambda: mode_input_fn({TRAIN}), max_steps=10)
est.evaluate(input_fn=lambda: mode_input_fn({EVAL}))
'''
LEARN = {k: f"tf.contrib.learn.ModeKeys.{k}" for k in ("TRAIN", "EVAL", "INFER")}
CORE = {"TRAIN": "tf.estimator.ModeKeys.TRAIN", "EVAL": "tf.estimator.ModeKeys.EVAL",
        "INFER": "tf.estimator.ModeKeys.PREDICT"}


def _program(keys, header="import tensorflow as tf"):
    return program(BRANCHES.format(**keys), header=header, extra=INPUT.format(**keys), drive=DRIVE.format(**keys))


def test_contrib_learn_keys_convert_as_the_estimator_keys():
    learn, core = rewrite(_program(LEARN)), rewrite(_program(CORE))
    assert learn.status == core.status == "changed", [d.format() for d in learn.diagnostics]
    assert learn.output == core.output  # byte for byte: the keys are the same strings
    assert b"contrib" not in learn.output and b'mode_input_fn("infer")' not in learn.output
    assert b'mode == "infer"' in learn.output  # (INFER outside the model_fn: the string it always was)
    [note] = [d for d in learn.diagnostics if "contrib.learn.ModeKeys" in d.message]
    assert note.severity == "note" and note.code == "TFM001" and "INFER is PREDICT" in note.message
    first = next(i for i, line in enumerate(_program(LEARN).splitlines()) if "ModeKeys" in line)
    assert note.line == first + 1 and "here tf.estimator.ModeKeys.TRAIN" in note.message  # (one note a file)


def test_keys_of_an_imported_class_convert_and_the_import_goes():
    keys = {k: f"ModeKeys.{k}" for k in LEARN}
    text = converted(_program(keys, header="import tensorflow as tf\nfrom tensorflow.contrib.learn import ModeKeys"))
    assert "contrib" not in text and "ModeKeys.INFER" not in text


def test_the_class_itself_stays_blocked():
    src = _program(LEARN).replace("def main():\n", "def main():\n    print(tf.contrib.learn.ModeKeys)\n")
    result = blocked(src)
    error = next(d for d in result.diagnostics if d.severity == "error")
    # (in a converted file the leftover-name pass says it: TF2 has no tf.contrib)
    assert error.code == "TFM001" and error.message.startswith("tf.contrib.learn.ModeKeys has no TF2 name")
    assert error.line == src.splitlines().index("    print(tf.contrib.learn.ModeKeys)") + 1
    # in a file with no Estimator, TFM603 says what to port it to
    lone = blocked("import tensorflow as tf\n\nMODES = tf.contrib.learn.ModeKeys\n")
    [error] = [d for d in lone.diagnostics if d.severity == "error"]
    assert error.code == "TFM603" and "INFER is PREDICT" in error.message and error.line == 3


@pytest.mark.parametrize("store", ["self.mode = {key}", "flag = mode == {key}"])
def test_a_helper_file_no_estimator_reaches_gets_the_string(tmp_path, store):
    # a file with no Estimator: the contrib.learn key is the string it always was (planners/mode_keys); a helper an
    # Estimator of the run reaches stays blocked, its message spelling the key as written
    # (tests/rewrite/test_modekeys_helpers.py)
    line = store.format(key="tf.contrib.learn.ModeKeys.TRAIN")
    src = f"import tensorflow as tf\n\n\nclass Encoder:\n    def __init__(self, mode):\n        {line}\n"
    result = rewrite(src)
    assert result.status == "changed"
    assert result.output.decode() == src.replace("tf.contrib.learn.ModeKeys.TRAIN", '"train"')
    [note] = result.diagnostics
    assert note.code == "TFM601" and note.severity != "error" and note.line == 6
