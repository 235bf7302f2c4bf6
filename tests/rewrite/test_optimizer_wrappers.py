"""The model_fn's TF1 optimizer used other than by its minimize (Horovod's example wraps it in
hvd.DistributedOptimizer): the conversion makes it the Keras model's own optimizer, so the block says what is lost."""
from __future__ import annotations

from _helpers import blocked, program

BODY = '''
def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        optimizer = WRAP(optimizer)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return tf.estimator.EstimatorSpec(mode, loss=loss)
'''


def _error(src: str) -> str:
    result = blocked(src)
    found = [d.message for d in result.diagnostics if d.severity == "error" and "optimizer `optimizer`" in d.message]
    assert found, [d.format() for d in result.diagnostics]
    return found[0]


def test_horovod_distributed_optimizer_is_named_with_what_to_do():
    src = program(BODY.replace("WRAP", "hvd.DistributedOptimizer"),
                  header="import tensorflow as tf\nimport horovod.tensorflow as hvd")
    message = _error(src)
    assert "wraps the optimizer `optimizer` in Horovod's `hvd.DistributedOptimizer`" in message
    assert "remove Horovod from the program" in message


def test_another_wrapper_says_the_optimizer_becomes_the_models_own():
    src = program(BODY.replace("WRAP", "wrap"), extra="def wrap(opt):\n    return opt")
    assert "uses the optimizer `optimizer` other than by its minimize() (`wrap(...)`)" in _error(src)
