"""Values the rewrite composes into generated expressions keep their meaning: an arm or operand whose own operator
binds more loosely gets parentheses (migrator/model.py `operand`)."""
import ast

import pytest

from tfmigrate.model import operand


@pytest.mark.parametrize("text", ["a if b else c", "lambda: 3", "a or b", "a and b", "a < b", "not a", "a | b",
                                  "x := 3", "a << 2"])
def test_a_loose_operand_is_wrapped(text):
    assert operand(text) == f"({text})"


@pytest.mark.parametrize("text", ["a", "f(x)", "a.b[1]", "3", "-a", "a + b", "a * b", "(a if b else c)", "[1, 2]",
                                  '"s"', "a ** 2"])
def test_a_tight_operand_is_kept(text):
    assert operand(text) == text


@pytest.mark.parametrize("body,test,orelse", [("a if p else b", "q", "c"), ("a", "p or q", "c"),
                                              ("lambda: 1", "q", "c"), ("x", "q", "y if r else z")])
def test_a_composed_conditional_means_what_its_parts_meant(body, test, orelse):
    """The Emitter composes `Choice` values as `operand(body) if operand(test) else orelse`: evaluated for every
    assignment of the names, the composed text equals the conditional of the parts' values."""
    composed = f"{operand(body)} if {operand(test)} else {orelse}"
    names = sorted({n.id for part in (body, test, orelse) for n in ast.walk(ast.parse(part, mode="eval"))
                    if isinstance(n, ast.Name)})
    for bits in range(2 ** len(names)):
        env = {n: bool(bits >> i & 1) if n in ("p", "q", "r") else f"{n}{bits >> i & 1}" for i, n in enumerate(names)}

        def value(text):
            v = eval(text, {}, dict(env))  # noqa: S307 - test expressions written above
            return v() if callable(v) else v

        expected = value(body) if value(test) else value(orelse)
        assert value(composed) == expected, (composed, env)


def test_a_relative_step_adds_the_whole_value():
    start, text = "initial_step", "10 if fast else 20"
    composed = f"{start} + {operand(text)}"
    assert eval(composed, {}, {"initial_step": 5, "fast": False}) == 25  # noqa: S307


def test_a_conditional_run_config_with_a_conditional_setting_keeps_its_meaning():
    """`RunConfig(save_checkpoints_steps=10 if fast else 20) if debug else RunConfig(save_checkpoints_steps=5)`: the
    setting is `(10 if fast else 20) if debug else 5` (unwrapped, `fast` and not `debug` gave 10 instead of 5)."""
    from _helpers import converted, program

    config = ('debug = len(sys.argv) > 5\nfast = len(sys.argv) > 9\nconfig = tf.estimator.RunConfig(model_dir="/tmp/m", '
              'save_checkpoints_steps=10 if fast else 20) if debug else tf.estimator.RunConfig(model_dir="/tmp/m", '
              'save_checkpoints_steps=5)\n')
    out = converted(program(run_config=config, header="import sys\nimport tensorflow as tf"))
    assert "save_steps=(10 if fast else 20) if debug else 5," in out
