"""A program that reaches TensorFlow only through `from tensorflow import ...` (no `import tensorflow as tf`):
the migration adds `import tensorflow as tf` for its generated code and must neither mistake that import for a
`tf` of the program (every such file used to be blocked: "`tf` still means something else") nor keep a
`from tensorflow import estimator` TF 2.21 no longer has."""
from __future__ import annotations

import pytest

from _helpers import rewrite, blocked, converted

PROGRAM = '''\
from tensorflow import estimator as est
from tensorflow.compat.v1 import layers, losses, train
import numpy as np


def model_fn(features, labels, mode, params):
    logits = layers.dense(features["x"], 1)
    loss = losses.mean_squared_error(labels, logits)
    opt = train.GradientDescentOptimizer(0.1)
    return est.EstimatorSpec(mode, loss=loss, train_op=opt.minimize(loss, global_step=train.get_global_step()))


def input_fn():
    INPUT
    return DATA.Dataset.from_tensor_slices(({"x": np.zeros((4, 1), np.float32)}, np.zeros((4, 1), np.float32))).batch(2)


e = est.Estimator(model_fn=model_fn)
e.train(input_fn, max_steps=2)
'''

SHAPES = {
    "local import": PROGRAM.replace("INPUT", "import tensorflow as tf2").replace("DATA", "tf2.data"),
    "from import": PROGRAM.replace("    INPUT\n", "").replace("DATA.", "data.")
                          .replace("import numpy as np\n", "import numpy as np\nfrom tensorflow import data\n"),
    "one from import with both": PROGRAM.replace("    INPUT\n", "").replace("DATA.", "data.")
                                        .replace("from tensorflow import estimator as est\n", "")
                                        .replace("import numpy as np\n",
                                                 "import numpy as np\nfrom tensorflow import estimator as est, data\n"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_from_imports_only_converts(shape):
    out = converted(SHAPES[shape])
    assert out.startswith("import tensorflow as tf\nimport keras\n")
    assert "estimator" not in "".join(line for line in out.splitlines() if line.startswith(("from", "import")))
    assert "compat.v1 import" not in out
    compile(out, shape, "exec")


def test_a_tf_of_the_program_makes_the_generated_code_take_a_free_name():
    out = converted("tf = 3\n" + SHAPES["from import"])
    assert out.startswith("tf = 3\nimport tensorflow as tf2\nimport keras\n")
    assert "tf2." in out and "tf." not in out.replace("tf2.", "")  # the program's tf stays 3, unused as a module
    result = rewrite("tf = 3\n" + SHAPES["from import"])
    assert any("imports TensorFlow as `tf2`" in d.message and d.line == 1 for d in result.diagnostics)


def test_tf_and_every_free_name_taken_blocks_saying_so():
    result = blocked("tf = tf2 = tensorflow2 = 3\n" + SHAPES["from import"])
    assert [d.code for d in result.diagnostics] == ["TFM001"]
    assert "`tf` and tf2, tensorflow2 already mean something else" in result.diagnostics[0].message


def test_tensorflow_imported_as_tf_only_inside_a_function():
    # (yahoo/TensorFlowOnSpark's shape: `import tensorflow as tf` in the function that builds the Estimator)
    out = converted(PROGRAM.replace("INPUT", "import tensorflow as tf").replace("DATA", "tf.data"))
    assert out.startswith("import tensorflow as tf2\nimport keras\n")
    assert "    import tensorflow as tf\n" in out


def test_a_tf_bound_nowhere_still_blocks():
    # `tf` read but never bound (a star import, a forgotten import): what it names is unknown, never renamed around
    result = blocked(SHAPES["from import"].replace("e.train(", "_hook = tf.estimator.SessionRunHook()\ne.train("))
    assert [d.code for d in result.diagnostics] == ["TFM001"]
    assert "`tf` is read in this file but bound nowhere in it" in result.diagnostics[0].message
