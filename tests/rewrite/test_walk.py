"""tfmigrate.visitors.Visitor walks children itself (LibCST would rebuild every node it descends into): the same
nodes must be visited and left in the same order as LibCST's own traversal, on every kind of node."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tfmigrate.visitors import Visitor

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


class Libcst(_Record, cst.CSTVisitor):
    pass


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
