"""Run-time column values computed anew on each pass of a loop that builds one column per pass
(rules/planners/canned/_per_pass.py): the TF docs' linear tutorial computes each vocabulary from the training
data in a loop over the column names. Where the Estimator is built the name holds the last pass's value only, so
the migrated model gets each column's own value: the pass's expression with the loop target written as that
pass's item. What cannot be evaluated a second time with the same result keeps the loop blocker.
"""
from __future__ import annotations

from tests.rewrite._helpers import blocked, converted

PROGRAM = '''\
import numpy as np
import tensorflow as tf

KEYS = ["colour", "size"]
DATA = {"colour": np.array(["red", "blue", "red"]), "size": np.array(["big", "small", "big"])}


def read_words(key):
    with open(f"/tmp/{key}.txt") as handle:
        return [line.strip() for line in handle]


def load_keys():
    with open("/tmp/keys.txt") as handle:
        return handle.read().split()


READERS = iter([["red", "blue"], ["big", "small"]])
POOL = [["big", "small"], ["red", "blue"]]
HANDLE = open("/tmp/words.txt")


def next_line(key):
    return HANDLE.readline().split()


def input_fn():
    return tf.data.Dataset.from_tensor_slices((DATA, [1.0, 0.0, 1.0])).batch(1)


columns = []
for key in KEYS:
    words = VALUE
    columns.append(tf.feature_column.categorical_column_with_vocabulary_list(key, words))
regressor = tf.estimator.LinearRegressor(feature_columns=columns, model_dir="/tmp/m")
regressor.train(input_fn, max_steps=2)
'''


def _program(value: str) -> str:
    return PROGRAM.replace("VALUE", value)


def test_each_pass_gives_its_own_column_its_own_vocabulary():
    text = converted(_program("np.unique(DATA[key]).tolist()"))
    assert "\"vocabulary_colour\": vocabulary_list(np.unique(DATA[\"colour\"]).tolist(), 'colour')" in text
    assert "\"vocabulary_size\": vocabulary_list(np.unique(DATA[\"size\"]).tolist(), 'size')" in text
    # each column's table reads its own entry
    assert 'vocabulary_ids(sparse_input(features, "colour"), self.params["vocabulary_colour"])' in text
    assert 'vocabulary_ids(sparse_input(features, "size"), self.params["vocabulary_size"])' in text
    assert 'CategoricalWeights(len(self.params["vocabulary_size"]), 1' in text


def test_a_function_of_the_program_read_per_pass():
    text = converted(_program("read_words(key)"))
    assert "vocabulary_list(read_words(\"colour\"), 'colour')" in text
    assert "vocabulary_list(read_words(\"size\"), 'size')" in text


def test_through_a_helper_building_the_column_from_its_parameter():
    src = _program("read_words(key)").replace(
        "columns = []", "def column(key, vocabulary):\n"
                        "    return tf.feature_column.categorical_column_with_vocabulary_list(key, vocabulary)\n"
                        "\n\ncolumns = []").replace(
        "tf.feature_column.categorical_column_with_vocabulary_list(key, words)", "column(key, words)")
    text = converted(src)
    assert "vocabulary_list(read_words(\"colour\"), 'colour')" in text


def test_a_value_that_changes_each_time_it_is_evaluated_keeps_the_loop_blocker():
    for value in ("next(READERS)", "np.random.permutation(DATA[key]).tolist()", "POOL.pop()",
                  "HANDLE.readline().split()", "next_line(key)"):  # the last: state inside the program's function
        found = blocked(_program(value)).diagnostics
        assert [d.code for d in found] == ["TFM622"], value
        assert "`words` takes a new run-time value on each pass of the loop" in found[0].message, value


def test_a_value_read_through_another_name_the_loop_rebinds_keeps_the_loop_blocker():
    src = _program("read_words(path)").replace("    words = ", '    path = f"/tmp/{key}"\n    words = ')
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM622"] and "takes a new run-time value" in found[0].message


def test_keys_known_only_at_run_time_stay_blocked():
    # the column's name must be read from the source (its table, its weights' name): the key blocks first
    src = _program("read_words(key)").replace("for key in KEYS:", "for key in load_keys():")
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM622"] and "key `key` is not a value" in found[0].message


# ---- sizes counted at run time (a count the program read from a file) ------------------------------------------
SIZES = '''\
import numpy as np
import tensorflow as tf


def read_count(path):
    with open(path) as f:
        return int(f.read())


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"city": np.array(["a", "b"]), "day": np.array([0, 1])},
                                               np.array([0, 1]))).batch(2)


n_cities = read_count("/tmp/n_cities.txt")
COLUMN
est = tf.estimator.LinearClassifier([column])
est.train(input_fn, max_steps=5)
'''


def test_a_hash_bucket_size_counted_at_run_time_goes_to_the_model_checked_as_tf1_checked_it():
    text = converted(SIZES.replace("COLUMN", 'column = tf.feature_column.categorical_column_with_hash_bucket('
                                             '"city", hash_bucket_size=n_cities + 1)'))
    assert 'hash_bucket_ids(sparse_input(features, "city"), self.params["hash_bucket_size"])' in text
    assert 'CategoricalWeights(self.params["hash_bucket_size"], 1, "sum", name="city")' in text
    # TF 2.15's own error for a size below 1, raised where the Estimator is built; the check is defined
    assert "column_count(n_cities + 1, 'hash_bucket_size must be at least 1. hash_bucket_size: {}, key: city')" in text
    assert "def column_count(value, message):" in text


def test_an_identity_size_counted_at_run_time_in_a_linear_model_defines_its_check():
    # before, the params called column_count, which only an embedding column's dimension brought along: NameError
    text = converted(SIZES.replace("COLUMN", 'column = tf.feature_column.categorical_column_with_identity('
                                             '"day", num_buckets=n_cities)'))
    assert "column_count(n_cities, 'num_buckets {} < 1, column_name day')" in text
    assert "def column_count(value, message):" in text


def test_a_crossed_hash_bucket_size_counted_at_run_time():
    text = converted(SIZES.replace("COLUMN", 'column = tf.feature_column.crossed_column(["city", "day"], '
                                             'hash_bucket_size=n_cities * 4)'))
    assert 'crossed_ids([dense_input(features, "city"), dense_input(features, "day")], ' \
           'self.params["hash_bucket_size"])' in text
    assert "column_count(n_cities * 4, 'hash_bucket_size must be > 1. hash_bucket_size: {}')" in text
    assert "def column_count(value, message):" in text


# ---- a numeric_column shape computed at run time (kubeflow mnist: `shape=images.shape[1:]`) ----------------------
SHAPES = '''\
import numpy as np
import tensorflow as tf

images = np.load("/tmp/images.npy")


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": images}, np.zeros(len(images), np.int64))).batch(4)


columns = [COLUMN]
est = ESTIMATOR
est.train(input_fn, max_steps=5)
'''


def _shapes(column: str, estimator: str = "tf.estimator.LinearClassifier(feature_columns=columns)") -> str:
    return SHAPES.replace("COLUMN", column).replace("ESTIMATOR", estimator)


def test_a_numeric_shape_from_the_data_sizes_the_linear_weights_at_run_time():
    text = converted(_shapes('tf.feature_column.numeric_column("x", shape=images.shape[1:])'))
    assert 'LinearModel({"x": self.params["shape_x"]}, units=1)' in text
    assert 'numeric_input(features, "x", self.params["shape_x"])' in text
    assert "{\"shape_x\": column_shape(images.shape[1:], 'x')}" in text
    assert "def column_shape(shape, key):" in text


def test_a_numeric_shape_from_the_data_in_a_dnn():
    text = converted(_shapes('tf.feature_column.numeric_column("x", shape=images.shape[1:])',
                             "tf.estimator.DNNClassifier([4], columns)"))
    assert 'numeric_input(features, "x", self.params["shape_x"])' in text and "def column_shape(" in text


def test_a_bucketized_column_over_a_run_time_shape_is_blocked_saying_so():
    found = blocked(_shapes('tf.feature_column.bucketized_column(tf.feature_column.numeric_column('
                            '"x", shape=images.shape[1:]), [0.5])')).diagnostics
    assert [d.code for d in found] == ["TFM622"] and "shape is known only at run time" in found[0].message


def test_a_shape_local_to_a_helper_building_the_columns_blocks_at_its_line():
    # tf.Transform's census example: the shape comes from a feature spec local to the helper
    src = SHAPES.replace("columns = [COLUMN]", "def make_columns():\n    spec = np.load('/tmp/spec.npy')\n"
                                                "    return [tf.feature_column.numeric_column('x', shape=spec.shape)]\n"
                                                "\n\ncolumns = make_columns()").replace(
        "ESTIMATOR", "tf.estimator.LinearClassifier(feature_columns=columns)")
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM622"]
    assert "shape `spec.shape` is computed at run time" in found[0].message and "visible where the Estimator is built" \
        in found[0].message


# ---- a column list unpacked from a call tfmigrate cannot follow (the official movielens wide_deep shape) ---------
UNPACKED = '''\
import functools

import numpy as np
import tensorflow as tf


def build_model_columns(dataset):
    return [], [tf.feature_column.numeric_column("age")]


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"age": np.ones(4, np.float32)}, np.ones(4))).batch(2)


def build_estimator(model_column_fn):
    _, deep_columns = model_column_fn()
    return tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=deep_columns)


est = build_estimator(functools.partial(build_model_columns, dataset="1m"))
est.train(input_fn, max_steps=2)
'''


def test_a_column_list_unpacked_from_a_call_it_cannot_follow_says_so():
    # before: "not a list tfmigrate can read from the source (names known only at run time)"
    found = blocked(UNPACKED).diagnostics
    assert [d.code for d in found] == ["TFM622"]
    assert "`deep_columns` is unpacked from `model_column_fn()`, whose function tfmigrate cannot follow" \
        in found[0].message and "by its name where the Estimator is built" in found[0].message
    # called by its name, the list is read
    assert "numeric_input" in converted(UNPACKED.replace("model_column_fn()", 'build_model_columns("1m")'))


def test_a_tensorflow_hub_column_is_named_as_such():
    src = UNPACKED.replace("import tensorflow as tf\n",
                           "import tensorflow as tf\nimport tensorflow_hub as hub\n").replace(
        '[tf.feature_column.numeric_column("age")]',
        '[hub.text_embedding_column(key="title", module_spec="https://tfhub.dev/google/nnlm-en-dim50/1")]').replace(
        "model_column_fn()", 'build_model_columns("1m")')
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM622"]
    assert "text_embedding_column is a tensorflow_hub column" in found[0].message
