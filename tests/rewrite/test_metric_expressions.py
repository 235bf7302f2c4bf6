"""TFM401 tf.compat.v1.metrics accuracy / mean_squared_error / mean_absolute_error over expressions of the labels and
the model output (casts, argmax, squeeze) → TF1Mean of the generated TF1MetricValues (rules/planners/
metric_expressions.py; fixtures/metric_cast)."""
from __future__ import annotations

import re

from _helpers import ESTIMATOR, FORWARD, TRAIN_AND_EVALUATE, blocked, converted, program

SPEC = "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def with_metrics(middle: str, **parts) -> str:
    return program(middle=middle, spec=SPEC, **parts)


def test_the_guide_shape_cast_labels_in_an_add_metrics_metric_fn():
    metric_fn = '''\
def mean_squared_error(labels, predictions):
    labels = tf.cast(labels, predictions.dtype)
    return {"mean_squared_error": tf.compat.v1.metrics.mean_squared_error(labels=labels, predictions=predictions)}
'''
    spec = ("return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, "
            "predictions=tf.math.argmax(input=logits, axis=1))")
    src = program(middle="", spec=spec, extra=metric_fn,
                  estimator=f"{ESTIMATOR}\nest = tf.estimator.add_metrics(est, mean_squared_error)",
                  drive=TRAIN_AND_EVALUATE)
    out = flat(converted(src))
    assert ('TF1Mean(lambda labels, logits: TF1MetricValues.squared_error(tf.cast(labels, '
            'tf.math.argmax(input=logits, axis=1).dtype), tf.math.argmax(input=logits, axis=1)), '
            'name="mean_squared_error")') in out
    assert "class TF1MetricValues:" in out and "class TF1Mean(keras.metrics.Metric)" in out
    assert "def squeezed(labels, predictions)" in out  # TF1's _remove_squeezable_dimensions comes along


def test_accuracy_over_squeezed_labels_and_argmax_assigned_first():
    out = flat(converted(with_metrics(
        'metrics = {"acc": tf.compat.v1.metrics.accuracy(tf.squeeze(labels, axis=1), classes)}',
        forward=f"{FORWARD}\nclasses = tf.argmax(logits, 1)")))
    assert ('TF1Mean(lambda labels, logits: TF1MetricValues.correct(tf.squeeze(labels, axis=1), '
            'tf.argmax(logits, 1)), name="acc")') in out


def test_mae_over_a_rounded_sigmoid_on_the_custom_loop():
    out = flat(converted(with_metrics(
        'metrics = {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, tf.round(tf.nn.sigmoid(logits)))}'),
        target="ctl"))
    assert ('TF1Mean(lambda labels, logits: TF1MetricValues.absolute_error(labels, tf.round(tf.nn.sigmoid(logits))), '
            'name="mae")') in out


def test_the_table_forms_are_unchanged():
    out = flat(converted(with_metrics(
        'metrics = {"acc": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1)),'
        ' "mse": tf.compat.v1.metrics.mean_squared_error(labels, logits)}')))
    assert 'keras.metrics.SparseCategoricalAccuracy(name="acc"), keras.metrics.MeanSquaredError(name="mse")' in out
    assert "TF1MetricValues" not in out


def test_an_expression_reading_the_features_blocks_at_the_metric():
    src = with_metrics('metrics = {"m": tf.compat.v1.metrics.mean_squared_error(tf.cast(labels, tf.float32), '
                       'features["x"])}')
    line = next(i for i, s in enumerate(src.splitlines(), 1) if "metrics.mean_squared_error(" in s)
    errors = [(d.line, d.code, d.message) for d in blocked(src).diagnostics if d.severity == "error"]
    assert (line, "TFM401", "metric 'm': tf.metrics.mean_squared_error's predictions `features[\"x\"]` read "
                            "`features`, and the migrated metric sees only the labels and the model output: not "
                            "converted; compute the metric from those two") in errors, errors


def test_weights_still_block():
    result = blocked(with_metrics('metrics = {"a": tf.compat.v1.metrics.accuracy(tf.squeeze(labels, 1), '
                                  'tf.argmax(logits, 1), weights=labels)}'))
    assert any(d.message == "metric weights are not converted" for d in result.diagnostics)


def test_other_metrics_over_expressions_still_block():
    result = blocked(with_metrics('metrics = {"p": tf.compat.v1.metrics.precision('
                                  'tf.cast(labels, tf.bool), logits > 0)}'))
    assert any(d.code == "TFM401" and "labels must be the model_fn's `labels`" in d.message
               for d in result.diagnostics)


def test_a_module_that_binds_tf1_metric_values_blocks():
    src = with_metrics('metrics = {"a": tf.compat.v1.metrics.accuracy(tf.squeeze(labels, 1), tf.argmax(logits, 1))}',
                       extra="TF1MetricValues = None")
    assert any("`TF1MetricValues` is taken in this module" in d.message for d in blocked(src).diagnostics)


def test_accuracy_of_rounded_logits_casts_them_to_the_labels_dtype_as_tf1():
    out = flat(converted(with_metrics('metrics = {"acc": tf.compat.v1.metrics.accuracy(labels, tf.round(logits))}')))
    assert 'TF1Mean(lambda labels, logits: TF1MetricValues.correct(labels, tf.round(logits)), name="acc")' in out
    assert "if labels.dtype != predictions.dtype: predictions = tf.cast(predictions, labels.dtype)" in out


def test_rmse_over_an_expression_is_the_root_of_tf1s_mean():
    out = flat(converted(with_metrics(
        'metrics = {"rmse": tf.compat.v1.metrics.root_mean_squared_error(tf.squeeze(labels, 1), logits)}')))
    assert ('TF1RootMean(lambda labels, logits: TF1MetricValues.squared_error(tf.squeeze(labels, 1), logits), '
            'name="rmse")') in out
    assert "class TF1RootMean(TF1Mean):" in out and "class TF1Mean(keras.metrics.Metric)" in out
    assert out.index("class TF1Mean(") < out.index("class TF1RootMean(")
