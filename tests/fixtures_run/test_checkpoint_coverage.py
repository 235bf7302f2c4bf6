"""tf.train.Checkpoint follows attributes, not the lists Keras 3 keeps layers in: a migrated model whose layers are
built in a loop (or given as a list) must still put every weight in the checkpoints its program writes and resumes
from (EstimatorCheckpoints, the custom loop's CheckpointManager, `tfmigrate checkpoint convert`). Before the
generated classes named their list layers, mode_branches' checkpoint held 2 of its 6 weights and a resumed run
silently started its hidden layers afresh."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from _runs import run_program

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

SCRIPT = """
import json, runpy, sys
import tensorflow as tf
g = runpy.run_path(sys.argv[1], run_name="not_main")
model = g["build_model"](json.loads(sys.argv[2]))
features, _ = next(iter(g["train_input_fn"]()))
model(features)
path = tf.train.Checkpoint(model=model).save(sys.argv[3])
print(json.dumps({"weights": len(model.weights), "saved": len([n for n, _ in tf.train.list_variables(path)
                  if n.startswith("model/") and "optimizer" not in n])}))
"""


@pytest.mark.tfenv
def test_every_weight_of_a_model_with_layers_in_a_list_is_in_its_checkpoint(tmp_path):
    script = tmp_path / "coverage.py"
    script.write_text(SCRIPT)
    program = FIXTURES / "mode_branches" / "migrated.py"
    assert "self.dense_layers = []" in program.read_text()  # the layers are built in a loop, held in a list
    params = {"hidden_units": [10, 10], "n_classes": 3, "learning_rate": 0.1}
    run = run_program("target", [str(script), str(program), json.dumps(params), str(tmp_path / "ck")], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    assert counts["weights"] == 6 and counts["saved"] == counts["weights"], counts


CANNED = """
import json, runpy, sys
import tensorflow as tf
g = runpy.run_path(sys.argv[1], run_name="not_main")
counts = {}
for builder in ("build_dnn_classifier2", "build_dnn_linear_combined_classifier2"):
    with tf.distribute.get_strategy().scope():
        model = g[builder]({})
    sample = next(iter(g["heldout"]()))
    model(sample[0] if isinstance(sample, tuple) else sample, training=False)
    path = tf.train.Checkpoint(model=model).save(sys.argv[2] + "/" + builder)
    counts[builder] = [len(model.weights), len([n for n, _ in tf.train.list_variables(path)
                                               if n.startswith("model/") and "optimizer" not in n])]
print(json.dumps(counts))
"""


@pytest.mark.tfenv
def test_every_weight_of_a_canned_model_is_in_its_checkpoint(tmp_path):
    """Hidden layers (a list), embedding columns (a dict) and the linear model's per-column weights (a list)."""
    script = tmp_path / "canned.py"
    script.write_text(CANNED)
    program = FIXTURES / "canned_model_dir" / "migrated.py"
    run = run_program("target", [str(script), str(program), str(tmp_path / "ck")], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    assert counts == {"build_dnn_classifier2": [7, 7], "build_dnn_linear_combined_classifier2": [9, 9]}, counts
