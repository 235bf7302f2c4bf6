"""The training op: minimize, compute_gradients/apply_gradients, tf.gradients and the gradient processing
between them (→ a generated optimizer subclass), tf.group and control_dependencies(UPDATE_OPS)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...emit.wrap import generated
from ...facts.calls import bind, code, is_literal
from .. import optimizers
from ._constants import CODE

_MINIMIZE_ARGS = ["loss", "global_step", "var_list", "gate_gradients", "aggregation_method",
                  "colocate_gradients_with_ops", "name", "grad_loss"]


def _without_global_step(method: str) -> str:
    """Why `optimizer.<method>(...)` without global_step= is not converted, and what to write instead."""
    return (f"{method}() without global_step=<the global step> is not converted: the Estimator counts training "
            f"steps (steps, max_steps, checkpoints) by the global step, which {method}() advances only when given it, "
            "and a global step advanced by hand (tf.compat.v1.assign_add) or not at all is not converted; pass "
            f"global_step=tf.compat.v1.train.get_global_step() to {method}()")


_COMPUTE_GRADIENTS_ARGS = ["loss", "var_list", "gate_gradients", "aggregation_method", "colocate_gradients_with_ops",
                           "grad_loss"]
_APPLY_GRADIENTS_ARGS = ["grads_and_vars", "global_step", "name"]
_GRADIENTS_ARGS = ["ys", "xs", "grad_ys", "name", "colocate_gradients_with_ops", "gate_gradients",
                   "aggregation_method", "stop_gradients", "unconnected_gradients"]


@dataclass(frozen=True)
class Grads:
    """Gradients on their way to apply_gradients: (grad, var) pairs or a gradient list, and what was done to them."""
    kind: str  # "pairs" (compute_gradients' list), "list" (gradients only, in variable order), "vars" (the variables)
    transforms: tuple[str, ...] = ()  # statements rewriting `grads` (user expressions), in order
    unscaled: bool = False  # tf.gradients: TF1 did not scale the loss by 1/replicas
    node: cst.CSTNode | None = None


class TrainOpMixin:
    """The training op and the gradient processing."""

    def is_global_step(self, node) -> bool:
        if isinstance(node, cst.Name) and node.value in self.global_steps:
            return True
        return isinstance(node, cst.Call) and self.tf(node) in ("train.get_global_step", "train.get_or_create_global_step")

    def is_update_ops(self, node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.update_ops
        return (isinstance(node, cst.Call) and self.tf(node) == "get_collection" and len(node.args) == 1
                and self.tf(node.args[0].value) == "GraphKeys.UPDATE_OPS")

    def on_optimizer(self, call: cst.Call, what: str) -> None:
        owner = call.func.value
        if isinstance(owner, cst.Call) and optimizers.optimizer_name(self.tf(owner)):
            self.optimizer = (None, owner)
        elif not (isinstance(owner, cst.Name) and self.optimizer and owner.value == self.optimizer[0]):
            raise Blocked(optimizers.CODE, f"{what}() on something other than the optimizer built above", call)

    def minimize(self, target: str, call: cst.Call) -> None:
        self.on_optimizer(call, "minimize")
        args = bind(call, _MINIMIZE_ARGS, "minimize", optimizers.CODE)
        if not self.is_loss(args.get("loss"), "minimize"):
            raise Blocked(optimizers.CODE, "minimize() must minimize the loss computed above", call)
        if "global_step" not in args or not self.is_global_step(args["global_step"]):
            raise Blocked(optimizers.CODE, _without_global_step("minimize"), call)
        extra = set(args) - {"loss", "global_step", "name"}
        if extra:
            raise Blocked(optimizers.CODE, f"minimize({', '.join(sorted(extra))}=...) is not converted", call)
        self.set_train_op(target, Grads("pairs"), call)

    def set_train_op(self, target: str, grads: Grads, node) -> None:
        if self.train_op is not None and self.grad_transforms != grads:
            raise Blocked(optimizers.CODE, "a second, different training op is not converted", node)
        self.train_op, self.grad_transforms = target, grads
        self.train_op_count += 1
        self.bind_name(target, "train_op")

    def compute_gradients(self, call: cst.Call) -> Grads:
        self.on_optimizer(call, "compute_gradients")
        args = bind(call, _COMPUTE_GRADIENTS_ARGS, "compute_gradients", optimizers.CODE)
        if not self.is_loss(args.get("loss"), "compute_gradients"):
            raise Blocked(optimizers.CODE, "compute_gradients() must differentiate the loss computed above", call)
        var_list = args.get("var_list")
        if var_list is not None and not is_literal(var_list, None) and not self.is_trainable_list(var_list):
            raise Blocked(optimizers.CODE, "compute_gradients(var_list=...) on a subset of the variables is not "
                                           "converted: TF2 trains every trainable variable of the model", call)
        extra = set(args) - {"loss", "var_list"}
        if extra:
            raise Blocked(optimizers.CODE, f"compute_gradients({', '.join(sorted(extra))}=...) is not converted", call)
        return Grads("pairs", node=call)

    def tf_gradients(self, call: cst.Call) -> Grads:
        args = bind(call, _GRADIENTS_ARGS, "tf.gradients", optimizers.CODE)
        if not self.is_loss(args.get("ys"), "tf.gradients"):
            raise Blocked(optimizers.CODE, "tf.gradients must differentiate the loss computed above", call)
        if not self.is_trainable_list(args.get("xs")):
            raise Blocked(optimizers.CODE, "tf.gradients is converted on tf.compat.v1.trainable_variables() only", call)
        extra = set(args) - {"ys", "xs", "name"}
        if extra:
            raise Blocked(optimizers.CODE, f"tf.gradients({', '.join(sorted(extra))}=...) is not converted", call)
        return Grads("list", unscaled=True, node=call)

    def is_trainable_list(self, node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.trainable_lists
        return isinstance(node, cst.Call) and self.tf(node) == "trainable_variables" and not node.args

    def grads_of(self, node) -> Grads | None:
        if isinstance(node, cst.Name):
            return self.grads.get(node.value)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "compute_gradients":
                return self.compute_gradients(node)
        if isinstance(node, cst.Call) and self.tf(node) == "gradients":
            return self.tf_gradients(node)
        if isinstance(node, cst.ListComp):
            return self.gradient_comprehension(node)
        return None

    def gradient_comprehension(self, comp: cst.ListComp) -> Grads | None:
        """`[(f(g), v) for g, v in grads_and_vars]` or `[f(g) for g in grads]` (optionally `if g is not None`)."""
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.asynchronous is not None or len(loop.ifs) > 1:
            return None
        source = self.grads_of(loop.iter)
        if source is None:
            return None
        target, element = loop.target, comp.elt
        if (source.kind == "pairs" and not loop.ifs and isinstance(element, cst.Name) and isinstance(target, cst.Tuple)
                and len(target.elements) == 2 and all(isinstance(e.value, cst.Name) for e in target.elements)):
            # [g for g, v in grads_and_vars] / [v for g, v in grads_and_vars]
            if element.value == target.elements[0].value.value:
                return Grads("list", source.transforms, source.unscaled, comp)
            if element.value == target.elements[1].value.value:
                return Grads("vars", node=comp)
        if source.kind == "pairs":
            if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
                    and all(isinstance(e.value, cst.Name) for e in target.elements)
                    and isinstance(element, cst.Tuple) and len(element.elements) == 2
                    and isinstance(element.elements[1].value, cst.Name)
                    and element.elements[1].value.value == target.elements[1].value.value):
                raise Blocked(optimizers.CODE, "a gradient comprehension is converted as `[(f(g), v) for g, v in "
                                               "grads_and_vars]`", comp)
            grad, expr = target.elements[0].value.value, element.elements[0].value
            var = target.elements[1].value.value
        else:
            if not isinstance(target, cst.Name):
                raise Blocked(optimizers.CODE, "a gradient comprehension is converted as `[f(g) for g in grads]`", comp)
            grad, expr, var = target.value, element, None
        if var is not None and var in self.free_names(expr):
            raise Blocked(optimizers.CODE, "a gradient transformation that depends on the variable is not converted", comp)
        self.check_names(expr, {grad, self.params}, "the gradient transformation", comp)
        filtered = False
        if loop.ifs:
            test = loop.ifs[0].test
            filtered = (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name)
                        and test.left.value == grad and len(test.comparisons) == 1
                        and isinstance(test.comparisons[0].operator, cst.IsNot)
                        and is_literal(test.comparisons[0].comparator, None))
            if not filtered:
                raise Blocked(optimizers.CODE, f"a gradient comprehension may only filter `if {grad} is not None`", comp)
        expr_code = code(expr)
        step = (f"grads = [None if {grad} is None else {expr_code} for {grad} in grads]" if filtered
                else f"grads = [{expr_code} for {grad} in grads]")
        return Grads(source.kind, (*source.transforms, step), source.unscaled, comp)

    def apply_gradients(self, target: str, call: cst.Call) -> None:
        self.on_optimizer(call, "apply_gradients")
        args = bind(call, _APPLY_GRADIENTS_ARGS, "apply_gradients", optimizers.CODE)
        pairs = args.get("grads_and_vars")
        grads = self.grads_of(pairs)
        if (grads is None and isinstance(pairs, cst.Call) and isinstance(pairs.func, cst.Name)
                and pairs.func.value == "zip" and "zip" not in self.module_names and len(pairs.args) == 2
                and not any(a.star or a.keyword for a in pairs.args) and self.is_trainable_list(pairs.args[1].value)):
            grads = self.grads_of(pairs.args[0].value)
            grads = grads if grads is not None and grads.kind == "list" else None
        elif grads is not None and grads.kind != "pairs":
            grads = None
        if grads is None:
            raise Blocked(optimizers.CODE, "apply_gradients() is converted on compute_gradients' pairs (optionally "
                                           "transformed) or zip(gradients, trainable_variables)", call)
        if "global_step" not in args or not self.is_global_step(args["global_step"]):
            raise Blocked(optimizers.CODE, _without_global_step("apply_gradients"), call)
        if grads.transforms and self.profile != "keras3":
            raise Blocked(optimizers.CODE, "gradient clipping is converted for Keras 3 programs; parameter-server "
                                           "programs run on tf_keras, where it is not available yet", call)
        self.set_train_op(target, grads, call)

    def group(self, target: str, call: cst.Call) -> None:
        """`tf.group(minimize_op, update_ops)`, `tf.group([train_op, *update_ops])`, `tf.group(optimizer.minimize(...))`:
        the update ops run inside Keras' layers; the train op is the step. Any other op in the group ran with every
        training step (a counter's assign_add, an EMA update) and has no place in Keras' step: blocked, named."""
        items = []
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value != "name":
                raise Blocked(CODE, f"tf.group({arg.keyword.value}=...) is not converted", call)
            if arg.keyword is None and isinstance(arg.value, (cst.List, cst.Tuple)):
                items.extend(e.value for e in arg.value.elements)
            elif arg.keyword is None:
                items.append(arg.value)
        train_ops, others = [], []
        for item in items:
            method = item.func.attr.value if isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) else None
            if isinstance(item, cst.Name) and self.bound(item.value, "train_op"):
                train_ops.append(item)
            elif method in ("minimize", "apply_gradients"):  # the step written inline in the group
                (self.minimize if method == "minimize" else self.apply_gradients)(target, item)
                train_ops.append(item)
            elif not self.is_update_ops(item):
                others.append(item)
        if others:
            raise Blocked(CODE, f"tf.group(..., {code(others[0])}): an op grouped with the training op ran at every "
                                "training step, which Keras' train step does not; only the training op and the "
                                "UPDATE_OPS collection are converted in a tf.group (drop the extra op, or keep this "
                                "job on TF 2.15)", others[0])
        if len(train_ops) != 1:
            raise Blocked(CODE, "tf.group is converted on exactly one training op (minimize/apply_gradients) and the "
                                "UPDATE_OPS collection", call)
        self.bind_name(target, "train_op")
        self.train_op = target
        self.train_op_count += 1
        self.update_ops_run = True

    def with_block(self, stmt: cst.With) -> None:
        item = stmt.items[0].item if len(stmt.items) == 1 else None
        if isinstance(item, cst.Call) and self.tf(item) == "variable_scope":
            self.variable_scope(stmt, item)
            return
        ok = (
            isinstance(item, cst.Call)
            and self.tf(item) == "control_dependencies"
            and len(item.args) == 1
            and self.is_update_ops(item.args[0].value)
            and stmt.items[0].asname is None
        )
        if not ok:
            raise Blocked(CODE, "only `with tf.control_dependencies(update_ops):` around the training op is converted", stmt)
        before = self.train_op_count

        def inner_statement(inner) -> None:  # Keras updates batch-norm moving statistics itself
            if isinstance(inner, cst.SimpleStatementLine) and any(isinstance(s, cst.Return) for s in inner.body):
                raise Blocked(CODE, "a return inside control_dependencies is not converted", inner)
            self.statement(inner)

        tainted: set[str] = set()
        errors = self.each(stmt.body.body, inner_statement, tainted)
        if errors:  # (the training op's statement among them: not "must assign the training op" besides)
            self.update_ops_run = self.update_ops_run or self.train_op_count != before
            raise self.blocked_inside(errors, tainted)
        if self.train_op_count == before:
            raise Blocked(CODE, "control_dependencies block must assign the training op", stmt)
        self.update_ops_run = True

    def clipped_optimizer(self, optimizer: optimizers.OptimizerPlan, class_name: str) -> optimizers.OptimizerPlan:
        """The optimizer class with the model_fn's gradient processing in apply(): Keras 3 calls it per replica,
        before summing the gradients over replicas, where TF1 applied the user's clipping too."""
        grads = self.grad_transforms
        callee, rest = optimizer.ctor.split("(", 1)
        name = f"{class_name}Optimizer"  # one per model class: two model_fns may clip differently
        if name in self.module_names:
            raise Blocked(optimizers.CODE, f"`{name}` is taken in this module; the generated optimizer needs it", grads.node)
        uses_params = any(self.params in self.free_names(cst.parse_module(t)) for t in grads.transforms)
        lines = [f"class {name}({callee}):",
                 f'    """{callee} with the gradient processing {self.fn.name.value} did before apply_gradients.',
                 "",
                 "    Keras calls apply() on each replica's gradients before summing them over replicas, which is where",
                 "    TF1 transformed them too.",
                 '    """', ""]
        if uses_params:
            lines += [f"    def __init__(self, {self.params}=None, **kwargs):", "        super().__init__(**kwargs)",
                      f"        self.{self.params} = {self.params}", ""]
        lines.append("    def apply(self, grads, trainable_variables=None):")
        if uses_params:
            lines.append(f"        {self.params} = self.{self.params}")
        if grads.unscaled:
            lines += ["        # tf.gradients differentiated each replica's loss before the optimizer's 1/replicas scaling",
                      "        replicas = tf.distribute.get_strategy().num_replicas_in_sync",
                      "        if replicas > 1:",
                      "            grads = [None if g is None else g * replicas for g in grads]"]
            self.notes.append((optimizers.CODE, "tf.gradients took each replica's unscaled loss: the generated "
                                                f"{name} multiplies Keras' gradients by the replica count (exact for "
                                                "1, 2, 4, … replicas)", grads.node))
        head = generated("\n".join(lines))
        body = [f"        {t}" for t in grads.transforms]
        tail = "        return super().apply(grads, trainable_variables)"
        support = "\n".join([head, *body, tail]) + "\n"
        if optimizer.support_code:
            support = optimizer.support_code.strip("\n") + "\n\n\n" + support
        args = f"{self.params}, " if uses_params else ""
        return dataclasses.replace(optimizer, ctor=f"{name}({args}{rest}", support_code=support)
