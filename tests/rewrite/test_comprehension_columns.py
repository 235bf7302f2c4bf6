"""Issue #28: feature-column lists built by comprehensions over module-level dicts (`.items()`), extended with `+=`,
through helpers and module constants."""
from __future__ import annotations

from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

PROGRAM = '''\
import numpy as np
import tensorflow as tf

HASH_KEYS = {"city": 20, "shop": 10}
NUMERIC = ["age", "income"]


def columns(extra):
    cols = [tf.feature_column.numeric_column(k) for k in NUMERIC]
    cols += [tf.feature_column.indicator_column(tf.feature_column.categorical_column_with_hash_bucket(k, n))
             for k, n in HASH_KEYS.items()]
    return cols


def input_fn():
    feats = {"age": np.ones(8, np.float32), "income": np.ones(8, np.float32),
             "city": np.array(["a"] * 8), "shop": np.array(["b"] * 8)}
    return tf.data.Dataset.from_tensor_slices((feats, np.ones(8, np.int32))).batch(4).repeat()


est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns(False),
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
est.train(input_fn, max_steps=5)
'''


def _one(tmp_path: Path, text: str):
    (tmp_path / "cols.py").write_text(text)
    (result,) = migrate_paths(discover([str(tmp_path / "cols.py")]), Options(), jobs=1)
    return result


def test_items_comprehension_and_plus_equals_convert(tmp_path):
    result = _one(tmp_path, PROGRAM)
    assert result.status == "changed", [d.message for d in result.diagnostics]
    text = result.output.decode()
    assert "est.fit(" in text and "DNNClassifier(" not in text.split("def input_fn")[1]
    # one hashed indicator per HASH_KEYS entry, with its bucket count
    assert "20" in text and "10" in text and '"city"' in text and '"shop"' in text


def test_plus_equals_under_a_condition_blocks_at_it(tmp_path):
    text = PROGRAM.replace("    cols += [", "    if extra:\n        cols += [").replace(
        "             for k, n in HASH_KEYS.items()]", "                 for k, n in HASH_KEYS.items()]")
    result = _one(tmp_path, text)
    assert result.status == "blocked"
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "TFM622" and error.line == 22  # where the Estimator reads it
    assert "`cols` can hold different values here (assigned at lines 9, 11)" in error.message
