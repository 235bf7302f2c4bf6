"""Loops in the model_fn that only log (BERT's `for name in sorted(features.keys()): tf.logging.info(...)` and its
loop over `tvars` with `init_string`; rules/planners/model_fn/_logging_loops.py): dropped with a note at the loop;
a loop that also computes something, or whose names are read elsewhere, is not dropped."""
from __future__ import annotations

from _helpers import blocked, rewrite

PROGRAM = '''\
import tensorflow as tf


def model_fn(features, labels, mode, params):
    tf.compat.v1.logging.info("*** Features ***")
    for name in sorted(features.keys()):
        tf.compat.v1.logging.info("  name = %s, shape = %s" % (name, features[name].shape))
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    tvars = tf.compat.v1.trainable_variables()
    initialized_variable_names = {}
    for var in tvars:
        init_string = ""
        if var.name in initialized_variable_names:
            init_string = ", *INIT_FROM_CKPT*"
        tf.compat.v1.logging.info("  name = %s, shape = %s%s", var.name, var.shape, init_string)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[1.0]])).repeat()


est = tf.estimator.Estimator(model_fn)
est.train(input_fn, steps=3)
'''


def test_feature_and_variable_logging_loops_are_dropped_with_notes():
    result = rewrite(PROGRAM)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert "sorted(features.keys())" not in out and "init_string" not in out and "logging.info" not in out
    notes = {d.line: d.message for d in result.diagnostics if "only logs" in d.message}
    assert sorted(notes) == [6, 12]
    assert "`for name in ...` only logs" in notes[6] and "`for var in ...` only logs" in notes[12]
    assert "did not change training" in notes[12]


def test_a_loop_name_read_after_the_loop_is_not_dropped():
    src = PROGRAM.replace('    logits = tf.compat.v1.layers.dense(features["x"], 1)',
                          '    logits = tf.compat.v1.layers.dense(features[name], 1)')
    result = blocked(src)
    assert any(d.line == 6 and "the loop runs over" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_a_loop_that_also_computes_is_not_dropped():
    src = PROGRAM.replace('        tf.compat.v1.logging.info("  name = %s, shape = %s" % (name, features[name].shape))',
                          '        tf.compat.v1.logging.info("  name = %s", name)\n'
                          '        tf.compat.v1.add_to_collection("seen", features[name])')
    result = blocked(src)
    assert any(d.line == 6 for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_a_loop_over_a_call_of_the_program_is_not_dropped():
    src = PROGRAM.replace("for name in sorted(features.keys()):", "for name in sorted(pick(features)):")
    src = src.replace("def input_fn():", "def pick(features):\n    return list(features)\n\n\ndef input_fn():")
    result = blocked(src)
    assert any(d.line == 6 for d in result.diagnostics), [d.format() for d in result.diagnostics]
