"""Binding a call's arguments to a known TF1 signature, and small CST helpers the rules share."""
from __future__ import annotations


import libcst as cst

from tfmigrate.visitors import render

from tfmigrate.diagnostics import Blocked

_EMPTY = cst.Module(body=[])

# Generated code names TensorFlow through this placeholder; the migration renames it to the file's own alias at
# the end, so user code that binds `tf` to something else is never touched.
TF = "__tfmigrate_tf__"


def code(node: cst.CSTNode) -> str:
    """Source text of a node, as the user wrote it (comments and spacing inside it kept)."""
    return render(_EMPTY, node)


def bind(call: cst.Call, signature: list[str], what: str, rule: str) -> dict[str, cst.BaseExpression]:
    """Map a call's arguments onto `signature` (positional order); anything unknown blocks the migration."""
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            raise Blocked(rule, f"{what}: *args/**kwargs cannot be mapped safely; pass arguments by name", call)
        if arg.keyword is None:
            if index >= len(signature):
                raise Blocked(rule, f"{what}: too many positional arguments", call)
            bound[signature[index]] = arg.value
        else:
            name = arg.keyword.value
            if name not in signature:
                raise Blocked(rule, f"{what}: argument '{name}' is not converted", call)
            bound[name] = arg.value
    return bound


def literal(node: cst.BaseExpression | None):
    """The Python value of a simple literal (number, string, bool, None, unary minus), else raise ValueError."""
    if node is None:
        raise ValueError("missing")
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0)
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.ConcatenatedString) and node.evaluated_value is not None:
        return node.evaluated_value  # 'a' 'b': one string (an f-string part has no static value)
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return -literal(node.expression)
    raise ValueError("not a literal")


def is_literal(node, *values) -> bool:
    try:
        value = literal(node)
    except ValueError:
        return False
    return any(value == v and type(value) is type(v) or (isinstance(v, float) and value == v) for v in values)


# ---- wrap_call without a parse ----------------------------------------------------------------------------------
# One-line generated code of the shapes `_wrap` lays out (a call, a list display) is split at its top-level commas
# on the text itself; each piece is what `code()` of the parsed node would give (its text without the spaces around
# it). Any shape this cannot vouch for raises _Unsure and wrap_call parses it instead; tests/rewrite/test_wrap_text.py
# compares both on every wrapped text of the fixtures and on hand-written shapes.


def computes_tensor(name: str) -> bool:
    """A TensorFlow call whose value exists only when a session or the eager runtime computes it (a tensor), not a
    setting the source or flags give; tf.config's device queries are Python values (the engine's choices ask)."""
    return name.startswith("tensorflow.") and not name.startswith("tensorflow.config.")
