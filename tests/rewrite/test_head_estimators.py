"""Estimators over a head (tf.estimator.DNNEstimator / LinearEstimator / DNNLinearCombinedEstimator with a
BinaryClassHead, MultiClassHead or RegressionHead): converted as the canned classifier / regressor that builds the same
head (rules/planners/canned/_head_estimator.py), so the migrated code must be that class's, names aside; what no
canned class builds blocks at the argument that needs it."""
from __future__ import annotations

import re
import textwrap

import pytest

from _helpers import blocked, converted

HEADER = '''\
import tensorflow as tf

COLORS = ["red", "green", "blue"]


def input_fn():
    features = {"x": [[1.0, 2.0]] * 8, "w": [1.0, 2.0] * 4}
    return tf.data.Dataset.from_tensor_slices((features, [[1.0]] * 8)).batch(4).repeat()
'''


def program(body: str) -> str:
    return HEADER + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


def _as_canned(text: str, estimator: str, canned: str) -> str:
    """The head estimator's migrated text with its generated names spelled as the canned class's."""
    snake = lambda name: re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace("DNN", "Dnn")).lower()  # noqa: E731
    return text.replace(estimator, canned).replace(snake(estimator), snake(canned))


SAME = [  # (head estimator program, the canned program TF 2.15 trains the same way)
    ('''
     def main():
         head = tf.estimator.MultiClassHead(n_classes=3, weight_column="w", label_vocabulary=COLORS)
         columns = [tf.feature_column.numeric_column("x", shape=(2,))]
         est = tf.estimator.DNNEstimator(head=head, hidden_units=[8, 4], feature_columns=columns)
         est.train(input_fn, max_steps=5)
         print(est.evaluate(input_fn, steps=2))


     main()
     ''', '''
     def main():
         columns = [tf.feature_column.numeric_column("x", shape=(2,))]
         est = tf.estimator.DNNClassifier(hidden_units=[8, 4], feature_columns=columns, n_classes=3, weight_column="w",
                                          label_vocabulary=COLORS)
         est.train(input_fn, max_steps=5)
         print(est.evaluate(input_fn, steps=2))


     main()
     ''', "DNNEstimator", "DNNClassifier"),
    ('''
     def make_head():
         return tf.estimator.RegressionHead(2, loss_reduction=tf.losses.Reduction.SUM)


     columns = [tf.feature_column.numeric_column("x", shape=(2,))]
     est = tf.estimator.LinearEstimator(make_head(), columns, optimizer="SGD")
     est.train(input_fn, max_steps=5)
     ''', '''
     columns = [tf.feature_column.numeric_column("x", shape=(2,))]
     est = tf.estimator.LinearRegressor(columns, label_dimension=2, optimizer="SGD",
                                        loss_reduction=tf.losses.Reduction.SUM)
     est.train(input_fn, max_steps=5)
     ''', "LinearEstimator", "LinearRegressor"),
    ('''
     columns = [tf.feature_column.numeric_column("x", shape=(2,))]
     est = tf.estimator.DNNLinearCombinedEstimator(
         tf.estimator.BinaryClassHead(weight_column="w"), linear_feature_columns=columns,
         dnn_feature_columns=columns, dnn_hidden_units=[4])
     est.train(input_fn, max_steps=5)
     ''', '''
     columns = [tf.feature_column.numeric_column("x", shape=(2,))]
     est = tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=columns, dnn_feature_columns=columns,
                                                    dnn_hidden_units=[4], weight_column="w")
     est.train(input_fn, max_steps=5)
     ''', "DNNLinearCombinedEstimator", "DNNLinearCombinedClassifier"),
]


@pytest.mark.parametrize("head_src, canned_src, estimator, canned", SAME, ids=[s[2] for s in SAME])
def test_a_head_estimator_converts_as_the_canned_class_that_builds_its_head(head_src, canned_src, estimator, canned):
    text = converted(program(head_src))
    assert "Head(" not in text and f"tf.estimator.{estimator}(" not in text  # the head's statement went with it
    # (a helper def that went away leaves its blank lines: the texts are compared with runs of them collapsed)
    collapse = lambda t: re.sub(r"\n{4,}", "\n\n\n", t)  # noqa: E731
    assert collapse(_as_canned(text, estimator, canned)) == collapse(converted(program(canned_src)))


UNMAPPED = [
    ("tf.estimator.MultiClassHead(3, loss_fn=my_loss)", "loss_fn", "a custom loss"),
    ("tf.estimator.MultiClassHead(3, name='colors')", "name", "metric keys"),
    ("tf.estimator.BinaryClassHead(thresholds=[0.3])", "thresholds", "at those thresholds"),
    ("tf.estimator.RegressionHead(inverse_link_fn=tf.math.exp)", "inverse_link_fn", "predictions"),
]


@pytest.mark.parametrize("head, key, why", UNMAPPED, ids=[u[1] for u in UNMAPPED])
def test_a_head_argument_no_canned_class_sets_blocks_at_that_argument(head, key, why):
    src = program(f'''
    def my_loss(labels, logits):
        return tf.reduce_mean(tf.square(logits))


    columns = [tf.feature_column.numeric_column("x", shape=(2,))]
    est = tf.estimator.DNNEstimator(
        head={head},
        hidden_units=[4], feature_columns=columns)
    est.train(input_fn, max_steps=5)
    ''')
    result = blocked(src)
    found = [d for d in result.diagnostics if f"({key}=...)" in d.message]
    assert found, [d.message for d in result.diagnostics]
    assert found[0].code == "TFM620" and found[0].line == 17 and why in found[0].message
    assert "tf.estimator.DNNEstimator is not converted" in found[0].message \
        or "in tf.estimator.DNNEstimator is not converted" in found[0].message
    assert "drop the argument or write a model_fn" in found[0].message


OTHER = [
    ("tf.estimator.MultiLabelHead(n_classes=3)", "several labels per example"),
    ("tf.estimator.MultiHead([tf.estimator.BinaryClassHead(name='a'), tf.estimator.RegressionHead(name='b')])",
     "several heads"),
    ("tf.estimator.MultiClassHead(n_classes=2)", "n_classes must be > 2"),
    ("HEADS['main']", "tfmigrate converts a head estimator only over"),
]


@pytest.mark.parametrize("head, why", OTHER, ids=["multi_label", "multi_head", "two_classes", "unread"])
def test_a_head_no_canned_class_builds_blocks_where_it_is_given(head, why):
    src = program(f'''
    HEADS = {{"main": tf.estimator.BinaryClassHead()}}
    columns = [tf.feature_column.numeric_column("x", shape=(2,))]
    est = tf.estimator.LinearEstimator(
        head={head},
        feature_columns=columns)
    est.train(input_fn, max_steps=5)
    ''')
    result = blocked(src)
    found = [d for d in result.diagnostics if why in d.message]
    assert found and found[0].code == "TFM620" and found[0].line == 14, [d.message for d in result.diagnostics]
    assert not any("outside the migrated files" in d.message or "is used but" in d.message
                   for d in result.diagnostics), [d.message for d in result.diagnostics]


def test_a_v1_head_estimator_blocks_naming_the_v1_canned_classes():
    src = program('''
    columns = [tf.feature_column.numeric_column("x", shape=(2,))]
    est = tf.compat.v1.estimator.DNNEstimator(
        head=tf.estimator.MultiClassHead(3), hidden_units=[4], feature_columns=columns)
    est.train(input_fn, max_steps=5)
    ''')
    result = blocked(src)
    found = [d for d in result.diagnostics if "v1 model_fn" in d.message]
    assert found and found[0].code == "TFM620" and found[0].line == 12, [d.message for d in result.diagnostics]
    assert "tf.compat.v1.estimator.DNNClassifier" in found[0].message and "use tf.estimator.DNNEstimator (v2)" in found[0].message


@pytest.mark.parametrize("head", ["tf.estimator.MultiClassHead(3)", "tf.compat.v1.estimator.MultiClassHead(n_classes=3)"])
def test_a_head_passed_through_a_builders_parameter_converts(head):
    text = converted(program(f'''
    def build(head, model_dir):
        columns = [tf.feature_column.numeric_column("x", shape=(2,))]
        return tf.estimator.DNNEstimator(head=head, hidden_units=[4], feature_columns=columns, model_dir=model_dir)


    def main():
        head = {head}
        est = build(head, "/tmp/head_param")
        est.train(input_fn, max_steps=5)


    main()
    '''))
    assert "Head(" not in text and 'keras.layers.Dense(3, name="logits")' in text
