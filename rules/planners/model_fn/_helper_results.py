"""A network helper whose result the model_fn tuple-unpacks (`(loss, per_example, logits, probs) = create_model(
features, labels, is_training, ...)`, BERT's fine-tuning shape): the helper is inlined as for `y = helper(...)`, and
its `return (a, b, ...)` becomes one assignment per target, so each value is read like the model_fn's own statement
(forward values go to `call`, values of the labels to the loss, the training flag to Keras' `training`)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import code
from ._constants import CODE


def unpacked_names(target: cst.Tuple) -> list[str] | None:
    """`(a, b, c)` / `a, b, c` of plain names, else None."""
    names = [e.value.value for e in target.elements
             if isinstance(e, cst.Element) and isinstance(e.value, cst.Name)]
    return names if len(names) == len(target.elements) else None


def result_statements(name: str, targets: tuple[str, ...], result: cst.BaseExpression, inline,
                      report: cst.CSTNode) -> list[cst.SimpleStatementLine]:
    """`target_i = value_i` for the helper's `return (value_0, ..., value_n)`; `inline` renames the helper's names.
    Any other return (a name holding a tuple, a different count, a starred element) blocks: its parts are unknown."""
    elements = result.elements if isinstance(result, cst.Tuple) else None
    if elements is None or len(elements) != len(targets) or any(isinstance(e, cst.StarredElement) for e in elements):
        raise Blocked(CODE, f"`{', '.join(targets)} = {name}(...)` unpacks {len(targets)} values but {name}() returns "
                            f"`{code(result).strip()}`: a tuple-unpacked network helper is inlined when it ends with "
                            f"`return` of a tuple of {len(targets)} values written out", report)
    values = [(t, inline(e.value)) for t, e in zip(targets, elements)]
    return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(t))], v)])
            for t, v in values if not (isinstance(v, cst.Name) and v.value == t)]  # (a local renamed to its target)


def result_renames(targets: tuple[str, ...], result: cst.BaseExpression, counts: dict, helper_names: set[str],
                   params: set[str]) -> dict[str, str]:
    """The helper's locals it returns (`return (loss, logits)`) renamed to the model_fn's targets, so the inlined
    statements compute `logits` itself rather than an alias of it the rest of the model_fn would read (predictions,
    metrics: computed from the model output by its name). Only a local assigned in the helper, returned once, whose
    target names nothing else in the helper."""
    if not isinstance(result, cst.Tuple) or len(result.elements) != len(targets) or len(set(targets)) != len(targets):
        return {}
    returned = [e.value.value if isinstance(e.value, cst.Name) else None for e in result.elements]
    out = {}
    for target, local in zip(targets, returned):
        if (local is not None and returned.count(local) == 1 and counts.get(local) and local not in params
                and (target == local or target not in helper_names)):
            out[local] = target
    return out


def scoped_return(body: list) -> tuple[cst.With, list, cst.Return] | None:
    """A tuple-returning helper whose last statement is `with tf.variable_scope("loss"): ...; return (a, b, ...)`
    (BERT's create_model): (the with, its statements before the return, the return). Its values are assigned at the
    end of the same with, where TF1 computed them; a return elsewhere in it blocks (has_return)."""
    last = body[-1] if body else None
    if not isinstance(last, cst.With) or last.asynchronous is not None or not isinstance(last.body, cst.IndentedBlock):
        return None
    inner = list(last.body.body)
    end = inner[-1] if inner else None
    ret = end.body[0] if isinstance(end, cst.SimpleStatementLine) and len(end.body) == 1 else None
    return (last, inner[:-1], ret) if isinstance(ret, cst.Return) and ret.value is not None else None
