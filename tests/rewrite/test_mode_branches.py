"""TFM501: a test on mode around forward statements (model_fn/_mode_forward.py) becomes the same test on the Keras
`training` flag in call(); forward differences between EVAL and PREDICT, and names bound in one mode only, block
with the `if`'s position and what to write instead."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, section

TRAIN = "tf.estimator.ModeKeys.TRAIN"


def _forward(test: str, arms: str) -> str:
    return (f'x = features["x"]\nnet = tf.compat.v1.layers.dense(x, 8, activation=tf.nn.relu)\n'
            f'if {test}:\n{arms}\nlogits = tf.compat.v1.layers.dense(net, 1)')


def _call(out: str) -> str:
    return section(out, "    def call(", "\ndef build_model")


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


@pytest.mark.parametrize("test, arms, expected", [
    (f"mode == {TRAIN}", "    net = tf.clip_by_value(net, 0.0, 1.0)\nelse:\n    net = tf.identity(net)",
     "if training:\n            net = tf.clip_by_value(net, 0.0, 1.0)\n        else:\n            net = tf.identity(net)"),
    (f"mode != {TRAIN}", "    net = net * 0.5", "if not training:\n            net = net * 0.5"),
    ("mode in (tf.estimator.ModeKeys.EVAL, tf.estimator.ModeKeys.PREDICT)", "    net = net * 0.5",
     "if not training:\n            net = net * 0.5"),
    (f"{TRAIN} == mode", "    net = net + 1.0\nelif mode == tf.estimator.ModeKeys.EVAL or mode == 'infer':\n"
                         "    net = net - 1.0",
     "if training:\n            net = net + 1.0\n        elif not training:\n            net = net - 1.0"),
])
def test_a_test_on_mode_in_the_forward_pass_tests_training(test, arms, expected):
    call = _call(converted(program(forward=_forward(test, arms)), style="native"))
    assert expected in call and "ModeKeys" not in call and "mode" not in call.replace("model", "")


def test_train_only_dropout_keeps_tf1s_rate():
    # the public shape: `if mode == TRAIN: net = tf.nn.dropout(net, keep_prob)` between layers
    src = program(header="import tensorflow.compat.v1 as tf",
                  forward=_forward(f"mode == {TRAIN}", "    net = tf.nn.dropout(net, keep_prob=0.8)"))
    call = _call(converted(src, style="native"))
    assert "if training:\n            net = tf.nn.dropout(net, rate=1 - (0.8))" in call


@pytest.mark.parametrize("test, arms, words", [
    ("mode == tf.estimator.ModeKeys.EVAL", "    net = net * 2.0",
     "changes the forward pass between EVAL and PREDICT: the Keras model has one flag, `training`"),
    (f"mode == {TRAIN}", "    net = net * 2.0\nelif mode == tf.estimator.ModeKeys.EVAL:\n    net = net * 3.0",
     "changes the forward pass between EVAL and PREDICT"),
    (f"mode == {TRAIN}", "    net = net * 2.0\n    extra = net + 1.0",
     "assigns `extra`, which the forward pass has not computed before: the converted `call()` would not define it "
     "in every mode; assign it before the `if` too"),
])
def test_what_the_training_flag_cannot_say_blocks_at_the_if(test, arms, words):
    src = program(forward=_forward(test, arms))
    for style in ("native", "auto"):
        result = blocked(src, style=style)
        [error] = [d for d in result.diagnostics if d.severity == "error"]
        assert error.code == "TFM501" and words in error.message, error.message
        assert error.line == _line(src, f"if {test}:")



def test_train_only_dropout_inside_a_forward_loop():
    # `for ...: net = dense(net); if mode == TRAIN: net = tf.nn.dropout(net, keep[i])`: the same `if` in the loop
    forward = '''net = features["x"]
for i, units in enumerate(params["hidden_units"]):
    net = tf.compat.v1.layers.dense(net, units, activation=tf.nn.relu)
    if mode == tf.estimator.ModeKeys.TRAIN:
        net = tf.nn.dropout(net, keep_prob=params["keep"][i])
logits = tf.compat.v1.layers.dense(net, 1)'''
    estimator = ('est = tf.estimator.Estimator(model_fn=model_fn, config=config, '
                 'params={"hidden_units": [8, 4], "keep": [0.9, 0.8]})')
    src = program(header="import tensorflow.compat.v1 as tf", forward=forward, estimator=estimator)
    call = _call(converted(src, style="native"))
    assert ("            net = dense_layer(net)\n            if training:\n"
            '                net = tf.nn.dropout(net, rate=1 - (params["keep"][i]))\n') in call
