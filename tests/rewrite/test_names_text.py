"""`_ast_names` (generated code kept as text, read with `ast`) gives the Names LibCST would parse there
(`_cst_names`): on every text the fixtures' migrations ask about, and on hand-written shapes of every kind of Name."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import tfmigrate.rules.program as program
from tfmigrate.engine import Options, migrate_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.py").is_file())

SHAPES = [
    "import a.b.c as d, e\nfrom f.g import (h as i, j)\nfrom . import k\nfrom .l import *\n",
    "def f(a, /, b=1, *c, d, e=2, **g):\n    global h\n    def i():\n        nonlocal a\n    return lambda j, *k: j\n",
    "class A(B, metaclass=M):\n    x: int = call(key=value, **kw)\n    y = [z for z in w if z]\n",
    "try:\n    pass\nexcept (E1, E2) as err:\n    raise X from err\nwith ctx() as (p, q):\n    del p\n",
    "match v:\n    case Point(x=px, y=0) | [a, *rest]:\n        pass\n    case {'k': kv, **others}:\n        pass\n"
    "    case Cls() as bound:\n        pass\n    case _:\n        pass\n",
    'x = f"{a.b!r:>{width}} {c}" + "not_a_name" # comment_name\ny = True, False, None, ...\n',
    "@deco.attr(arg)\nasync def run(self):\n    async for i in it:\n        await i.keras(tf=1)\n",
    "    def method(self, keras):\n        return keras.layers.Dense(tf.x)\n",  # a method kept as text
]


@pytest.mark.parametrize("imports", [True, False])
@pytest.mark.parametrize("text", SHAPES)
def test_ast_names_match_libcst_on_shapes(text, imports):
    assert program._ast_names(text, imports) == program._cst_names(text, imports)


def test_ast_names_none_for_text_ast_does_not_read():
    assert program._ast_names("def f(:\n", True) is None


def _generated_texts(name: str, monkeypatch) -> list[str]:
    """The generated texts the import fix-up asks about while the fixture `name` migrates."""
    seen: list[str] = []
    real = program._names_any

    def spy(module, words, texts=(), imports=True):
        seen.extend(texts)
        return real(module, words, texts, imports)

    monkeypatch.setattr(program, "_names_any", spy)
    case = tomllib.loads((FIXTURES / name / "case.toml").read_text())
    migrate_source((FIXTURES / name / "original.py").read_bytes(), f"{name}/original.py",
                   Options(strategy=case.get("strategy", "keep")))
    return seen


@pytest.mark.parametrize("name", CASES)
def test_ast_names_match_libcst_on_generated_texts(name, monkeypatch):
    seen = _generated_texts(name, monkeypatch)
    if name == "cnn":  # (a fixture that converts keeps generated code as text)
        assert seen
    for text in seen:
        for imports in (True, False):
            assert program._ast_names(text, imports) == program._cst_names(text, imports)


PROOF_SHAPES = [
    ("m = keras.layers.Dense(1)\n", True),
    ("m = tf.keras .layers\n", True),  # an attribute named keras is a Name too
    ('x = "keras.layers"  # keras.layers\n', False),
    ('x = f"{a} keras.layers"\n', False),  # f-strings are blanked whole (a proof only ever misses)
    ('"""Docstring: keras.layers.Dense."""\n', False),
    ("import keras.layers\n", False),
    ("x = 1; import keras.layers as kl\n", False),
    ("from keras.layers import Dense\n", False),
    ("import os, \\\n    keras.layers\n", False),
    ("def f():\n    '''a\n    keras.x\n    '''\n    return keras.ops.add(1, 2)\n", True),
]


@pytest.mark.parametrize("text, proved", PROOF_SHAPES)
def test_used_in_code_proves_only_names_outside_imports(text, proved):
    assert program._used_in_code(text, frozenset({"keras"})) is proved
    if proved:
        assert "keras" in program._cst_names(text, False)


@pytest.mark.parametrize("name", CASES)
def test_used_in_code_never_claims_what_a_parse_denies(name, monkeypatch):
    seen = _generated_texts(name, monkeypatch)
    for text in seen:
        for word in ("keras", "tf"):
            if program._used_in_code(text, frozenset({word})):
                assert word in program._cst_names(text, False)
