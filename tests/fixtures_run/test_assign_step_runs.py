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
