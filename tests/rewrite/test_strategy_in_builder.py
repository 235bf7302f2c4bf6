"""A RunConfig built in one function and handed to the builder of the Estimator: its train_distribute is converted
where the Estimator is built, so every name the strategy expression reads must mean the same there (a local of
main() did not: the migrated builder raised NameError)."""
from __future__ import annotations

import textwrap

from _helpers import blocked, codes, converted, unbound_names

PROGRAM = '''
import argparse
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": [[1.0]] * 8}, [[1]] * 8)).batch(4).repeat()


def build_estimator(model_dir, config):
    cols = [tf.feature_column.numeric_column("a")]
    return tf.estimator.LinearClassifier(feature_columns=cols, model_dir=model_dir, config=config)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--multi_worker", action="store_true")
    args = p.parse_args()
    {flag}
    config = tf.estimator.RunConfig(
        train_distribute=tf.distribute.experimental.MultiWorkerMirroredStrategy() if {test} else None)
    est = build_estimator("/tmp/m", config)
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=10),
                                    tf.estimator.EvalSpec(input_fn, steps=2))
'''


def test_a_strategy_reading_a_local_of_the_caller_blocks_at_its_line():
    src = textwrap.dedent(PROGRAM.replace("{flag}", "multi_worker = args.multi_worker").replace("{test}", "multi_worker"))
    result = blocked(src)
    assert codes(result) == {"TFM701"}
    [d] = [d for d in result.diagnostics if d.code == "TFM701"]
    assert "tf.distribute.experimental.MultiWorkerMirroredStrategy() if multi_worker" in src.splitlines()[d.line - 1]
    assert "uses `multi_worker`" in d.message and "where the Estimator is built (line 12)" in d.message


def test_a_strategy_reading_only_module_names_still_converts():
    src = textwrap.dedent(PROGRAM.replace("{flag}", "pass").replace("{test}", "MULTI_WORKER")).replace(
        "import tensorflow as tf\n", "import tensorflow as tf\n\nMULTI_WORKER = False\n", 1)
    out = converted(src)
    assert "MULTI_WORKER" in out
    assert unbound_names(out) == set()
