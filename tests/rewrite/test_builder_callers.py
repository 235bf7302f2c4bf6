"""A builder of the Estimator called from several places (a notebook's training cell, then its prediction cell):
the same module-level values from every caller are known; a new Estimator object over a model_dir restores it before
predicting; different values from different callers stay blocked, naming the callers."""
from __future__ import annotations

import textwrap

from _helpers import INPUT_FNS, blocked, converted

MODEL_FN = '''
def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": logits})
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''

BUILDER = '''
def create_estimator(run_config, hparams):
    return tf.estimator.Estimator(model_fn=model_fn, params=hparams, config=run_config)
'''


def _program(cells: str) -> str:
    return "import tensorflow as tf\n\n\n" + INPUT_FNS + "\n\n" + MODEL_FN + BUILDER + "\n" + \
        textwrap.dedent(cells)


TWO_CELLS = '''
run_config = tf.estimator.RunConfig(model_dir="/tmp/tfm-two", tf_random_seed=7)
hparams = {"lr": 0.1}

estimator = create_estimator(run_config, hparams)
estimator.train(input_fn=train_input_fn, max_steps=10)

estimator = create_estimator(run_config, hparams)
predictions = list(estimator.predict(input_fn=eval_input_fn))
'''


def test_same_values_from_two_callers_convert_and_the_new_estimator_restores():
    text = converted(_program(TWO_CELLS))
    assert "def create_estimator(hparams):" in text
    train, predict = text.split("estimator = create_estimator(hparams)")[1:]
    assert "restore_model_dir" in train and ".fit(" in train
    # the second Estimator is a new object: it read the checkpoint the first wrote, the new model must too
    assert 'estimator.restore_checkpoint("/tmp/tfm-two", ' in predict
    assert predict.index("restore_checkpoint") < predict.index("predict_examples")


def test_the_same_object_trained_before_does_not_restore_again():
    cells = TWO_CELLS.replace('estimator = create_estimator(run_config, hparams)\npredictions',
                              'predictions')
    text = converted(_program(cells))
    assert "restore_checkpoint(" not in text.split("def create_estimator")[1]


def test_different_values_from_two_callers_stay_blocked():
    cells = TWO_CELLS.replace('estimator = create_estimator(run_config, hparams)\npredictions',
                              'other = tf.estimator.RunConfig(model_dir="/tmp/tfm-other")\n'
                              'estimator = create_estimator(other, hparams)\npredictions')
    result = blocked(_program(cells))
    messages = [d.format() for d in result.diagnostics if d.severity == "error"]
    assert any("`run_config` is a parameter of `create_estimator`, which is called from 2 places" in m
               and "snippet.py:" in m for m in messages), messages


def test_a_value_rebound_between_the_callers_stays_blocked():
    cells = TWO_CELLS.replace('estimator = create_estimator(run_config, hparams)\npredictions',
                              'run_config = tf.estimator.RunConfig(model_dir="/tmp/tfm-other")\n'
                              'estimator = create_estimator(run_config, hparams)\npredictions')
    result = blocked(_program(cells))
    assert any("called from 2 places" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_a_value_built_in_a_loop_stays_blocked():
    cells = '''
for seed in (1, 2):
    run_config = tf.estimator.RunConfig(model_dir="/tmp/tfm-loop", tf_random_seed=seed)
    estimator = create_estimator(run_config, {"lr": 0.1})
    estimator.train(input_fn=train_input_fn, max_steps=10)
estimator = create_estimator(run_config, {"lr": 0.1})
'''
    blocked(_program(cells))


def test_a_config_not_read_is_not_said_to_have_no_model_dir():
    # the tutorials' shape: the first caller hands on its own parameter (an experiment_fn learn_runner calls), so
    # what `run_config` holds is not known, and nothing is claimed about its model_dir at the later predict()
    cells = '''
def experiment_fn(run_config, hparams):
    return create_estimator(run_config, hparams)


run_config = tf.estimator.RunConfig(model_dir="/tmp/tfm-two", tf_random_seed=7)
hparams = {"lr": 0.1}
estimator = create_estimator(run_config, hparams)
predictions = list(estimator.predict(input_fn=eval_input_fn))
'''
    result = blocked(_program(cells))
    messages = [d.message for d in result.diagnostics if d.severity == "error"]
    assert any("`run_config` is a parameter of `create_estimator`, which is called from 2 places" in m
               for m in messages), messages
    assert not any("has no model_dir" in m for m in messages), messages
