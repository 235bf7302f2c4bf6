"""TFM501 model_fn: an Estimator `model_fn` → a `keras.Model` subclass plus its loss, optimizer and metrics.

What it converts: a model_fn whose body is a forward pass of `tf.compat.v1.layers` calls and tensor ops on
`features`/`params`, then optionally a predictions dict with a PREDICT early return, one `tf.compat.v1.losses`
call, an `eval_metric_ops` dict with an EVAL early return, an optimizer (optionally on a decayed learning rate),
`optimizer.minimize(loss, global_step=...)` (optionally under `control_dependencies(UPDATE_OPS)`), and a final
`EstimatorSpec`. Forward statements are kept as written (comments included) in `call()`; layer calls become
`self.<layer>(...)`; `mode == ModeKeys.TRAIN` becomes the Keras `training` flag.
`get_variable`, `variable_scope` and `embedding_lookup` are handled with TFM811/TFM801 (variables.py,
partitioners.py).
Blocked: anything else in the body (summaries, hooks, scaffolds, extra outputs, labels or mode used in the forward
pass, …) — with the line that stopped it.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked

from . import layers, losses, metrics, optimizers, partitioners, variables
from ._args import TF, bind, code, generated, is_literal
from .tfnames import TFNames

CODE = "TFM501"
_BUILTINS = frozenset(dir(builtins))
_SPEC_ARGS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
              "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"]
# attribute names keras.Model already uses; a layer variable with one of these names gets a `_layer` suffix
_MODEL_ATTRIBUTES = frozenset({
    "input", "inputs", "output", "outputs", "layers", "weights", "variables", "trainable_variables", "losses",
    "metrics", "name", "trainable", "dtype", "built", "optimizer", "loss", "params", "call", "build", "compile",
    "fit", "evaluate", "predict", "predictions", "summary", "save", "get_config", "state", "compute_loss",
})
_MINIMIZE_ARGS = ["loss", "global_step", "var_list", "gate_gradients", "aggregation_method",
                  "colocate_gradients_with_ops", "name", "grad_loss"]


@dataclass
class ModelPlan:
    fn_name: str
    class_name: str
    docstring: str | None
    features: str
    labels: str
    params: str
    layers: list[tuple[str, str]]  # (attribute, keras constructor)
    call_body: list[cst.BaseStatement]  # forward statements, rewritten in place (comments kept)
    params_in_call: bool
    output: str
    predictions: str | None  # dict code, computed from `output`
    loss: losses.LossPlan
    metrics: list[str]
    optimizer: optimizers.OptimizerPlan
    notes: list[tuple[str, str, cst.CSTNode | None]] = field(default_factory=list)
    partitioner: partitioners.PartitionerPlan | None = None  # the one TF1 partitioner the model_fn used
    mod_rows: bool = False  # embedding lookups need tf1_mod_rows (see partitioners.py)


class _Interpreter:
    def __init__(self, fn: cst.FunctionDef, names: TFNames, module_names: frozenset[str],
                 tf1_partitions: bool | None = True, profile: str = "keras3"):
        self.fn, self.names, self.module_names = fn, names, module_names
        self.tf1_partitions = tf1_partitions  # did TF1 honour partitioners (no strategy, or async PS)? None: it varied
        self.profile = profile
        params = [p.name.value for p in fn.params.params]
        if (isinstance(fn.params.star_arg, cst.Param) or fn.params.star_kwarg is not None or fn.params.kwonly_params
                or fn.params.posonly_params or not 3 <= len(params) <= 5):
            raise Blocked(CODE, "model_fn must take (features, labels, mode[, params[, config]])", fn)
        self.features, self.labels, self.mode = params[:3]
        self.params = params[3] if len(params) > 3 else "params"
        if len(params) == 5:
            self.config = params[4]
        self.locals = frozenset(params)
        self.forward: set[str] = {self.features}
        self.training_aliases: set[str] = set()
        self.class_layers: dict[str, tuple[layers.LayerKind, dict, cst.Call]] = {}
        self.named_layers: set[str] = set()
        self.layer_counts: dict[str, int] = {}
        self.layers: list[tuple[str, str]] = []
        self.call_body: list[cst.BaseStatement] = []
        self.dicts: dict[str, cst.Dict] = {}
        self.metric_vars: dict[str, cst.Call] = {}
        self.global_steps: set[str] = set()
        self.update_ops: set[str] = set()
        self.schedules: dict[str, str] = {}
        self.optimizer: tuple[str | None, cst.Call] | None = None
        self.loss: tuple[str, losses.LossPlan, cst.Call] | None = None
        self.train_op: str | None = None
        self.spec_predictions: str | None = None
        self.spec_metrics: str | None = None
        self.notes: list[tuple[str, str, cst.CSTNode | None]] = []
        self.docstring: str | None = None
        self.returned = False
        self.weights: dict[str, bool] = {}  # get_variable results: Python name → partitioned in TF1
        self.partitioner_vars: dict[str, partitioners.PartitionerPlan] = {}
        self.partitioners: list[partitioners.PartitionerPlan] = []
        self.scope_partitioner: partitioners.PartitionerPlan | None = None
        self.pending_leading: list = []  # comments above a flattened variable_scope
        self.mod_rows = False

    # ---- helpers -------------------------------------------------------------------------------------------
    def tf(self, node) -> str | None:
        return self.names.of(node, self.locals)

    def is_mode(self, node, key: str) -> bool:
        """`mode == ModeKeys.KEY` in either order."""
        if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
            return False
        comp = node.comparisons[0]
        if not isinstance(comp.operator, cst.Equal):
            return False
        sides = [node.left, comp.comparator]
        is_mode = [isinstance(s, cst.Name) and s.value == self.mode for s in sides]
        keys = [self.tf(s) == f"estimator.ModeKeys.{key}" if isinstance(s, cst.Attribute) else False for s in sides]
        return (is_mode[0] and keys[1]) or (is_mode[1] and keys[0])

    def training_flag(self, node: cst.BaseExpression | None) -> str:
        if node is None:
            return "False"  # TF1 dropout/batch_normalization default to inference behaviour
        if self.is_mode(node, "TRAIN") or (isinstance(node, cst.Name) and node.value in self.training_aliases):
            return "training"
        if is_literal(node, True, False):
            return code(node)
        raise Blocked(layers.CODE, f"training={code(node)} is not `mode == ModeKeys.TRAIN` or a literal", node)

    def free_names(self, node: cst.CSTNode) -> set[str]:
        return {n.value for n in _free_name_nodes(node)}

    def check_names(self, node: cst.CSTNode, allowed: set[str], where: str, report: cst.CSTNode | None = None) -> None:
        bad = self.free_names(node) - allowed - self.module_names - _BUILTINS
        if bad:
            name = sorted(bad)[0]
            what = {self.labels: "labels", self.mode: "mode"}.get(name, f"`{name}`")
            raise Blocked(CODE, f"{where} uses {what}, which the converted model cannot see", report or node)

    def layer_name(self, kind: layers.LayerKind, explicit: str | None, node) -> str:
        if explicit is None:
            count = self.layer_counts.get(kind.base_name, 0)
            self.layer_counts[kind.base_name] = count + 1
            explicit = kind.base_name if count == 0 else f"{kind.base_name}_{count}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", node)
        self.named_layers.add(explicit)
        return explicit

    # ---- forward pass ----------------------------------------------------------------------------------------
    def convert_forward(self, value: cst.BaseExpression) -> cst.BaseExpression:
        interp = self

        class _Forward(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                found = layers.kind_of(interp.tf(original))
                if found and found[0] == "functional":
                    kind = found[1]
                    args = bind(updated, kind.functional_args, f"tf.layers.{kind.base_name}", layers.CODE)
                    if "inputs" not in args:
                        raise Blocked(layers.CODE, "layer call without inputs", original)
                    name = interp.layer_name(kind, layers.explicit_name(args), original)
                    ctor = layers.keras_ctor(kind, args, name, original, interp.tf)
                    interp.check_names(cst.parse_expression(ctor), {interp.params, "keras"}, "a layer argument", original)
                    interp.layers.append((name, ctor))
                    return interp.layer_call(name, kind, args["inputs"], args.get("training"))
                if found:
                    raise Blocked(layers.CODE, "a layer object must be assigned to a name before it is called", original)
                if interp.tf(original) == "nn.embedding_lookup":
                    return interp.embedding_lookup(updated)
                func = updated.func
                if isinstance(func, cst.Name) and func.value in interp.class_layers:
                    kind, args, ctor_call = interp.class_layers[func.value]
                    attr = func.value + "_layer" if func.value in _MODEL_ATTRIBUTES else func.value
                    if attr not in dict(interp.layers):
                        name = interp.layer_name(kind, layers.explicit_name(args), ctor_call)
                        interp.layers.append((attr, layers.keras_ctor(kind, args, name, ctor_call, interp.tf)))
                    call = bind(updated, ["inputs", "training"], f"layer {func.value}", layers.CODE)
                    return interp.layer_call(attr, kind, call["inputs"], call.get("training"))
                return updated

        return _rename(value.visit(_Forward()), {name: f"self.{name}" for name in self.weights})

    def embedding_lookup(self, call: cst.Call) -> cst.Call:
        args = bind(call, variables.EMBEDDING_LOOKUP, "tf.nn.embedding_lookup", variables.CODE)
        table, strategy = args.get("params"), args.get("partition_strategy")
        if isinstance(table, (cst.List, cst.Tuple)):
            raise Blocked(variables.CODE, "embedding_lookup on a list of shards is not converted: build one table "
                                          "with get_variable(partitioner=...)", call)
        if strategy is not None and not is_literal(strategy, "mod", "div"):
            raise Blocked(variables.CODE, "partition_strategy must be the literal 'mod' or 'div'", strategy)
        if "params" not in args or "ids" not in args:
            raise Blocked(variables.CODE, "embedding_lookup needs params and ids", call)
        ids = code(args["ids"])
        partitioned = isinstance(table, cst.Name) and self.weights.get(table.value, False)
        # tf.compat.v1.nn.embedding_lookup defaults to "mod"; TF2's tf.nn.embedding_lookup always reads "div"
        v1 = ".compat.v1." in (self.names.table.resolve(call.func, self.locals) or "")
        if partitioned and (is_literal(strategy, "mod") or (strategy is None and v1)):
            if self.tf1_partitions is None:
                raise Blocked(partitioners.CODE, "the lookup's row order depends on whether TF1 partitioned the table, "
                                                 "which this program's strategy decides at run time", call)
            if self.tf1_partitions:
                if {"tf1_mod_rows", "VARIABLE_PARTITIONER"} & self.module_names:
                    raise Blocked(partitioners.CODE, "tf1_mod_rows/VARIABLE_PARTITIONER are taken in this module", call)
                self.mod_rows = True
                ids = f"tf1_mod_rows({ids}, {table.value}, VARIABLE_PARTITIONER)"
        kept = [code(table), ids] + [f"{k}={code(args[k])}" for k in ("max_norm", "name") if k in args]
        return cst.parse_expression(f"{generated('tf.nn.embedding_lookup')}({', '.join(kept)})")

    def check_partitioner_names(self, node: cst.CSTNode) -> None:
        bad = self.free_names(node) - self.module_names - _BUILTINS
        if bad:
            raise Blocked(partitioners.CODE, f"the partitioner uses `{sorted(bad)[0]}`: TF2 builds it with the strategy, "
                                             "outside the model; use literals or module-level constants", node)

    def partitioner(self, node: cst.BaseExpression) -> partitioners.PartitionerPlan:
        if isinstance(node, cst.Name) and node.value in self.partitioner_vars:
            plan = self.partitioner_vars[node.value]
        elif isinstance(node, cst.Call):
            plan = partitioners.convert(node, self.tf, self.check_partitioner_names)
        else:
            raise Blocked(partitioners.CODE, "a partitioner must be a tf.compat.v1 partitioner call (or a name "
                                             "assigned one in model_fn)", node)
        self.partitioners.append(plan)
        return plan

    def layer_call(self, attr: str, kind: layers.LayerKind, inputs, training) -> cst.BaseExpression:
        text = f"self.{attr}({code(inputs)}"
        if kind.takes_training:
            text += f", training={self.training_flag(training)}"
        return cst.parse_expression(text + ")")

    # ---- statements ------------------------------------------------------------------------------------------
    def run(self) -> None:
        body = list(self.fn.body.body)
        if body and _docstring(body[0]) is not None:
            self.docstring = _docstring(body[0])
            body = body[1:]
        for stmt in body:
            self.statement(stmt)
        if not self.returned:
            raise Blocked(CODE, "model_fn has no final `return EstimatorSpec(...)`", self.fn)

    def statement(self, stmt: cst.BaseStatement) -> None:
        if self.returned:
            raise Blocked(CODE, "code after the final return is not converted", stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            self.simple(stmt)
        elif isinstance(stmt, cst.If):
            self.mode_branch(stmt)
        elif isinstance(stmt, cst.With):
            self.with_block(stmt)
        else:
            raise Blocked(CODE, f"{type(stmt).__name__.lower()} statement in model_fn is not converted", stmt)

    def simple(self, stmt: cst.SimpleStatementLine) -> None:
        if len(stmt.body) != 1:
            raise Blocked(CODE, "several statements on one line are not converted", stmt)
        small = stmt.body[0]
        if isinstance(small, cst.Return):
            self.final_return(small)
            return
        if isinstance(small, cst.Pass):
            return
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            raise Blocked(CODE, f"statement `{code(small).strip()}` in model_fn is not converted", stmt)
        target = small.targets[0].target.value
        value = small.value
        path = self.tf(value) if isinstance(value, cst.Call) else None
        if self.is_mode(value, "TRAIN"):
            self.training_aliases.add(target)
        elif path in ("train.get_global_step", "train.get_or_create_global_step"):
            self.global_steps.add(target)
        elif path == "get_collection":
            if not (value.args and self.tf(value.args[0].value) == "GraphKeys.UPDATE_OPS"):
                raise Blocked(CODE, "only get_collection(GraphKeys.UPDATE_OPS) is converted", value)
            self.update_ops.add(target)
        elif optimizers.decay_name(path):
            self.schedules[target] = optimizers.convert_decay(value, optimizers.decay_name(path), self.is_global_step)
            self.check_names(value, {self.params} | self.global_steps, "the learning rate")
        elif optimizers.optimizer_name(path):
            self.optimizer = (target, value)
        elif isinstance(value, cst.Call) and _is_minimize(value):
            self.minimize(target, value)
        elif losses.is_loss(path):
            if self.loss is not None:
                raise Blocked(losses.CODE, "a second loss is not converted (sum them into one loss by hand)", value)
            self.loss = (target, losses.convert(value, path, self.labels, self.tf), value)
        elif metrics.metric_name(path):
            self.metric_vars[target] = value
        elif isinstance(value, cst.Dict):
            self.dicts[target] = value
        elif partitioners.name_of(path):
            self.partitioner_vars[target] = partitioners.convert(
                value, self.tf, self.check_partitioner_names)
        elif path == "get_variable":
            self.get_variable(target, value, stmt.leading_lines)
        elif layers.kind_of(path) and layers.kind_of(path)[0] == "class":
            kind = layers.kind_of(path)[1]
            self.class_layers[target] = (kind, bind(value, kind.ctor_args, f"tf.layers.{kind.keras}", layers.CODE), value)
            self.check_names(value, {self.params}, "a layer argument")
        else:
            if self.loss is not None:
                raise Blocked(CODE, f"`{target} = ...` after the loss is not converted", stmt)
            new_value = self.convert_forward(value)
            generated_names = {TF, *({"tf1_mod_rows", "VARIABLE_PARTITIONER"} if self.mod_rows else ())}
            self.check_names(new_value, self.forward | generated_names | {self.params, "self", "training"},
                             f"`{target} = ...`", stmt)
            self.forward.add(target)
            new_stmt = stmt.with_changes(body=[small.with_changes(value=new_value)])
            if self.pending_leading:
                new_stmt = new_stmt.with_changes(leading_lines=[*self.pending_leading, *new_stmt.leading_lines])
                self.pending_leading = []
            self.call_body.append(new_stmt)

    def get_variable(self, target: str, call: cst.Call, stmt_leading) -> None:
        """A weight of the model; its comments move to the next forward statement."""
        name, kwargs, partitioner = variables.get_variable(call, self.tf)
        plan = self.partitioner(partitioner) if partitioner is not None else self.scope_partitioner
        if target in _MODEL_ATTRIBUTES or target in dict(self.layers) or target in self.weights:
            raise Blocked(variables.CODE, f"`{target}` cannot become a model attribute (name taken)", call)
        ctor = f"self.add_weight({', '.join(f'{k}={v}' for k, v in kwargs.items())})"
        self.check_names(cst.parse_expression(ctor), {self.params, "keras", "self"}, "get_variable's arguments", call)
        self.layers.append((target, ctor))
        self.weights[target] = plan is not None
        self.pending_leading = [*self.pending_leading, *stmt_leading]

    def is_global_step(self, node) -> bool:
        if isinstance(node, cst.Name) and node.value in self.global_steps:
            return True
        return isinstance(node, cst.Call) and self.tf(node) in ("train.get_global_step", "train.get_or_create_global_step")

    def minimize(self, target: str, call: cst.Call) -> None:
        owner = call.func.value
        if isinstance(owner, cst.Call) and optimizers.optimizer_name(self.tf(owner)):
            self.optimizer = (None, owner)
        elif not (isinstance(owner, cst.Name) and self.optimizer and owner.value == self.optimizer[0]):
            raise Blocked(optimizers.CODE, "minimize() on something other than the optimizer built above", call)
        args = bind(call, _MINIMIZE_ARGS, "minimize", optimizers.CODE)
        if not (self.loss and isinstance(args.get("loss"), cst.Name) and args["loss"].value == self.loss[0]):
            raise Blocked(optimizers.CODE, "minimize() must minimize the loss computed above", call)
        if "global_step" not in args or not self.is_global_step(args["global_step"]):
            raise Blocked(optimizers.CODE, "minimize() without global_step does not advance training; not converted", call)
        extra = set(args) - {"loss", "global_step", "name"}
        if extra:
            raise Blocked(optimizers.CODE, f"minimize({', '.join(sorted(extra))}=...) is not converted", call)
        self.train_op = target

    def with_block(self, stmt: cst.With) -> None:
        item = stmt.items[0].item if len(stmt.items) == 1 else None
        if isinstance(item, cst.Call) and self.tf(item) == "variable_scope":
            self.variable_scope(stmt, item)
            return
        ok = (
            isinstance(item, cst.Call)
            and self.tf(item) == "control_dependencies"
            and len(item.args) == 1
            and isinstance(item.args[0].value, cst.Name)
            and item.args[0].value.value in self.update_ops
            and stmt.items[0].asname is None
        )
        if not ok:
            raise Blocked(CODE, "only `with tf.control_dependencies(update_ops):` around minimize() is converted", stmt)
        inner = stmt.body.body
        if len(inner) != 1:
            raise Blocked(CODE, "control_dependencies block must contain only the minimize() call", stmt)
        self.simple(inner[0])  # Keras updates batch-norm moving statistics itself
        if self.train_op is None:
            raise Blocked(CODE, "control_dependencies block must assign minimize()", stmt)

    def variable_scope(self, stmt: cst.With, call: cst.Call) -> None:
        if stmt.items[0].asname is not None:
            raise Blocked(variables.CODE, "`variable_scope(...) as scope` is not converted", stmt)
        name, partitioner = variables.variable_scope(call)
        outer = self.scope_partitioner
        if partitioner is not None:
            self.scope_partitioner = self.partitioner(partitioner)
        self.notes.append((variables.CODE, f"variable_scope('{name}') flattened: Keras names weights by layer", call))
        self.pending_leading = [*self.pending_leading, *stmt.leading_lines]
        for inner in stmt.body.body:
            self.statement(inner)
        self.scope_partitioner = outer

    def mode_branch(self, stmt: cst.If) -> None:
        key = next((k for k in ("PREDICT", "EVAL", "TRAIN") if self.is_mode(stmt.test, k)), None)
        body = stmt.body.body
        single_return = (
            len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1
            and isinstance(body[0].body[0], cst.Return)
        )
        if key in (None, "TRAIN") or stmt.orelse is not None or not single_return:
            raise Blocked(CODE, "only `if mode == ModeKeys.PREDICT/EVAL: return EstimatorSpec(...)` branches are converted", stmt)
        self.spec(body[0].body[0].value, key)

    def final_return(self, ret: cst.Return) -> None:
        self.spec(ret.value, "TRAIN")
        self.returned = True

    def spec(self, value, mode: str) -> None:
        if not (isinstance(value, cst.Call) and self.tf(value) == "estimator.EstimatorSpec"):
            raise Blocked(CODE, "model_fn must return tf.estimator.EstimatorSpec(...)", value)
        args = bind(value, _SPEC_ARGS, "EstimatorSpec", CODE)
        for hook in ("training_chief_hooks", "training_hooks", "evaluation_hooks", "prediction_hooks", "scaffold"):
            if hook in args and not is_literal(args[hook], None):
                raise Blocked(CODE, f"EstimatorSpec({hook}=...) is not converted: rewrite hooks as Keras callbacks", args[hook])
        if "export_outputs" in args:
            self.notes.append((CODE, "export_outputs dropped: export the Keras model with model.export()", args["export_outputs"]))
        for key, expected in (("predictions", None), ("loss", self.loss and self.loss[0]),
                              ("train_op", self.train_op), ("eval_metric_ops", None)):
            node = args.get(key)
            if node is None or is_literal(node, None):
                continue
            if key in ("predictions", "eval_metric_ops") and isinstance(node, cst.Dict):
                inline = f"__tfmigrate_{key}__"
                self.dicts[inline] = node
                node = cst.Name(inline)
            if not isinstance(node, cst.Name):
                raise Blocked(CODE, f"EstimatorSpec({key}=...) must name a variable defined above", node)
            if expected is not None and node.value != expected:
                raise Blocked(CODE, f"EstimatorSpec({key}={node.value}) is not the {key} computed above", node)
            if key == "predictions":
                self.spec_predictions = node.value
            if key == "eval_metric_ops":
                self.spec_metrics = node.value
        if mode == "TRAIN" and ("loss" not in args or "train_op" not in args):
            raise Blocked(CODE, "the final EstimatorSpec must carry loss and train_op", value)

    # ---- result ----------------------------------------------------------------------------------------------
    def plan(self, class_name: str) -> ModelPlan:
        if self.loss is None or self.optimizer is None or self.train_op is None:
            raise Blocked(CODE, "model_fn needs a tf.losses loss, an optimizer and minimize()", self.fn)
        loss_name, loss_plan, loss_call = self.loss
        output = loss_plan.output
        if not (isinstance(output, cst.Name) and output.value in self.forward - {self.features}):
            raise Blocked(losses.CODE, "the loss must be computed on a value of the forward pass", loss_call)
        out = output.value
        predictions = None
        if self.spec_predictions:
            pred = self.dicts.get(self.spec_predictions)
            if pred is None:
                raise Blocked(CODE, "predictions must be a dict literal", self.fn)
            self.check_names(pred, {out}, "predictions (only the model output is available)")
            predictions = code(pred)
        metric_ctors = []
        if self.spec_metrics:
            table = self.dicts.get(self.spec_metrics)
            if table is None:
                raise Blocked(metrics.CODE, "eval_metric_ops must be a dict literal", self.fn)
            for element in table.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                    raise Blocked(metrics.CODE, "eval_metric_ops keys must be string literals", table)
                call = element.value
                if isinstance(call, cst.Name) and call.value in self.metric_vars:
                    call = self.metric_vars[call.value]
                name = metrics.metric_name(self.tf(call)) if isinstance(call, cst.Call) else None
                if name is None:
                    raise Blocked(metrics.CODE, f"eval_metric_ops['{element.key.evaluated_value}'] is not a tf.metrics call", element.value)
                ctor = metrics.convert(element.key.evaluated_value, call, name, self.labels, out, loss_name,
                                       self.resolve_prediction, self.tf)
                if ctor is None:
                    self.notes.append((metrics.CODE, f"metric '{element.key.evaluated_value}' (mean of the loss) dropped: Keras reports the loss", call))
                else:
                    metric_ctors.append(ctor)
        opt_name, opt_call = self.optimizer
        lr_node = next((a.value for a in opt_call.args if a.keyword is None or a.keyword.value == "learning_rate"), None)
        learning_rate = None
        if isinstance(lr_node, cst.Name) and lr_node.value in self.schedules:
            learning_rate = self.schedules[lr_node.value]
        elif isinstance(lr_node, cst.Call) and optimizers.decay_name(self.tf(lr_node)):
            learning_rate = optimizers.convert_decay(lr_node, optimizers.decay_name(self.tf(lr_node)), self.is_global_step)
        elif lr_node is not None:
            self.check_names(lr_node, {self.params}, "the learning rate")
        optimizer = optimizers.convert(opt_call, optimizers.optimizer_name(self.tf(opt_call)), learning_rate,
                                       learning_rate is not None, self.profile)
        self.notes.extend((c, m, opt_call) for c, m in optimizer.notes)
        for attr, _ in self.layers:
            if attr in _MODEL_ATTRIBUTES:  # auto-names (dense, conv2d, …) never clash; explicit names might
                raise Blocked(layers.CODE, f"layer name `{attr}` clashes with a keras.Model attribute", self.fn)
        body_text = "".join(code(s) for s in self.call_body)
        return ModelPlan(
            fn_name=self.fn.name.value, class_name=class_name, docstring=self.docstring, features=self.features,
            labels=self.labels, params=self.params, layers=self.layers, call_body=self.call_body,
            params_in_call=self.params in self.free_names(cst.parse_module(body_text)) if body_text else False,
            output=out, predictions=predictions, loss=loss_plan, metrics=metric_ctors, optimizer=optimizer,
            notes=self.notes, partitioner=partitioners.single(self.partitioners, self.fn), mod_rows=self.mod_rows,
        )

    def resolve_prediction(self, node):
        """`predictions["key"]` → the dict's expression for that key."""
        if (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in self.dicts
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.SimpleString)):
            key = node.slice[0].slice.value.evaluated_value
            for element in self.dicts[node.value.value].elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == key:
                    return element.value
        return node


def _docstring(stmt) -> str | None:
    if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.SimpleString)):
        return stmt.body[0].value.value
    return None


def _is_minimize(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "minimize"


def class_name_for(fn_name: str, taken: frozenset[str]) -> str:
    stem = fn_name[:-3] if fn_name.endswith("_fn") else fn_name
    words = [w for w in stem.split("_") if w]
    name = "".join(w[:1].upper() + w[1:] for w in words)
    if not name.lower().endswith("model"):
        name += "Model"
    while name in taken:
        name += "_"
    return name


def _free_name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    """Name nodes used as values (not attribute names, keywords, or inside lambdas)."""
    found: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    node.visit(_V())
    return found


def _rename(node: cst.CSTNode, names: dict[str, str]) -> cst.CSTNode:
    """Replace free uses of `names` by their expressions."""
    hits = {id(n) for n in _free_name_nodes(node) if n.value in names}
    if not hits:
        return node

    class _Replace(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            return cst.parse_expression(names[original.value]) if id(original) in hits else updated

    return node.visit(_Replace())


def interpret(fn: cst.FunctionDef, names: TFNames, module_names: frozenset[str],
              tf1_partitions: bool | None = True, profile: str = "keras3") -> ModelPlan:
    interp = _Interpreter(fn, names, module_names, tf1_partitions, profile)
    interp.run()
    return interp.plan(class_name_for(fn.name.value, module_names))
