"""model_fn interpretation without LibCST parses of its generated code: `text_free_names` (ast) gives the names
`free_name_nodes` finds in the parse, and `_layer_call_node` builds the nodes `cst.parse_expression` gives."""
from __future__ import annotations

import tomllib
from pathlib import Path

import libcst as cst
import pytest

import tfmigrate.rules.planners.model_fn as model_fn
from tfmigrate.rules.planners.model_fn import _interpreter, _layer_calls, _names
from tfmigrate.engine import Options, migrate_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
_CONSTANTS = {"True", "False", "None"}  # LibCST Names, ast constants (builtins: every check drops them)

SHAPES = [
    "keras.layers.Dense(units=params['n'], activation=tf.nn.relu, name='dense')",
    "f(*args, key=value, **extra)",
    "[x * k for x in xs if x > lo for k in ks]",
    "{k: v + w for k, v in d.items()}",
    "(y for y in [z for z in zs])",
    "lambda a, b=default: a + b + outer",
    "g(lambda: hidden, visible)",
    'f"{a!r:>{width}} {b.c}"',
    "(n := compute(m))[0:end:step]",
    "a if cond else {**base, 'k': other}",
    "x[i].attr(True, None, flag=False)",
]


def _cst_names(text: str) -> set[str]:
    return {n.value for n in model_fn.free_name_nodes(cst.parse_expression(text))} - _CONSTANTS


@pytest.mark.parametrize("text", SHAPES)
def test_text_free_names_match_the_parse(text):
    assert _names.text_free_names(text) - _CONSTANTS == _cst_names(text)


def test_text_free_names_none_where_ast_cannot_read():
    assert _names.text_free_names("f(") is None


LAYER_CALLS = [
    ("self.dense", "features", "training"),
    ("self.dense_1", "net[0]", None),
    ("dense_layer", "tf.concat([a, b], axis=1)", "False"),
    ("self.bn", "(x)", "True"),
    ("self.drop", "x", "mode == 'train'"),  # not a name: parsed
    ("self.drop", "f(\n    x)", "True"),  # multi-line inputs: parsed
]


@pytest.mark.parametrize("layer, inputs, flag", LAYER_CALLS)
def test_layer_call_nodes_equal_the_parse(layer, inputs, flag):
    node = cst.parse_expression(inputs)
    built = _layer_calls._layer_call_node(layer, node, inputs, flag)
    text = f"{layer}({inputs}" + (f", training={flag}" if flag is not None else "") + ")"
    if "\n" in inputs or (flag is not None and " " in flag):
        assert built is None
    else:
        assert built is not None and built.deep_equals(cst.parse_expression(text))


def test_on_every_fixture(monkeypatch):
    """Every generated ctor the fixtures check, and every layer call they build, against the parse."""
    ctors, calls = [], []
    real_check, real_node = _interpreter.Interpreter.check_names, _layer_calls._layer_call_node

    def check(self, node, *a, **k):
        if isinstance(node, str):
            ctors.append(node)
        return real_check(self, node, *a, **k)

    def build(layer, inputs, inputs_text, flag):
        built = real_node(layer, inputs, inputs_text, flag)
        calls.append((built, f"{layer}({inputs_text}" + (f", training={flag}" if flag is not None else "") + ")"))
        return built

    monkeypatch.setattr(_interpreter.Interpreter, "check_names", check)
    monkeypatch.setattr(_layer_calls, "_layer_call_node", build)
    for case in sorted(p for p in FIXTURES.iterdir() if (p / "original.py").is_file()):
        options = tomllib.loads((case / "case.toml").read_text())
        migrate_source((case / "original.py").read_bytes(), f"{case.name}/original.py",
                       Options(strategy=options.get("strategy", "keep")))
    assert len(ctors) > 20 and len(calls) > 20
    for text in ctors:
        assert _names.text_free_names(text) - _CONSTANTS == _cst_names(text), text
    built = [(node, text) for node, text in calls if node is not None]
    assert len(built) > len(calls) // 2
    for node, text in built:
        assert node.deep_equals(cst.parse_expression(text)), text
