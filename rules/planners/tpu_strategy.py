"""TFM605, the TPU path of a TPUEstimator: `tf.distribute.TPUStrategy` over the program's own TPUClusterResolver.

Where TF1 ran on a TPU (use_tpu omitted or True: "only"; a flag, `params.use_tpu`, `config.use_tpu`: "runtime",
chosen by the same condition) the migrated program builds the model in the scope of
`tf.distribute.TPUStrategy(resolver)` after `tf.config.experimental_connect_to_cluster(resolver)` and
`tf.tpu.experimental.initialize_tpu_system(resolver)` (the migration guide's tpu_estimator TF2 half); the CPU
branch of a run-time choice is the TPUEstimator(use_tpu=False) conversion (rules/planners/tpu.py). The resolver is
the program's own: the `TPUClusterResolver(tpu_name, zone=..., project=...)` built under `if <use_tpu> ...:` (its
flags kept) or passed as tpu.RunConfig(cluster=...); without one, `TPUClusterResolver(tpu="")` (a local TPU, TF1's
master ""). What TPUEstimator did on a TPU and how it maps:
- per-core batch: TPUEstimator split train/eval/predict_batch_size over num_shards cores (each core a consecutive
  slice of the global batch, PER_HOST_V1 or V2 on one host); the input_fn now gets the global batch size and Keras
  splits each batch over the replicas in order. TF1 raised when a batch size was not divisible by the cores, or
  num_shards was not the core count: the TPU branch raises the same before training (TF1: when that mode ran);
- CrossShardOptimizer (reduction MEAN, under `if use_tpu:`): the mean of the per-core gradients, which Keras'
  step under TPUStrategy computes itself (the loss divided by the replicas, the gradients summed): dropped;
- eval_metrics=(metric_fn, tensors): TF1 ran metric_fn over every core's tensors; Keras metrics under TPUStrategy
  sum their states over the replicas: the same metrics, inlined as on CPU;
- iterations_per_loop: NOT mapped to compile(steps_per_execution): Keras 3.15's fit runs whole executions
  (measured: steps_per_execution=5, steps_per_epoch=12 trained 15 steps). The TPU branch runs one step per
  execution: the same training steps; checkpoints are written at save_checkpoints_steps, where TF1 wrote them at
  the first loop boundary past it (the same steps when save_checkpoints_steps is a multiple of it); slower.
Refused, each with its reason (Blocked; for a flag defaulting to False the CPU path still converts and the program
raises when the flag is set): evaluate(steps=None) (TF1 raised on TPU), a model_fn reading params["batch_size"]
(per core on TPU) or params["use_tpu"] other than as a test, anything but CrossShardOptimizer under `if use_tpu:`
(host_call: outfed summaries; scaffold_fn / init_from_checkpoint; bfloat16_scope: Keras' mixed_bfloat16 policy
casts every layer), TPUConfig(num_cores_per_replica / input_partition_dims: model parallelism,
per_host_input_for_training=False/BROADCAST: each core read its own input), a train_distribute, --target ctl.
TPU embeddings (embedding_config_spec) block in tpu.py. This machine has no TPU: the TPU branch is converted and
checked (it imports, builds under a strategy stand-in, its text is pinned by tests), not verified.
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import code

from ..facts.calls import is_literal
from ..facts.nodes import subtree_nodes
from ..emit.wrap import generated

CODE = "TFM605"
NOT_VERIFIED = "the TPU path is converted to tf.distribute.TPUStrategy but not verified on this machine (no TPU)"


def not_verified(tpu) -> str:
    """The note on the TPU path: what `tfmigrate verify` (which reads it, runtime/verify.py) can compare."""
    if tpu.path == "only":
        return NOT_VERIFIED + ": the program runs on a TPU only, so verify cannot run it here"
    if tpu.default_false:
        return NOT_VERIFIED + ": with the flag's default (use_tpu False) verify runs and compares the CPU path"
    return NOT_VERIFIED + ": verify compares the CPU path when the program is given use_tpu False"
ITERATIONS = ("TPUConfig(iterations_per_loop) is not mapped to Keras' steps_per_execution (Keras 3.15's fit runs "
              "whole executions, past steps_per_epoch): the TPU branch runs one step per execution, the same "
              "steps; checkpoints at save_checkpoints_steps rather than at TF1's loop boundaries; slower")
_PER_HOST_OK = ("PER_HOST_V1", "PER_HOST_V2")


def refuse(analysis, tpu, reason: str, node) -> None:
    """The TPU path is not converted: blocks, or for a flag defaulting to False the CPU path converts and the
    migrated program raises when the flag is set (the CPU-only conversion of rules/planners/tpu.py)."""
    if tpu.path == "runtime" and tpu.default_false:
        if not tpu.refused:
            analysis.notes.append((CODE, f"the TPU path (use_tpu set) is not converted: {reason}; the migrated "
                                         "program raises if the flag is set", node))
        tpu.refused.append(reason)
        return
    raise Blocked(CODE, f"the TPU path of this TPUEstimator is not converted: {reason}", node)


def check_path(analysis, fn, tpu, uses, reads_batch: bool) -> None:
    """Everything TPUEstimator did on a TPU that TPUStrategy would do differently: refused, with its reason."""
    config = tpu.tpu_config
    per_host = config.get("per_host_input_for_training")
    if per_host is not None and not is_literal(per_host.node, True):
        r = analysis.program.resolve(per_host)
        text = code(r.node)
        if not any(text.endswith(p) for p in _PER_HOST_OK):
            refuse(analysis, tpu, f"TPUConfig(per_host_input_for_training={code(per_host.node)[:40]}): each core (or "
                                  "the broadcast) read its own input, where TPUStrategy splits one global batch",
                   per_host.node)
    for key in ("num_cores_per_replica", "input_partition_dims"):
        if key in config and not is_literal(config[key].node, None):
            refuse(analysis, tpu, f"TPUConfig({key}=...) is model parallelism, which TPUStrategy's data-parallel "
                                  "replicas do not do", config[key].node)
    for use in uses:
        steps = use.evaluate.get("steps")
        if use.kind == "evaluate" and (steps is None or is_literal(steps.node, None)):
            refuse(analysis, tpu, "evaluate(steps=None): TF1 raised ValueError on a TPU (\"Evaluate `steps` must be "
                                  "set on TPU\")", use.call)
        elif use.kind == "train_and_evaluate" and steps is not None and is_literal(steps.node, None):
            refuse(analysis, tpu, "EvalSpec(steps=None): TF1 raised ValueError on a TPU (\"Evaluate `steps` must be "
                                  "set on TPU\")", steps.node)
    if reads_batch:
        refuse(analysis, tpu, f"model_fn `{fn.node.name.value}` reads params[\"batch_size\"], which on a TPU was the "
                              "per-core batch (train_batch_size / num_shards); the migrated model is built once",
               fn.node)
    tests = _tests(fn.node, tpu)
    for node in subtree_nodes(fn.node):
        if _reads_use_tpu(node) and id(node) not in tests:
            refuse(analysis, tpu, f"`{code(node)[:40]}` is read in model_fn other than as an `if` test: the "
                                  "migrated model is built with use_tpu False", node)
            break
    for node in subtree_nodes(fn.node):
        if isinstance(node, cst.If) and id(node.test) in tests:
            arm = node.body.body if _positive(node.test) else (
                node.orelse.body.body if isinstance(node.orelse, cst.Else) else ())
            for stmt in arm:
                why = _arm_statement(analysis, fn, stmt)
                if why:  # the first one an arm holds
                    refuse(analysis, tpu, why, stmt)
                    break
        elif isinstance(node, cst.IfExp) and id(node.test) in tests:
            value = node.body if _positive(node.test) else node.orelse
            other = node.orelse if _positive(node.test) else node.body
            if not _cross_shard(analysis, fn, value, code(other)):
                refuse(analysis, tpu, f"`{code(node)[:50]}`: on a TPU it took `{code(value)[:40]}`, which is not "
                                      "a CrossShardOptimizer of the CPU value", node)


def _positive(test) -> bool:
    """`if use_tpu:` (the body is the TPU arm), not `if not use_tpu:`."""
    return not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not))


def _reads_use_tpu(node) -> bool:
    """params["use_tpu"] / params.get("use_tpu")."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        key = node.slice[0].slice.value
        return isinstance(key, cst.SimpleString) and key.evaluated_value == "use_tpu"
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
            and bool(node.args) and isinstance(node.args[0].value, cst.SimpleString)
            and node.args[0].value.evaluated_value == "use_tpu")


def _tests(fn_node, tpu) -> set:
    """ids of the `if` / `x if ... else y` tests on use_tpu in the model_fn, and of the reads inside them."""
    found = set()
    for node in subtree_nodes(fn_node):
        if isinstance(node, (cst.If, cst.IfExp)):
            test = node.test
            inner = test.expression if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) \
                else test
            text = code(inner.with_changes(lpar=[], rpar=[])).strip()
            if text in tpu.false_tests or _reads_use_tpu(inner):
                found |= {id(test), id(inner)} | {id(n) for n in subtree_nodes(inner)}
    return found


def _arm_statement(analysis, fn, stmt) -> str | None:
    """Why a statement of an `if use_tpu:` arm does not map to TPUStrategy, or None (CrossShardOptimizer)."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    if isinstance(small, cst.Pass):
        return None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call) \
            and _cross_shard(analysis, fn, small.value, code(small.targets[0].target)):
        return None
    paths = [analysis.tf(n, fn.file) or "" for n in subtree_nodes(stmt) if isinstance(n, cst.Call)]
    text = code(stmt).strip().splitlines()[0][:50]
    if any(p.endswith("tpu.CrossShardOptimizer") for p in paths):
        return (f"`{text}` under `if use_tpu:`: only `optimizer = CrossShardOptimizer(optimizer)` with reduction "
                "MEAN (the default) is the mean of the per-core gradients Keras computes under TPUStrategy")
    if any(p.endswith("bfloat16_scope") for p in paths):
        return (f"`{text}` under `if use_tpu:`: a bfloat16 scope computes its ops in bfloat16 on TPU; Keras' "
                "mixed_bfloat16 policy casts every layer instead, a different model")
    if any(p.endswith("init_from_checkpoint") for p in paths) or "scaffold" in code(stmt):
        return (f"`{text}` under `if use_tpu:`: the TPU scaffold_fn (init_from_checkpoint) is not converted; load "
                "the checkpoint into the Keras model before fit")
    if "host_call" in code(stmt):
        return (f"`{text}` under `if use_tpu:`: host_call outfed tensors to a host function each step (summaries); "
                "not converted: write them with a Keras callback")
    return f"`{text}` under `if use_tpu:` has no TPUStrategy equivalent tfmigrate knows"


def _cross_shard(analysis, fn, call, inner: str) -> bool:
    """`CrossShardOptimizer(<inner>)` with the default reduction (MEAN) or Reduction.MEAN."""
    if not (isinstance(call, cst.Call) and (analysis.tf(call, fn.file) or "").endswith("tpu.CrossShardOptimizer")):
        return False
    args = [a for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    first = args[0].value if args else kw.get("opt")
    reduction = args[1].value if len(args) > 1 else kw.get("reduction")
    if first is None or code(first).strip() != inner.strip() or len(args) > 2:
        return False
    return reduction is None or code(reduction).strip().endswith("Reduction.MEAN")


def strategy_lines(tpu, strategy_name: str, resolver_name: str, render, cpu: str) -> str:
    """The strategy statement(s): TPUStrategy under the use_tpu condition (only: unconditionally), else `cpu` (the
    strategy the CPU conversion builds). The generated `tf.` names are marked (generated): the program's own `tf`
    may be tf.compat.v1."""
    resolver = render(tpu.resolver) if tpu.resolver is not None else \
        generated('tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")')
    body = [f"{resolver_name} = {resolver}",
            generated(f"tf.config.experimental_connect_to_cluster({resolver_name})"),
            generated(f"tf.tpu.experimental.initialize_tpu_system({resolver_name})"),
            generated(f"{strategy_name} = tf.distribute.TPUStrategy({resolver_name})")]
    shards = tpu.tpu_config.get("num_shards")
    if shards is not None and not is_literal(shards.node, None):
        text = render(shards)
        body.append(f"if {text} != {strategy_name}.num_replicas_in_sync:  # TF1 raised too: num_shards is the cores\n"
                    f"    raise ValueError(f\"TPUConfig(num_shards={{{text}}}) is not the {{{strategy_name}"
                    f".num_replicas_in_sync}} TPU cores\")")
    sizes: dict[str, list] = {}  # each batch size once, with the modes it is for
    for mode, what in (("train", "train"), ("eval", "eval"), ("infer", "predict")):
        if tpu.batch.get(mode) is not None:
            sizes.setdefault(render(tpu.batch[mode]), []).append(what)
    for text, modes in sizes.items():  # TF1 raised when that mode ran; here before training
        body.append(f"if {text} % {strategy_name}.num_replicas_in_sync:\n"
                    f"    raise ValueError(f\"{'/'.join(modes)} batch size {{{text}}} must be divisible by the "
                    f"{{{strategy_name}.num_replicas_in_sync}} TPU cores\")")
    comment = "  # TPUEstimator on a TPU (TFM605: converted, not verified without a TPU)"
    if tpu.path == "only":
        return "\n".join([body[0] + comment, *body[1:]])
    indented = "\n".join("    " + line for part in body for line in part.split("\n"))
    return (f"if {render(tpu.use_tpu)}:{comment}\n{indented}\n"
            f"else:\n    {strategy_name} = {cpu}")
