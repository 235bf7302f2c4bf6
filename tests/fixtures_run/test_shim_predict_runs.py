"""An Estimator's model_dir read by the migrated shim model (TFM502, rules/planners/shim.py): the original trains
on TF 2.15 into a model_dir; the Estimator's predict() there and the migrated model (TF 2.21, tf_keras), restored
from the same directory by TF1 name, give the same predictions on the evaluation data. A weight the shim model did
not restore (a name the scope mapping missed: batch norm's moving averages, an embedding's weights) keeps its fresh
initialisation and breaks the comparison.

Each program runs its own main() with train() and evaluate() replaced by this test's probes (train: nothing, the
model_dir is trained already; evaluate: the predictions, saved), so no program is edited for the test.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from _runs import run_program

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
STEPS = 60

# the program's main() with the Estimator's train() skipped and evaluate() swapped for predict() over its input
LEGACY_PROBE = '''
import importlib.util, sys
import numpy as np
import tensorflow as tf

spec = importlib.util.spec_from_file_location("program", sys.argv[1])
program = importlib.util.module_from_spec(spec)
spec.loader.exec_module(program)
path, model_dir, out, key = sys.argv[1:5]

def evaluate(self, input_fn, *args, **kwargs):
    np.save(out, np.stack([p[key] for p in self.predict(input_fn)]).astype(np.float64))
    return {}

tf.estimator.Estimator.train = lambda self, *a, **k: self
tf.estimator.Estimator.evaluate = evaluate
sys.argv = [path, "--steps", "%d", "--model_dir", model_dir]
program.main()
'''

# the migrated main() with the trainer's train() only building (which restores model_dir) and evaluate() the
# model's forward pass over the same input
TARGET_PROBE = '''
import importlib.util, sys
import numpy as np

spec = importlib.util.spec_from_file_location("program", sys.argv[1])
program = importlib.util.module_from_spec(spec)
spec.loader.exec_module(program)
tf = program.tf
path, model_dir, out, post = sys.argv[1:5]

def evaluate(self, dataset_fn, steps=None):
    outputs = [self.model(features, training=False) for features, _ in dataset_fn(tf.distribute.InputContext())]
    values = tf.concat(outputs, 0)
    np.save(out, (tf.sigmoid(values) if post == "sigmoid" else values).numpy().astype(np.float64))
    return {}

program.ModelTrainer.train = lambda self, dataset_fn, max_steps: self._build(dataset_fn)
program.ModelTrainer.evaluate = evaluate
sys.argv = [path, "--steps", "%d", "--model_dir", model_dir]
program.main()
'''


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("case, key, post", [
    ("shim_mode_branch", "y", ""),  # batch norm's moving averages, get_variable weights under a scope
    ("shim_batch_norm", "y", ""),
    ("shim_conv_net", "probability", "sigmoid"),  # a conv tower's variables under a scope built twice (reuse=True)
])
def test_the_shim_model_predicts_what_the_estimator_does_from_its_model_dir(tmp_path, case, key, post):
    original, migrated = FIXTURES / case / "original.py", FIXTURES / case / "migrated.py"
    model_dir = tmp_path / "model"
    trained = run_program("legacy", [original, "--steps", STEPS, "--model_dir", model_dir], tmp_path, timeout=300)
    assert trained.returncode == 0, trained.stderr[-3000:]
    probes = {}
    for side, env, probe, program, extra in (("original", "legacy", LEGACY_PROBE, original, key),
                                             ("migrated", "target", TARGET_PROBE, migrated, post or "none")):
        script = tmp_path / f"probe_{side}.py"
        script.write_text(textwrap.dedent(probe % STEPS))
        out = tmp_path / f"{side}.npy"
        run = run_program(env, [script, program, model_dir, out, extra], tmp_path, timeout=300)
        assert run.returncode == 0, run.stderr[-3000:]
        probes[side] = np.load(out).reshape(-1)
    a, b = probes["original"], probes["migrated"]
    assert a.shape == b.shape and a.size >= 64
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    # the restore took effect: a fresh model predicts otherwise
    assert not np.allclose(a, 0.0)
