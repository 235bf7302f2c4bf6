"""TFM611 make_early_stopping_hook (driver/_predicate_stop.py): tf.estimator.experimental.make_early_stopping_hook(
est, should_stop_fn, ...) on training → the generated EstimatorStopOnPredicate calling the program's predicate on the
hook's timer; every shape TF1 rejected or that cannot be exact blocks with its reason at the hook's position."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, rewrite

MAKE = "tf.estimator.experimental.make_early_stopping_hook"
PREDICATE = '''
def past_budget():
    return time.time() - START > 20.0
'''
HEADER = "import time\n\nimport tensorflow as tf\n\nSTART = time.time()"


def rounds(hook: str, train_extra: str = "") -> str:
    return f"""
    for _ in range(3):
        hook = {hook}
        est.train(train_input_fn, hooks=[hook], steps=20{train_extra})
        est.evaluate(eval_input_fn)
    """


def flat(text: str) -> str:
    return " ".join(text.split())


def errors(result) -> list:
    return [d for d in result.diagnostics if d.severity == "error"]


def test_a_step_cadence_calls_the_programs_predicate_from_the_callback():
    out = flat(converted(program(header=HEADER, extra=PREDICATE, drive=rounds(
        f"{MAKE}(est, past_budget, run_every_secs=None, run_every_steps=10)"))))
    assert "hook = EstimatorStopOnPredicate(past_budget, run_every_steps=10, run_every_secs=None)" in out
    assert "class EstimatorStopOnPredicate(keras.callbacks.Callback)" in out
    assert "def past_budget():" in out  # the predicate stays the program's own
    # it reads no evaluation: evaluate writes no summaries for it, and the metric hooks' class is not generated
    assert "EvalSummaries" not in out and "EstimatorEarlyStopping" not in out


def test_the_guides_shape_time_cadence_in_train_and_evaluate_converts_with_a_note():
    # the migration guide's early_stopping notebook: a wall-time budget checked every second, train_and_evaluate
    src = program(header=HEADER, extra=PREDICATE, drive=f"""
    hook = {MAKE}(estimator=est, should_stop_fn=past_budget, run_every_secs=1, run_every_steps=None)
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=50, hooks=[hook])
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2)
    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    """)
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = flat(result.output.decode())
    assert "hook = EstimatorStopOnPredicate(past_budget, run_every_secs=1)" in out
    notes = [d for d in result.diagnostics if d.code == "TFM611"]
    assert notes and "seconds of wall time" in notes[0].message
    assert notes[0].line == next(i for i, l in enumerate(src.splitlines(), 1) if MAKE in l)


def test_inline_in_the_hooks_list_and_a_lambda():
    out = flat(converted(program(drive=f"""
    est.train(train_input_fn, hooks=[{MAKE}(est, lambda: False, run_every_secs=None, run_every_steps=5)], steps=20)
    """)))
    assert "EstimatorStopOnPredicate(lambda: False, run_every_steps=5, run_every_secs=None)" in out


@pytest.mark.parametrize("hook, why, text", [
    (f"{MAKE}(est, past_budget, run_every_steps=5)", "default run_every_secs=60: TF 2.15 raised ValueError",
     "run_every_steps=5"),
    (f"{MAKE}(est, past_budget, run_every_secs=2, run_every_steps=5)", "both set", "run_every_steps=5"),
    (f"{MAKE}(est, past_budget, run_every_secs=None)", "timer raised ValueError", "run_every_secs=None"),
    (f"{MAKE}(other, past_budget)", "is not the Estimator it is attached to", "hook = "),
])
def test_what_tf1_rejected_or_cannot_be_exact_blocks_at_the_hook(hook, why, text):
    drive = '\n    other = tf.estimator.Estimator(model_fn=model_fn, params={"lr": 0.2})' + rounds(hook)
    src = program(header=HEADER, extra=PREDICATE, drive=drive)
    result = blocked(src)
    found = [d for d in errors(result) if d.code == "TFM611"]
    assert found and why in found[0].message, [d.message for d in errors(result)]
    assert found[0].line == next(i for i, l in enumerate(src.splitlines(), 1) if text in l)


def test_one_hook_object_for_every_round_blocks():
    src = program(header=HEADER, extra=PREDICATE, drive=f"""
    hook = {MAKE}(est, past_budget)
    for _ in range(3):
        est.train(train_input_fn, hooks=[hook], steps=20)
    """)
    assert any("one hook object serves several trainings" in d.message for d in errors(blocked(src)))


def test_on_evaluation_blocks():
    src = program(header=HEADER, extra=PREDICATE, drive=f"""
    est.train(train_input_fn, steps=20)
    est.evaluate(eval_input_fn, hooks=[{MAKE}(est, past_budget)])
    """)
    assert any("TF1 stopped an evaluation with it" in d.message for d in errors(blocked(src)))


def test_custom_loop_target_blocks():
    src = program(header=HEADER, extra=PREDICATE, drive=rounds(f"{MAKE}(est, past_budget)"))
    assert any("use --target keras" in d.message for d in errors(blocked(src, target="ctl")))
