"""tf.keras.layers.DenseFeatures / tf.compat.v1.keras.layers.DenseFeatures (planners/dense_features.py): a layer
built and called on its own moves to tf_keras (Keras 3 has none), with `import tf_keras` and a note; a layer inside
a Keras model, a model_fn, or used in a way tfmigrate does not follow blocks at its line."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, rewrite

CANNED = '''\
HEADER

COLUMN = tf1.feature_column.numeric_column("age")

BODY


def input_fn():
    return tf1.data.Dataset.from_tensor_slices(({"age": [1.0, 2.0]}, [0, 1])).batch(1)


estimator = tf1.estimator.DNNClassifier(feature_columns=[COLUMN], hidden_units=[2])
estimator.train(input_fn, steps=2)
'''
HEADERS = {"v1": "import tensorflow as tf\nimport tensorflow.compat.v1 as tf1",
           "v2": "import tensorflow as tf\ntf1 = tf"}
SPELLINGS = {"v1": "tf1.keras.layers.DenseFeatures", "v2": "tf.keras.layers.DenseFeatures",
             "compat": "tf.compat.v1.keras.layers.DenseFeatures"}


def _program(body: str, header: str = "v1", spelling: str = "v1") -> str:
    return CANNED.replace("HEADER", HEADERS[header]).replace("BODY", body.replace("DF", SPELLINGS[spelling]))


STANDALONE = {
    "helper": "def show(columns, inputs):\n    layer = DF(columns)\n    return layer(inputs)\n\n\n"
              "print(show([COLUMN], {'age': tf.constant([1.0])}))",
    "inline": "print(DF([COLUMN])({'age': tf.constant([1.0])}))",
    "main": "def main():\n    dense = DF([COLUMN], name='x')({'age': [[2.0]]})\n    print(dense.numpy())\n\n\n"
            "if __name__ == '__main__':\n    main()",
}


@pytest.mark.parametrize("shape", sorted(STANDALONE))
@pytest.mark.parametrize("header,spelling", [("v1", "v1"), ("v2", "v2"), ("v2", "compat")])
def test_standalone_layer_moves_to_tf_keras(shape, header, spelling):
    src = _program(STANDALONE[shape], header, spelling)
    text = converted(src)
    assert "tf_keras.layers.DenseFeatures(" in text and "keras.layers.DenseFeatures" not in text.replace("tf_keras.", "")
    assert text.count("import tf_keras\n") == 1
    assert text.index("import tf_keras\n") > text.index("import tensorflow as tf\n")
    note = [d for d in rewrite(src).diagnostics if "tf_keras package" in d.message]
    assert len(note) == 1 and note[0].severity == "note" and note[0].code == "TFM001"
    assert note[0].line == _program(STANDALONE[shape], header, spelling).splitlines().index(
        next(line for line in src.splitlines() if SPELLINGS[spelling] in line)) + 1


BLOCKED = {
    "sequential": ("model = tf.keras.Sequential([DF([COLUMN]), tf.keras.layers.Dense(1)])", "Sequential"),
    "functional": ("inputs = {'age': tf.keras.Input(shape=(1,))}\nout = DF([COLUMN])(inputs)", "keras.Input"),
    "functional_helper": ("def show(columns, inputs):\n    return DF(columns)(inputs)\n\n\n"
                          "x = show([COLUMN], {'age': tf.keras.Input(shape=(1,))})", "keras.Input"),
    "subclass": ("class M(tf.keras.Model):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.features = DF([COLUMN])", "class M"),
    "concatenated": ("x = tf.keras.layers.Concatenate()([DF([COLUMN])({'age': [[1.0]]}), tf.ones([1, 1])])",
                     "goes into a list"),
    "passed_on": ("layer = DF([COLUMN])\nprint(layer.weights)", "used other than called"),
    "not_built": ("kind = DF", "without being built"),
}


@pytest.mark.parametrize("shape", sorted(BLOCKED))
def test_layer_in_a_model_blocks_at_its_line(shape):
    body, words = BLOCKED[shape]
    src = _program(body)
    result = blocked(src)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert [d.code for d in errors] == ["TFM001"]
    assert words in errors[0].message and "DenseFeatures" in errors[0].message
    assert errors[0].line == next(i for i, line in enumerate(src.splitlines(), 1) if "keras.layers.DenseFeatures" in line)
    if shape in ("sequential", "functional", "subclass"):
        assert "FeatureSpace" in errors[0].message


def test_layer_in_a_model_fn_blocks():
    src = '''\
import tensorflow as tf


def model_fn(features, labels, mode):
    net = tf.keras.layers.DenseFeatures([tf.feature_column.numeric_column("age")])(features)
    logits = tf.compat.v1.layers.dense(net, 1)
    loss = tf.reduce_mean(tf.square(logits - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"age": [1.0]}, [[1.0]])).batch(1)


estimator = tf.estimator.Estimator(model_fn)
estimator.train(input_fn, steps=1)
'''
    result = blocked(src)
    assert any(d.code == "TFM001" and d.line == 5 and "model_fn model_fn" in d.message for d in result.diagnostics)
