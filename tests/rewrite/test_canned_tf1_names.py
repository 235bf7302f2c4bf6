"""`tf.estimator.<Canned>` in a TF 1.x program (TFM620): TF 1.x exported the v1 canned classes under that name, so
such a call converts exactly as `tf.compat.v1.estimator.<Canned>` does (loss SUM, tf.train optimizers, v1 string
rates), with a note; a TF 2 file's `tf.estimator.<Canned>` stays the v2 class."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover
from tests.rewrite._helpers import converted, rewrite

WIDE_DEEP = '''\
import tensorflow as tf

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": [[1.0]], "b": [[2.0]]}, [[1]])).repeat().batch(4)

def main():
    tf.logging.set_verbosity(tf.logging.INFO)
    wide = [tf.feature_column.numeric_column("a")]
    deep = [tf.feature_column.numeric_column("b")]
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[4],
        OPTIMIZERS)
    est.train(input_fn, steps=10)

main()
'''


def _pair(optimizers: str) -> tuple[str, str]:
    """The TF 1.x-named program and the same program with the v1 class spelled tf.compat.v1 (a TF 2 file)."""
    tf1 = WIDE_DEEP.replace("OPTIMIZERS", optimizers)
    spelled = tf1.replace("tf.estimator.DNN", "tf.compat.v1.estimator.DNN").replace(
        "tf.train.", "tf.compat.v1.train.").replace("tf.logging", "tf.compat.v1.logging")
    return tf1, spelled


def _model(text: str) -> str:
    return text[text.index("class DNNLinearCombinedClassifierModel"):]


@pytest.mark.parametrize("optimizers", [
    "dnn_optimizer=tf.train.AdagradOptimizer(learning_rate=0.1), linear_optimizer=tf.train.FtrlOptimizer(0.1)",
    "dnn_optimizer='Adagrad', linear_optimizer='Ftrl'",  # strings: the v1 classes' rates
    "dnn_optimizer=lambda: tf.train.AdagradOptimizer(0.05)",  # a callable
    "n_classes=2",  # no optimizer at all: the v1 defaults, SUM loss
])
def test_tf1_program_converts_as_the_v1_class(optimizers):
    tf1, spelled = _pair(optimizers)
    result = rewrite(tf1)
    text = converted(tf1)
    # the same migration as the compat.v1 spelling (the v1 class), apart from the logging call's own spelling
    assert _model(text) == _model(converted(spelled))
    notes = [d for d in result.diagnostics if d.code == "TFM620"]
    assert [(d.severity, d.line) for d in notes] == [("note", 10)]
    assert "tf.estimator.DNNLinearCombinedClassifier in a TF 1.x program (it names tf.logging.set_verbosity) is " \
           "TF 1.x's v1 canned class: converted as tf.compat.v1.estimator.DNNLinearCombinedClassifier" \
           in notes[0].message


def test_tf2_file_keeps_the_v2_class():
    # no TF1-only name: tf.estimator.X is TF 2's v2 class (string optimizers at the legacy classes' own defaults)
    src = WIDE_DEEP.replace("OPTIMIZERS", "dnn_optimizer='Adagrad'").replace(
        "    tf.logging.set_verbosity(tf.logging.INFO)\n", "")
    result = rewrite(src)
    assert not any("TF 1.x program" in d.message for d in result.diagnostics)
    tf1, _ = _pair("dnn_optimizer='Adagrad'")
    assert _model(converted(src)) != _model(converted(tf1))


def test_tf1_optimizer_from_another_module_makes_the_v1_class(tmp_path: Path):
    # the estimator's file names nothing TF1-only; its optimizer comes from a helper of another module of the run
    (tmp_path / "opt.py").write_text("import tensorflow as tf\n\n\ndef build(rate):\n"
                                     "    return tf.train.AdamOptimizer(learning_rate=rate)\n")
    main = ('import tensorflow as tf\n\nimport opt\n\n\ndef input_fn():\n'
            '    return tf.data.Dataset.from_tensor_slices(({"a": [[1.0]]}, [[1]])).repeat().batch(4)\n\n\n'
            'columns = [tf.feature_column.numeric_column("a")]\noptimizer = opt.build(0.01)\n'
            'est = ESTIMATOR(hidden_units=[4], feature_columns=columns, optimizer=optimizer)\n'
            'est.train(input_fn, steps=10)\n')
    (tmp_path / "main.py").write_text(main.replace("ESTIMATOR", "tf.estimator.DNNClassifier"))
    results = {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    got = results["main.py"]
    assert got.status == "changed", [d.format() for d in got.diagnostics]
    assert any(d.code == "TFM620" and d.severity == "note" and "(it names tf.train.AdamOptimizer)" in d.message
               for d in got.diagnostics)
    (tmp_path / "main.py").write_text(main.replace("ESTIMATOR", "tf.compat.v1.estimator.DNNClassifier"))
    spelled = {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    text, text_v1 = got.output.decode(), spelled["main.py"].output.decode()
    assert "TF1Adam(" in text and text[text.index("class DNNClassifierModel"):] == \
        text_v1[text_v1.index("class DNNClassifierModel"):]


def _two_modules(tmp_path: Path, metadata: str, n_classes: str) -> dict:
    (tmp_path / "metadata.py").write_text(metadata)
    (tmp_path / "main.py").write_text(
        'import tensorflow as tf\n\nimport metadata\n\n\ndef input_fn():\n'
        '    return tf.data.Dataset.from_tensor_slices(({"a": [[1.0]]}, [["x"]])).repeat().batch(4)\n\n\n'
        'columns = [tf.feature_column.numeric_column("a")]\n'
        f'est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns, n_classes={n_classes},\n'
        '                                 label_vocabulary=metadata.LABELS)\nest.train(input_fn, steps=10)\n')
    return {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}


def test_n_classes_len_of_another_modules_constant(tmp_path: Path):
    got = _two_modules(tmp_path, "LABELS = ['a', 'b', 'x']\n", "len(metadata.LABELS)")["main.py"]
    assert got.status == "changed", [d.format() for d in got.diagnostics]
    assert 'keras.layers.Dense(3, name="logits")' in got.output.decode()


def test_n_classes_len_of_a_constant_changed_in_place_blocks(tmp_path: Path):
    got = _two_modules(tmp_path, "LABELS = ['a', 'b']\nLABELS.append('x')\n", "len(metadata.LABELS)")["main.py"]
    assert got.status == "blocked"
    assert any(d.code == "TFM620" and "n_classes `len(metadata.LABELS)`" in d.message for d in got.diagnostics)


COMPREHENSION = '''\
import tensorflow as tf
from tensorflow.python.feature_column import feature_column_v2 as feature_column

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": [[1.0]], "c": [["x"]]}, [[1]])).repeat().batch(4)

def main():
    a = tf.feature_column.numeric_column("a")
    c = tf.feature_column.categorical_column_with_vocabulary_list("c", ["x", "y"])
    cols = [a, c, tf.feature_column.indicator_column(c)]
    dense = [col for col in cols
             if (isinstance(col, feature_column.NumericColumn) or isinstance(col, feature_column.IndicatorColumn))]
    sparse = [col for col in cols if not isinstance(col, DENSE)]
    est = tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=sparse, dnn_feature_columns=dense,
                                                   dnn_hidden_units=[4])
    est.train(input_fn, steps=10)

main()
'''


def test_comprehension_isinstance_of_known_columns_is_read():
    # each column's class is known from the call that built it (feature_column_v2 classes, what TF 2.15 builds)
    text = converted(COMPREHENSION.replace("DENSE", "feature_column.DenseColumn"))
    model = _model(text)
    assert 'LinearModel({"c": CategoricalWeights(2, 1, "sum", name="c")}, units=1)' in model
    assert 'numeric_input(features, "a", 1)' in model and "indicator_input(features, \"c\", ['x', 'y'])" in model
    assert "feature_column" not in text.split("class NanLossCheck")[0]  # the private import went with its tests


def test_comprehension_isinstance_of_a_concrete_tf1_class_blocks():
    # TF 1's concrete _NumericColumn: no column tf.feature_column builds on TF 2 is one (facts/column_classes.py)
    src = COMPREHENSION.replace("feature_column_v2 as feature_column", "feature_column").replace(
        "feature_column.NumericColumn", "feature_column._NumericColumn").replace("DENSE", "feature_column._DenseColumn")
    result = rewrite(src)
    assert result.status == "blocked"
    assert any(d.code == "TFM622" and "`isinstance(col, feature_column._NumericColumn)` is False for every column"
               in d.message and "this comprehension keeps none" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_comprehension_isinstance_over_columns_known_at_run_time_names_why():
    # the list the comprehension iterates is appended to under a flag: that append is the blocker, at its line
    src = COMPREHENSION.replace("DENSE", "feature_column.DenseColumn").replace(
        "    cols = [a, c, tf.feature_column.indicator_column(c)]\n",
        "    cols = [a, c]\n    if FLAGS:\n        cols.append(tf.feature_column.indicator_column(c))\n").replace(
        "def main():", "FLAGS = len(__import__('sys').argv) > 1\n\ndef main():")
    result = rewrite(src)
    assert result.status == "blocked"
    found = [d for d in result.diagnostics if d.code == "TFM622"]
    assert found and all("__tfmigrate" not in d.message for d in found), [d.format() for d in found]
    assert any(d.line == 14 and "`cols.append(...)` runs under a condition" in d.message for d in found), \
        [d.format() for d in found]
