"""`tfmigrate checkpoint convert`: an Estimator trains a few steps on TF 2.15; its model_dir is converted for the
migrated program; in the target env (TF 2.21) the written TF2 checkpoint is restored the way the migrated program
restores it (a fresh process) and every value is compared with the TF1 checkpoint's, by TF1 name, bit for bit.

- unpartitioned (regression_adagrad, keras target): weights, Adagrad slots, global_step; then the migrated program
  itself, run on the converted directory, trains only the remaining steps and its losses equal, bit for bit, those
  of the same program resuming straight from the Estimator's model_dir;
- partitioned (ps_embedding): the Estimator, single-process, still splits its table in 3 parts (graph mode honours
  partitioners; the .meta lists item_embeddings/part_i with save_slice_info) and saves it whole; the converted
  checkpoint (written single-process: full variables) restores into the ShardedVariables of a ParameterServerStrategy (an
  in-process cluster: chief, 1 worker, 2 ps) slice by slice; the migrated program run on it (one process) trains
  steps 6..25 as the Estimator does from its own model_dir (verify's comparison, step by step);
- a program whose model differs: the missing names are listed, exit 1, nothing written.

Marked `tfenv`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.runtime import capture, checkpoint, compare, envs

pytestmark = pytest.mark.tfenv

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# target env: the dump of the restored TF2 checkpoint (by TF1 name) against the TF1 checkpoint
_CHECK = r"""
import json, sys
import numpy as np
import tensorflow as tf
dump, prefix = np.load(sys.argv[1]), sys.argv[2]
reader = tf.train.load_checkpoint(prefix)
names = {k.replace("|", "/") for k in dump.files}
print(json.dumps({
    "saved": sorted(reader.get_variable_to_shape_map()),
    "dumped": sorted(names),
    "unequal": sorted(n for n in names if not np.array_equal(dump[n.replace("/", "|")], reader.get_tensor(n))),
    "step": int(dump["global_step"]), "global_step": int(reader.get_tensor("global_step")),
}))
"""

# target env: the partitioned variables of the TF1 graph (.meta, with their save_slice_info); the migrated
# parameter-server model under ParameterServerStrategy restores the converted checkpoint into its shards
_PS_RESTORE = r"""
import json, re, runpy, socket, sys
import numpy as np
import tensorflow as tf
from tensorflow.core.framework import variable_pb2
from tensorflow.core.protobuf import meta_graph_pb2
program, out, prefix = sys.argv[1:4]
mg = meta_graph_pb2.MetaGraphDef()
mg.ParseFromString(open(prefix + ".meta", "rb").read())
partitioned = {}
for raw in mg.collection_def["variables"].bytes_list.value:
    vd = variable_pb2.VariableDef(); vd.ParseFromString(raw)
    if vd.HasField("save_slice_info_def"):
        info = vd.save_slice_info_def
        partitioned[vd.variable_name] = [info.full_name, list(info.var_offset), list(info.var_shape)]
g = runpy.run_path(program, run_name="tfmigrate_check")  # definitions only: main() does not run
keras = g["keras"]

def port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

spec = {"chief": ["127.0.0.1:%d" % port()], "worker": ["127.0.0.1:%d" % port()],
        "ps": ["127.0.0.1:%d" % port() for _ in range(2)]}
cluster = tf.train.ClusterSpec(spec)
servers = [tf.distribute.Server(cluster, job_name=j, task_index=i, protocol="grpc", start=True)
           for j in ("worker", "ps") for i in range(len(spec[j]))]
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(cluster, task_type="chief", task_id=0, rpc_layer="grpc")
strategy = tf.distribute.experimental.ParameterServerStrategy(resolver, variable_partitioner=g["VARIABLE_PARTITIONER"])
with strategy.scope():
    model = g["Model"]({"learning_rate": 0.1, "hidden_units": 16})
    optimizer = keras.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.1, epsilon=0.0)
    model({"ids": tf.zeros([2, 3], tf.int32)})
    optimizer.build(model.trainable_variables)
tf.train.Checkpoint(model=model, optimizer=optimizer).restore(tf.train.latest_checkpoint(out)).assert_existing_objects_matched()
reader = tf.train.load_checkpoint(prefix)
parts = {}  # TF1 name -> the shards' values in order (a shard is "<name>/part_<i>")
for i, v in enumerate(model.trainable_variables):
    name = re.sub(r"/part_\d+$", "", v.name.split(":")[0]).removeprefix(model.name + "/")
    parts.setdefault(name, []).append(v.numpy())
    parts.setdefault(name + "/Adagrad", []).append(optimizer._accumulators[optimizer._index_dict[optimizer._var_key(v)]].numpy())
print(json.dumps({
    "partitioned": partitioned, "saved": sorted(reader.get_variable_to_shape_map()),
    "table_shards": [list(map(int, v.shape)) for v in model.table.variables],
    "compared": sorted(parts),
    "unequal": sorted(n for n, p in parts.items() if not np.array_equal(np.concatenate(p), reader.get_tensor(n))),
    "step": int(optimizer.iterations.numpy()),
}))
"""

def _environ(**extra) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TFMIGRATE_") and k != "TF_CONFIG"}
    environ.update({"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}, **extra)
    return environ


def _run(env: str, argv: list[str], cwd: Path, **extra) -> subprocess.CompletedProcess:
    result = subprocess.run([str(envs.ensure(env)), *map(str, argv)], cwd=cwd, env=_environ(**extra),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _estimator(case: str, steps: int, tmp_path: Path) -> Path:
    model_dir = tmp_path / f"{case}_estimator"
    _run("legacy", [FIXTURES / case / "original.py", "--steps", steps, "--model_dir", model_dir], tmp_path)
    assert (model_dir / f"model.ckpt-{steps}.index").exists()
    return model_dir


@pytest.fixture(scope="module")
def regression_model_dir(tmp_path_factory) -> Path:
    """regression_adagrad's Estimator after 30 steps (shared: the tests only read it)."""
    return _estimator("regression_adagrad", 30, tmp_path_factory.mktemp("estimator"))


def _restored(program: Path, out: Path, prefix: Path, tmp_path: Path) -> dict:
    """Restore OUT as the migrated program does (checkpoint_boot's dump mode, a fresh process), compare by TF1 name."""
    dump = tmp_path / "dump.npz"
    code, tail = checkpoint.run_boot(envs.ensure("target"), program, [], prefix, out, tmp_path / "dump.json",
                                     dump=dump)
    assert code == 0, tail
    return json.loads(_run("target", ["-c", _CHECK, dump, prefix], tmp_path).stdout)


def test_unpartitioned_model_dir_converts_and_the_program_continues_from_it(tmp_path, regression_model_dir):
    program = FIXTURES / "regression_adagrad" / "migrated.py"
    model_dir = tmp_path / "estimator"  # a copy: the program's resume below writes into it
    shutil.copytree(regression_model_dir, model_dir)
    out = tmp_path / "converted"
    result = subprocess.run([sys.executable, "-m", "tfmigrate", "checkpoint", "convert", str(model_dir), "--program",
                             str(program), "--out", str(out), "--output-format", "json"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert doc["step"] == 30 and doc["written"] == str(out / "ckpt-30")
    assert not doc["missing"] and not doc["shape_mismatch"] and not doc["extra"]
    assert {m["tf1"]: m["tf2"] for m in doc["mapped"]}["dense/kernel/Adagrad"] == "optimizer._accumulators[0]"

    check = _restored(program, out, model_dir / "model.ckpt-30", tmp_path)
    assert check["dumped"] == check["saved"]  # every TF1 variable, no more
    assert check["unequal"] == []
    assert check["step"] == check["global_step"] == 30

    # the program itself goes on from step 30 on the converted directory, exactly as from the Estimator's
    runs = {}
    for name, start in (("converted", out), ("estimator", model_dir)):
        cap = tmp_path / f"capture_{name}"
        _run("target", [capture.TARGET_BOOT, program, "--steps", 40, "--model_dir", start], tmp_path,
             TFMIGRATE_CAPTURE_DIR=str(cap))
        runs[name] = capture.read_target(cap)
    assert len(runs["converted"]["chief0"]) == 10
    assert runs["converted"]["chief0"] == runs["estimator"]["chief0"]  # bit patterns of every step's loss


def test_partitioned_variables_convert_and_restore_into_parameter_server_shards(tmp_path):
    program = FIXTURES / "ps_embedding" / "migrated.py"
    model_dir = _estimator("ps_embedding", 5, tmp_path)
    prefix = model_dir / "model.ckpt-5"
    out = tmp_path / "converted"
    doc = checkpoint.convert(model_dir, program, out)
    assert doc["exit"] == checkpoint.EXIT_WRITTEN, checkpoint.table(doc)
    mapped = {m["tf1"]: m for m in doc["mapped"]}
    assert mapped["item_embeddings"]["shape"] == [50, 8] and mapped["item_embeddings"]["exact"]
    assert "item_embeddings  " in checkpoint.table(doc)

    sharded = json.loads(_run("target", ["-c", _PS_RESTORE, program, out, prefix], tmp_path).stdout)
    # the Estimator partitioned the table (and its slot) in its graph, and saved each whole under its name
    assert sharded["partitioned"]["item_embeddings/part_2:0"] == ["item_embeddings", [34, 0], [16, 8]]
    assert sharded["partitioned"]["item_embeddings/part_1/Adagrad:0"] == ["item_embeddings/Adagrad", [17, 0], [17, 8]]
    assert {"item_embeddings", "item_embeddings/Adagrad"} <= set(sharded["saved"])
    assert not any("part_" in name for name in sharded["saved"])
    # every TF1 variable, restored shard by shard, bit for bit
    assert sharded["table_shards"] == [[17, 8], [17, 8], [16, 8]]
    assert sharded["compared"] == sorted(n for n in sharded["saved"] if n != "global_step")
    assert sharded["unequal"] == [] and sharded["step"] == 5

    # the migrated program (one process) goes on from DIR as the Estimator goes on from its model_dir
    estimator_dir = tmp_path / "estimator_copy"
    shutil.copytree(model_dir, estimator_dir)
    _run("legacy", [capture.LEGACY_BOOT, FIXTURES / "ps_embedding" / "original.py", "--steps", 25], tmp_path,
         TFMIGRATE_CAPTURE_DIR=str(tmp_path / "cap_original"), TFMIGRATE_MODEL_DIR=str(estimator_dir))
    _run("target", [capture.TARGET_BOOT, program, "--steps", 25, "--model_dir", out], tmp_path,
         TFMIGRATE_CAPTURE_DIR=str(tmp_path / "cap_migrated"))
    a, b = capture.read_legacy(tmp_path / "cap_original"), capture.read_target(tmp_path / "cap_migrated")
    assert len(a["chief0"]) == len(b["chief0"]) == 20
    result = compare.compare_sync(a, b)
    assert result["equivalent"], result["problems"]


def test_a_program_whose_model_differs_lists_the_missing_names_and_writes_nothing(tmp_path, regression_model_dir):
    out = tmp_path / "converted"
    doc = checkpoint.convert(regression_model_dir, FIXTURES / "adam_mae" / "migrated.py", out)  # Adam, not Adagrad
    assert doc["exit"] == checkpoint.EXIT_MISMATCH and doc["written"] is None and not out.exists()
    weights = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    assert sorted(m["tf1"] for m in doc["missing"]) == sorted(
        [f"{w}/{s}" for w in weights for s in ("Adam", "Adam_1")] + ["beta1_power", "beta2_power"])
    assert sorted(m["tf1"] for m in doc["extra"]) == sorted(f"{w}/Adagrad" for w in weights)
    text = checkpoint.table(doc)
    assert "missing from the checkpoint" in text and "dense_1/bias/Adam_1" in text and "nothing written" in text
