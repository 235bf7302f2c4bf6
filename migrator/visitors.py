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
            fn = cache[kind] = getattr(cls, f"{prefix}{kind.__name__}", None)
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


class Visitor(_Dispatch, cst.CSTVisitor):
    """A read-only visitor. LibCST's `visit` rebuilds every node it descends into (`_visit_and_replace_children`
    constructs and validates a copy, even for a visitor, and throws it away); this one walks the children itself
    and tells LibCST not to descend, so a visit allocates nothing. Same nodes, same order, same protocol."""

    def on_visit(self, node) -> bool:
        kind = type(node)
        fn = self._method(self._visit_cache, "visit_", kind)
        if fn is not None and fn(self, node) is False:
            return False
        descend(self, node, kind)
        return False


_SENTINEL = cst.MaybeSentinel


def descend(visitor, node, kind) -> None:
    """Visit `node`'s children as LibCST's `visit` would (a visitor's on_visit, the children, its on_leave), without
    LibCST's per-node overhead (ABC isinstance checks of the results) and without rebuilding anything."""
    for name in _ORDER.get(kind) or child_fields(kind):
        value = getattr(node, name)
        t = type(value)
        if t is tuple or t is list:
            for child in value:
                if visitor.on_visit(child):  # (a Visitor walks the children itself and says no)
                    child._visit_and_replace_children(visitor)
                visitor.on_leave(child)
        elif value is not None and t is not _SENTINEL:
            if visitor.on_visit(value):
                value._visit_and_replace_children(visitor)
            visitor.on_leave(value)

    def on_leave(self, original_node) -> None:
        fn = self._method(self._leave_cache, "leave_", type(original_node))
        if fn is not None:
            fn(self, original_node)


class Transformer(_Dispatch, cst.CSTTransformer):
    def on_visit(self, node) -> bool:
        fn = self._method(self._visit_cache, "visit_", type(node))
        return fn is None or fn(self, node) is not False

    def on_leave(self, original_node, updated_node):
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


def render(module: cst.Module, node: cst.CSTNode | None = None) -> str:
    """`module.code` / `module.code_for_node(node)`, the same text (LibCST's own codegen, without its per-node
    position bookkeeping)."""
    if not _STATE:
        _STATE.append(_fast_state())
    state = _STATE[0](default_indent=module.default_indent, default_newline=module.default_newline)
    (module if node is None else node)._codegen(state)
    return "".join(state.tokens)
