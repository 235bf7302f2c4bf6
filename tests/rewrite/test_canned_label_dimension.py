"""Canned regressors with label_dimension > 1 (rules/planners/canned.py, rules/planners/heads.py).

Measured on TF 2.15 (tensorflow_estimator's heads, [5, 3] logits and labels, weights [5, 1]): the v2 regression
head's SUM_OVER_BATCH_SIZE loss is sum(w * (logits - labels)^2) / (batch * label_dimension), weights broadcast over
the labels; v1's SUM the plain weighted sum; average_loss, label/mean and prediction/mean average every label
(weights broadcast); PREDICT gives {"predictions": [batch, label_dimension]}; labels of rank 1 fail there.
"""
from __future__ import annotations

import textwrap

import pytest

from tests.rewrite._helpers import blocked, converted, rewrite, section

HEADER = '''\
import numpy as np
import tensorflow as tf

TARGETS = ("low", "high")


def input_fn():
    features = {"a": np.ones((8, 2), np.float32), "b": np.ones((8,), np.float32), "w": np.ones((8,), np.float32)}
    return tf.data.Dataset.from_tensor_slices((features, np.zeros((8, 2), np.float32))).batch(4)
'''


def program(estimator: str, drive: str = "est.train(input_fn, max_steps=5)\nprint(est.evaluate(input_fn))") -> str:
    body = "columns = [tf.feature_column.numeric_column(\"a\", shape=(2,)), tf.feature_column.numeric_column(\"b\")]\n"
    body += f"est = {estimator}\n{drive}\n"
    return HEADER + "\n\ndef main():\n" + textwrap.indent(body, "    ") + "\n\nmain()\n"


def test_dnn_regressor_keras_fit_reduces_every_label_as_the_head_did():
    text = converted(program("tf.estimator.DNNRegressor([4], columns, label_dimension=2, weight_column=\"w\")"))
    model = section(text, "class DNNRegressorModel(keras.Model):", "def build_dnn_regressor")
    assert 'keras.layers.Dense(2, name="logits")' in model
    # one loss per label, Keras' sum_over_batch_size then divides by batch * label_dimension (MeanSquaredError
    # would average each example's labels first)
    assert "loss=SquaredError()," in text and "keras.losses.MeanSquaredError" not in text
    assert "return tf.math.squared_difference(y_pred, tf.cast(y_true, y_pred.dtype))" in text
    # the head's metrics take [batch, label_dimension] labels
    assert 'labels = tf.reshape(labels, [-1, logits.shape[-1] if self.head == "regression" else 1])' in text


def test_label_dimension_from_a_constant_expression():
    text = converted(program("tf.estimator.DNNRegressor([4], columns, label_dimension=len(TARGETS))"))
    assert 'keras.layers.Dense(2, name="logits")' in text


def test_label_dimension_one_keeps_mean_squared_error():
    text = converted(program("tf.estimator.DNNRegressor([4], columns, label_dimension=1)"))
    assert "keras.losses.MeanSquaredError()" in text and "SquaredError(keras.losses.Loss)" not in text
    assert "labels = tf.reshape(labels, [-1, 1])" in text


def test_v1_linear_regressor_sums_every_label():
    text = converted(program("tf.compat.v1.estimator.LinearRegressor(columns, label_dimension=3)"))
    assert "units=3)" in text
    assert 'loss=SquaredError(reduction="sum"),' in text


def test_wide_and_deep_regressor_converts():
    text = converted(program("tf.estimator.DNNLinearCombinedRegressor(linear_feature_columns=[tf.feature_column."
                             "numeric_column(\"b\")], dnn_feature_columns=columns, dnn_hidden_units=[4], "
                             "label_dimension=2)"))
    assert 'keras.layers.Dense(2, name="logits")' in text and "units=2)" in text
    assert "loss=SquaredError()," in text


def test_custom_loop_averages_over_every_label_of_the_global_batch():
    src = program("tf.estimator.DNNRegressor([4], columns, label_dimension=2, config=tf.estimator.RunConfig("
                  "train_distribute=tf.distribute.MultiWorkerMirroredStrategy()))",
                  "tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=5), "
                  "tf.estimator.EvalSpec(input_fn))")
    text = converted(src)
    assert 'self.loss_fn = SquaredError(reduction="none")' in text
    # TF1: sum / (batch * label_dimension) * 1/replicas; compute_average_loss divides by the same
    assert "losses = loss_fn(labels, outputs)" in text
    assert "loss = tf.nn.compute_average_loss(losses, global_batch_size=tf.size(losses) * replicas)" in text


@pytest.mark.parametrize("value, words", [("0", "Invalid label_dimension 0"),
                                          ("FLAGS.dims", "not a value tfmigrate can read")])
def test_label_dimension_not_converted_blocks_at_its_line(value, words):
    src = program(f"tf.estimator.DNNRegressor([4], columns, label_dimension={value})").replace(
        "TARGETS = ", "FLAGS = None\nTARGETS = ")
    result = blocked(src)
    message = " ".join(d.format() for d in result.diagnostics)
    assert words in message and "TFM620" in message
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "label_dimension=" in text)
    assert any(d.line == line for d in result.diagnostics)


def test_export_and_parameter_servers_block_with_label_dimension():
    export = program("tf.estimator.DNNRegressor([4], columns, label_dimension=2)",
                     "est.train(input_fn, max_steps=5)\n"
                     "spec = tf.feature_column.make_parse_example_spec(columns)\n"
                     "est.export_saved_model(\"/tmp/x\", "
                     "tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))")
    result = blocked(export)
    assert any("export_saved_model" in d.message and "label_dimension=2" in d.message for d in result.diagnostics)
    ps = program("tf.compat.v1.estimator.DNNRegressor([4], columns, label_dimension=2)")
    result = rewrite(ps, strategy="parameter-server")
    assert result.status == "blocked"
    assert any("parameter-server" in d.message and "label_dimension=2" in d.message for d in result.diagnostics)


def test_baseline_regressor_has_a_bias_per_label():
    text = converted(program("tf.estimator.BaselineRegressor(label_dimension=3, weight_column=\"w\")"))
    assert 'BaselineBias(3, name="baseline")' in text and "loss=SquaredError()," in text
