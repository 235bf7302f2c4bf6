"""Simple statements: `target = value` by what the value builds or calls (a layer, a Keras model, the loss,
the optimizer, a hook, …), tuple assignments, and expression statements (dropped summaries, logging, prints)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import bind, code, is_literal
from .. import export_outputs as export_rules
from .. import hooks, layers, losses, metrics, optimizers, partitioners
from ._constants import CODE
from ._keras_models import KERAS_MODELS
from ._syntax import debug_print, import_targets, imports_tensorflow_only
from ._train_op import Grads


class AssignmentsMixin:
    """Simple statements, by what they compute."""

    def simple(self, stmt: cst.SimpleStatementLine) -> None:
        if len(stmt.body) != 1:
            raise Blocked(CODE, "several statements on one line are not converted", stmt)
        small = stmt.body[0]
        kind = type(small)  # (exact types: see _syntax._LITERALS)
        if kind is cst.Return:
            self.returns(small)
            return
        if kind is cst.Pass:
            return
        if kind is cst.Del:  # `del params`: an argument the model_fn does not use (_unused_args)
            self.del_statement(small, stmt)
            return
        if (kind is cst.Import or kind is cst.ImportFrom) and imports_tensorflow_only(small):
            self.repeated_import(small, stmt)
            return
        if kind is cst.Assert:  # `assert mode == ModeKeys.TRAIN`: the other modes stop here
            modes = self.mode_set(small.test)
            if modes is None:
                raise Blocked(CODE, f"`assert {code(small.test)}` is not converted: only asserts on mode are", stmt)
            self.live = self.live - (self.active - modes)
            self.active = self.active & modes
            return
        if kind is cst.Expr:
            self.expression(small.value, stmt)
            return
        if kind is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Tuple:
            self.tuple_assign(small.targets[0].target, small.value, stmt)
            return
        if not (kind is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name):
            raise Blocked(CODE, f"statement `{code(small).strip()}` in model_fn is not converted", stmt)
        self.assign(small.targets[0].target.value, small.value, stmt, small)

    def repeated_import(self, small: cst.Import | cst.ImportFrom, stmt: cst.SimpleStatementLine) -> None:
        """`import tensorflow as tf` inside the model_fn, repeating a module-level import: the names mean what
        the module's import makes them mean (the converted module keeps its TensorFlow import); the statement goes
        with the model_fn. Another binding would change what the body's names mean: blocked."""
        if self.module_imports is None:
            from tfmigrate.names import build_import_table

            self.module_imports = build_import_table(self.module) if self.module is not None else None
        for name, target in import_targets(small):
            if self.module_imports is None or not any(
                    b.kind in ("import", "from") and b.target == target
                    for b in self.module_imports.bindings.get(name, ())):
                raise Blocked(CODE, f"`{code(small).strip()}` inside the model_fn binds `{name}` to {target}, "
                                    "which no module-level import does: import it at module level (the "
                                    "converted model reads the module's names)", stmt)

    def assign(self, target: str, value: cst.BaseExpression, stmt: cst.SimpleStatementLine, small: cst.Assign) -> None:
        """`target = value`: a network helper's call, a statement of a loop, the spec, a Keras model, Input, layer
        list or loss object; else what the value computes (assign_value)."""
        helper = self.layer_helper(value)
        if helper is not None:
            self.inline_helper(target, value, helper, stmt)
            return
        self.nested_layer_helper(value)
        if self.loop is not None:
            self.forward_statement(target, stmt, small)
            return
        if isinstance(value, cst.Call) and self.is_spec(value):
            self.pending_spec = (target, value, stmt, self.active)  # returned by the next statement
            return
        if self.tpu is not None and isinstance(value, cst.Tuple) and self.assign_counts.get(target) == 1 \
                and len(value.elements) == 2 and isinstance(value.elements[0].value, cst.Name) \
                and value.elements[0].value.value in set(self.tpu_fns) | set(self.helpers):
            self.tpu_metrics[target] = value  # `eval_metrics = (metric_fn, [labels, logits])`
            return
        if isinstance(value, cst.Call) and self.tf(value) in ("keras.Input", "keras.layers.Input"):
            self.keras_input(target, value, stmt)
            return
        if self.symbolic_layer(target, value, stmt):
            return
        if self.layer_list(target, value):
            return
        self.symbolic.pop(target, None)  # rebound to something else
        if isinstance(value, cst.Call) and self.tf(value) in KERAS_MODELS:
            self.keras_model(target, value, value)
            return
        helper = self.model_helper(value)
        if helper is not None:
            self.keras_model(target, helper, value)
            return
        if isinstance(value, cst.Call) and losses.keras_loss_class(self.tf(value)):
            self.whole_model("a Keras loss object", value)
            self.check_names(value, {self.params}, "the Keras loss's arguments")
            self.loss_objects[target] = (losses.keras_loss_object(value, self.tf(value), self.tf), stmt)
            self.bind_name(target, "loss_object")
            return
        self.assign_value(target, value, stmt, small)

    def assign_value(self, target: str, value: cst.BaseExpression, stmt: cst.SimpleStatementLine,
                     small: cst.Assign) -> None:
        """`target = value` by the TF API the value calls (a hook, a summary, the global step, UPDATE_OPS, a
        learning-rate schedule, the optimizer and its training op, gradients, the loss, a metric, an export output,
        a layer object, get_variable, …) or what it reads (labels: a loss candidate); else a forward statement."""
        path = self.tf(value) if isinstance(value, cst.Call) else None
        method = value.func.attr.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) else None
        comprehension = self.grads_of(value) if isinstance(value, cst.ListComp) else None  # over gradients?
        if is_literal(value, None):
            self.bind_name(target, "none")
        elif self.mode_set(value) == frozenset({"TRAIN"}):
            self.training_aliases.add(target)
        elif hooks.hook_kind(path) == hooks.NAN:
            self.nan_hook(value)
            self.nan_hooks[target] = value
            self.bind_name(target, "dropped")
        elif hooks.hook_kind(path) in (hooks.LOGGING, hooks.STEP_COUNTER):
            self.logging_names[target] = value  # converted in plan() where training_hooks attach it
            self.bind_name(target, "dropped")
        elif hooks.hook_kind(path) == hooks.STOP:
            self.stop_names[target] = value  # converted in plan() where training_hooks attach it (_hook_values)
            self.bind_name(target, "dropped")
        elif hooks.hook_kind(path) == hooks.SUMMARY:
            # what it writes is read here: merge_all() merges the summaries built so far
            self.summary_hook_names[target] = (value, self.summary_hook(value))
            self.bind_name(target, "dropped")
        elif path in ("summary.merge_all", "summary.merge"):
            self.summary_ops[target] = self.summary_op_calls(value)
            self.dropped.add(target)
            self.bind_name(target, "dropped")
        elif self.drop(path, value):
            if path.startswith("summary."):
                self.summary_ops[target] = [value]
            self.dropped.add(target)
            self.bind_name(target, "dropped")
        elif path in ("train.get_global_step", "train.get_or_create_global_step"):
            self.global_steps.add(target)
        elif path == "get_collection":
            if not self.is_update_ops(value):
                raise Blocked(CODE, "only get_collection(GraphKeys.UPDATE_OPS) is converted", value)
            self.update_ops.add(target)
        elif optimizers.decay_name(path):
            self.schedules[target] = optimizers.convert_decay(value, optimizers.decay_name(path), self.is_global_step)
            self.check_names(value, {self.params} | self.global_steps, "the learning rate")
        elif optimizers.optimizer_name(path):
            self.optimizer = (target, value)
        elif method == "minimize":
            self.minimize(target, value)
        elif method == "compute_gradients":
            self.grads[target] = self.compute_gradients(value)
        elif method == "apply_gradients":
            self.apply_gradients(target, value)
        elif path == "gradients":
            self.grads[target] = self.tf_gradients(value)
        elif path == "trainable_variables":
            if value.args:
                raise Blocked(optimizers.CODE, "trainable_variables(scope=...) is not converted: TF2 trains every "
                                               "trainable variable of the model", value)
            self.trainable_lists.add(target)
        elif path == "clip_by_global_norm":
            raise Blocked(optimizers.CODE, "assign both results of clip_by_global_norm: `grads, _ = "
                                           "tf.clip_by_global_norm(grads, clip_norm)`", value)
        elif comprehension is not None and comprehension.kind == "vars":
            self.trainable_lists.add(target)
        elif comprehension is not None:
            self.grads[target] = comprehension
        elif path == "group":
            self.group(target, value)
        elif losses.is_loss(path):
            self.tf_loss(target, value, path)
        elif path == "losses.get_total_loss":
            self.total_loss(target, value)
        elif path == "losses.add_loss":
            raise Blocked(losses.CODE, "tf.losses.add_loss is not converted: add the term to the loss expression", value)
        elif metrics.metric_name(path):
            self.metric_vars[target] = value
        elif export_rules.is_export_output(path):
            self.bind_name(target, "export_output", value)  # read by export_outputs (rules/planners/export_outputs.py)
        elif isinstance(value, cst.Dict):
            self.dicts[target] = value
            if self.scope_depth:
                self.scoped.add(target)
            self.bind_name(target, "dict", value)
        elif partitioners.name_of(path):
            self.partitioner_vars[target] = partitioners.convert(
                value, self.tf, self.check_partitioner_names)
        elif path == "get_variable":
            self.whole_model("get_variable", value)
            self.get_variable(target, value, stmt.leading_lines)
        elif layers.kind_of(path) and layers.kind_of(path)[0] in ("class", "keras"):
            self.whole_model("a layer", value)
            family, kind = layers.kind_of(path)
            args = self.ctor_args(kind, family, value)
            name = None
            if family == "keras":
                self.family("keras", value)
                name = self.keras_layer_name(kind, layers.explicit_name(args), value)
            self.class_layers[target] = (kind, args, value, "v1" if family == "class" else "keras", name)
        elif self.uses_labels(value) and not self.builds_layers(value):
            self.label_value(target, stmt, value)
        else:
            self.forward_statement(target, stmt, small)

    def expression(self, value, stmt) -> None:
        path = self.tf(value) if isinstance(value, cst.Call) else None
        if self.drop(path, value):
            return
        if path == "summary.merge_all" and not value.args:  # a statement: the merged op goes nowhere
            self.notes.append((CODE, "tf.summary.merge_all() dropped: its result was not used (the Estimator merged "
                                     "and wrote the summaries itself; each summary's own note says what it wrote)",
                               value))
            return
        if debug_print(value, self.module_names):
            self.notes.append((CODE, "print(...) dropped: it printed once, while the TF1 graph was built (the tensors' "
                                     "descriptions, not their values); tf.print in call() prints values", value))
            return
        if losses.is_loss(path):
            self.tf_loss(None, value, path)  # read back through get_total_loss()
            return
        if path == "losses.add_loss":
            raise Blocked(losses.CODE, "tf.losses.add_loss is not converted: add the term to the loss expression", value)
        if path in ("set_random_seed", "random.set_random_seed", "random.set_seed"):
            # TF 2.15, measured: the seed of the Estimator's graph from here on, the weights then as with
            # RunConfig(tf_random_seed=...); the input pipeline, built before the model_fn ran, stayed unseeded
            raise Blocked(CODE, f"`{code(value).strip()}` in the model_fn seeds the Estimator's graph from this point "
                                "on (its weights, not the input_fn's ops built before it) and is not converted: move "
                                "the seed to RunConfig(tf_random_seed=...), converted to keras.utils.set_random_seed "
                                "(which seeds the input pipeline too), and delete this call", value)
        raise Blocked(CODE, f"statement `{code(value).strip()}` in model_fn is not converted", stmt)

    def tuple_assign(self, target: cst.Tuple, value, stmt) -> None:
        names = [e.value.value if isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement) else None
                 for e in target.elements]
        if None in names:
            raise Blocked(CODE, f"statement `{code(stmt).strip()}` in model_fn is not converted", stmt)
        helper = self.layer_helper(value)
        if helper is not None:  # `(loss, logits) = create_model(...)`: inlined, one assignment per value
            self.inline_helper(tuple(names), value, helper, stmt)
            return
        if isinstance(value, cst.Tuple) and all(is_literal(e.value, None) for e in value.elements) \
                and len(value.elements) == len(names):
            for name in names:
                self.bind_name(name, "none")
            return
        if isinstance(value, cst.Call) and len(names) == 2:
            path = self.tf(value)
            # gradients, variables = zip(*optimizer.compute_gradients(loss))
            if (isinstance(value.func, cst.Name) and value.func.value == "zip" and "zip" not in self.module_names
                    and len(value.args) == 1 and value.args[0].star == "*"):
                pairs = self.grads_of(value.args[0].value)
                if pairs is not None and pairs.kind == "pairs":
                    self.grads[names[0]] = Grads("list", pairs.transforms, pairs.unscaled, value)
                    self.trainable_lists.add(names[1])
                    return
            # grads, _ = tf.clip_by_global_norm(grads, clip_norm)
            if path == "clip_by_global_norm":
                args = bind(value, ["t_list", "clip_norm", "use_norm", "name"], "tf.clip_by_global_norm", optimizers.CODE)
                grads = self.grads_of(args.get("t_list"))
                if grads is None or grads.kind != "list" or "clip_norm" not in args:
                    raise Blocked(optimizers.CODE, "clip_by_global_norm is converted on the gradient list of "
                                                   "compute_gradients or tf.gradients", value)
                if "use_norm" in args and not is_literal(args["use_norm"], None):
                    raise Blocked(optimizers.CODE, "clip_by_global_norm(use_norm=...) is not converted", value)
                self.check_names(args["clip_norm"], {self.params}, "the clip norm")
                step = f"grads, _ = {code(value.func)}(grads, {code(args['clip_norm'])})"
                self.grads[names[0]] = Grads("list", (*grads.transforms, step), grads.unscaled, value)
                self.dropped.add(names[1])
                return
        if self.module_unpack(names, value, stmt):  # `(a, b) = INPUT_COLUMNS` (_unpacked_columns.py)
            return
        if (self.loop is None and self.loss is None and self.active == self.live
                and self.free_names(value) & self.forward and not self.builds_layers(value)
                and not self.uses_labels(value)):
            # `words, nwords = features` (tuple features), `mean, var = tf.nn.moments(x, [0])`: forward values
            self.refuse_variable_makers(value, stmt)
            self.check_names(value, self.forward | {self.params}, f"`{code(target)} = ...`", stmt)
            for name in names:
                self.forward.add(name)
                self.bind_name(name, "forward")
            if self.pending_leading:
                stmt = stmt.with_changes(leading_lines=[*self.pending_leading, *stmt.leading_lines])
                self.pending_leading = []
            self.call_body.append(stmt)
            return
        raise Blocked(CODE, f"statement `{code(stmt).strip()}` in model_fn is not converted", stmt)
