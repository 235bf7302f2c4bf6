"""assign_step / assign_step_checkpoint (a model_fn that trains by assignment, rules/planners/assign_step.py): what
the programs print from get_variable_names / get_variable_value (the Scaffold checkpoint's object keys, read back
after training) is the same on both sides, from scratch and warm-started (warm_start_from: the trainable variable by
its TF1 name) from the Estimator's TF1 checkpoint, and from a checkpoint the migrated assign_step wrote. verify
compares the losses, predictions and evaluate(); this checks the printed variable values it does not read.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from _runs import run_program

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _lines(result, *starts: str) -> list[str]:
    assert result.returncode == 0, result.stderr[-3000:]
    return [line for line in result.stdout.splitlines() if line.startswith(starts)]


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_variables_read_back_alike_from_scratch_and_warm_started(tmp_path):
    sums = FIXTURES / "assign_step"
    tf1_dir, tf2_dir = tmp_path / "sums-tf1", tmp_path / "sums-tf2"
    first = {side: _lines(run_program(env, [program, "--steps", "20", "--model_dir", model_dir], tmp_path), "sums:")
             for side, env, program, model_dir in (("original", "legacy", sums / "original.py", tf1_dir),
                                                   ("migrated", "target", sums / "migrated.py", tf2_dir))}
    assert first["original"] == first["migrated"] and first["original"], first
    case = FIXTURES / "assign_step_checkpoint"
    printed = {}
    for name, env, program, warm in (("scratch-tf1", "legacy", "original.py", None),
                                     ("scratch-tf2", "target", "migrated.py", None),
                                     ("warm-tf1", "legacy", "original.py", tf1_dir),
                                     ("warm-tf2", "target", "migrated.py", tf1_dir),
                                     ("warm-tf2-own", "target", "migrated.py", tf2_dir)):
        argv = [case / program, "--steps", "12", "--model_dir", tmp_path / name]
        printed[name] = _lines(run_program(env, argv + (["--warm_start_from", warm] if warm else []), tmp_path),
                               "keys:", "final eval:")
    assert printed["scratch-tf1"] == printed["scratch-tf2"] and len(printed["scratch-tf1"]) == 2, printed
    assert printed["warm-tf1"] == printed["warm-tf2"] == printed["warm-tf2-own"], printed
    assert printed["warm-tf1"] != printed["scratch-tf1"]  # the warm start took effect


_SERVE = '''\
import glob, sys
import tensorflow as tf
for base in sys.argv[1:]:
    loaded = tf.saved_model.load(sorted(glob.glob(base + "/[0-9]*"))[-1])
    serve = loaded.signatures["serving_default"]
    print("signature:", sorted(loaded.signatures), serve.structured_input_signature[1]["x"].shape.as_list(),
          sorted(serve.structured_outputs), serve(x=tf.constant([0.5, 1.5]))["mean"].numpy().tolist())
'''


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_exports_serve_alike(tmp_path):
    # build_raw_serving_input_receiver_fn + PredictOutput: the same signatures, input shape and served values
    sums = FIXTURES / "assign_step"
    for env, program, name in (("legacy", sums / "original.py", "tf1"), ("target", sums / "migrated.py", "tf2")):
        result = run_program(env, [program, "--steps", "10", "--model_dir", tmp_path / f"md-{name}",
                                   "--export_dir", tmp_path / f"export-{name}"], tmp_path)
        assert _lines(result, "exported: True")
    script = tmp_path / "serve.py"
    script.write_text(_SERVE)
    served = _lines(run_program("target", [script, tmp_path / "export-tf1", tmp_path / "export-tf2"], tmp_path),
                    "signature:")
    assert len(served) == 2 and served[0] == served[1], served
