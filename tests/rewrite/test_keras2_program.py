"""A program whose own Keras code names Keras 2 APIs only tf_keras has (planners/keras2_program.py): the premade
LinearModel / WideDeepModel and tf.keras.optimizers.legacy of the TF guide migrate/canned_estimators.ipynb. All of
that code moves to tf_keras (one note, `import tf_keras`); the converted Estimator stays on Keras 3 beside it.
What cannot move exactly blocks at its line."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, rewrite

PROGRAM = '''\
import numpy as np
import tensorflow as tf
import tensorflow.compat.v1 as tf1

COLUMN = tf1.feature_column.numeric_column("age")


def input_fn():
    return tf1.data.Dataset.from_tensor_slices(({"age": [1.0, 2.0]}, [0, 1])).batch(1)


def make_optimizer(kind):
    if kind == "estimator":
        made = lambda: tf.keras.optimizers.legacy.Ftrl(0.1)
    else:
        made = OPTIMIZER
    return made


estimator = tf.estimator.LinearClassifier(feature_columns=[COLUMN], optimizer=make_optimizer("estimator"))
estimator.train(input_fn, steps=2)

x = np.ones((4, 1), np.float32)
linear = LINEAR
linear.compile(optimizer=make_optimizer("keras"), loss="mse")
dnn = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
both = WIDE_DEEP(linear, dnn)
both.compile(optimizer=["sgd", "sgd"], loss="mse")
both.fit([x, x], x, epochs=1)
'''


def _program(prefix="tf.compat.v1.keras.experimental", optimizer="tf.keras.optimizers.legacy.SGD(0.1)", extra=""):
    return (PROGRAM.replace("LINEAR", f"{prefix}.LinearModel()").replace("WIDE_DEEP", f"{prefix}.WideDeepModel")
            .replace("OPTIMIZER", optimizer) + extra)


@pytest.mark.parametrize("prefix", ["tf.compat.v1.keras.experimental", "tf1.keras.experimental",
                                    "tf.keras.experimental"])
def test_premade_program_moves_to_tf_keras(prefix):
    src = _program(prefix)
    text = converted(src)
    tail = text[text.index("x = np.ones"):]
    assert "linear = tf_keras.experimental.LinearModel()" in tail
    assert "dnn = tf_keras.Sequential([tf_keras.layers.Dense(4), tf_keras.layers.Dense(1)])" in tail
    assert "both = tf_keras.experimental.WideDeepModel(linear, dnn)" in tail
    helper = text[text.index("def make_optimizer"):text.index("made = tf_keras.optimizers.legacy.SGD(0.1)")]
    assert "lambda: tf_keras.optimizers.legacy.Ftrl(0.1)" in helper
    assert "tf.keras." not in text and "tf1.keras" not in text  # every reference of the program's own code moved
    assert text.count("import tf_keras\n") == 1 and "import keras\n" in text  # the Estimator half: Keras 3
    assert "class LinearClassifierModel(keras.Model)" in text
    notes = [d for d in rewrite(src).diagnostics if "tf_keras package" in d.message]
    assert len(notes) == 1 and notes[0].code == "TFM001" and notes[0].severity == "note"
    assert "Keras 2 only" in notes[0].message and notes[0].line == 14  # the first Keras-2-only name


def test_legacy_optimizer_alone_moves_the_program():
    """tf.keras.optimizers.legacy.* raises ImportError on Keras 3: the program's Keras code moves without premades."""
    src = _program().replace("LINEAR", "").split("x = np.ones")[0] + (
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "model.compile(optimizer=make_optimizer('keras'), loss='mse')\n")
    text = converted(src)
    assert "model = tf_keras.Sequential([tf_keras.layers.Dense(1)])" in text
    assert "made = tf_keras.optimizers.legacy.SGD(0.1)" in text and "tf.keras" not in text


def test_no_keras2_name_keeps_tf_keras_references():
    """Without a Keras-2-only name the program's tf.keras code stays Keras 3's (no tf_keras import)."""
    src = _program().split("def make_optimizer")[0] + (
        'estimator = tf.estimator.LinearClassifier(feature_columns=[COLUMN])\n'
        'estimator.train(input_fn, steps=2)\n'
        'model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n')
    text = converted(src)
    assert "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])" in text and "import tf_keras" not in text


def _errors(src):
    return [d for d in blocked(src).diagnostics if d.severity == "error"]


def test_v1_keras_object_that_differs_blocks():
    """TF 2.15's tf.compat.v1.keras.optimizers.Adam is the v1 class, not tf.keras's: not moved."""
    errors = _errors(_program(optimizer="tf.compat.v1.keras.optimizers.Adam(0.1)"))
    assert [(e.code, e.line) for e in errors] == [("TFM001", 16)]
    assert "tf.compat.v1.keras.optimizers.Adam is not tf.keras.optimizers.Adam on TF 2.15" in errors[0].message


def test_keras_module_import_blocks():
    src = _program().replace("import numpy as np\n", "import numpy as np\nfrom tensorflow import keras\n") + \
        "extra = keras.layers.Dense(1)\n"
    errors = _errors(src)
    assert [e.line for e in errors] == [len(src.splitlines())]
    assert "reached through an import of a tf.keras module" in errors[0].message


def test_generated_code_reading_moved_code_blocks():
    """An input_fn whose code moves to tf_keras is called by the converted Estimator (Keras 3): blocked, named."""
    src = _program().replace(
        '    return tf1.data.Dataset.from_tensor_slices(({"age": [1.0, 2.0]}, [0, 1])).batch(1)',
        '    ages = tf.keras.backend.cast_to_floatx([1.0, 2.0])\n'
        '    return tf1.data.Dataset.from_tensor_slices(({"age": ages}, [0, 1])).batch(1)')
    errors = _errors(src)
    assert [(e.code, e.line) for e in errors] == [("TFM001", 8)]
    assert "`input_fn` holds what this program's move to tf_keras changes" in errors[0].message
    assert "reads `input_fn`" in errors[0].message


def test_legacy_optimizer_the_canned_conversion_reads_moves_nothing():
    """A legacy optimizer passed to a canned estimator is converted with it: nothing of the program's own is left
    naming Keras 2, so no tf_keras."""
    src = _program().split("def make_optimizer")[0] + (
        'estimator = tf.estimator.LinearClassifier(feature_columns=[COLUMN], '
        'optimizer=tf.keras.optimizers.legacy.Ftrl(0.1))\n'
        'estimator.train(input_fn, steps=2)\n')
    text = converted(src)
    assert "tf_keras" not in text.replace("tf_keras legacy", "") and not [
        d for d in rewrite(src).diagnostics if "tf_keras package" in d.message]


MODEL_FN_PROGRAM = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1).repeat()


def model_fn(features, labels, mode, params):
    logits = tf.keras.experimental.LinearModel()(features["x"])
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


est = tf.estimator.Estimator(model_fn=model_fn)
est.train(input_fn, steps=2)
'''


def test_keras2_name_in_a_model_fn_blocks():
    """The model_fn becomes a Keras 3 model: a Keras-2-only name kept in it would fail there (main kept it)."""
    errors = _errors(MODEL_FN_PROGRAM)
    assert [(e.code, e.line) for e in errors] == [("TFM001", 9)]
    assert "stands in a model_fn, which becomes a Keras 3 model" in errors[0].message


def test_other_file_naming_tf_keras_blocks(tmp_path):
    """The move is per file: a file it imports that builds tf.keras objects (here the DNN the WideDeepModel takes)
    would stay on Keras 3, so the file blocks, naming it."""
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    (tmp_path / "helpers.py").write_text("import tensorflow as tf\n\n\ndef dnn():\n"
                                         "    return tf.keras.Sequential([tf.keras.layers.Dense(1)])\n")
    main = _program().replace("import numpy as np\n", "import numpy as np\nimport helpers\n").replace(
        "dnn = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])", "dnn = helpers.dnn()")
    (tmp_path / "main.py").write_text(main)
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    errors = [d for d in results["main.py"].diagnostics if d.severity == "error"]
    assert results["main.py"].status == "blocked" and [e.line for e in errors] == [15]
    assert "helpers.py, which it imports or is imported by, names tf.keras too" in errors[0].message


def test_generated_code_reading_a_moved_local_blocks():
    """Scope-aware and followed through assignments: main's `scale` comes from a moved helper, and the converted
    train call's input_fn lambda (Keras 3 side) reads it."""
    src = _program().split("estimator = tf.estimator")[0] + (
        "def make_scale():\n    return tf.keras.backend.epsilon() + 1.0\n\n\n"
        "def scaled_input(scale):\n    return input_fn()\n\n\n"
        "def main():\n"
        "    scale = make_scale()\n"
        "    estimator = tf.estimator.LinearClassifier(feature_columns=[COLUMN])\n"
        "    estimator.train(lambda: scaled_input(scale), steps=2)\n"
        "    print(tf.keras.experimental.LinearModel())\n\n\nmain()\n")
    errors = _errors(src)
    lines = src.splitlines()
    assert [(e.code, e.line) for e in errors] == [("TFM001", lines.index("    scale = make_scale()") + 1)], errors
    assert "reads `scale`" in errors[0].message
