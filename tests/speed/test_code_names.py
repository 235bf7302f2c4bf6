"""identifier_facts' first look (`_code_names`: the names of the compiled code) only ever clears facts the `ast`
walk would keep or clear: a name it finds is an identifier of the source."""
from __future__ import annotations

from pathlib import Path

import pytest

import tfmigrate.engine as engine
from tfmigrate.rules import NAMES, PREFILTER, ROOTS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SOURCES = sorted(FIXTURES.glob("*/original.py")) + sorted(FIXTURES.glob("*/original/**/*.py"))
WORDS = tuple(w.decode() for w in PREFILTER)

SHAPES = [
    b'"""An Estimator docstring."""\nx = "tf.estimator.Estimator"  # estimator\n',
    b"def f(*, estimator=None):\n    pass\n",
    b"f(estimator=1)\n",  # a keyword name: not a code name, the ast walk finds it
    b"class A:\n    def __m(self):\n        self.__estimator = 1\n",
    b"def f():\n    global RunConfig\n",
    b"def f():\n    x: EstimatorSpec = 1\n",
    b"import tensorflow_estimator as te\n",
    b"from .estimator import a\n",
    b"print(f'{est.train_and_evaluate}')\n",
    b"[e for e in estimators]\n",
    b"x is 1  # a SyntaxWarning, not printed\n",
    b"return 1\n",  # parses, does not compile
    b"def validate(estimator):\n    return estimator._validate()\n",  # a parameter named like an attribute of NAMES
]


def _ast_only(data: bytes, ask=lambda data: engine.identifier_facts(data, "<stdin>", PREFILTER, ROOTS, NAMES)):
    real = engine._code_names
    try:
        engine._code_names = lambda data: None
        return ask(data)
    finally:
        engine._code_names = real


SOURCES_DATA = [p.read_bytes() for p in SOURCES]


@pytest.mark.parametrize("data", SOURCES_DATA + SHAPES)
def test_code_names_only_clear_facts(data, capsys):
    """The compiled names can only take facts away (more work, never a skip the ast would not give)."""
    fast, slow = engine.identifier_facts(data, "<stdin>", PREFILTER, ROOTS, NAMES), _ast_only(data)
    assert fast & ~slow == 0
    skip = lambda data: engine.identifiers_skip(data, "<stdin>", PREFILTER)  # noqa: E731
    assert skip(data) == _ast_only(data, skip)
    assert capsys.readouterr().err == ""


def test_code_names_settle_the_fixtures_without_the_ast(monkeypatch):
    """Programs that convert clear every fact from the compiled names: no `ast` parse on the converting path."""
    import ast

    def no_parse(*args, **kwargs):
        raise AssertionError("ast.parse called")

    monkeypatch.setattr(ast, "parse", no_parse)
    for p in FIXTURES.glob("*/original.py"):
        assert engine.identifier_facts(p.read_bytes(), "<stdin>", PREFILTER, ROOTS, NAMES) == 0, p
