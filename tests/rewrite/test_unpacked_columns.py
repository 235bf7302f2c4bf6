"""Feature columns unpacked from a module-level list (the census samples' `(gender, race, ...) = INPUT_COLUMNS` in
a custom model_fn): the unpack is kept in the migrated call() and the columns are read through it where they are
used (rules/planners/model_fn/_unpacked_columns.py). Also a module list extended with `+=` read directly by a canned
Estimator (rules/planners/canned/_values.py items(): an IndexError before).
"""
from __future__ import annotations

from tests.rewrite._helpers import blocked, codes, converted, program

COLUMNS = '''\
INPUT_COLUMNS = [
    tf.feature_column.numeric_column("x", shape=(2,)),
    tf.feature_column.numeric_column("y"),
]
'''

FORWARD = '''\
(x_column, y_column) = INPUT_COLUMNS
columns = [y_column, x_column]
net = tf.compat.v1.feature_column.input_layer(features, columns)
logits = tf.compat.v1.layers.dense(net, 1)
'''


def test_numeric_columns_unpacked_from_a_module_list_convert():
    text = converted(program(extra=COLUMNS, forward=FORWARD))
    # the unpack runs in call() over the same module list; the input layer reads the columns it gives
    assert "        (x_column, y_column) = INPUT_COLUMNS\n" in text
    assert "net = numeric_columns_input(features, columns)" in text


def test_categorical_columns_unpacked_convert_through_the_tf1_input_layer_or_the_shim():
    # the census shape: an indicator column over an unpacked name: natively the generated TF1InputLayer reads the
    # columns the unpack names (issue 27); under --style shim the forward pass runs as written, the unpack with it
    extra = COLUMNS.replace('tf.feature_column.numeric_column("y")',
                            'tf.feature_column.categorical_column_with_vocabulary_list("y", ["a", "b"])')
    forward = FORWARD.replace("columns = [y_column, x_column]",
                              "columns = [tf.feature_column.indicator_column(y_column), x_column]")
    text = converted(program(extra=extra, forward=forward))
    assert "track_tf1_style_variables" not in text
    assert "self.input_layer.read(features, columns)" in text
    assert "        (x_column, y_column) = INPUT_COLUMNS\n" in text
    text = converted(program(extra=extra, forward=forward), style="shim")
    assert "track_tf1_style_variables" in text
    assert "            (x_column, y_column) = INPUT_COLUMNS\n" in text


def test_an_unpack_inside_a_mode_branch_stays_blocked():
    forward = FORWARD.replace("(x_column, y_column) = INPUT_COLUMNS\n", "")
    middle = '''\
if mode == tf.estimator.ModeKeys.EVAL:
    (a, b) = INPUT_COLUMNS
'''
    result = blocked(program(extra=COLUMNS, forward=forward.replace("[y_column, x_column]", "INPUT_COLUMNS"),
                             middle=middle))
    assert "TFM501" in codes(result)


CANNED = '''\
import tensorflow as tf

COLS = [tf.feature_column.numeric_column("x", shape=(2,))]
COLS += [tf.feature_column.numeric_column("y")]


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]], "y": [3.0]}, [1.0])).batch(1)


est = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=COLS, model_dir="/tmp/m")
est.train(input_fn, max_steps=2)
'''


def test_a_module_list_extended_with_plus_equals_read_directly():
    text = converted(CANNED)  # was: internal error, IndexError: pop from empty list
    assert "COLS += [" in text  # the module's statements stay: the migrated program may still read them
    assert '"x"' in text and '"y"' in text


def test_canned_columns_unpacked_from_a_module_list():
    # (read before this change too: the program model follows unpacking; kept as the canned side of the shape)
    src = CANNED.replace('COLS += [tf.feature_column.numeric_column("y")]\n',
                         '').replace(']\n', ', tf.feature_column.categorical_column_with_identity("y", 3)]\n'
                                     '(X, Y) = COLS\n', 1).replace("feature_columns=COLS",
                                                   "feature_columns=[X, tf.feature_column.indicator_column(Y)]")
    text = converted(src.replace('"y": [3.0]', '"y": [2]'))
    assert "(X, Y) = COLS" in text and "indicator" in text


def test_an_unpacked_module_value_read_by_the_loss_blocks_clearly():
    # the unpacked names are forward values: the loss reading one besides the model output says so
    src = program(extra="SCALES = [0.5, 2.0]\n", forward='''\
(a, b) = SCALES
x = features["x"] * b
logits = tf.compat.v1.layers.dense(x, 1)
''', loss="loss = a * tf.compat.v1.losses.mean_squared_error(labels, logits)")
    result = blocked(src)
    assert codes(result) == {"TFM201"}
    assert any("reads `a`, `logits`" in d.message for d in result.diagnostics)
