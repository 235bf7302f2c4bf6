"""TFM101 layers: `tf.compat.v1.layers.*` (functional and class forms) → `keras.layers.*`.

What it converts: dense/Dense, conv2d/Conv2D, max_pooling2d/MaxPooling2D, average_pooling2d/AveragePooling2D,
flatten/Flatten, dropout/Dropout, batch_normalization/BatchNormalization. The Keras layer gets the TF1 auto-name
("dense", "dense_1", …, in call order) so a TF1 checkpoint's `dense_1/kernel` maps onto it. `tf.keras.layers` /
`tf.compat.v1.keras.layers` objects of these kinds built inside a model_fn keep their Keras arguments (initializers
as written) and the name Keras gave them in the TF1 graph. A `tf.keras.Sequential([...])` of these layers built in
a model_fn (or by a parameterless helper it calls) becomes a `keras.Sequential` attribute named "sequential",
"sequential_1", … as Keras counted in the TF1 graph, its layers named by the per-class counters, so the TF1 names
`sequential/dense/kernel` are the Keras 3 paths below the model (checked on TF 2.15 and TF 2.21). A functional
model (`inputs = tf.keras.Input(...)`, `x = tf.keras.layers.Dense(...)(inputs)`, …, `tf.keras.Model(inputs,
outputs)`) is built the same way in `__init__`: its layers' variables were `dense/kernel` in TF1 and are below it.
A list of them (`hidden = [Dense(32), Dense(10)]`, called in `for layer in hidden: x = layer(x)`) becomes a list
attribute and the same loop in `call()`.
Why exact: same formulas and defaults; default kernel initializer is glorot_uniform on both sides (the random
stream differs, which `verify` removes by copying the initial weights).
batch_normalization/BatchNormalization (tf.compat.v1) becomes a generated `TF1BatchNormalization`
(rules/emit/templates/canned_head.py.j2), not keras.layers.BatchNormalization: TF 2.15 ran the layer in the Estimator's
graph with `fused=None` meaning fused when the input is 4-D or 5-D with the channels first or last
(FusedBatchNormV3: the variance it returns for the moving average is Bessel-corrected, n/(n-1), and the average
moves as var - (var - value) * (1 - float32(momentum)) in float32); otherwise tf.nn.moments,
tf.nn.batch_normalization and decay float32(1 - momentum). Keras 3's layer averages the biased variance as
var * momentum + value * (1 - momentum): training agreed, evaluation (which reads the averages) did not
(fixtures/cnn: eval loss |Δ| 1.7e-5, now 1.9e-7). The class runs the same kernel and arithmetic; measured against
TF 2.15 over 30 updates on [16,8,8,4] (axis -1), [16,4,8,8] (axis 1), [16,5] and [16,6,3] (axis 1): moving mean,
moving variance, training and inference outputs bit-equal. Its weights are gamma, beta, moving_mean,
moving_variance below the layer name, as TF1's. `fused` is kept (a literal None/True/False); several axes block.
The averages move only when the model_fn's train op ran UPDATE_OPS (`with tf.control_dependencies(update_ops)` or
`tf.group(train_op, update_ops)`); otherwise TF1 never moved them and the layer gets `update_averages=False`.
Blocked: regularizers (TF1 ignores them unless the loss adds them; Keras always adds them), `reuse`, renorm,
virtual batches, batch norm over a list of axes or with a computed `fused`, initializers outside the table below, a `training` flag that is not `mode == TRAIN`/a literal;
functional models with several inputs or outputs or other ops on their tensors, `model.add(...)`, a Keras model built at module level (the Estimator built a new graph per
call), a tf.keras BatchNormalization in a model called in training mode (the Estimator never ran its moving-average
updates: they are not in UPDATE_OPS; Keras 3 runs them).

Example (`fixtures/regression_adagrad`):

    net = tf.compat.v1.layers.dense(x, params["hidden_units"], activation=tf.nn.relu)
    predictions = tf.compat.v1.layers.dense(net, 1)

becomes, in the generated `keras.Model`:

    self.dense = keras.layers.Dense(units=params["hidden_units"], activation=tf.nn.relu, name="dense")
    self.dense_1 = keras.layers.Dense(units=1, name="dense_1")
    ...
    net = self.dense(x)
    predictions = self.dense_1(net)
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.calls import bind, code, is_literal

CODE = "TFM101"

_DENSE = ["units", "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
          "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint", "trainable", "name"]
_CONV = ["filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", *_DENSE[1:]]
_POOL = ["pool_size", "strides", "padding", "data_format", "name"]
_BN = ["axis", "momentum", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer",
       "moving_mean_initializer", "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
       "beta_constraint", "gamma_constraint", "renorm", "renorm_clipping", "renorm_momentum", "fused", "trainable",
       "virtual_batch_size", "adjustment", "name"]


@dataclass(frozen=True)
class LayerKind:
    keras: str
    base_name: str  # TF1 default name, uniquified per graph: dense, dense_1, …
    ctor_args: list[str]  # class-form signature (functional form = inputs + these, reordered below)
    functional_args: list[str]
    takes_training: bool = False


LAYERS = {
    "dense": LayerKind("Dense", "dense", _DENSE, ["inputs", *_DENSE, "reuse"]),
    "conv2d": LayerKind("Conv2D", "conv2d", _CONV, ["inputs", *_CONV, "reuse"]),
    "max_pooling2d": LayerKind("MaxPooling2D", "max_pooling2d", _POOL, ["inputs", *_POOL]),
    "average_pooling2d": LayerKind("AveragePooling2D", "average_pooling2d", _POOL, ["inputs", *_POOL]),
    "flatten": LayerKind("Flatten", "flatten", ["data_format", "name"], ["inputs", "name", "data_format"]),
    "dropout": LayerKind("Dropout", "dropout", ["rate", "noise_shape", "seed", "name"],
                         ["inputs", "rate", "noise_shape", "seed", "training", "name"], takes_training=True),
    "batch_normalization": LayerKind("BatchNormalization", "batch_normalization", _BN,
                                     ["inputs", *_BN[:13], "training", "trainable", "name", "reuse", "renorm",
                                      "renorm_clipping", "renorm_momentum", "fused", "virtual_batch_size",
                                      "adjustment"], takes_training=True),
}
CLASSES = {kind.keras: name for name, kind in LAYERS.items()}
# keras.layers classes whose positional parameters match the TF1 class beyond this many differ (Conv2D: groups)
KERAS_POSITIONAL = {"Conv2D": 6}

_BLOCKED_ARGS = {"kernel_regularizer", "bias_regularizer", "activity_regularizer", "beta_regularizer",
                 "gamma_regularizer", "renorm_clipping", "virtual_batch_size", "adjustment"}
_DROPPED_ARGS = {"fused", "reuse", "name"}  # fused: kept for TF1BatchNormalization only; reuse checked below; name re-set
TF1_BATCH_NORM = "TF1BatchNormalization"  # the generated class (rules/emit/templates/canned_head.py.j2)

# TF1 initializer factories → Keras initializer expressions; defaults spelled out where Keras differs.
_VARIANCE_SCALING = ("keras.initializers.VarianceScaling", ["scale", "mode", "distribution", "seed"])
_INITIALIZERS = {
    "zeros_initializer": ("'zeros'", []),
    "ones_initializer": ("'ones'", []),
    "glorot_uniform_initializer": ("'glorot_uniform'", []),
    "glorot_normal_initializer": ("'glorot_normal'", []),
    "constant_initializer": ("keras.initializers.Constant", ["value"]),
    "truncated_normal_initializer": ("keras.initializers.TruncatedNormal", ["mean", "stddev", "seed"]),
    "random_normal_initializer": ("keras.initializers.RandomNormal", ["mean", "stddev", "seed"]),
    "random_uniform_initializer": ("keras.initializers.RandomUniform", ["minval", "maxval", "seed"]),
    # TF1 init_ops.VarianceScaling and Keras' share defaults and draws ('normal' = truncated, stddev / .8796...)
    "variance_scaling_initializer": _VARIANCE_SCALING,
    "variance_scaling": _VARIANCE_SCALING,
    # TF1's he_/lecun_ factories are VarianceScaling with the same scale/mode/distribution as these Keras classes
    "he_normal": ("keras.initializers.HeNormal", ["seed"]),
    "he_uniform": ("keras.initializers.HeUniform", ["seed"]),
    "lecun_normal": ("keras.initializers.LecunNormal", ["seed"]),
    "lecun_uniform": ("keras.initializers.LecunUniform", ["seed"]),
}
_INIT_DEFAULTS = {"truncated_normal_initializer": {"mean": "0.0", "stddev": "1.0"},
                  "random_normal_initializer": {"mean": "0.0", "stddev": "1.0"},
                  "random_uniform_initializer": {"minval": "0.0", "maxval": "1.0"}}


def kind_of(tf_path: str | None) -> tuple[str, LayerKind] | None:
    """('functional'|'class'|'keras', kind) for a normalised TF path: `layers.dense`, `layers.Dense`, or
    `keras.layers.Dense` (a tf.keras layer object, named by Keras' own counter in a TF1 graph)."""
    if tf_path and tf_path.startswith("keras.layers.") and tf_path[len("keras.layers."):] in CLASSES:
        return "keras", LAYERS[CLASSES[tf_path[len("keras.layers."):]]]
    if not tf_path or not tf_path.startswith("layers."):
        return None
    name = tf_path[len("layers."):]
    if name in LAYERS:
        return "functional", LAYERS[name]
    if name in CLASSES:
        return "class", LAYERS[CLASSES[name]]
    return None


def initializer(node: cst.BaseExpression, tf_path_of) -> str:
    if is_literal(node, None):
        return ""
    if isinstance(node, cst.Call):
        path = tf_path_of(node) or ""
        short = path.split(".")[-1]
        if path in (short, f"initializers.{short}", f"keras.initializers.{short}") and short in _INITIALIZERS:
            target, sig = _INITIALIZERS[short]
            args = bind(node, [*sig, "dtype"], f"tf.{path}", CODE)
            if "dtype" in args:
                raise Blocked(CODE, "initializer dtype argument is not converted", node)
            if not sig:
                return target
            values = {**_INIT_DEFAULTS.get(short, {}), **{k: code(v) for k, v in args.items()}}
            return f"{target}({', '.join(f'{k}={v}' for k, v in values.items())})"
    raise Blocked(CODE, f"initializer '{code(node)}' has no known Keras equivalent", node)


def keras_ctor(kind: LayerKind, args: dict[str, cst.BaseExpression], layer_name: str, call: cst.Call, tf_path_of,
               keras_initializers: bool = False) -> str:
    """The `keras.layers.X(...)` constructor for bound TF1 arguments (inputs/training removed).

    `keras_initializers`: the arguments come from a keras.layers call, whose initializers are Keras' already.
    """
    parts: list[str] = []
    # a tf.compat.v1 batch_normalization: TF1's arithmetic (fused kernel, moving averages), not Keras 3's
    tf1_batch_norm = kind.keras == "BatchNormalization" and not keras_initializers
    for arg, value in args.items():
        if arg in ("inputs", "training"):
            continue
        if tf1_batch_norm and arg == "fused":
            if not is_literal(value, None, True, False):
                raise Blocked(CODE, "fused must be a literal None, True or False (it decides TF1's arithmetic)", call)
            if not is_literal(value, None):
                parts.append(f"fused={code(value)}")
            continue
        if tf1_batch_norm and arg == "axis" and isinstance(value, (cst.List, cst.Tuple)):
            raise Blocked(CODE, "batch_normalization over several axes is not converted", call)
        if arg in _BLOCKED_ARGS and not is_literal(value, None):
            raise Blocked(CODE, f"{arg} is not converted: TF1 adds regularization/renorm terms only where the "
                                f"model_fn says so, Keras always does; migrate it by hand", call)
        if arg == "reuse" and not is_literal(value, None, False):
            raise Blocked(CODE, "reuse=True (variable sharing) has no Keras layer equivalent", call)
        if arg == "renorm" and not is_literal(value, False):
            raise Blocked(CODE, "batch renormalization is not converted", call)
        if arg in _DROPPED_ARGS or arg in _BLOCKED_ARGS or arg == "renorm":
            continue
        if arg.endswith("_initializer") and not keras_initializers:
            init = initializer(value, tf_path_of)
            if init:
                parts.append(f"{arg}={init}")
            continue
        parts.append(f"{arg}={code(value)}")
    parts.append(f'name="{layer_name}"')
    if tf1_batch_norm:
        return f"{TF1_BATCH_NORM}({', '.join(parts)})"
    return f"keras.layers.{kind.keras}({', '.join(parts)})"


def explicit_name(args: dict[str, cst.BaseExpression]) -> str | None:
    value = args.get("name")
    if value is None or is_literal(value, None):
        return None
    folded = _literal_text(value)
    if folded is not None:
        return folded
    raise Blocked(CODE, "a computed layer name cannot be kept stable; use a string literal", value)


def _literal_text(value) -> str | None:
    """A string written as literals: "a", "a" "b", "a" + "b" (a helper's `prefix + "_out"` once inlined)."""
    if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
        return value.evaluated_value
    if isinstance(value, cst.ConcatenatedString):
        left, right = _literal_text(value.left), _literal_text(value.right)
        return None if left is None or right is None else left + right
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        left, right = _literal_text(value.left), _literal_text(value.right)
        return None if left is None or right is None else left + right
    return None
