"""A canned estimator's loss reduction and optimizers (strings, objects, callables, the wide & deep pair) →
the optimizer plans (rules/planners/optimizers.py) TF1's numerics need."""
from __future__ import annotations

import math

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared
from tfmigrate.model import FileIndex, Value, code

from .. import feature_columns as fcols
from .. import optimizers, tf1_program
from ...emit.wrap import generated
from ...facts.calls import is_literal, literal
from ._model import CODE


_V1_TRAIN = {"Adagrad": "AdagradOptimizer", "Adam": "AdamOptimizer", "Ftrl": "FtrlOptimizer",
             "RMSProp": "RMSPropOptimizer", "SGD": "GradientDescentOptimizer"}


_V2_LEGACY = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl", "RMSProp": "RMSprop", "SGD": "SGD"}


_RATE = {"dnn": "0.05", "linear": "0.2", "baseline": "0.3"}  # the learning rate canned estimators give string optimizers (v1; v2 linear)


class OptimizersMixin:
    """Reader: the loss reduction and the optimizers."""

    # ---- head and optimizer ----------------------------------------------------------------------------------------
    def reduction(self, value: Value | None, v1: bool) -> str:
        if value is None:
            return "sum" if v1 else "sum_over_batch_size"
        r = self.resolve(value, "loss_reduction", CODE)
        path = self.analysis.tf(r.node, r.value.file) if isinstance(r.node, cst.Attribute) else None
        word = path.split(".")[-1] if path and ".Reduction." in f".{path}" else None
        if word is None:
            try:
                word = {"sum": "SUM", "weighted_sum": "SUM", "sum_over_batch_size": "SUM_OVER_BATCH_SIZE",
                        "weighted_sum_over_batch_size": "SUM_OVER_BATCH_SIZE"}.get(literal(r.node))
            except ValueError:
                word = None
        if word == "SUM":
            return "sum"
        if word == "SUM_OVER_BATCH_SIZE":
            return "sum_over_batch_size"
        raise Blocked(CODE, f"loss_reduction=`{code(value.node)[:60]}` is not converted (SUM and "
                            "SUM_OVER_BATCH_SIZE are)", value.node)

    def combined_optimizer(self, args, v1: bool, dnn_columns, linear_columns, unread: dict | None = None):
        """DNNLinearCombined: the DNN optimizer (strings at 0.001) on the DNN's variables and the linear one (strings
        at min(0.005, 1/sqrt(linear columns))) on the linear model's, each its own object, as TF1 built them.
        `unread`: a column list was blocked; by part, whether its list was given: each given part's optimizer is
        checked for its own blockers only (its rate and column checks read the lists), and nothing is planned."""
        plans, errors = [], []
        runtime = any(c.runtime for c in linear_columns)
        for part, columns, default, rate in (
                ("dnn", dnn_columns, "Adagrad", "0.001"),
                ("linear", linear_columns, "Ftrl", repr(min(0.005, 1.0 / math.sqrt(max(len(linear_columns), 1)))))):
            if not (columns if unread is None else unread[part]):
                continue
            value = args.get(f"{part}_optimizer")
            at = value.node if value is not None else self.call
            try:
                if unread is None and part == "linear" and runtime and (
                        value is None or isinstance(self.resolve(value, part, CODE).node, cst.SimpleString)):
                    raise Blocked(CODE, "linear_optimizer: its rate min(0.005, 1/sqrt(number of linear columns)) "
                                        "depends on columns known only at run time; pass the optimizer object", at)
                plan = self.optimizer(value, part, v1, len(columns) if unread is None else None, rate=rate,
                                      default=default)
                if unread is None:
                    self.column_notes.extend(fcols.check_optimizer(plan.ctor, part, columns, at))
                # the DNN's legacy Adam counts the global step (its `iterations`, WideDeepSteps keeps it); the
                # linear one's would count its own, whose checkpoint name is not mapped yet
                legacy = ("LegacyKerasAdam(", "LegacyRMSprop(") if part == "dnn" else ()
                if plan.after_build or plan.ctor.startswith(("TF1Adam(", "TF1Momentum(", "LegacyKerasAdam(",
                                                             "LegacyRMSprop(")) and not plan.ctor.startswith(legacy):
                    raise Blocked(CODE, f"{part}_optimizer: in a DNNLinearCombined estimator only optimizers without "
                                        "per-step state beyond their slots (Adagrad, Ftrl, SGD; and the legacy Adam and "
                                        "RMSprop as dnn_optimizer) are converted yet", at)
                plans.append(plan)
            except Blocked as blocked:  # each optimizer's blocker, at its place
                errors.append(blocked)
        if errors:
            raise Blocked.many(errors)
        if unread is not None:
            return None, []
        support = [p.support_code for p in plans if p.support_code]
        notes = [n for p in plans for n in p.notes]
        if len(plans) == 1:
            return optimizers.OptimizerPlan(plans[0].ctor, notes=notes), support
        ctor = (f"WideDeepOptimizer({plans[0].ctor}, {plans[1].ctor}, "
                "lambda: __tfmigrate_model__.linear_model.trainable_variables)")
        if any("keras.optimizers.schedules." in p.ctor for p in plans):
            # both decays read TF1's one global step (once per training step): WideDeepGlobalStep gives it to both
            return (optimizers.OptimizerPlan(ctor.replace("WideDeepOptimizer(", "WideDeepGlobalStep(", 1),
                                             notes=notes),
                    [*support, shared(generated(WIDE_DEEP_OPTIMIZER)), shared(generated(WIDE_DEEP_GLOBAL_STEP))])
        if plans[0].ctor.startswith("LegacyKerasAdam("):  # its update reads the step count
            return (optimizers.OptimizerPlan(ctor.replace("WideDeepOptimizer(", "WideDeepSteps(", 1), notes=notes),
                    [*support, shared(generated(WIDE_DEEP_OPTIMIZER)), shared(generated(WIDE_DEEP_STEPS))])
        return optimizers.OptimizerPlan(ctor, notes=notes), [*support, shared(generated(WIDE_DEEP_OPTIMIZER))]

    def optimizer(self, value: Value | None, family: str, v1: bool, n_columns: int | None, rate: str | None = None,
                  default: str | None = None) -> optimizers.OptimizerPlan:
        """`rate`: what a string gets (None: DNN's v1 0.05 / v2 class default, linear's 0.2)."""
        if rate is None:
            rate = _RATE[family] if v1 or family in ("linear", "baseline") else None
        if value is None:
            return self.named(default or ("Adagrad" if family == "dnn" else "Ftrl"), rate, v1, value)
        r = self.resolve(value, "optimizer", CODE)
        node, file = r.node, r.value.file
        if is_literal(node, None):
            if family in ("dnn", "baseline") or default is not None:
                raise Blocked(CODE, "optimizer=None: the DNN estimators need an optimizer", value.node)
            if n_columns is None:
                raise Blocked(CODE, "optimizer=None: its rate min(0.2, 1/sqrt(number of columns)) depends on columns "
                                    "known only at run time; pass the optimizer", value.node)
            rate = repr(min(0.2, 1.0 / math.sqrt(n_columns)))  # linear.py's default when no optimizer is given
            text = (f"tf.compat.v1.train.FtrlOptimizer(learning_rate={rate})" if v1
                    else f"tf.keras.optimizers.legacy.Ftrl(learning_rate={rate})")
            return self.instance(cst.parse_expression(text), v1, file, ())
        if isinstance(node, cst.SimpleString):
            return self.named(node.evaluated_value, rate, v1, value)
        if isinstance(node, cst.Call):
            return self.instance(node, v1, file, r.value.env, value)
        if isinstance(node, cst.Lambda) and _no_params(node.params) and isinstance(node.body, cst.Call):
            # get_optimizer_instance(_v2) calls a callable once, without arguments: the object its body builds
            # (followed into a helper def: `lambda: make_optimizer(args)`)
            body = Value(node.body, file, r.value.env)
            inner = self.resolve(body, "optimizer", CODE)
            helper = self.program.function_of(Value(inner.node.func, inner.value.file, inner.value.env)) \
                if isinstance(inner.node, cst.Call) else None
            if helper is not None and isinstance(helper.node, cst.FunctionDef):  # not followed: several returns
                raise Blocked(CODE, f"optimizer `{code(node)[:60]}`: {helper.node.name.value}() returns from more "
                                    "than one place (or returns nothing), so which optimizer the Estimator got is not "
                                    "known here; give the canned estimator the optimizer object, or a helper with "
                                    "one `return`", value.node)
            if isinstance(inner.node, cst.Call):
                return self.instance(inner.node, v1, inner.value.file, inner.value.env, body, in_model_fn=True)
            return self.instance(node.body, v1, file, r.value.env, body, in_model_fn=True)
        returned = _returned(node, file) if isinstance(node, cst.FunctionDef) else None
        if returned is not None:  # a def passed as the optimizer: called once, without arguments, as a lambda is
            inner = self.resolve(returned, "optimizer", CODE)
            if isinstance(inner.node, cst.Call):
                return self.instance(inner.node, v1, inner.value.file, inner.value.env, value, in_model_fn=True)
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            raise Blocked(CODE, "an optimizer given as a callable is converted when it takes no arguments and returns "
                                "the optimizer object from one `return` (`lambda: X(...)`, `lambda: helper(...)`, a "
                                "def without required parameters); pass that, or the optimizer object", value.node)
        path = self.analysis.tf(node, file) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if not v1 and path and path.rsplit(".", 1)[0] in ("keras.optimizers.legacy", "optimizers.legacy"):
            # a v2 class: get_optimizer_instance_v2 calls it without arguments (the class's defaults); a v1
            # tf.compat.v1.train class would fail there (learning_rate is required)
            return self.named_class(path, value)
        raise Blocked(CODE, f"optimizer=`{code(value.node)[:60]}`: {self.analysis.why(r, 'an optimizer')}",
                      value.node)

    def named_class(self, path: str, value: Value) -> optimizers.OptimizerPlan:
        text = f"tf.{path}()"
        try:
            return self.instance(cst.parse_expression(text), False, self.file, ())
        except Blocked as blocked:
            raise Blocked(blocked.code, f"optimizer class `{code(value.node)[:60]}` ({text}): {blocked.message}",
                          value.node) from None

    def named(self, name: str, rate: str | None, v1: bool, value: Value | None) -> optimizers.OptimizerPlan:
        if name not in _V1_TRAIN:
            raise Blocked(CODE, f"optimizer '{name}' is not one the canned estimators accept (TF raised ValueError): "
                                f"name one of {', '.join(map(repr, _V1_TRAIN))}, or pass the optimizer object",
                          value and value.node)
        if v1:  # optimizers.get_optimizer_instance: the class at the estimator's rate
            text = f"tf.compat.v1.train.{_V1_TRAIN[name]}(learning_rate={rate})"
        elif rate is None:  # get_optimizer_instance_v2 without a rate: the legacy class's own default
            text = f"tf.keras.optimizers.legacy.{_V2_LEGACY[name]}()"
        else:
            text = f"tf.keras.optimizers.legacy.{_V2_LEGACY[name]}(learning_rate={rate})"
        call = cst.parse_expression(text)
        try:
            return self.instance(call, v1, self.file, ())
        except Blocked as blocked:
            raise Blocked(blocked.code, f"optimizer '{name}' ({text}): {blocked.message}",
                          value.node if value is not None else self.call) from None

    def instance(self, call: cst.Call, v1: bool, file: FileIndex, env, value: Value | None = None,
                 in_model_fn: bool = False):
        """`in_model_fn`: the call is a callable's body, which the canned model_fn runs in the Estimator's graph."""
        path = self.analysis.tf(call, file) if file.contains(call) else _path_of(call)
        at = value.node if value is not None else call
        name = optimizers.optimizer_name(path)
        legacy = path.split(".")[-1] if path and path.rsplit(".", 1)[0] in ("keras.optimizers.legacy",
                                                                            "optimizers.legacy") else None
        if not v1 and legacy is None and name is not None:
            # a TF 1.x optimizer: the program ran on TF 1.x, where tf.estimator.<Canned> was the v1 class taking it
            canned_path = self.analysis.tf(self.call, self.file) or "estimator.<canned>"
            blocked = Blocked(CODE, f"optimizer `{code(call)[:60]}` is TF 1.x's, where tf.{canned_path} was the v1 "
                                    f"canned estimator that took it (a v2 one takes tf.keras.optimizers.legacy.*): "
                                    f"spell it tf.compat.v1.{canned_path} and the optimizer tf.compat.v1.{path}, then "
                                    "re-run", at)
            if file.contains(call) and tf1_program.tf1_only(self.program.qualified(call.func, file) or ""):
                # written with TF 1.x's name (not compat.v1): the site reads the estimator as the v1 class
                blocked.tf1_optimizer = f"tf.{path}"
            raise blocked
        if not v1 and legacy is None and path and path.startswith(("keras.optimizers.", "optimizers.")) \
                and path.count(".") == path.startswith("keras.") + 1:
            # TF 2.15's canned get_optimizer_instance_v2, in the Estimator's graph: ValueError for a Keras 2.11+
            # optimizer ("Please set your optimizer as an instance of `tf.keras.optimizers.legacy.Optimizer`")
            raise Blocked(CODE, f"optimizer `{code(call)[:60]}`: TF 2.15's v2 canned estimators raise ValueError for "
                                "this Keras optimizer (they take tf.keras.optimizers.legacy.* only), so the original "
                                f"does not run there: write tf.keras.optimizers.legacy.{path.rsplit('.', 1)[-1]}(...) "
                                f"(tfmigrate converts the legacy {', '.join(optimizers.LEGACY)})", at)
        if name is None and path and path.startswith("train.") and path.endswith("Optimizer"):
            # a TF1 optimizer tfmigrate has no exact TF2 update for (ProximalAdagrad, ProximalGradientDescent, ...)
            raise Blocked(CODE, f"optimizer `{code(call)[:60]}`: TF1's tf.{path} is not converted (no generated "
                                "TF2 optimizer runs its update); tfmigrate converts "
                                f"{', '.join(optimizers.OPTIMIZERS)}: use one of them, or keep this program on TF1",
                          at)
        if v1 and name is None or not v1 and legacy is None:
            want = "tf.compat.v1.train.*Optimizer" if v1 else "tf.keras.optimizers.legacy.*"
            raise Blocked(CODE, f"optimizer `{code(call)[:60]}`: a {'v1' if v1 else 'v2'} canned estimator takes "
                                f"{want} objects; this one is not converted", at)
        args, schedule_used = [], False
        for i, arg in enumerate(call.args):
            if arg.star or not file.contains(call):
                args.append(arg)
                continue
            key = f"optimizer_{arg.keyword.value if arg.keyword else i}"
            if name is not None and arg.keyword is None:
                key = f"optimizer_{optimizers.OPTIMIZERS[name][i]}" if i < len(optimizers.OPTIMIZERS[name]) else key
            if legacy is not None and arg.keyword is None and legacy in optimizers.LEGACY:
                signature = optimizers.LEGACY[legacy][0]
                key = f"optimizer_{signature[i]}" if i < len(signature) else key
            inner = self.program.resolve(Value(arg.value, file, env))
            decay = optimizers.decay_name(self.analysis.tf(inner.node, inner.value.file)) \
                if isinstance(inner.node, cst.Call) else None
            if decay and not (in_model_fn and key == "optimizer_learning_rate"):
                # outside a graph, TF2's tf.compat.v1.train decays return a function of the step they were given
                # (get_global_step() is None there), not of the Estimator's global step (measured on TF 2.15)
                raise Blocked(CODE, f"a learning-rate decay (tf.train.{decay}) built outside the model_fn is not "
                                    "converted: it is not bound to the Estimator's global step (get_global_step() is "
                                    "None there; TF 2.15 trains with it only to fail, ValueError: None values not "
                                    "supported); pass the optimizer as a callable (`lambda: Optimizer(learning_rate="
                                    f"tf.compat.v1.train.{decay}(...))`), which the canned model_fn calls in its graph",
                              arg.value)
            if decay:  # the canned model_fn built it on the global step = the optimizer's iterations: a schedule
                args.append(arg.with_changes(value=cst.parse_expression(self.schedule(inner, decay, key))))
                schedule_used = True
                continue
            text = self.carry(key, Value(arg.value, file, env))
            args.append(arg.with_changes(value=cst.parse_expression(text)))
        call = call.with_changes(args=args)
        if v1:
            return optimizers.convert(call, name, None, schedule_used, self.profile)
        return optimizers.legacy(call, legacy, CODE, self.profile)

    def schedule(self, decay_call: Value, decay: str, key: str) -> str:
        """A tf.compat.v1.train decay on the global step, built in the canned model_fn → the Keras schedule that
        computes the same rate from the optimizer's iterations (v2 canned estimators set them to the global step;
        v1 ones increment the global step once per apply, as Keras counts iterations)."""
        call, file = decay_call.node, decay_call.value.file
        steps = ("train.get_global_step", "train.get_or_create_global_step")

        def is_step(node) -> bool:
            return isinstance(node, cst.Call) and self.analysis.tf(node, file) in steps

        args = []
        for i, arg in enumerate(call.args):
            inner = self.program.resolve(Value(arg.value, file, decay_call.value.env))
            if arg.star or is_step(inner.node):
                args.append(arg.with_changes(value=inner.node) if not arg.star else arg)
            elif arg.keyword is not None and arg.keyword.value == "name":
                args.append(arg)
            else:
                text = self.carry(f"{key}_{arg.keyword.value if arg.keyword else i}",
                                  Value(arg.value, file, decay_call.value.env))
                args.append(arg.with_changes(value=cst.parse_expression(text)))
        try:
            return optimizers.convert_decay(call.with_changes(args=args), decay, is_step)
        except Blocked as blocked:
            raise Blocked(CODE, f"optimizer callable's learning rate: {blocked.message}", call) from None


def _returned(node: cst.FunctionDef, file: FileIndex) -> Value | None:
    """What a def called without arguments returns (its parameters at their defaults), when it has one
    `return <value>` and no required parameter."""
    params = (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
    if any(p.default is None for p in params):
        return None
    returns = file.function_scopes[id(node)].returns
    values = [r.value for r in returns if r.value is not None]
    env = tuple((p.name.value, Value(p.default, file)) for p in params)
    return Value(values[0], file, env) if len(values) == 1 and len(returns) == 1 else None


def _no_params(params: cst.Parameters) -> bool:
    return not (params.params or params.kwonly_params or params.posonly_params or params.star_kwarg
                or isinstance(params.star_arg, (cst.Param, cst.ParamStar)))


def _path_of(call: cst.Call) -> str | None:
    """The normalised TF path of a call tfmigrate wrote itself (`tf.compat.v1.train.X(...)`)."""
    from libcst.helpers import get_full_name_for_node

    from ...facts.tfnames import normalise

    full = get_full_name_for_node(call.func) or ""
    return normalise("tensorflow" + full[len("tf"):]) if full.startswith("tf.") else None


WIDE_DEEP_OPTIMIZER = '''
class WideDeepOptimizer(keras.optimizers.Optimizer):
    """The two optimizers of a DNNLinearCombined estimator in one: each variable is updated by the optimizer of
    its part (the linear model's or the DNN's), with that optimizer's rate and slots, as the Estimator's two train
    ops did with the same gradients."""

    def __init__(self, dnn_optimizer, linear_optimizer, linear_variables, name="wide_deep"):
        super().__init__(learning_rate=0.0, name=name)
        self.dnn_optimizer, self.linear_optimizer = dnn_optimizer, linear_optimizer
        self.linear_variables = linear_variables  # a callable: the linear model's variables

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        linear = {id(v) for v in self.linear_variables()}
        self.dnn_optimizer.build([v for v in var_list if id(v) not in linear])
        self.linear_optimizer.build([v for v in var_list if id(v) in linear])

    def part_of(self, variable):
        """The optimizer that updates `variable`: the linear model's or the DNN's."""
        if self._var_key(variable) in self.linear_optimizer._trainable_variables_indices:
            return self.linear_optimizer
        return self.dnn_optimizer

    def update_step(self, gradient, variable, learning_rate):
        optimizer = self.part_of(variable)
        optimizer.update_step(gradient, variable, optimizer.learning_rate)
'''


WIDE_DEEP_STEPS = '''
class WideDeepSteps(WideDeepOptimizer):
    """WideDeepOptimizer whose DNN optimizer reads the step count: the Estimator gave it the global step as its
    `iterations`, so before each update it is set to the steps this optimizer has taken."""

    def apply(self, grads, trainable_variables=None):
        self.dnn_optimizer.iterations.assign(self.iterations)
        return super().apply(grads, trainable_variables)
'''


WIDE_DEEP_GLOBAL_STEP = '''
class WideDeepGlobalStep(WideDeepOptimizer):
    """WideDeepOptimizer whose two optimizers read the step count (a learning-rate schedule, the DNN's legacy
    Adam): in the Estimator both read the one global step, which advanced once per training step after both
    updates, so before each update both are set to the steps this optimizer has taken."""

    def apply(self, grads, trainable_variables=None):
        self.dnn_optimizer.iterations.assign(self.iterations)
        self.linear_optimizer.iterations.assign(self.iterations)
        return super().apply(grads, trainable_variables)
'''
