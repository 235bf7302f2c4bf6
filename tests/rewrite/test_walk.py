"""tfmigrate.visitors.Visitor walks children itself (LibCST would rebuild every node it descends into): the same
nodes must be visited and left in the same order as LibCST's own traversal, on every kind of node, except that it
does not enter layout and punctuation (TRIVIA)."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tfmigrate.visitors import TRIVIA, Visitor

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("fixtures/**/*.py"), *ROOT.glob("migrator/*.py"), *ROOT.glob("rules/*.py"),
                  *ROOT.glob("tests/generated/*.py")])
# syntax the sources above may not have
EXTRA = '''
async def f(a, /, b: int = 1, *args, c, d=2, **kw) -> "x":
    async with a as (b, c), d:
        async for x in y:
            await z
    return [i async for i in g() if i] or {k: v for k, v in w} or {*s} or (yield from t)
x: list[int] = (lambda *a, **k: a)(*[1], **{})
del a[1:2:3], b.c
global q
match p:
    case [1, *rest] | {"k": v, **kw} if v: pass
    case Point(x=0, y=_) as pt: pass
    case str() | None: pass
try:
    raise E from e
except* (A, B) as e:
    pass
else:
    pass
finally:
    assert x, "m"
print(f"{a!r:>{w}} {b=}", u"s" "t", b"b", 1j, 0x1, ...)
x = a if b else c; y @= z; import a.b as c; from . import (d as e, f)
@dec
class C(B, metaclass=M):
    nonlocal_ = not a and b or ~c ** -d
    while x:
        break
    else:
        continue
type T = int
def g[T: int, *Ts, **P](): ...
'''


class _Record:
    def __init__(self):
        self.seen = []

    def on_visit(self, node):
        self.seen.append(("visit", id(node)))
        return super().on_visit(node)

    def on_leave(self, node):
        self.seen.append(("leave", id(node)))
        return super().on_leave(node)


class Fast(_Record, Visitor):
    pass


class Every(_Record, cst.CSTVisitor):
    pass


class Libcst(_Record, cst.CSTVisitor):
    """LibCST's walk with TRIVIA left out (not recorded, not entered)."""

    def on_visit(self, node):
        return not isinstance(node, TRIVIA) and super().on_visit(node)

    def on_leave(self, node):
        if not isinstance(node, TRIVIA):
            super().on_leave(node)


@pytest.mark.parametrize("source", [*SOURCES, "EXTRA"], ids=lambda p: p if isinstance(p, str) else str(p.relative_to(ROOT)))
def test_same_nodes_same_order(source):
    text = EXTRA if source == "EXTRA" else source.read_text()
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        if source == "EXTRA":  # `type` / PEP 695 need a newer grammar than this LibCST has
            module = cst.parse_module(text.split("type T = int")[0])
        else:
            raise
    fast, slow = Fast(), Libcst()
    module.visit(fast)
    module.visit(slow)
    assert fast.seen == slow.seen and (len(fast.seen) > 10 or not text.strip())


def test_trivia_is_most_nodes_and_never_entered():
    """The walk leaves out whitespace, comments, punctuation and operator tokens, and only those."""
    module = cst.parse_module("x = f(a, b=1)  # c\nif not (y.z + 2 < 3):\n    pass\n")
    fast, every = Fast(), Every()
    module.visit(fast)
    module.visit(every)
    kinds = {type(n).__name__ for n in _nodes(module) if ("visit", id(n)) in fast.seen}
    assert {"Name", "Call", "Arg", "Integer", "Comparison", "ComparisonTarget", "UnaryOperation", "BinaryOperation",
            "Attribute", "Pass", "If"} <= kinds
    skipped = {type(n).__name__ for n in _nodes(module) if ("visit", id(n)) not in fast.seen}
    assert {"Comma", "AssignEqual", "Comment", "LessThan", "Add", "Not", "Dot", "LeftParen", "SimpleWhitespace",
            "TrailingWhitespace", "Newline"} <= skipped
    assert all(issubclass(getattr(cst, k), TRIVIA) for k in skipped)
    assert len(fast.seen) < len(every.seen) / 2


def _nodes(module):
    out = []

    class _All(cst.CSTVisitor):
        def on_visit(self, node):
            out.append(node)
            return True

    module.visit(_All())
    return out


def test_visitor_refuses_trivia_methods():
    with pytest.raises(TypeError, match="TRIVIA"):
        class _Bad(Visitor):
            def visit_Comment(self, node):
                pass


def test_trivia_methods_read_from_the_mro_as_issubclass_would():
    """visitors reads TRIVIA membership from a class's MRO (cheaper at import than ABCMeta's issubclass): the same
    answer for every class LibCST exports, and the refused methods are exactly those of the TRIVIA classes."""
    from tfmigrate import visitors

    classes = [getattr(cst, name) for name in dir(cst) if isinstance(getattr(cst, name), type)]
    assert [visitors._trivia_class(c) for c in classes] == [issubclass(c, TRIVIA) for c in classes]
    assert sum(map(visitors._trivia_class, classes)) > 30
    expected = {f"{prefix}_{name}" for prefix in ("visit", "leave") for name in dir(cst)
                if isinstance(getattr(cst, name), type) and issubclass(getattr(cst, name), TRIVIA)}
    assert visitors._TRIVIA_METHODS == expected


def test_walk_is_libcst_visit_for_a_visitor():
    """visitors.walk (the read-only walks' entry) sees the same nodes in the same order as `node.visit`."""
    from tfmigrate.visitors import walk

    module = cst.parse_module(EXTRA.split("type T = int")[0])
    for node in [module, module.body[0], *_nodes(module)[:40]]:
        fast, slow = Fast(), Fast()
        walk(node, fast)
        node.visit(slow)
        assert fast.seen == slow.seen


def test_node_classes_tested_by_exact_type_have_no_subclasses():
    """model.py, model_fn.py test LibCST node classes by exact type (`type(x) is cst.Name`, `type(x) in {...}`)
    instead of isinstance (ABCMeta's check, slow on a miss): the same answer while no concrete LibCST node
    class has a subclass, LibCST's own or one made by the rules."""
    import inspect

    import tfmigrate.rules  # noqa: F401 - the rules' modules, in case one subclassed a node class

    concrete = [getattr(cst, n) for n in dir(cst) if isinstance(getattr(cst, n), type)
                and issubclass(getattr(cst, n), cst.CSTNode) and not inspect.isabstract(getattr(cst, n))]
    assert len(concrete) > 100
    assert [c for c in concrete if c.__subclasses__()] == []
