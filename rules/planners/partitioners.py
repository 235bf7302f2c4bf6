"""TFM801 partitioners: `tf.compat.v1` variable partitioners → `tf.distribute.experimental.partitioners`.

Exact argument mapping (tensorflow/python/distribute/sharded_variable.py; the TF2 classes call the TF1 functions):
- `fixed_size_partitioner(num_shards, axis=0)` → `FixedShardsPartitioner(num_shards)`
- `min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256<<10, bytes_per_string_element=16)`
  → `MinSizePartitioner(min_shard_bytes=min_slice_size, max_shards=max_partitions, bytes_per_string=...)`
- `variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None)`
  → `MaxSizePartitioner(max_shard_bytes, max_shards=..., bytes_per_string=...)`
Semantics kept honest:
- TF2 partitions only through `ParameterServerStrategy(variable_partitioner=...)`, only on axis 0, and with one
  partitioner for every variable. A non-zero axis or two different partitioners in one program is blocked.
- TF1 honoured partitioners in graph mode without a strategy (single process, async parameter-server jobs) and
  silently dropped them under Mirrored/MultiWorkerMirrored strategies; the migration drops them where TF1 did or
  where the TF2 strategy cannot shard (a note says so).
- `tf.compat.v1.nn.embedding_lookup` (what `tf.nn.embedding_lookup` was in TF 1.x and under
  `import tensorflow.compat.v1 as tf`) on a partitioned table used `partition_strategy="mod"` by default: id i
  was read from shard i % n at row i // n, which is *not* row i of the full table. TF2's `tf.nn.embedding_lookup`
  always reads row i ("div"), so the generated code maps each id to the row TF1 read (`tf1_mod_rows`); the full
  table keeps TF1's layout and checkpoint values transfer unchanged. (TF 2.x's `tf.nn.embedding_lookup` was
  already "div": no mapping.)
Canned v1 estimators partition implicitly: see `CANNED_ESTIMATOR_PARTITIONING`.

Example (`fixtures/ps_embedding`, `--strategy parameter-server`):

    table = tf.compat.v1.get_variable("item_embeddings", shape=[VOCAB_SIZE, EMBEDDING_DIM], initializer=...,
                                      partitioner=tf.compat.v1.fixed_size_partitioner(3))
    vectors = tf.compat.v1.nn.embedding_lookup(table, features["ids"])
    →  VARIABLE_PARTITIONER = tf.distribute.experimental.partitioners.FixedShardsPartitioner(num_shards=3)
       vectors = tf.nn.embedding_lookup(self.table, tf1_mod_rows(features["ids"], self.table, VARIABLE_PARTITIONER))
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.calls import bind, code, is_literal
from ..emit.wrap import generated

CODE = "TFM801"

_TF2 = "tf.distribute.experimental.partitioners"
# TF1 name → (TF1 signature, TF2 class, {TF1 argument: TF2 argument})
_PARTITIONERS = {
    "fixed_size_partitioner": (["num_shards", "axis"], "FixedShardsPartitioner", {"num_shards": "num_shards"}),
    "min_max_variable_partitioner": (
        ["max_partitions", "axis", "min_slice_size", "bytes_per_string_element"], "MinSizePartitioner",
        {"min_slice_size": "min_shard_bytes", "max_partitions": "max_shards", "bytes_per_string_element": "bytes_per_string"},
    ),
    "variable_axis_size_partitioner": (
        ["max_shard_bytes", "axis", "bytes_per_string_element", "max_shards"], "MaxSizePartitioner",
        {"max_shard_bytes": "max_shard_bytes", "max_shards": "max_shards", "bytes_per_string_element": "bytes_per_string"},
    ),
}
_TF2_ORDER = ["num_shards", "min_shard_bytes", "max_shard_bytes", "max_shards", "bytes_per_string"]  # signatures
# TF1 defaults that differ from the TF2 class defaults are spelled out.
_TF1_DEFAULTS = {"min_max_variable_partitioner": {"max_shards": "1", "min_shard_bytes": "256 << 10"}}

# What canned v1 estimators (DNN, Linear, DNNLinearCombined) did when TF_CONFIG listed ps tasks
# (tensorflow/estimator canned/dnn.py, linear.py, dnn_linear_combined.py): the model was partitioned by
# min_max_variable_partitioner(max_partitions=num_ps_replicas) and the input layer with min_slice_size=64 << 20.
# The TF2 equivalent for a migrated canned estimator is MinSizePartitioner with the same bounds. Only v1 classes do
# this (v2's dnn_model_fn_v2 partitions nothing); rules/planners/canned.py converts v1 DNNs whose inputs create no input-layer
# variable with the hidden-layer bound, num_ps from TF_CONFIG at run time (ps_task_count()).
CANNED_ESTIMATOR_PARTITIONING = {
    "hidden_layers": f"{_TF2}.MinSizePartitioner(min_shard_bytes=256 << 10, max_shards=num_ps)",
    "input_layer": f"{_TF2}.MinSizePartitioner(min_shard_bytes=64 << 20, max_shards=num_ps)",
}

TF1_MOD_ROWS = '''
def tf1_mod_rows(ids, table, partitioner):
    """Rows of the full table that TF1's embedding_lookup(partition_strategy="mod") read for `ids`.

    TF1 read id i from shard i % n at row i // n; the n shards hold consecutive blocks of the table, the first
    (rows % n) blocks one row longer. tf.nn.embedding_lookup in TF2 reads row i of the full table.
    """
    rows = table.shape[0]
    num_shards = partitioner(tf.TensorShape(table.shape), tf.as_dtype(table.dtype))[0]
    shard = ids % num_shards
    return shard * (rows // num_shards) + tf.minimum(shard, rows % num_shards) + ids // num_shards
'''


@dataclass(frozen=True)
class PartitionerPlan:
    tf1: str  # TF1 source text (for messages)
    tf2: str  # TF2 constructor expression


def name_of(tf_path: str | None) -> str | None:
    short = (tf_path or "").split(".")[-1]
    return short if tf_path in (short, f"partitioned_variables.{short}") and short in _PARTITIONERS else None


def convert(call: cst.Call, tf_path_of, check_names) -> PartitionerPlan:
    """TF2 partitioner for a TF1 partitioner call; `check_names` rejects names the strategy line cannot see."""
    name = name_of(tf_path_of(call))
    if name is None:
        raise Blocked(CODE, f"partitioner `{code(call)}` is not a tf.compat.v1 partitioner tfmigrate knows", call)
    signature, tf2_class, renames = _PARTITIONERS[name]
    args = bind(call, signature, f"tf.compat.v1.{name}", CODE)
    if "axis" in args and not is_literal(args["axis"], 0):
        raise Blocked(CODE, f"{name}(axis={code(args['axis'])}): TF2 partitions only along axis 0", call)
    if name == "variable_axis_size_partitioner" and "max_shard_bytes" not in args:
        raise Blocked(CODE, "variable_axis_size_partitioner needs max_shard_bytes", call)
    if name == "fixed_size_partitioner" and "num_shards" not in args:
        raise Blocked(CODE, "fixed_size_partitioner needs num_shards", call)
    check_names(call)
    values = dict(_TF1_DEFAULTS.get(name, {}))
    for key, value in args.items():
        if key != "axis":
            values[renames[key]] = code(value)
    text = ", ".join(f"{k}={values[k]}" for k in sorted(values, key=_TF2_ORDER.index))
    return PartitionerPlan(code(call), generated(f"{_TF2}.{tf2_class}({text})"))


def single(plans: list[PartitionerPlan], node: cst.CSTNode) -> PartitionerPlan | None:
    """The program's one partitioner; TF2 has one per strategy, so different ones cannot be kept."""
    distinct = {p.tf2: p for p in plans}
    if len(distinct) > 1:
        raise Blocked(CODE, "different partitioners in one program (" + "; ".join(p.tf1 for p in distinct.values())
                      + "): TF2 applies one partitioner to every variable; unify them by hand", node)
    return next(iter(distinct.values()), None)
