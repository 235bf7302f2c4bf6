"""categorical_column_with_vocabulary_list given as a Python expression over the program's constants (TFM622): the
rewrite evaluates it as Python did when TF1 built the column and the migrated code gets that list; a list computed
at run time is computed by the migrated program where the Estimator is built; a set's unordered iteration, a
generator (no len() for TF1) or duplicate keys (TF1 raises) block."""
from __future__ import annotations

import pytest

from tests.rewrite._helpers import blocked, codes, converted
from tests.rewrite.test_canned_columns import program


def linear(expr: str, setup: str = "") -> str:
    return program(setup + "\n" + f'''
col = tf.feature_column.categorical_column_with_vocabulary_list("device", {expr})
est = tf.estimator.LinearClassifier(feature_columns=[col])
est.train(train_input_fn, max_steps=3)
''')


@pytest.mark.parametrize("setup, expr, vocabulary", [
    ('VOCAB = ["ios", "web", "android", "tv"]', "VOCAB[:2]", ["ios", "web"]),
    ('VOCAB = ["ios", "web", "android", "tv"]', "VOCAB[1::2]", ["web", "tv"]),
    ('VOCAB = ("ios", "web")', "VOCAB", ["ios", "web"]),
    ('VOCAB = ("ios", "web")', "list(VOCAB)", ["ios", "web"]),
    ('VOCAB = ["ios", "web", "android"]', "[v for v in VOCAB if v != 'web']", ["ios", "android"]),
    ("", '[f"d{i}" for i in range(3)]', ["d0", "d1", "d2"]),
    ('WORDS = "Ios Web"', "[w.lower() for w in WORDS.split()]", ["ios", "web"]),
    ('VOCAB = {"web", "ios"}', "sorted(VOCAB)", ["ios", "web"]),
    ('BASE = ["ios"]\nMORE = BASE + ["web"]', 'MORE + ["tv"]', ["ios", "web", "tv"]),
    ("", "list(range(5))", [0, 1, 2, 3, 4]),
    # a helper of the program is followed with its arguments bound, as Python called it
    ("def load():\n    return ['a']", "load()", ["a"]),
    ('def pick(v, n):\n    return v[:n]\nV = ["a", "b", "c"]', "pick(V, 2)", ["a", "b"]),
    ("def sorted(x):\n    return list(x)[::-1]", 'sorted(["a", "b"])', ["b", "a"]),  # the program's own sorted
])
def test_vocabulary_expression_over_constants_converts_to_its_value(setup, expr, vocabulary):
    out = converted(linear(expr, setup))
    assert f'vocabulary_ids(sparse_input(features, "device"), {vocabulary!r})' in out
    assert f"CategoricalWeights({len(vocabulary)}, " in out


@pytest.mark.parametrize("setup, expr", [
    ("import os", 'os.environ["VOCAB"].split(",")'),
    ("", 'open("vocab.txt").read().split()'),
    ('def load():\n    with open("v.txt") as f:\n        return f.read().split()', "load()"),
])
def test_vocabulary_computed_at_run_time_is_computed_where_the_estimator_is_built(setup, expr):
    """The migrated program computes it as the original did and the table takes its size from it
    (tests/rewrite/test_canned_runtime_columns.py has the shapes)."""
    out = converted(linear(expr, setup))
    assert f"\"vocabulary_device\": vocabulary_list({expr}, 'device')" in out
    assert 'CategoricalWeights(len(self.params["vocabulary_device"]), ' in out


@pytest.mark.parametrize("setup, expr, why", [
    ('VOCAB = {"web", "ios"}', "list(VOCAB)", "order varies between runs"),
    ("", '[v for v in {"web", "ios"}]', "order varies between runs"),
    ('VOCAB = ["a", "b"]', "(v for v in VOCAB)", "generator has no len()"),
    ('VOCAB = ["a", "b", "a"]', "VOCAB[:3]", "Duplicate keys in vocabulary_list"),
    ('VOCAB = ["a", "b"]', "VOCAB[5]", "IndexError"),
])
def test_vocabulary_computed_at_run_time_or_refused_by_tf1_is_blocked(setup, expr, why):
    src = linear(expr, setup)
    result = blocked(src)
    assert codes(result) == {"TFM622"}
    [diagnostic] = result.diagnostics
    assert why in diagnostic.message, diagnostic.message
    assert "vocabulary_list" in src.splitlines()[diagnostic.line - 1]

