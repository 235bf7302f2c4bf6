"""`--style auto|native|shim` (config key `style`): how a model_fn's forward pass converts (rules/planners/shim.py)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from _helpers import blocked, converted, program, rewrite
from test_shim import FC, LOOP_FORWARD, NO_MODEL_DIR

SHIMMED = program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR)  # the native interpreter refuses it
NATIVE = program(run_config=NO_MODEL_DIR)  # the native interpreter converts it


def _shim_notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "TFM502"]


def test_auto_is_native_where_it_converts_and_the_shim_elsewhere_with_one_note_each():
    assert "track_tf1_style_variables" not in converted(NATIVE, style="auto")
    assert not _shim_notes(rewrite(NATIVE, style="auto"))
    result = rewrite(SHIMMED, style="auto")
    assert "track_tf1_style_variables" in result.output.decode()
    [note] = _shim_notes(result)
    assert "the native conversion stopped at: fc() builds layers and is called inside an expression" in note


def test_native_keeps_the_native_blockers_and_says_the_shim_would_convert():
    result = blocked(SHIMMED, style="native")
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors and errors[0].code == "TFM501" and "called inside an expression" in errors[0].message
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert note.severity == "note" and "--style auto (the default) or --style shim" in note.message
    assert note.line == errors[0].line
    assert "track_tf1_style_variables" not in converted(NATIVE, style="native")


def test_shim_runs_a_forward_pass_the_native_interpreter_converts_under_the_shim():
    result = rewrite(NATIVE, style="shim")
    out = result.output.decode()
    assert "@tf.compat.v1.keras.utils.track_tf1_style_variables" in out and "import tf_keras as keras" in out
    assert "class ModelTrainer" in out  # the shim's target: the custom loop
    [note] = _shim_notes(result)
    assert note.endswith("TF1 variable names): --style shim")


def test_shim_blocks_what_the_shim_cannot_hold_with_its_reason():
    src = program(forward='logits = features["x"] * 2.0', run_config=NO_MODEL_DIR)
    result = blocked(src, style="shim")
    [error] = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "TFM502" and "no forward pass the shim could hold" in error.message


def test_style_flag_and_config_key(tmp_path):
    path = tmp_path / "p.py"
    path.write_text(NATIVE)
    run = lambda *a: subprocess.run([sys.executable, "-m", "tfmigrate", "rewrite", "--diff", "--no-cache", *a,  # noqa: E731
                                     str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert "track_tf1_style_variables" not in run().stdout
    assert "track_tf1_style_variables" in run("--style", "shim").stdout
    (tmp_path / "pyproject.toml").write_text('[tool.tfmigrate]\nstyle = "shim"\n')
    assert "track_tf1_style_variables" in run().stdout
    assert "track_tf1_style_variables" not in run("--style", "native").stdout  # the flag wins
    bad = run("--style", "keras")
    assert bad.returncode == 2 and "--style must be one of auto, native, shim, not 'keras'" in bad.stderr


@pytest.mark.parametrize("style, expected", [("native", "native"), ("shim", "shim"), ("auto", "native")])
def test_explain_shows_the_choice(tmp_path, style, expected):
    from tfmigrate.engine import Options, explain_paths

    path = tmp_path / "p.py"
    path.write_text(NATIVE)
    [plan] = [p for p in explain_paths([path], Options(style=style)) if "model_fn" in p]
    assert plan["forward_pass"]["style"] == expected
