"""TF 1.x's private tensorflow.python.keras (planners/private_keras.py): in a TF 1.x program it was tf.keras, so
its imports are rewritten to tensorflow.keras and the program converts as the same program importing tf.keras;
a program with no TF 1.x name, a private module tf.keras has no name for, and `import tensorflow.python.keras`
binding `tensorflow` block, each at its import."""
from __future__ import annotations

import pytest

from _helpers import blocked, rewrite

PROGRAM = '''\
import numpy as np
HEADER
IMPORTS


def build_model():
    model = models.Sequential()
    model.add(layers.Dense(8, activation="relu", input_shape=(3,)))
    model.add(layers.Dense(2))
    model.compile(optimizer=SGD(learning_rate=0.1), loss="sparse_categorical_crossentropy")
    return model


def train_input_fn():
    x = np.ones((8, 3), np.float32)
    return tf.data.Dataset.from_tensor_slices((x, np.ones(8, np.int32))).batch(4).repeat()


def main():
    LOGGING
    config = tf.estimator.RunConfig(model_dir="/tmp/pk", tf_random_seed=1)
    estimator = tf.keras.estimator.model_to_estimator(keras_model=build_model(), config=config)
    estimator.train(input_fn=train_input_fn, max_steps=10)


if __name__ == "__main__":
    main()
'''
IMPORTS = ("from tensorflow.{p}keras import layers\nfrom tensorflow.{p}keras import models\n"
           "from tensorflow.{p}keras.optimizers import SGD")
TF1 = {"import tensorflow.compat.v1 as tf": "pass",  # the TF 1.x API through compat.v1
       "import tensorflow as tf": "tf.logging.set_verbosity(tf.logging.INFO)"}  # a TF1-only name


def _program(header, logging, private=True, imports=IMPORTS):
    return (PROGRAM.replace("HEADER", header).replace("LOGGING", logging)
            .replace("IMPORTS", imports.format(p="python." if private else "")))


@pytest.mark.parametrize("header", sorted(TF1))
def test_a_tf1_program_converts_as_with_tf_keras(header):
    private, public = rewrite(_program(header, TF1[header])), rewrite(_program(header, TF1[header], private=False))
    assert private.status == public.status == "changed", [d.format() for d in private.diagnostics]
    assert private.output == public.output and b"python" not in private.output
    [note] = [d for d in private.diagnostics if "tensorflow.python.keras" in d.message]
    assert note.severity == "note" and note.code == "TFM001" and note.line == 3 and "(TF 1.x API at `t" in note.message


def test_from_tensorflow_python_import_keras():
    src = _program("import tensorflow as tf", TF1["import tensorflow as tf"],
                   imports="from tensorflow.python import keras\nlayers = keras.layers\nmodels = keras.models\n"
                           "SGD = keras.optimizers.SGD")
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert "from tensorflow import keras\n" in result.output.decode() and b"python" not in result.output


def test_a_program_with_no_tf1_name_blocks():
    src = _program("import tensorflow as tf", "pass")
    result = blocked(src)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [("TFM001", 3), ("TFM001", 4), ("TFM001", 5)]
    assert "tf.keras only up to TF 2.5" in errors[0].message and "import it from tensorflow.keras" in errors[0].message


@pytest.mark.parametrize("imports, line, says", [
    ("from tensorflow.python.keras.engine import training\nfrom tensorflow.python.keras import layers, models\n"
     "from tensorflow.python.keras.optimizers import SGD", 3, "tensorflow.python.keras.engine is private"),
    # `import tensorflow.python.keras` binds `tensorflow`: a use through it is a leftover name (TF2 has no tf.python)
    ("import tensorflow.python.keras\nfrom tensorflow.python.keras import layers, models\n"
     "from tensorflow.python.keras.optimizers import SGD", 23, "tf.python has no same-meaning TF2 name"),
])
def test_imports_with_no_tf_keras_spelling_block(imports, line, says):
    src = _program("import tensorflow as tf", TF1["import tensorflow as tf"], imports=imports)
    if imports.startswith("import "):
        src = src.replace("    tf.logging.set_verbosity(tf.logging.INFO)\n", "    tf.logging.set_verbosity(tf.logging.INFO)\n"
                          "    tensorflow.python.keras.backend.clear_session()\n")
    result = blocked(src)
    error = next(d for d in result.diagnostics if d.severity == "error")
    assert error.code == "TFM001" and error.line == line and says in error.message, error.format()
