"""LibCST visitor bases without the per-field hooks: cheaper walks, the same visits.

LibCST calls `on_visit_attribute` / `on_leave_attribute` for every field of every node visited, each a `getattr`
for a `visit_<Node>_<field>` method, and `on_visit` / `on_leave` build a method name per node. No visitor of
tfmigrate defines per-field methods, so these bases skip those hooks and look up `visit_<Node>` / `leave_<Node>`
once per class and node type. Subclasses keep LibCST's protocol (visit_X returning False skips the children;
a transformer's leave_X returns the replacement).
"""
from __future__ import annotations

import inspect
import re
import typing

import libcst as cst

_MISSING = object()


class _Dispatch:
    _visit_cache: dict
    _leave_cache: dict

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._visit_cache, cls._leave_cache = {}, {}

    @classmethod
    def _method(cls, cache: dict, prefix: str, kind: type):
        fn = cache.get(kind, _MISSING)
        if fn is _MISSING:
            fn = getattr(cls, f"{prefix}{kind.__name__}", None)
            if getattr(fn, "_is_no_op", False):  # LibCST's typed stubs (`pass` / `return updated_node`): no call
                fn = None
            cache[kind] = fn
        return fn

    def on_visit_attribute(self, node, attribute) -> None:
        pass

    def on_leave_attribute(self, original_node, attribute) -> None:
        pass


_FIELD = re.compile(r"""visit_[a-z_]+\(\s*self,\s*["'](\w+)["']""")
_ORDER: dict[type, tuple[str, ...]] = {}


def child_fields(kind: type) -> tuple[str, ...]:
    """The fields a LibCST node type's `_visit_and_replace_children` visits, in its order (read once from that
    method's source: each child is visited by a `visit_<kind>(self, "<field>", ...)` call, in keyword order).
    tests/rewrite/test_walk.py checks the walk this gives against LibCST's on every node of the fixtures."""
    order = _ORDER.get(kind)
    if order is None:
        source = inspect.getsource(kind._visit_and_replace_children)
        order = _ORDER[kind] = tuple(dict.fromkeys(_FIELD.findall(source)))  # a field may be named in two branches
    return order


def _trivia() -> tuple[type, ...]:
    from libcst._nodes import op, whitespace

    return (whitespace.BaseParenthesizableWhitespace, whitespace.TrailingWhitespace, whitespace.EmptyLine,
            whitespace.Newline, whitespace.Comment, op.Comma, op.Dot, op.Colon, op.Semicolon, op.AssignEqual,
            op.BaseBinaryOp, op.BaseBooleanOp, op.BaseUnaryOp, op.BaseCompOp, op.BaseAugOp, cst.LeftParen,
            cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace)


# Layout and punctuation: whitespace, comments, newlines, parentheses and brackets, commas, dots, colons, `=`, and
# operator tokens (the operation itself, BinaryOperation/Comparison/…, is walked). About two thirds of a module's
# nodes; no read-only visitor of tfmigrate looks at them (Visitor refuses a subclass with a visit_/leave_ method
# for one), so its walk does not enter them.
TRIVIA = _trivia()
WALK: dict[type, tuple[str, ...]] = {}


def _classes(annotation) -> list:
    """The classes a field annotation names (through Sequence/Union/Optional), None for one it cannot read."""
    if isinstance(annotation, type):
        return [annotation]
    args = typing.get_args(annotation)
    if not args:
        return [None]
    return [c for a in args for c in _classes(a)]


def _only_trivia(annotation) -> bool:
    found = [c for c in _classes(annotation) if c is not type(None) and c is not cst.MaybeSentinel]
    return bool(found) and all(isinstance(c, type) and issubclass(c, TRIVIA) for c in found)


def walked_fields(kind: type) -> tuple[str, ...]:
    """`child_fields(kind)` without the fields that can hold only TRIVIA (read once from the field annotations)."""
    fields = WALK.get(kind)
    if fields is None:
        try:
            hints = typing.get_type_hints(kind)
        except Exception:  # an annotation this Python cannot evaluate: walk every field
            hints = {}
        fields = WALK[kind] = tuple(f for f in child_fields(kind) if f not in hints or not _only_trivia(hints[f]))
    return fields


_TRIVIA_SET = frozenset(TRIVIA)


def _trivia_class(kind: type) -> bool:
    """`issubclass(kind, TRIVIA)` read from kind's MRO: the same answer for LibCST's classes (it registers no
    virtual subclass; tests/rewrite/test_walk.py compares the two), without ABCMeta's first check of a class
    against each TRIVIA base walking every subclass of that base (~17 ms over dir(libcst) at import)."""
    return not _TRIVIA_SET.isdisjoint(kind.__mro__)


_TRIVIA_METHODS = frozenset(f"{prefix}_{name}" for prefix in ("visit", "leave") for name in dir(cst)
                            if isinstance(getattr(cst, name), type) and _trivia_class(getattr(cst, name)))


def _refuse_trivia_methods(cls) -> None:
    """A class's own methods (its bases were checked when they were made; classes are made per call)."""
    bad = _TRIVIA_METHODS.intersection(vars(cls))
    if bad:
        name = min(bad)
        raise TypeError(f"{cls.__name__}.{name}: tfmigrate's walks do not enter {name[6:]} nodes (TRIVIA)")


class Visitor(_Dispatch, cst.CSTVisitor):
    """A read-only visitor. LibCST's `visit` rebuilds every node it descends into (`_visit_and_replace_children`
    constructs and validates a copy, even for a visitor, and throws it away); this one walks the children itself
    and tells LibCST not to descend, so a visit allocates nothing. Same nodes, same order, same protocol, except
    that the walk does not enter TRIVIA (layout and punctuation nodes)."""

    _leaves = False  # whether leaving a node can do anything (an on_leave of its own, or a leave_ method)
    _plans: dict = {}  # per class: node type → (its visit_ method or None, walked_fields): one lookup a node

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _refuse_trivia_methods(cls)
        cls._plans = {}
        cls._leaves = any("on_leave" in vars(klass) or any(name.startswith("leave_") for name in vars(klass))
                          for klass in cls.__mro__
                          if klass not in _VISITOR_BASES and not klass.__module__.startswith("libcst"))

    def on_visit(self, node) -> bool:
        kind = type(node)
        plan = self._plans.get(kind)
        if plan is None:
            plan = self._plans[kind] = (self._method(self._visit_cache, "visit_", kind), walked_fields(kind))
        fn, fields = plan
        if fn is not None and fn(self, node) is False:
            return False
        if fields:  # the children, as LibCST's `visit` would walk them (a visitor's on_visit, the child's
            # children, its on_leave), without LibCST's per-node checks, rebuilding nothing, not entering TRIVIA
            on_visit = self.on_visit
            on_leave = self.on_leave if self._leaves else None
            for name in fields:
                value = getattr(node, name)
                t = type(value)
                if t is tuple or t is list:
                    for child in value:
                        if on_visit(child):
                            child._visit_and_replace_children(self)
                        if on_leave is not None:
                            on_leave(child)
                elif value is not None and t is not SENTINEL:
                    if on_visit(value):
                        value._visit_and_replace_children(self)
                    if on_leave is not None:
                        on_leave(value)
        return False

    def on_leave(self, original_node) -> None:
        fn = self._leave_cache.get(type(original_node), _MISSING)
        if fn is _MISSING:
            fn = self._method(self._leave_cache, "leave_", type(original_node))
        if fn is not None:
            fn(self, original_node)


_VISITOR_BASES = frozenset({Visitor, _Dispatch, object})
SENTINEL = cst.MaybeSentinel


def walk(node: cst.CSTNode, visitor: Visitor) -> None:
    """`node.visit(visitor)` for a read-only Visitor (what LibCST's `visit` does for one: on_visit, the children if
    it says so, on_leave), without that method's two ABC isinstance checks of the visitor and of the result."""
    if visitor.on_visit(node):
        node._visit_and_replace_children(visitor)
    if visitor._leaves:
        visitor.on_leave(node)


_IS_TRIVIA: dict[type, bool] = {}


class ValueNames(Visitor):
    """A walk over the names a node reads as values: attribute names and keyword names are skipped (`found`: what
    subclasses collect)."""

    def __init__(self, found):
        self.found = found

    def visit_Attribute(self, n: cst.Attribute) -> bool:
        walk(n.value, self)
        return False

    def visit_Arg(self, n: cst.Arg) -> bool:
        walk(n.value, self)
        return False


class Transformer(_Dispatch, cst.CSTTransformer):
    """LibCST's transform (it rebuilds what it enters), without entering TRIVIA: a comma, a dot, an operator or a
    parenthesis is kept as it is, with its whitespace and comments, and is left (on_leave) like any node."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _refuse_trivia_methods(cls)

    def on_visit(self, node) -> bool:
        kind = type(node)
        trivia = _IS_TRIVIA.get(kind)
        if trivia is None:
            trivia = _IS_TRIVIA[kind] = issubclass(kind, TRIVIA)
        if trivia:
            return False
        fn = self._visit_cache.get(kind, _MISSING)
        if fn is _MISSING:
            fn = self._method(self._visit_cache, "visit_", kind)
        return fn is None or fn(self, node) is not False

    def on_leave(self, original_node, updated_node):
        fn = self._leave_cache.get(type(original_node), _MISSING)
        if fn is _MISSING:
            fn = self._method(self._leave_cache, "leave_", type(original_node))
        return updated_node if fn is None else fn(self, original_node, updated_node)


class _NoPosition:
    """`record_syntactic_position` for plain rendering: LibCST's is a generator-based context manager, entered
    for most nodes; this one does nothing, for the price of two method calls."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


_NO_POSITION = _NoPosition()


def _fast_state():
    from libcst._nodes.internal import CodegenState

    class _FastState(CodegenState):
        def record_syntactic_position(self, node, *, start_node=None, end_node=None):
            return _NO_POSITION

    return _FastState


_STATE: list = []


def codegen_state(module: cst.Module):
    """A codegen state for `module`'s nodes, without position bookkeeping."""
    if not _STATE:
        _STATE.append(_fast_state())
    return _STATE[0](default_indent=module.default_indent, default_newline=module.default_newline)


def render(module: cst.Module, node: cst.CSTNode | None = None) -> str:
    """`module.code` / `module.code_for_node(node)`, the same text (LibCST's own codegen, without its per-node
    position bookkeeping)."""
    state = codegen_state(module)
    (module if node is None else node)._codegen(state)
    return "".join(state.tokens)
