"""`tfmigrate checkpoint convert` without TensorFlow: finding the Estimator's checkpoint, the --out rule, the text
table, the CLI's parsing and errors, and the boot script's TF1 naming (weights, slots, shards) on stand-in objects.
The conversion itself: tests/fixtures_run/test_checkpoint_convert.py (tfenv)."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.runtime import checkpoint

_spec = importlib.util.spec_from_file_location("checkpoint_boot", checkpoint.CHECKPOINT_BOOT)
boot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(boot)  # the boot imports TensorFlow only when it runs


def _model_dir(tmp_path, state: str, prefixes=("model.ckpt-7",)):
    d = tmp_path / "md"
    d.mkdir()
    (d / "checkpoint").write_text(state)
    for p in prefixes:
        (d / f"{p}.index").write_bytes(b"")
    return d


def test_latest_checkpoint_reads_the_state_file_relative_or_absolute(tmp_path):
    d = _model_dir(tmp_path, 'model_checkpoint_path: "model.ckpt-7"\nall_model_checkpoint_paths: "model.ckpt-0"\n')
    assert checkpoint.latest_checkpoint(d) == d / "model.ckpt-7"
    (d / "checkpoint").write_text(f'model_checkpoint_path: "{d}/model.ckpt-7"\n')
    assert checkpoint.latest_checkpoint(d) == d / "model.ckpt-7"


@pytest.mark.parametrize("state, needle", [
    (None, "holds no `checkpoint` file"),
    ('all_model_checkpoint_paths: "model.ckpt-7"\n', "names no model_checkpoint_path"),
    ('model_checkpoint_path: "model.ckpt-9"\n', "not a checkpoint (no "),
])
def test_latest_checkpoint_errors_say_what_is_missing(tmp_path, state, needle):
    d = tmp_path / "md"
    d.mkdir()
    (d / "model.ckpt-7.index").write_bytes(b"")
    if state is not None:
        (d / "checkpoint").write_text(state)
    with pytest.raises(checkpoint.ConvertError, match=needle.replace("(", r"\(")):
        checkpoint.latest_checkpoint(d)
    with pytest.raises(checkpoint.ConvertError, match="no such directory"):
        checkpoint.latest_checkpoint(tmp_path / "nowhere")


def test_out_must_be_new_or_empty(tmp_path):
    checkpoint.check_out(tmp_path / "new")
    (tmp_path / "empty").mkdir()
    checkpoint.check_out(tmp_path / "empty")
    (tmp_path / "empty" / "checkpoint").write_text("")
    with pytest.raises(checkpoint.ConvertError, match="not an empty directory"):
        checkpoint.check_out(tmp_path / "empty")


def _doc(**over):
    doc = {"checkpoint": "/m/model.ckpt-30", "out": "/o", "model": "Model", "optimizer": "Adagrad", "step": 30,
           "mapped": [{"tf1": "dense/kernel", "tf2": "model/dense/kernel", "shape": [2, 8], "exact": True},
                      {"tf1": "item_embeddings", "tf2": "item_embeddings", "shape": [50, 8], "exact": True,
                       "shards": 3},
                      {"tf1": "global_step", "tf2": "optimizer.iterations", "shape": [], "exact": True}],
           "missing": [], "shape_mismatch": [], "extra": [], "written": "/o/ckpt-30"}
    doc.update(over)
    return doc


def test_table_lists_every_mapping_aligned_and_the_written_checkpoint():
    lines = checkpoint.table(_doc()).splitlines()
    assert lines[0] == "TF1 checkpoint: /m/model.ckpt-30 (global_step 30)"
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("TF1 name"))
    rows = lines[header + 1:header + 4]
    assert rows[0].split() == ["dense/kernel", "model/dense/kernel", "[2,", "8]"]
    assert "item_embeddings (3 shards)" in rows[1] and rows[2].split()[:2] == ["global_step", "optimizer.iterations"]
    column = lines[header].index("TF2 variable")  # the TF2 names start in one column
    assert all(row[column:].startswith(row.split()[1]) and row[column - 2:column] == "  " for row in rows)
    assert lines[-1].startswith("wrote /o/ckpt-30: run the migrated program with its model_dir set to /o")
    assert "missing" not in "\n".join(lines) and "extra" not in "\n".join(lines)


def test_table_lists_each_kind_of_mismatch_and_says_nothing_was_written():
    text = checkpoint.table(_doc(
        written=None,
        missing=[{"tf1": "dense/kernel/Adam", "tf2": "optimizer._momentums[0]", "shape": [2, 8]}],
        shape_mismatch=[{"tf1": "dense/bias", "tf2": "model/dense/bias", "shape": [8], "saved_shape": [16]}],
        extra=[{"tf1": "dense/kernel/Adagrad", "saved_shape": [2, 8]}]))
    assert "missing from the checkpoint (the migrated model has them):\n  dense/kernel/Adam  " \
           "(optimizer._momentums[0], [2, 8])" in text
    assert "shape mismatch:\n  dense/bias: [16] in the checkpoint, [8] for model/dense/bias" in text
    assert "extra in the checkpoint (no variable of the migrated model takes them):\n  dense/kernel/Adagrad  [2, 8]" in text
    assert text.rstrip().endswith("nothing written: the migrated model and the checkpoint differ (nothing is guessed)")


def test_cli_help_and_errors_before_any_environment_is_needed(tmp_path):
    runner = CliRunner()
    top = runner.invoke(app, ["--help"], env={"COLUMNS": "160"})
    assert "checkpoint" in top.output
    helped = runner.invoke(app, ["checkpoint", "convert", "--help"], env={"COLUMNS": "160"})
    assert helped.exit_code == 0
    for flag in ("--program", "--out", "--checkpoint", "--output-format", "MODEL_DIR"):
        assert flag in helped.output
    program = tmp_path / "migrated.py"
    program.write_text("")
    usage = runner.invoke(app, ["checkpoint", "convert", str(tmp_path), "--out", str(tmp_path / "o")])
    assert usage.exit_code == 2 and "--program" in usage.output  # a required option
    bad = runner.invoke(app, ["checkpoint", "convert", str(tmp_path), "--program", str(program), "--out",
                              str(tmp_path / "o"), "--output-format", "sarif"])
    assert bad.exit_code == 2 and "choose text or json" in bad.output
    missing = runner.invoke(app, ["checkpoint", "convert", str(tmp_path / "nowhere"), "--program", str(program),
                                  "--out", str(tmp_path / "o"), "--output-format", "json"])
    assert missing.exit_code == 2
    assert json.loads(missing.output) == {"error": f"{tmp_path / 'nowhere'}: no such directory (give the "
                                                   "Estimator's model_dir)", "exit": 2}
    noprog = runner.invoke(app, ["checkpoint", "convert", str(tmp_path), "--program", str(tmp_path / "x.py"),
                                 "--out", str(tmp_path / "o")])
    assert noprog.exit_code == 2 and "no such program file" in noprog.output
    assert not (tmp_path / "o").exists()


class _Var:
    def __init__(self, name=None, path=None, shape=(2,)):
        self.name, self.shape = name, shape
        if path is not None:
            self.path = path
        self.value = None

    def assign(self, value):
        self.value = value

    def numpy(self):
        return self.value


class ShardedVariable:  # the boot recognises tf's ShardedVariable by its class name
    def __init__(self, rows):
        self.variables = [_Var(shape=(r, 2)) for r in rows]
        self.shape = (sum(rows), 2)


class _Model:
    name = "model"


def test_tf1_names_of_keras3_and_tf_keras_weights():
    assert boot.tf1_name(_Model(), _Var(path="model/dense_1/kernel")) == "dense_1/kernel"
    assert boot.tf1_name(_Model(), _Var(name="model/dense/bias:0")) == "dense/bias"
    assert boot.tf1_name(_Model(), _Var(name="item_embeddings:0")) == "item_embeddings"  # Model.add_weight
    assert boot.tf1_name(_Model(), _Var(path="model_1/dense/kernel")) == "model_1/dense/kernel"  # not this model's


def _optimizer(cls_name, **attrs):
    return type(cls_name, (), attrs)()


@pytest.mark.parametrize("cls_name, attrs, slots", [
    ("Adagrad", {}, [("_accumulators", "Adagrad")]),
    ("Adam", {}, [("_momentums", "Adam"), ("_velocities", "Adam_1")]),
    ("Ftrl", {}, [("_accumulators", "Ftrl"), ("_linears", "Ftrl_1")]),
    ("Adadelta", {}, [("_accumulated_grads", "Adadelta"), ("_accumulated_delta_vars", "Adadelta_1")]),
    ("RMSprop", {"centered": True, "momentum": 0.5},
     [("_velocities", "RMSProp"), ("_average_gradients", "RMSProp_1"), ("_momentums", "RMSProp_2")]),
    ("RMSprop", {"centered": False, "momentum": 0.5}, [("_velocities", "RMSProp"), ("_momentums", "RMSProp_1")]),
    ("SGD", {"momentum": 0.0}, []),
])
def test_builtin_slot_table_matches_tf1_slot_names(cls_name, attrs, slots):
    assert [(a, s) for a, s, _ in boot.builtin_slots(_optimizer(cls_name, **attrs))] == slots


def test_keras_momentum_slot_is_tf1s_accumulator_scaled_by_minus_the_rate_and_unknown_optimizers_refuse():
    (attribute, slot, convert), = boot.builtin_slots(_optimizer("SGD", momentum=0.9, learning_rate=0.5))
    assert (attribute, slot) == ("momentums", "Momentum")
    assert convert(np.array([2.0], np.float32)).tolist() == [-1.0]
    tf1 = type("TF1Momentum", (type("SGD", (), {}),), {"momentum": 0.9})()
    assert boot.builtin_slots(tf1)[0][2] is None  # TF1's accumulator as it is
    with pytest.raises(ValueError, match="slot names of Lion are not known"):
        boot.builtin_slots(_optimizer("Lion"))


def test_a_full_tf1_tensor_fills_sharded_variables_slice_by_slice_along_axis_0():
    value = np.arange(20.0).reshape(10, 2)
    sharded = ShardedVariable([4, 3, 3])
    assert boot._assign(sharded, value) == 3
    assert [v.value.tolist() for v in sharded.variables] == [value[:4].tolist(), value[4:7].tolist(),
                                                            value[7:].tolist()]
    assert np.array_equal(boot._value(sharded), value)
    plain = _Var(shape=(10, 2))
    assert boot._assign(plain, value) == 1 and plain.value is value
