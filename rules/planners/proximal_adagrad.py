"""TFM301 `tf.compat.v1.train.ProximalAdagradOptimizer` → a generated `TF1ProximalAdagrad` with TF1's update.

Keras has no proximal Adagrad. TF1 ran the ApplyProximalAdagrad kernel (training_ops.cc) on dense gradients:
    accum += g * g;  lr_t = lr * rsqrt(accum);  prox = var - g * lr_t
    var = sign(prox) * max(|prox| - lr_t * l1, 0) / (1 + l2 * lr_t)    if l1 > 0
    var = prox / (1 + l2 * lr_t)                                        otherwise
The generated class runs those ops in that order (accumulator slot starts at initial_accumulator_value).
Sparse gradients (embedding tables, a linear model's categorical weights) ran SparseApplyProximalAdagrad on the
looked-up rows only, while the Keras update is dense: with l1 = l2 = 0 a zero-gradient row is left bit-identical
(prox = var, var / 1), so that is converted; with l1 or l2 the dense update would shrink untouched rows, which
rules/planners/feature_columns.check_optimizer blocks. Rows of one value (linear weights) TF1 divided by sqrt
instead of multiplying by rsqrt: last-bit note there.
TF1's checkpoint slot is `<var>/ProximalAdagrad`; restoring a TF1 checkpoint into this optimizer is not mapped
(the restore code raises "slot names ... not known").
"""
from __future__ import annotations

import re

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared

from ..emit.wrap import generated
from ..facts.calls import code, is_literal

NAME = "ProximalAdagradOptimizer"
SIGNATURE = ["learning_rate", "initial_accumulator_value", "l1_regularization_strength",
             "l2_regularization_strength", "use_locking", "name"]

TF1_PROXIMAL_ADAGRAD_CLASS = '''
class TF1ProximalAdagrad(keras.optimizers.Optimizer):
    """TF1 ProximalAdagradOptimizer's update (the ApplyProximalAdagrad kernel's ops, in its order); Keras has none."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, name="ProximalAdagrad", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        initializer = keras.initializers.Constant(self.initial_accumulator_value)
        self._accumulators = [self.add_variable_from_reference(v, "accumulator", initializer=initializer)
                              for v in var_list]

    def update_step(self, gradient, variable, learning_rate):
        accum = self._accumulators[self._get_variable_index(variable)]
        dtype = variable.dtype
        lr, l1, l2 = (tf.cast(x, dtype) for x in (learning_rate, self.l1_regularization_strength,
                                                  self.l2_regularization_strength))
        gradient = tf.convert_to_tensor(gradient)
        self.assign_add(accum, tf.square(gradient))
        rate = lr * tf.math.rsqrt(accum)
        prox = variable - gradient * rate
        if self.l1_regularization_strength > 0:
            shrunk = tf.sign(prox) * tf.maximum(tf.abs(prox) - rate * l1, tf.zeros((), dtype)) / (1 + l2 * rate)
        else:
            shrunk = prox / (1 + l2 * rate)
        self.assign(variable, shrunk)
'''


def convert(call: cst.Call, args: dict, lr: str, profile: str, rule: str):
    """The plan for a bound ProximalAdagradOptimizer call (`args` by SIGNATURE name)."""
    from .optimizers import OptimizerPlan  # the shared plan type (imported here: optimizers imports this module)

    if profile == "tf_keras":
        raise Blocked(rule, "tf.train.ProximalAdagradOptimizer needs the generated TF1ProximalAdagrad (Keras 3); "
                            "parameter-server programs run on tf_keras, where it is not available yet", call)
    for key in ("l1_regularization_strength", "l2_regularization_strength"):
        # the kernel branches on l1 > 0 in Python here: a literal keeps that branch TF1's
        if key in args and not isinstance(args[key], (cst.Integer, cst.Float)) and not is_literal(args[key], 0, 0.0):
            raise Blocked(rule, f"ProximalAdagradOptimizer({key}=`{code(args[key])[:40]}`): converted when it is a "
                                "number literal", args[key])
    values = {"learning_rate": lr, "initial_accumulator_value": "0.1"}
    values.update({k: code(args[k]) for k in SIGNATURE[1:4] if k in args})
    text = ", ".join(f"{k}={v}" for k, v in values.items())
    return OptimizerPlan(f"TF1ProximalAdagrad({text})", support_code=shared(generated(TF1_PROXIMAL_ADAGRAD_CLASS)),
                         notes=[("TFM302", "Keras has no proximal Adagrad; generated TF1ProximalAdagrad runs TF1's "
                                           "ApplyProximalAdagrad update")])


def regularized(ctor: str) -> bool:
    """Whether a TF1ProximalAdagrad constructor has a nonzero l1 or l2 strength (they shrink untouched rows); convert
    wrote them as number literals."""
    return any(float(m.group(2)) != 0.0 for m in re.finditer(
        r"(l1|l2)_regularization_strength=([-+0-9.eE]+)", ctor))
