"""`edits.indent_text` gives what LibCST renders for the parse of a generated text placed in a nested block (or
None where it would not add the indentation to every line): statements and expressions, hand-written shapes."""
from __future__ import annotations

import libcst as cst
import pytest

from tfmigrate.edits import indent_text

_OUTER = "def f():\n    if a:\n        pass\n"
_HEAD = "def f():\n    if a:\n"

STATEMENTS = [
    "x = 1\n",
    "x = g(\n    1,\n    2,\n)\ny = [a for a in b]\n",
    "if a:\n    # c\n    x = 1\n",
    "if a:\n  # c\n    x = 1\n",  # a comment less indented than its block: kept as written
    "if a:\n    x = f(\n  1)\n",  # a continuation line less indented than its statement
    "if a:\n    x = 1\n\n    y = 2\n",  # a blank line in a nested block
    "x = 1\n\n# c\ny = 2\n",
    "a = g(\n    1,\n\n    2,  # c\n)\n",
    "x = 'a(' + \"[\"  # ({\ny = {'k': (1, 2)}\n",
    "x = 1 + \\\n  2\n",
    'x = """a\n  b"""\n',
    "for i in range(3):\n    while i:\n        i -= 1\nelse:\n    pass\n",
]

EXPRESSIONS = [
    "f(1, 2)",
    "est.fit(\n    train_input_fn(),\n    epochs=1,\n    callbacks=[\n        NanLossCheck(),\n    ],\n)",
    "g(\n  1)",
    "[\n    x,\n\n    y,\n]",
    "'a\\'(' + f(x)",
]


def _in_block(statements) -> str:
    module = cst.parse_module(_OUTER)
    block = module.body[0].body.body[0].body
    return module.with_deep_changes(block, body=list(statements)).code[len(_HEAD):]


@pytest.mark.parametrize("text", STATEMENTS)
def test_statements_indented_as_libcst_renders_them(text):
    got = indent_text(text, "        ")
    if got is not None:
        assert got == _in_block(cst.parse_module(text).body)


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_expressions_indented_as_libcst_renders_them(text):
    got = indent_text(text, "        ", statements=False)
    if got is not None:
        line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("y"))], cst.parse_expression(text))])
        assert "        y = " + got + "\n" == _in_block([line])


def test_texts_it_cannot_vouch_for_are_left_to_the_parse():
    assert indent_text("if a:\n  # c\n    x = 1\n", "    ") is None
    assert indent_text("if a:\n    x = f(\n  1)\n", "    ") is None
    assert indent_text("if a:\n    x = 1\n\n    y = 2\n", "    ") is None
    assert indent_text("x = 1 + \\\n  2\n", "    ") is None
    assert indent_text('x = """a\n  b"""\n', "    ") is None
    assert indent_text("x = 1\n\n# c\ny = 2\n", "    ") == "    x = 1\n    \n    # c\n    y = 2\n"
