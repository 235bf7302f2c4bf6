"""TFM601 an Estimator trained several times (in a loop, or call after call): each Estimator call went on from the
global step the last one reached. Keras target, model_fn Estimator with a model_dir: each fit restores model_dir
first and trains the steps left (train(steps=N): N more; max_steps=M: up to M); anything else blocks saying why."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program


def messages(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


LOOP = """
for _ in range(3):
    est.train(train_input_fn, {steps})
    est.evaluate(eval_input_fn)
"""


def test_train_steps_in_a_loop_resumes_each_round_and_trains_n_more():
    out = converted(program(drive=LOOP.format(steps="steps=20")))
    body = out[out.index("for _ in range(3):"):]
    assert "initial_step = est.restore_model_dir(" in body.split("est.fit(")[0]
    assert "steps_per_epoch=20" in body


def test_max_steps_in_a_loop_trains_up_to_the_absolute_step():
    out = converted(program(drive=LOOP.format(steps="max_steps=60")))
    body = out[out.index("for _ in range(3):"):]
    assert "if initial_step < 60:" in body and "steps_per_epoch=60 - initial_step" in body


def test_two_train_calls_each_resume():
    out = converted(program(drive="""
    est.train(train_input_fn, steps=10)
    est.train(train_input_fn, max_steps=30)
    """))
    assert out.count("est.restore_model_dir(") == 2


def test_the_resume_note_is_given():
    result_notes = [d.message for d in __import__("_helpers").rewrite(
        program(drive=LOOP.format(steps="steps=20"))).diagnostics if d.severity != "error"]
    assert any("trains more than once" in n for n in result_notes)


@pytest.mark.parametrize("extra", ["NOISE = tf.random.normal([1])", "def shuffled(ds):\n    return ds.shuffle(8)",
                                   "from tensorflow.keras.layers import Dropout\nDROP = Dropout(0.5)",
                                   "def pick(logits):\n    return tf.random.categorical(logits, 1)",
                                   "def noisy(x):\n    return tf.compat.v1.random_normal([1]) + x"])
def test_training_in_a_loop_with_random_draws_blocks(extra):
    # each TF1 train() rebuilt its graph with the same seeds: random ops repeated their draws every call, which the
    # eager migrated training cannot do (a silent change of the second round on)
    result = blocked(program(drive=LOOP.format(steps="steps=20"), extra=extra))
    assert any("trains more than once and the program draws random values" in m for m in messages(result)), \
        messages(result)


@pytest.mark.parametrize("options, run_config, why", [
    ({"target": "ctl"}, None, "on the Keras target"),
    ({}, 'config = tf.estimator.RunConfig(tf_random_seed=7)', "when the Estimator has a model_dir"),
])
def test_what_does_not_carry_the_step_over_blocks(options, run_config, why):
    kwargs = {"run_config": run_config} if run_config else {}
    result = blocked(program(drive=LOOP.format(steps="steps=20"), **kwargs), **options)
    assert any(m.startswith("training inside a loop") and why in m for m in messages(result)), messages(result)


def test_train_and_evaluate_twice_blocks():
    result = blocked(program(drive="""
    spec = tf.estimator.TrainSpec(train_input_fn, max_steps=10)
    tf.estimator.train_and_evaluate(est, spec, tf.estimator.EvalSpec(eval_input_fn))
    est.train(train_input_fn, steps=5)
    """))
    assert any("trains 2 times" in m and "for train() calls (not train_and_evaluate)" in m
               for m in messages(result)), messages(result)


@pytest.mark.parametrize("extra", ["def shuffled(ds):\n    return ds.shuffle(8, seed=3)",
                                   "import numpy as np\nNOISE = np.random.RandomState(0).normal(size=3)",
                                   "tf.random.set_seed(1)\nimport random\nrandom.shuffle([1, 2])",
                                   "COL = tf.feature_column.categorical_column_with_identity('k', 4)",
                                   "def fixed(seed):\n    return tf.random.stateless_normal([1], seed=seed)"])
def test_seeded_shuffles_and_numpy_draws_do_not_block_training_in_a_loop(extra):
    # a seeded shuffle makes a new dataset with the same op seed per input_fn call, in both programs; numpy's host
    # state goes on alike (same process, same calls)
    assert "for _ in range(3):" in converted(program(drive=LOOP.format(steps="steps=20"), extra=extra))
