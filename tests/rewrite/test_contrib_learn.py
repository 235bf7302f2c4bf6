"""TFM603 for the rest of tf.contrib.learn (ModeKeys, learn_runner, Experiment, MetricSpec, datasets) in a file that
builds no Estimator: TF 2 has no contrib, so such a file never runs as it is; it was left unchanged with no finding
(27 of 187 files of the public sweep, bench/sweep.py)."""
from __future__ import annotations

import pytest

from tfmigrate.engine import Options, migrate_paths

CASES = {
    "modekeys.py": ("import tensorflow as tf\nfrom tensorflow.contrib.learn import ModeKeys\n\n\n"
                    "MODES = [ModeKeys]\n", 5, "tf.estimator.ModeKeys"),  # (the class: its keys convert)
    "runner.py": ("from tensorflow.contrib.learn.python.learn import learn_runner\n\n\n"
                  "def main(experiment_fn):\n    learn_runner.run(experiment_fn, 'out')\n", 5,
                  "tf.estimator.train_and_evaluate"),
    "experiment.py": ("import tensorflow as tf\n\n\ndef make(est, train, evaluate):\n"
                      "    return tf.contrib.learn.Experiment(est, train, evaluate)\n", 5, "port the program"),
    "metrics.py": ("import tensorflow as tf\n\nSPEC = tf.contrib.learn.MetricSpec(metric_fn=tf.metrics.accuracy)\n",
                   3, "eval_metric_ops"),
    "data.py": ("from tensorflow.contrib import learn\n\nmnist = learn.datasets.mnist.read_data_sets('/tmp')\n", 3,
                "tf.keras.datasets"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("prefilter", [True, False])
def test_contrib_learn_outside_an_estimator_is_reported(tmp_path, name, prefilter):
    text, line, port = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    [result] = migrate_paths([path], Options(), jobs=1, prefilter=prefilter)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert result.status == "blocked" and [d.code for d in errors][:1] == ["TFM603"], (result.status, errors)
    assert errors[0].line == line and port in errors[0].message and "contrib.learn" in errors[0].message


def test_a_learning_rate_is_not_contrib_learn(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("import tensorflow as tf\n\nlearning_rate = 0.1\nlearn = 3\nopt = tf.keras.optimizers.SGD(learn)\n")
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status in ("skipped", "unchanged") and not result.diagnostics


@pytest.mark.parametrize("text, line", [
    ("import tensorflow as tf\nfrom tensorflow.contrib.learn.python.learn import learn_runner\n\n"
     "if __name__ == '__main__':\n    print(tf.__version__)\n", 2),
    ("import tensorflow.contrib.learn as tflearn\n\nx = 1\n", 1),
])
def test_an_unused_contrib_learn_import_is_reported(tmp_path, text, line):
    # the import alone fails on TF 2 (two public task.py files imported learn_runner and never used it)
    path = tmp_path / "task.py"
    path.write_text(text)
    [result] = migrate_paths([path], Options(), jobs=1)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [("TFM603", line)] and "is imported from" in errors[0].message
