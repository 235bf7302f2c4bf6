"""engine.parse_checks (the input parse skips node checks that cannot fail on a parsed tree) changes no parse:
the same tree, the same text, and the same exception where LibCST's own checks reject a parsed tree."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfmigrate.engine as engine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _outcome(text: str, checks: bool):
    try:
        if checks:
            with engine.parse_checks():
                return "ok", cst.parse_module(text)
        return "ok", cst.parse_module(text)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return type(exc).__name__, str(exc)


def assert_same_parse(text: str) -> str:
    post_init = cst.CSTNode.__dict__["__post_init__"]
    fast, slow = _outcome(text, True), _outcome(text, False)
    assert cst.CSTNode.__dict__["__post_init__"] is post_init  # restored, also after an exception
    assert fast[0] == slow[0], (text, fast, slow)
    if slow[0] == "ok":
        assert fast[1].deep_equals(slow[1]), text
        assert fast[1].code == slow[1].code, text
    else:
        assert fast[1] == slow[1], text
    return slow[0]


# (source, what LibCST does with it today)
TRICKY = [
    ("x = a if b else(lambda v: v)\n", "TypeError"),  # IfExp's check calls Lambda's zero-argument super(): a bug
    ("a\u200db = 1\n", "CSTValidationError"),  # a name its tokenizer takes and str.isidentifier does not
    ("a\u30fbb = 1\n", "CSTValidationError"),
    ("\u1c89b = 1\n", "CSTValidationError"),
    ("x = 1if y else 2\n", "ok"),
    ("x = [i for i in(1,2)if i]\n", "ok"),
    ("x = (a)if(b)else(c)\n", "ok"),
    ("x = not(y) or(z)\n", "ok"),
    ("print(1in x, a is(b), c not in[d])\n", "ok"),
    ("def f(a, /, b=1, *c, d, **e) -> (int):\n    return(yield)\n", "ok"),
    ("x \\\n = \\\n 1\x0cif\x0cy\x0celse\x0c2\n", "ok"),
    ("# c\r\nx = 1  # d\r\n\r\nif x:\n\ty = r'''\\\n'''\n", "ok"),
    ("caf\u00e9 = \u00e9t\u00e9 = 1\n", "ok"),
    ("match x:\n    case [1, *_] | {'a': b, **c} if b:\n        pass\n", "ok"),
    ("x = f'{a!r:>{w}}' R'\\d' U'u', rb'\\d' B''\n", "ok"),
    ("x = 'a' b'b'\n", "CSTValidationError"),  # str and bytes concatenated
    ("def f(*, **k): pass\n", "ParserSyntaxError"),
    ("x = (\n", "ParserSyntaxError"),
]


@pytest.mark.parametrize("text,expected", TRICKY)
def test_tricky_sources(text, expected):
    assert assert_same_parse(text) == expected


def test_fixtures_parse_the_same():
    paths = sorted(FIXTURES.glob("*/original.py"))  # the inputs (the migrated goldens: in the report's run)
    assert len(paths) > 50
    for path in paths:
        assert assert_same_parse(path.read_text(encoding="utf-8")) == "ok", path


def test_post_init_only_validates():
    # parse_checks replaces CSTNode.__post_init__: sound while LibCST's does nothing but call `_validate`
    assert cst.CSTNode.__post_init__.__code__.co_names == ("_validate",)
    assert cst.Name not in engine._lexical_nodes()  # its identifier check is kept (parse_checks)
    assert {cst.SimpleWhitespace, cst.Attribute, cst.Comma} <= engine._lexical_nodes()
    assert not {cst.IfExp, cst.Call, cst.Arg, cst.Param, cst.SimpleString, cst.Integer} & engine._lexical_nodes()


def test_parse_source_restores_the_checks():
    post_init = cst.CSTNode.__dict__["__post_init__"]
    failed = engine.parse_source(b"x = a if b else(lambda v: v)\n", "t.py")  # LibCST raises a TypeError in it
    assert failed.status == "failed" and failed.error.startswith("LibCST cannot parse the statement at line 1")
    assert engine.parse_source(b"x = (\n", "t.py").status == "failed"
    assert cst.CSTNode.__dict__["__post_init__"] is post_init
    built = cst.Name("x")  # a node built outside a parse is checked as before
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("x")
    assert built.value == "x"


# snippets from a small grammar, with no, one or odd whitespace between tokens: word operators glued to
# parentheses, strings and numbers are where LibCST's structural checks reject what its parser built
_GAP = st.sampled_from(["", "", " ", "\t", "\x0c", " \\\n "])
_NAME = st.sampled_from(["a", "b1", "_c", "\u00e9", "a\u200d", "print", "match"])
_ATOM = st.one_of(_NAME, st.sampled_from(["1", "0x1F", "1.5e3", "2j", "1_0", "'s'", 'b"x"', "f'{a}'", "None",
                                          "...", "[]", "{}", "()"]))


def _join(parts, gaps):
    return "".join(part + gap for part, gap in zip(parts, gaps))


@st.composite
def _tokens(draw, parts):
    return _join(parts, draw(st.lists(_GAP, min_size=len(parts), max_size=len(parts))))


def _expression(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(["or", "and", "if", "in", "is", "not in", "+", "*", "**", "."]), inner),
        st.tuples(st.sampled_from(["not", "-", "lambda:", "lambda x:", "await", "yield", "*"]), inner),
        st.tuples(inner, st.just("if"), inner, st.just("else"), inner),
        st.tuples(st.just("("), inner, st.just(")")),
        st.tuples(st.just("["), inner, st.just("for"), _NAME, st.just("in"), inner, st.just("]")),
        st.tuples(inner, st.just("("), inner, st.just(","), _NAME, st.just("="), inner, st.just(")")),
    ).flatmap(lambda parts: _tokens(list(parts)))


_EXPR = st.recursive(_ATOM, _expression, max_leaves=6)
_STATEMENT = st.one_of(
    _EXPR.map(lambda e: f"x = {e}\n"),
    _EXPR.map(lambda e: f"def f(a, *b, c=1):\n    return {e}\n"),
    _EXPR.flatmap(lambda e: _tokens(["assert", e, ",", "x"]).map(lambda s: s + "\n")),
    _EXPR.flatmap(lambda e: _tokens(["for", "a", "in", e, ":", "pass"]).map(lambda s: s + "\n")),
    _EXPR.flatmap(lambda e: _tokens(["import", "a.b", "as", "c", ";", "del", e]).map(lambda s: s + "\n")),
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_STATEMENT, min_size=1, max_size=3).map("".join))
def test_generated_snippets_parse_the_same(text):
    assert_same_parse(text)
