"""A model_fn no Estimator runs because the program calls it itself (`spec = wrapper.model_fn(x, y, ModeKeys.TRAIN,
params)`, then `sess.run(spec.train_op)`): TF1 graph code that borrows the EstimatorSpec type, not an Estimator
program. Said so (with the call), instead of "no Estimator in the migrated files is built with it", which sends the
user looking for files that do not exist."""
from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..facts.calls import code


def called_by_hand(fn: cst.FunctionDef, file, names) -> str | None:
    """The message for a model_fn-shaped def that the file calls directly (by its name, or as `obj.<name>(...)` for
    a method) with at least features, labels and mode; None when nothing calls it so."""
    if file is None:
        return None
    name = fn.name.value
    own = {id(c) for c in m.findall(fn, m.Call())}
    calls = [c for c in m.findall(file.module, m.Call())
             if id(c) not in own and len(c.args) >= 3 and _names(c.func, name)]
    if not calls:
        return None
    call = calls[0]
    session = _session_around(call, file, names)
    where = f" inside `with {session}`" if session else ""
    return (f"`{name}({_params(fn)})` is never given to an Estimator: the program calls it itself, `{code(call)}`"
            f"{where}, and runs the ops of the EstimatorSpec it returns, which is TF1 graph code, not an Estimator "
            "program; tfmigrate converts Estimator programs only. The TF2 form is written by hand: a tf.keras.Model "
            "(or tf.Module) whose call is the forward pass and a train step under tf.GradientTape that applies the "
            "optimizer")


def _names(func, name: str) -> bool:
    return (isinstance(func, cst.Name) and func.value == name) or (
        isinstance(func, cst.Attribute) and func.attr.value == name)


def _session_around(node, file, names) -> str | None:
    """The `tf.compat.v1.Session(...)` of a `with` statement holding `node`, as written; None if there is none."""
    while node is not None:
        node = file.parent(node)
        if isinstance(node, cst.With):
            for item in node.items:
                if isinstance(item.item, cst.Call) and (names.of(item.item.func) or "").endswith("Session"):
                    return code(item.item.func) + "(...)"
    return None


def _params(fn: cst.FunctionDef) -> str:
    return ", ".join(p.name.value for p in fn.params.params)
