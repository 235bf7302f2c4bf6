"""TFM501: ModeKeys under another name (an import from TF's internal module, a module-level alias) is still
tf.estimator.ModeKeys wherever mode tests are read."""
from __future__ import annotations

import pytest

from _helpers import converted, program, section

_FORWARD = ('x = features["x"]\nnet = tf.compat.v1.layers.dense(x, 8, activation=tf.nn.relu)\n'
            'if mode in (Modes.EVAL, Modes.PREDICT):\n    net = net * 0.5\nlogits = tf.compat.v1.layers.dense(net, 1)')


@pytest.mark.parametrize("header, extra", [
    # TF 1.x's own module (TF >= 1.13 star-imports tensorflow_estimator's model_fn, whose ModeKeys is the same class)
    ("import tensorflow as tf\nfrom tensorflow.python.estimator.model_fn import ModeKeys as Modes", ""),
    ("import tensorflow as tf\nfrom tensorflow_estimator.python.estimator.model_fn import ModeKeys as Modes", ""),
    ("import tensorflow as tf\nfrom tensorflow_estimator.python.estimator.mode_keys import ModeKeys as Modes", ""),
    ("import tensorflow as tf\nfrom tensorflow.python.estimator import model_fn as model_fn_lib", "Modes = model_fn_lib.ModeKeys"),
    ("import tensorflow as tf", "Modes = tf.estimator.ModeKeys"),
])
def test_a_mode_keys_alias_is_mode_keys(header, extra):
    out = converted(program(header=header, extra=extra, forward=_FORWARD), style="native")
    assert "if not training:\n            net = net * 0.5" in section(out, "    def call(", "\ndef build_model")
