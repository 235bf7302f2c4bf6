"""TFM811 variables: `get_variable` / `variable_scope` / `tf.nn.embedding_lookup` inside a model_fn.

- `v = tf.compat.v1.get_variable(name, shape, initializer=..., partitioner=..., trainable=...)` → a weight of the
  Keras model, `self.v = self.add_weight(name=<TF1 leaf name>, shape=..., initializer=<Keras equivalent>)`, created
  in `__init__`; the forward pass reads `self.v`. TF1's default initializer for float variables
  (glorot_uniform) is spelled out.
- `with tf.compat.v1.variable_scope("name", partitioner=...):` → its statements, unscoped: Keras names weights by
  layer (verify maps the TF1 scoped names by suffix). Its partitioner applies to what is created inside.
- `tf.nn.embedding_lookup(v, ids)` keeps working on the (possibly sharded) weight; on a table TF1 partitioned,
  the default `partition_strategy="mod"` read other rows than TF2 does, so the ids are mapped (TFM801).
Blocked: regularizers, custom getters, constraints, collections, non-float32 dtypes, computed names, reuse,
`embedding_lookup` on a list of tensors.

Why exact: the weight keeps TF1's leaf name, shape, dtype and initializer (TF1's defaults spelled out), so a TF1
checkpoint's values load into it and `verify` copies the initial values across.

Example (`fixtures/ps_embedding`):

    table = tf.compat.v1.get_variable("item_embeddings", shape=[VOCAB_SIZE, EMBEDDING_DIM],
                                      initializer=tf.compat.v1.random_normal_initializer(stddev=0.1))
    →  (in Model.__init__)
    self.table = self.add_weight(name="item_embeddings", shape=[VOCAB_SIZE, EMBEDDING_DIM],
                                 initializer=keras.initializers.RandomNormal(mean=0.0, stddev=0.1))
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from . import layers
from ..facts.calls import bind, code, is_literal

CODE = "TFM811"

_GET_VARIABLE = ["name", "shape", "dtype", "initializer", "regularizer", "trainable", "collections", "caching_device",
                 "partitioner", "validate_shape", "use_resource", "custom_getter", "constraint", "synchronization",
                 "aggregation"]
_VARIABLE_SCOPE = ["name_or_scope", "default_name", "values", "initializer", "regularizer", "caching_device",
                   "partitioner", "custom_getter", "reuse", "dtype", "use_resource", "constraint",
                   "auxiliary_name_scope"]
EMBEDDING_LOOKUP = ["params", "ids", "partition_strategy", "name", "validate_indices", "max_norm"]
_IGNORED = ("validate_shape", "use_resource")  # TF2 variables are resource variables with static shapes


def string_name(node, what: str) -> str:
    if not isinstance(node, cst.SimpleString):
        raise Blocked(CODE, f"{what} must be a string literal (weight names are kept for checkpoints)", node)
    return node.evaluated_value


def get_variable(call: cst.Call, tf_path_of) -> tuple[str, dict, cst.BaseExpression | None]:
    """(TF1 leaf name, Keras add_weight keyword code, partitioner node or None)."""
    args = bind(call, _GET_VARIABLE, "tf.compat.v1.get_variable", CODE)
    name = string_name(args.get("name"), "get_variable's name")
    if "shape" not in args or is_literal(args["shape"], None):
        raise Blocked(CODE, "get_variable without a shape is not converted", call)
    for key, value in args.items():
        if key in ("name", "shape", "initializer", "trainable", "partitioner", "dtype", *_IGNORED):
            continue
        if not is_literal(value, None):
            raise Blocked(CODE, f"get_variable({key}=...) is not converted", value)
    if "dtype" in args and not is_literal(args["dtype"], None) and tf_path_of(args["dtype"]) != "float32":
        raise Blocked(CODE, "get_variable with a dtype other than float32 is not converted", args["dtype"])
    init = args.get("initializer")
    kwargs = {"name": f'"{name}"', "shape": code(args["shape"]),
              "initializer": (layers.initializer(init, tf_path_of) if init is not None else "") or "'glorot_uniform'"}
    if "trainable" in args:
        if not is_literal(args["trainable"], True, False):
            raise Blocked(CODE, "get_variable(trainable=...) must be a literal", args["trainable"])
        kwargs["trainable"] = code(args["trainable"])
    partitioner = args.get("partitioner")
    return name, kwargs, None if partitioner is None or is_literal(partitioner, None) else partitioner


def variable_scope(call: cst.Call) -> tuple[str, cst.BaseExpression | None]:
    """(scope name, partitioner node or None) of a `variable_scope(...)` we can flatten."""
    args = bind(call, _VARIABLE_SCOPE, "tf.compat.v1.variable_scope", CODE)
    name = string_name(args.get("name_or_scope"), "variable_scope's name")
    for key, value in args.items():
        if key in ("name_or_scope", "partitioner", "auxiliary_name_scope"):
            continue
        if key == "reuse" and is_literal(value, None, False):
            continue
        if not is_literal(value, None):
            raise Blocked(CODE, f"variable_scope({key}=...) is not converted", value)
    partitioner = args.get("partitioner")
    return name, None if partitioner is None or is_literal(partitioner, None) else partitioner
