"""Estimators over a head (tf.estimator.LinearEstimator / DNNEstimator / DNNLinearCombinedEstimator with a
BinaryClassHead, ...) are not converted yet: blocked where they are built, naming the canned classifier/regressor
that builds the same model_fn, never "built outside the migrated files" (they are built right there)."""
from __future__ import annotations

import pytest

from _helpers import blocked

PROGRAM = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8)).batch(4).repeat()


columns = [tf.feature_column.numeric_column("x", shape=(2,))]
est = tf.estimator.KIND(head=tf.estimator.BinaryClassHead(), ARGS)
est.train(input_fn, max_steps=5)
'''


@pytest.mark.parametrize("kind, args, instead", [
    ("DNNEstimator", "feature_columns=columns, hidden_units=[4]", "DNNClassifier / DNNRegressor"),
    ("LinearEstimator", "feature_columns=columns", "LinearClassifier / LinearRegressor"),
    ("DNNLinearCombinedEstimator", "linear_feature_columns=columns, dnn_feature_columns=columns, dnn_hidden_units=[4]",
     "DNNLinearCombinedClassifier / DNNLinearCombinedRegressor"),
])
def test_a_head_estimator_is_blocked_where_it_is_built(kind, args, instead):
    src = PROGRAM.replace("KIND", kind).replace("ARGS", args)
    result = blocked(src)
    messages = [d.message for d in result.diagnostics]
    found = [d for d in result.diagnostics if "an Estimator over a head" in d.message]
    assert found and found[0].code == "TFM601" and found[0].line == 9, messages
    assert instead in found[0].message
    assert not any("outside the migrated files" in m or "cannot follow" in m for m in messages), messages
