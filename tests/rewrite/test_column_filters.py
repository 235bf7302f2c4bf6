"""`filter(lambda column: isinstance(column, feature_column._X), columns)` over columns written in the source (the
GoogleCloudPlatform estimator tutorials' shape): TF 1's abstract column classes are read statically (the columns of
those kinds kept, as TF 2.15 keeps them); a concrete class keeps nothing on TF 2 and is blocked saying so."""
from __future__ import annotations

from _helpers import blocked, converted

PROGRAM = '''\
import numpy as np
import tensorflow as tf
from tensorflow.python.feature_column import feature_column

ALL_COLUMNS = [tf.feature_column.numeric_column("age"),
               tf.feature_column.categorical_column_with_hash_bucket("city", 8),
               tf.feature_column.numeric_column("income")]


def input_fn():
    feats = {"age": np.ones(8, np.float32), "income": np.ones(8, np.float32), "city": np.array(["a"] * 8)}
    return tf.data.Dataset.from_tensor_slices((feats, np.ones(8, np.int32))).batch(4).repeat()


dense = list(filter(lambda column: TEST, ALL_COLUMNS))
est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=dense,
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
est.train(input_fn, max_steps=5)
'''


def test_an_abstract_class_filter_keeps_the_columns_of_its_kinds():
    text = converted(PROGRAM.replace("TEST", "isinstance(column, feature_column._DenseColumn)"))
    assert 'numeric_input(features, "age", 1)' in text and 'numeric_input(features, "income", 1)' in text
    assert text.count('"city"') == 1  # only in the input_fn: the hashed column is not kept


def test_a_negated_or_combined_test_is_read():
    text = converted(PROGRAM.replace("TEST", "not isinstance(column, feature_column._CategoricalColumn) "
                                             "| isinstance(column, feature_column._SequenceDenseColumn)"))
    assert 'numeric_input(features, "age", 1)' in text and text.count('"city"') == 1


def test_a_concrete_class_keeps_nothing_on_tf2_and_is_blocked():
    result = blocked(PROGRAM.replace("TEST", "isinstance(column, feature_column._NumericColumn)"))
    [error] = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "TFM622" and error.line == 15
    assert "`isinstance(column, feature_column._NumericColumn)` is False for every column tf.feature_column builds " \
           "on TF 2" in error.message
    # what to write instead, in one line: the TF 2 class of that kind, which tfmigrate reads (next test)
    assert error.message.endswith("test the TF 2 class of that kind instead: `isinstance(column, "
                                  "feature_column_v2.NumericColumn)` (from tensorflow.python.feature_column import "
                                  "feature_column_v2)")


def test_the_tf2_class_of_a_kind_keeps_that_kind():
    # measured on TF 2.15.1: numeric_column builds feature_column_v2.NumericColumn, the hashed column is not one
    src = PROGRAM.replace("from tensorflow.python.feature_column import feature_column",
                          "from tensorflow.python.feature_column import feature_column_v2")
    text = converted(src.replace("TEST", "isinstance(column, feature_column_v2.NumericColumn)"))
    assert 'numeric_input(features, "age", 1)' in text and 'numeric_input(features, "income", 1)' in text
    assert text.count('"city"') == 1
    # an abstract v2 class: the categorical kinds only (the hashed column), which a DNN refuses as it is
    result = blocked(src.replace("TEST", "isinstance(column, feature_column_v2.CategoricalColumn)"))
    assert "feature_column_v2" not in " ".join(d.message for d in result.diagnostics)


def test_another_test_is_blocked_naming_it():
    result = blocked(PROGRAM.replace("TEST", "column.name != 'city'"))
    assert any("the filter's test `column.name != 'city'` is not read" in d.message for d in result.diagnostics)
