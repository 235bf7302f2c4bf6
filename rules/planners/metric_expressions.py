"""TFM401 metrics over expressions: `tf.compat.v1.metrics.{accuracy,mean_squared_error,mean_absolute_error,
root_mean_squared_error}` whose labels or predictions are computed from the labels and the model output (a cast, an
argmax, a squeeze, a round) → the generated `TF1Mean(lambda labels, output: TF1MetricValues.<value>(labels_expr, predictions_expr), name=key)`.

TF 2.15's metrics_impl computed these as a streaming `mean` of a per-element value: `_remove_squeezable_dimensions`
(a trailing size-1 dimension dropped where the ranks of labels and predictions differ by one), then
`squared_difference(labels, predictions)` / `abs(predictions - labels)` / `equal(cast(predictions, labels.dtype),
labels)` cast to float32; the mean adds every element to a total and a count. The generated `TF1MetricValues`
(templates/tf1_metric_values.py.j2) computes the same value on the same expressions in each evaluation step and TF1Mean
accumulates it as TF1 did; root_mean_squared_error is the generated `TF1RootMean`, the square root of that mean of
squared errors, as TF1's (fixtures/metric_cast, the TF guide's metrics_optimizers add_metrics example).
Only what the metrics.py table does not already map takes this path; metric weights, and expressions that read
anything but the labels, the model output and module-level names, stay blocked (TFM401).

Example:

    tf.compat.v1.metrics.mean_squared_error(labels=tf.cast(labels, tf.argmax(logits, 1).dtype),
                                            predictions=tf.argmax(logits, 1))
    →  TF1Mean(lambda labels, logits: TF1MetricValues.squared_error(tf.cast(labels, tf.argmax(logits, 1).dtype),
                                                                    tf.argmax(logits, 1)), name="mse")
"""
from __future__ import annotations

import json

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.calls import code

CODE = "TFM401"
VALUES = {"accuracy": "correct", "mean_squared_error": "squared_error", "mean_absolute_error": "absolute_error",
          "root_mean_squared_error": "squared_error"}


def convert(key: str, call: cst.Call, name: str, args: dict, labels_name: str, output: str, written, unseen) -> str:
    """The TF1Mean constructor for one metric whose arguments are expressions; `written(node)` writes the model_fn's
    locals out in terms of the labels and the output, `unseen(node)` names the first other value `node` reads."""
    labels, predictions = written(args["labels"]), written(args["predictions"])
    for what, node in (("labels", labels), ("predictions", predictions)):
        other = unseen(node)
        if other is not None:
            raise Blocked(CODE, f"metric '{key}': tf.metrics.{name}'s {what} `{code(args[what])}` read `{other}`, and "
                                "the migrated metric sees only the labels and the model output: not converted; compute "
                                "the metric from those two", call)
    metric = "TF1RootMean" if name == "root_mean_squared_error" else "TF1Mean"  # TF1: sqrt of the mse's mean
    return (f"{metric}(lambda {labels_name}, {output}: TF1MetricValues.{VALUES[name]}({code(labels)}, "
            f"{code(predictions)}), name={json.dumps(key)})")
