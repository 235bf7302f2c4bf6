"""Binding a call's arguments to a known TF1 signature, and small CST helpers the rules share."""
from __future__ import annotations

import re

import libcst as cst

from tfmigrate.visitors import render

from tfmigrate.diagnostics import Blocked

_EMPTY = cst.Module(body=[])

# Generated code names TensorFlow through this placeholder; the migration renames it to the file's own alias at
# the end, so user code that binds `tf` to something else is never touched.
TF = "__tfmigrate_tf__"
_TF_REF = re.compile(r"(?<![\w.])tf\.")


def generated(text: str) -> str:
    """tfmigrate's own code text with its `tf.` references marked (user code never goes through here)."""
    return _TF_REF.sub(TF + ".", text)


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


def wrap_call(text: str, base_indent: str = "", width: int = 100) -> str:
    """Lay out generated call code black-style: one line if it fits, else one argument per line.

    `base_indent` is the absolute indentation of the line the call starts on (continuation lines are absolute).
    """
    first_line = text.split("\n", 1)[0]
    if len(base_indent) + len(first_line) <= width and "\n" not in text:
        return text
    try:
        expr = cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return text  # not a single expression: leave the line as it is
    return _wrap(expr, text, base_indent, width)


def _wrap_part(node: cst.BaseExpression, base_indent: str, width: int) -> str:
    """wrap_call(code(node), ...) without parsing the text again where it is one line (the node is what a parse of
    it gives; a multi-line part is parsed, as it may not be an expression on its own)."""
    text = code(node)
    if "\n" in text:
        return wrap_call(text, base_indent, width)
    if len(base_indent) + len(text) <= width or not isinstance(node, (cst.List, cst.Call)):
        return text
    return _wrap(node, text, base_indent, width)


def _wrap(expr: cst.BaseExpression, text: str, base_indent: str, width: int) -> str:
    inner = base_indent + "    "
    if isinstance(expr, cst.List) and expr.elements:
        items = [("*" if isinstance(el, cst.StarredElement) else "") + _wrap_part(el.value, inner, width)
                 for el in expr.elements]
        return "[\n" + "".join(f"{inner}{item},\n" for item in items) + f"{base_indent}]"
    if not isinstance(expr, cst.Call) or not expr.args:
        return text
    if isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call) and "\n" not in text:
        return text  # a method chain (`Dataset.from_tensor_slices(d).batch(32)`): splitting its last call helps no one
    args = []
    for arg in expr.args:
        prefix = f"{arg.keyword.value}=" if arg.keyword is not None else arg.star
        args.append(prefix + _wrap_part(arg.value, inner, width))
    return f"{code(expr.func)}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{base_indent})"
