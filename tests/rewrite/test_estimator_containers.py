"""Issue #28: a trainer returning `{"estimator": ..., "train_spec": ..., "eval_spec": ...}` for its caller to unpack
is not followed yet: blocked where the Estimator goes into the dict, saying what to write instead (was: "used here in
a way tfmigrate does not convert")."""
from __future__ import annotations

from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

EXPERIMENT = '''\
import tensorflow as tf

import data


def model_fn(features, labels, mode, params):
    out = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, out)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def create_experiment(model_dir, steps):
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=5)
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.05})
    train_spec = tf.estimator.TrainSpec(input_fn=data.train_input_fn, max_steps=steps)
    eval_spec = tf.estimator.EvalSpec(input_fn=data.eval_input_fn, steps=None)
    return {"estimator": estimator, "train_spec": train_spec, "eval_spec": eval_spec}
'''

DATA = '''\
import tensorflow as tf


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0]]}, [[2.0]])).repeat()


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0]]}, [[2.0]]))
'''

MAIN = '''\
import tensorflow as tf

import experiment

if __name__ == "__main__":
    parts = experiment.create_experiment("/tmp/m", 50)
    print(tf.estimator.train_and_evaluate(**parts))
'''


def test_an_estimator_returned_in_a_dict_blocks_where_it_goes_in(tmp_path):
    for name, text in (("experiment.py", EXPERIMENT), ("data.py", DATA), ("main.py", MAIN)):
        (tmp_path / name).write_text(text)
    results = {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert {n: r.status for n, r in results.items()} == {n: "blocked" for n in results}
    (error,) = [d for d in results["experiment.py"].diagnostics if d.severity == "error"]
    assert (error.line, error.col) == (19, 25)
    assert error.message.startswith('the Estimator `estimator` is put into a dict under "estimator": tfmigrate follows '
                                    "an Estimator through names, function arguments and returns (a tuple too), not "
                                    "through dict entries or `**` unpacking; return it")
    (error,) = [d for d in results["main.py"].diagnostics if d.severity == "error"]
    assert error.line == 7 and "**kwargs cannot be mapped safely" in error.message
