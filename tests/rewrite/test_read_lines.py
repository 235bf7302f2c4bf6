"""`_ast_read_lines` (the statements reaching the asked lines parsed, the others blank) reads the same Names as
`ast_read` of the whole text: on every text `Settled` asks about while the fixtures migrate, and on hand shapes
where the statement scan must not cut (decorators, else/except clauses, brackets, continuations, f-strings),
each asked on every line that holds code (as `Settled` asks: the lines of words in code)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import tfmigrate.rules.planners.generated_names as program  # the ast reading of generated text
from tfmigrate.engine import Options, migrate_source
from tfmigrate.rules.emit import codewords as emit

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.py").is_file())

SHAPES = [
    "import os\n\n\n@tf.function\n@deco(\n    a=tf.x)\ndef f(tf_arg=tf.y):\n    return tf.z\n\n\nx = 1\n",
    "if tf.a:\n    b = 1\nelif c:\n    d = tf.e\nelse:\n    f = 2\ntry:\n    g = tf.h\nexcept E as tf:\n    pass\n"
    "finally:\n    i = 3\n",
    "x = foo(\nbar,\n    tf.baz)\ny = [\n1,\n]\nz = 1 + \\\ntf.q\n",
    'x = f"({tf.a}" + f\'{d["k"]}]\'\nclass M(keras.Model):\n    """Doc\n\nstring."""\n    def a(self):\n'
    '        return tf.x\n\n    @property\n    def b(self):\n        return f"{tf.y})"\n\n    z = tf.w  # c\n',
    "class A(\n    B, metaclass=tf.M):\n    def m(self, tf):\n        return tf\n\n    n = tf.k\n",
    "class C:\n    def m(self):\n        if x:\n            pass\n        else:\n            return tf.v\n    k = [\n"
    "    tf.j,\n    ]\n\n\ndef g():\n    global tf\n    tf = 1\n",
    'x = """a\ntf.b\n"""\ny = tf.c\nclass D:\n    s = f"""{tf.x}\n"""\n    t = tf.t\n',
]


def _same(text: str, lines: tuple[int, ...]) -> None:
    whole = program.ast_read.__wrapped__(text, lines)
    part = program._ast_read_lines(text, lines)
    assert (whole is None) == (part is None), (text, lines)
    if whole is not None:
        assert (part.uses, part.references, part.attributes, part.imported) == \
               (whole.uses, whole.references, whole.attributes, whole.imported), (text, lines)


@pytest.mark.parametrize("text", SHAPES)
def test_read_lines_match_the_whole_read_on_shapes(text):
    masked = emit.mask(text) or text
    code = tuple(number for number, line in enumerate(masked.split("\n"), 1) if line.strip())
    for line in code:
        _same(text, (line,))
    _same(text, (code[0], code[-1]))
    _same(text, code[::3])


def test_read_lines_none_where_the_text_does_not_parse():
    assert program._ast_read_lines("x = tf.a\ndef f(:\n", (2,)) is None


@pytest.mark.parametrize("name", CASES)
def test_read_lines_match_the_whole_read_on_generated_texts(name, monkeypatch):
    asked: list[tuple[str, tuple[int, ...]]] = []
    real = program._ast_read_lines

    def spy(text, lines):
        asked.append((text, lines))
        return real(text, lines)

    monkeypatch.setattr(program, "_ast_read_lines", spy)
    case = tomllib.loads((FIXTURES / name / "case.toml").read_text())
    migrate_source((FIXTURES / name / "original.py").read_bytes(), f"{name}/original.py",
                   Options(strategy=case.get("strategy", "keep")))
    monkeypatch.undo()  # (_same asks the real one)
    if name == "cnn":  # (a fixture whose generated model names `tf`)
        assert asked
    for text, lines in asked:
        _same(text, lines)
