"""Issue #28: `model_fn = lambda features, labels, mode: wren_model_fn(features, labels, mode, classes=3)` binds
arguments as functools.partial would: the finding says so (the def it calls, what it binds, what to do) instead of
"not a function tfmigrate can see"."""
from __future__ import annotations

import textwrap

from tfmigrate.engine import Options, migrate_source

PROGRAM = '''
    import tensorflow as tf


    def wren_model_fn(features, labels, mode, classes):
        logits = tf.compat.v1.layers.dense(features["x"], classes)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 6}, [0, 1, 2] * 2)).batch(3)


    model_fn = lambda features, labels, mode: wren_model_fn(features, labels, mode, classes=3)
    estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/wrens")
    estimator.train(input_fn=input_fn, steps=4)
    '''


def test_a_lambda_binding_arguments_of_a_def_is_named_as_such():
    result = migrate_source(textwrap.dedent(PROGRAM).encode(), "wrens.py", Options())
    [finding] = [d for d in result.diagnostics if d.code == "TFM601"]
    assert finding.line == 18  # the Estimator's model_fn= argument
    assert finding.message.startswith("model_fn=`model_fn` is a lambda that calls `wren_model_fn` with `classes` "
                                      "bound besides its own parameters, as functools.partial would"), finding.message
