"""Issue #28: a builder class whose methods return the model_fn (a closure over its hparams), build the Estimator and
its specs; a closure model_fn's support classes reached from outside its factory."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _run(root: Path) -> dict:
    return {Path(r.path).name: r for r in migrate_paths(discover([str(root)]), Options(), jobs=1)}


def _top_classes(text: str) -> set[str]:
    return {n.name for n in ast.parse(text).body if isinstance(n, ast.ClassDef)}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "lab"
    shutil.copytree(FIXTURES / "builder_methods" / "original" / "lab", root)
    return root


def test_model_fn_estimator_and_specs_of_three_methods_convert(tmp_path):
    results = _run(_copy(tmp_path))
    assert results["trainer.py"].status == "changed", [d.message for d in results["trainer.py"].diagnostics]
    text = results["trainer.py"].output.decode()
    assert 'return self._model_fn()({"lr": self.hparams["lr"]})' in text
    # the spec method goes; `self.steps` / `self.model_dir` read where run() trains: the same instance
    assert "def specs(" not in text and "steps_per_epoch=self.steps - initial_step" in text
    assert "callbacks=[EstimatorCheckpoints(self.model_dir, save_steps=40), NanLossCheck()]" in text
    assert "EstimatorCheckpoints" in _top_classes(text)  # not only the copy nested in _model_fn


FACTORY = '''\
import numpy as np
import tensorflow as tf


def make_model_fn(hidden):
    def model_fn(features, labels, mode, params):
        net = tf.compat.v1.layers.dense(features["x"], hidden)
        out = tf.compat.v1.layers.dense(net, 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, out)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def input_fn():
    x = np.ones((8, 2), np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(4).repeat()


est = tf.estimator.Estimator(model_fn=make_model_fn(4), config=tf.estimator.RunConfig(model_dir="/tmp/m"))
est.train(input_fn, max_steps=5)
'''


def test_a_factory_model_fn_trained_outside_its_factory_reaches_its_checkpoints(tmp_path):
    # was: EstimatorCheckpoints generated only inside make_model_fn, called at module level (NameError)
    (tmp_path / "one.py").write_text(FACTORY)
    text = _run(tmp_path)["one.py"].output.decode()
    assert 'callbacks=[EstimatorCheckpoints("/tmp/m"), NanLossCheck()]' in text
    assert "EstimatorCheckpoints" in _top_classes(text)


def test_the_builder_driven_outside_the_class_blocks_at_the_use(tmp_path):
    # the Estimator a method builds, trained at module level: `self.steps` means nothing there
    root = _copy(tmp_path)
    trainer = root / "trainer.py"
    trainer.write_text(trainer.read_text() + '''

def drive(trainer):
    estimator = trainer.make_estimator()
    train_spec, eval_spec = trainer.specs()
    return tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
''')
    main = root / "main.py"
    text = main.read_text().replace("from lab.trainer import Trainer", "from lab import trainer\nfrom lab.trainer import Trainer")
    main.write_text(text.replace(').run()', ')\n    metrics = trainer.drive(metrics)[0]'))
    results = _run(root)
    assert results["trainer.py"].status == "blocked"
    errors = [d for d in results["trainer.py"].diagnostics if d.severity == "error"]
    # the instance method called on another name is not followed: blocked at the call that drives it, never guessed
    assert [(d.line, d.message) for d in errors] == [
        (49, "train_and_evaluate(`estimator`, ...): `trainer.make_estimator()` is not an Estimator tfmigrate can see")]


def test_a_method_a_subclass_overrides_is_not_followed(tmp_path):
    root = _copy(tmp_path)
    trainer = root / "trainer.py"
    trainer.write_text(trainer.read_text() + '''

class WideTrainer(Trainer):
    def _model_fn(self):
        return None
''')
    results = _run(root)
    assert results["trainer.py"].status == "blocked"
    (error,) = [d for d in results["trainer.py"].diagnostics if d.severity == "error" and d.line == 32]
    assert "model_fn=`self._model_fn()`" in error.message
