"""identifiers_skip's first look (`_code_names_have`: the names of the compiled code) only ever says what the
`ast` walk would: a word it finds in a code name is in an identifier of the source."""
from __future__ import annotations

from pathlib import Path

import pytest

import tfmigrate.engine as engine
from tfmigrate.rules import PREFILTER

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
]


def _ast_says_identifier(data: bytes) -> bool:
    real = engine._code_names_have
    try:
        engine._code_names_have = lambda data, words: False
        return not engine.identifiers_skip(data, "<stdin>", PREFILTER)
    finally:
        engine._code_names_have = real


@pytest.mark.parametrize("data", [p.read_bytes() for p in SOURCES] + SHAPES)
def test_code_names_imply_an_identifier(data, capsys):
    if engine._code_names_have(data, WORDS):
        assert _ast_says_identifier(data)
    assert engine.identifiers_skip(data, "<stdin>", PREFILTER) == (not _ast_says_identifier(data))
    assert capsys.readouterr().err == ""


def test_code_names_find_the_fixtures_words():
    assert all(engine._code_names_have(p.read_bytes(), WORDS) for p in FIXTURES.glob("*/original.py")
               if b"stimator" in p.read_bytes() and not engine.identifiers_skip(p.read_bytes(), "<stdin>", PREFILTER))
