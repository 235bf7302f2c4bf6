"""TF 1.x calls TF2 kept under the same name with other arguments (tf.nn.dropout's keep_prob,
softmax_cross_entropy_with_logits' stopped labels) are rewritten wherever they stand in a TF 1.x file — input_fn,
helper, main, model_fn — not only through a compat.v1 `tf` (rules/planners/tf1_program.py); a TF2 file's
`tf.nn.dropout(x, 0.2)` (a rate) is left as written."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, rewrite

PROGRAM = '''\
import numpy as np
{header}


def noisy(x):
    return {call}


def train_input_fn():
    x = np.random.rand(64, 2).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices(({{"x": x}}, y))
    ds = ds.map(lambda f, l: ({{"x": noisy(f["x"])}}, l))
    return ds.batch(8).repeat()


def model_fn(features, labels, mode, params):
    net = {forward}
    out = {v1}layers.dense(net, 1)
    loss = {v1}losses.mean_squared_error(labels, out)
    opt = {v1}train.AdamOptimizer(0.01)
    train_op = opt.minimize(loss, global_step={v1}train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    {v1}logging.set_verbosity({v1}logging.INFO)
    est = tf.estimator.Estimator(model_fn=model_fn)
    est.train(train_input_fn, steps=10)


if __name__ == "__main__":
    main()
'''


def tf1(call: str, forward: str = 'features["x"]', header: str = "import tensorflow as tf") -> str:
    """A TF 1.x program: plain `import tensorflow as tf`, TF1-only names (tf.logging, tf.train.AdamOptimizer)."""
    return PROGRAM.format(header=header, call=call, forward=forward, v1="tf.")


def tf2(call: str, forward: str = 'features["x"]') -> str:
    """The same program written for TF2: its TF1 names spelled tf.compat.v1.<name>."""
    return PROGRAM.format(header="import tensorflow as tf", call=call, forward=forward, v1="tf.compat.v1.")


@pytest.mark.parametrize("call, expected", [
    ("tf.nn.dropout(x, keep_prob=0.9)", "tf.nn.dropout(x, rate=1 - (0.9))"),
    ("tf.nn.dropout(x, 0.9)", "tf.nn.dropout(x, 1 - (0.9))"),
    ("tf.nn.dropout(x, keep_prob=0.5, seed=3)", "tf.nn.dropout(x, rate=1 - (0.5), seed=3)"),
    ("tf.nn.dropout(x, rate=0.1)", "tf.nn.dropout(x, rate=0.1)"),
    ("tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=x, dim=1)",
     "tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(x), logits=x, axis=1)"),
    ("tf.nn.softmax_cross_entropy_with_logits(x, x)", "tf.compat.v1.nn.softmax_cross_entropy_with_logits(x, x)"),
])
def test_tf1_file_helper_call_is_rewritten(call, expected):
    out = converted(tf1(call))
    assert f"    return {expected}\n" in out


def test_tf1_file_keeps_a_note_at_the_call():
    result = rewrite(tf1("tf.nn.dropout(x, keep_prob=0.9)"))
    notes = [d for d in result.diagnostics if "keep_prob → rate" in d.message]
    assert notes and notes[0].line == 6, [d.format() for d in result.diagnostics]


def test_tf1_file_model_fn_forward_dropout_is_tf1s():
    out = converted(tf1("x", forward='tf.nn.dropout(features["x"], 0.8)'))
    assert 'tf.nn.dropout(features["x"], 1 - (0.8))' in out
    assert 'tf.nn.dropout(features["x"], 0.8)' not in out


def test_tf1_file_bare_reference_is_tf1s_function():
    out = converted(tf1("functools.partial(tf.nn.dropout, keep_prob=0.9)(x)",
                        header="import functools\nimport tensorflow as tf"))
    assert "functools.partial(tf.compat.v1.nn.dropout, keep_prob=0.9)(x)" in out


def test_compat_v1_bound_file_bare_reference_is_tf1s_function():
    out = converted(tf1("functools.partial(tf.nn.dropout, keep_prob=0.9)(x)",
                        header="import functools\nimport tensorflow.compat.v1 as tf"))
    assert "functools.partial(tf.compat.v1.nn.dropout, keep_prob=0.9)(x)" in out


@pytest.mark.parametrize("call", ["tf.nn.dropout(x, 0.2)", "tf.nn.dropout(x, rate=0.2)",
                                  "tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=x)"])
def test_tf2_file_keeps_tf2_calls(call):
    out = converted(tf2(call))
    assert f"    return {call}\n" in out


def test_tf1_file_call_that_cannot_be_carried_blocks_at_the_call():
    result = blocked(tf1("tf.nn.dropout(*x)"))
    errors = [e for e in result.diagnostics if e.code == "TFM001"]
    assert errors and errors[0].line == 6 and "pass keep_prob by name" in errors[0].message, \
        [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("src, expected", [
    ("import tensorflow as tf\ntf.logging.info('a')\n", True),
    ("import tensorflow as tf\nopt = tf.train.AdamOptimizer(0.1).minimize(loss)\n", True),
    ("import tensorflow as tf\nnet = tf.contrib.layers.flatten(x)\n", True),
    ("from tensorflow import logging\nlogging.info('a')\n", True),
    # TF2 programs: TF1 names only through tf.compat.v1, or names TF 2.15 also answers (its lazy Keras/TensorBoard
    # modules: tf.summary.scalar, tf.losses.mean_squared_error), or a local `tf` that is not TensorFlow
    ("import tensorflow as tf\ntf.compat.v1.logging.info('a')\n", False),
    ("import tensorflow as tf\ntf.summary.scalar('a', 1.0, step=0)\nl = tf.losses.mean_squared_error(y, p)\n", False),
    ("import tensorflow as tf\ndef f(tf):\n    return tf.logging.info('a')\n", False),
    ("import tensorflow as tf\ny = tf.nn.dropout(x, 0.2)\n", False),
])
def test_tf1_file_evidence(src, expected):
    import libcst as cst

    from tfmigrate.rules.planners.tf1_program import tf1_file

    assert tf1_file(cst.parse_module(src)) is expected


def test_tf1_file_evidence_stops_at_the_first_name_before_later_functions():
    import libcst as cst

    from tfmigrate.rules.planners.tf1_program import tf1_file

    assert tf1_file(cst.parse_module("import tensorflow as tf\ntf.logging.info('a')\ndef f():\n    pass\n")) is True


@pytest.mark.parametrize("call, expected", [
    ("tf.argmax(x, dimension=1)", "tf.argmax(x, axis=1)"),
    ("tf.reduce_sum(x, keep_dims=True)", "tf.reduce_sum(x, keepdims=True)"),
    ("tf.reverse_sequence(x, [2], seq_dim=1, batch_dim=0)", "tf.reverse_sequence(x, [2], seq_axis=1, batch_axis=0)"),
])
def test_tf1_file_names_tf2_kept_with_changed_arguments(call, expected):
    assert f"    return {expected}\n" in converted(tf1(call))
    assert f"    return {call}\n" in converted(tf2(call))  # (a TF2 file: left as written, TF2 raises on it as before)
