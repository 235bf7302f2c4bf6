"""tf.contrib names TF2 keeps elsewhere (rules/facts/tf1_calls.py): contrib.lookup's tables and re-exported classes.
The TF2 tables were compared with TF 1.x's builders (lookup_ops on TF 2.15) on in- and out-of-vocabulary keys:
the same ids and strings."""
from __future__ import annotations

import pytest

from test_tf_upgrade_conformance import upgrade
from tfmigrate.diagnostics import Blocked

RANGE = "tf.range(tf.size(words), dtype=tf.int64)"


@pytest.mark.parametrize("text, expected", [
    ("tf.contrib.lookup.index_table_from_tensor(words)",
     f"tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(words, {RANGE}), -1)"),
    ("tf.contrib.lookup.index_table_from_tensor(mapping=words, default_value=-2, name='t')",
     f"tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(words, {RANGE}), -2, name='t')"),
    ("tf.contrib.lookup.index_table_from_tensor(words, num_oov_buckets=2)",
     f"tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(words, {RANGE}), 2)"),
    ("tf.contrib.lookup.index_table_from_tensor(words, 0)",
     f"tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(words, {RANGE}), -1)"),
    ("tf.contrib.lookup.index_to_string_table_from_tensor(words)",
     f"tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer({RANGE}, words), \"UNK\")"),
    ("tf.contrib.lookup.KeyValueTensorInitializer(k, v)", "tf.lookup.KeyValueTensorInitializer(k, v)"),
    ("tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1)",
     "tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)"),
])
def test_contrib_lookup(text, expected):
    assert upgrade(text) == expected


@pytest.mark.parametrize("text, message", [
    ("tf.contrib.lookup.index_table_from_tensor(words, 2, 7)", "default_value=...\\) with num_oov_buckets > 0"),
    ("tf.contrib.lookup.index_table_from_tensor(words, num_oov_buckets=n)", "not a literal count"),
    ("tf.contrib.lookup.index_table_from_tensor(read(path))", "bind it to a name first"),
    ("tf.contrib.lookup.index_table_from_tensor(words, dtype=tf.int64)", "dtype=...\\) is not converted"),
    ("use(tf.contrib.lookup.index_table_from_tensor)", "converted where it is called"),
    ("tf.contrib.lookup.HashTable(init, -1)", "tf.contrib was removed"),
])
def test_contrib_lookup_blocks_what_it_cannot_carry(text, message):
    with pytest.raises(Blocked, match=message):
        upgrade(text)
