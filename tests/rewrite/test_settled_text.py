"""Generated code that names the file's TF bindings stays text only where the import fix-up would change nothing
(program.Settled): on every text a fixture's migration accepts, the leftover-name pass on its LibCST parse
rewrites and blocks nothing and finds the binding Names `Settled` counts; on hand-written texts the verdicts
follow the import table (a v1 alias is rewritten: parsed)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import libcst as cst
import pytest

import tfmigrate.rules.program as program
from tfmigrate.engine import Options, migrate_source
from tfmigrate.names import build_import_table
from tfmigrate.rules.emit import codewords as emit
from tfmigrate.rules.planners import imports

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.py").is_file())


def _parse(text: str) -> cst.Module:
    """The text's parse as the tree would hold it (a method kept as text: inside a class)."""
    return cst.parse_module("class _:\n" + text if text.startswith(" ") else text if text.endswith("\n")
                            else text + "\n")


def _check_accepted(settled: program.Settled, text: str) -> None:
    leftover = settled.leftover
    module = _parse(text)
    fresh = imports.LeftoverNames(leftover.table, leftover.v1_bindings, "tf", set(), leftover.kept)
    assert fresh.apply(module) is module, text  # nothing rewritten (a blocker would have raised)
    uses = imports.name_uses(module, set())
    assert settled.accepted[text] == {n for n in settled.bindings if uses[n]}, text


@pytest.mark.parametrize("name", CASES)
def test_accepted_texts_are_left_alone_by_the_fix_up(name, monkeypatch):
    judged: list[tuple[program.Settled, str, bool]] = []
    real = program.Settled._settled

    def spy(self, text, expression, masked):
        verdict = real(self, text, expression, masked)
        judged.append((self, text, verdict))
        return verdict

    monkeypatch.setattr(program.Settled, "_settled", spy)
    case = tomllib.loads((FIXTURES / name / "case.toml").read_text())
    result = migrate_source((FIXTURES / name / "original.py").read_bytes(), f"{name}/original.py",
                            Options(strategy=case.get("strategy", "keep")))
    assert result.status != "failed"
    if name == "cnn":  # (a fixture whose generated model names `tf`: some of it stays text)
        assert any(verdict for _, _, verdict in judged)
    for settled, text, verdict in judged:
        if verdict:
            _check_accepted(settled, text)


def _settled(source: str) -> program.Settled:
    table = build_import_table(cst.parse_module(source), program.TF_ROOTS)
    words = emit.code_words(table.bindings)
    return program.Settled(table, words)


def test_verdicts_follow_the_import_table():
    tf2 = _settled("import tensorflow as tf\n")
    assert tf2("x = keras.layers.Dense(4, activation=tf.nn.relu)\n")
    assert tf2.accepted["x = keras.layers.Dense(4, activation=tf.nn.relu)\n"] == {"tf"}
    assert tf2("    def m(self, x):\n        return tf.argmax(x, axis=1)\n")
    assert not tf2("x = tf.compat.v1.layers.dense(y, 4)\n")  # a v1 name: the fix-up rewrites it
    assert not tf2("x = tf.estimator.ModeKeys.TRAIN\n")  # no TF2 name: the fix-up blocks it
    v1 = _settled("import tensorflow.compat.v1 as tf\n")
    assert not v1("x = keras.layers.Dense(4, activation=tf.nn.relu)\n")  # tf.compat.v1.nn.relu → tf.nn.relu
    kept = _settled("import tensorflow as tf\nflags = tf.compat.v1.flags\n")
    assert kept("x = flags.FLAGS.steps\n")  # a v1 module TF2 still has: kept as written


def test_attribute_and_keyword_names_are_no_references():
    layers = _settled("from tensorflow.compat.v1 import layers\n")
    text = "x = keras.layers.Dense(4, name='d')\ny = f(layers=1)\n"
    assert layers(text)  # `.layers` and `layers=` are no Name the fix-up resolves
    assert layers.accepted[text] == {"layers"}  # ... but name_uses counts a keyword's Name
    _check_accepted(layers, text)
    assert not layers("x = layers.dense(y, 4)\n")


def test_a_dotted_expression_is_never_settled():
    # an attribute around the placeholder would extend the chain (`tf.compat` + `.v1`) where the parse is seen whole
    tf2 = _settled("import tensorflow as tf\n")
    assert tf2("tf.nn.relu")
    assert not tf2("tf.nn.relu", expression=True)
    assert not tf2("(tf.nn)", expression=True)
    assert tf2("tf.nn.relu(x)", expression=True)


@pytest.mark.parametrize("text", [
    "def f(a, /, b=1, *c, d, e=2, **g):\n    global h\n    return lambda j, *k: j\n",
    "class A(B, metaclass=M):\n    x: int = call(key=value, **kw)\n    y = [z for z in w if z]\n",
    "try:\n    pass\nexcept (E1, E2) as err:\n    raise X from err\nwith ctx() as (p, q):\n    del p\n",
    'x = f"{a.b!r:>{width}} {c}" + "not_a_name" # comment_name\nimport m.n as o\n',
    "@deco.attr(arg)\nasync def run(self):\n    async for i in it:\n        await i.keras(tf=1)\n",
    "    def method(self, keras):\n        return keras.layers.Dense(tf.x)\n",
])
def test_ast_uses_are_name_uses(text):
    uses = imports.name_uses(_parse(text), set())
    read = program.ast_read(text)
    assert read.uses == {n for n in uses if uses[n]} - ({"_"} if text.startswith(" ") else set())  # (the class
    # _parse wraps a method in)
    lines = tuple(range(1, text.count("\n") + 2))
    assert program.ast_read(text, lines) == read  # every line: the whole text
    first = program.ast_read(text, (1,))
    assert first.uses <= read.uses and first.references <= read.references


@pytest.mark.parametrize("alias", ["tf", "tf1", "tensorflow"])
@pytest.mark.parametrize("keras_import", ["", program._KERAS, program._KERAS_TF_KERAS])
@pytest.mark.parametrize("leading", [(), (cst.EmptyLine(),), (cst.EmptyLine(comment=cst.Comment("# data")),)])
def test_built_header_is_its_parse(alias, keras_import, leading):
    text = f"import tensorflow as {alias}\n{keras_import}"
    parsed = list(cst.parse_module(text).body)
    parsed[0] = parsed[0].with_changes(leading_lines=leading)
    built = program._header("", alias, keras_import, leading)
    assert len(built) == len(parsed) and all(b.deep_equals(p) for b, p in zip(built, parsed))
    lead = cst.Module([cst.SimpleStatementLine([cst.Pass()], leading)]).code[:-len("pass\n")]
    assert cst.Module(built).code == lead + text
    kept = program._header("import os\n", alias, keras_import, leading)  # (other imports kept: parsed)
    assert cst.Module(kept).code == lead + "import os\n" + text
