"""TFM401 tf.compat.v1.metrics.mean over a value the model_fn computes from the labels and the model output → the
generated TF1Mean metric (rules/planners/metrics.py; fixtures/metric_mean)."""
from __future__ import annotations

import re

from _helpers import blocked, converted, program

SPEC = "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)"


def with_metrics(middle: str, **parts) -> str:
    return program(middle=middle, spec=SPEC, **parts)


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_mean_of_a_value_computed_from_labels_and_output_becomes_tf1_mean():
    out = flat(converted(with_metrics('gap = tf.abs(logits - labels)\n'
                                      'metrics = {"gap": tf.compat.v1.metrics.mean(gap)}')))
    assert 'TF1Mean(lambda labels, logits: tf.abs(logits - labels), name="gap")' in out
    assert "class TF1Mean(keras.metrics.Metric)" in out
    assert "metrics.mean(gap)" not in out and "gap = " not in out


def test_mean_of_a_boolean_of_the_output_inline_converts_on_the_custom_loop_too():
    out = flat(converted(with_metrics('metrics = {"up": tf.compat.v1.metrics.mean(values=logits > 0.5)}'),
                         target="ctl"))
    assert 'TF1Mean(lambda labels, logits: logits > 0.5, name="up")' in out


def test_mean_of_a_value_the_metric_cannot_see_blocks_at_the_metric():
    src = with_metrics('metrics = {"x": tf.compat.v1.metrics.mean(features["x"])}')
    result = blocked(src)
    line = next(i for i, s in enumerate(src.splitlines(), 1) if "metrics.mean(" in s)
    errors = [(d.line, d.message) for d in result.diagnostics if d.severity == "error"]
    assert (line, 'tf.metrics.mean(features["x"]) is not converted: it reads `features`, and the migrated metric '
                  "sees only the labels and the model output; only the mean of the loss or of a value computed from "
                  "those is") in errors, errors


def test_mean_with_weights_still_blocks():
    result = blocked(with_metrics('metrics = {"w": tf.compat.v1.metrics.mean(logits, weights=labels)}'))
    assert any(d.message == "metric weights are not converted" for d in result.diagnostics)


def test_a_module_that_binds_tf1_mean_blocks():
    src = with_metrics('metrics = {"up": tf.compat.v1.metrics.mean(logits > 0.5)}', extra="TF1Mean = None")
    result = blocked(src)
    assert any("`TF1Mean` is taken in this module" in d.message for d in result.diagnostics)
