"""Statement shapes the interpreter asks about: docstrings, bound names, returns, static values and tests, a
repeated TensorFlow import, a debugging print."""
from __future__ import annotations

import libcst as cst

from tfmigrate.visitors import Visitor, walk

from ...facts.calls import code
from ...facts.nodes import docstring_of  # noqa: F401  (the interpreter's modules read it here)
from ._constants import BUILTINS


def statement_targets(stmt) -> set[str]:
    """Names a statement binds: assignment and loop targets, `with ... as` names, defs (and those in nested defs)."""
    found: set[str] = set()

    def add(target) -> None:
        if isinstance(target, cst.Name):
            found.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                add(element.value)
        elif isinstance(target, cst.StarredElement):
            add(target.value)

    for node in walk_statements(stmt):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For)):
            add(node.target)
        elif isinstance(node, cst.AsName):
            add(node.name)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            found.add(node.name.value)
    return found


def counterpart(copy, original, target):
    """The node of `original` at `target`'s place in `copy` (the same tree but for substituted names), else None."""
    if copy is target:
        return original
    if type(copy) is not type(original):
        return None
    children, written = copy.children, original.children
    if len(children) != len(written):
        return None
    for a, b in zip(children, written):
        found = counterpart(a, b, target)
        if found is not None:
            return found
    return None


def walk_statements(node):
    """`node` and every node below it."""
    yield node
    for child in node.children:
        yield from walk_statements(child)


_STATIC_CALLS = frozenset({"int", "float", "str", "bool", "len", "min", "max", "abs", "round", "tuple", "list"})
# static_value's literal classes, tested by exact type: isinstance against LibCST's classes (ABCMeta) runs
# ABCMeta.__instancecheck__ for each miss; LibCST's node classes have no subclasses (tests/rewrite/test_walk.py)
_LITERALS = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString})


def static_value(node, allowed: set[str]) -> bool:
    """A value the model's `__init__` can compute too, the same every time it is read: literals, names in
    `allowed` (params, module names), their attributes and items, arithmetic on them, `params.get(...)` and a
    few pure builtins. Never a TF call (a variable, a random tensor) or anything reading features/labels/mode."""
    kind = type(node)  # (exact types, not isinstance: see _LITERALS)
    if kind in _LITERALS:
        return True
    if kind is cst.Name:
        return node.value in allowed or node.value in ("True", "False", "None")
    if kind is cst.Attribute:
        return static_value(node.value, allowed)
    if kind is cst.Subscript:
        return static_value(node.value, allowed) and all(
            isinstance(e.slice, cst.Index) and static_value(e.slice.value, allowed) for e in node.slice)
    if kind is cst.List or kind is cst.Tuple:
        return all(isinstance(e, cst.Element) and static_value(e.value, allowed) for e in node.elements)
    if kind is cst.BinaryOperation:
        return static_value(node.left, allowed) and static_value(node.right, allowed)
    if kind is cst.UnaryOperation:
        return static_value(node.expression, allowed)
    if kind is cst.Call:
        func = node.func
        pure = (isinstance(func, cst.Name) and func.value in _STATIC_CALLS and func.value in BUILTINS
                and func.value not in allowed - _STATIC_CALLS) or (
            isinstance(func, cst.Attribute) and func.attr.value == "get" and static_value(func.value, allowed))
        return pure and all(a.star == "" and static_value(a.value, allowed) for a in node.args)
    return False


def static_condition(node, allowed: set[str]) -> bool:
    """A condition on static values (`params["bn"]`, `FLAGS.model == "big"`, `not a and b`): see static_value."""
    if isinstance(node, cst.BooleanOperation):
        return static_condition(node.left, allowed) and static_condition(node.right, allowed)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return static_condition(node.expression, allowed)
    if isinstance(node, cst.Comparison):
        return static_value(node.left, allowed) and all(static_value(c.comparator, allowed) for c in node.comparisons)
    return static_value(node, allowed)


def imports_tensorflow_only(node) -> bool:
    """`import tensorflow as tf`, `import tensorflow.compat.v1 as tf`, `from tensorflow.compat.v1 import layers`."""
    def tf_module(dotted: str) -> bool:
        return dotted.split(".")[0] in ("tensorflow", "tensorflow_estimator")

    if isinstance(node, cst.Import):
        return all(tf_module(code(a.name)) for a in node.names)
    return (not node.relative and node.module is not None and tf_module(code(node.module))
            and not isinstance(node.names, cst.ImportStar))


def import_targets(node) -> list[tuple[str, str]]:
    """(bound name, dotted target) of each name an import statement binds, as names.build_import_table records."""
    out = []
    if isinstance(node, cst.Import):
        for alias in node.names:
            dotted = code(alias.name)
            out.append((alias.asname.name.value, dotted) if alias.asname else (dotted.split(".")[0],
                                                                                dotted.split(".")[0]))
    else:
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else alias.name.value
            out.append((local, f"{code(node.module)}.{code(alias.name)}"))
    return out


class _Returns(Visitor):
    def __init__(self):
        self.found = []

    def visit_Return(self, node) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node) -> bool:  # a nested def's returns are its own
        return False

    def visit_Lambda(self, node) -> bool:
        return False


def has_return(statements) -> bool:
    returns = _Returns()
    for stmt in statements:
        walk(stmt, returns)
    return bool(returns.found)


def debug_print(value, module_names) -> bool:
    """`print(logits)`, `print("shape", net.shape)`: the builtin print over names, attributes, subscripts and literals
    (nothing it could call), so dropping it drops only output."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "print"
            and "print" not in module_names):
        return False

    def pure(node) -> bool:
        if isinstance(node, (cst.Name, cst.SimpleString, cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.Attribute):
            return pure(node.value)
        if isinstance(node, cst.Subscript):
            return pure(node.value) and all(isinstance(e.slice, cst.Index) and pure(e.slice.value) for e in node.slice)
        if isinstance(node, cst.ConcatenatedString):
            return pure(node.left) and pure(node.right)
        if isinstance(node, cst.FormattedString):
            return all(not isinstance(p, cst.FormattedStringExpression) or pure(p.expression) for p in node.parts)
        return False

    return all(not arg.star and pure(arg.value) for arg in value.args)
