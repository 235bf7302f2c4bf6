"""Issue #12 on the TF environments: helpers.py builds the Estimator, main.py (no TensorFlow import, or an unused
one) trains and evaluates it. The original runs on TF 2.15 + Estimator; the migrated pair on TF 2.21 (Keras 3)
trains the same 20 steps and evaluates. Marked `tfenv`."""
from __future__ import annotations

import ast

import pytest

from tests.fixtures_run._runs import run_program
from tests.rewrite.test_driver_without_tf import _helper_program, _run


def _eval(stdout: str) -> dict:
    """The dict main.py prints: evaluate()'s result."""
    line = [ln for ln in stdout.splitlines() if ln.startswith("{") and "loss" in ln][-1]
    return ast.literal_eval(line.replace("np.float32(", "(").replace("np.int64(", "("))


@pytest.mark.tfenv
@pytest.mark.parametrize("header", ["import helpers", "import helpers\nimport tensorflow as tf"],
                         ids=["no-tf-import", "unused-tf-import"])
def test_migrated_driver_pair_runs_on_tf221(tmp_path, header):
    original = tmp_path / "original"
    _helper_program(original, header, model_dir=str(tmp_path / "model_original"))
    migrated = tmp_path / "migrated"
    _helper_program(migrated, header, model_dir=str(tmp_path / "model_migrated"))
    results = _run(migrated)
    assert {name: r.status for name, r in results.items()} == {"helpers.py": "changed", "main.py": "changed"}
    for name, r in results.items():
        (migrated / name).write_bytes(r.output)

    before = run_program("legacy", ["main.py"], original)
    assert before.returncode == 0, before.stderr[-3000:]
    after = run_program("target", ["main.py"], migrated)
    assert after.returncode == 0, after.stderr[-3000:]
    legacy, target = _eval(before.stdout), _eval(after.stdout)
    assert int(legacy["global_step"]) == int(target["global_step"]) == 20  # trained the same steps, then evaluated
    print("eval loss legacy", legacy["loss"], "target", target["loss"])
