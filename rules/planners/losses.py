"""TFM201 losses: `tf.compat.v1.losses.*` → `keras.losses.*` with the TF1 reduction kept.

TF1 losses default to SUM_BY_NONZERO_WEIGHTS: the mean over every element of the local batch. Keras'
default (sum over batch size after a mean over the last axis) is the same number for unit weights, and in a
custom loop `tf.nn.compute_average_loss` over the per-example losses reproduces the Estimator's scaling under a
strategy (per-replica mean, gradients summed over replicas = gradient of the global mean).
A hand-written loss on labels and the model output becomes a generated loss class that keeps the expression
(model_fn.py, `scalar` plans); `get_total_loss()` after one tf.losses call is that loss (regularizers are
blocked, so there are no regularization losses to add).
`softmax_cross_entropy` on `tf.one_hot(labels, depth)` (inline or through a local, with the default on/off
values 1/0, the last axis, indices the labels or the labels cast to an integer type) is sparse cross-entropy on the
labels (fixtures/cnn verifies it).
tf.keras loss objects in a model_fn (`tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True,
reduction=tf.keras.losses.Reduction.NONE)`, also inline `...(...)(labels, logits)`; CategoricalCrossentropy,
BinaryCrossentropy, MeanSquaredError, MeanAbsoluteError, Huber) are part of a hand-written loss: the generated loss
class builds them in Keras 3's spelling (reduction "none" / "sum" / "sum_over_batch_size"; AUTO was
SUM_OVER_BATCH_SIZE outside Model.compile) and runs the user's arithmetic (`tf.reduce_sum(loss) * (1. / N)`) as
written. Keras 2 recorded the reduction in the graph and the Estimator's v1 optimizer scaled the loss by 1/replicas
unless it was SUM (TF 2.15 `distribute_utils.get_loss_reduction`): the generated class scales NONE losses, and
leaves SUM losses unscaled with `reduction="sum"` in the custom loop, which sums gradients over replicas
(fixtures/keras_in_model_fn and fixtures/keras_loss_sum_mwms, 2-worker MWMS, bit-equal).
Blocked: `weights` other than 1, a non-default `reduction`, `add_loss`, several losses, other label transforms;
Keras AUTO / SUM_OVER_BATCH_SIZE reductions under a strategy (Keras 2 raised a ValueError there: the original does
not train), SUM mixed with another reduction in one loss, a reduction that varies with a run-time strategy choice.

Why exact: the same per-example losses, reduced to the same number (checked step by step by `verify` on every
loss the fixtures use).

Example (`fixtures/regression_adagrad`):

    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    →  model.compile(..., loss=keras.losses.MeanSquaredError(), ...)
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.calls import bind, code, is_literal

CODE = "TFM201"

_COMMON_TAIL = ["scope", "loss_collection", "reduction"]
# TF1 name → (signature, label arg, prediction arg, Keras class, extra Keras args from TF1 args)
_LOSSES = {
    "mean_squared_error": (["labels", "predictions", "weights", *_COMMON_TAIL], "labels", "predictions", "MeanSquaredError", {}),
    "absolute_difference": (["labels", "predictions", "weights", *_COMMON_TAIL], "labels", "predictions", "MeanAbsoluteError", {}),
    "huber_loss": (["labels", "predictions", "weights", "delta", *_COMMON_TAIL], "labels", "predictions", "Huber", {"delta": "delta"}),
    "sparse_softmax_cross_entropy": (["labels", "logits", "weights", *_COMMON_TAIL], "labels", "logits", "SparseCategoricalCrossentropy", {}),
    "softmax_cross_entropy": (["onehot_labels", "logits", "weights", "label_smoothing", *_COMMON_TAIL], "onehot_labels", "logits", "CategoricalCrossentropy", {"label_smoothing": "label_smoothing"}),
    "sigmoid_cross_entropy": (["multi_class_labels", "logits", "weights", "label_smoothing", *_COMMON_TAIL], "multi_class_labels", "logits", "BinaryCrossentropy", {"label_smoothing": "label_smoothing"}),
}
_FROM_LOGITS = {"SparseCategoricalCrossentropy", "CategoricalCrossentropy", "BinaryCrossentropy"}


@dataclass
class LossPlan:
    keras_class: str
    keras_args: list[str]  # rendered keyword arguments
    labels: cst.BaseExpression  # expression given as labels (must be the labels parameter)
    output: cst.BaseExpression  # expression given as predictions/logits (must be a forward value)
    # a generated loss class (model_fn.py) that returns the model_fn's own scalar loss, scaled per replica (or, with
    # reduction="none", the unscaled batch loss as a vector of one); keras_class is that class, keras_args its args
    scalar: bool = False
    # "sum": the loss is each replica's own value, not scaled by 1/replicas (TF1 SUM reduction); the custom loop
    # then calls it with reduction="sum" and sums gradients over replicas
    reduction: str | None = None

    def ctor(self, reduction: str | None = None) -> str:
        if self.scalar:
            args = [*self.keras_args, *([f'reduction="{reduction}"'] if reduction else [])]
            return f"{self.keras_class}({', '.join(args)})"
        args = list(self.keras_args)
        if reduction:
            args.append(f'reduction="{reduction}"')
        return f"keras.losses.{self.keras_class}({', '.join(args)})"


def is_loss(tf_path: str | None) -> bool:
    return bool(tf_path) and tf_path.startswith("losses.") and tf_path[len("losses."):] in _LOSSES


def convert(call: cst.Call, tf_path: str, labels_name: str, tf_path_of, label_value=lambda name: None) -> LossPlan:
    """`label_value(name)`: the expression a model_fn local computed from the labels (`onehot = tf.one_hot(...)`)."""
    name = tf_path[len("losses."):]
    signature, label_arg, pred_arg, keras_class, extra = _LOSSES[name]
    args = bind(call, signature, f"tf.losses.{name}", CODE)
    if label_arg not in args or pred_arg not in args:
        raise Blocked(CODE, f"tf.losses.{name} needs both {label_arg} and {pred_arg}", call)
    if "weights" in args and not is_literal(args["weights"], 1, 1.0):
        raise Blocked(CODE, "loss weights other than 1 are not converted (Keras sample weights come from the data)", call)
    if "reduction" in args and not (code(args["reduction"]).endswith("SUM_BY_NONZERO_WEIGHTS")):
        raise Blocked(CODE, f"reduction {code(args['reduction'])} is not converted; only the TF1 default keeps its meaning", call)
    labels = args[label_arg]
    if isinstance(labels, cst.Name) and labels.value != labels_name and label_value(labels.value) is not None:
        labels = label_value(labels.value)
    if name == "softmax_cross_entropy" and _is_one_hot_of(labels, labels_name, tf_path_of) and "label_smoothing" not in args:
        # one_hot(labels) with softmax cross-entropy is sparse cross-entropy on the integer labels
        keras_class, labels = "SparseCategoricalCrossentropy", cst.Name(labels_name)
    if not (isinstance(labels, cst.Name) and labels.value == labels_name):
        raise Blocked(CODE, f"the loss's {label_arg} must be the model_fn's `{labels_name}` (a transformed label is not converted)", call)
    keras_args = []
    if keras_class in _FROM_LOGITS:
        keras_args.append("from_logits=True")
    for tf_arg, keras_arg in extra.items():
        if tf_arg in args and keras_class != "SparseCategoricalCrossentropy":
            keras_args.append(f"{keras_arg}={code(args[tf_arg])}")
    return LossPlan(keras_class, keras_args, labels, args[pred_arg])


def _is_one_hot_of(node, labels_name: str, tf_path_of) -> bool:
    """`tf.one_hot(labels, depth)` with the default on/off values 1/0 (as ints or floats) on the last axis, where the
    indices are the labels or the labels cast to an integer type: softmax cross-entropy on it is sparse
    cross-entropy on the labels (Keras casts them to integers the same way)."""
    if not (isinstance(node, cst.Call) and tf_path_of(node) == "one_hot"):
        return False
    try:
        args = bind(node, ["indices", "depth", "on_value", "off_value", "axis", "dtype", "name"], "tf.one_hot", CODE)
    except Blocked:
        return False
    indices = args.get("indices")
    if isinstance(indices, cst.Call) and tf_path_of(indices) == "cast":
        cast = {(a.keyword.value if a.keyword else i): a.value for i, a in enumerate(indices.args)}
        dtype = cast.get(1, cast.get("dtype"))
        indices = cast.get(0, cast.get("x"))
        if dtype is None or tf_path_of(dtype) not in ("int32", "int64") or len(cast) != 2:
            return False
    return (
        isinstance(indices, cst.Name) and indices.value == labels_name and "depth" in args
        and all(k in ("indices", "depth", "name") or
                (k == "on_value" and is_literal(v, 1, 1.0)) or (k == "off_value" and is_literal(v, 0, 0.0)) or
                (k == "axis" and (is_literal(v, None) or code(v).replace(" ", "") == "-1")) or k == "dtype"
                for k, v in args.items())
    )


# tf.keras (Keras 2) loss classes a model_fn may build, with their Keras 2 signatures; Keras 3 has the same classes
# and arguments (plus dtype), so only the reduction is respelled
_KERAS_LOSSES = {
    "SparseCategoricalCrossentropy": ["from_logits", "ignore_class", "reduction", "name"],
    "CategoricalCrossentropy": ["from_logits", "label_smoothing", "axis", "reduction", "name"],
    "BinaryCrossentropy": ["from_logits", "label_smoothing", "axis", "reduction", "name"],
    "MeanSquaredError": ["reduction", "name"],
    "MeanAbsoluteError": ["reduction", "name"],
    "Huber": ["delta", "reduction", "name"],
}
# Keras 2 reductions → Keras 3 spelling; AUTO was SUM_OVER_BATCH_SIZE outside Model.compile
_KERAS_REDUCTIONS = {"NONE": "none", "SUM": "sum", "SUM_OVER_BATCH_SIZE": "sum_over_batch_size",
                     "AUTO": "sum_over_batch_size"}


@dataclass
class KerasLossObject:
    """A tf.keras loss object built in a model_fn (`tf.keras.losses.SparseCategoricalCrossentropy(...)`)."""
    ctor: str  # the Keras 3 constructor
    reduction: str  # none | sum | sum_over_batch_size (Keras 3 spelling)
    node: cst.Call


def keras_loss_class(tf_path: str | None) -> str | None:
    if tf_path and tf_path.startswith("keras.losses.") and tf_path[len("keras.losses."):] in _KERAS_LOSSES:
        return tf_path[len("keras.losses."):]
    return None


def keras_loss_object(call: cst.Call, tf_path: str, tf_path_of) -> KerasLossObject:
    """The Keras 3 constructor of a tf.keras loss object. Its reduction decides the TF1 arithmetic around it:
    Keras 2 recorded it in the graph, and the Estimator's v1 optimizer scaled the loss by 1/replicas unless it
    was SUM (see model_fn.py, hand-written losses)."""
    name = keras_loss_class(tf_path)
    args = bind(call, _KERAS_LOSSES[name], f"tf.keras.losses.{name}", CODE)
    reduction = "sum_over_batch_size"  # Keras 2's AUTO, outside Model.compile
    if "reduction" in args:
        value = args["reduction"]
        path = tf_path_of(value) or ""
        if path.startswith("keras.losses.Reduction.") and path.split(".")[-1] in _KERAS_REDUCTIONS:
            reduction = _KERAS_REDUCTIONS[path.split(".")[-1]]
        elif isinstance(value, cst.SimpleString) and value.evaluated_value.upper() in _KERAS_REDUCTIONS:
            reduction = _KERAS_REDUCTIONS[value.evaluated_value.upper()]
        else:
            raise Blocked(CODE, f"reduction={code(value)} is not a tf.keras.losses.Reduction the tool can read", value)
    parts = [f"{k}={code(v)}" for k, v in args.items() if k != "reduction"]
    parts.append(f'reduction="{reduction}"')
    return KerasLossObject(f"keras.losses.{name}({', '.join(parts)})", reduction, call)

