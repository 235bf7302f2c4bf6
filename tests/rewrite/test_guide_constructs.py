"""Constructs of TF's own migration-guide notebooks (site/en/guide/migrate): what converts, and what stays blocked
with the true reason and the nearest TF2 form."""
from __future__ import annotations

from _helpers import blocked

# a model_fn that is a method, called by hand and its train_op run in a Session (migration_debugging's shape)
BY_HAND = '''\
import numpy as np
import tensorflow as tf


class Wrapper:
    def model_fn(self, features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features, params["units"])
        loss = tf.compat.v1.losses.softmax_cross_entropy(labels, logits)
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


graph = tf.Graph()
with graph.as_default(), tf.compat.v1.Session(graph=graph) as sess:
    wrapper = Wrapper()
    x = tf.compat.v1.placeholder(tf.float32, shape=(None, 3))
    y = tf.compat.v1.placeholder(tf.float32, shape=(None, 2))
    spec = wrapper.model_fn(x, y, tf.estimator.ModeKeys.TRAIN, {"units": 2})
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(spec.train_op, feed_dict={x: np.ones((2, 3)), y: np.eye(2)})
'''


def test_a_model_fn_the_program_calls_itself_in_a_session_is_said_to_be_graph_code():
    found = [d for d in blocked(BY_HAND).diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in found] == [("TFM601", 6)]
    message = found[0].message
    assert message.startswith("`model_fn(self, features, labels, mode, params)` is never given to an Estimator: "
                              "the program calls it itself, `wrapper.model_fn(x, y, tf.estimator.ModeKeys.TRAIN, "
                              '{"units": 2})` inside `with tf.compat.v1.Session(...)`')
    assert "not in the migrated files" not in message and "tf.GradientTape" in message


def test_a_method_model_fn_nothing_calls_still_asks_for_the_files_that_build_the_estimator():
    src = BY_HAND.split("\n\ngraph = ")[0] + "\n"
    found = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert len(found) == 1 and "no Estimator in the migrated files is built with" in found[0].message
