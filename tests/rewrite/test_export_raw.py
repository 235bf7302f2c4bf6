"""build_raw_serving_input_receiver_fn(features, default_batch_size) (rules/planners/receivers.py): the export takes one input
per key of `features`, with its dtype and shape after the batch dimension; the same expression is evaluated where the
export is. The SavedModels are compared with the Estimator's in tests/fixtures_run/test_export_signatures.py
(fixtures/export_raw)."""
from __future__ import annotations

import textwrap

from _helpers import blocked, converted, program, section

MODEL_FN = """
def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 3)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class_ids": tf.argmax(logits, 1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
"""
TRAIN = "est.train(input_fn=train_input_fn, max_steps=10)\n"


def test_named_receiver_with_and_without_default_batch_size():
    drive = TRAIN + textwrap.dedent("""
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 2])})
    path = est.export_saved_model("/tmp/export", raw)
    est.export_saved_model("/tmp/e8", tf.estimator.export.build_raw_serving_input_receiver_fn(
        features={"x": tf.ones([4, 2], tf.float32)}, default_batch_size=8))
    """)
    out = converted(program(MODEL_FN, drive=drive))
    assert 'path = est.export_raw_saved_model("/tmp/export", {"x": tf.zeros([1, 2])})' in out
    assert ('est.export_raw_saved_model(\n        "/tmp/e8",\n        {"x": tf.ones([4, 2], tf.float32)},\n'
            '        default_batch_size=8,\n    )') in out
    assert "raw = " not in out and "tf.estimator" not in out
    model = section(out, "class Model(", "\ndef build_model")
    assert "def export_raw_saved_model(self, export_dir_base, features, default_batch_size=None):" in model
    assert "tf.TensorSpec([default_batch_size, *features[name].shape[1:]], features[name].dtype," in model
    assert "self.predictions(self(dict(zip(names, tensors)), training=False))" in model


def test_exporter_and_restore_build_the_model_from_the_tensors():
    drive = textwrap.dedent("""
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 2])})
    est.export_saved_model("/tmp/export", raw)
    """)
    out = converted(program(MODEL_FN, drive=drive))
    assert 'est.restore_checkpoint("/tmp/tfm-test", {"x": tf.zeros([1, 2])}, required=True)' in out
    assert 'est.export_raw_saved_model("/tmp/export", {"x": tf.zeros([1, 2])})' in out


def test_placeholders_block():
    drive = TRAIN + ('est.export_saved_model("/tmp/e", tf.estimator.export.build_raw_serving_input_receiver_fn(\n'
                     '    {"x": tf.compat.v1.placeholder(tf.float32, [None, 2])}))\n')
    result = blocked(program(MODEL_FN, drive=drive))
    assert any("over placeholders" in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_features_local_to_another_function_block():
    extra = textwrap.dedent('''
    def serving():
        example = {"x": tf.zeros([1, 2])}
        return tf.estimator.export.build_raw_serving_input_receiver_fn(example)
    ''')
    result = blocked(program(MODEL_FN, drive=TRAIN + 'est.export_saved_model("/tmp/e", serving())\n', extra=extra))
    assert any("local to another function" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]
