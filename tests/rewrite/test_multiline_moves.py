"""Expressions the rewrite moves out of the brackets they were written in (a call's argument becoming a statement
of its own) keep valid syntax when they span lines: a line break was a continuation only inside those brackets.
Each case ended in "internal error: output does not parse" before."""
from __future__ import annotations

import ast
import re

import pytest

from _helpers import converted, program, rewrite
from tfmigrate.model import standalone

HEADER = "import os\nimport tensorflow as tf"
CONDITIONAL_STRATEGY = ('config = tf.estimator.RunConfig(\n'
                        '    model_dir="/tmp/tfm-test",\n'
                        '    train_distribute=tf.distribute.{cls}()\n'
                        '    if "TF_CONFIG" in os.environ else None,\n'
                        ')')


def _statement_with(text: str, needle: str) -> str:
    """The source of the top-level-in-its-block statement of `text` whose source holds `needle`."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Assign, ast.Return)) and needle in ast.get_source_segment(text, node):
            return ast.get_source_segment(text, node)
    raise AssertionError(f"no statement with {needle!r}")


@pytest.mark.parametrize("cls,target", [("MultiWorkerMirroredStrategy", "ctl"), ("MirroredStrategy", "keras"),
                                        ("MirroredStrategy", "ctl")])
def test_multiline_conditional_strategy_becomes_a_parenthesized_statement(cls, target):
    src = program(header=HEADER, run_config=CONDITIONAL_STRATEGY.format(cls=cls))
    out = converted(src, target=target)
    assign = _statement_with(out, "TF_CONFIG")
    assert re.fullmatch(r'strategy = \(tf\.distribute\.' + cls + r'\(\)\n\s+if "TF_CONFIG" in os\.environ '
                        r'else tf\.distribute\.get_strategy\(\)\)', assign), assign


def test_multiline_hand_written_loss_argument_becomes_per_element():
    # the custom loop's per-example loss: tf.reduce_mean's argument, moved to `per_element = ...`
    loss = "loss = tf.reduce_mean(\n    tf.square(labels - logits)\n    * 2.0)"
    out = converted(program(header=HEADER, loss=loss), target="ctl")
    assert _statement_with(out, "per_element = ").startswith("per_element = (tf.square(labels - logits)\n")


@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_multiline_predictions_argument_becomes_the_return_of_predictions(target):
    spec = ("return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,\n"
            "    predictions=logits\n    * 2.0)")
    out = converted(program(header=HEADER, spec=spec), target=target)
    ret = [n for n in ast.walk(ast.parse(out)) if isinstance(n, ast.FunctionDef) and n.name == "predictions"]
    assert ret and ast.unparse(ret[0].body[-1]) == "return logits * 2.0"


@pytest.mark.parametrize("text,expected", [
    ("a\n    if b else c", "(a\n    if b else c)"),
    ("f(a,\n  b)", "f(a,\n  b)"),  # its own brackets: unchanged
    ('"""x\ny"""', '"""x\ny"""'),
    ("a if b else c", "a if b else c"),
])
def test_standalone_parenthesizes_only_text_broken_outside_brackets(text, expected):
    assert standalone(text) == expected


MOVED = [  # (program parts, the one-line argument, how it is written across lines): values the rewrite moves
    (dict(run_config=CONDITIONAL_STRATEGY.replace("\n    if", " if").format(cls="MirroredStrategy")),
     'tf.distribute.MirroredStrategy() if "TF_CONFIG" in os.environ else None',
     'tf.distribute.MirroredStrategy()\n    if "TF_CONFIG" in os.environ else None'),
    (dict(run_config='config = tf.estimator.RunConfig(model_dir="/tmp/a" if "X" in os.environ else "/tmp/b")'),
     '"/tmp/a" if "X" in os.environ else "/tmp/b"', '"/tmp/a"\n    if "X" in os.environ else "/tmp/b"'),
    (dict(run_config='config = tf.estimator.RunConfig(model_dir="/tmp/a", tf_random_seed=7 if "X" in os.environ '
                     'else 8)'), '7 if "X" in os.environ else 8', '7\n    if "X" in os.environ else 8'),
    (dict(loss="loss = tf.reduce_mean(tf.square(labels - logits) * 2.0)"), "tf.square(labels - logits) * 2.0",
     "tf.square(labels - logits)\n    * 2.0"),
    (dict(spec="return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=logits * 2.0)"),
     "logits * 2.0", "logits\n    * 2.0"),
]


@pytest.mark.parametrize("target", ["keras", "ctl"])
@pytest.mark.parametrize("parts,one_line,wrapped", MOVED)
def test_rewrapping_a_moved_argument_gives_the_same_code(parts, one_line, wrapped, target):
    """Property: writing a moved argument across lines changes the output's formatting only."""
    src = program(header=HEADER, **parts)
    assert one_line in src
    flat, broken = rewrite(src, target=target), rewrite(src.replace(one_line, wrapped), target=target)
    assert flat.status == broken.status == "changed", (flat.error, broken.error)
    assert ast.dump(ast.parse(flat.output.decode())) == ast.dump(ast.parse(broken.output.decode()))
