"""tf.keras.experimental.LinearModel / WideDeepModel (planners/premade_models.py), as the TF guide
migrate/canned_estimators.ipynb writes them next to a canned estimator: Keras 3 has none and a tf_keras model cannot
take the Keras 3 models and optimizers it is built with, so they block at their line saying so (not renamed)."""
from __future__ import annotations

import pytest

from _helpers import blocked

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
def test_premade_models_block_with_why(prefix):
    src = PROGRAM.replace("LINEAR", f"{prefix}.LinearModel()").replace("WIDE_DEEP", f"{prefix}.WideDeepModel")
    errors = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [("TFM001", 16), ("TFM001", 18)], errors
    linear, wide_deep = errors
    assert "tf.keras.experimental.LinearModel (a Keras 2 premade model) has no Keras 3 counterpart" in linear.message
    assert "tf_keras.experimental.WideDeepModel, but a tf_keras model cannot be mixed" in wide_deep.message
