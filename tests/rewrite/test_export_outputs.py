"""EstimatorSpec(export_outputs=...) (rules/planners/export_outputs.py): one signature per key, with the Estimator's input and
output names; what TF1 rejected or what cannot be made exact blocks, named. The SavedModels themselves are compared
with the Estimator's in tests/fixtures_run/test_export_signatures.py (fixtures/export_outputs)."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program

SPEC = 'SPEC = {"x": tf.io.FixedLenFeature([2], tf.float32)}'
TRAIN = "est.train(input_fn=train_input_fn, max_steps=10)\n"
EXPORT = 'est.export_saved_model("/tmp/e", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC))\n'

MODEL_FN = """
def model_fn(features, labels, mode, params):
    net = tf.compat.v1.layers.dense(features["x"], 4, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 3)
    if mode == tf.estimator.ModeKeys.PREDICT:
{predict}
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
"""


def prog(predict: str, drive: str = TRAIN + EXPORT, header: str = "import tensorflow as tf") -> str:
    body = MODEL_FN.format(predict=textwrap.indent(textwrap.dedent(predict).strip("\n"), "        "))
    return program(body, drive=drive, extra=SPEC, header=header)


def model_section(out: str) -> str:
    return out[out.index("    EXPORT_OUTPUTS = "):out.index("    def export_parsing_saved_model")]


def test_three_kinds_named_in_the_predict_branch():
    out = converted(prog('''
        probabilities = tf.nn.softmax(logits)
        predictions = {"class_ids": tf.argmax(logits, 1), "probabilities": probabilities}
        head = tf.estimator.export.RegressionOutput(value=tf.reduce_max(probabilities, axis=1))
        outputs = {
            tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: tf.estimator.export.ClassificationOutput(
                scores=predictions["probabilities"], classes=tf.as_string(predictions["class_ids"])),
            "predict": tf.estimator.export.PredictOutput(predictions),
            "top": head,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions, export_outputs=outputs)
    '''))
    section = model_section(out)
    assert 'EXPORT_OUTPUTS = {"predict": "predict", "serving_default": "classify", "top": "regress"}' in section
    assert ('"serving_default": {"classes": tf.as_string(tf.argmax(logits, 1)), "scores": tf.nn.softmax(logits)},'
            in section)
    assert '"predict": {"class_ids": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)},' in section
    assert '"top": {"outputs": tf.reduce_max(tf.nn.softmax(logits), axis=1)},' in section
    assert "return self.write_signatures(" in out and "def write_export(" not in out
    # classify / regress keep their method names: saved_model.pb rewritten in the export's temporary directory
    assert "self.set_signature_methods(temp_dir, methods)" in out
    assert 'signature_def[name].method_name = f"tensorflow/serving/{method}"' in out
    assert 'est.export_parsing_saved_model("/tmp/e", SPEC)' in out
    assert "tf.estimator" not in out


@pytest.mark.parametrize("key", ['"out"', "tf.compat.v1.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY",
                                 "tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY"])
def test_a_lone_output_inline_and_its_key(key):
    out = converted(prog(f'''
        return tf.estimator.EstimatorSpec(mode, predictions={{"class_ids": tf.argmax(logits, 1)}},
                                          export_outputs={{{key}: tf.estimator.export.PredictOutput(tf.nn.softmax(logits))}})
    '''))
    name = "out" if key == '"out"' else "serving_default"
    assert f'EXPORT_OUTPUTS = {{"{name}": "predict"}}' in out
    assert f'"{name}": {{"output": tf.nn.softmax(logits)}},' in out
    # a lone key is served as serving_default too, as the Estimator did
    assert 'signatures["serving_default"] = next(iter(signatures))' in out


def test_export_outputs_of_other_modes_are_not_read():
    # TF1 read export_outputs only in PREDICT mode: the TRAIN/EVAL return's are ignored, the export is the default one
    body = MODEL_FN.format(predict='        return tf.estimator.EstimatorSpec(mode, predictions={"l": logits})').replace(
        "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)",
        "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, export_outputs={'a': None})")
    out = converted(program(body, drive=TRAIN + EXPORT, extra=SPEC))
    assert "EXPORT_OUTPUTS" not in out and "def write_saved_model(" in out and "set_signature_methods" not in out


@pytest.mark.parametrize("predict, words", [
    ('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={\n'
     '    "a": tf.estimator.export.PredictOutput(logits), "b": tf.estimator.export.PredictOutput(logits)})',
     "none is serving_default"),
    ('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={"a": None})',
     "is not a PredictOutput, ClassificationOutput or RegressionOutput"),
    ('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs=dict(a=1))',
     "must be a dict literal"),
    ('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={\n'
     '    KEY: tf.estimator.export.PredictOutput(logits)})', "is not a string literal"),
    ('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={\n'
     '    "a": tf.estimator.export.ClassificationOutput()})', "without scores or classes"),
    ('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={\n'
     '    "a": tf.estimator.export.PredictOutput({"x": features["x"]})})', "only the model output is available"),
])
def test_blocked(predict, words):
    result = blocked(prog(predict))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_custom_loop_target_and_a_raw_receiver():
    drive = TRAIN + 'est.export_saved_model("/tmp/e", tf.estimator.export.build_raw_serving_input_receiver_fn(\n' \
                    '    {"x": tf.zeros([1, 2])}))\n'
    out = converted(prog('''
        return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={
            "scores": tf.estimator.export.PredictOutput({"p": tf.nn.softmax(logits)})})
    ''', drive=drive), target="ctl")
    assert 'est.model.export_raw_saved_model("/tmp/e", {"x": tf.zeros([1, 2])})' in out
    assert 'EXPORT_OUTPUTS = {"scores": "predict"}' in out
    assert "return self.write_signatures(export_dir_base, input_signature, lambda *tensors: dict(zip(names, tensors)))" \
        in out


def test_nothing_exported_no_signature_code():
    out = converted(prog('''
        return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={
            "scores": tf.estimator.export.PredictOutput({"p": tf.nn.softmax(logits)})})
    ''', drive=TRAIN))
    assert "EXPORT_OUTPUTS" not in out and "def export_outputs" not in out and "write_signatures" not in out


def test_unconverted_export_outputs_block_a_predict():
    # predict() built the PREDICT-mode EstimatorSpec, which validated export_outputs (TF1 raised for these)
    drive = TRAIN + "preds = list(est.predict(eval_input_fn))\n"
    result = blocked(prog('return tf.estimator.EstimatorSpec(mode, predictions={"l": logits}, export_outputs={"a": None})',
                          drive=drive))
    assert any("is not a PredictOutput" in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]
