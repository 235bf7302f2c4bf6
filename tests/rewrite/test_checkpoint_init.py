"""`if init_checkpoint:` + `tf.compat.v1.train.init_from_checkpoint(init_checkpoint, assignment_map)` with the map
from a `get_assignment_map_from_checkpoint(tvars, ...)`-style helper (rules/planners/model_fn/_checkpoint_init.py):
blocked at the call that runs (not the scaffold_fn's), saying what TF1 did and the warm_start_from alternative."""
from __future__ import annotations

from _helpers import blocked

PROGRAM = '''\
import collections
import re

import tensorflow as tf


def assignment_map_for(tvars, ckpt):
    names = {}
    for var in tvars:
        m = re.match("^(.*):\\\\d+$", var.name)
        names[m.group(1) if m else var.name] = var
    amap, inited = collections.OrderedDict(), {}
    for name, _ in tf.compat.v1.train.list_variables(ckpt):
        if name in names:
            amap[name] = name
            inited[name] = 1
    return amap, inited


def model_fn_builder(init_checkpoint):
    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        tvars = tf.compat.v1.trainable_variables()
        if init_checkpoint:
            (assignment_map, initialized_variable_names) = assignment_map_for(tvars, init_checkpoint)
            tf.compat.v1.train.init_from_checkpoint(init_checkpoint, assignment_map)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def input_fn():
    return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[1.0]])).repeat()


est = tf.estimator.Estimator(model_fn_builder("/tmp/pretrained"))
est.train(input_fn, steps=3)
'''

TPU = PROGRAM.replace('''            tf.compat.v1.train.init_from_checkpoint(init_checkpoint, assignment_map)
''', '''            if use_tpu:

                def tpu_scaffold():
                    tf.compat.v1.train.init_from_checkpoint(init_checkpoint, assignment_map)
                    return tf.compat.v1.train.Scaffold()

                scaffold_fn = tpu_scaffold
            else:
                tf.compat.v1.train.init_from_checkpoint(init_checkpoint, assignment_map)
''').replace("        tvars = tf.compat.v1.trainable_variables()\n",
             "        tvars = tf.compat.v1.trainable_variables()\n        scaffold_fn = None\n").replace(
    "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)",
    "return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, scaffold_fn=scaffold_fn)"
).replace("def model_fn_builder(init_checkpoint):", "def model_fn_builder(init_checkpoint, use_tpu):").replace(
    'est = tf.estimator.Estimator(model_fn_builder("/tmp/pretrained"))',
    'est = tf.compat.v1.estimator.tpu.TPUEstimator(model_fn=model_fn_builder("/tmp/pretrained", False), '
    'use_tpu=False, train_batch_size=1, config=tf.compat.v1.estimator.tpu.RunConfig(model_dir="/tmp/m"))').replace("def input_fn():", "def input_fn(params):")


def _hit(src: str, code: str):
    result = blocked(src)
    hits = [d for d in result.diagnostics if "init_from_checkpoint" in d.message and "not converted yet" in d.message]
    assert hits and hits[0].code == code, [d.format() for d in result.diagnostics]
    return hits[0]


def test_init_from_checkpoint_under_if_blocks_at_the_call_with_the_map_helper_named():
    hit = _hit(PROGRAM, "TFM501")
    assert PROGRAM.splitlines()[hit.line - 1].strip().startswith("tf.compat.v1.train.init_from_checkpoint(")
    assert "`assignment_map_for(tvars, init_checkpoint)`" in hit.message and "warm_start_from" in hit.message


def test_tpu_shape_blocks_at_the_call_that_runs_off_tpu():
    hit = _hit(TPU, "TFM605")
    lines = TPU.splitlines()
    assert lines[hit.line - 2].strip() == "else:", lines[hit.line - 2]
