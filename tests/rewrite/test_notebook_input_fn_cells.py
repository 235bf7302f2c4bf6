"""A notebook that redefines its input_fn in a later cell (TF's premade-Estimator tutorial: `def input_fn(features,
labels, training)` for train, then `def input_fn(features)` for predict): a lambda written in the train() call ran
within that call, so it read the definition reaching it; one assigned to a name is called there as before."""
from __future__ import annotations

from _helpers import converted

CELLS = '''
import numpy as np
import tensorflow as tf


def input_fn(features, labels, training=True, batch_size=4):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    if training:
        dataset = dataset.repeat()
    return dataset.batch(batch_size)


train = {"a": np.array([1.0, 2.0]), "b": np.array([0.5, 0.1])}
train_y = np.array([0, 1])
columns = [tf.feature_column.numeric_column(key=k) for k in ["a", "b"]]
classifier = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[4], n_classes=2)
TRAIN


def input_fn(features, batch_size=4):
    return tf.data.Dataset.from_tensor_slices(dict(features)).batch(batch_size)


predictions = list(classifier.predict(input_fn=lambda: input_fn(train)))
'''


def test_an_inline_lambda_reads_the_input_fn_reaching_its_call():
    text = converted(CELLS.replace("TRAIN", "classifier.train(input_fn=lambda: input_fn(train, train_y, "
                                            "training=True), steps=10)"))
    fit = text.index("classifier.fit(")
    first, second = text.index("def input_fn(features, labels"), text.index("def input_fn(features, batch_size")
    assert first < fit < second and "input_fn(train, train_y, training=True)" in text[fit:second]
    assert "classifier.predict_examples(input_fn(train))" in text[second:]


def test_a_lambda_assigned_before_is_still_called_where_train_ran():
    src = CELLS.replace("TRAIN", "train_fn = lambda: input_fn(train, train_y, training=True)\n"
                                 "classifier.train(input_fn=train_fn, steps=10)")
    assert "classifier.fit(train_fn(), " in converted(src)
