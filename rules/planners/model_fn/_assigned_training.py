"""A TRAIN EstimatorSpec whose loss is a constant and whose train_op changes variables by assignment
(`train_op=tf.group(v.assign_add(2), step.assign_add(1))`, `loss=tf.constant(1.)`): no gradient, no optimizer; each
train() step runs the assignments. TF's own guides write model_fns like this to make a checkpoint or a SavedModel to
show (guide/migrate saved_model, migrating_checkpoints). The converted model trains through a loss and an optimizer,
so this is blocked, saying what the model_fn does and its TF2 form, instead of "not the loss computed above"."""
from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tfmigrate.diagnostics import Blocked

from ...facts.calls import bind, code
from ._constants import CODE, SPEC_ARGS

_ASSIGNS = {"assign", "assign_add", "assign_sub"}


def check(fn: cst.FunctionDef, is_spec, tf) -> None:
    """Blocks the model_fn at its first such `return EstimatorSpec(...)`, before its statements are read: this is
    the reason it does not convert, whatever else they hold (a Checkpoint of the same variables for a Scaffold)."""
    for ret in m.findall(fn, m.Return()):
        value = ret.value
        if not (isinstance(value, cst.Call) and is_spec(value)):
            continue
        try:
            args = bind(value, SPEC_ARGS, "EstimatorSpec", CODE)
        except Blocked:
            continue  # a malformed spec is reported where the return is read
        found = message(args, tf)
        if found:
            raise Blocked(CODE, found, args["loss"])


def message(args: dict, tf) -> str | None:
    """The blocker for such a spec (`args`: its bound arguments; `tf(node)`: a node's tf path), else None."""
    loss, train_op = args.get("loss"), args.get("train_op")
    if loss is None or train_op is None or not _constant(loss, tf):
        return None
    assigns = _assignments(train_op, tf)
    if not assigns:
        return None
    what = "only advances the global step" if all(_step(a, tf) for a in assigns) else \
        "changes variables by assignment"
    export = ("; export_saved_model of it is tf.saved_model.save(module, path, signatures=...) of a tf.function "
              "computing its export_outputs" if args.get("export_outputs") is not None else "")
    return (f"EstimatorSpec(loss={code(loss)}) is a constant and train_op={code(train_op)} {what}: this model_fn "
            "trains nothing by gradient (each train() step runs those assignments), which the converted model, "
            "trained through a loss and an optimizer, does not express; tfmigrate does not convert it. Its TF2 form "
            "is a tf.Module holding the variables and a tf.function step running the same assignments, saved with "
            f"tf.train.Checkpoint{export}")


def trains_by_assignment(fn: cst.FunctionDef, tf) -> bool:
    """Whether the model_fn returns a TRAIN EstimatorSpec whose train_op is only assignments (written inline, or a
    name the model_fn binds once to them), whatever its loss: rules/planners/assign_step.py converts it."""
    bound = {}
    for assign in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
        bound.setdefault(assign.targets[0].target.value, []).append(assign.value)
    for ret in m.findall(fn, m.Return()):
        value = ret.value
        if not (isinstance(value, cst.Call) and tf(value.func) == "estimator.EstimatorSpec"):
            continue
        try:
            train_op = bind(value, SPEC_ARGS, "EstimatorSpec", CODE).get("train_op")
        except Blocked:
            continue
        if isinstance(train_op, cst.Name) and len(bound.get(train_op.value, ())) == 1:
            train_op = bound[train_op.value][0]
        if train_op is not None and _assignments(train_op, tf):
            return True
    return False


def _number(node) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Float, cst.Integer))


def _constant(node, tf) -> bool:
    """A number, or tf.constant of one (its dtype=, shape=, name= change no gradient: there is none)."""
    if _number(node):
        return True
    if not (isinstance(node, cst.Call) and (tf(node.func) or "").rsplit(".", 1)[-1] == "constant"):
        return False
    value = next((a.value for a in node.args if a.keyword is None or a.keyword.value == "value"), None)
    return value is not None and _number(value)


def _assignments(node, tf) -> list[cst.Call] | None:
    """The `x.assign*(...)` calls train_op is made of (alone, or grouped by tf.group), else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _ASSIGNS:
        return [node]
    if isinstance(node, cst.Call) and tf(node.func) == "group" and node.args:
        if any(a.keyword is not None or a.star for a in node.args):
            return None
        # tf.group(a, b) and tf.group([a, b]) group the same ops
        ops = [e.value for a in node.args
               for e in (a.value.elements if isinstance(a.value, (cst.List, cst.Tuple)) else [a])]
        parts = [_assignments(op, tf) for op in ops]
        if ops and all(parts):
            return [c for p in parts for c in p]
    return None


def _step(call: cst.Call, tf) -> bool:
    """`step.assign_add(1)` on a name holding the global step (get_global_step / get_or_create_global_step): the
    name alone is not enough to know, so this only words the message."""
    # `tf.compat.v1.assign_add(step, 1)`: the variable is the first argument
    held = call.args[0].value if tf(call.func) and call.args else call.func.value
    return "step" in code(held)
