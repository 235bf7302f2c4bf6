"""A run-time column value assigned anew on each pass of a loop that builds one column per pass (the TF docs'
linear tutorial: `for name in NAMES: vocabulary = data[name].unique(); columns.append(...(name, vocabulary))`).

Where the Estimator is built the name holds the last pass's value only, so the model gets each column's own value
instead: the expression the pass assigned, with the loop's target written as that pass's item
(`data["color"].unique()`), evaluated where the Estimator is built, as every run-time column value is (the column
was built before it, from the same names holding the same values; render checks each name reaches there
unchanged). One assignment of the name in the loop is read; anything else keeps the loop blocker."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import Value, rebinding_loop

# loop_envs' stand-in for a key known only at run time: a pass whose item is not written in the source
_RUNTIME_KEY = "__tfmigrate_runtime_key__"


def per_pass_text(reader, value: Value) -> str | None:
    """Code at the Estimator for `value` (a name the enclosing loop re-binds, its env binding the loop's target to
    this pass's item), or None when it is not one assignment over names that reach the Estimator unchanged."""
    name, file = value.node, value.file
    if not isinstance(name, cst.Name) or value.arg(name.value) is not None:
        return None
    bindings = reader.program.lookup(name.value, name, file)
    if len(bindings) != 1:
        return None
    b = bindings[0]
    loop = rebinding_loop(name, bindings, file, reader.call, reader.file)
    if loop is None or b.kind != "assign" or b.value is None or b.unpack or b.scope.file is not file:
        return None
    assigned = Value(b.value, file, value.env)
    # every name the loop re-binds that the expression reads must be the loop's target, given by this pass's env
    text = reader.program.render(assigned, reader.call, reader.file)
    if text is None or _RUNTIME_KEY in text:
        return None
    return text
