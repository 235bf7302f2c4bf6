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
    assert got is not None
    assert got == _in_block(cst.parse_module(text).body)


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_expressions_indented_as_libcst_renders_them(text):
    got = indent_text(text, "        ", statements=False)
    assert got is not None
    if got is not None:
        line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("y"))], cst.parse_expression(text))])
        assert "        y = " + got + "\n" == _in_block([line])


def test_texts_it_cannot_vouch_for_are_left_to_the_parse():
    assert indent_text("x = f(\n", "    ") is None  # an unclosed bracket
    assert indent_text("x = 'a\n", "    ") is None  # an unterminated string
    assert indent_text("x = 1\n\tif a:\n", "    ") is None  # a tab
    assert indent_text("x = 1\n# trailing\n", "    ") is None  # would be the module's footer
    assert indent_text("x = 1\n\n# c\ny = 2\n", "    ") == "    x = 1\n    \n    # c\n    y = 2\n"


# ---- render_lines: generated parts placed in a nested block (a model_fn inside a function) -------------------------

PARTS = [
    "class A:\n    def f(self):\n        x = 1\n\n    def g(self):\n        pass\n\n\nclass B:\n    pass\n",
    "class A:\n    x = 1\n\n    # c\n    y = 2\n  # odd\n\n# top\nz = 3\n",
    "def f():\n    '''doc\n\n    more\n    '''\n    return 1\n",
    "x = f(\n    1,\n\n  2)\ny = 'a\\\nb'\nz = 1 + \\\n  2\n",
    "if a:\n    x = 1\n  \n    y = 2\n      # deep\n# top\nq = 1\n",
    'def g():\n    return f"""{a}\n  {b}"""\n\n\nx = 1\n',
]


def _rendered_in_block(text: str, top_blank: bool) -> str:
    body = list(cst.parse_module(text).body)
    if not top_blank:  # what _render_model does to the generated statements' blank leading lines
        body = [s.with_changes(leading_lines=[line.with_changes(indent=False) if line.comment is None else line
                                              for line in s.leading_lines]) for s in body]
    return _in_block(body)


@pytest.mark.parametrize("top_blank", [True, False])
@pytest.mark.parametrize("text", PARTS)
def test_render_lines_as_libcst_renders_the_parse(text, top_blank):
    from tfmigrate.edits import render_lines

    got = render_lines(text, "        ", top_blank)
    assert got is not None
    assert "".join(got) == _rendered_in_block(text, top_blank)


def test_render_lines_on_every_generated_part(monkeypatch):
    """Every part the fixtures' model emission renders, placed in a nested block, against LibCST."""
    from pathlib import Path
    import tomllib

    import tfmigrate.rules.program as program
    from tfmigrate.edits import render_lines
    from tfmigrate.engine import Options, migrate_source

    seen = []
    real = program.emit_parts

    def spy(parts, blocks, named, indent=""):
        seen.extend(p.rstrip("\n") + "\n" for p in parts)
        return real(parts, blocks, named, indent)

    monkeypatch.setattr(program, "emit_parts", spy)
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    for case in sorted(p for p in fixtures.iterdir() if (p / "original.py").is_file()):
        options = tomllib.loads((case / "case.toml").read_text())
        migrate_source((case / "original.py").read_bytes(), f"{case.name}/original.py",
                       Options(strategy=options.get("strategy", "keep")))
    assert len(seen) > 50
    read = 0
    for text in dict.fromkeys(seen):
        got = render_lines(text, "        ", False)
        if got is not None:
            read += 1
            assert "".join(got) == _rendered_in_block(text, False), text[:200]
    assert read > len(set(seen)) // 2
