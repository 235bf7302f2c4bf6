"""The loss: one tf.compat.v1.losses call (TFM201), or a hand-written one on labels and the model output → a
generated `<Model>Loss(keras.losses.Loss)`, with the tf.keras loss objects it calls."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import standalone
from tfmigrate.visitors import Transformer

from ...emit.wrap import generated
from ...facts.calls import bind, code, is_literal
from .. import losses
from ._signature import class_name_for


class LossMixin:
    """The loss."""

    def uses_labels(self, node) -> bool:
        return bool(self.free_names(node) & ({self.labels} | set(self.label_values)))

    def label_value(self, target: str, stmt: cst.SimpleStatementLine, value) -> None:
        """A hand-written value on labels (`tf.reduce_mean(tf.square(labels - preds))`): the loss, if used as one."""
        self.check_names(value, self.forward | {self.labels, self.params} | set(self.label_values)
                         | set(self.loss_objects), f"`{target} = ...`", stmt)
        self.label_values[target] = stmt
        self.label_order.append((target, stmt))
        self.bind_name(target, "label")

    def label_expression(self, name: str):
        """The expression a model_fn local holds when it was computed from the labels alone (`x = f(labels)`)."""
        stmt = self.label_values.get(name)
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        return small.value if isinstance(small, cst.Assign) else None

    def tf_loss(self, target: str | None, call: cst.Call, path: str) -> None:
        if self.loss is not None:
            raise Blocked(losses.CODE, "a second loss is not converted (sum them into one loss by hand)", call)
        self.loss = (target, losses.convert(call, path, self.labels, self.tf, self.label_expression), call)
        if target:
            self.bind_name(target, "loss")

    def total_loss(self, target: str, call: cst.Call) -> None:
        args = bind(call, ["add_regularization_losses", "name", "scope"], "tf.losses.get_total_loss", losses.CODE)
        if self.loss is None or not isinstance(self.loss[1], losses.LossPlan) or self.loss[1].scalar:
            raise Blocked(losses.CODE, "get_total_loss() is converted after exactly one tf.compat.v1.losses call", call)
        if "scope" in args and not is_literal(args["scope"], None):
            raise Blocked(losses.CODE, "get_total_loss(scope=...) is not converted", call)
        # the sum of the one tf.losses loss and the regularization losses; regularizers are not converted (TFM101,
        # TFM811), so there are none and the total is that loss
        self.loss = (target, self.loss[1], self.loss[2])
        self.bind_name(target, "loss")

    def is_loss(self, node, what: str) -> bool:
        """`node` names the loss (a hand-written loss on labels becomes the loss here)."""
        if not isinstance(node, cst.Name):
            return False
        if self.bound(node.value, "loss"):
            return True
        if node.value in self.label_values and self.loss is None:
            self.hand_written_loss(node.value, node)
            return True
        return False

    def hand_written_loss(self, name: str, use) -> None:
        # the assignments the loss depends on (a name may be reassigned: `loss = loss * scale`)
        latest = lambda n, before: max(i for i, (t, _) in enumerate(self.label_order[:before]) if t == n)  # noqa: E731
        chain, todo = set(), [latest(name, len(self.label_order))]
        while todo:
            index = todo.pop()
            if index in chain:
                continue
            chain.add(index)
            value = self.label_order[index][1].body[0].value
            for dep in self.free_names(value) & {t for t, _ in self.label_order[:index]}:
                todo.append(latest(dep, index))
        stmts = [self.label_order[i][1] for i in sorted(chain)]
        used = set().union(*(self.free_names(s.body[0].value) for s in stmts))
        stmts, objects, summed = self.keras_loss_objects(stmts, used, use)
        outputs = sorted(used & (self.forward - {self.features}))
        if len(outputs) != 1:
            what = "no value" if not outputs else ", ".join(f"`{o}`" for o in outputs)
            raise Blocked(losses.CODE, f"the hand-written loss `{name}` reads {what} of the forward pass; it is converted "
                                       "when it reads exactly one (the model output)", use)
        output = outputs[0]
        if self.features in used:
            raise Blocked(losses.CODE, f"the hand-written loss `{name}` reads features; it is converted when it reads "
                                       "labels and the model output only", use)
        reserved = {"self", "sample_weight", "replicas"} & ({self.label_order[i][0] for i in chain} | used)
        if reserved:
            raise Blocked(losses.CODE, f"the hand-written loss uses the name `{sorted(reserved)[0]}`, which the "
                                       "generated loss class needs", use)
        class_name = f"{class_name_for(self.fn.name.value, self.module_names)}Loss"
        if class_name in self.module_names:
            raise Blocked(losses.CODE, f"`{class_name}` is taken in this module; the generated loss class needs it", use)
        with_params = self.params in used
        scaling = (["    came. Its Keras loss reduces with SUM: the Estimator's optimizer did not scale it by 1/replicas,",
                    "    and neither does this class; the custom loop sums the gradients over replicas."] if summed else
                   ["    came. Scaled by 1/replicas under a strategy, as the Estimator's optimizer scaled it;",
                    '    reduction="none" (custom loop) gives the unscaled values compute_average_loss averages.'])
        lines = [generated(f"class {class_name}(keras.losses.Loss):"),
                 f'    """The loss {self.fn.name.value} wrote by hand, computed exactly as written.',
                 "",
                 "    keras.losses.Loss would cast the labels to float and reshape them first; TF1 used them as they",
                 *scaling,
                 '    """']
        if with_params:
            lines += ["", f"    def __init__(self, {self.params}=None, **kwargs):", "        super().__init__(**kwargs)",
                      f"        self.{self.params} = {self.params}"]
        lines += ["", f"    def __call__(self, {self.labels}, {output}, sample_weight=None):"]
        if with_params:
            lines.append(f"        {self.params} = self.{self.params}")
        for obj in objects:  # tf.keras loss objects the statements call, in Keras 3's spelling
            lines.append(f"        {obj} = {self.loss_objects[obj][0].ctor}")
        last = stmts[-1].body[0].value
        per_example = not summed and (isinstance(last, cst.Call) and self.tf(last) in ("reduce_mean", "math.reduce_mean")
                       and len(last.args) == 1 and last.args[0].keyword is None and not last.args[0].star)
        for stmt in stmts[:-1] if per_example else stmts:
            for line in code(stmt.with_changes(leading_lines=[])).rstrip("\n").splitlines():
                lines.append("        " + line)
        if per_example:
            if "per_element" in used | {self.label_order[i][0] for i in chain}:
                raise Blocked(losses.CODE, "the hand-written loss uses the name `per_element`, which the generated "
                                           "loss class needs", use)
            # a mean over all elements = the mean of the per-example means (same count per example): the custom
            # loop's compute_average_loss averages those over the global batch, as it does for tf.losses losses
            lines += ['        if self.reduction == "none":  # per-example means, for a custom training loop',
                      f"            per_element = {standalone(code(last.args[0].value))}",
                      generated("            return tf.reduce_mean(tf.reshape(per_element, [tf.shape(per_element)[0], "
                                "-1]), axis=1)")]
            for line in code(stmts[-1].with_changes(leading_lines=[])).rstrip("\n").splitlines():
                lines.append("        " + line)
        elif summed:
            # the marker lets verify record this value with its labels' batch, as it records the model_fn's loss
            lines.insert(lines.index('    """', 1) + 1, "\n    tf1_scalar_loss = True  # the model_fn's own loss per replica")
            lines.append(f"        return {name}  # reduction SUM: TF1 did not scale it by 1/replicas; gradients are "
                         "summed over replicas")
        else:
            self.notes.append((losses.CODE, f"the hand-written loss `{name}` is not a tf.reduce_mean over the batch: a "
                                            "custom training loop sees it as one value per batch", use))
            # the marker lets verify record this value with its labels' batch, as it records the model_fn's loss
            lines.insert(lines.index('    """', 1) + 1, "\n    tf1_scalar_loss = True  # the model_fn's own loss per replica")
            lines += ['        if self.reduction == "none":  # one value per batch, for a custom training loop',
                      generated(f"            return tf.reshape({name}, [1])")]
        if not summed:
            lines += [generated("        replicas = tf.distribute.get_strategy().num_replicas_in_sync"),
                      f"        return {name} * (1.0 / replicas) if replicas > 1 else {name}"]
        self.support.append("\n".join(lines))
        plan = losses.LossPlan(class_name, [self.params] if with_params else [], cst.Name(self.labels),
                               cst.Name(output), scalar=True, reduction="sum" if summed else None)
        self.loss = (name, plan, self.label_values[name])
        for mode in self.bindings.get(name, {}):
            self.bindings[name][mode] = ("loss", None)

    def keras_loss_objects(self, stmts: list, used: set[str], use) -> tuple[list, list[str], bool]:
        """The hand-written loss's statements with inline tf.keras loss constructors in Keras 3's spelling, and the
        loss objects (model_fn locals) they call, and whether the loss is summed (SUM under a strategy). Keras 2 recorded each loss object's reduction in the graph and the
        Estimator's v1 optimizer scaled the loss by 1/replicas unless it was SUM (the generated class scales the
        same way); SUM_OVER_BATCH_SIZE/AUTO raised a ValueError under a strategy."""
        found: list[losses.KerasLossObject] = []
        interp = self

        class _Respell(Transformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                if losses.keras_loss_class(interp.tf(original)):
                    obj = losses.keras_loss_object(original, interp.tf(original), interp.tf)
                    found.append(obj)
                    return cst.parse_expression(obj.ctor)
                return updated

        stmts = [stmt.visit(_Respell()) for stmt in stmts]
        objects = sorted(used & set(self.loss_objects))
        found += [self.loss_objects[name][0] for name in objects]
        for obj in found:
            if obj.reduction == "none" or self.tf1_strategy is False:
                continue
            if obj.reduction == "sum_over_batch_size" and self.tf1_strategy:
                raise Blocked(losses.CODE, "a tf.keras loss with the default (AUTO) or SUM_OVER_BATCH_SIZE reduction "
                                           "raised a ValueError in this Estimator's model_fn under its distribution "
                                           "strategy (Keras 2 allows it only in Model.compile); the original program "
                                           "does not train: use reduction NONE and reduce the losses by hand",
                              obj.node)
            if self.tf1_strategy is None:
                raise Blocked(losses.CODE, f"a tf.keras loss with reduction {obj.reduction.upper()} means something "
                                           "else with and without a distribution strategy, and this program's "
                                           "strategy is decided at run time", obj.node)
        reductions = {obj.reduction for obj in found}
        if "sum" in reductions and len(reductions) > 1:
            raise Blocked(losses.CODE, "tf.keras losses with reduction SUM and another reduction in one loss: the "
                                       "Estimator scaled the total by the last one's rule only; not converted", use)
        # SUM under a strategy: the Estimator left the loss unscaled (no 1/replicas), so does the generated class
        return stmts, objects, reductions == {"sum"} and bool(self.tf1_strategy)
