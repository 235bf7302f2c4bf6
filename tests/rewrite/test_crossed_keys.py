"""crossed_column keys TF 2.15 refused when the column was built (TFM622): the original never trained, so the
rewrite must block with TF1's reason instead of converting into a program that runs. Measured in the legacy env:
a categorical_column_with_hash_bucket key (also in a nested cross), a numeric / embedding / indicator column key
and a single key each raise ValueError in tf.feature_column.crossed_column."""
from __future__ import annotations

import pytest

from tests.rewrite._helpers import blocked, codes, converted
from tests.rewrite.test_canned_columns import program


def linear(keys: str, setup: str = "") -> str:
    return program(f'''
    fc = tf.feature_column
    {setup}
    cross = fc.crossed_column({keys}, 20)
    est = tf.estimator.LinearClassifier(feature_columns=[cross])
    est.train(train_input_fn, max_steps=3)
    ''')


def _message(result) -> str:
    [diagnostic] = [d for d in result.diagnostics if d.code == "TFM622"]
    return diagnostic.message


@pytest.mark.parametrize("keys, setup", [
    ('[fc.categorical_column_with_hash_bucket("city", 10), "device"]', ""),
    ('["device", cities]', 'cities = fc.categorical_column_with_hash_bucket("city", 10)'),
    ('[tf.compat.v1.feature_column.categorical_column_with_hash_bucket("city", 10), "device"]', ""),
    ('[fc.crossed_column([fc.categorical_column_with_hash_bucket("city", 10), "device"], 5), "product"]', ""),
])
def test_cross_over_a_hash_bucket_column_is_blocked_with_the_tf1_reason(keys, setup):
    src = linear(keys, setup)
    result = blocked(src)
    assert codes(result) == {"TFM622"}
    message = _message(result)
    assert "categorical_column_with_hash_bucket is not supported for crossing" in message
    assert "cross the feature name as a string" in message
    line = src.splitlines()[result.diagnostics[0].line - 1]
    assert "crossed_column(" in line  # points at the key in the cross


@pytest.mark.parametrize("key", ['fc.numeric_column("price")',
                                 'fc.embedding_column(fc.categorical_column_with_identity("product", 5), 2)',
                                 'fc.indicator_column(fc.categorical_column_with_identity("product", 5))'])
def test_cross_over_a_dense_column_is_blocked_with_the_tf1_reason(key):
    result = blocked(linear(f'[{key}, "device"]'))
    assert "Unsupported key type" in _message(result)


def test_cross_of_one_key_is_blocked():
    assert "length > 1" in _message(blocked(linear('["device"]')))


def test_cross_of_zero_buckets_is_blocked():
    src = linear('["city", "device"]').replace("20)", "0)")
    assert "hash_bucket_size" in _message(blocked(src))


@pytest.mark.parametrize("keys", ['["city", "device"]',
                                  '[fc.categorical_column_with_identity("product", 5), "city"]',
                                  '[fc.categorical_column_with_vocabulary_list("device", ["ios", "web"]), "city"]',
                                  '[fc.bucketized_column(fc.numeric_column("price"), [0.5]), "city"]'])
def test_crosses_tf1_accepted_keep_converting(keys):
    assert "crossed_ids([" in converted(linear(keys))
