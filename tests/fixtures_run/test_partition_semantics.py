"""TFM801 checked against TensorFlow itself (TF 2.15, which has both the v1 partitioners and the TF2 classes):

- every TF1 partitioner call, converted by the rule, splits the same shapes into the same number of shards;
- `tf1_mod_rows` + a lookup in the full table reads exactly the rows `tf.compat.v1.nn.embedding_lookup` read
  from a partitioned variable with its default partition_strategy="mod" (and TF2's lookup reads natural rows).
"""
from __future__ import annotations

import json
import subprocess

import libcst as cst
import pytest

from tfmigrate.names import build_import_table
from tfmigrate.rules.planners import partitioners
from tfmigrate.rules.facts.calls import TF
from tfmigrate.rules.facts.tfnames import TFNames
from tfmigrate.runtime import envs

CALLS = [
    "tf.compat.v1.fixed_size_partitioner(3)",
    "tf.compat.v1.fixed_size_partitioner(num_shards=64)",
    "tf.compat.v1.min_max_variable_partitioner(max_partitions=4, min_slice_size=256)",
    "tf.compat.v1.min_max_variable_partitioner(3)",
    "tf.compat.v1.min_max_variable_partitioner(max_partitions=8, min_slice_size=64 << 10, bytes_per_string_element=8)",
    "tf.compat.v1.variable_axis_size_partitioner(4096)",
    "tf.compat.v1.variable_axis_size_partitioner(max_shard_bytes=1000, max_shards=3, bytes_per_string_element=4)",
]
SHAPES = [[50, 8], [13, 5], [1000, 64], [7], [300, 3, 3], [2, 100000]]

SCRIPT = r'''
import json, sys
import numpy as np
import tensorflow as tf
cases = json.load(sys.stdin)
out = {"counts": []}
for tf1, tf2 in cases["pairs"]:
    p1, p2 = eval(tf1), eval(tf2)
    for shape in cases["shapes"]:
        for dtype in (tf.float32, tf.string):
            a = list(p1(shape=tf.TensorShape(shape), dtype=dtype))
            b = list(p2(tf.TensorShape(shape), dtype))
            out["counts"].append([tf1, shape, dtype.name, a, b])
exec(cases["mod_rows"])
rows_ok = []
for rows, shards in ((50, 3), (13, 5), (16, 4), (7, 1)):
    g = tf.Graph()
    with g.as_default():
        full = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)

        def init(shape, dtype=None, partition_info=None):  # each shard gets its slice of `full`
            start = partition_info.var_offset[0] if partition_info else 0
            return tf.constant(full[start:start + shape[0]])

        table = tf.compat.v1.get_variable("t", shape=[rows, 2], initializer=init,
                                          partitioner=tf.compat.v1.fixed_size_partitioner(shards))
        ids = tf.constant(np.arange(rows, dtype=np.int32))
        looked = tf.compat.v1.nn.embedding_lookup(table, ids)  # TF1 default: partition_strategy="mod"
        looked_v2 = tf.nn.embedding_lookup(table, ids)  # TF2's reads the natural rows ("div")
        with tf.compat.v1.Session() as s:
            s.run(tf.compat.v1.global_variables_initializer())
            tf1, v2 = s.run([looked, looked_v2])
    partitioner = tf.distribute.experimental.partitioners.FixedShardsPartitioner(shards)
    mapped = tf1_mod_rows(tf.constant(np.arange(rows, dtype=np.int32)), tf.zeros([rows, 2]), partitioner)
    tf2 = tf.gather(full, mapped).numpy()
    rows_ok.append([rows, shards, bool((tf1 == tf2).all()), bool((tf1 == full).all()), bool((v2 == full).all())])
out["rows"] = rows_ok
print(json.dumps(out))
'''


def _tf2_code(tf1_call: str) -> str:
    module = cst.parse_module(f"import tensorflow as tf\nx = {tf1_call}\n")
    names = TFNames(build_import_table(module, ("tensorflow",)))
    call = module.body[1].body[0].value
    plan = partitioners.convert(call, names.of, lambda node: None)
    return plan.tf2.replace(TF, "tf")


@pytest.mark.tfenv
def test_converted_partitioners_and_mod_lookups_match_tf1():
    python = envs.ensure("legacy")
    cases = {"pairs": [[c, _tf2_code(c)] for c in CALLS], "shapes": SHAPES, "mod_rows": partitioners.TF1_MOD_ROWS}
    proc = subprocess.run([str(python), "-c", SCRIPT], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=300, env={"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    for tf1, shape, dtype, a, b in result["counts"]:
        assert a == b, f"{tf1} on {shape} {dtype}: TF1 {a} vs converted {b}"
    assert len(result["counts"]) == len(CALLS) * len(SHAPES) * 2
    for rows, shards, same, natural, v2_natural in result["rows"]:
        assert same, f"{rows} rows in {shards} shards: tf1_mod_rows does not read TF1's rows"
        assert v2_natural  # so only v1 lookups are remapped
    # the remap is needed: with several shards TF1's "mod" rows are not the natural order
    assert not any(natural for _, shards, _, natural, _ in result["rows"] if shards > 1)
