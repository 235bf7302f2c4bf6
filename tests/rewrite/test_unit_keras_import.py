"""`import keras` goes only into the files of a converted unit whose converted code reads `keras` (TFM001): an input
module of the unit that keeps its tf.data functions gets none."""
from __future__ import annotations

import ast
import textwrap

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

INPUTS = '''\
import tensorflow as tf


def input_fn(mode, params):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 4}, [[1.0]] * 4))
    if mode == tf.estimator.ModeKeys.TRAIN:
        ds = ds.repeat()
    return ds.batch(params["batch_size"])
'''
MODEL = '''\
import tensorflow as tf


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''
TASK = '''\
import tensorflow as tf

from trainer import inputs, model


def main():
    config = tf.estimator.RunConfig(model_dir="/tmp/tfm-unit-keras", tf_random_seed=7)
    est = tf.estimator.Estimator(model_fn=model.model_fn, config=config, params={"lr": 0.1, "batch_size": 2})
    train_spec = tf.estimator.TrainSpec(input_fn=inputs.input_fn, max_steps=10)
    eval_spec = tf.estimator.EvalSpec(input_fn=inputs.input_fn, steps=2)
    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)


if __name__ == "__main__":
    main()
'''


def _keras_reads(text: str) -> int:
    return sum(isinstance(n, ast.Name) and n.id == "keras" for n in ast.walk(ast.parse(text)))


def test_only_files_that_use_keras_import_it(tmp_path):
    package = tmp_path / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in (("inputs.py", INPUTS), ("model.py", MODEL), ("task.py", TASK)):
        (package / name).write_text(textwrap.dedent(text))
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert {n: results[n].status for n in ("inputs.py", "model.py", "task.py")} == dict.fromkeys(
        ("inputs.py", "model.py", "task.py"), "changed"), {n: [d.format() for d in r.diagnostics]
                                                            for n, r in results.items()}
    inputs = results["inputs.py"].output.decode()
    assert 'if mode == "train":' in inputs  # converted: ModeKeys → the string it always was
    assert "keras" not in inputs
    for name in ("model.py", "task.py"):
        out = results[name].output.decode()
        assert "\nimport keras\n" in out and _keras_reads(out) > 0, name
