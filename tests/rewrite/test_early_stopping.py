"""TFM611 early-stopping hooks (rules/planners/hooks.py, driver/_hooks.py): tf.estimator.experimental.stop_if_*_hook on
training → the generated EstimatorEarlyStopping reading the eval_dir summaries the migrated evaluate writes
(EvalSummaries); every shape that cannot be exact blocks with its reason at the hook's position."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program

HOOK = "tf.estimator.experimental.stop_if_no_decrease_hook(est, \"loss\", 50{extra})"


def rounds(hook: str = HOOK.format(extra=""), train_extra: str = "") -> str:
    return f"""
    for _ in range(3):
        hook = {hook}
        est.train(train_input_fn, hooks=[hook], steps=20{train_extra})
        est.evaluate(eval_input_fn)
    """


def flat(text: str) -> str:
    return " ".join(text.split())


def messages(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def test_a_hook_built_in_each_round_becomes_the_callback_and_evaluate_writes_the_summaries():
    out = flat(converted(program(drive=rounds())))
    assert ('hook = EstimatorEarlyStopping( "loss", tf.io.gfile.join("/tmp/tfm-test", "eval"), '
            'higher_is_better=False, max_steps_without_improvement=50, )') in out
    assert 'callbacks=[EvalSummaries(tf.io.gfile.join("/tmp/tfm-test", "eval"))]' in out
    assert "class EstimatorEarlyStopping(keras.callbacks.Callback)" in out
    # each round resumes from model_dir, then trains its 20 steps
    assert out.count("est.restore_model_dir(") == 1 and "steps_per_epoch=20" in out


@pytest.mark.parametrize("maker, higher, key", [
    ("stop_if_higher_hook", True, "threshold"), ("stop_if_lower_hook", False, "threshold"),
    ("stop_if_no_increase_hook", True, "max_steps_without_improvement"),
])
def test_each_maker_keeps_its_direction_and_cadence(maker, higher, key):
    hook = f'tf.estimator.experimental.{maker}(est, "acc", 0.9, min_steps=5, run_every_secs=None, run_every_steps=4)'
    out = converted(program(drive=rounds(hook)))
    assert f'higher_is_better={higher}' in out and f"{key}=0.9" in out
    assert "min_steps=5" in out and "run_every_steps=4" in out and "run_every_secs=None" in out


def test_the_estimators_own_eval_dir_is_the_default():
    out = converted(program(drive=rounds(HOOK.format(extra=", eval_dir=est.eval_dir()"))))
    assert "eval_dir()" not in out


@pytest.mark.parametrize("hook, why, text", [
    (HOOK.format(extra=", run_every_steps=5"), "default run_every_secs=60: TF 2.15 raised ValueError", "5"),
    (HOOK.format(extra=', eval_dir="/tmp/other"'), "other than the Estimator's own eval_dir()", '"/tmp/other"'),
])
def test_what_cannot_be_exact_blocks_at_the_hook(hook, why, text):
    src = program(drive=rounds(hook))
    result = blocked(src)
    found = [d for d in result.diagnostics if d.code == "TFM611"]
    assert found and why in found[0].message, messages(result)
    line = next(i for i, l in enumerate(src.splitlines(), 1) if text in l)
    assert found[0].line == line


def test_one_hook_for_every_round_blocks():
    src = program(drive=f"""
    hook = {HOOK.format(extra="")}
    for _ in range(3):
        est.train(train_input_fn, hooks=[hook], steps=20)
        est.evaluate(eval_input_fn)
    """)
    result = blocked(src)
    assert any("one hook object serves several trainings" in m for m in messages(result)), messages(result)


def test_train_and_evaluate_that_evaluates_during_training_blocks():
    src = program(drive=f"""
    spec = tf.estimator.TrainSpec(train_input_fn, max_steps=100, hooks=[{HOOK.format(extra="")}])
    tf.estimator.train_and_evaluate(est, spec, tf.estimator.EvalSpec(eval_input_fn))
    """)
    result = blocked(src)
    assert any("train_and_evaluate evaluated during training" in m and "no save_checkpoints_steps" in m
               for m in messages(result)), messages(result)


def test_train_and_evaluate_whose_only_evaluation_is_the_final_one_converts():
    src = program(run_config='config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", save_checkpoints_steps=100)',
                  drive=f"""
    spec = tf.estimator.TrainSpec(train_input_fn, max_steps=100, hooks=[{HOOK.format(extra="")}])
    tf.estimator.train_and_evaluate(est, spec, tf.estimator.EvalSpec(eval_input_fn))
    """)
    out = converted(src)
    assert "EstimatorEarlyStopping(" in out and "EvalSummaries(" in out


def test_custom_loop_target_blocks():
    result = blocked(program(drive=rounds()), target="ctl")
    assert any("use --target keras" in m for m in messages(result)), messages(result)
