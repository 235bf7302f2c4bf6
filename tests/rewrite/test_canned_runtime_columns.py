"""Feature-column arguments known only at run time (rules/planners/feature_columns.py, rules/planners/canned.py).

A vocabulary read from a file or computed from the data, a bucket count or embedding size from a flag or a
params dict, boundaries from the data: the migrated model takes the value the program computed where the
Estimator is built (params), checked as TF 2.15 checked it when the column was built, and sizes its tables from
it (`len(vocabulary) + num_oov_buckets`). Values not visible there block at their line with what to do.
"""
from __future__ import annotations

import textwrap

from tests.rewrite._helpers import blocked, converted, section

HEADER = '''\
import json

import numpy as np
import tensorflow as tf
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_integer("days", 7, "weekday buckets")


def read_vocabulary(path):
    with open(path) as f:
        return [line.strip() for line in f]


def input_fn():
    features = {"city": np.array(["a", "b"]), "day": np.array([0, 6]), "price": np.array([1.0, 5.0], np.float32)}
    return tf.data.Dataset.from_tensor_slices((features, np.array([0, 1]))).batch(2)
'''


def program(body: str, estimator: str = "tf.estimator.DNNClassifier([4], columns)") -> str:
    body = textwrap.dedent(body).strip("\n") + f"\nest = {estimator}\nest.train(input_fn, max_steps=5)\n"
    return HEADER + "\n\ndef main(argv):\n" + textwrap.indent(body, "    ") + "\n\nmain(None)\n"


def _model(text: str, name: str = "DNNClassifierModel") -> str:
    return section(text, f"class {name}(keras.Model):", "def build_")


def test_vocabulary_read_from_a_file_sizes_the_embedding_table_at_run_time():
    text = converted(program('''
        vocab = read_vocabulary("/tmp/cities.txt")
        city = tf.feature_column.categorical_column_with_vocabulary_list("city", vocab, num_oov_buckets=2)
        columns = [tf.feature_column.embedding_column(city, dimension=3)]
    '''))
    model = _model(text)
    assert 'EmbeddingColumn(len(self.params["vocabulary_city"]) + 2, 3, "mean"' in model
    assert 'vocabulary_ids(sparse_input(features, "city"), self.params["vocabulary_city"], num_oov_buckets=2)' in model
    # computed once, where the Estimator is built, after the program read the file (the statement stays)
    assert 'vocab = read_vocabulary("/tmp/cities.txt")' in text
    assert "\"vocabulary_city\": vocabulary_list(vocab, 'city')" in text
    assert "def vocabulary_list(values, key):" in text


def test_flag_and_params_sizes():
    text = converted(program('''
        hparams = json.load(open("/tmp/hparams.json"))
        day = tf.feature_column.categorical_column_with_identity("day", num_buckets=FLAGS.days)
        city = tf.feature_column.categorical_column_with_hash_bucket("city", 10)
        columns = [tf.feature_column.indicator_column(day),
                   tf.feature_column.embedding_column(city, dimension=hparams["dimension"])]
    '''))
    model = _model(text)
    assert 'indicator_of(identity_ids(sparse_input(features, "day"), self.params["num_buckets"]), ' \
           'self.params["num_buckets"])' in model
    assert 'EmbeddingColumn(10, self.params["dimension"], "mean"' in model
    assert "\"num_buckets\": column_count(FLAGS.days, 'num_buckets {} < 1, column_name day')" in text
    assert "\"dimension\": column_count(hparams[\"dimension\"], 'Invalid dimension {}.')" in text


def test_indicator_over_a_run_time_vocabulary_in_a_dnn():
    text = converted(program('''
        vocab = read_vocabulary("/tmp/cities.txt")
        columns = [tf.feature_column.indicator_column(
            tf.feature_column.categorical_column_with_vocabulary_list("city", vocab))]
    '''))
    assert ('indicator_of(vocabulary_ids(sparse_input(features, "city"), self.params["vocabulary_city"]), '
            'len(self.params["vocabulary_city"]))') in _model(text)


def test_linear_model_weights_follow_run_time_vocabulary_and_boundaries():
    text = converted(program('''
        vocab = read_vocabulary("/tmp/cities.txt")
        edges = np.quantile(np.arange(10.0), [0.25, 0.75]).tolist()
        columns = [tf.feature_column.categorical_column_with_vocabulary_list("city", vocab),
                   tf.feature_column.bucketized_column(tf.feature_column.numeric_column("price"), edges)]
    ''', "tf.estimator.LinearClassifier(columns)"))
    model = _model(text, "LinearClassifierModel")
    assert 'CategoricalWeights(len(self.params["vocabulary_city"]), 1, "sum", name="city")' in model
    assert 'CategoricalWeights(1 * (len(self.params["boundaries_price"]) + 1), 1, "sum", name="price_bucketized")' \
        in model
    assert '"boundaries_price": column_boundaries(edges)' in text
    assert "def column_boundaries(values):" in text


def test_static_vocabulary_stays_a_literal():
    text = converted(program('''
        vocab = sorted({"b", "a"})
        city = tf.feature_column.categorical_column_with_vocabulary_list("city", vocab)
        columns = [tf.feature_column.embedding_column(city, dimension=2)]
    '''))
    assert "EmbeddingColumn(2, 2, \"mean\"" in text and "vocabulary_list(" not in text.replace(
        "categorical_column_with_vocabulary_list", "")


def _helper_vocabulary_diagnostic(vocabulary: str):
    """The TFM622 diagnostic of columns built by a helper `make_columns()` whose body first runs `vocabulary`
    (binding `vocab`); asserts it stands at the column's line."""
    helper = textwrap.indent(textwrap.dedent(vocabulary).strip("\n"), "    ")
    src = program("columns = make_columns()").replace("\n\ndef main(argv):", f'''

def make_columns():
{helper}
    city = tf.feature_column.categorical_column_with_vocabulary_list("city", vocab)
    return [tf.feature_column.embedding_column(city, dimension=2)]


def main(argv):''')
    result = blocked(src)
    (diagnostic,) = [d for d in result.diagnostics if d.code == "TFM622"]
    assert diagnostic.line == next(i for i, text in enumerate(src.splitlines(), 1) if '"city", vocab)' in text)
    return diagnostic


def test_vocabulary_changed_in_place_blocks_at_its_line():
    diagnostic = _helper_vocabulary_diagnostic('''
        vocab = []
        for line in open("/tmp/cities.txt"):
            vocab.append(line.strip())
    ''')
    assert "`vocab` is changed in place (`vocab.append(line.strip())`)" in diagnostic.message


def test_run_time_value_not_visible_where_the_estimator_is_built_blocks_at_its_line():
    diagnostic = _helper_vocabulary_diagnostic('vocab = read_vocabulary("/tmp/cities.txt")')
    assert "where the Estimator is built" in diagnostic.message, diagnostic.message


def test_constant_vocabulary_changed_in_place_blocks_instead_of_reading_the_assignment():
    """`VOCAB = [...]` then `VOCAB.append(...)`: reading the assignment alone gave the table a list without the
    appended keys (silently other ids); now it blocks and says why."""
    src = program('''
        city = tf.feature_column.categorical_column_with_vocabulary_list("city", VOCAB)
        columns = [tf.feature_column.embedding_column(city, dimension=2)]
    ''').replace("FLAGS = flags.FLAGS\n", 'FLAGS = flags.FLAGS\nVOCAB = ["a", "b"]\nVOCAB.append("c")\n')
    result = blocked(src)
    assert any("`VOCAB` is changed in place (`VOCAB.append(\"c\")`)" in d.message for d in result.diagnostics)


def test_vocabulary_file_reads_its_keys_where_the_estimator_is_built():
    """TF 2.15 counted the file's lines for vocabulary_size and read the first vocabulary_size lines through a
    text-file table; the generated vocabulary_file does the same with the same initializer (checked with a file
    holding a CRLF line and no final newline: the same keys, ids and OOV buckets on both sides)."""
    text = converted(program('''
        path = FLAGS.vocab_path if FLAGS.vocab_path else "/tmp/cities.txt"
        city = tf.feature_column.categorical_column_with_vocabulary_file("city", path, num_oov_buckets=3)
        columns = [tf.feature_column.embedding_column(city, dimension=2)]
    '''))
    assert "\"vocabulary_city\": vocabulary_file(path, None, 'city')" in text
    assert 'EmbeddingColumn(len(self.params["vocabulary_city"]) + 3, 2, "mean"' in text
    assert "tf.lookup.TextFileInitializer(" in text and "def column_count(" not in text
    sized = converted(program('''
        city = tf.feature_column.categorical_column_with_vocabulary_file("city", "/tmp/c.txt", FLAGS.days)
        columns = [tf.feature_column.indicator_column(city)]
    '''))
    assert "vocabulary_file(\"/tmp/c.txt\", column_count(FLAGS.days, 'Invalid vocabulary_size in city.'), 'city')" \
        in sized
    result = blocked(program('''
        city = tf.feature_column.categorical_column_with_vocabulary_file("city", "/tmp/c.txt", num_oov_buckets=1,
                                                                         default_value=0)
        columns = [tf.feature_column.indicator_column(city)]
    '''))
    assert any("Can't specify both" in d.message for d in result.diagnostics)
