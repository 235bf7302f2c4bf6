"""The ModelPlan: what the interpreter read, planned as the Keras model, loss, optimizer, metrics and
predictions (forward values written out in terms of the model output)."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import standalone
from tfmigrate.visitors import Transformer

from ...facts.calls import code
from .. import export_outputs as export_rules
from .. import layers, losses, metrics, optimizers, partitioners
from ._constants import BUILTINS, CODE, MODEL_ATTRIBUTES
from ._layer_names import TF1_NAME_HELPER
from ._names import parenthesized, substitute


@dataclass
class ModelPlan:
    fn_name: str
    class_name: str
    docstring: str | None
    features: str
    labels: str
    params: str
    layers: list[tuple[str | None, str]]  # (attribute, keras constructor); (None, statements) for a loop/helper
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
    support: list[str] = field(default_factory=list)  # module-level code the model class needs (hand-written loss)
    export_outputs: str | None = None  # EstimatorSpec(export_outputs=...): {key: outputs} from the output (code)
    export_methods: dict[str, str] | None = None  # signature key → predict / classify / regress
    export_blocked: Blocked | None = None  # export_outputs not converted: blocks an export, else dropped (note)
    predict_blocked: Blocked | None = None  # PREDICT's return raised a TypeError in TF1: blocks predict/export
    helpers: list[cst.FunctionDef] = field(default_factory=list)  # network helpers inlined into call()
    # tf.compat.v1.summary.scalar in TRAIN mode: (tag, value computed from `output` (code), the call); the custom
    # loop writes them, the Keras target drops them with a note (program.py)
    summaries: list[tuple[str, str, cst.CSTNode]] = field(default_factory=list)
    # a NanTensorHook(loss) in training_hooks: the training raises NanLossDuringTrainingError on a NaN loss
    # (Keras: the generated NanLossCheck callback; custom loop: a check after each step; rules/planners/hooks.py)
    nan_check: cst.Call | None = None  # the NanTensorHook call
    # LoggingTensorHooks (rules/planners/hooks.py): (key, value code from the output, `loss` and `step`) the training step
    # records for the generated TensorLogger callbacks; the TensorLogger constructors of the training_hooks ones
    logged: list[tuple[str, str]] = field(default_factory=list)
    # the callbacks of the LoggingTensorHooks and StepCounterHooks (TensorLogger, StepCounter constructors) of
    # training_hooks (TF1 ran them after the Estimator's NaN loss check) and training_chief_hooks (first, after the
    # checkpoint saver)
    loggers: list[str] = field(default_factory=list)
    chief_loggers: list[str] = field(default_factory=list)
    loggers_params: bool = False  # the constructors read params
    counters: bool = False  # a StepCounter among them
    named_tensors: dict[str, str] = field(default_factory=dict)  # TF name of a named op (tf.identity, ...) → its value
    # SummarySaverHooks in training_hooks / training_chief_hooks (rules/planners/hooks.py): (output_dir code, save_steps
    # code, the tags of `summaries` it writes); whether that code reads params
    summary_hooks: list[tuple[str, str, list[str]]] = field(default_factory=list)
    summary_hooks_params: bool = False
    # StopAtStepHooks in training_hooks (rules/planners/hooks.py): the generated StopAtStep constructors (_hook_values)
    stops: list[str] = field(default_factory=list)
    stops_params: bool = False  # the constructors read params


class ResultMixin:
    """The ModelPlan."""

    def plan(self, class_name: str) -> ModelPlan:
        if self.loss is None or self.optimizer is None or self.train_op is None:
            raise Blocked(CODE, "model_fn needs a loss, an optimizer and a training op (minimize or apply_gradients)",
                          self.fn)
        loss_name, loss_plan, loss_call = self.loss
        output = loss_plan.output
        if not (isinstance(output, cst.Name) and output.value in self.forward - {self.features}):
            raise Blocked(losses.CODE, "the loss must be computed on a value of the forward pass", loss_call)
        out = output.value
        predictions = None
        if self.spec_predictions is not None:
            pred = self.inline(self.spec_predictions, out)
            self.check_names(pred, {out}, "predictions (only the model output is available)")
            predictions = standalone(code(pred))  # `return <predictions>` of the model class
        summaries, tags = [], set()
        for call in self.scalar_summaries:
            summary = self.scalar_summary(call, out, tags, loss_name)
            if summary is not None:
                summaries.append(summary)
        export_methods = export_code = export_blocked = None
        if isinstance(self.spec_export_outputs, Blocked):
            export_blocked = self.spec_export_outputs
        elif self.spec_export_outputs is not None:
            try:
                export_methods, export_code = export_rules.plan(self.spec_export_outputs, self.tf, self.predict_value,
                                                                lambda node, what: self.from_output(node, out, what))
            except Blocked as blocked:
                export_blocked = blocked
        metric_ctors = []
        if self.spec_metrics is not None:
            table = self.spec_metrics
            for element in table.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                    raise Blocked(metrics.CODE, "eval_metric_ops keys must be string literals", table)
                call = element.value
                if isinstance(call, cst.Name) and call.value in self.metric_vars:
                    call = self.metric_vars[call.value]
                call = self.inline(call, out)
                name = metrics.metric_name(self.tf(call)) if isinstance(call, cst.Call) else None
                if name == "mean":  # over a value computed from the labels too: written out (metrics._mean)
                    call = self.inline(self.with_label_values(call), out)
                if name is None:
                    raise Blocked(metrics.CODE, f"eval_metric_ops['{element.key.evaluated_value}'] is not a tf.metrics call", element.value)
                ctor = metrics.convert(element.key.evaluated_value, call, name, self.labels, out, loss_name,
                                       self.resolve_prediction, self.tf, self.notes,
                                       lambda node: min(self.free_names(node) - {out, self.labels}
                                                        - self.module_names - BUILTINS, default=None),
                                       lambda node: self.inline(self.with_label_values(node), out))
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
        self.notes.extend(self.input_layer_optimizer(optimizer.ctor, opt_call))  # embedding tables' sparse updates
        if self.grad_transforms is not None and (self.grad_transforms.transforms or self.grad_transforms.unscaled):
            optimizer = self.clipped_optimizer(optimizer, class_name)
        for attr, _ in self.layers:
            if attr in MODEL_ATTRIBUTES:  # auto-names (dense, conv2d, …) never clash; explicit names might
                raise Blocked(layers.CODE, f"layer name `{attr}` clashes with a keras.Model attribute", self.fn)
        model_layers = [(attr, self.render_names(ctor)) for attr, ctor in self.layers]
        if self.batch_norm_training and not self.update_ops_run:
            # the train op never ran UPDATE_OPS: TF1's moving averages kept their initial values
            bn = f"{layers.TF1_BATCH_NORM}("
            model_layers = [(attr, ctor.replace(bn, f"{bn}update_averages=False, ")) for attr, ctor in model_layers]
        if self.runtime_names:
            model_layers.insert(0, (None, TF1_NAME_HELPER))  # ends with a blank line
        taken = {attr for attr, _ in self.layers if attr} | self.list_attrs
        for attr in sorted(self.held_in_lists):
            # tf.train.Checkpoint (the checkpoints, resume, checkpoint convert) follows attributes, not the lists
            # Keras 3 tracks layers in: without this a restore silently left these layers at their initial values.
            # `<list>__<i>`: generated attributes are layer names and `_<n>` suffixes, never a double underscore
            if any(other.startswith(f"{attr}__") for other in taken):
                raise Blocked(layers.CODE, f"layer attribute names starting with `{attr}__` are taken", self.fn)
            model_layers.append((None, f"for index, layer in enumerate(self.{attr}):  # named for tf.train.Checkpoint\n"
                                       f"    setattr(self, f\"{attr}__{{index}}\", layer)"))
        self.drop_unused(out)
        return ModelPlan(
            fn_name=self.fn.name.value, class_name=class_name, docstring=self.docstring, features=self.features,
            labels=self.labels, params=self.params, layers=model_layers, call_body=self.call_body,
            # read from the forward statements themselves (a parse of their rendered text has the same names)
            params_in_call=any(self.params in self.free_names(stmt) for stmt in self.call_body),
            output=out, predictions=predictions, loss=loss_plan, metrics=metric_ctors, optimizer=optimizer,
            notes=self.notes, partitioner=partitioners.single(self.partitioners, self.fn), mod_rows=self.mod_rows,
            support=self.support, export_outputs=export_code, export_methods=export_methods,
            export_blocked=export_blocked, predict_blocked=self.spec_predict_blocked, summaries=summaries,
            nan_check=self.nan_check,
            **self.logging_plan(out, loss_name), **self.summary_hook_plan(summaries), **self.stop_plan(),
        )

    def drop_unused(self, out: str) -> None:
        """Tensor ops only predictions or metrics read (written out there) are dropped from call()."""
        kept: list[cst.BaseStatement] = []
        for index, stmt in reversed(list(enumerate(self.call_body))):
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            target = (small.targets[0].target.value if isinstance(small, cst.Assign)
                      and isinstance(small.targets[0].target, cst.Name) else None)
            needed = set().union(*(self.free_names(s) for s in kept)) | {out}
            if (target in self.inlined and target not in needed and self.assign_counts.get(target) == 1
                    and not any(line.comment for line in stmt.leading_lines)):
                continue
            kept.append(stmt)
        self.call_body = kept[::-1]

    def inline(self, node, out: str):
        """Forward values computed from the output without layers (`predicted = tf.argmax(logits, 1)`), written
        out in terms of the output: predictions and metrics see only the model output."""
        exprs = {n: e for n, e in self.forward_exprs.items() if n != out and self.assign_counts.get(n) == 1}
        for _ in range(len(exprs)):
            free = self.free_names(node) & set(exprs)
            if not free:
                break
            node = substitute(node, {n: parenthesized(exprs[n]) for n in free})
            self.inlined |= free
        return node

    def with_label_values(self, node):
        """Locals computed from the labels (`gap = tf.abs(logits - labels)`, assigned once) written out in `node`."""
        exprs = {n: self.label_expression(n) for n in self.label_values if self.assign_counts.get(n) == 1}
        exprs = {n: e for n, e in exprs.items() if e is not None}
        for _ in range(len(exprs)):
            free = self.free_names(node) & set(exprs)
            if not free:
                break
            node = substitute(node, {n: parenthesized(exprs[n]) for n in free})
        return node

    def predict_value(self, node):
        """A name → what PREDICT mode assigned it, when that is a dict or an export output call."""
        if isinstance(node, cst.Name):
            kind, payload = self.bindings.get(node.value, {}).get("PREDICT", (None, None))
            if kind in ("dict", "export_output"):
                return payload
        return node

    def from_output(self, node, out: str, what: str) -> str:
        """A PREDICT tensor (`probabilities`, `predictions["key"]`) written in terms of the model output."""
        resolve = self.resolve_prediction

        class _Keys(Transformer):  # predictions["key"] anywhere in the expression → that key's value
            def leave_Subscript(self, original, updated):
                value = resolve(original)
                return updated if value is original else parenthesized(value)

        node = self.inline(self.predict_value(node).visit(_Keys()), out)
        self.check_names(node, {out}, f"{what} (only the model output is available)")
        return standalone(code(node))

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
