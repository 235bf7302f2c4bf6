"""fixtures/export_parsing exports twice (its FinalExporter at the end of train_and_evaluate, then export_saved_model),
run with tensorflow's INFO lines shown and a tensorflow line logged after the program returns: every line must be
printed once, as TF 2.15 printed it. TF 2.21's SavedModel writer logs through absl, whose first log call gave a root
logger without handlers one (logging.basicConfig), so without the generated write_saved_model's guard every tensorflow
line from the first export on was printed twice, by the "tensorflow" logger's handler and the root's (measured: the
line after the exports, and "Assets written to" of each export, twice; rules/planners/hooks.py "Logged once").

Marked `tfenv` (it runs TensorFlow); run it alone.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from _runs import migrate_case, run_program

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "export_parsing"
STEPS = 20
AFTER = "INFO:tensorflow:logged after the exports"
# the program as __main__ with tensorflow's INFO lines shown, then one more tensorflow line
WRAPPER = """import runpy, sys
import tensorflow as tf
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
tf.compat.v1.logging.info("logged after the exports")
"""


def tensorflow_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(("INFO:tensorflow:", "WARNING:tensorflow:"))]


def doubled(lines: list[str]) -> list[str]:
    """Lines printed twice in a row: one log record through two handlers."""
    return [a for a, b in zip(lines, lines[1:]) if a == b]


@pytest.mark.tfenv
@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_lines_after_an_export_are_printed_once(tmp_path, target):
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(WRAPPER)
    migrated = CASE / "migrated.py" if target == "keras" else migrate_case(CASE, tmp_path, target)
    lines = {}
    for side, env, program in (("original", "legacy", CASE / "original.py"), ("migrated", "target", migrated)):
        out = run_program(env, [str(wrapper), str(program), "--steps", str(STEPS),
                                "--model_dir", str(tmp_path / side / "model"),
                                "--export_dir", str(tmp_path / side / "export")], tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        assert out.stdout.count("exported:") == 1 and "exporter wrote: ['" in out.stdout, out.stdout
        lines[side] = tensorflow_lines(out.stderr)
    assert lines["original"].count(AFTER) == 1 and not doubled(lines["original"])  # TF 2.15 (measured)
    assert lines["migrated"].count(AFTER) == 1, lines["migrated"]
    assert not doubled(lines["migrated"]), doubled(lines["migrated"])
    # both exports ran, each logged its line once
    assert sum(line.startswith("INFO:tensorflow:Assets written to: ") for line in lines["migrated"]) == 2
