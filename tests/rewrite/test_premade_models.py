"""tf.keras.experimental.LinearModel / WideDeepModel (planners/premade_models.py), as the TF guide
migrate/canned_estimators.ipynb writes them next to a canned estimator: Keras 3 has none, so the program's own Keras
code moves to tf_keras (tests/rewrite/test_keras2_program.py); where it cannot move (reached through `from tensorflow
import keras`), they block at their line saying why."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted

PROGRAM = '''\
import numpy as np
import tensorflow as tf
import tensorflow.compat.v1 as tf1

COLUMN = tf1.feature_column.numeric_column("age")


def input_fn():
    return tf1.data.Dataset.from_tensor_slices(({"age": [1.0, 2.0]}, [0, 1])).batch(1)


estimator = tf1.estimator.LinearClassifier(feature_columns=[COLUMN])
estimator.train(input_fn, steps=2)

x = np.ones((4, 1), np.float32)
linear = LINEAR
dnn = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
both = WIDE_DEEP(linear, dnn)
both.compile(optimizer=["sgd", "sgd"], loss="mse")
both.fit([x, x], x, epochs=1)
'''


@pytest.mark.parametrize("prefix", ["tf.compat.v1.keras.experimental",
                                    "tf1.keras.experimental"])
def test_premade_models_move_to_tf_keras(prefix):
    src = PROGRAM.replace("LINEAR", f"{prefix}.LinearModel()").replace("WIDE_DEEP", f"{prefix}.WideDeepModel")
    text = converted(src)
    assert "linear = tf_keras.experimental.LinearModel()" in text
    assert "both = tf_keras.experimental.WideDeepModel(linear, dnn)" in text


def test_premade_models_through_keras_import_block_with_why():
    src = PROGRAM.replace("import numpy as np\n", "import numpy as np\nfrom tensorflow import keras\n").replace(
        "LINEAR", "keras.experimental.LinearModel()").replace("WIDE_DEEP", "keras.experimental.WideDeepModel")
    errors = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [("TFM001", 17), ("TFM001", 19)], errors
    assert all("reached through an import of a tf.keras module" in e.message for e in errors)
