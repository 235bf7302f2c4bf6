"""Values a model_fn computes after the loss only for its LoggingTensorHooks (`w = tf.identity(dense.weights[0])`,
then `LoggingTensorHook([w], ...)` in EstimatorSpec(training_hooks=...): the migration guide's pattern). In TF1 they
were extra fetches of the hook; nothing the training step computes reads them, so they are not part of the
converted model. The hook's own conversion (_hooks.tensor_logger) decides whether the migrated step can hand the
value to the logger (computed from the model output: yes) or drops the hook with a note (it only logged)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.visitors import Transformer

from ...facts.calls import bind, code, is_literal
from .. import hooks
from ._names import names_read_anywhere


class _WithoutLoggers(Transformer):
    """The model_fn with every LoggingTensorHook(...) call replaced by None: what reads a name besides them."""

    def __init__(self, tf):
        self.tf = tf

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return cst.Name("None") if hooks.hook_kind(self.tf(original)) == hooks.LOGGING else updated


class HookValuesMixin:
    """Values only LoggingTensorHooks read."""

    def hook_only(self, target: str, value: cst.BaseExpression, stmt) -> bool:
        """`target = value` after the loss, assigned once, building no layer, read by LoggingTensorHook(...) calls
        and by nothing else of the model_fn: recorded as a value the loggers may inline (never in call())."""
        if self.assign_counts.get(target) != 1 or self.loop is not None or self.builds_layers(value):
            return False
        written = self.written.get(id(stmt), stmt)
        if not any(s is written for s in self.fn.body.body):  # nested (a branch, a `with`): not this shape
            return False
        body = self.fn.body.with_changes(body=[s for s in self.fn.body.body if s is not written])
        if target not in names_read_anywhere(body):
            return False  # never read: not a hook's value (the forward path says what it is)
        if target in names_read_anywhere(body.visit(_WithoutLoggers(self.tf))):
            return False
        self.forward_exprs[target] = value
        self.bind_name(target, "forward")
        return True

    def spec_stop_hook(self, call: cst.Call, where: str) -> None:
        """A StopAtStepHook(num_steps=N | last_step=N) in EstimatorSpec(training_hooks=...): the generated StopAtStep
        callback of the model's stop_hooks() (rules/planners/hooks.py); elsewhere blocked."""
        if where != "training_hooks":
            raise Blocked(hooks.CODE, f"StopAtStepHook in EstimatorSpec({where}=...) is not converted: "
                                      + ("only the chief stopped, which the migrated workers, stepping together, "
                                         "cannot do alone" if where == "training_chief_hooks" else
                                         "it stopped on the global step, which evaluation and prediction do not "
                                         "move")
                                      + "; put it in training_hooks", call)
        args = bind(call, ["num_steps", "last_step"], "StopAtStepHook", hooks.CODE)
        given = {k: v for k, v in args.items() if not is_literal(v, None)}
        if len(given) != 1:
            raise Blocked(hooks.CODE, "StopAtStepHook is converted with exactly one of num_steps or last_step (TF1 "
                                      "raised ValueError otherwise)", call)
        (key, value), = given.items()
        self.check_names(value, {self.params}, f"StopAtStepHook({key}=...)")
        if not any(c is call for c in self.stop_hooks):
            self.stop_hooks.append(call)

    def stop_plan(self) -> dict:
        """The ModelPlan fields of the training_hooks' StopAtStepHooks: the StopAtStep constructors."""
        ctors, reads = [], False
        for call in self.stop_hooks:
            args = {k: v for k, v in bind(call, ["num_steps", "last_step"], "StopAtStepHook", hooks.CODE).items()
                    if not is_literal(v, None)}
            (key, value), = args.items()
            reads = reads or self.params in self.free_names(value)
            ctors.append(f"StopAtStep({key}={code(value)})")
            if not any(n[2] is call for n in self.notes):
                self.notes.append((hooks.CODE, hooks.STOP_IN_SPEC_NOTE, call))
        return {"stops": ctors, "stops_params": reads}
