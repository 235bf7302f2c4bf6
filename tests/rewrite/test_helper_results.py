"""A network helper whose returned tuple the model_fn unpacks, given the training flag (BERT's fine-tuning shape:
`(total_loss, per_example_loss, logits, probabilities) = create_model(..., is_training, ...)`): inlined as for
`y = helper(...)`, one assignment per value; the flag becomes Keras' `training`, the values of the labels the loss."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program, section

HELPER = '''
def classify(features, labels, is_training, num_classes):
    hidden = tf.compat.v1.layers.dense(features["x"], 8, activation=tf.nn.relu)
    hidden = tf.compat.v1.layers.dropout(hidden, rate=0.1, training=is_training)
    logits = tf.compat.v1.layers.dense(hidden, num_classes)
    probs = tf.nn.softmax(logits, axis=-1)
    one_hot = tf.one_hot(labels, depth=num_classes, dtype=tf.float32)
    per_example = -tf.reduce_sum(one_hot * tf.nn.log_softmax(logits, axis=-1), axis=-1)
    return (tf.reduce_mean(per_example), per_example, logits, probs)
'''
FLAG = "is_training = mode == tf.estimator.ModeKeys.TRAIN\n"
UNPACK = "(total_loss, per_example_loss, logits, probabilities) = classify(features, labels, is_training, 3)\n"
MODES = '''
if mode == tf.estimator.ModeKeys.TRAIN:
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(total_loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=total_loss, train_op=train_op)
if mode == tf.estimator.ModeKeys.EVAL:
    predicted = tf.argmax(logits, axis=-1, output_type=tf.int32)
    accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted)
    mean_loss = tf.compat.v1.metrics.mean(values=per_example_loss)
    return tf.estimator.EstimatorSpec(mode, loss=total_loss, eval_metric_ops={"acc": accuracy, "eval_loss": mean_loss})
return tf.estimator.EstimatorSpec(mode, predictions={"probabilities": probabilities})
'''


def body(helper: str = HELPER, unpack: str = UNPACK, rest: str = MODES) -> str:
    fn = "def model_fn(features, labels, mode, params):\n" + textwrap.indent(FLAG + unpack + textwrap.dedent(rest), "    ")
    return textwrap.dedent(helper) + "\n\n" + fn


def test_unpacked_helper_results_reach_call_loss_and_metrics_and_the_flag_is_training():
    out = converted(program(body()))
    call = section(out, "    def call", "    def test_step")
    assert "# classify(...), inlined" in call
    assert "hidden = self.dropout(hidden, training=training)" in call  # is_training → Keras' training
    # the helper's `logits` is the model_fn's own (no alias `logits = classify_logits`): the model output
    assert "logits = self.dense_1(hidden)" in call and "return logits" in call
    assert 'return {"probabilities": tf.nn.softmax(logits, axis=-1)}' in call  # the PREDICT outputs
    loss = section(out, "class ModelLoss", "def _estimator_slots")
    assert "per_example_loss = -tf.reduce_sum(one_hot * tf.nn.log_softmax(logits" in loss
    assert "total_loss = tf.reduce_mean(per_example_loss)" in loss
    metrics = section(out, "        metrics=[", "        ],")  # per_example_loss reaches its metric
    assert 'name="acc"' in metrics and "tf.one_hot(labels, depth=3" in metrics and 'name="eval_loss"' in metrics
    assert "def classify" not in out  # it went with the model_fn
    assert "is_training" not in section(out, "class Model(", "def build_model")


def test_unpacked_without_parentheses_converts_the_same():
    plain = converted(program(body(unpack=UNPACK.replace("(total_loss", "total_loss").replace("probabilities)", "probabilities"))))
    assert section(plain, "    def call", "    def test_step") == \
        section(converted(program(body())), "    def call", "    def test_step")


@pytest.mark.parametrize("ret, why", [
    ("    result = (tf.reduce_mean(per_example), per_example, logits, probs)\n    return result",
     "returns `result`: a tuple-unpacked network helper is inlined when it ends with `return` of a tuple of 4"),
    ("    return (tf.reduce_mean(per_example), logits, probs)",
     "unpacks 4 values but classify() returns `(tf.reduce_mean(per_example), logits, probs)`"),
    ("    return (tf.reduce_mean(per_example), *[per_example, logits, probs])", "unpacks 4 values"),
])
def test_a_return_whose_parts_are_not_written_out_blocks_at_the_unpacking(ret, why):
    helper = HELPER.replace("    return (tf.reduce_mean(per_example), per_example, logits, probs)", ret)
    [found] = blocked(program(body(helper))).diagnostics
    assert found.code == "TFM501" and why in found.message
    assert found.line == program(body(helper)).splitlines().index("    " + UNPACK.rstrip()) + 1


def test_a_returned_local_is_not_renamed_onto_a_target_the_helper_also_uses():
    # the helper has its own `total_loss` (dead) and returns `mean` for the model_fn's `total_loss`: `mean` keeps an
    # alias, the helper's `total_loss` is never the model_fn's; the other values take their targets' names
    helper = HELPER.replace("    return (tf.reduce_mean(per_example), per_example, logits, probs)",
                            "    total_loss = tf.reduce_mean(per_example) * 0.0\n"
                            "    mean = tf.reduce_mean(per_example)\n"
                            "    return (mean, per_example, logits, probs)")
    out = converted(program(body(helper)))
    loss = section(out, "class ModelLoss", "def _estimator_slots")
    assert "classify_mean = tf.reduce_mean(per_example_loss)\n        total_loss = classify_mean\n" in loss
    assert "* 0.0" not in out
    assert "return logits" in section(out, "    def call", "    def test_step")


def test_a_helper_returning_inside_a_variable_scope_assigns_its_values_there():
    # BERT's create_model computes its loss under `with tf.variable_scope("loss"):` and returns there
    helper = HELPER.replace("    return (tf.reduce_mean(per_example), per_example, logits, probs)",
                            '    with tf.compat.v1.variable_scope("loss"):\n'
                            "        mean = tf.reduce_mean(per_example)\n"
                            "        return (mean, per_example, logits, probs)")
    out = converted(program(body(helper)))
    assert "total_loss = tf.reduce_mean(per_example_loss)" in section(out, "class ModelLoss", "def _estimator_slots")
    assert "return logits" in section(out, "    def call", "    def test_step")
    # a return earlier in that with still blocks, saying so
    early = helper.replace("        mean = tf.reduce_mean(per_example)\n",
                           "        if num_classes > 9:\n            return None\n        mean = tf.reduce_mean(per_example)\n")
    [found] = blocked(program(body(early))).diagnostics
    assert "returns before its last statement" in found.message


def test_a_returned_local_is_not_renamed_onto_a_parameter_the_helper_still_reads():
    # `(loss, logits) = head(logits, labels)`: the helper reads its parameter `logits` after computing `scaled`;
    # renaming `mixed` to `logits` would make `mixed = scaled + logits` read itself
    helper = '''
    def tower(features):
        return tf.compat.v1.layers.dense(features["x"], 3)


    def head(logits, labels):
        scaled = tf.compat.v1.layers.dense(logits, 3)
        mixed = scaled + logits
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=mixed)
        return (tf.reduce_mean(per_example), mixed)
    '''
    rest = """
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(total_loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=total_loss, train_op=train_op)
    """
    out = converted(program(body(helper, unpack="logits = tower(features)\n(total_loss, logits) = head(logits, labels)\n",
                                 rest=rest)))
    call = section(out, "    def call", "    def test_step")
    assert "mixed = scaled + logits" in call and "return mixed" in call
