"""TFM601/TFM401 tf.estimator.add_metrics(estimator, metric_fn): the metric_fn's metrics join the model_fn's
eval_metric_ops, converted like them (rules/planners/driver/_add_metrics.py, model_fn/_added_metrics.py;
fixtures/add_metrics)."""
from __future__ import annotations

import re

from _helpers import ESTIMATOR, TRAIN_AND_EVALUATE, blocked, converted, program

SPEC = ('return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics, '
        'predictions={"out": logits})')
OWN = 'metrics = {"rmse": tf.compat.v1.metrics.root_mean_squared_error(labels, logits)}'
METRIC_FN = '''\
def more_metrics(labels, predictions):
    out = predictions["out"]
    return {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, out)}
'''
WRAP = "est = tf.estimator.add_metrics(est, more_metrics)"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def source(metric_fn: str = METRIC_FN, wrap: str = WRAP, drive: str = TRAIN_AND_EVALUATE, spec: str = SPEC,
           middle: str = OWN, estimator: str = ESTIMATOR) -> str:
    return program(middle=middle, spec=spec, extra=metric_fn, estimator=f"{estimator}\n{wrap}", drive=drive)


def errors(src: str) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in blocked(src).diagnostics if d.severity == "error"]


def line_of(src: str, text: str) -> int:
    return next(i for i, s in enumerate(src.splitlines(), 1) if text in s)


def test_reassigned_estimator_evaluates_the_metric_fn_metrics_too():
    out = flat(converted(source()))
    assert 'keras.metrics.RootMeanSquaredError(name="rmse"), keras.metrics.MeanAbsoluteError(name="mae")' in out
    assert "add_metrics" not in out and "more_metrics" not in out


def test_a_new_name():
    src = source(wrap="scored = tf.compat.v1.estimator.add_metrics(est, more_metrics)",
                 drive=TRAIN_AND_EVALUATE.replace("train_and_evaluate(est,", "train_and_evaluate(scored,"))
    out = flat(converted(src))
    assert "scored = est" in out and 'MeanAbsoluteError(name="mae")' in out


def test_contrib_spelling():
    out = flat(converted(source(wrap="est = tf.contrib.estimator.add_metrics(est, more_metrics)")))
    assert 'MeanAbsoluteError(name="mae")' in out and "contrib" not in out


def test_inline_in_train_and_evaluate():
    src = source(wrap="", drive=TRAIN_AND_EVALUATE.replace(
        "train_and_evaluate(est,", "train_and_evaluate(tf.estimator.add_metrics(est, more_metrics),"))
    out = flat(converted(src))
    assert 'MeanAbsoluteError(name="mae")' in out and "add_metrics" not in out


def test_the_metric_fn_wins_a_shared_key_and_reads_a_tensor_prediction():
    metric_fn = '''\
def more_metrics(labels, predictions):
    return {"rmse": tf.compat.v1.metrics.mean_squared_error(labels, predictions)}
'''
    out = flat(converted(source(metric_fn, spec=SPEC.replace('{"out": logits}', "logits"))))
    assert 'keras.metrics.MeanSquaredError(name="rmse")' in out and "RootMeanSquaredError" not in out


def test_canned_estimator_blocks_at_a_key_its_head_lacks():
    # over a canned estimator the metric_fn reads the head's keys (tests/rewrite/test_canned_add_metrics.py)
    src = source(estimator='est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", (2,))], '
                           'config=config)')
    assert (line_of(src, 'predictions["out"]'), "add_metrics' metric_fn `more_metrics` over LinearRegressor reads "
            "predictions['out'], which the head does not return (TF1 failed there; its keys: 'predictions')") in errors(src)


def test_no_eval_predictions_blocks_at_the_metric_fn():
    src = source(spec=SPEC.replace(', predictions={"out": logits}', ""))
    assert (line_of(src, "def more_metrics"), "add_metrics' metric_fn `more_metrics` reads the predictions, and the "
            "model_fn's EVAL EstimatorSpec returns none; return them in EVAL mode too "
            "(EstimatorSpec(predictions=...))") in errors(src)


def test_a_missing_prediction_key_blocks():
    src = source(METRIC_FN.replace('["out"]', '["probabilities"]'))
    assert (line_of(src, 'predictions["probabilities"]'), "add_metrics' metric_fn reads "
            "predictions['probabilities'], which the model_fn's EVAL EstimatorSpec does not return (TF1 failed "
            "there)") in errors(src)


def test_config_blocks():
    src = source(METRIC_FN.replace("(labels, predictions)", "(labels, predictions, config)"))
    assert any(line == line_of(src, "def more_metrics") and "takes config: not converted yet" in m
               for line, m in errors(src))


def test_labels_cast_in_the_metric_fn_convert_as_tf1_computed():  # rules/planners/metric_expressions.py
    metric_fn = '''\
def more_metrics(labels, predictions):
    labels = tf.cast(labels, predictions.dtype)
    return {"mse": tf.compat.v1.metrics.mean_squared_error(labels=labels, predictions=predictions)}
'''
    src = source(metric_fn, spec=SPEC.replace('{"out": logits}', "logits"))
    assert ('TF1Mean(lambda labels, logits: TF1MetricValues.squared_error(tf.cast(labels, logits.dtype), logits), '
            'name="mse")') in flat(converted(src))


def test_evaluating_the_estimator_without_the_metrics_too_blocks():
    src = source(wrap="scored = tf.estimator.add_metrics(est, more_metrics)",
                 drive=TRAIN_AND_EVALUATE + "scored.evaluate(eval_input_fn)\n")
    assert (line_of(src, "train_and_evaluate(est,"), "train_and_evaluate() on `est`, the Estimator without the "
            "metrics tf.estimator.add_metrics adds to it elsewhere, is not converted: the migrated model evaluates "
            "them everywhere; evaluate the add_metrics Estimator only") in errors(src)


def test_a_metric_fn_not_a_module_def_blocks():
    src = source(wrap="est = tf.estimator.add_metrics(est, lambda labels, predictions: {})")
    assert any(line == line_of(src, "add_metrics(") and "is not converted: only a def at module level" in m
               for line, m in errors(src))


def test_returned_by_a_builder():
    src = program(middle=OWN, spec=SPEC, extra=METRIC_FN + '''

def build(config):
    est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1})
    return tf.estimator.add_metrics(est, more_metrics)
''', estimator="est = build(config)", drive=TRAIN_AND_EVALUATE)
    out = flat(converted(src))
    assert 'MeanAbsoluteError(name="mae")' in out and "add_metrics" not in out and "return est " in out


def test_custom_loop_target_evaluates_them_too():
    out = flat(converted(source(), target="ctl"))
    assert 'keras.metrics.RootMeanSquaredError(name="rmse"), keras.metrics.MeanAbsoluteError(name="mae")' in out
