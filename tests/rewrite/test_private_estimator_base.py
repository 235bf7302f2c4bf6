"""Issue #28: an Estimator subclass whose base is spelled by TF's private module (`from tensorflow.python.estimator
import estimator as estimator_lib`; `class TPUEstimator(estimator_lib.Estimator)`, a vendored copy of TF's
TPUEstimator in the repository), built in another file of the run. It is the Estimator that construction builds: no
false "nothing in the migrated files builds" / "built outside the migrated files"; the subclass's own blocker is
named at its line, and a subclass that only passes its model_fn on converts as the public spelling does."""
from __future__ import annotations

import textwrap
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

BASE = '''
    from tensorflow.python.estimator import estimator as estimator_lib


    class PodEstimator(estimator_lib.Estimator):
        def __init__(self, model_fn, model_dir=None, config=None, params=None):
            super().__init__(model_fn=model_fn, model_dir=model_dir, config=config, params=params)
    '''

OVERRIDE = '''

        def _call_input_fn(self, input_fn, mode, input_context=None):
            return input_fn()
    '''

TRAIN = '''
    import tensorflow as tf

    import pod_estimator


    def otter_model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 2)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def otter_input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 0.5]] * 8}, [0, 1] * 4)).batch(4).repeat()


    def main():
        config = tf.estimator.RunConfig(model_dir="/tmp/otters", tf_random_seed=5)
        estimator = pod_estimator.PodEstimator(model_fn=otter_model_fn, config=config)
        estimator.train(input_fn=otter_input_fn, max_steps=6)
        return estimator.evaluate(input_fn=otter_input_fn, steps=2)


    if __name__ == "__main__":
        main()
    '''


def _run(tmp_path: Path, base: str) -> dict:
    (tmp_path / "pod_estimator.py").write_text(textwrap.dedent(base))
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN))
    return {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}


def test_a_vendored_subclass_is_blocked_by_its_own_override_at_its_line(tmp_path):
    results = _run(tmp_path, BASE + OVERRIDE)
    assert results["train.py"].status == "blocked" and results["pod_estimator.py"].status == "blocked"
    messages = [d.message for r in results.values() for d in r.diagnostics if d.code == "TFM601"]
    finding = next(d for d in results["pod_estimator.py"].diagnostics if d.code == "TFM601")
    assert finding.line == 10
    assert finding.message.startswith("Estimator subclass PodEstimator defines `_call_input_fn`")
    assert not [m for m in messages if "nothing in the migrated files builds" in m or "built outside" in m], messages


def test_a_subclass_by_the_private_spelling_that_passes_its_model_fn_on_converts(tmp_path):
    results = _run(tmp_path, BASE)
    assert results["train.py"].status == "changed", [d.message for r in results.values() for d in r.diagnostics]
    out = results["train.py"].output.decode()
    assert "def build_otter_model(" in out and ".fit(" in out
