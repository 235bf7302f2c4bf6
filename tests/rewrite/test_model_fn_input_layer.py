"""input_layer inside a custom model_fn over embedding / indicator / bucketized columns (issue 27): the generated
TF1InputLayer (rules/planners/model_fn/_input_layer_columns.py), its TF1 variable names, and what still blocks."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, rewrite, section

COLUMNS = '''
SHOPS = ["a", "b", "c"]


def make_columns():
    shop = tf.feature_column.categorical_column_with_vocabulary_list("shop", SHOPS, num_oov_buckets=1)
    tag = tf.compat.v1.feature_column.categorical_column_with_hash_bucket("tag", 5)
    return [tf.feature_column.embedding_column(shop, 2), tf.feature_column.indicator_column(tag),
            tf.feature_column.numeric_column("x", shape=[2])]
'''
FORWARD = '''
net = tf.compat.v1.feature_column.input_layer(features, params["feature_columns"])
logits = tf.compat.v1.layers.dense(net, 1, name="logits")
'''
ESTIMATOR = ('est = tf.estimator.Estimator(model_fn=model_fn, config=config, '
             'params={"feature_columns": make_columns()})')


def _model(out: str) -> str:
    return section(out, "class Model(", "\ndef build_model")


@pytest.mark.parametrize("forward", [
    FORWARD,
    FORWARD.replace("tf.compat.v1.feature_column.input_layer", "tf.feature_column.input_layer"),  # TF 1.x spelling
])
def test_input_layer_over_embedding_and_indicator_columns_converts_to_the_tf1_input_layer(forward):
    out = converted(program(forward=forward, extra=COLUMNS, estimator=ESTIMATOR), style="native")
    model = _model(out)
    assert "self.input_layer = TF1InputLayer()" in model
    assert 'net = self.input_layer.read(features, params["feature_columns"])' in model
    assert "class TF1InputLayer(keras.layers.Layer):" in out
    # the support code it calls is the canned conversion's (one copy each)
    for name in ("def sparse_input(", "def vocabulary_ids(", "def hash_bucket_ids(", "class EmbeddingColumn(",
                 "def indicator_of(", "def numeric_input("):
        assert out.count(name) == 1, name


def test_input_layer_optimizer_over_embedding_tables_is_checked():
    """TF1 updated only the looked-up rows: optimizers whose dense update differs block (as in the canned path)."""
    src = program(forward=FORWARD, extra=COLUMNS, estimator=ESTIMATOR,
                  optimizer="optimizer = tf.compat.v1.train.AdamOptimizer(0.01)")
    result = blocked(src, style="native")
    assert any(d.code == "TFM622" and "over the embedding column 'shop_embedding' is not converted" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]
    result = rewrite(src.replace("AdamOptimizer(0.01)", "AdagradOptimizer(0.1)"), style="native")
    assert result.status == "changed"
    assert any(d.code == "TFM622" and "rsqrt" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("forward, words", [
    (FORWARD + 'more = tf.compat.v1.feature_column.input_layer(features, params["feature_columns"])\n'
               'logits = logits + tf.compat.v1.layers.dense(more, 1)\n', "a second input_layer call"),
    ('with tf.compat.v1.variable_scope("inputs"):\n'
     '    net = tf.compat.v1.feature_column.input_layer(features, params["feature_columns"])\n'
     'logits = tf.compat.v1.layers.dense(net, 1)\n', "inside a variable_scope"),
    (FORWARD.replace('params["feature_columns"])', 'params["feature_columns"], trainable=False)'),
     "input_layer(trainable=...) other than True"),
])
def test_input_layer_whose_variables_tf1_named_otherwise_blocks(forward, words):
    result = blocked(program(forward=forward, extra=COLUMNS, estimator=ESTIMATOR), style="native")
    assert any(words in d.message and d.code == "TFM811" for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_input_layer_over_a_weighted_column_blocks_naming_it():
    columns = COLUMNS.replace('tf.feature_column.indicator_column(tag)',
                              'tf.feature_column.indicator_column(tf.feature_column.weighted_categorical_column(tag, "w"))')
    result = blocked(program(forward=FORWARD, extra=columns, estimator=ESTIMATOR), style="native")
    assert any("weighted_categorical_column" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_input_layer_over_an_embedding_under_a_strategy_is_not_converted_natively():
    """Sparse gradients across replicas are verified for canned estimators only: natively it blocks (auto tries the
    model-mapping shim, as before issue 27)."""
    run_config = ('config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", '
                  'train_distribute=tf.distribute.MirroredStrategy())')
    result = blocked(program(forward=FORWARD, extra=COLUMNS, estimator=ESTIMATOR, run_config=run_config),
                     style="native")
    assert any("embedding column 'shop_embedding' under a distribution strategy" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]
