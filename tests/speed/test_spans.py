"""migrator/spans.py: the span statement_spans gives each top-level statement is exactly LibCST's code for it
(`module.code_for_node(stmt)`), header and footer included, and render_reusing renders a module that shares
statements with the parsed one byte-identically to LibCST's codegen — on every fixture, on generated programs and
on odd layouts (comments and blank lines at every indent between and after compound statements, `;`, backslash
continuations, col-0 lines inside strings and brackets, CRLF, tabs, form feeds, lone CR, no final newline, BOM,
coding cookie). Where the scan cannot be sure it gives no spans, and the render falls back to codegen."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tfmigrate.files import decode
from tfmigrate.spans import render_reusing, statement_spans
from tfmigrate.visitors import render

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "generated"))

from program_gen import draw_shape  # noqa: E402
from program_gen import render as render_program  # noqa: E402


def check(text: str, require: bool = False, rng: random.Random | None = None) -> list[int] | None:
    """Spans (when given) slice exactly LibCST's code of every part; the render with shared and regenerated
    statements equals LibCST's whatever the spans."""
    module = cst.parse_module(text)
    code = render(module)  # (not always `text`: LibCST drops blank lines before a whitespace-only last line)
    spans = statement_spans(module, text)
    if require:
        assert spans is not None
    if spans is not None:
        full = text if module.has_trailing_newline else text + module.default_newline
        assert len(spans) == len(module.body) + 1
        assert full[:spans[0]] == "".join(module.code_for_node(line) for line in module.header)
        for i, stmt in enumerate(module.body):
            assert full[spans[i]:spans[i + 1]] == module.code_for_node(stmt), i
        footer = "".join(module.code_for_node(line) for line in module.footer)
        assert full[spans[-1]:] == footer
    assert render_reusing(module.with_changes(), module, text, spans) == code
    rng = rng or random.Random(len(text))
    for _ in range(3):  # some statements regenerated (new objects), some dropped or repeated, header/footer too
        body = [stmt.deep_clone() if rng.random() < 0.4 else stmt for stmt in module.body if rng.random() < 0.9]
        if body and rng.random() < 0.3:
            body.append(body[0])
        changes = {"body": body}
        if rng.random() < 0.3:
            changes["header"] = [line.deep_clone() for line in module.header]
        if rng.random() < 0.3:
            changes["footer"] = [line.deep_clone() for line in module.footer][1:]
        new = module.with_changes(**changes)
        assert render_reusing(new, module, text, spans) == render(new)
    return spans


FIXTURE_FILES = sorted(ROOT.glob("fixtures/*/original.py")) + sorted(ROOT.glob("fixtures/*/migrated.py")) \
    + sorted(ROOT.glob("fixtures/*/*/*.py"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_fixture_spans(path: Path) -> None:
    text, _ = decode(path.read_bytes())
    assert check(text, require=True) is not None


def test_generated_program_spans() -> None:
    rng = random.Random(0)
    for _ in range(60):
        for source in render_program(draw_shape(rng)).values():
            check(source, require=bool(source))


STATEMENTS = [
    "x = 1", "a = 1; b = 2", "a = 1;", "y = 1 + \\\n2", "y = 1 \\\n    + 2", "z = (1 +\n  2)", "w = [\n1,\n]",
    "d = {\n'a': 1,\n}  # }", 's = """doc\ncol0 line\ndef f(): pass\n"""', "'''module doc\n'''", "r'''\\'''\n'''",
    "def f(a):\n{I}return a", "@dec\n# between\n@dec2(1,\n2)\n\ndef g():\n{I}pass",
    "class C:\n{I}x = 1\n{I}def m(self):\n{I}{I}return 1\n{I}# in class\n",
    "if x:\n{I}pass\n# before elif\nelif y:\n{I}pass\nelse:\n{I}pass", "if x: a = 1; b = 2",
    "try:\n{I}pass\nexcept E:\n{I}pass\nexcept (A,\nB):\n{I}pass\nelse:\n{I}pass\nfinally:\n{I}pass",
    "for i in r:\n{I}pass\nelse:\n{I}pass", "while x: pass", "with a as b:\n{I}pass", "async def h():\n{I}await x",
    "async with a:\n{I}pass", "match = 1", "match x:\n{I}case 1:\n{I}{I}pass", 'f"{x}" # comment',
    "x = '#'  # \"", 'print("(")', "import os", "from a import (b,\nc)", "class D(B, metaclass=M): pass",
    "def f2(a):\n{I}x = g(1)\n# c0\n{I}# c\n{I}@d\n\n{I}def inner():\n{I}{I}return h(2)\n\n{I}y = [\n1]; z = k(\n3)"
    "\n{I}s = '''\n{I}q(4)'''\n{I}return x\n{I}{I}# deeper footer",
    "x = '\\\n'", "def k(): return '''\n)'''", "lambda: (yield)", "global q", "del x", "assert x, (\n'm')",
]
LINES = ["", "# c", "#", "  ", "{I}# deeper", "{I}{I}# deepest", "{I}", "\f", "\f# ff", "x = 1 # not empty"]


@st.composite
def layouts(draw) -> bytes:
    indent = draw(st.sampled_from(["    ", "  ", "\t", " \t"]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    head = draw(st.sampled_from(["", "# -*- coding: utf-8 -*-\n", "#!/usr/bin/env python\n", "\n", "# c\n\n"]))
    parts = [head]
    for _ in range(draw(st.integers(0, 6))):
        for _ in range(draw(st.integers(0, 2))):
            parts.append(draw(st.sampled_from(LINES)) + "\n")
        parts.append(draw(st.sampled_from(STATEMENTS)).rstrip("\n") + "\n")
    for _ in range(draw(st.integers(0, 3))):
        parts.append(draw(st.sampled_from(LINES)) + "\n")
    text = "".join(parts).replace("{I}", indent).replace("\n", newline)
    if draw(st.booleans()):
        text = text.rstrip("\r\n") if draw(st.booleans()) else text.rstrip("\r\n") + newline + "# last"
    data = text.encode()
    return b"\xef\xbb\xbf" + data if draw(st.booleans()) else data


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(layouts())
def test_odd_layout_spans(data: bytes) -> None:
    try:
        text, _ = decode(data)
        cst.parse_module(text)
    except Exception:
        assume(False)
    check(text)


def test_spans_given_for_plain_odd_layouts() -> None:
    """The scan does not give up on what is only unusual (the fallback is not the common path)."""
    text = ("# -*- coding: utf-8 -*-\r\n'''Doc.\r\n\r\ncol 0\r\n'''\r\nimport os; import sys\r\n\r\n@d\r\n# c\r\n"
            "def f(a,\r\nb):\r\n\tx = [\r\n1]\r\n\t# deep\r\n# top\r\n\r\nclass C:\r\n\tpass\r\n\t# in\r\n"
            "x = {\r\n}\r\nif x: y = 1\r\nelse:\r\n\tpass\r\nmatch = 1\r\n# end")
    spans = check(text, require=True)
    assert len(spans) == len(cst.parse_module(text).body) + 1
    for text in ("x = 1 \\\n+ 2\n", "\fx = 1\n", "x = 1\ry = 2\n", "\\\nx = 1\n"):
        check(text)  # no spans (a head the scan cannot see as one) or exact ones; the render is exact either way


def check_positions(text: str, rng: random.Random, path: str = "m.py") -> int:
    """Note positions through the scan (the innermost def/class statement the scan places, generated alone) are
    LibCST's PositionProvider's, for calls, names, integers and statements at every depth. Returns how many
    positions came from a statement nested in a def/class body."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    from tfmigrate.engine import _inner_statement, _Positions
    from tfmigrate.model import FileIndex
    from tfmigrate.spans import scan

    module = cst.parse_module(text)
    index = FileIndex(module, path, "m", False)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    kinds = (cst.Call, cst.Name, cst.Integer, cst.SimpleStatementLine, cst.FunctionDef, cst.If, cst.ClassDef)
    nodes = [n for n in positions if isinstance(n, kinds) and id(n) in index.parents and n is not module]
    if not nodes:
        return 0
    found = scan(module, text)
    nested = 0
    for _ in range(4):
        wanted = rng.sample(nodes, min(len(nodes), rng.randint(1, 3)))
        position = _Positions(module, wanted, text, index.parents, lambda: found)
        for node in wanted:
            start = positions[node].start
            assert position(node) == (start.line, start.column), (type(node).__name__, node)
            if found is not None:
                top = node
                while index.parents[id(top)] is not module:
                    top = index.parents[id(top)]
                where = [i for i, s in enumerate(module.body) if s is top]
                if where and _inner_statement(node, top, where[0], found, index.parents)[2]:
                    nested += 1
    return nested


def test_positions_in_def_bodies() -> None:
    rng = random.Random(1)
    nested = 0
    for path in FIXTURE_FILES[::3]:
        text, _ = decode(path.read_bytes())
        nested += check_positions(text, rng)
    for _ in range(15):
        for source in render_program(draw_shape(rng)).values():
            nested += check_positions(source, rng)
    assert nested > 50  # the nested path is the one taken


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(layouts(), st.randoms(use_true_random=False))
def test_odd_layout_positions(data: bytes, rng) -> None:
    try:
        text, _ = decode(data)
        cst.parse_module(text)
    except Exception:
        assume(False)
    check_positions(text, rng)
