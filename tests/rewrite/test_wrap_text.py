"""wrap_call lays one-line code out from its text (rules/emit/wrap.py `_wrap_text`) exactly as from LibCST's parse of
it (`_wrap`): on every text the fixtures' migrations wrap, at several indentations and widths, and on hand-written
shapes (the text path must either agree or leave the text to the parse)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import libcst as cst
import pytest

import tfmigrate.rules.emit.wrap as args
from tfmigrate.engine import Options, migrate_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

SHAPES = [
    "keras.layers.Dense(units=params['hidden_units'], activation='relu', kernel_initializer=init, name='x')",
    'f("a, (b", \'c]\', *rest, key = value, **extra)',
    "[a, *b, f(c, d), {'k': (1, 2)}, x[1:2], lambda_value]",
    "tf.data.Dataset.from_tensor_slices(features).batch(32)",  # a method chain
    "a(x).b[0](y, z)",  # not a chain: the func is a subscript
    "a(x).b.c(y, z)",
    "f(x for x in y)",
    "f(a, lambda v: v + 1, b)",
    "f(a == b, c <= d, e=(f >= g))",
    "obj[0](1, 2)",
    "f(a)[0]",
    "f()",
    "[]",
    "[x for x in range(10)]",
    "a + f(b, c)",
    "not(x)",
    "f(a,)",
    'rb"x(".join(parts)',
    'f"{a}"(b)',
    "(f)(a, b)",
    "Outer(Inner(alpha=1, beta=2, gamma=3, delta=4), [first_element, second_element, third_element], k=v)",
]


def _parsed(text: str, indent: str, width: int) -> str:
    try:
        expr = cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return text
    return args._wrap(expr, text, indent, width)


def _check(text: str) -> int:
    """Compares both paths on `text` at several layouts; the number of layouts the text path read itself."""
    read = 0
    for indent in ("", "    ", "        "):
        for width in (20, 40, 76, 100):
            try:
                got = args._wrap_text(text, args._blank_strings(text), indent, width)
            except args._Unsure:
                continue
            read += 1
            assert got == _parsed(text, indent, width), (text, indent, width)
    return read


@pytest.mark.parametrize("text", SHAPES)
def test_text_layout_matches_the_parse_on_shapes(text):
    _check(text)


def test_text_layout_reads_the_plain_shapes():
    assert _check(SHAPES[0]) and _check(SHAPES[1]) and _check(SHAPES[2]) and _check(SHAPES[-1])
    for unsure in ("f(x for x in y)", "[x for x in range(10)]", "a + f(b, c)", "not(x)", 'f"{a}"(b)', "(f)(a, b)"):
        assert _check(unsure) == 0


def test_text_layout_matches_the_parse_on_fixture_texts(monkeypatch):
    seen = []
    real = args.wrap_call

    def spy(text, base_indent="", width=100):
        seen.append(text)
        return real(text, base_indent, width)

    import tfmigrate.rules.planners.canned._render as canned_render
    import tfmigrate.rules.planners.driver._build as driver_build
    import tfmigrate.rules.planners.driver._drive as driver_drive
    import tfmigrate.rules.program as program
    from tfmigrate.rules.planners.model_fn import _hooks, _loops  # (the model_fn modules that wrap calls)
    for module in (args, canned_render, driver_build, driver_drive, _hooks, _loops, program):
        monkeypatch.setattr(module, "wrap_call", spy)
    for case in sorted(p for p in FIXTURES.iterdir() if (p / "original.py").is_file()):
        options = tomllib.loads((case / "case.toml").read_text())
        migrate_source((case / "original.py").read_bytes(), f"{case.name}/original.py",
                       Options(strategy=options.get("strategy", "keep")))
    one_line = [t for t in set(seen) if "\n" not in t]
    assert len(one_line) > 20
    assert sum(_check(t) > 0 for t in one_line) > len(one_line) // 2
