"""`est.train(...)` under a multi-worker train_distribute (TFM701): TF 2.15's Estimator.train raised under the
TF_CONFIG cluster such a strategy is for, so the call is blocked, not converted into a multi-worker run."""
from __future__ import annotations

import pytest

from _helpers import blocked, codes, converted, program

TRAIN = "est.train(train_input_fn, max_steps=10)"


def config(strategy: str) -> str:
    return f'config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", train_distribute={strategy})'


@pytest.mark.parametrize("strategy", [
    "tf.distribute.experimental.MultiWorkerMirroredStrategy()",
    "tf.distribute.MultiWorkerMirroredStrategy()",
    "tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy()",
    "tf.compat.v1.distribute.experimental.ParameterServerStrategy()",
])
def test_train_under_multi_worker_strategy_is_blocked_with_the_tf1_error(strategy):
    src = program(run_config=config(strategy), drive=TRAIN)
    result = blocked(src)
    assert codes(result) == {"TFM701"}
    [diagnostic] = result.diagnostics
    lines = src.splitlines()
    assert lines[diagnostic.line - 1].strip() == TRAIN  # file:line points at the train call
    assert "Only `STANDALONE_CLIENT` mode is supported when you call `estimator.train`" in diagnostic.message
    assert "use tf.estimator.train_and_evaluate" in diagnostic.message.lower()


def test_strategy_chosen_at_run_time_still_blocks_when_one_branch_is_multi_worker():
    strategy = ('tf.distribute.experimental.MultiWorkerMirroredStrategy() if "TF_CONFIG" in os.environ '
                'else None')
    src = program(header="import os\nimport tensorflow as tf", run_config=config(strategy), drive=TRAIN)
    assert codes(blocked(src)) == {"TFM701"}


def test_train_under_multi_worker_strategy_through_a_variable_is_blocked():
    run_config = ("strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()\n"
                  + config("strategy"))
    assert codes(blocked(program(run_config=run_config, drive=TRAIN))) == {"TFM701"}


@pytest.mark.parametrize("strategy", ["tf.distribute.MirroredStrategy()", "None"])
def test_single_worker_train_keeps_converting(strategy):
    out = converted(program(run_config=config(strategy), drive=TRAIN))
    assert "est.train(" not in out and ".fit(" in out


def test_train_and_evaluate_under_multi_worker_strategy_keeps_converting():
    out = converted(program(run_config=config("tf.distribute.experimental.MultiWorkerMirroredStrategy()")))
    assert "tf.distribute.MultiWorkerMirroredStrategy()" in out
