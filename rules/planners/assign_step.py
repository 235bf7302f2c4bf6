"""TFM501 a model_fn that trains by assignment → a tf.Module holding its variables and a tf.function step running
the same assignments (its own plan kind: no Keras model, no loss gradient, no optimizer).

TF's saved_model and migrating_checkpoints guides write model_fns whose train_op only assigns
(`train_op=tf.group(v.assign_add(2), step.assign_add(1))`, `loss=tf.constant(1.)`): each train() step runs the
assignments. The converted program keeps the model_fn as a method of a generated `tf.Module`:
- each `tf.compat.v1.get_variable(name, shape, dtype, initializer=zeros/ones/constant)` and `tf.Variable(value,
  name=...)` becomes a variable the module creates once, named as the Estimator's graph named it (its variable
  scopes, which go, included: `sums/count`); `get_global_step()` / `get_or_create_global_step()` is the module's
  int64 `global_step`;
- the train_op (inline, or the statement binding it) is made a function the step calls after the loss is computed
  (TF1 built it in every mode and ran it in train() only); `EstimatorSpec(...)` becomes a dict of the same
  arguments; `ModeKeys.X` its string;
- the generated `<Name>Trainer` (what the custom-loop driver calls) trains until global_step reaches max_steps (or
  the input ends), saving tf.train.Checkpoint files model.ckpt-<step> in model_dir at the Estimator's cadence (the
  first step, every save_checkpoints_steps, the last), evaluates (the mean of the batch losses, as TF1's
  metrics.mean, and global_step), predicts, exports (build_raw_serving_input_receiver_fn: one signature per
  PredictOutput), and answers get_variable_value(name) / get_variable_names() / latest_checkpoint() by the TF1
  names from model_dir's latest checkpoint, as the Estimator did (its own TF1 checkpoint is read by name too).
Blocked, named: layers or other variable makers, a helper that makes variables, get_variable without a
zeros/ones/constant initializer (a random one draws other numbers in TF2), variables in a branch or loop,
eval_metric_ops, hooks, a scaffold other than Scaffold(saver=<a name bound to tf.train.Checkpoint(...) of its
variables>), other export outputs than PredictOutput, other exports than raw features, a strategy over several
devices or workers, a model_fn in a factory or a function.
warm_start_from: before the first training on an empty model_dir, the trainable variables matching
vars_to_warm_start take their values by TF1 name (var_name_to_prev_var_name) from the Estimator's TF1 checkpoint or a
checkpoint this conversion wrote (its variables dict, keyed by TF1 name); Scaffold(saver=tf.train.Checkpoint(...)):
the trainer saves with that same Checkpoint, so its keys (`var_list/var/.ATTRIBUTES/VARIABLE_VALUE`) are the
Estimator's, and get_variable_value(key) reads them.
"""
from __future__ import annotations

import dataclasses

import libcst as cst
import libcst.matchers as m

from tfmigrate.diagnostics import Blocked

from ..emit.wrap import wrap_call
from ..facts.calls import bind, code
from . import model_fn

CODE = model_fn.CODE
_MODES = {"TRAIN": "train", "EVAL": "eval", "PREDICT": "infer"}
_STEP = {"train.get_global_step", "train.get_or_create_global_step"}
_ASSIGNS = {"assign", "assign_add", "assign_sub"}
_INITIALIZERS = {"zeros_initializer": "zeros", "ones_initializer": "ones", "initializers.zeros": "zeros",
                 "initializers.ones": "ones", "constant_initializer": "constant", "initializers.constant": "constant"}
_GET_VARIABLE_ARGS = ["name", "shape", "dtype", "initializer", "regularizer", "trainable", "collections",
                      "caching_device", "partitioner", "validate_shape", "use_resource"]
_KEPT_SPEC = ("mode", "predictions", "loss", "train_op", "export_outputs")


@dataclasses.dataclass
class AssignPlan:
    """What assign_step.py.j2 renders (the driver and program.py read the ModelPlan attributes it defaults)."""
    fn_name: str
    class_name: str
    variables: list  # (attribute, TF1 name, initial value code, trainable code)
    method: str  # the model_fn as the module's method (code)
    predictions: str | None  # "yes" when a return gives predictions (the driver checks it is not None)
    export_outputs: bool = False
    saver: str | None = None  # Scaffold(saver=tf.train.Checkpoint(...)) over the module's variables (code)
    notes: list = dataclasses.field(default_factory=list)
    partitioner: None = None
    summaries: list = dataclasses.field(default_factory=list)
    metrics: list = dataclasses.field(default_factory=list)
    shim_helpers: frozenset = frozenset()


def applies(fn: cst.FunctionDef, names) -> bool:
    return isinstance(fn, cst.FunctionDef) and model_fn.trains_by_assignment(fn, names.of)


def plan(sites: list, fn_ref, names, module_names: frozenset[str], functions: dict) -> AssignPlan:
    """The plan of the model_fn `fn_ref` (a FunctionRef) its Estimator sites share; Blocked, naming what this
    conversion does not cover."""
    fn = fn_ref.node
    if any(s.strategy.kinds - {"default", "one-device"} for s in sites):
        raise Blocked(CODE, "a model_fn that trains by assignment is converted for one process only (its step runs "
                            "the assignments on one copy of the variables); not under a distribution strategy over several "
                            "devices or workers", fn)
    for s in sites:
        if s.factory is not None:
            raise Blocked(CODE, "a model_fn that trains by assignment returned by a factory is not converted yet",
                          fn)
    if not isinstance(fn_ref.file.parent(fn), cst.Module):
        raise Blocked(CODE, "a model_fn that trains by assignment defined inside a function is not converted yet", fn)
    params = [p.name.value for p in fn.params.params]
    if fn.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or fn.params.kwonly_params or fn.params.star_kwarg \
            or set(params) - set(model_fn.MODEL_FN_ARGS):
        raise Blocked(CODE, f"model_fn({', '.join(params)}): the Estimator passes {', '.join(model_fn.MODEL_FN_ARGS)} "
                            "by name; other parameters are not converted here", fn)
    mover = _Body(names, module_names, functions, set(params))
    body = fn.body.visit(mover)
    if mover.errors:
        raise Blocked.many(mover.errors)
    if "config" in params and "config" in _read(body):
        raise Blocked(CODE, "the model_fn reads its config: not converted for a model_fn that trains by assignment",
                      fn)
    head = []
    if "params" in params:
        head.append(cst.parse_statement("params = self.params\n"))
    lead, rest = (list(body.body[:1]), list(body.body[1:])) if body.body and _docstring(body.body[0]) \
        else ([], list(body.body))
    body = body.with_changes(body=[*lead, *head, *rest])
    signature = "self, features, labels, mode"  # the names the Estimator passed them by
    method = cst.Module([]).code_for_node(
        fn.with_changes(name=cst.Name("model_fn"), body=body, leading_lines=[], decorators=[],
                        params=cst.parse_expression(f"lambda {signature}: 0").params))
    stem = "".join(part.title() for part in fn.name.value.split("_")) or "ModelFn"
    return AssignPlan(fn_name=fn.name.value, class_name=f"{stem}Module", variables=mover.variables, method=method,
                      predictions="yes" if mover.predicts else None, export_outputs=mover.exports,
                      saver=mover.saver)


def _docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _read(node) -> set[str]:
    return {n.value for n in m.findall(node, m.Name())}


def _literal(node) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    return None


class _Body(cst.CSTTransformer):
    """The model_fn's body as the module's method: variables → module attributes, variable scopes flattened into the
    names, the global step, ModeKeys, the spec and the train_op; every statement this does not cover in `errors`."""

    def __init__(self, names, module_names, functions, params):
        self.names, self.module_names, self.functions, self.params = names, module_names, functions, params
        self.scopes: list[tuple[str, bool]] = []  # (name, a variable_scope: get_variable's names take it too)
        self.variables: list[tuple[str, str, str]] = []
        self.taken: dict[str, int] = {}
        self.errors: list[Blocked] = []
        self.depth = 0  # inside an if / for / while / try: variables there are not created once
        self.train_ops: set[str] = set()
        self.predicts = self.exports = False
        self.pending: dict[int, str] = {}  # the train_op's statement (id) → its name
        self.locals: dict[str, str] = {}  # a local bound to a variable → the module's attribute (`self.var`)
        self.checkpoints: dict[str, str] = {}  # a local bound to tf.train.Checkpoint(...) → that call over the module
        self.dropped: set[int] = set()  # statements binding those checkpoints (the trainer makes it)
        self.saver: str | None = None
        self.blocks = 0  # indented blocks around the statement visited (the body's own included): its indentation

    def visit_IndentedBlock(self, node) -> bool:
        self.blocks += 1
        return True

    def leave_IndentedBlock(self, original, updated):
        self.blocks -= 1
        return updated

    def tf(self, node) -> str | None:
        return self.names.of(node)

    # ---- blocks ---------------------------------------------------------------------------------------------
    def visit_With(self, node: cst.With) -> bool:
        scope = self._scope(node, report=True)
        if scope is not None:
            self.scopes.append(scope)
        return True

    def leave_With(self, original: cst.With, updated: cst.With):
        if self._scope(original, report=False) is None:
            return updated
        self.scopes.pop()
        return cst.FlattenSentinel(updated.body.body)  # the names keep the scope; the block goes

    def _scope(self, node: cst.With, report: bool) -> tuple[str, bool] | None:
        if len(node.items) != 1 or not isinstance(node.items[0].item, cst.Call):
            return None
        call = node.items[0].item
        kind = self.tf(call.func)
        if kind not in ("variable_scope", "name_scope"):
            return None
        name = _literal(call.args[0].value) if len(call.args) == 1 and call.args[0].keyword is None else None
        if name is not None and node.items[0].asname is None:
            return name, kind == "variable_scope"
        if report:
            self.errors.append(Blocked(CODE, f"`with {code(call)}`: only a variable_scope / name_scope of a literal "
                                             "name is converted for a model_fn that trains by assignment", call))
        return None

    def visit_If(self, node) -> bool:
        self.depth += 1
        return True

    def leave_If(self, original, updated):
        self.depth -= 1
        return updated

    visit_For = visit_While = visit_Try = visit_If
    leave_For = leave_While = leave_Try = leave_If

    def visit_FunctionDef(self, node) -> bool:
        self.errors.append(Blocked(CODE, "a def inside a model_fn that trains by assignment is not converted yet",
                                   node))
        return False

    # ---- the train_op's statement: a function the step calls ----------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> bool:
        if (len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
                and self._assignments(node.value)):
            self.train_ops.add(node.targets[0].target.value)
            self.pending[id(node)] = node.targets[0].target.value
        return True

    def leave_SimpleStatementLine(self, original, updated):
        if len(updated.body) == 1 and isinstance(updated.body[0], cst.Assign) and len(updated.body[0].targets) == 1 \
                and isinstance(updated.body[0].targets[0].target, cst.Name):
            target, value = updated.body[0].targets[0].target.value, updated.body[0].value
            if m.matches(value, m.Attribute(value=m.Name("self"))) and not self.depth:
                self.locals[target] = code(value)
            elif isinstance(value, cst.Call) and self.tf(original.body[0].value.func) == "train.Checkpoint":
                over = value.visit(_Substitute(self.locals))
                if not self.depth and not ({n.value for n in model_fn.free_name_nodes(over)} - {"self"}
                                           - self.module_names):
                    self.checkpoints[target] = code(over)
                    return cst.RemoveFromParent()  # the trainer makes it, over the module's variables
        if len(original.body) == 1 and id(original.body[0]) in self.pending:
            name = self.pending[id(original.body[0])]
            value = cst.Module([]).code_for_node(updated.body[0].value)
            # TF1 built it in every mode and train() ran it; the step calls it once the loss is computed
            return cst.parse_statement(f"def {name}():\n    return {value}\n").with_changes(
                leading_lines=original.leading_lines or [cst.EmptyLine()])  # (a blank line before a nested def)
        return updated

    def _assignments(self, node) -> bool:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _ASSIGNS:
            return True
        if isinstance(node, cst.Call) and self.tf(node.func) == "group" and node.args:
            ops = [e.value for a in node.args
                   for e in (a.value.elements if isinstance(a.value, (cst.List, cst.Tuple)) else [a])]
            return all(self._assignments(op) for op in ops)
        return False

    # ---- calls --------------------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call):
        path = self.tf(original.func)
        if path in _STEP:
            return cst.parse_expression("self.global_step")
        if path == "get_variable":
            return self._variable(original, updated, self._get_variable(original))
        if path is not None and (path.endswith("Variable") and path.rsplit(".", 1)[-1] == "Variable"):
            return self._variable(original, updated, self._tf_variable(original))
        if path is not None and path.rsplit(".", 1)[-1] in _ASSIGNS and original.args \
                and isinstance(original.func, cst.Attribute) and path.count(".") == 0:
            # tf.compat.v1.assign_add(v, x): v.assign_add(x) (what it ran on a resource variable)
            target, *rest = updated.args
            return cst.Call(func=cst.Attribute(value=target.value, attr=cst.Name(path)),
                            args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(rest) - 1 else a
                                  for i, a in enumerate(rest)])
        if path == "estimator.EstimatorSpec":
            return self._spec(original, updated)
        if path is not None and (path.endswith("Optimizer") or path in ("gradients", "GradientTape")
                                 or path.startswith("keras.optimizers")):
            self.errors.append(Blocked(CODE, f"`{code(original.func)}` in a model_fn whose train_op assigns: a model_fn "
                                             "that both assigns and trains by gradient is not converted", original))
        elif path is not None and (model_fn.makes_variables(path) or path.startswith(("layers.", "keras."))):
            self.errors.append(Blocked(CODE, f"`{code(original.func)}` makes variables: not converted for a "
                                             "model_fn that trains by assignment (get_variable and tf.Variable "
                                             "are)", original))
        elif isinstance(original.func, cst.Name) and original.func.value in self.functions \
                and self._helper_makes_variables(self.functions[original.func.value]):
            self.errors.append(Blocked(CODE, f"`{original.func.value}` makes variables; a helper that does is "
                                             "not converted for a model_fn that trains by assignment", original))
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated):
        path = self.tf(original)
        if path is not None and path.startswith("estimator.ModeKeys."):
            mode = _MODES.get(path.rsplit(".", 1)[-1])
            if mode is not None:
                return cst.SimpleString(f'"{mode}"')
        return updated

    def _helper_makes_variables(self, fn: cst.FunctionDef) -> bool:
        for call in m.findall(fn, m.Call()):
            path = self.tf(call.func) or ""
            if path == "get_variable" or model_fn.makes_variables(path) or path.startswith(("layers.", "keras.")):
                return True
        return False

    def _variable(self, original, updated, made):
        if made is None:
            return updated
        name, value, trainable = made
        if self.depth:
            self.errors.append(Blocked(CODE, "a variable made inside an if / for / while / try is not converted for "
                                             "a model_fn that trains by assignment (TF1 made it in the modes or "
                                             "iterations that ran it)", original))
            return updated
        free = {n.value for n in model_fn.free_name_nodes(cst.parse_expression(value))} - self.module_names - {
            "params", _tf_word()}
        if free:
            self.errors.append(Blocked(CODE, f"`{code(original)}`: its shape or initial value reads "
                                             f"{', '.join(sorted(free))}, computed in the model_fn; only literals, "
                                             "params and module names are converted here", original))
            return updated
        attr = "".join(ch if ch.isalnum() else "_" for ch in name).strip("_") or "variable"
        attr = f"{attr}_variable" if attr in ("global_step", "params") or attr[0].isdigit() else attr
        while attr in {v[0] for v in self.variables}:
            attr += "_"
        self.variables.append((attr, name, value, trainable))
        return cst.parse_expression(f"self.{attr}")

    def _full(self, name: str, node, unique: bool) -> str | None:
        """The TF1 name: tf.Variable (`unique`) takes every enclosing scope, get_variable only variable scopes."""
        full = "/".join([*(scope for scope, variable in self.scopes if variable or unique), name])
        count = self.taken.get(full, 0)
        self.taken[full] = count + 1
        if count and not unique:
            self.errors.append(Blocked(CODE, f"variable {full} is made twice (TF1 raised: get_variable without "
                                             "reuse)", node))
            return None
        return full if not count else f"{full}_{count}"

    def _get_variable(self, call: cst.Call):
        try:
            args = bind(call, _GET_VARIABLE_ARGS, "get_variable", CODE)
        except Blocked as blocked:
            self.errors.append(blocked)
            return None
        other = set(args) - {"name", "shape", "dtype", "initializer", "trainable", "use_resource"}
        name = _literal(args["name"]) if "name" in args else None
        if other or name is None:
            self.errors.append(Blocked(CODE, f"`{code(call)}`: get_variable with a literal name and shape, dtype, "
                                             "initializer, trainable is converted for a model_fn that trains by "
                                             "assignment" + (f"; not {', '.join(sorted(other))}" if other else ""),
                                       call))
            return None
        dtype = code(args["dtype"]) if "dtype" in args else f"{_tf_word()}.float32"
        init = args.get("initializer")
        shape = code(args["shape"]) if "shape" in args else None
        kind = self.tf(init.func) if isinstance(init, cst.Call) else None
        tf = _tf_word()
        if kind in _INITIALIZERS and shape is not None:
            how = _INITIALIZERS[kind]
            if how == "constant":
                given = init.args[0].value if init.args else None
                if given is None or (init.args[0].keyword is not None and init.args[0].keyword.value != "value") \
                        or len(init.args) > 1:
                    self.errors.append(Blocked(CODE, f"`{code(init)}`: constant_initializer(value) is converted "
                                                     "here", init))
                    return None
                value = f"{tf}.constant({code(given)}, dtype={dtype}, shape={shape})"
            else:
                if init.args:
                    self.errors.append(Blocked(CODE, f"`{code(init)}` with arguments is not converted here", init))
                    return None
                value = f"{tf}.{how}({shape}, dtype={dtype})"
        elif init is not None and shape is None and kind is None:  # a value: the variable's initial value
            value = f"{tf}.cast({code(init)}, {dtype})" if "dtype" in args else code(init)
        else:
            self.errors.append(Blocked(CODE, f"`{code(call)}`: get_variable with initializer=zeros_initializer(), "
                                             "ones_initializer() or constant_initializer(value) and a shape (or a "
                                             "value and no shape) is converted for a model_fn that trains by "
                                             "assignment; a random initializer draws other numbers in TF2", call))
            return None
        full = self._full(name, call, unique=False)
        return None if full is None else (full, value, code(args["trainable"]) if "trainable" in args else "True")

    def _tf_variable(self, call: cst.Call):
        try:
            args = bind(call, ["initial_value", "trainable", "validate_shape", "caching_device", "name",
                               "variable_def", "dtype"], "tf.Variable", CODE)
        except Blocked as blocked:
            self.errors.append(blocked)
            return None
        other = set(args) - {"initial_value", "trainable", "name", "dtype"}
        name = _literal(args["name"]) if "name" in args else "Variable"
        if other or name is None or "initial_value" not in args:
            self.errors.append(Blocked(CODE, f"`{code(call)}`: tf.Variable(value, name=<literal>, dtype, trainable) "
                                             "is converted for a model_fn that trains by assignment", call))
            return None
        value = code(args["initial_value"])
        if "dtype" in args:
            value = f"{_tf_word()}.cast({value}, {code(args['dtype'])})"
        full = self._full(name, call, unique=True)  # TF1 made tf.Variable names unique (`v_1`)
        return None if full is None else (full, value, code(args["trainable"]) if "trainable" in args else "True")

    # ---- the spec ---------------------------------------------------------------------------------------------
    def _spec(self, original: cst.Call, updated: cst.Call):
        try:
            args = bind(updated, model_fn.SPEC_ARGS, "EstimatorSpec", CODE)
        except Blocked as blocked:
            self.errors.append(blocked)
            return updated
        if "scaffold" in args and not (isinstance(args["scaffold"], cst.Name) and args["scaffold"].value == "None"):
            self._scaffold(args["scaffold"])
        for key in ("eval_metric_ops", "training_chief_hooks", "training_hooks", "evaluation_hooks",
                    "prediction_hooks"):
            if key in args and not (isinstance(args[key], cst.Name) and args[key].value == "None"):
                self.errors.append(Blocked(CODE, f"EstimatorSpec({key}=...) is not converted yet for a model_fn that "
                                                 "trains by assignment", original))
        parts = []
        for key in _KEPT_SPEC:
            if key not in args:
                continue
            value = code(args[key])
            if key == "train_op" and not (isinstance(args[key], cst.Name) and args[key].value in self.train_ops):
                value = f"lambda: {value}"  # run by the step once the loss is computed, in train() only
            if key == "export_outputs":
                value = self._export_outputs(args[key])
                if value is None:
                    continue
                self.exports = True
            if key == "predictions":
                self.predicts = True
            parts.append(f"{key}={value}")
        # laid out as black would: the continuation lines relative to the block (LibCST indents them by its own
        # indentation), the width less the column after `return ` in the method
        column = 4 + 4 * (self.blocks - len(self.scopes)) + len("return ")
        return cst.parse_expression(wrap_call(f"dict({', '.join(parts)})", "", width=100 - column))

    def _scaffold(self, node) -> None:
        """Scaffold(saver=<a name bound to tf.train.Checkpoint(...)>): the Estimator saved its checkpoints with that
        Checkpoint (keys by object path: `var_list/var/.ATTRIBUTES/VARIABLE_VALUE`); the trainer saves with the same
        one, made over the module's variables."""
        saver = None
        if isinstance(node, cst.Call) and self.tf(node.func) == "train.Scaffold" and len(node.args) == 1 \
                and node.args[0].keyword is not None and node.args[0].keyword.value == "saver" \
                and isinstance(node.args[0].value, cst.Name):
            saver = self.checkpoints.get(node.args[0].value.value)
        if saver is None:
            self.errors.append(Blocked(CODE, f"EstimatorSpec(scaffold={code(node)}) is not converted for a model_fn that "
                                             "trains by assignment (a Scaffold(saver=<a tf.train.Checkpoint of its "
                                             "variables, bound to a name>) is)", node))
            return
        if self.saver is not None and self.saver != saver:
            self.errors.append(Blocked(CODE, "two Scaffold savers in one model_fn are not converted", node))
        self.saver = saver

    def _export_outputs(self, node) -> str | None:
        """{key: PredictOutput(outputs)} → {key: outputs}: what each signature returns."""
        if isinstance(node, cst.Dict) and all(isinstance(e, cst.DictElement) and isinstance(e.value, cst.Call)
                                              and self.tf(e.value.func) == "estimator.export.PredictOutput"
                                              and len(e.value.args) == 1 for e in node.elements):
            return "{" + ", ".join(f"{code(e.key)}: {code(e.value.args[0].value)}" for e in node.elements) + "}"
        self.errors.append(Blocked(CODE, "export_outputs other than a dict of tf.estimator.export.PredictOutput(...) "
                                         "are not converted yet for a model_fn that trains by assignment", node))
        return None


class _Substitute(cst.CSTTransformer):
    """Names of locals bound to the module's variables → `self.<attribute>` (a Checkpoint made outside model_fn)."""

    def __init__(self, locals_: dict[str, str]):
        self.locals = locals_

    def leave_Name(self, original, updated):
        return cst.parse_expression(self.locals[updated.value]) if updated.value in self.locals else updated

    def leave_Attribute(self, original, updated):  # (attribute names are not locals)
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):  # (nor keywords)
        return updated.with_changes(keyword=original.keyword)


def _tf_word() -> str:
    from ..facts.calls import TF

    return TF


def render(plan: AssignPlan, trainer: str, leading, exporting: frozenset[str],
           warm_starting: bool = False) -> list[cst.BaseStatement]:
    """The module class and its trainer, as statements (the model_fn's place)."""
    from ..emit.assembly import template_env

    text = template_env().get_template("assign_step.py.j2").render(plan=plan, trainer=trainer, exporting=exporting,
                                                                   warm_starting=warm_starting)
    method = "\n".join(("    " + line) if line.strip() else "" for line in plan.method.rstrip("\n").split("\n"))
    text = text.replace("    __tfmigrate_model_fn__\n", method + "\n")
    body = list(cst.parse_module(text).body)
    body[0] = body[0].with_changes(leading_lines=[*leading, *body[0].leading_lines])
    return body
