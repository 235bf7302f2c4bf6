"""TFM501: ModeKeys under another name (an import from TF's internal module, a module-level alias) is still
tf.estimator.ModeKeys wherever mode tests are read."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, section

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


def test_a_label_lookup_table_in_the_model_fn_blocks_saying_what_it_is():
    # the census shape's next construct: string labels mapped to ids by a contrib.lookup table in the model_fn
    src = program(loss='table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b"]))\n'
                       'ids = table.lookup(labels)\n'
                       'loss = tf.compat.v1.losses.mean_squared_error(tf.cast(ids, tf.float32), logits)')
    message = next(d.message for d in blocked(src).diagnostics if d.code == "TFM811")
    assert "builds a lookup table (no variables)" in message and "input_fn" in message
