"""The leftover-name pass reads a function's local names from the program model (`imports._index_bound_names`)
instead of walking the def again (`names.bound_names`): the same names for every def of the fixtures and of the
shapes below, and no answer for a def that is not a node of the index's tree."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tfmigrate.model import FileIndex
from tfmigrate.names import bound_names
from tfmigrate.rules.planners.imports import _index_bound_names
from tfmigrate.visitors import Visitor, walk

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SOURCES = sorted(FIXTURES.glob("*/original.py")) + sorted(FIXTURES.glob("*/original/**/*.py"))

SHAPES = """
def f(a, /, b, *args, c=1, **kw):
    x = y = 1
    (p, [q, *r]), s.t, u[0] = z = g()
    v: int = 2
    w += 1
    if (n := 3):
        pass
    for i, *j in k:
        m = 1
    with open(x) as (h, *hh):
        pass
    try:
        pass
    except E as e:
        pass
    import os, os.path as op
    from m import nm
    global gl
    gl = 1
    lam = lambda la: (lb := la)
    comp = [cc for cc in range(3) if (cw := cc)]

    def inner(ia):
        ib = 1

        class InInner:
            iic = 1
        return ib

    class C:
        ca = 1
        cb, *cc2 = 1, 2

        def meth(self):
            ma = 1

        class D:
            da = 1

            def dm(self):
                pass
    async def co():
        pass
    return x


class K:
    def method(self, arg):
        self.attr = arg
        local = arg
        return local


def g():
    def g():
        g = 1
    return g
"""


def _defs(module: cst.Module) -> list[cst.FunctionDef]:
    found: list[cst.FunctionDef] = []

    class _Defs(Visitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            found.append(node)

    walk(module, _Defs())
    return found


@pytest.mark.parametrize("source", [*SOURCES, "shapes"], ids=lambda p: p if p == "shapes" else p.parent.name)
def test_same_names_as_bound_names(source):
    module = cst.parse_module(SHAPES if source == "shapes" else source.read_bytes())
    index = FileIndex(module, "m.py", "m")
    defs = _defs(module)
    assert defs or source != "shapes"
    for fn in defs:
        assert _index_bound_names(index, fn) == bound_names(fn), cst.Module([]).code_for_node(fn)[:200]


def test_no_answer_for_a_rebuilt_def():
    module = cst.parse_module("def f(a):\n    b = a\n")
    index = FileIndex(module, "m.py", "m")
    fn = module.body[0]
    assert _index_bound_names(index, fn) == {"f", "a", "b"}
    assert _index_bound_names(index, fn.with_changes(name=cst.Name("h"))) is None
