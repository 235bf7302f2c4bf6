"""An EstimatorSpec with an argument it does not take (`EstimatorSpec(labels=labels, predictions=...)`, TF's
multi-worker Estimator tutorial) raised a TypeError only when its return ran: in the PREDICT branch, only a
predict() or an export runs it. A program doing neither converts (with a note, the model has no predictions); one
that predicts is blocked, naming the predict() call."""
from __future__ import annotations

from _helpers import blocked, converted, program, rewrite

BROKEN_PREDICT = '''
def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(labels=labels, predictions={"y": logits})
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def test_a_broken_predict_return_never_run_converts_with_a_note():
    src = program(BROKEN_PREDICT)
    text = converted(src)
    assert "EstimatorSpec" not in text and "def predictions" not in text
    notes = [d for d in rewrite(src).diagnostics if d.severity == "note" and "has no argument 'labels'" in d.message]
    assert notes and "never does (it neither predicts nor exports)" in notes[0].message
    assert notes[0].line == _line(src, "EstimatorSpec(labels=labels")


def test_a_broken_predict_return_that_predict_runs_is_blocked_naming_the_call():
    src = program(BROKEN_PREDICT, drive="est.train(train_input_fn, max_steps=10)\n"
                                        "print(list(est.predict(eval_input_fn)))")
    result = blocked(src)
    [error] = [d for d in result.diagnostics if d.severity == "error"]
    assert error.line == _line(src, "EstimatorSpec(labels=labels") and "TF1 raised a TypeError when this return ran" in error.message
    assert f"which the predict() at snippet.py:{_line(src, 'est.predict(')} runs" in error.message


def test_a_broken_return_in_training_stays_blocked():
    body = BROKEN_PREDICT.replace("EstimatorSpec(mode, loss=loss, train_op=train_op)",
                                  "EstimatorSpec(mode, loss=loss, train_op=train_op, label=labels)")
    result = blocked(program(body))
    assert any("has no argument 'label': TF1 raised a TypeError" in d.message for d in result.diagnostics)
