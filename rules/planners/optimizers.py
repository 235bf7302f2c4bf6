"""TFM301 optimizers and TFM311 learning-rate decays: `tf.compat.v1.train.*` → `keras.optimizers.*`.

Hyperparameters are chosen so the Keras update equals TF1's (Keras 3 sources checked):
- GradientDescent → SGD. Momentum → SGD(momentum, nesterov) with a constant rate (same update, `v = -lr·accum`);
  under a decay schedule Keras folds the rate into the velocity, so a small `TF1Momentum` subclass with TF1's
  update (`accum = m·accum + g; var -= lr·accum`) is generated instead (TFM302 note).
- Adam → a small `TF1Adam(keras.optimizers.Adam)` with TF1's ε 1e-8 (Keras: 1e-7) and TF1's arithmetic: β^t as
  running products and float32 (1 - β), where Keras uses pow and float64 (measured: 5.8e-5 relative drift by step
  84 on the adam_mae fixture with stock Adam; TFM302 note).
- Adagrad → Adagrad(initial_accumulator_value=0.1, epsilon=0): TF1 has no ε.
- RMSProp → RMSprop(rho=decay, epsilon=1e-10) with the mean-square slot set to ones after build (TF1's init).
- Adadelta → Adadelta(epsilon=1e-8).
- Ftrl → a small `TF1Ftrl(keras.optimizers.Ftrl)` with the ApplyFtrl kernel's arithmetic (TFM302 note).
  `keras.optimizers.Ftrl` computes accum**0.5 with `pow`, which rounds differently from TF1's `sqrt` in about a
  quarter of cases; it matches TF1 only where Grappler rewrites that pow into sqrt (inside tf.function). TF1Ftrl
  uses sqrt: bit-identical to FtrlOptimizer and to tf_keras' legacy Ftrl on 30 steps × 4096 values, with and
  without l1/l2, eager and in tf.function (TF 2.15 kernels vs TF 2.21 ops).
- tf_keras legacy optimizers (what v2 canned estimators take, `legacy()` here): legacy Adagrad → a generated
  `LegacyAdagrad` (ε outside the root: `lr·g/(√acc + ε)`, where keras.optimizers.Adagrad has `lr·g/√(acc + ε)`),
  legacy SGD (with or without momentum/nesterov) → keras.optimizers.SGD, legacy Ftrl → TF1Ftrl; all measured
  bit-identical as above; legacy Adam → a generated `LegacyKerasAdam` (shared with rules/planners/keras_estimator.py: the
  ResourceApplyAdam kernel's arithmetic, float32 pow(β, iterations + 1) and float32 1 - β; amsgrad=True blocks), legacy RMSprop without momentum or
  centering → a generated `LegacyRMSprop` (ε outside the root, float32 1 - ρ; `epsilon=0` is the legacy
  constructor's 1e-07). Measured, 60 steps × 2112 values with gradients from 1e-3 to 30: both bit-identical to
  TF 2.15's legacy classes in graph mode (as the Estimator ran them) for default and custom β/ρ/ε;
  keras.optimizers.Adam differs from the first step (max rel 1.5e-3 by step 60), keras.optimizers.RMSprop too
  (6e-5). RMSprop with momentum or centered blocks: written as its ResourceApply(Centered)RMSProp kernel (ε
  inside the root; x / sqrt(y) kept from Grappler's rsqrt rewrite with divide_no_nan) or the centered legacy
  ops, bit-identical alone, but 2.1e-7 off inside a DNNRegressor's Keras fit (cause not found: fixtures pass
  150/150 bit-equal without them). Legacy Adadelta/Adamax/Nadam are blocked.
- exponential/piecewise_constant/polynomial/inverse_time/cosine decay on `global_step` → Keras schedules
  (Keras counts `optimizer.iterations`, the same step TF1 read before incrementing `global_step`).
Blocked: other optimizers, `use_locking`, decays on something other than the global step.
A training op built by a helper in another module (BERT's `create_optimizer`) blocks, named: rules/planners/optimizer_helpers.py.
Parameter-server programs run on tf_keras (Keras 2; Keras 3 has no ParameterServerStrategy support), where the
generated TF1Adam/TF1Momentum/RMSprop slot init do not apply: Adam becomes stock Adam (TFM302 note: last-bit
differences; async PS training is compared statistically), Momentum under a decay and RMSProp are blocked.

Codes: TFM301 the optimizer conversion; TFM302 a note where the Keras update differs from TF1 (TF1Adam /
TF1Momentum generated) or is unproven (Ftrl); TFM311 learning-rate decays.

Example (`fixtures/regression_adagrad`, `fixtures/momentum_decay`):

    tf.compat.v1.train.AdagradOptimizer(params["learning_rate"])
    →  keras.optimizers.Adagrad(learning_rate=params["learning_rate"], initial_accumulator_value=0.1, epsilon=0.0)
    lr = tf1.train.exponential_decay(params["learning_rate"], tf1.train.get_global_step(),
                                     decay_steps=50, decay_rate=0.9, staircase=True)
    tf1.train.MomentumOptimizer(learning_rate=lr, momentum=0.9, use_nesterov=True)
    →  TF1Momentum(learning_rate=keras.optimizers.schedules.ExponentialDecay(
           initial_learning_rate=params["learning_rate"], decay_steps=50, decay_rate=0.9, staircase=True),
           momentum=0.9, nesterov=True)                        (TFM302 note: TF1's update under a decay)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared

from ..facts.calls import bind, code, is_literal, literal
from ..emit.wrap import generated
from . import proximal_adagrad

CODE = "TFM301"
CODE_INEXACT = "TFM302"
CODE_DECAY = "TFM311"

_TAIL = ["use_locking", "name"]
OPTIMIZERS = {
    "GradientDescentOptimizer": ["learning_rate", *_TAIL],
    "MomentumOptimizer": ["learning_rate", "momentum", "use_locking", "name", "use_nesterov"],
    "AdamOptimizer": ["learning_rate", "beta1", "beta2", "epsilon", *_TAIL],
    "AdagradOptimizer": ["learning_rate", "initial_accumulator_value", *_TAIL],
    "RMSPropOptimizer": ["learning_rate", "decay", "momentum", "epsilon", "use_locking", "centered", "name"],
    "AdadeltaOptimizer": ["learning_rate", "rho", "epsilon", *_TAIL],
    "FtrlOptimizer": ["learning_rate", "learning_rate_power", "initial_accumulator_value",
                      "l1_regularization_strength", "l2_regularization_strength", "use_locking", "name",
                      "accum_name", "linear_name", "l2_shrinkage_regularization_strength", "beta"],
    proximal_adagrad.NAME: proximal_adagrad.SIGNATURE,
}
_TF1_DEFAULT_LR = {"AdamOptimizer": "0.001", "AdadeltaOptimizer": "0.001"}

_DECAYS = {
    "exponential_decay": (["learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name"], "ExponentialDecay"),
    "inverse_time_decay": (["learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name"], "InverseTimeDecay"),
    "polynomial_decay": (["learning_rate", "global_step", "decay_steps", "end_learning_rate", "power", "cycle", "name"], "PolynomialDecay"),
    "cosine_decay": (["learning_rate", "global_step", "decay_steps", "alpha", "name"], "CosineDecay"),
    "piecewise_constant": (["x", "boundaries", "values", "name"], "PiecewiseConstantDecay"),
}
_DECAY_DEFAULTS = {"polynomial_decay": {"end_learning_rate": "0.0001"}}  # Keras defaults differ

TF1_MOMENTUM_CLASS = '''
class TF1Momentum(keras.optimizers.SGD):
    """SGD with TF1 MomentumOptimizer's update: accum = m*accum + g; var -= lr*accum.

    Keras SGD folds the learning rate into its velocity, which differs from TF1 once the rate changes.
    """

    def update_step(self, gradient, variable, learning_rate):
        accum = self.momentums[self._get_variable_index(variable)]
        learning_rate = tf.cast(learning_rate, variable.dtype)
        self.assign(accum, accum * self.momentum + gradient)
        if self.nesterov:
            self.assign_sub(variable, gradient * learning_rate + accum * self.momentum * learning_rate)
        else:
            self.assign_sub(variable, accum * learning_rate)
'''

TF1_ADAM_CLASS = '''
class TF1Adam(keras.optimizers.Adam):
    """Adam with TF1 AdamOptimizer's arithmetic: beta**t kept as running products, float32 (1 - beta).

    keras.optimizers.Adam computes pow(beta, t) and (1 - beta) in float64; the last-bit differences grow past 1e-5
    on some models.
    """

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self.beta_1_power, self.beta_2_power = (
            self.add_variable((), keras.initializers.Constant(beta), aggregation="only_first_replica", name=name)
            for beta, name in ((self.beta_1, "beta_1_power"), (self.beta_2, "beta_2_power"))
        )

    def update_step(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        dtype = variable.dtype
        one, beta_1, beta_2 = tf.ones((), dtype), tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        alpha = tf.cast(learning_rate, dtype) * tf.sqrt(one - self.beta_2_power) / (one - self.beta_1_power)
        self.assign_add(m, (gradient - m) * (one - beta_1))
        self.assign_add(v, (tf.square(gradient) - v) * (one - beta_2))
        self.assign_sub(variable, (m * alpha) / (tf.sqrt(v) + tf.cast(self.epsilon, dtype)))

    def apply(self, grads, trainable_variables=None):
        super().apply(grads, trainable_variables)
        self.beta_1_power.assign(self.beta_1_power * tf.cast(self.beta_1, self.beta_1_power.dtype))
        self.beta_2_power.assign(self.beta_2_power * tf.cast(self.beta_2, self.beta_2_power.dtype))
'''


TF1_FTRL_CLASS = '''
class TF1Ftrl(keras.optimizers.Ftrl):
    """Ftrl with TF1's ApplyFtrl arithmetic (FtrlOptimizer, tf_keras legacy Ftrl): sqrt for the default
    learning_rate_power -0.5.

    keras.optimizers.Ftrl computes accum ** 0.5 with pow, which rounds differently from sqrt.
    """

    def update_step(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        accum, linear = self._accumulators[index], self._linears[index]
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        l1 = tf.cast(self.l1_regularization_strength, dtype)
        l2 = tf.cast(self.l2_regularization_strength, dtype)
        power = -self.learning_rate_power
        root = tf.sqrt if power == 0.5 else (lambda x: tf.pow(x, tf.cast(power, dtype)))
        grad = gradient
        if self.l2_shrinkage_regularization_strength:
            grad = gradient + tf.cast(2 * self.l2_shrinkage_regularization_strength, dtype) * variable
        new_accum = accum + tf.square(gradient)
        self.assign(linear, linear + (grad - (root(new_accum) - root(accum)) / lr * variable))
        shrunk = (l1 * tf.sign(linear) - linear) / (root(new_accum) / lr + 2 * l2)
        self.assign(variable, tf.where(tf.abs(linear) > l1, shrunk, tf.zeros_like(variable)))
        self.assign(accum, new_accum)
'''

LEGACY_ADAGRAD_CLASS = '''
class LegacyAdagrad(keras.optimizers.Adagrad):
    """Adagrad with tf_keras' legacy update (tf.keras.optimizers.legacy.Adagrad, what v2 Estimators ran):
    var -= lr * g / (sqrt(accumulator) + epsilon).

    keras.optimizers.Adagrad puts epsilon inside the square root.
    """

    def update_step(self, gradient, variable, learning_rate):
        accumulator = self._accumulators[self._get_variable_index(variable)]
        learning_rate = tf.cast(learning_rate, variable.dtype)
        epsilon = tf.cast(self.epsilon, variable.dtype)
        self.assign_add(accumulator, tf.square(gradient))
        self.assign_sub(variable, gradient * learning_rate / (tf.sqrt(accumulator) + epsilon))
'''

LEGACY_ADAM_CLASS = '''
class LegacyKerasAdam(keras.optimizers.Adam):
    """Adam with tf_keras' legacy update (what model_to_estimator and v2 canned Estimators trained with): beta**t
    by pow in float32 and float32 (1 - beta), as fed to TF1's ApplyAdam kernel.

    keras.optimizers.Adam computes (1 - beta) in float64, which rounds differently in float32.
    """

    def update_step(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        dtype = variable.dtype
        one, beta_1, beta_2 = tf.ones((), dtype), tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        step = tf.cast(self.iterations + 1, dtype)
        alpha = tf.cast(learning_rate, dtype) * tf.sqrt(one - tf.pow(beta_2, step)) / (one - tf.pow(beta_1, step))
        self.assign_add(m, (gradient - m) * (one - beta_1))
        self.assign_add(v, (tf.square(gradient) - v) * (one - beta_2))
        self.assign_sub(variable, (m * alpha) / (tf.sqrt(v) + tf.cast(self.epsilon, dtype)))
'''

LEGACY_RMSPROP_CLASS = '''
class LegacyRMSprop(keras.optimizers.RMSprop):
    """RMSprop with tf_keras' legacy update, without momentum or centering (tf.keras.optimizers.legacy.RMSprop,
    what v2 Estimators ran): ms = rho * ms + (1 - rho) * g**2; var -= lr * g / (sqrt(ms) + epsilon).

    keras.optimizers.RMSprop puts epsilon inside the root, and takes (1 - rho) in float64.
    """

    def update_step(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        ms = self._velocities[index]
        dtype = variable.dtype
        lr, rho, epsilon = (tf.cast(x, dtype) for x in (learning_rate, self.rho, self.epsilon))
        one = tf.ones((), dtype)
        self.assign(ms, rho * ms + (one - rho) * tf.square(gradient))
        self.assign(variable, variable - lr * gradient / (tf.sqrt(ms) + epsilon))
'''

_FTRL_NOTE = (CODE_INEXACT, "keras.optimizers.Ftrl rounds accum ** 0.5 differently from TF1's sqrt; generated "
                            "TF1Ftrl keeps TF1's arithmetic")

# tf_keras legacy optimizers (tf.keras.optimizers.legacy.*, the only optimizer objects v2 canned estimators take):
# signature, defaults of the arguments the Keras 3 constructor needs spelled out
LEGACY = {
    "Adagrad": (["learning_rate", "initial_accumulator_value", "epsilon", "name"],
                {"learning_rate": "0.001", "initial_accumulator_value": "0.1", "epsilon": "1e-07"}),
    "SGD": (["learning_rate", "momentum", "nesterov", "name"], {"learning_rate": "0.01"}),
    "Ftrl": (["learning_rate", "learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
              "l2_regularization_strength", "name", "l2_shrinkage_regularization_strength", "beta"],
             {"learning_rate": "0.001"}),
    "Adam": (["learning_rate", "beta_1", "beta_2", "epsilon", "amsgrad", "name"],
             {"learning_rate": "0.001", "epsilon": "1e-07"}),
    "RMSprop": (["learning_rate", "rho", "momentum", "epsilon", "centered", "name"],
                {"learning_rate": "0.001", "epsilon": "1e-07"}),
}


@dataclass
class OptimizerPlan:
    ctor: str  # Keras constructor expression
    after_build: list[str] = field(default_factory=list)  # statements run once variables exist (uses `optimizer`)
    support_code: str = ""  # module-level class the constructor needs
    notes: list[tuple[str, str]] = field(default_factory=list)
    legacy: bool = False  # a tf_keras legacy optimizer (OptimizerV2): slots are made by _create_all_weights, no build


def optimizer_name(tf_path: str | None) -> str | None:
    if tf_path and tf_path.startswith("train.") and tf_path[len("train."):] in OPTIMIZERS:
        return tf_path[len("train."):]
    return None


def decay_name(tf_path: str | None) -> str | None:
    if tf_path and tf_path.startswith("train.") and tf_path[len("train."):] in _DECAYS:
        return tf_path[len("train."):]
    return None


def convert_decay(call: cst.Call, name: str, is_global_step) -> str:
    signature, keras_class = _DECAYS[name]
    args = bind(call, signature, f"tf.train.{name}", CODE_DECAY)
    step_arg = "x" if name == "piecewise_constant" else "global_step"
    if step_arg not in args or not is_global_step(args[step_arg]):
        raise Blocked(CODE_DECAY, f"tf.train.{name} is converted only when it decays on the global step", call)
    if name == "polynomial_decay" and "cycle" in args and not is_literal(args["cycle"], False):
        raise Blocked(CODE_DECAY, "polynomial_decay(cycle=True) is not converted", call)
    values = {**_DECAY_DEFAULTS.get(name, {})}
    for key, value in args.items():
        if key not in (step_arg, "name"):
            values["initial_learning_rate" if key == "learning_rate" else key] = code(value)
    return f"keras.optimizers.schedules.{keras_class}({', '.join(f'{k}={v}' for k, v in values.items())})"


def convert(call: cst.Call, name: str, learning_rate: str | None, schedule_used: bool,
            profile: str = "keras3") -> OptimizerPlan:
    """`learning_rate` overrides the TF1 expression when it was a decay converted to a Keras schedule.

    `profile` is the Keras the program will run on: "keras3", or "tf_keras" (parameter-server programs).
    """
    args = bind(call, OPTIMIZERS[name], f"tf.train.{name}", CODE)
    if profile == "tf_keras":
        if name == "RMSPropOptimizer" or (name == "MomentumOptimizer" and schedule_used):
            raise Blocked(CODE, f"tf.train.{name} needs a TF1-exact Keras 3 optimizer tfmigrate generates; "
                                "parameter-server programs run on tf_keras, where it is not available yet", call)
    if "use_locking" in args and not is_literal(args["use_locking"], False):
        raise Blocked(CODE, "use_locking=True has no Keras equivalent", call)
    lr = learning_rate or (code(args["learning_rate"]) if "learning_rate" in args else _TF1_DEFAULT_LR.get(name))
    if lr is None:
        raise Blocked(CODE, f"tf.train.{name} needs a learning rate", call)
    get = lambda key, default: code(args[key]) if key in args else default  # noqa: E731
    if name == "GradientDescentOptimizer":
        return OptimizerPlan(f"keras.optimizers.SGD(learning_rate={lr})")
    if name == "MomentumOptimizer":
        if "momentum" not in args:
            raise Blocked(CODE, "MomentumOptimizer needs momentum", call)
        momentum = _float_code(args["momentum"])  # Keras 3 SGD refuses a non-float momentum
        nesterov = get("use_nesterov", "False")
        if schedule_used:
            return OptimizerPlan(
                f"TF1Momentum(learning_rate={lr}, momentum={momentum}, nesterov={nesterov})",
                support_code=shared(generated(TF1_MOMENTUM_CLASS)),
                notes=[(CODE_INEXACT, "Keras SGD momentum differs from TF1 under a decaying learning rate; "
                                      "generated TF1Momentum keeps TF1's update")],
            )
        return OptimizerPlan(f"keras.optimizers.SGD(learning_rate={lr}, momentum={momentum}, nesterov={nesterov})")
    if name == "AdamOptimizer" and profile == "tf_keras":
        return OptimizerPlan(
            f"keras.optimizers.Adam(learning_rate={lr}, beta_1={get('beta1', '0.9')}, beta_2={get('beta2', '0.999')}, "
            f"epsilon={get('epsilon', '1e-08')})",
            notes=[(CODE_INEXACT, "tf_keras Adam rounds its bias correction differently from TF1 (last bits); "
                                  "parameter-server training is compared statistically")],
        )
    if name == "AdamOptimizer":
        return OptimizerPlan(
            f"TF1Adam(learning_rate={lr}, beta_1={get('beta1', '0.9')}, beta_2={get('beta2', '0.999')}, "
            f"epsilon={get('epsilon', '1e-08')})",
            support_code=shared(generated(TF1_ADAM_CLASS)),
            notes=[(CODE_INEXACT, "keras.optimizers.Adam rounds its bias correction differently from TF1; "
                                  "generated TF1Adam keeps TF1's arithmetic")],
        )
    if name == "AdagradOptimizer":
        return OptimizerPlan(
            f"keras.optimizers.Adagrad(learning_rate={lr}, "
            f"initial_accumulator_value={get('initial_accumulator_value', '0.1')}, epsilon=0.0)"
        )
    if name == "RMSPropOptimizer":
        return OptimizerPlan(
            f"keras.optimizers.RMSprop(learning_rate={lr}, rho={get('decay', '0.9')}, momentum={get('momentum', '0.0')}, "
            f"epsilon={get('epsilon', '1e-10')}, centered={get('centered', 'False')})",
            after_build=[generated(line) for line in (
                "# TF1 RMSProp starts its mean-square accumulator at ones; Keras starts at zeros.",
                "for slot in optimizer.variables:",
                '    if slot.name.endswith("_velocity"):',
                "        slot.assign(tf.ones_like(slot))",
            )],
        )
    if name == proximal_adagrad.NAME:
        return proximal_adagrad.convert(call, args, lr, profile, CODE)
    if name == "AdadeltaOptimizer":
        return OptimizerPlan(
            f"keras.optimizers.Adadelta(learning_rate={lr}, rho={get('rho', '0.95')}, epsilon={get('epsilon', '1e-08')})"
        )
    # Ftrl
    for unsupported in ("accum_name", "linear_name"):
        args.pop(unsupported, None)
    if "beta" in args and not is_literal(args["beta"], None, 0, 0.0):
        raise Blocked(CODE, "FtrlOptimizer(beta=...) is not converted (only beta 0)", call)
    args.pop("beta", None)
    keys = ["learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
            "l2_regularization_strength", "l2_shrinkage_regularization_strength"]
    extra = "".join(f", {k}={code(args[k])}" for k in keys if k in args)
    if profile == "tf_keras":
        return OptimizerPlan(
            f"keras.optimizers.Ftrl(learning_rate={lr}{extra})",
            notes=[(CODE_INEXACT, "tf_keras Ftrl: formula matches TF1; parameter-server training is compared "
                                  "statistically")],
        )
    return OptimizerPlan(f"TF1Ftrl(learning_rate={lr}{extra})", support_code=shared(generated(TF1_FTRL_CLASS)),
                         notes=[_FTRL_NOTE])


def legacy(call: cst.Call, name: str, rule: str = CODE, profile: str = "keras3") -> OptimizerPlan:
    """A tf_keras legacy optimizer (`tf.keras.optimizers.legacy.<name>(...)`) → the Keras 3 optimizer that runs its
    update bit for bit (see the module docstring); others raise Blocked. On tf_keras (`profile`, parameter-server
    programs) the same legacy class itself, its defaults spelled out."""
    if name not in LEGACY:
        raise Blocked(rule, f"tf.keras.optimizers.legacy.{name} is not converted: no Keras 3 optimizer reproduces "
                            "its update exactly yet (Adagrad, Adam, RMSprop, SGD and Ftrl are converted)", call)
    signature, defaults = LEGACY[name]
    args = bind(call, signature, f"tf.keras.optimizers.legacy.{name}", rule)
    args.pop("name", None)
    values = {**defaults, **{k: code(v) for k, v in args.items()}}
    if profile == "tf_keras":
        return OptimizerPlan(f"keras.optimizers.legacy.{name}({_kwargs(values, signature)})", legacy=True)
    if name == "Adagrad":
        return OptimizerPlan(f"LegacyAdagrad({_kwargs(values, signature)})", support_code=shared(generated(LEGACY_ADAGRAD_CLASS)),
                             notes=[(CODE_INEXACT, "keras.optimizers.Adagrad puts epsilon inside the square root; "
                                                   "generated LegacyAdagrad keeps tf_keras' legacy update")])
    if name == "SGD":
        if "momentum" in args:
            values["momentum"] = _float_code(args["momentum"])  # Keras 3 SGD refuses a non-float momentum
        return OptimizerPlan(f"keras.optimizers.SGD({_kwargs(values, signature)})")
    if name in ("Adam", "RMSprop"):
        if "epsilon" in args:  # the legacy constructor's `epsilon or backend epsilon`: 0 trains with 1e-07
            eps = args["epsilon"]
            values["epsilon"] = "1e-07" if is_literal(eps, 0, 0.0, None) else \
                code(eps) if isinstance(eps, (cst.Float, cst.Integer)) else f"{code(eps)} or 1e-07"
        if name == "Adam" and "amsgrad" in args and not is_literal(args["amsgrad"], False):
            raise Blocked(rule, "tf.keras.optimizers.legacy.Adam(amsgrad=True) is not converted yet (its "
                                "ResourceApplyAdamWithAmsgrad update is not generated); use amsgrad=False", call)
        values.pop("amsgrad", None)
        for key in ("momentum", "centered") if name == "RMSprop" else ():
            # bit-equal to the legacy update alone, but 2.1e-7 off inside a DNNRegressor's Keras fit (cause not found)
            if key in args and not is_literal(args[key], 0, 0.0, False):
                raise Blocked(rule, f"tf.keras.optimizers.legacy.RMSprop({key}=...) is not converted yet: its update "
                                    "is reproduced bit for bit in isolation but not yet inside Keras fit (measured max "
                                    "rel 2.1e-7 on a DNNRegressor); RMSprop without momentum or centering is converted",
                              args[key])
            values.pop(key, None)
        cls = {"Adam": ("LegacyKerasAdam", LEGACY_ADAM_CLASS), "RMSprop": ("LegacyRMSprop", LEGACY_RMSPROP_CLASS)}[name]
        return OptimizerPlan(f"{cls[0]}({_kwargs(values, signature)})", support_code=shared(generated(cls[1])),
                             notes=[(CODE_INEXACT, f"keras.optimizers.{name} rounds its update differently from "
                                                   f"tf_keras' legacy {name}; generated {cls[0]} keeps the legacy "
                                                   "arithmetic")])
    if "beta" in args and not is_literal(args["beta"], 0, 0.0):
        raise Blocked(rule, "tf.keras.optimizers.legacy.Ftrl(beta=...) is not converted (only beta 0)", call)
    values.pop("beta", None)
    return OptimizerPlan(f"TF1Ftrl({_kwargs(values, signature)})", support_code=shared(generated(TF1_FTRL_CLASS)),
                         notes=[_FTRL_NOTE])


def _kwargs(values: dict[str, str], order: list[str]) -> str:
    return ", ".join(f"{k}={values[k]}" for k in order if k in values)


def _float_code(node: cst.BaseExpression) -> str:
    try:
        return repr(float(literal(node)))
    except (ValueError, TypeError):
        return f"float({code(node)})"
