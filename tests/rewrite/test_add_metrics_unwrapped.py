"""TFM601 tf.estimator.add_metrics: evaluate() of the Estimator itself, beside the add_metrics one (the migration
guide's metrics_optimizers notebook): the migrated model computes the metric_fn's metrics everywhere, and that
evaluate's result drops their keys, as the Estimator without them returned none (driver/_add_metrics.py)."""
from __future__ import annotations

import re

from _helpers import blocked, converted, program

SPEC = ('return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics, '
        'predictions={"out": logits})')
OWN = 'metrics = {"rmse": tf.compat.v1.metrics.root_mean_squared_error(labels, logits)}'
METRIC_FN = '''\
def more_metrics(labels, predictions):
    return {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, predictions["out"])}
'''
TRAIN = "est.train(train_input_fn, steps=10)\n"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def source(drive: str, metric_fn: str = METRIC_FN) -> str:
    return program(middle=OWN, spec=SPEC, extra=metric_fn, drive=drive)


def test_evaluate_before_add_metrics_drops_the_added_keys():
    out = flat(converted(source(TRAIN + "print(est.evaluate(eval_input_fn))\n"
                                "est = tf.estimator.add_metrics(est, more_metrics)\n"
                                "print(est.evaluate(eval_input_fn))\n")))
    assert ('print({k: v for k, v in est.evaluate(eval_input_fn(), steps=None, return_dict=True).items() '
            'if k not in ("mae",)})') in out
    assert "print(est.evaluate(eval_input_fn(), steps=None, return_dict=True))" in out


def test_the_estimator_beside_a_new_name_drops_them_too():
    out = flat(converted(source(TRAIN + "scored = tf.estimator.add_metrics(est, more_metrics)\n"
                                "a = est.evaluate(eval_input_fn)\nb = scored.evaluate(eval_input_fn)\n")))
    assert 'a = {k: v for k, v in est.evaluate(' in out and 'if k not in ("mae",)}' in out
    assert "scored = est" in out and "b = scored.evaluate(eval_input_fn(), steps=None, return_dict=True)" in out


def test_a_key_of_the_model_fn_too_blocks():
    # the metric_fn's "rmse" replaces the model_fn's: the plain evaluate reported the model_fn's, now not computed
    metric_fn = METRIC_FN.replace('"mae"', '"rmse"')
    src = source(TRAIN + "a = est.evaluate(eval_input_fn)\nest = tf.estimator.add_metrics(est, more_metrics)\n"
                 "b = est.evaluate(eval_input_fn)\n", metric_fn)
    found = [d for d in blocked(src).diagnostics if d.severity == "error"]
    line = next(i for i, s in enumerate(src.splitlines(), 1) if "a = est.evaluate" in s)
    assert any(d.line == line and "key 'rmse' is also the model_fn's" in d.message for d in found), \
        [d.format() for d in found]


def test_a_key_written_elsewhere_in_the_program_blocks_too():
    # eval_metric_ops built by a helper may hold the same key: any other string spelling it is not told apart
    helper = METRIC_FN + '\n\ndef own_metrics(labels, logits):\n    return {"mae": tf.compat.v1.metrics.mean(logits)}\n'
    src = source(TRAIN + "a = est.evaluate(eval_input_fn)\nest = tf.estimator.add_metrics(est, more_metrics)\n", helper)
    found = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert any("key 'mae' is also the model_fn's" in d.message for d in found), [d.format() for d in found]
