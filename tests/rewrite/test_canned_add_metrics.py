"""tf.estimator.add_metrics over a canned estimator (rules/planners/canned/_added_metrics.py; fixtures/canned_add_metrics):
the metric_fn's tf.metrics on the head's prediction keys become Keras metrics after the head's, on both targets."""
from __future__ import annotations

import re
import textwrap

import pytest

from tests.rewrite._helpers import blocked, converted, rewrite

HEADER = '''\
import tensorflow as tf


def read_dataset(n, mode):
    def _input_fn():
        features = {"a": [[0.5], [1.5]] * n}
        dataset = tf.compat.v1.data.Dataset.from_tensor_slices((features, [0, 1] * n))
        if mode == tf.estimator.ModeKeys.TRAIN:
            dataset = dataset.repeat()
        return tf.compat.v1.data.make_one_shot_iterator(dataset.batch(2)).get_next()
    return _input_fn
'''


def program(metric_fn: str, estimator: str = "tf.estimator.DNNRegressor([4], columns)",
            wrap: str = "est = tf.contrib.estimator.add_metrics(est, extra)") -> str:
    body = f'''
    {textwrap.indent(textwrap.dedent(metric_fn).strip(), "    ").lstrip()}


    def main():
        columns = [tf.feature_column.numeric_column("a")]
        est = {estimator}
        {wrap}
        train_spec = tf.estimator.TrainSpec(read_dataset(4, tf.estimator.ModeKeys.TRAIN), max_steps=5)
        eval_spec = tf.estimator.EvalSpec(read_dataset(2, tf.estimator.ModeKeys.EVAL), steps=None)
        tf.estimator.train_and_evaluate(est, train_spec, eval_spec)


    main()
    '''
    return HEADER + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


RMSE = '''
def extra(labels, predictions):
    pred_values = predictions["predictions"]
    return {"rmse": tf.compat.v1.metrics.root_mean_squared_error(labels, pred_values)}
'''


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def errors(src: str) -> list[str]:
    return [d.message for d in blocked(src).diagnostics if d.severity == "error"]


@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_regressor_rmse_after_the_head_metrics(target):
    out = flat(converted(program(RMSE), target=target))
    head = 'HeadMetric(keras.metrics.Mean(name="prediction/mean"), "regression", "prediction"),'
    assert f'{head} keras.metrics.RootMeanSquaredError(name="rmse")' in out
    # the wrapper and the metric_fn go; the reader closure is the input_fn, its one-shot iterator the dataset
    assert "add_metrics" not in out and "def extra" not in out and "make_one_shot_iterator" not in out
    if target == "keras":
        assert 'RootMeanSquaredError(name="rmse"), GlobalStep(' in out


def test_regressor_v1_class_and_tf_estimator_spelling():
    out = flat(converted(program(RMSE, estimator="tf.compat.v1.estimator.DNNRegressor([4], columns)",
                                 wrap="est = tf.estimator.add_metrics(est, extra)")))
    assert 'keras.metrics.RootMeanSquaredError(name="rmse")' in out


BINARY = '''
def extra(labels, predictions):
    """Three metrics on the binary head's keys."""
    return {
        "acc": tf.compat.v1.metrics.accuracy(labels, predictions["class_ids"]),
        "roc": tf.compat.v1.metrics.auc(labels, predictions["logistic"]),
        "mae_logits": tf.compat.v1.metrics.mean_absolute_error(labels, predictions["logits"]),
    }
'''


def test_binary_classifier_keys():
    out = flat(converted(program(BINARY, estimator="tf.estimator.DNNClassifier([4], columns)")))
    # class_ids = argmax([0, logit]) = logit > 0; logistic = sigmoid(logit): the metric reads the logits
    assert ('keras.metrics.BinaryAccuracy(threshold=0.0, name="acc"), keras.metrics.AUC(from_logits=True, '
            'name="roc"), keras.metrics.MeanAbsoluteError(name="mae_logits")') in out


def test_multi_class_class_ids():
    fn = '''
    def extra(labels, predictions):
        return {"acc2": tf.compat.v1.metrics.accuracy(labels, predictions["class_ids"])}
    '''
    out = flat(converted(program(fn, estimator="tf.estimator.DNNClassifier([4], columns, n_classes=3)")))
    assert 'keras.metrics.SparseCategoricalAccuracy(name="acc2")' in out


@pytest.mark.parametrize("fn, estimator, message", [
    ('''
    def extra(labels, predictions):
        return {"p": tf.compat.v1.metrics.mean_absolute_error(labels, predictions["probabilities"])}
    ''', "tf.estimator.DNNClassifier([4], columns, n_classes=3)", "reads predictions['probabilities']: not converted"),
    ('''
    def extra(labels, predictions):
        return {"average_loss": tf.compat.v1.metrics.mean_absolute_error(labels, predictions["predictions"])}
    ''', "tf.estimator.DNNRegressor([4], columns)", "replaces the head's own"),
    ('''
    def extra(labels, predictions, features):
        return {"m": tf.compat.v1.metrics.mean_absolute_error(features["a"], predictions["predictions"])}
    ''', "tf.estimator.DNNRegressor([4], columns)", "reads `features`"),
    ('''
    def extra(labels, predictions):
        return {"m": tf.compat.v1.metrics.mean(predictions["predictions"])}
    ''', "tf.estimator.DNNRegressor([4], columns)", "metric 'm' is not converted yet (a tf.metrics call other than"),
    (RMSE, 'tf.estimator.DNNRegressor([4], columns, weight_column="a")', "reads example weights"),
])
def test_blocked_with_the_reason(fn, estimator, message):
    found = errors(program(fn, estimator=estimator))
    assert any(message in m for m in found), found


def test_keras_estimator_still_blocked():
    src = program(RMSE, estimator="tf.keras.estimator.model_to_estimator(keras_model=tf.keras.Sequential())")
    assert any("add_metrics(`est`, ...) over a Keras Estimator is not converted yet" in m for m in errors(src))


WRAPPER = '''
def wrap_keys(inner):
    settings = inner.config

    def outer_model_fn(features, labels, mode):
        spec = inner._call_model_fn(features, labels, mode, config=settings)
        return spec
    return tf.estimator.Estimator(model_fn=outer_model_fn, config=inner.config)
'''


def test_a_model_fn_over_the_private_call_model_fn_blocks_at_it():
    src = program(RMSE + "\n\n" + WRAPPER, wrap="est = wrap_keys(tf.contrib.estimator.add_metrics(est, extra))")
    found = errors(src)
    assert any("model_fn `outer_model_fn` calls `inner._call_model_fn(...)`, TF's private Estimator method" in m
               for m in found), found
    assert any("`inner.config` reads another Estimator's RunConfig (its `config` property)" in m for m in found), found


SERVING = '''
def serving_input_fn():
    inputs = {"a": tf.compat.v1.placeholder(tf.float32, [None]), "id": tf.compat.v1.placeholder(tf.string, [None])}
    return tf.estimator.export.ServingInputReceiver({k: tf.expand_dims(v, -1) for k, v in inputs.items()}, inputs)
'''
KEY = 'KEY = "id"\n'


def forwarding(wrap="est = tf.contrib.estimator.forward_features(est, KEY)", drive_tail=""):
    src = program(KEY + "\n\n" + SERVING + "\n\n" + RMSE, estimator='tf.estimator.DNNRegressor([4], columns, "/tmp/m")',
                  wrap="est = tf.contrib.estimator.add_metrics(est, extra)\n        " + wrap)
    return src.replace("steps=None)", 'steps=None,\n        exporters=tf.estimator.LatestExporter("e", serving_input_fn))'
                       + drive_tail)


def test_forward_features_adds_the_keys_to_the_predict_signature():
    result = rewrite(forwarding())
    out = converted(forwarding())
    assert "contrib.estimator.forward_features" not in out and "add_metrics" not in out
    assert ('if method == "predict":  # forward_features: a PredictOutput signature also returns these features\n'
            "                    outputs = {**outputs, **{name: features[name] for name in ('id',)}}") in out
    assert any("as TF 1.15's forward_features added them to PredictOutput signatures" in d.message
               for d in result.diagnostics)


def test_export_without_forwarding_is_unchanged():
    out = converted(forwarding(wrap=""))
    assert "features[name]" not in out
    assert "outputs = self.export_outputs(self(to_features(*tensors), training=False))[key]" in out


@pytest.mark.parametrize("wrap, message", [
    ("est = tf.contrib.estimator.forward_features(est)", "without keys (every feature) is not converted yet"),
    ("est = tf.contrib.estimator.forward_features(est, 'predictions')", "is a key of the head's predictions"),
    ("est = tf.contrib.estimator.forward_features(est, KEY, {'id': ''})", "sparse_default_values is not converted"),
    ("other = tf.contrib.estimator.forward_features(est, KEY)", "the Estimator without the features"),
])
def test_forward_features_blocked(wrap, message):
    found = errors(forwarding(wrap=wrap))
    assert any(message in m for m in found), found


def test_predict_on_a_forwarding_estimator_blocks():
    src = forwarding().replace("    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)\n",
                               "    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)\n"
                               "    print(list(est.predict(read_dataset(1, tf.estimator.ModeKeys.PREDICT))))\n")
    assert any("predict() on an Estimator given tf.contrib.estimator.forward_features" in m for m in errors(src))
