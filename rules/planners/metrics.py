"""TFM401 metrics: `eval_metric_ops` of `tf.compat.v1.metrics.*` → Keras metric objects on the model output.

TF1 metrics take (labels, some function of the model output); Keras metrics see (labels, output). A metric is
converted when that function is one Keras expresses: identity, argmax (→ sparse categorical accuracy), the
`output > 0` / `sigmoid(output) > 0.5` decision (→ threshold 0 on logits), sigmoid (→ `from_logits=True`).
`metrics.mean(loss)` is dropped: Keras reports the loss itself. `metrics.mean(x)` over another value computed from
the labels and the model output (`tf.metrics.mean(tf.abs(logits - labels))`, `tf.metrics.mean(tf.nn.in_top_k(...))`)
becomes the generated `TF1Mean(lambda labels, output: x, name=key)` (templates/tf1_mean.py.j2): TF1's streaming
total and count of every element of x cast to float32, total / count (fixtures/metric_mean). Anything else blocks.
`accuracy(predictions, labels)` with the arguments swapped: TF1 cast the second argument to the first's dtype, so
the swapped call cast the labels to the prediction's dtype; argmax and `output > 0` forms convert (with a note: the
same count for integer class ids / 0/1 labels, measured on TF 2.15), the raw output blocks (dtype-dependent). Under `--target keras` the
compiled metrics end with a generated `GlobalStep` (the optimizer's iterations), so `evaluate()` reports
`global_step` as the Estimator's did (the custom loop's evaluate adds it itself). evaluate()'s `loss` is, as the
Estimator's, the mean of the per-batch losses (a metrics.mean updated once per batch): the keras target's models
get a generated `test_step` (rules/emit/templates/test_step.py.j2) that adds each batch's loss to Keras' loss tracker
once, where Keras weighs it by the batch size; the custom loop's evaluation adds each batch's mean loss. The
metrics are per example on both sides (accuracy counts examples, as TF1's did).

accuracy / mean_squared_error / mean_absolute_error whose labels or predictions are other expressions of the labels and
the model output (`tf.cast(labels, ...)`, `tf.argmax(labels, 1)`, `tf.squeeze(labels, 1)`) become TF1Mean of TF1's own
per-element value (metric_expressions.py; fixtures/metric_cast).

The metrics of a `tf.estimator.add_metrics(estimator, metric_fn)` join the model_fn's eval_metric_ops first (its key
wins, as TF1's dict update did) and convert the same way (model_fn/_added_metrics.py; fixtures/add_metrics).

Why exact: each Keras metric accumulates over the evaluation batches the statistic the TF1 streaming metric's
update op accumulated (running totals and counts), on the same values; the result is read once, after the last batch.

Example (`fixtures/regression_adagrad`, `fixtures/classifier_metrics`):

    "rmse": tf.compat.v1.metrics.root_mean_squared_error(labels, predictions)
    →  keras.metrics.RootMeanSquaredError(name="rmse")
    "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
    →  keras.metrics.SparseCategoricalAccuracy(name="accuracy")
"""
from __future__ import annotations

import json

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.calls import bind, code, is_literal, literal
from . import metric_expressions

CODE = "TFM401"

_TAIL = ["weights", "metrics_collections", "updates_collections", "name"]
_SIGNATURES = {
    "accuracy": ["labels", "predictions", *_TAIL],
    "precision": ["labels", "predictions", *_TAIL],
    "recall": ["labels", "predictions", *_TAIL],
    "auc": ["labels", "predictions", "weights", "num_thresholds", "metrics_collections", "updates_collections",
            "curve", "name", "summation_method", "thresholds"],
    "root_mean_squared_error": ["labels", "predictions", *_TAIL],
    "mean_absolute_error": ["labels", "predictions", *_TAIL],
    "mean_squared_error": ["labels", "predictions", *_TAIL],
    "mean": ["values", *_TAIL],
}
# (TF1 metric, form of its predictions argument) → Keras metric constructor (without name)
_TABLE = {
    ("accuracy", "identity"): "keras.metrics.Accuracy()",
    ("accuracy", "argmax"): "keras.metrics.SparseCategoricalAccuracy()",
    ("accuracy", "positive"): "keras.metrics.BinaryAccuracy(threshold=0.0)",
    ("precision", "positive"): "keras.metrics.Precision(thresholds=0.0)",
    ("recall", "positive"): "keras.metrics.Recall(thresholds=0.0)",
    ("root_mean_squared_error", "identity"): "keras.metrics.RootMeanSquaredError()",
    ("mean_absolute_error", "identity"): "keras.metrics.MeanAbsoluteError()",
    ("mean_squared_error", "identity"): "keras.metrics.MeanSquaredError()",
}


def metric_name(tf_path: str | None) -> str | None:
    if tf_path and tf_path.startswith("metrics.") and tf_path[len("metrics."):] in _SIGNATURES:
        return tf_path[len("metrics."):]
    return None


def _form(expr: cst.BaseExpression, output: str, tf_path_of) -> str | None:
    """How a predictions expression derives from the model output, or None if not expressible."""
    if isinstance(expr, cst.Name) and expr.value == output:
        return "identity"
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        comp = expr.comparisons[0]
        if isinstance(comp.operator, cst.GreaterThan):
            inner = _form(expr.left, output, tf_path_of)
            if inner == "identity" and is_literal(comp.comparator, 0, 0.0):
                return "positive"
            if inner == "sigmoid" and is_literal(comp.comparator, 0.5):
                return "positive"
        return None
    if not isinstance(expr, cst.Call) or not expr.args:
        return None
    path = tf_path_of(expr)
    first = expr.args[0].value
    if path in ("argmax", "math.argmax") and _form(first, output, tf_path_of) == "identity":
        rest = [a for a in expr.args[1:] if a.keyword is None or a.keyword.value in ("axis", "dimension")]
        if len(rest) == len(expr.args) - 1 and len(rest) == 1 and is_literal(rest[0].value, 1, -1):
            return "argmax"
        return None
    if path in ("sigmoid", "nn.sigmoid", "math.sigmoid") and len(expr.args) == 1:
        return "sigmoid" if _form(first, output, tf_path_of) == "identity" else None
    if path in ("cast", "to_int32", "to_int64", "to_float") and _form(first, output, tf_path_of) == "positive":
        return "positive"
    if path in ("greater", "math.greater") and len(expr.args) == 2 and is_literal(expr.args[1].value, 0, 0.0):
        return "positive" if _form(first, output, tf_path_of) == "identity" else None
    return None


def convert(key: str, call: cst.Call, name: str, labels_name: str, output: str, loss_name: str | None,
            resolve_prediction, tf_path_of, notes: list | None = None, unseen=None, written=None) -> str | None:
    """Keras metric constructor for one eval_metric_ops entry; None when the entry is dropped (mean of the loss).
    `notes` receives (code, message, node) for a conversion exact only under a stated condition; `unseen(node)` the
    first name `node` reads that is not the labels, the model output or a module-level name (None: none); `written(node)`
    the node with the model_fn's locals written out (metric_expressions.py: metrics over expressions)."""
    args = bind(call, _SIGNATURES[name], f"tf.metrics.{name}", CODE)
    if "weights" in args and not is_literal(args["weights"], None):
        raise Blocked(CODE, "metric weights are not converted", call)
    if name == "mean":
        values = args.get("values")
        if isinstance(values, cst.Name) and values.value == loss_name:
            return None
        return _mean(key, call, values, labels_name, output, unseen)
    labels = args.get("labels")
    if name == "accuracy" and _swapped(args, labels_name):
        return _swapped_accuracy(key, call, args, output, resolve_prediction, tf_path_of, notes)
    expression = name in metric_expressions.VALUES and written is not None and unseen is not None
    if not (isinstance(labels, cst.Name) and labels.value == labels_name):
        if expression:  # labels computed from the labels (a cast, an argmax): TF1's value written out
            return metric_expressions.convert(key, call, name, args, labels_name, output, written, unseen)
        raise Blocked(CODE, f"metric '{key}': labels must be the model_fn's `{labels_name}`", call)
    form = _form(resolve_prediction(args["predictions"]), output, tf_path_of)
    if name == "auc" and form in ("sigmoid", "identity"):
        extra = ["from_logits=True"] if form == "sigmoid" else []
        if "num_thresholds" in args:
            extra.append(f"num_thresholds={code(args['num_thresholds'])}")
        if "curve" in args:
            extra.append(f"curve={code(args['curve'])}")
        if "thresholds" in args or ("summation_method" in args and literal(args["summation_method"]) != "trapezoidal"):
            raise Blocked(CODE, "auc thresholds/summation_method other than the default are not converted", call)
        return f'keras.metrics.AUC({", ".join([*extra, f"name={json.dumps(key)}"])})'
    ctor = _TABLE.get((name, form or ""))
    if ctor is None and expression:
        return metric_expressions.convert(key, call, name, args, labels_name, output, written, unseen)
    if ctor is None:
        raise Blocked(CODE, f"metric '{key}': tf.metrics.{name} on `{code(args['predictions'])}` has no Keras equivalent "
                            f"on the model output `{output}`", call)
    inner = ctor[:-1]
    return f"{inner}{', ' if not inner.endswith('(') else ''}name={json.dumps(key)})"


def _mean(key: str, call: cst.Call, values, labels_name: str, output: str, unseen) -> str:
    """`tf.metrics.mean(values)` over a value computed from the labels and the model output (not the loss) → the
    generated TF1Mean (templates/tf1_mean.py.j2): TF1's running total and count of every element of the values cast
    to float32, total / count (0 when nothing was counted), on the same values the metric function computes from
    (labels, output) in each evaluation step."""
    name = unseen(values) if values is not None and unseen is not None else "?"
    if name is not None:
        raise Blocked(CODE, f"tf.metrics.mean({code(values) if values else ''}) is not converted: it reads `{name}`, "
                            "and the migrated metric sees only the labels and the model output; only the mean of the "
                            "loss or of a value computed from those is", call)
    return f"TF1Mean(lambda {labels_name}, {output}: {code(values)}, name={json.dumps(key)})"


def _swapped(args: dict, labels_name: str) -> bool:
    """`accuracy(predictions, labels)`: the model_fn's labels passed as predictions, something else as labels."""
    labels, predictions = args.get("labels"), args.get("predictions")
    return (isinstance(predictions, cst.Name) and predictions.value == labels_name
            and not (isinstance(labels, cst.Name) and labels.value == labels_name))


# form of the swapped first argument → (Keras metric, the labels TF1 counted the same as the unswapped call)
_SWAPPED = {
    "argmax": ("keras.metrics.SparseCategoricalAccuracy()",
               "cast the labels to argmax's int64: the same count for integer class ids (a float label with a "
               "fractional part was truncated by TF1 and is compared exactly now)"),
    "positive": ("keras.metrics.BinaryAccuracy(threshold=0.0)",
                 "cast the labels to the decision's dtype (a bool decision counted every non-zero label as 1): the same count "
                 "for 0/1 labels"),
}


def _swapped_accuracy(key: str, call: cst.Call, args: dict, output: str, resolve_prediction, tf_path_of,
                      notes: list | None) -> str:
    """TF 2.15's accuracy(labels, predictions) casts `predictions` to `labels`' dtype, then counts equal elements
    (metrics_impl.accuracy): symmetric only for equal dtypes. With the arguments swapped it cast the real labels to
    the dtype of the model's prediction, which equals the intended metric for the labels stated in _SWAPPED."""
    form = _form(resolve_prediction(args["labels"]), output, tf_path_of)
    where = f"metric '{key}': tf.metrics.accuracy(`{code(args['labels'])}`, `{code(args['predictions'])}`) has its " \
            "arguments swapped (the signature is accuracy(labels, predictions))"
    if form not in _SWAPPED:
        raise Blocked(CODE, f"{where}; TF1 cast the labels to the dtype of `{code(args['labels'])}` before comparing, "
                            "which counts the same as the unswapped call only when both have one dtype, and this "
                            "tool cannot see the labels' dtype: not converted. Write accuracy(labels, predictions) "
                            "if that is what was meant", call)
    ctor, why = _SWAPPED[form]
    if notes is not None:
        notes.append((CODE, f"{where}; TF1 {why}", call))
    return f"{ctor[:-1]}{', ' if not ctor.endswith('()') else ''}name={json.dumps(key)})"
