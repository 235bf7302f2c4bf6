"""Categorical feature columns of canned estimators (TFM622, rules/planners/feature_columns.py): embedding columns in DNNs,
categorical / bucketized / crossed columns in linear models, and what blocks (weighted, shared, vocabulary files,
optimizers whose dense update differs from TF1's sparse one). Numerics: fixtures canned_embedding and
canned_wide_deep_crossed (verify)."""
from __future__ import annotations

import textwrap

import pytest

from tests.rewrite._helpers import blocked, codes, converted, rewrite, section

HEADER = '''\
import tensorflow as tf


def train_input_fn():
    features = {"city": ["paris"], "product": [3], "price": [0.5], "device": ["ios"]}
    return tf.data.Dataset.from_tensor_slices((features, [1])).batch(1).repeat()
'''


def program(body: str) -> str:
    return HEADER + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


def _only(result, code):
    assert code in codes(result), [d.format() for d in result.diagnostics]
    return [d for d in result.diagnostics if d.code == code]


HELPER = program('''
def make_columns(dimension):
    fc = tf.feature_column
    cities = fc.categorical_column_with_hash_bucket("city", 16)
    columns = [fc.numeric_column("price")]
    columns.append(fc.embedding_column(cities, dimension, combiner="sqrtn"))
    columns.append(fc.embedding_column(fc.categorical_column_with_identity("product", 21, default_value=0), 3,
                                       combiner="sum", max_norm=2.0))
    columns.append(fc.embedding_column(
        fc.categorical_column_with_vocabulary_list("device", ["ios", "web"], num_oov_buckets=2), 3))
    return columns


est = tf.estimator.DNNClassifier([8], make_columns(4), n_classes=3)
est.train(train_input_fn, max_steps=3)
''')


def test_embedding_columns_in_a_dnn():
    text = converted(HELPER)
    init = section(text, "        self.embedding_columns = {", "    def call(")
    # layer names give TF1's variables dnn/input_from_feature_columns/input_layer/<column>_embedding/embedding_weights
    assert '"city_embedding": EmbeddingColumn(16, 4, "sqrtn", name="city_embedding")' in init
    assert '"product_embedding": EmbeddingColumn(21, 3, "sum", max_norm=2.0, name="product_embedding")' in init
    assert '"device_embedding": EmbeddingColumn(4, 3, "mean", name="device_embedding")' in init
    call = section(text, "    def call(", "def build_dnn_classifier")
    # input_layer's order: sorted column names (city_embedding, device_embedding, price, product_embedding)
    order = ['"city_embedding"](hash_bucket_ids(sparse_input(features, "city"), 16))',
             '"device_embedding"](vocabulary_ids(sparse_input(features, "device"), [\'ios\', \'web\'], '
             'num_oov_buckets=2))',
             'numeric_input(features, "price", 1)',
             '"product_embedding"](identity_ids(sparse_input(features, "product"), 21, 0))']
    positions = [call.index(o) for o in order]
    assert positions == sorted(positions)
    assert "tf.nn.safe_embedding_lookup_sparse(" in text
    assert "stddev=1.0 / dimension**0.5" in text  # TF1's default initializer
    assert "feature_column" not in text.replace("feature_columns", "")


def test_embedding_over_crossed_and_nested_crossed_columns():
    src = program('''
    fc = tf.feature_column
    inner = fc.crossed_column(["city", "device"], 10)
    column = fc.embedding_column(fc.crossed_column([inner, fc.categorical_column_with_identity("product", 5)], 30), 2)
    est = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=[column])
    est.train(train_input_fn, max_steps=3)
    ''')
    text = converted(src)
    # TF1 flattened nested crosses (leaf keys in order) and named the cross by its sorted leaf names
    assert ('"city_X_device_X_product_embedding"](crossed_ids([dense_input(features, "city"), '
            'dense_input(features, "device"), identity_ids(sparse_input(features, "product"), 5)], 30))') in text


def test_linear_model_over_categorical_and_crossed_columns():
    src = program('''
    def wide_columns():
        fc = tf.feature_column
        age = fc.bucketized_column(fc.numeric_column("price"), [0.2, 0.6])
        return [
            fc.categorical_column_with_vocabulary_list("device", ["ios", "web"]),
            fc.categorical_column_with_hash_bucket("city", 8),
            age,
            fc.crossed_column([age, "city"], 20, hash_key=7),
            fc.numeric_column("price"),
        ]


    est = tf.estimator.LinearClassifier(feature_columns=wide_columns(), sparse_combiner="sqrtn")
    est.train(train_input_fn, max_steps=3)
    ''')
    text = converted(src)
    init = section(text, "        self.linear_model = LinearModel(", "    def call(")
    # linear/linear_model/<column>/weights [num_buckets, units], sorted by column name, the estimator's combiner
    for entry in ['"city": CategoricalWeights(8, 1, "sqrtn", name="city")',
                  '"device": CategoricalWeights(2, 1, "sqrtn", name="device")',
                  '"price_bucketized": CategoricalWeights(3, 1, "sqrtn", name="price_bucketized")',
                  '"city_X_price_bucketized": CategoricalWeights(20, 1, "sqrtn", name="city_X_price_bucketized")',
                  '"price": 1']:
        assert entry in init
    assert init.index('"city"') < init.index('"city_X') < init.index('"device"') < init.index('"price"') \
        < init.index('"price_bucketized"')
    assert ('crossed_ids([bucketized_ids(features, "price", 1, [0.2, 0.6]), dense_input(features, "city")], 20, '
            'hash_key=7)') in text
    assert "TF1Ftrl(" in text  # categorical weights start at zero: the dense Ftrl step equals TF1's sparse one


def test_indicator_over_hash_bucket_in_a_dnn():
    src = program('''
    column = tf.feature_column.indicator_column(tf.feature_column.categorical_column_with_hash_bucket("city", 5))
    est = tf.estimator.DNNClassifier([4], [column])
    est.train(train_input_fn, max_steps=3)
    ''')
    text = converted(src)
    assert 'indicator_of(hash_bucket_ids(sparse_input(features, "city"), 5), 5)' in text


@pytest.mark.parametrize("column, words", [
    ('tf.feature_column.weighted_categorical_column(tf.feature_column.categorical_column_with_identity("product", 5), '
     '"price")', "weighted_categorical_column"),
    ('tf.feature_column.categorical_column_with_vocabulary_file("city", "/tmp/vocab.txt", dtype=tf.int64)',
     "integer vocabulary files"),
])
def test_unconverted_categorical_kinds_block_at_their_line(column, words):
    src = program(f'''
    columns = [tf.feature_column.embedding_column(
        {column}, 2)]
    est = tf.estimator.DNNClassifier([4], columns)
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag, *_) = _only(blocked(src), "TFM622")
    assert words in diag.message
    assert column.split("(")[0] in src.splitlines()[diag.line - 1]


def test_shared_embeddings_block():
    src = program('''
    a = tf.feature_column.categorical_column_with_hash_bucket("city", 5)
    b = tf.feature_column.categorical_column_with_hash_bucket("device", 5)
    columns = tf.feature_column.shared_embeddings([a, b], 2)
    est = tf.estimator.DNNClassifier([4], columns)
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag, *_) = _only(blocked(src), "TFM622")
    assert "shared" in diag.message


@pytest.mark.parametrize("argument, words", [
    ("initializer=tf.compat.v1.zeros_initializer()", "initializer"),
    ("use_safe_embedding_lookup=False", "use_safe_embedding_lookup"),
    ('combiner="max"', "combiner"),
])
def test_embedding_arguments_not_converted_block(argument, words):
    src = program(f'''
    cities = tf.feature_column.categorical_column_with_hash_bucket("city", 5)
    est = tf.estimator.DNNClassifier([4], [tf.feature_column.embedding_column(cities, 2, {argument})])
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag, *_) = _only(blocked(src), "TFM622")
    assert words in diag.message


@pytest.mark.parametrize("optimizer", ["'Ftrl'", "'Adam'", "tf.keras.optimizers.legacy.SGD(0.1, momentum=0.9)"])
def test_optimizers_whose_dense_update_differs_on_an_embedding_block(optimizer):
    src = program(f'''
    cities = tf.feature_column.categorical_column_with_hash_bucket("city", 5)
    est = tf.estimator.DNNClassifier([4], [tf.feature_column.embedding_column(cities, 2)], optimizer={optimizer})
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag, *_) = _only(blocked(src), "TFM622")
    assert "sparse" in diag.message and "city_embedding" in diag.message


def test_sgd_on_an_embedding_converts_and_v1_adagrad_notes_last_bits():
    src = program('''
    cities = tf.feature_column.categorical_column_with_hash_bucket("city", 5)
    est = tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.embedding_column(cities, 2)])
    est.train(train_input_fn, max_steps=3)
    ''')
    converted(src)
    (note,) = _only(rewrite(src), "TFM622")  # TF1's sparse Adagrad kernel multiplies by rsqrt: last bits differ
    assert note.severity == "note" and "rsqrt" in note.message
    sgd = src.replace("tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.embedding_column(cities, 2)])",
                      "tf.estimator.DNNClassifier([4], [tf.feature_column.embedding_column(cities, 2)], "
                      "optimizer='SGD')")
    assert "keras.optimizers.SGD(" in converted(sgd)


def test_linear_ftrl_with_l2_shrinkage_on_categorical_columns_blocks():
    src = program('''
    est = tf.estimator.LinearRegressor(
        [tf.feature_column.categorical_column_with_hash_bucket("city", 5)],
        optimizer=tf.keras.optimizers.legacy.Ftrl(0.1, l2_shrinkage_regularization_strength=0.1))
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag, *_) = _only(blocked(src), "TFM622")
    assert "'city'" in diag.message


def test_bare_categorical_column_in_a_dnn_blocks():
    src = program('''
    est = tf.estimator.DNNClassifier([4], [tf.feature_column.categorical_column_with_identity("product", 5)])
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag, *_) = _only(blocked(src), "TFM622")
    assert "embedding_column or indicator_column" in diag.message


_SPARSE_UNDER_STRATEGY = '''import tensorflow as tf

c = tf.feature_column.categorical_column_with_hash_bucket("city", 10)
strategy = STRATEGY
est = ESTIMATOR


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"city": ["a"], "x": [1.0]}, [1])).repeat().batch(1)


tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=3),
                                tf.estimator.EvalSpec(input_fn, steps=1))
'''  # train_and_evaluate: est.train under a multi-worker strategy is blocked (TFM701)
_EMBEDDING_DNN = ("tf.estimator.DNNClassifier([8], [tf.feature_column.embedding_column(c, 4), "
                  "tf.feature_column.numeric_column('x')], config=tf.estimator.RunConfig(train_distribute=strategy))")
_CATEGORICAL_LINEAR = ("tf.compat.v1.estimator.LinearRegressor([c, tf.feature_column.numeric_column('x')], "
                       "config=tf.estimator.RunConfig(train_distribute=strategy))")
_WIDE_DEEP = ("tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=[c], dnn_feature_columns=["
              "tf.feature_column.embedding_column(c, 4)], dnn_hidden_units=[8], "
              "config=tf.estimator.RunConfig(train_distribute=strategy))")


@pytest.mark.parametrize("estimator, model", [(_EMBEDDING_DNN, "class DNNClassifierModel"),
                                              (_CATEGORICAL_LINEAR, "class LinearRegressorModel"),
                                              (_WIDE_DEEP, "class DNNLinearCombinedClassifierModel")])
@pytest.mark.parametrize("strategy", ["tf.distribute.experimental.MultiWorkerMirroredStrategy()",
                                      "tf.distribute.MultiWorkerMirroredStrategy() if FLAG else None"])
def test_sparse_columns_under_multi_worker_mirrored_convert(estimator, model, strategy):
    """Verified: workers' IndexedSlices are all-gathered as TF1 did (fixtures canned_embedding_mwms,
    canned_linear_categorical_mwms, canned_wide_deep_mwms)."""
    src = _SPARSE_UNDER_STRATEGY.replace("STRATEGY", strategy).replace("ESTIMATOR", estimator)
    if "FLAG" in strategy:
        src = src.replace("import tensorflow as tf\n", "import tensorflow as tf\n\nFLAG = True\n")
    out = converted(src)
    assert model in out and "MultiWorkerMirroredStrategy()" in out


@pytest.mark.parametrize("estimator, model", [(_EMBEDDING_DNN, "class DNNClassifierModel"),
                                              (_CATEGORICAL_LINEAR, "class LinearRegressorModel"),
                                              (_WIDE_DEEP, "class DNNLinearCombinedClassifierModel")])
def test_sparse_columns_under_mirrored_strategy_convert_to_the_custom_loop(estimator, model):
    """Verified on 2 replicas (logical CPUs): the replicas' IndexedSlices are all-gathered by the same
    CollectiveAllReduce as under MWMS (fixture canned_embedding_mirrored). --target auto picks the custom loop:
    Keras 3's fit reduces the first distributed batch with strategy.reduce("MEAN"), which fails on string features."""
    src = _SPARSE_UNDER_STRATEGY.replace("STRATEGY", "tf.distribute.MirroredStrategy()").replace("ESTIMATOR", estimator)
    result = rewrite(src)
    assert result.status == "changed", result.diagnostics
    out = result.output.decode()
    assert model in out and "tf.distribute.MirroredStrategy()" in out
    assert "Trainer" in out and ".fit(" not in out  # the custom loop
    assert not any(d.code == "TFM622" and "MirroredStrategy" in d.message for d in result.diagnostics)
    keras_result = rewrite(src, target="keras")
    assert keras_result.status == "changed" and ".fit(" in keras_result.output.decode()
    assert any(d.code == "TFM622" and "more than one local replica" in d.message and "--target ctl" in d.message
               for d in keras_result.diagnostics)

@pytest.mark.parametrize("strategy, first_replica", [("tf.distribute.MirroredStrategy()", True),
                                                     ("None", False)])
def test_keras_build_under_mirrored_strategy_takes_the_first_replicas_batch(strategy, first_replica):
    """With several local devices a distributed dataset yields PerReplica values, which a Keras model refuses as
    inputs: the build before fit takes the first replica's batch (measured: a numeric DNNClassifier on 2 logical
    CPUs, Keras fit, 80/80 steps and every weight bit-equal); without MirroredStrategy the build is unchanged."""
    src = _SPARSE_UNDER_STRATEGY.replace("STRATEGY", strategy).replace(
        "ESTIMATOR", "tf.estimator.DNNClassifier([8], [tf.feature_column.numeric_column('x')], model_dir='/tmp/m', "
                     "config=tf.estimator.RunConfig(train_distribute=strategy))")  # model_dir: built before fit
    out = converted(src)
    assert ".fit(" in out and "BackupAndRestore" in out
    [build] = [line for line in out.splitlines() if line.strip().startswith("est(")]
    assert ("experimental_local_results(value)[0]" in build) == first_replica, build
