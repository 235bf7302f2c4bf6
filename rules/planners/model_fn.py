"""TFM501 model_fn: an Estimator `model_fn` → a `keras.Model` subclass plus its loss, optimizer and metrics.

The body is interpreted statement by statement, for the three modes at once.

Parameters: TF 2.15's Estimator passes labels / mode / params / config by name (`_call_model_fn` reads the
signature), so a model_fn whose parameters all have those names is read by name, in any order
(`model_fn(mode, params, labels, features)`: fixtures/model_fn_by_name, 200/200 steps within rel 1.4e-6). Blocked:
no `labels` or no `mode` (add it, anywhere), no `features` and keyword-only parameters (TF1 raised: the Estimator
reads only the parameters before a `*`).

Forward pass → `call()`, statements kept as written (comments included):
- `tf.compat.v1.layers` calls (also `tf.layers.*` under `import tensorflow.compat.v1 as tf`), layer objects built
  in the model_fn and called (`tf.compat.v1.layers.Dense(...)`, `tf.keras.layers.Dense(...)`,
  `tf.compat.v1.keras.layers.*`, inline `Dense(8)(x)` too) and tensor ops on `features`/`params`. Layers keep
  their TF1 names so checkpoints map: a tf.compat.v1 layer is scoped by its explicit name, else by the first unused
  `dense`, `dense_1`, … in call order (TF 2.15 checked); a keras.layers object by Keras' own per-class counter.
  Mixing the two families blocks: TF1 then named variables `dense/kernel_1`. A `tf.keras.Sequential([...])` of
  such layers (inline, or returned by a parameterless module-level helper called in the model_fn) becomes a
  `keras.Sequential` attribute named as Keras named it in the TF1 graph (`sequential/dense/kernel`), called with
  the same `training` flag (TFM101); a functional `tf.keras.Model(inputs, outputs)` over a `tf.keras.Input` and
  tf.keras.layers calls is built the same way in `__init__` (variables `dense/kernel` on both sides); a list of
  tf.keras.layers objects called by `for layer in hidden: x = layer(x)` is a list attribute and the same loop.
- `for <target> in <python value>:` (params, module constants, `range(...)`, `enumerate(...)`) around forward
  statements: `__init__` runs the same loop to build one list attribute per layer call (`self.dense_layers`) and
  `call()` zips the loop with those lists. Names inside the loop (and of every layer once a loop built layers)
  are computed at run time by a generated `tf1_name` helper with TF1's rule, so `dense_<k>` after a loop of
  unknown length is exact; computed names (`"hidden_%d" % i`, f-strings) are kept as expressions.
- Network helpers: `logits = net(features, units=params["u"])` calling a function of this module that builds
  layers (itself or through another such function) runs the helper's statements in `call()`, as TF1 ran them in
  the model_fn's graph (each call builds its own layers, in call order): arguments `__init__` can see (literals,
  params, module names) are written where the parameter is read, so layer arguments stay constructor arguments,
  tensors are assigned (`inputs = x`), helper locals the model_fn also uses are renamed `<helper>_<name>`, and
  the def goes with the model_fn (fixtures/network_helper). A helper defined inside the model_fn (`def block(x, n):
  return tf.compat.v1.layers.dense(x, n)`) is inlined the same way (its free names are the model_fn's, as in the
  closure); a nested def that builds no layers blocks (move it to module level). `import tensorflow as tf` inside
  the model_fn that repeats a module-level import goes; one binding a name otherwise (`import tensorflow.compat.v1
  as tf` under a module-level `import tensorflow as tf`) would change what the body means, and blocks.
  Blocked, named: a helper called in a loop, with
  `*args`/`**kwargs`, returning early, recursive, or also used outside the converted model_fn.
- `if params["bn"]:` / `if FLAGS.use_dropout:` / `if MODEL == "deep":` (elif/else too) around forward statements: a
  Python test on static configuration (params, module names such as flags, literals; a static local is read as its
  value), which TF1 evaluated while building each graph. `__init__` builds the arms' layers under the same test and
  `call()` runs the same `if`; layer names are then counted at run time by `tf1_name`, so `dense_1`/`dense_2` after
  the `if` are what TF1 named them whichever arm ran (fixtures/static_config). Blocked: a test that also reads mode
  or a tensor, a static `if` after the loss (choosing the loss or optimizer), statements other than forward values
  inside it (layer objects, helpers, loops, returns).
- `tf.compat.v1.feature_column.input_layer(features, columns)` when the program model reads every column as a
  `numeric_column` (inline, a module constant, a model_fn local, `params["feature_columns"]` from the Estimator's
  params dict, lists built by loops or helpers; rules/program.py): no variables, so it becomes the generated
  `numeric_columns_input(features, columns)`, TF1's input-layer arithmetic on the same column objects at run time
  (name order, rank-1 values get a last axis, normalizer_fn, float32, flattened, concatenated;
  fixtures/input_layer_params: 200/200 steps bit-equal). Other columns (embedding, bucketized, indicator, …) block.
- `tf.identity(x, name=...)` is kept. What the Estimator did with `tf.compat.v1.summary.scalar(tag, tensor)` in the
  model_fn (measured on TF 2.15): its summary hook wrote each summary and its own `loss` summary, on the chief only,
  to model_dir's events file at the run's first global step and every N after it (1, 1+N, 1+2N, ... on a fresh
  model_dir, k+1, k+1+N, ... when resuming from step k; N = RunConfig(save_summary_steps), default 100), with the
  values of that step's forward pass (the loss before the update). A scalar summary run in TRAIN mode whose value is
  computed from the model output (directly or through locals of it, positional or keyword arguments) is converted
  exactly: the model gets `summaries(output)` → {tag: value}, and both targets write those values and `loss` at the
  same steps with `tf.summary.write` and TensorBoard's scalar metadata (`tf.summary.scalar` needs the tensorboard
  package, which TF 2.21 does not bring); RunConfig(save_summary_steps) is kept for them. Custom loop: the train step
  returns the values with the loss and the chief writes them (with several replicas: the first local replica's values
  and the global loss). Keras: `compute_loss` writes them in training while the generated `EstimatorSummaries` fit
  callback holds a writer on model_dir (one replica; with more it prints that nothing is written). Checked by
  tests/fixtures_run/test_summary_events.py on fixtures/summaries: the same (tag, step) pairs and values within 1e-5
  for the custom loop on one worker and on chief + worker under MWMS (the chief's events: max rel Δ 3e-6; the
  Estimator's other worker also wrote its `loss` to model_dir/tmp_worker_0, not reproduced) and for Keras on one
  worker; fixtures/observing_hooks (Keras, N=25): the same 12 (tag, step) pairs, max rel Δ 1.2e-7. A
  SummarySaverHook in the spec's training hooks writes a subset of the same values to its own directory at its own
  steps (the model's `summary_hooks()`, rules/planners/hooks.py). The Estimator's
  `global_step/sec` (its StepCounterHook's wall-clock rate, every log_step_count_steps) is not written. Dropped with a
  note instead, saying why: the parameter-server loop, a value the output does not give (a hidden layer's), the loss
  itself (the `loss` tag is written), a tag TF1 renamed (a repeated tag, `loss`, characters an op name cannot have),
  `collections=`/`family=`, a summary in an EVAL/PREDICT branch, no model_dir, and histogram/image/audio/text
  summaries. `tf.compat.v1.logging.*` statements are dropped with a note (they do not change training). An unused
  `tf.summary.merge_all()` statement and a debugging `print(...)` over names, attributes and literals (it printed
  tensor descriptions once, while the graph was built) are dropped with a note too; a print that calls something
  blocks.
- `mode == ModeKeys.TRAIN` (or a name assigned it) becomes the Keras `training` flag.

Modes: `if` on mode (`==`, `!=`, `in (...)`, `not in`, `not`/`and`/`or`, elif/else, a name assigned
`mode == TRAIN`) runs each arm for its modes; arms may assign (`metrics = {...}`, `train_op = None`) or return.
Each mode's `EstimatorSpec` is read from the return it reaches: TRAIN gives loss and train_op, EVAL the loss and
`eval_metric_ops`, PREDICT the predictions (a dict, or the output). The model itself must be the same in every
mode: forward statements, layers and variables inside a mode branch block.

Loss: one `tf.compat.v1.losses` call (TFM201), also as a bare statement read back by
`tf.compat.v1.losses.get_total_loss()` (exact: regularizers are blocked, so there are no regularization losses);
or a hand-written scalar on labels and exactly one forward value (the model output), e.g.
`tf.reduce_mean(tf.square(labels - preds))`, possibly over several statements. That becomes a generated
`<Model>Loss(keras.losses.Loss)` whose `__call__` runs the user's statements as written (Keras' own wrapper would
cast the labels to float and reshape them) and scales by 1/replicas under a strategy, as TF1's optimizer did
(Keras 3 does not scale scalar losses). For the custom loop (`reduction="none"`) a final `tf.reduce_mean(E)`
returns the per-example means of E, which `compute_average_loss` averages over the global batch like a tf.losses
loss (the mean of equal-size row means is the mean); any other final expression returns the batch loss as a
vector of one, which compute_average_loss divides by the replica count as TF1's optimizer did (TFM201 note; the
class is marked `tf1_scalar_loss` so verify records that value with its labels' batch). tf.keras loss objects the
loss calls are built in the class in Keras 3's spelling (see losses.py for their reductions under a strategy).
`EstimatorSpec(train_op=optimizer.minimize(loss, global_step))` written inline is the training op.

Training op: `minimize(loss, global_step)`; `apply_gradients(compute_gradients(loss), global_step)`; gradient
processing between them — `[(f(g), v) for g, v in grads_and_vars]` (optionally `if g is not None`),
`grads, vars = zip(*grads_and_vars)`, `grads, _ = tf.clip_by_global_norm(grads, c)`, `tf.gradients(loss,
tf.compat.v1.trainable_variables())` + `apply_gradients(zip(grads, tvars))` — becomes a generated optimizer
subclass (`<Model>Optimizer(keras.optimizers.SGD)`, …) whose `apply()` runs the same statements on the
gradients. Keras 3 calls `apply()` on each replica's gradients before summing them over replicas, which is where
TF1 clipped too, so the user's own ops keep the math. (Keras' `clipnorm`/`global_clipnorm` gave bit-identical
results to `tf.clip_by_norm`/`tf.clip_by_global_norm` on 200 random cases, TF 2.21 eager, but compute the norm
with other ops; the user's expression is kept, which also covers any other per-gradient transformation.)
`tf.gradients` skipped TF1's 1/replicas loss scaling, so the generated `apply()` multiplies by the replica count
first (exact for 1, 2, 4, … replicas; TFM301 note). Checked with `tfmigrate verify` on 2-worker MWMS runs:
clip_by_global_norm after compute_gradients and after tf.gradients, 200/200 steps bit-equal.
`tf.group(train_op, update_ops)`, `tf.group([train_op, *update_ops])`, `tf.group(optimizer.minimize(...))` and
`control_dependencies(UPDATE_OPS)` (named or inline) keep the train op: Keras updates batch-norm statistics in
`call(training=True)`. Any other op in the group (`counter.assign_add(1)`, an EMA's apply) ran at every training
step, which Keras' step does not: blocked, the op named.
`get_variable`, `variable_scope` and `embedding_lookup` are handled with TFM811/TFM801 (variables.py,
partitioners.py). PREDICT mode's `export_outputs` → the model's `EXPORT_OUTPUTS` / `export_outputs()`, one serving
signature per key (export_outputs.py).

Blocked, each with the line that stopped it: calls that create variables the Keras model would not own
(`tf.Variable`, RNN cells and `static_rnn`/`dynamic_rnn`, `tf.contrib`, `input_layer` over other columns: TFM811),
other `if`s (on tensors, or mixing mode and configuration), `while`, nested loops, loops over
tensors, layer objects or variables created inside loops or mode branches, labels or mode in the forward pass,
a second loss, `tf.losses.add_loss`, hand-written losses reading features or several forward values, gradient
processing that depends on the variable or on a subset of variables, gradient clipping on tf_keras
(parameter-server) programs, hooks, scaffolds, code after the last return.

Example (`fixtures/regression_adagrad`):

    def model_fn(features, labels, mode, params):          class Model(keras.Model):
        x = features["x"]                                       def __init__(self, params=None): ...layers...
        net = tf.compat.v1.layers.dense(x, 8, ...)   →         def call(self, features, training=False): ...
        ...                                                     def predictions(self, predictions): ...
        return tf.estimator.EstimatorSpec(mode, ...)        def build_model(params=None):  # compiled: loss,
                                                                ...                        # optimizer, metrics
"""
from __future__ import annotations

import ast
import builtins
import json
import keyword
import dataclasses
import re
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.visitors import Transformer, ValueNames, Visitor, walk

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared

from . import export_outputs as export_rules
from . import hooks, layers, losses, metrics, optimizers, partitioners, variables
from . import tpu as tpu_rules
from ..facts.calls import TF, bind, code, is_literal
from ..emit.wrap import generated, wrap_call
from ..facts.nodes import subtree_nodes
from ..facts.tfnames import TFNames

CODE = "TFM501"
BUILTINS = frozenset(dir(builtins))
_SPEC_ARGS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
              "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"]
# attribute names keras.Model already uses; a layer variable with one of these names gets a `_layer` suffix
_KERAS_MODELS = ("keras.Sequential", "keras.models.Sequential", "keras.Model", "keras.models.Model")
_MODEL_ATTRIBUTES = frozenset({
    "input", "inputs", "output", "outputs", "layers", "weights", "variables", "trainable_variables", "losses",
    "metrics", "name", "trainable", "dtype", "built", "optimizer", "loss", "params", "call", "build", "compile",
    "fit", "evaluate", "predict", "predictions", "summary", "save", "get_config", "state", "compute_loss",
    "test_step", "summaries", "summary_writer", "summary_steps", "summary_hooks", "summary_hook_writers",
})
_MINIMIZE_ARGS = ["loss", "global_step", "var_list", "gate_gradients", "aggregation_method",
                  "colocate_gradients_with_ops", "name", "grad_loss"]


def _without_global_step(method: str) -> str:
    """Why `optimizer.<method>(...)` without global_step= is not converted, and what to write instead."""
    return (f"{method}() without global_step=<the global step> is not converted: the Estimator counts training "
            f"steps (steps, max_steps, checkpoints) by the global step, which {method}() advances only when given it, "
            "and a global step advanced by hand (tf.compat.v1.assign_add) or not at all is not converted; pass "
            f"global_step=tf.compat.v1.train.get_global_step() to {method}()")


@dataclass
class ModelPlan:
    fn_name: str
    class_name: str
    docstring: str | None
    features: str
    labels: str
    params: str
    layers: list[tuple[str | None, str]]  # (attribute, keras constructor); (None, statements) for a loop/helper
    call_body: list[cst.BaseStatement]  # forward statements, rewritten in place (comments kept)
    params_in_call: bool
    output: str
    predictions: str | None  # dict code, computed from `output`
    loss: losses.LossPlan
    metrics: list[str]
    optimizer: optimizers.OptimizerPlan
    notes: list[tuple[str, str, cst.CSTNode | None]] = field(default_factory=list)
    partitioner: partitioners.PartitionerPlan | None = None  # the one TF1 partitioner the model_fn used
    mod_rows: bool = False  # embedding lookups need tf1_mod_rows (see partitioners.py)
    support: list[str] = field(default_factory=list)  # module-level code the model class needs (hand-written loss)
    export_outputs: str | None = None  # EstimatorSpec(export_outputs=...): {key: outputs} from the output (code)
    export_methods: dict[str, str] | None = None  # signature key → predict / classify / regress
    export_blocked: Blocked | None = None  # export_outputs not converted: blocks an export, else dropped (note)
    helpers: list[cst.FunctionDef] = field(default_factory=list)  # network helpers inlined into call()
    # tf.compat.v1.summary.scalar in TRAIN mode: (tag, value computed from `output` (code), the call); the custom
    # loop writes them, the Keras target drops them with a note (program.py)
    summaries: list[tuple[str, str, cst.CSTNode]] = field(default_factory=list)
    # a NanTensorHook(loss) in training_hooks: the training raises NanLossDuringTrainingError on a NaN loss
    # (Keras: the generated NanLossCheck callback; custom loop: a check after each step; rules/planners/hooks.py)
    nan_check: cst.Call | None = None  # the NanTensorHook call
    # LoggingTensorHooks (rules/planners/hooks.py): (key, value code from the output, `loss` and `step`) the training step
    # records for the generated TensorLogger callbacks; the TensorLogger constructors of the training_hooks ones
    logged: list[tuple[str, str]] = field(default_factory=list)
    # the callbacks of the LoggingTensorHooks and StepCounterHooks (TensorLogger, StepCounter constructors) of
    # training_hooks (TF1 ran them after the Estimator's NaN loss check) and training_chief_hooks (first, after the
    # checkpoint saver)
    loggers: list[str] = field(default_factory=list)
    chief_loggers: list[str] = field(default_factory=list)
    loggers_params: bool = False  # the constructors read params
    counters: bool = False  # a StepCounter among them
    named_tensors: dict[str, str] = field(default_factory=dict)  # TF name of a named op (tf.identity, ...) → its value
    # SummarySaverHooks in training_hooks / training_chief_hooks (rules/planners/hooks.py): (output_dir code, save_steps
    # code, the tags of `summaries` it writes); whether that code reads params
    summary_hooks: list[tuple[str, str, list[str]]] = field(default_factory=list)
    summary_hooks_params: bool = False


MODES = ("TRAIN", "EVAL", "PREDICT")
_ALL_MODES = frozenset(MODES)
_MODE_STRINGS = {"train": "TRAIN", "eval": "EVAL", "infer": "PREDICT"}  # ModeKeys values
_SUMMARIES = frozenset({"scalar", "histogram", "image", "audio", "text", "tensor_summary"})
# what the Estimator wrote (measured on TF 2.15: fixtures/observing_hooks, save_summary_steps=25 → steps 1, 26, 51;
# fixtures/summaries) and why the migrated program does not write the same here
SUMMARY_WHY = ("The Estimator wrote it, next to its own `loss` summary, to model_dir's events file at global steps "
                "1, 1+N, 1+2N, ... (N = RunConfig(save_summary_steps), default 100; the chief only), with the values "
                "of that step's forward pass; tfmigrate writes the same for a scalar summary computed from the model "
                "output (not this one). Write it with tf.summary in the training step under a tf.summary writer, or "
                "log with keras.callbacks.TensorBoard (its own tags and steps)")
_LOGGING = frozenset({"info", "warning", "warn", "debug", "error", "fatal", "log", "vlog"})
_COMPUTE_GRADIENTS_ARGS = ["loss", "var_list", "gate_gradients", "aggregation_method", "colocate_gradients_with_ops",
                           "grad_loss"]
_APPLY_GRADIENTS_ARGS = ["grads_and_vars", "global_step", "name"]
_GRADIENTS_ARGS = ["ys", "xs", "grad_ys", "name", "colocate_gradients_with_ops", "gate_gradients",
                   "aggregation_method", "stop_gradients", "unconnected_gradients"]
_TF1_NAME_HELPER = '''\
# TF1 scoped each layer by its explicit name, else by the first unused "<kind>", "<kind>_1", … in call order
tf1_names = set()

def tf1_name(name, explicit=False):
    unique, index = name, 0
    while not explicit and unique in tf1_names:
        index += 1
        unique = f"{name}_{index}"
    tf1_names.add(unique)
    return unique
'''


@dataclass(frozen=True)
class _Grads:
    """Gradients on their way to apply_gradients: (grad, var) pairs or a gradient list, and what was done to them."""
    kind: str  # "pairs" (compute_gradients' list), "list" (gradients only, in variable order), "vars" (the variables)
    transforms: tuple[str, ...] = ()  # statements rewriting `grads` (user expressions), in order
    unscaled: bool = False  # tf.gradients: TF1 did not scale the loss by 1/replicas
    node: cst.CSTNode | None = None


@dataclass
class _Loop:
    node: cst.For
    targets: frozenset[str]
    sites: list[tuple[str, str, str]] = field(default_factory=list)  # (list attribute, loop-local name, ctor)
    body: list[cst.BaseStatement] = field(default_factory=list)
    branch: bool = False  # an arm of a static `if` (runs once or not at all): plain attributes, no lists


class _Forward(Transformer):
    """convert_forward's transform: a forward value's layer calls become the Keras model's (one instance a walk)."""

    def __init__(self, interp: _Interpreter, target: str):
        self.interp, self.target = interp, target
        self.inline: set[int] = set()  # `Layer(...)` calls that are immediately called: `Layer(...)(inputs)`

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Call):
            self.inline.add(id(node.func))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        interp, target = self.interp, self.target
        if id(original) in self.inline:
            return updated
        found = layers.kind_of(interp.tf(original))
        if found and found[0] == "functional":
            kind = found[1]
            args = bind(updated, kind.functional_args, f"tf.layers.{kind.base_name}", layers.CODE)
            return interp.functional_layer(kind, args, args, original, target)
        if found:
            raise Blocked(layers.CODE, "a layer object must be assigned to a name before it is called", original)
        inline = layers.kind_of(interp.tf(original.func)) if isinstance(original.func, cst.Call) else None
        if inline and inline[0] in ("class", "keras"):
            kind = inline[1]
            ctor_args = interp.ctor_args(kind, inline[0], updated.func)
            call = bind(updated, ["inputs", "training"], f"layer {kind.keras}", layers.CODE)
            if inline[0] == "keras":
                if interp.loop is not None:
                    raise Blocked(layers.CODE, "keras.layers objects built inside a loop or a static `if` are not "
                                               "converted: use tf.compat.v1.layers there, or build them before "
                                               "it",
                                  original)
                interp.family("keras", original)
                name = interp.keras_layer_name(kind, layers.explicit_name(ctor_args), original)
                attr = interp.free_attr(name)
                interp.layers.append((attr, interp.ctor(kind, ctor_args, name, original.func, "keras")))
                return interp.layer_call(f"self.{attr}", kind, call["inputs"], call.get("training"))
            return interp.functional_layer(kind, ctor_args, call, original, target)
        if interp.tf(original) == "nn.embedding_lookup":
            return interp.embedding_lookup(updated)
        if interp.tf(original) == _INPUT_LAYER and interp.input_layers is True:
            return interp.input_layer(updated)
        func = updated.func
        if isinstance(func, cst.Name) and func.value in interp.keras_models:
            return interp.keras_model_call(func.value, updated)
        if isinstance(func, cst.Name) and func.value in interp.module_models:
            raise Blocked(layers.CODE, f"`{func.value}` is a Keras model built at module level: the Estimator "
                                       "built a new graph for each train/evaluate/predict call, and a model "
                                       "built outside model_fn does not follow it; build it in model_fn "
                                       "(inline or through a helper)", original)
        if isinstance(func, cst.Name) and func.value in interp.class_layers:
            kind, args, ctor_call, family, name = interp.class_layers[func.value]
            attr = func.value + "_layer" if func.value in _MODEL_ATTRIBUTES else func.value
            if attr not in dict(interp.layers):
                if family == "v1":
                    if interp.runtime_names or interp.loop is not None:
                        raise Blocked(layers.CODE, "a tf.compat.v1.layers object first called in or after a "
                                                   "loop is not converted: call it before the loop", original)
                    name = interp.layer_name(kind, layers.explicit_name(args), ctor_call)
                interp.layers.append((attr, interp.ctor(kind, args, name, ctor_call, family)))
            call = bind(updated, ["inputs", "training"], f"layer {func.value}", layers.CODE)
            return interp.layer_call(f"self.{attr}", kind, call["inputs"], call.get("training"))
        return updated


class _Interpreter:
    def __init__(self, fn: cst.FunctionDef, names: TFNames, module_names: frozenset[str],
                 tf1_partitions: bool | None = True, profile: str = "keras3", module: cst.Module | None = None,
                 tf1_strategy: bool | None = False, helpers: dict[str, cst.FunctionDef] | None = None,
                 input_layers: Blocked | bool = False,
                 tpu: frozenset[str] | None = None):
        self.fn, self.names, self.module_names = fn, names, module_names
        # the model_fn's input_layer calls, as the program model read their columns (rules/program.py): True when
        # every column of every call is a numeric_column, else the Blocked saying why; False: not read
        self.input_layers = input_layers
        # TPUEstimator(use_tpu=False): the texts that test use_tpu (all False), metric_fns and eval_metrics tuples
        self.tpu = tpu
        self.tpu_fns: dict[str, cst.FunctionDef] = {}
        self.tpu_metrics: dict[str, cst.Tuple] = {}
        self.tf1_strategy = tf1_strategy  # did TF1 run the model_fn under a distribution strategy? None: it varied
        # module-level functions (model and network helpers; `helpers`: those bound once) and names bound to a
        # Keras model built at module level
        self.helpers: dict[str, cst.FunctionDef] = dict(helpers or {})
        self.module_models: set[str] = set()
        for stmt in module.body if module is not None else []:
            if type(stmt) is cst.FunctionDef and helpers is None:  # (exact types: see _LITERALS)
                self.helpers[stmt.name.value] = stmt
            elif type(stmt) is cst.SimpleStatementLine and type(stmt.body[0]) is cst.Assign:
                assign = stmt.body[0]
                if isinstance(assign.value, cst.Call) and names.of(assign.value) in _KERAS_MODELS:
                    self.module_models |= {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
        self.keras_models: dict[str, tuple[str, list]] = {}  # model_fn local → (attribute, layers taking training)
        # functional-model tensors: name → (__init__ lines building it, layers taking training)
        self.symbolic: dict[str, tuple[list[str], list]] = {}
        self.layer_lists: dict[str, tuple[str, list]] = {}  # model_fn local list of Keras layers → (attribute, ...)
        self.loss_objects: dict[str, tuple[losses.KerasLossObject, cst.SimpleStatementLine]] = {}
        self.inlined_helpers: list[cst.FunctionDef] = []
        self.nested_helpers: set[str] = set()  # network helpers defined inside the model_fn (go with it)
        self.module, self.module_imports = module, None  # the model_fn's module and its import table (on demand)
        self.inlining: list[str] = []  # helpers being inlined, innermost last (recursion guard)
        self.statics: dict[str, cst.BaseExpression] = {}  # `units = params["units"]`: read as the value itself
        self.tf1_partitions = tf1_partitions  # did TF1 honour partitioners (no strategy, or async PS)? None: it varied
        self.profile = profile
        # each parameter read by its name; a signature the conversion cannot read is reported with the body's own
        # blockers (run)
        roles, self.signature_blocked = _signature(fn)
        self.features, self.labels, self.mode = roles["features"], roles["labels"], roles["mode"]
        self.params = roles.get("params", "params")
        self.config = roles.get("config")
        self.locals = frozenset(roles.values())
        fn_names, self.assign_counts = _names_and_assign_counts(fn)
        self.fn_names = frozenset(fn_names)
        self.forward_exprs: dict[str, cst.BaseExpression] = {}  # layer-free forward values (inlined into predictions)
        self.inlined: set[str] = set()  # forward values written out in predictions/metrics
        self.forward: set[str] = {self.features}
        self.training_aliases: set[str] = set()
        self.class_layers: dict[str, tuple[layers.LayerKind, dict, cst.Call, str, str | None]] = {}
        self.named_layers: set[str] = set()
        self.keras_counts: dict[str, int] = {}
        self.families: set[str] = set()  # "v1" (tf.compat.v1.layers) / "keras" (keras.layers objects)
        self.name_tokens: dict[str, tuple[str | None, str, str | None]] = {}  # token → (static name, base, explicit)
        self.runtime_names = False  # a loop built layers: names after it are counted at run time, as TF1 did
        self.loop: _Loop | None = None
        self.list_attrs: set[str] = set()  # layer-list attributes built by loops
        self.held_in_lists: set[str] = set()  # of those, the attributes that hold a list of layers
        self.layers: list[tuple[str | None, str]] = []
        self.call_body: list[cst.BaseStatement] = []
        self.dicts: dict[str, cst.Dict] = {}
        self.metric_vars: dict[str, cst.Call] = {}
        self.global_steps: set[str] = set()
        self.update_ops: set[str] = set()
        self.schedules: dict[str, str] = {}
        self.optimizer: tuple[str | None, cst.Call] | None = None
        self.loss: tuple[str | None, losses.LossPlan, cst.CSTNode] | None = None
        self.label_values: dict[str, cst.SimpleStatementLine] = {}  # hand-written values on labels (loss candidates)
        self.label_order: list[tuple[str, cst.SimpleStatementLine]] = []  # every such assignment, in order
        self.grads: dict[str, _Grads] = {}
        self.trainable_lists: set[str] = set()
        self.grad_transforms: _Grads | None = None  # what the train op did to the gradients
        self.train_op: str | None = None
        self.train_op_count = 0  # training ops assigned so far
        self.update_ops_run = False  # the train op ran under UPDATE_OPS (control_dependencies or tf.group)
        self.batch_norm_training = False  # a tf.compat.v1 batch_normalization called in training mode
        self.dropped: set[str] = set()  # names bound to summaries (dropped)
        self.nan_hooks: dict[str, cst.Call] = {}  # names bound to NanTensorHook(loss) (rules/planners/hooks.py)
        self.nan_check: cst.Call | None = None  # a NanTensorHook(loss) in training_hooks / training_chief_hooks
        self.logging_names: dict[str, cst.Call] = {}  # names bound to LoggingTensorHook(...) (rules/planners/hooks.py)
        # LoggingTensorHooks and StepCounterHooks in training_hooks / training_chief_hooks: (call, which list), in
        # TF1's order
        self.logging_hooks: list[tuple[cst.Call, str]] = []
        self.scope_depth = 0  # variable_scopes around the current statement (flattened)
        self.scoped: set[str] = set()  # locals assigned inside one: TF1 prefixed their tensors' names
        self.scalar_summaries: list[cst.Call] = []  # tf.compat.v1.summary.scalar calls run in TRAIN mode
        # SummarySaverHook (rules/planners/hooks.py): every summary call run in TRAIN mode, in graph order (what merge_all()
        # merges at a point of the model_fn); names bound to summary ops (each → the summary calls it runs); names
        # bound to SummarySaverHooks (→ the call and what it writes); the hooks training_hooks attach
        self.summary_calls: list[cst.Call] = []
        self.summary_ops: dict[str, list[cst.Call]] = {}
        self.summary_hook_names: dict[str, tuple[cst.Call, dict | str]] = {}
        self.summary_hooks: list[tuple[cst.Call, dict | str, str]] = []
        self.bindings: dict[str, dict[str, tuple[str, object]]] = {}  # name → mode → (kind, payload)
        self.pending_spec = None  # (name, EstimatorSpec call, statement, modes) until `return name`
        self.live = _ALL_MODES  # modes that have not returned yet
        self.active = _ALL_MODES  # modes that run the current statement
        self.spec_predictions: cst.BaseExpression | None = None
        self.spec_export_outputs: cst.Dict | None = None
        self.spec_metrics: cst.Dict | None = None
        self.support: list[str] = []
        self.notes: list[tuple[str, str, cst.CSTNode | None]] = []
        self.docstring: str | None = None
        self.weights: dict[str, bool] = {}  # get_variable results: Python name → partitioned in TF1
        self.partitioner_vars: dict[str, partitioners.PartitionerPlan] = {}
        self.partitioners: list[partitioners.PartitionerPlan] = []
        self.scope_partitioner: partitioners.PartitionerPlan | None = None
        self.pending_leading: list = []  # comments above a flattened variable_scope
        self.mod_rows = False

    # ---- helpers -------------------------------------------------------------------------------------------
    def tf(self, node) -> str | None:
        return self.names.of(node, self.locals)

    def mode_key(self, node) -> str | None:
        if isinstance(node, cst.Attribute):
            path = self.tf(node) or ""
            if path.startswith("estimator.ModeKeys.") and path.split(".")[-1] in MODES:
                return path.split(".")[-1]
        if isinstance(node, cst.SimpleString):
            return _MODE_STRINGS.get(node.evaluated_value)
        return None

    def mode_set(self, node) -> frozenset[str] | None:
        """The modes for which a test on `mode` is true (None: not a test on mode alone)."""
        if isinstance(node, cst.Name) and node.value in self.training_aliases:
            return frozenset({"TRAIN"})
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.mode_set(node.expression)
            return None if inner is None else _ALL_MODES - inner
        if isinstance(node, cst.BooleanOperation):
            left, right = self.mode_set(node.left), self.mode_set(node.right)
            if left is None or right is None:
                return None
            return left & right if isinstance(node.operator, cst.And) else left | right
        if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
            return None
        comp = node.comparisons[0]
        is_mode = lambda n: isinstance(n, cst.Name) and n.value == self.mode  # noqa: E731
        if isinstance(comp.operator, (cst.Equal, cst.NotEqual)):
            if is_mode(node.left):
                key = self.mode_key(comp.comparator)
            elif is_mode(comp.comparator):
                key = self.mode_key(node.left)
            else:
                return None
            if key is None:
                return None
            return frozenset({key}) if isinstance(comp.operator, cst.Equal) else _ALL_MODES - {key}
        if isinstance(comp.operator, (cst.In, cst.NotIn)) and is_mode(node.left):
            if not isinstance(comp.comparator, (cst.Tuple, cst.List, cst.Set)):
                return None
            keys = [self.mode_key(e.value) for e in comp.comparator.elements]
            if None in keys or any(isinstance(e, cst.StarredElement) for e in comp.comparator.elements):
                return None
            return frozenset(keys) if isinstance(comp.operator, cst.In) else _ALL_MODES - set(keys)
        return None

    def is_mode(self, node, key: str) -> bool:
        """`mode == ModeKeys.KEY` (or an equivalent test) — true exactly in that mode."""
        return self.mode_set(node) == frozenset({key})

    def training_flag(self, node: cst.BaseExpression | None) -> str:
        if node is None:
            return "False"  # TF1 dropout/batch_normalization default to inference behaviour
        if self.is_mode(node, "TRAIN"):
            return "training"
        if is_literal(node, True, False):
            return code(node)
        raise Blocked(layers.CODE, f"training={code(node)} is not `mode == ModeKeys.TRAIN` or a literal", node)

    def free_names(self, node: cst.CSTNode) -> set[str]:
        return {n.value for n in free_name_nodes(node)}

    def check_names(self, node: cst.CSTNode | str, allowed: set[str], where: str, report: cst.CSTNode | None = None) -> None:
        """`node` may be generated expression text: its names are read with `ast` (`_text_free_names`)."""
        if isinstance(node, str):
            names = _text_free_names(node)
            if names is None:
                node = cst.parse_expression(node)
        if not isinstance(node, str):
            names = self.free_names(node)
        bad = names - allowed - self.module_names - BUILTINS
        if bad:
            name = sorted(bad)[0]
            what = {self.labels: "labels", self.mode: "mode"}.get(name, f"`{name}`")
            if name in self.label_values:
                what = f"`{name}`, computed from labels,"
            elif name in self.dropped:
                what = f"`{name}` (a summary, dropped)"
            if name == self.mode and not isinstance(node, str):
                passed = self.mode_passed_to(node)
                if passed is not None and self.builds_no_layers(passed):  # moving it would not convert it
                    index = next(i for i, a in enumerate(passed.args)
                                 if isinstance(a.value, cst.Name) and a.value.value == self.mode)
                    raise Blocked(CODE, self.flag_passed_message(where, name, passed, passed.args[index], index),
                                  report or node)
                if passed is not None:
                    fn = code(passed.func)
                    raise Blocked(CODE, f"{where} passes mode to `{fn}()`, a function tfmigrate does not inline here "
                                        "(it is not defined in the model_fn's own module), so the converted model "
                                        f"cannot see mode; define `{fn}` in the model_fn's module: a helper there "
                                        "taking mode, or a bool such as `mode == tf.estimator.ModeKeys.TRAIN` for "
                                        "its training flag, is converted", report or node)
            if name in self.training_aliases and not isinstance(node, str):
                found = self.name_passed_to(node, name)
                if found is not None:
                    raise Blocked(CODE, self.flag_passed_message(where, name, *found), report or node)
            raise Blocked(CODE, f"{where} uses {what}, which the converted model cannot see", report or node)

    def name_passed_to(self, node: cst.CSTNode, name: str) -> tuple[cst.Call, cst.Arg, int] | None:
        """The first call in `node` given the local `name` itself as an argument: (call, argument, its position)."""
        for call in calls_in(node):
            if isinstance(call.func, (cst.Name, cst.Attribute)) and self.tf(call.func) is None:
                for i, arg in enumerate(call.args):
                    if isinstance(arg.value, cst.Name) and arg.value.value == name and not arg.star:
                        return call, arg, i
        return None

    def callee(self, call: cst.Call):
        """The def of the migrated files `call` calls (a FunctionRef), or None."""
        from tfmigrate.model import Value

        program, file = self.names.program, self.names.file
        ref = program.callee(Value(call.func, file), 0) if program is not None and file is not None else None
        return ref if ref is not None and isinstance(ref.node, cst.FunctionDef) else None

    def builds_no_layers(self, call: cst.Call) -> bool:
        ref = self.callee(call)
        return ref is not None and not builds_layers(ref, self.names.program)

    def flag_passed_message(self, where: str, name: str, call: cst.Call, arg: cst.Arg, index: int) -> str:
        """Why a training flag (`is_training = mode == ModeKeys.TRAIN`) given to a helper tfmigrate does not inline
        blocks: the helper, the argument, where the helper is, and the two forms that convert."""
        fn = code(call.func)
        short = fn.rsplit(".", 1)[-1]
        program, file = self.names.program, self.names.file
        ref = self.callee(call)
        param, builds = None, None
        in_layers = (f"or its layers built in the model_fn with `training={name}` passed to the Keras layers that "
                     "take it (Dropout, BatchNormalization; tf.compat.v1.layers dropout/batch_normalization too)")
        if ref is not None:
            params = ref.params
            param = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
            builds = builds_layers(ref, program)
            there = (f"defined in {ref.file.path}, not the model_fn's module" if ref.file is not file else
                     "a function of this module" + (" that builds layers but is not called as `y = "
                                                    f"{short}(...)`, the statement a network helper is inlined from"
                                                    if builds else " that builds no layers"))
        else:
            root = fn.split(".")[0]
            bindings = program.lookup(root, call, file) if program is not None and file is not None else []
            imported = next((b for b in bindings if b.kind in ("import", "from")), None)
            source = None if imported is None else program.absolute(imported.target, file)
            if imported is not None and imported.kind == "from" and root == fn:  # `from lib import net`: lib
                source = source.rpartition(".")[0] or source
            there = (f"imported from `{source}`, which is not among the migrated files" if source else
                     "not a def of the migrated files")
        argument = f"`{arg.keyword.value}=`" if arg.keyword is not None else f"its argument {index + 1}"
        if param is not None and (arg.keyword is None or param != arg.keyword.value):
            argument += f" (parameter `{param}`)"
        moved = (f"`{short}` defined in the model_fn's own module and called as `y = {short}(...)` (a network "
                 "helper there, one that builds layers, is inlined into the Keras model with the flag as its "
                 f"training flag), {in_layers}")
        if builds is False:  # a function computing with the flag: only layers given `training=` carry it
            moved = (f"the flag given to layers in the model_fn, `training={name}` on the Keras layers that take it "
                     "(Dropout, BatchNormalization; tf.compat.v1.layers dropout/batch_normalization too): a function "
                     "that computes with the flag without layers is not converted, wherever it is defined")
        flag = "mode" if name == self.mode else f"the training flag `{name}` (mode == ModeKeys.TRAIN)"
        return (f"{where} passes {flag} to `{fn}()` as {argument}; "
                f"`{fn}` is {there}, so the converted model cannot give it Keras' training flag. What converts: "
                f"{moved}")

    def mode_passed_to(self, node: cst.CSTNode) -> cst.Call | None:
        """The first call in `node` given `mode` itself as an argument (`network(features, mode)`), or None."""
        for call in calls_in(node):
            if isinstance(call.func, (cst.Name, cst.Attribute)) and self.tf(call.func) is None and any(
                    isinstance(a.value, cst.Name) and a.value.value == self.mode for a in call.args):
                return call
        return None

    def bind_name(self, target: str, kind: str, payload=None) -> None:
        per_mode = self.bindings.setdefault(target, {})
        for mode in self.active:
            per_mode[mode] = (kind, payload)

    def bound(self, name: str, kind: str) -> bool:
        """`name` holds `kind` in every mode running the current statement."""
        per_mode = self.bindings.get(name, {})
        return all(per_mode.get(m, (None,))[0] == kind for m in self.active)

    def free_local(self, base: str, taken: set[str]) -> str:
        name, n = base, 0
        while name in taken or name in self.fn_names or name in self.module_names or name in BUILTINS:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        return name

    def attrs(self) -> set[str]:
        return ({a for a, _ in self.layers if a} | self.list_attrs
                | {a for a, _, _ in (self.loop.sites if self.loop else [])})

    def free_attr(self, base: str) -> str:
        taken = self.attrs() | _MODEL_ATTRIBUTES
        name, n = base, 0
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        return name

    # ---- layer names ---------------------------------------------------------------------------------------
    def family(self, family: str, node) -> None:
        self.families.add(family)
        if len(self.families) > 1:
            raise Blocked(layers.CODE, "keras.layers objects and tf.compat.v1.layers in one model_fn: TF1 gave their "
                                       "variables names that do not follow the layer names (dense/kernel_1); use one "
                                       "of the two", node)

    def layer_name(self, kind: layers.LayerKind, explicit: str | None, node) -> str:
        """The static TF1 name of a tf.compat.v1 layer: its explicit name, else the first unused dense, dense_1, …"""
        if explicit is None:
            explicit, index = kind.base_name, 0
            while explicit in self.named_layers:
                index += 1
                explicit = f"{kind.base_name}_{index}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", node)
        self.named_layers.add(explicit)
        return explicit

    def keras_layer_name(self, kind: layers.LayerKind, explicit: str | None, node) -> str:
        """A keras.layers object built in a TF1 graph: Keras' own per-class counter (explicit names do not count)."""
        if explicit is None:
            count = self.keras_counts.get(kind.base_name, 0)
            self.keras_counts[kind.base_name] = count + 1
            explicit = kind.base_name if count == 0 else f"{kind.base_name}_{count}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", node)
        self.named_layers.add(explicit)
        return explicit

    def name_token(self, static: str | None, base: str, explicit: str | None) -> str:
        token = f"__tfmigrate_layer_name_{len(self.name_tokens)}__"
        self.name_tokens[token] = (static, base, explicit)
        return token

    def render_names(self, text: str) -> str:
        for token, (static, base, explicit) in self.name_tokens.items():
            if f'"{token}"' not in text:
                continue
            if not self.runtime_names:
                value = f'"{static}"'
            elif explicit is not None:
                value = f"tf1_name({explicit}, explicit=True)"
            else:
                value = f'tf1_name("{base}")'
            text = text.replace(f'"{token}"', value)
        return text

    # ---- forward pass ----------------------------------------------------------------------------------------
    def convert_forward(self, value: cst.BaseExpression, target: str) -> cst.BaseExpression:
        return _rename(value.visit(_Forward(self, target)), {name: f"self.{name}" for name in self.weights})

    def ctor_args(self, kind: layers.LayerKind, family: str, call: cst.Call) -> dict:
        args = bind(call, kind.ctor_args, f"{'keras' if family == 'keras' else 'tf.layers'}.{kind.keras}", layers.CODE)
        positional = sum(1 for a in call.args if a.keyword is None)
        if family == "keras" and positional > layers.KERAS_POSITIONAL.get(kind.keras, len(kind.ctor_args)):
            raise Blocked(layers.CODE, f"keras.layers.{kind.keras}: pass the arguments after the first "
                                       f"{layers.KERAS_POSITIONAL[kind.keras]} by name", call)
        self.check_names(call, {self.params} | (self.loop.targets if self.loop else set()), "a layer argument")
        return args

    def ctor(self, kind, args, name: str, node, family: str) -> str:
        if family == "keras":
            return layers.keras_ctor(kind, args, name, node, self.tf, keras_initializers=True)
        return layers.keras_ctor(kind, args, self.name_token(name, kind.base_name, None), node, self.tf)

    def functional_layer(self, kind: layers.LayerKind, args: dict, call_args: dict, node: cst.Call,
                         target: str) -> cst.BaseExpression:
        """A tf.compat.v1 layer built at this call: a Keras layer attribute (or a list of them inside a loop)."""
        if "inputs" not in call_args:
            raise Blocked(layers.CODE, "layer call without inputs", node)
        self.family("v1", node)
        explicit = args.get("name")
        if explicit is not None and is_literal(explicit, None):
            explicit = None
        if self.loop is not None:
            token = self.name_token(None, kind.base_name, None if explicit is None else code(explicit))
            ctor = layers.keras_ctor(kind, args, token, node, self.tf)
            self.check_names(ctor, {self.params, "keras", layers.TF1_BATCH_NORM}
                             | self.loop.targets, "a layer argument", node)
            if self.loop.branch:  # built in __init__ under the same `if`, called as an attribute
                attr = self.free_attr(layers.explicit_name(args) or f"{target}_{kind.base_name}")
                self.loop.sites.append((attr, f"self.{attr}", ctor))
                return self.layer_call(f"self.{attr}", kind, call_args["inputs"], call_args.get("training"))
            attr = self.free_attr(f"{kind.base_name}_layers")
            local = self.free_local(f"{kind.base_name}_layer", {s[1] for s in self.loop.sites} | self.loop.targets)
            self.loop.sites.append((attr, local, ctor))
            return self.layer_call(local, kind, call_args["inputs"], call_args.get("training"))
        literal_name = layers.explicit_name(args)
        if self.runtime_names:  # after a loop: TF1 counted at run time, so does the generated __init__
            token = self.name_token(None, kind.base_name, None if explicit is None else code(explicit))
            if literal_name is not None:
                self.named_layers.add(literal_name)
            attr = self.free_attr(literal_name or f"{target}_{kind.base_name}")
        else:
            name = self.layer_name(kind, literal_name, node)
            token = self.name_token(name, kind.base_name, None if explicit is None else code(explicit))
            attr = name
            if attr in self.attrs():
                raise Blocked(layers.CODE, f"layer name '{name}' is also a generated attribute; rename the layer", node)
        ctor = layers.keras_ctor(kind, args, token, node, self.tf)
        self.check_names(ctor, {self.params, "keras", layers.TF1_BATCH_NORM}, "a layer argument", node)
        self.layers.append((attr, ctor))
        return self.layer_call(f"self.{attr}", kind, call_args["inputs"], call_args.get("training"))

    def input_layer(self, call: cst.Call) -> cst.Call:
        """input_layer(features, columns) over numeric_columns (the program model read them, rules/program.py):
        the generated numeric_columns_input reads the same column objects at run time, as TF1's input layer did."""
        args = bind(call, _INPUT_LAYER_ARGS, "input_layer", variables.CODE)
        if _NUMERIC_COLUMNS_SUPPORT not in self.support:
            self.support.append(_NUMERIC_COLUMNS_SUPPORT)
        return cst.parse_expression(f"{_NUMERIC_COLUMNS_INPUT}({code(args['features'])}, "
                                    f"{code(args['feature_columns'])})")

    def embedding_lookup(self, call: cst.Call) -> cst.Call:
        args = bind(call, variables.EMBEDDING_LOOKUP, "tf.nn.embedding_lookup", variables.CODE)
        table, strategy = args.get("params"), args.get("partition_strategy")
        if isinstance(table, (cst.List, cst.Tuple)):
            raise Blocked(variables.CODE, "embedding_lookup on a list of shards is not converted: build one table "
                                          "with get_variable(partitioner=...)", call)
        if strategy is not None and not is_literal(strategy, "mod", "div"):
            raise Blocked(variables.CODE, "partition_strategy must be the literal 'mod' or 'div'", strategy)
        if "params" not in args or "ids" not in args:
            raise Blocked(variables.CODE, "embedding_lookup needs params and ids", call)
        ids = code(args["ids"])
        partitioned = isinstance(table, cst.Name) and self.weights.get(table.value, False)
        # tf.compat.v1.nn.embedding_lookup defaults to "mod"; TF2's tf.nn.embedding_lookup always reads "div"
        v1 = ".compat.v1." in (self.names.table.resolve(call.func, self.locals) or "")
        if partitioned and (is_literal(strategy, "mod") or (strategy is None and v1)):
            if self.tf1_partitions is None:
                raise Blocked(partitioners.CODE, "the lookup's row order depends on whether TF1 partitioned the table, "
                                                 "which this program's strategy decides at run time", call)
            if self.tf1_partitions:
                if {"tf1_mod_rows", "VARIABLE_PARTITIONER"} & self.module_names:
                    raise Blocked(partitioners.CODE, "tf1_mod_rows/VARIABLE_PARTITIONER are taken in this module", call)
                self.mod_rows = True
                ids = f"tf1_mod_rows({ids}, {table.value}, VARIABLE_PARTITIONER)"
        kept = [code(table), ids] + [f"{k}={code(args[k])}" for k in ("max_norm", "name") if k in args]
        return cst.parse_expression(f"{generated('tf.nn.embedding_lookup')}({', '.join(kept)})")

    def check_partitioner_names(self, node: cst.CSTNode) -> None:
        bad = self.free_names(node) - self.module_names - BUILTINS
        if bad:
            raise Blocked(partitioners.CODE, f"the partitioner uses `{sorted(bad)[0]}`: TF2 builds it with the strategy, "
                                             "outside the model; use literals or module-level constants", node)

    def partitioner(self, node: cst.BaseExpression) -> partitioners.PartitionerPlan:
        if isinstance(node, cst.Name) and node.value in self.partitioner_vars:
            plan = self.partitioner_vars[node.value]
        elif isinstance(node, cst.Call):
            plan = partitioners.convert(node, self.tf, self.check_partitioner_names)
        else:
            raise Blocked(partitioners.CODE, "a partitioner must be a tf.compat.v1 partitioner call (or a name "
                                             "assigned one in model_fn)", node)
        self.partitioners.append(plan)
        return plan

    def layer_call(self, layer: str, kind: layers.LayerKind, inputs, training) -> cst.BaseExpression:
        inputs_text = code(inputs)
        text = f"{layer}({inputs_text}"
        flag = None
        if kind.takes_training:
            flag = self.training_flag(training)
            text += f", training={flag}"
            if kind.keras == "BatchNormalization" and flag != "False":
                self.batch_norm_training = True
        built = _layer_call_node(layer, inputs, inputs_text, flag)
        return built if built is not None else cst.parse_expression(text + ")")

    # ---- statements ------------------------------------------------------------------------------------------
    def run(self) -> None:
        body = list(self.fn.body.body)
        if body and _docstring(body[0]) is not None:
            self.docstring = _docstring(body[0])
            body = body[1:]
        errors = self.each(self.static_locals(body))
        if self.signature_blocked is not None:
            raise Blocked.many([self.signature_blocked, *errors])
        if errors:
            raise Blocked.many(errors)
        if self.pending_spec is not None:
            self.unreturned_spec()
        if self.live:
            raise Blocked(CODE, "model_fn has no final `return EstimatorSpec(...)`", self.fn)

    def each(self, stmts, handle=None, tainted: set[str] | None = None) -> list[Blocked]:
        """Interpret `stmts` in order (each with `handle`, by default `statement`) and return every blocker found,
        each at its own line, not only the first: after a blocked statement the walk goes on with the state from
        before it, past the statements that read what it bound (whatever they report would follow from that
        blocker). A block of a branch, loop or `with` is walked so too; `tainted` (names bound by a blocked
        statement) may be shared by the arms of one `if`."""
        handle = handle or self.statement
        errors: list[Blocked] = []
        tainted = set() if tainted is None else tainted
        for stmt in stmts:
            if tainted and _names_read_anywhere(stmt) & tainted:
                tainted |= _statement_targets(stmt)
                continue
            saved = dict(self.__dict__)
            try:
                handle(stmt)
            except Blocked as blocked:
                errors.extend(self.as_written(e, stmt) for e in blocked.errors)
                kept = getattr(blocked, "kept", None)
                if kept is not None:  # a block whose other statements were interpreted: their state stays
                    tainted |= kept
                    continue
                self.__dict__.update(saved)
                tainted |= _statement_targets(stmt)
                if not isinstance(stmt, cst.FunctionDef) and _has_return([stmt]):  # which branches return: unknown
                    tainted.add(_RETURNED)
                    break
            except Exception:
                if not errors:
                    raise
                tainted.add(_RETURNED)
                break  # a state the blocked statement left half-made: what was found is reported
        return errors

    @staticmethod
    def blocked_inside(errors: list[Blocked], tainted: set[str]) -> Blocked:
        """The blockers of statements inside a block (a branch, a `with`) whose other statements were interpreted:
        the walk around it goes on with their state, past what the blocked ones bound (`tainted`), unless one of
        them held a return (which branches return is then unknown)."""
        out = Blocked.many(errors)
        if _RETURNED not in tainted:
            out.kept = frozenset(tainted)
        return out

    def as_written(self, error: Blocked, stmt) -> Blocked:
        """A blocker of a statement the static locals were substituted in, at the statement as written when its node
        is one of the copy's (which has no position in the file)."""
        original = self.written.get(id(stmt))
        if original is None or error.node is None or any(n is error.node for n in _walk_statements(original)):
            return error
        moved = Blocked(error.code, error.message, _counterpart(stmt, original, error.node) or original)
        return moved

    def static_locals(self, body: list) -> list:
        """`units = params["units"]` (assigned once, at the top level of the body, from a value `__init__` can
        compute too): its reads take the value itself, so layer and optimizer arguments built from it stay
        constructor arguments; the assignment goes (its comments move to the next statement)."""
        self.statics: dict[str, cst.BaseExpression] = {}
        self.written: dict[int, cst.CSTNode] = {}  # id(substituted copy) → the statement as written
        out, leading = [], []
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if self.statics:
                original, stmt = stmt, _substitute(stmt, {k: _parenthesized(v) for k, v in self.statics.items()})
                self.written[id(stmt)] = original
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and self.assign_counts.get(small.targets[0].target.value) == 1
                    and small.targets[0].target.value not in self.locals
                    and _static_test(stmt.body[0].value, set(self.module_names | {self.params} | set(self.statics)))):
                self.statics[small.targets[0].target.value] = stmt.body[0].value
                leading.extend(line for line in stmt.leading_lines if line.comment is not None)
                continue
            if leading:
                stmt = stmt.with_changes(leading_lines=[*leading, *stmt.leading_lines])
                leading = []
            out.append(stmt)
        if self.statics and any(_names_read_anywhere(stmt) & set(self.statics) for stmt in out):
            self.statics = {}  # still read where substitution does not reach (a lambda, a nested def): keep as is
            return body
        return out

    def unreturned_spec(self):
        target, _, stmt, _ = self.pending_spec
        raise Blocked(CODE, f"`{target} = tf.estimator.EstimatorSpec(...)` is converted when the next statement is "
                            f"`return {target}`; return the EstimatorSpec there (or directly)", stmt)

    def statement(self, stmt: cst.BaseStatement) -> None:
        if self.pending_spec is not None:  # `spec = EstimatorSpec(...)`: this statement must be `return spec`
            target, value, _, active = self.pending_spec
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if not (isinstance(small, cst.Return) and isinstance(small.value, cst.Name)
                    and small.value.value == target and self.active == active):
                self.unreturned_spec()
            self.pending_spec = None
            self.returns(small.with_changes(value=value))
            return
        if not self.live:
            raise Blocked(CODE, "code after the final return is not converted", stmt)
        if not self.active:
            raise Blocked(CODE, "code after a return in the same branch is not converted", stmt)
        if isinstance(stmt, cst.SimpleStatementLine) and self.tpu is not None:
            stmt = self.use_tpu_choice(stmt)
            self.no_tpu_ops(stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            self.simple(stmt)
        elif isinstance(stmt, cst.If) and self.tpu is not None and self.use_tpu_test(stmt.test) is not None:
            self.use_tpu_branch(stmt)
        elif isinstance(stmt, cst.If):
            self.mode_branch(stmt)
        elif isinstance(stmt, cst.FunctionDef) and self.tpu is not None and not stmt.decorators:
            self.tpu_fns[stmt.name.value] = stmt  # a metric_fn: inlined where eval_metrics names it
        elif isinstance(stmt, cst.With):
            self.with_block(stmt)
        elif isinstance(stmt, cst.For):
            self.for_loop(stmt)
        elif isinstance(stmt, cst.FunctionDef):
            self.nested_def(stmt)
        elif isinstance(stmt, cst.While):
            raise Blocked(CODE, "a while loop in model_fn is not converted: only `for` loops over Python values "
                                "(params, module constants, range(...)) are", stmt)
        else:
            raise Blocked(CODE, f"{type(stmt).__name__.lower()} statement in model_fn is not converted", stmt)

    def nested_def(self, stmt: cst.FunctionDef) -> None:
        """`def block(x, n): return tf.compat.v1.layers.dense(x, n, ...)` inside the model_fn: a network helper like a
        module-level one, inlined where it is called (its free names are the model_fn's, as in the closure); the
        def goes with the model_fn."""
        name = stmt.name.value
        if self.active != self.live or self.loop is not None:
            raise Blocked(CODE, f"`def {name}` inside a branch or loop of the model_fn is not converted: define it at "
                                "the top of the model_fn", stmt)
        if stmt.decorators or stmt.asynchronous is not None:
            raise Blocked(CODE, f"`def {name}` in the model_fn has decorators or is async: not converted", stmt)
        if self.assign_counts.get(name) or name in self.nested_helpers or name in self.locals:
            raise Blocked(CODE, f"`{name}` is bound more than once in the model_fn: its nested def is not converted",
                          stmt)
        if not self._helper_builds(stmt, set()):
            raise Blocked(CODE, f"`def {name}` inside the model_fn builds no layers: only network helpers (functions "
                                "that build layers) are converted there; move it to module level", stmt)
        self.helpers[name] = stmt  # shadows a module-level function of the same name, as Python does
        self.nested_helpers.add(name)
        self.pending_leading.extend(line for line in stmt.leading_lines if line.comment is not None)

    def simple(self, stmt: cst.SimpleStatementLine) -> None:
        if len(stmt.body) != 1:
            raise Blocked(CODE, "several statements on one line are not converted", stmt)
        small = stmt.body[0]
        kind = type(small)  # (exact types: see _LITERALS)
        if kind is cst.Return:
            self.returns(small)
            return
        if kind is cst.Pass:
            return
        if (kind is cst.Import or kind is cst.ImportFrom) and _imports_tensorflow_only(small):
            # `import tensorflow as tf` inside the model_fn, repeating a module-level import: the names mean what
            # the module's import makes them mean (the converted module keeps its TensorFlow import); the
            # statement goes with the model_fn. Another binding would change what the body's names mean: blocked.
            if self.module_imports is None:
                from tfmigrate.names import build_import_table

                self.module_imports = build_import_table(self.module) if self.module is not None else None
            for name, target in _import_targets(small):
                if self.module_imports is None or not any(
                        b.kind in ("import", "from") and b.target == target
                        for b in self.module_imports.bindings.get(name, ())):
                    raise Blocked(CODE, f"`{code(small).strip()}` inside the model_fn binds `{name}` to {target}, "
                                        "which no module-level import does: import it at module level (the "
                                        "converted model reads the module's names)", stmt)
            return
        if kind is cst.Assert:  # `assert mode == ModeKeys.TRAIN`: the other modes stop here
            modes = self.mode_set(small.test)
            if modes is None:
                raise Blocked(CODE, f"`assert {code(small.test)}` is not converted: only asserts on mode are", stmt)
            self.live = self.live - (self.active - modes)
            self.active = self.active & modes
            return
        if kind is cst.Expr:
            self.expression(small.value, stmt)
            return
        if kind is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Tuple:
            self.tuple_assign(small.targets[0].target, small.value, stmt)
            return
        if not (kind is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name):
            raise Blocked(CODE, f"statement `{code(small).strip()}` in model_fn is not converted", stmt)
        target = small.targets[0].target.value
        value = small.value
        helper = self.layer_helper(value)
        if helper is not None:
            self.inline_helper(target, value, helper, stmt)
            return
        if self.loop is not None:
            self.forward_statement(target, stmt, small)
            return
        if isinstance(value, cst.Call) and self.is_spec(value):
            self.pending_spec = (target, value, stmt, self.active)  # returned by the next statement
            return
        if self.tpu is not None and isinstance(value, cst.Tuple) and self.assign_counts.get(target) == 1 \
                and len(value.elements) == 2 and isinstance(value.elements[0].value, cst.Name) \
                and value.elements[0].value.value in set(self.tpu_fns) | set(self.helpers):
            self.tpu_metrics[target] = value  # `eval_metrics = (metric_fn, [labels, logits])`
            return
        if isinstance(value, cst.Call) and self.tf(value) in ("keras.Input", "keras.layers.Input"):
            self.keras_input(target, value, stmt)
            return
        if self.symbolic_layer(target, value, stmt):
            return
        if self.layer_list(target, value):
            return
        self.symbolic.pop(target, None)  # rebound to something else
        if isinstance(value, cst.Call) and self.tf(value) in _KERAS_MODELS:
            self.keras_model(target, value, value)
            return
        helper = self.model_helper(value)
        if helper is not None:
            self.keras_model(target, helper, value)
            return
        if isinstance(value, cst.Call) and losses.keras_loss_class(self.tf(value)):
            self.whole_model("a Keras loss object", value)
            self.check_names(value, {self.params}, "the Keras loss's arguments")
            self.loss_objects[target] = (losses.keras_loss_object(value, self.tf(value), self.tf), stmt)
            self.bind_name(target, "loss_object")
            return
        path = self.tf(value) if isinstance(value, cst.Call) else None
        method = value.func.attr.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) else None
        comprehension = self.grads_of(value) if isinstance(value, cst.ListComp) else None  # over gradients?
        if is_literal(value, None):
            self.bind_name(target, "none")
        elif self.mode_set(value) == frozenset({"TRAIN"}):
            self.training_aliases.add(target)
        elif hooks.hook_kind(path) == hooks.NAN:
            self.nan_hook(value)
            self.nan_hooks[target] = value
            self.bind_name(target, "dropped")
        elif hooks.hook_kind(path) in (hooks.LOGGING, hooks.STEP_COUNTER):
            self.logging_names[target] = value  # converted in plan() where training_hooks attach it
            self.bind_name(target, "dropped")
        elif hooks.hook_kind(path) == hooks.SUMMARY:
            # what it writes is read here: merge_all() merges the summaries built so far
            self.summary_hook_names[target] = (value, self.summary_hook(value))
            self.bind_name(target, "dropped")
        elif path in ("summary.merge_all", "summary.merge"):
            self.summary_ops[target] = self.summary_op_calls(value)
            self.dropped.add(target)
            self.bind_name(target, "dropped")
        elif self.drop(path, value):
            if path.startswith("summary."):
                self.summary_ops[target] = [value]
            self.dropped.add(target)
            self.bind_name(target, "dropped")
        elif path in ("train.get_global_step", "train.get_or_create_global_step"):
            self.global_steps.add(target)
        elif path == "get_collection":
            if not self.is_update_ops(value):
                raise Blocked(CODE, "only get_collection(GraphKeys.UPDATE_OPS) is converted", value)
            self.update_ops.add(target)
        elif optimizers.decay_name(path):
            self.schedules[target] = optimizers.convert_decay(value, optimizers.decay_name(path), self.is_global_step)
            self.check_names(value, {self.params} | self.global_steps, "the learning rate")
        elif optimizers.optimizer_name(path):
            self.optimizer = (target, value)
        elif method == "minimize":
            self.minimize(target, value)
        elif method == "compute_gradients":
            self.grads[target] = self.compute_gradients(value)
        elif method == "apply_gradients":
            self.apply_gradients(target, value)
        elif path == "gradients":
            self.grads[target] = self.tf_gradients(value)
        elif path == "trainable_variables":
            if value.args:
                raise Blocked(optimizers.CODE, "trainable_variables(scope=...) is not converted: TF2 trains every "
                                               "trainable variable of the model", value)
            self.trainable_lists.add(target)
        elif path == "clip_by_global_norm":
            raise Blocked(optimizers.CODE, "assign both results of clip_by_global_norm: `grads, _ = "
                                           "tf.clip_by_global_norm(grads, clip_norm)`", value)
        elif comprehension is not None and comprehension.kind == "vars":
            self.trainable_lists.add(target)
        elif comprehension is not None:
            self.grads[target] = comprehension
        elif path == "group":
            self.group(target, value)
        elif losses.is_loss(path):
            self.tf_loss(target, value, path)
        elif path == "losses.get_total_loss":
            self.total_loss(target, value)
        elif path == "losses.add_loss":
            raise Blocked(losses.CODE, "tf.losses.add_loss is not converted: add the term to the loss expression", value)
        elif metrics.metric_name(path):
            self.metric_vars[target] = value
        elif export_rules.is_export_output(path):
            self.bind_name(target, "export_output", value)  # read by export_outputs (rules/planners/export_outputs.py)
        elif isinstance(value, cst.Dict):
            self.dicts[target] = value
            if self.scope_depth:
                self.scoped.add(target)
            self.bind_name(target, "dict", value)
        elif partitioners.name_of(path):
            self.partitioner_vars[target] = partitioners.convert(
                value, self.tf, self.check_partitioner_names)
        elif path == "get_variable":
            self.whole_model("get_variable", value)
            self.get_variable(target, value, stmt.leading_lines)
        elif layers.kind_of(path) and layers.kind_of(path)[0] in ("class", "keras"):
            self.whole_model("a layer", value)
            family, kind = layers.kind_of(path)
            args = self.ctor_args(kind, family, value)
            name = None
            if family == "keras":
                self.family("keras", value)
                name = self.keras_layer_name(kind, layers.explicit_name(args), value)
            self.class_layers[target] = (kind, args, value, "v1" if family == "class" else "keras", name)
        elif self.uses_labels(value) and not self.builds_layers(value):
            self.label_value(target, stmt, value)
        else:
            self.forward_statement(target, stmt, small)

    def model_helper(self, value) -> cst.Call | None:
        """`build_model()`: a module-level function without parameters that returns a keras.Sequential built in it
        (`return tf.keras.Sequential([...])`, or `model = ...` then `return model`). Called in the model_fn, it
        built the model in the Estimator's graph like an inline one."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and not value.args
                and value.func.value in self.helpers and value.func.value not in self.locals):
            return None
        fn = self.helpers[value.func.value]
        body = [s for s in fn.body.body if _docstring(s) is None]
        smalls = [s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None for s in body]
        built = None
        if len(smalls) == 1 and isinstance(smalls[0], cst.Return):
            built = smalls[0].value
        elif (len(smalls) == 2 and isinstance(smalls[0], cst.Assign) and isinstance(smalls[1], cst.Return)
              and len(smalls[0].targets) == 1 and isinstance(smalls[0].targets[0].target, cst.Name)
              and isinstance(smalls[1].value, cst.Name)
              and smalls[1].value.value == smalls[0].targets[0].target.value):
            built = smalls[0].value
        if not (isinstance(built, cst.Call) and self.tf(built) in _KERAS_MODELS):
            return None
        if (fn.params.params or isinstance(fn.params.star_arg, cst.Param) or fn.params.kwonly_params
                or fn.params.star_kwarg is not None):
            raise Blocked(layers.CODE, f"{value.func.value}() builds a Keras model from parameters; only a helper "
                                       "without parameters is converted (build the model in model_fn)", value)
        return built

    def keras_model(self, target: str, value: cst.Call, node) -> None:
        """`model = tf.keras.Sequential([tf.keras.layers.Dense(...), ...])` in the model_fn: a keras.Sequential
        attribute named as Keras named it in the TF1 graph ("sequential", "sequential_1", … per graph), its layers
        named by Keras' per-class counter, so its variables keep their TF1 names (`sequential/dense/kernel`)."""
        self.whole_model("a Keras model", node)
        path = self.tf(value)
        if path in ("keras.Model", "keras.models.Model"):
            self.functional_model(target, value)
            return
        args = bind(value, ["layers", "name", "trainable"], f"tf.{path}", layers.CODE)
        if "trainable" in args and not is_literal(args["trainable"], True):
            raise Blocked(layers.CODE, "Sequential(trainable=...) is not converted", value)
        elements = args.get("layers")
        if not isinstance(elements, (cst.List, cst.Tuple)):
            raise Blocked(layers.CODE, "the Sequential's layers must be written as a list of tf.keras.layers "
                                       "constructors (model.add(...) and computed lists are not converted)", value)
        self.family("keras", value)
        ctors, training_layers = [], []
        for element in elements.elements:
            layer = element.value
            found = layers.kind_of(self.tf(layer)) if isinstance(layer, cst.Call) and not isinstance(element, cst.StarredElement) else None
            if not found or found[0] != "keras":
                raise Blocked(layers.CODE, f"`{code(layer)}` in a Sequential is not converted: only "
                                           f"tf.keras.layers {', '.join(sorted(layers.CLASSES))} constructors are",
                              layer)
            kind = found[1]
            # input_shape only builds the model early (same weights); Keras 3 builds it at the first call
            call = layer.with_changes(args=[a for a in layer.args
                                            if not (a.keyword and a.keyword.value in ("input_shape", "input_dim"))])
            ctor_args = self.ctor_args(kind, "keras", call)
            name = self.keras_layer_name(kind, layers.explicit_name(ctor_args), layer)
            ctors.append(self.ctor(kind, ctor_args, name, call, "keras"))
            if kind.takes_training:
                training_layers.append((kind, layer))
        explicit = layers.explicit_name(args)
        if explicit is None:
            count = self.keras_counts.get("sequential", 0)
            self.keras_counts["sequential"] = count + 1
            explicit = "sequential" if count == 0 else f"sequential_{count}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", value)
        self.named_layers.add(explicit)
        attr = self.free_attr(explicit)
        inner = ",\n".join("    " + c for c in ctors)
        self.layers.append((None, f"self.{attr} = keras.Sequential([\n{inner},\n], name=\"{explicit}\")"))
        self.keras_models[target] = (attr, training_layers)

    def layer_list(self, target: str, value) -> bool:
        """`hidden = [tf.keras.layers.Dense(32), tf.keras.layers.Dense(10)]`: a list attribute of the layers, named
        by Keras' per-class counters as the TF1 graph named them (`dense/kernel`, no enclosing scope); the model_fn
        calls them in a `for layer in hidden:` loop."""
        if not (isinstance(value, (cst.List, cst.Tuple)) and value.elements and all(
                isinstance(e, cst.Element) and isinstance(e.value, cst.Call)
                and (layers.kind_of(self.tf(e.value)) or (None,))[0] == "keras" for e in value.elements)):
            return False
        self.whole_model("a list of Keras layers", value)
        self.family("keras", value)
        ctors, training_layers = [], []
        for element in value.elements:
            kind = layers.kind_of(self.tf(element.value))[1]
            args = self.ctor_args(kind, "keras", element.value)
            name = self.keras_layer_name(kind, layers.explicit_name(args), element.value)
            ctors.append(self.ctor(kind, args, name, element.value, "keras"))
            if kind.takes_training:
                training_layers.append((kind, element.value))
        attr = self.free_attr(f"{target}_layers" if target in _MODEL_ATTRIBUTES else target)
        inner = ",\n".join("    " + c for c in ctors)
        self.layers.append((None, f"self.{attr} = [\n{inner},\n]"))
        self.list_attrs.add(attr)
        self.held_in_lists.add(attr)
        self.layer_lists[target] = (attr, training_layers)
        return True

    def layer_list_loop(self, stmt: cst.For) -> None:
        """`for layer in hidden: x = layer(x)` over a list of Keras layers: the same loop over the list attribute."""
        attr, training_layers = self.layer_lists[stmt.iter.value]
        if not isinstance(stmt.target, cst.Name) or stmt.orelse is not None:
            raise Blocked(CODE, "a loop over Keras layers is converted as `for layer in layers:` (no else)", stmt)
        self.whole_model("a loop", stmt)
        layer = stmt.target.value
        body = []
        for inner in stmt.body.body:
            small = inner.body[0] if isinstance(inner, cst.SimpleStatementLine) and len(inner.body) == 1 else None
            value = getattr(small, "value", None)
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and isinstance(value, cst.Call)
                    and isinstance(value.func, cst.Name) and value.func.value == layer):
                raise Blocked(CODE, f"`{code(inner).strip()}` in a loop over Keras layers is not converted: only "
                                    f"`x = {layer}(x)` (with training=...) is", inner)
            args = bind(value, ["inputs", "training"], f"{layer}(...)", layers.CODE)
            if "inputs" not in args:
                raise Blocked(layers.CODE, f"{layer}(...) without inputs", value)
            self.check_names(args["inputs"], self.forward, f"`{code(inner).strip()}`", inner)
            flag = self.training_flag(args.get("training"))
            for kind, node in training_layers:
                if kind.keras == "BatchNormalization" and flag != "False":
                    raise Blocked(layers.CODE, "a tf.keras BatchNormalization called in training mode: the Estimator "
                                               "never ran its moving-average updates (they are not in UPDATE_OPS), "
                                               "Keras 3 runs them; call it with training=False", node)
            extra = f", training={flag}" if training_layers or "training" in args else ""
            target = small.targets[0].target.value
            body.append(inner.with_changes(body=[small.with_changes(
                value=cst.parse_expression(f"{layer}({code(args['inputs'])}{extra})"))]))
            self.forward.add(target)
            self.bind_name(target, "forward")
        self.call_body.append(stmt.with_changes(iter=cst.parse_expression(f"self.{attr}"),
                                                body=stmt.body.with_changes(body=body)))

    def keras_input(self, target: str, value: cst.Call, stmt) -> None:
        """`inputs = tf.keras.Input(shape=...)`: the start of a functional model (no variables of its own)."""
        self.whole_model("a Keras model", value)
        args = bind(value, ["shape", "batch_size", "name", "dtype"], f"tf.{self.tf(value)}", layers.CODE)
        self.check_names(value, {self.params}, "the Keras Input's arguments")
        text = f"{target} = keras.Input({', '.join(f'{k}={code(v)}' for k, v in args.items())})"
        self.symbolic[target] = ([text], [])

    def symbolic_layer(self, target: str, value, stmt) -> bool:
        """`x = tf.keras.layers.Dense(...)(inputs)` on a functional model's symbolic tensor: a line of the model's
        construction, the layer named by Keras' per-class counter (TF1 built it right there, outside any scope)."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Call) and len(value.args) == 1
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value in self.symbolic):
            return False
        found = layers.kind_of(self.tf(value.func))
        if not found or found[0] != "keras":
            raise Blocked(layers.CODE, f"`{code(value.func)}` on a Keras symbolic tensor is not converted: only "
                                       f"tf.keras.layers {', '.join(sorted(layers.CLASSES))} constructors are", value)
        if value.args[0].keyword is not None or value.args[0].star:
            raise Blocked(layers.CODE, "call the layer on the symbolic tensor positionally", value)
        kind = found[1]
        self.family("keras", value)
        ctor_args = self.ctor_args(kind, "keras", value.func)
        name = self.keras_layer_name(kind, layers.explicit_name(ctor_args), value)
        lines, training_layers = self.symbolic[value.args[0].value.value]
        ctor = self.ctor(kind, ctor_args, name, value.func, "keras")
        self.symbolic[target] = ([*lines, f"{target} = {ctor}({value.args[0].value.value})"],
                                 [*training_layers, *([(kind, value)] if kind.takes_training else [])])
        return True

    def functional_model(self, target: str, value: cst.Call) -> None:
        """`model = tf.keras.Model(inputs, outputs)` over an Input and layer calls: the same construction in
        `__init__` (a keras.Model attribute); its layers' variables were `dense/kernel` in TF1 (built before the
        model existed, outside its scope) and are `dense/kernel` below the Keras 3 model too."""
        args = bind(value, ["inputs", "outputs", "name", "trainable"], f"tf.{self.tf(value)}", layers.CODE)
        if "trainable" in args and not is_literal(args["trainable"], True):
            raise Blocked(layers.CODE, "Model(trainable=...) is not converted", value)
        inputs, outputs = args.get("inputs"), args.get("outputs")
        if not (isinstance(inputs, cst.Name) and isinstance(outputs, cst.Name) and inputs.value in self.symbolic
                and outputs.value in self.symbolic):
            raise Blocked(layers.CODE, "a functional keras.Model is converted with one tf.keras.Input and one output "
                                       "built from it in model_fn by tf.keras.layers calls", value)
        lines, training_layers = self.symbolic[outputs.value]
        if lines[0] != self.symbolic[inputs.value][0][0]:
            raise Blocked(layers.CODE, "the model's output is not built from its input", value)
        local_names = {line.split(" = ", 1)[0] for line in lines}
        taken = local_names & {"self", "keras", self.params}
        if taken:
            raise Blocked(layers.CODE, f"the functional model's tensor `{sorted(taken)[0]}` would shadow a name the "
                                       "generated __init__ needs; rename it", value)
        explicit = layers.explicit_name(args) or "model"
        attr = self.free_attr(f"{target}_model" if target in _MODEL_ATTRIBUTES else target)
        self.layers.append((None, "\n".join([*lines, f"self.{attr} = keras.Model(inputs={inputs.value}, "
                                                     f"outputs={outputs.value}, name=\"{explicit}\")"])))
        self.keras_models[target] = (attr, training_layers)

    def keras_model_call(self, name: str, call: cst.Call) -> cst.BaseExpression:
        attr, training_layers = self.keras_models[name]
        args = bind(call, ["inputs", "training", "mask"], f"{name}(...)", layers.CODE)
        if "mask" in args or "inputs" not in args:
            raise Blocked(layers.CODE, f"{name}(...) is converted with inputs and training only", call)
        flag = self.training_flag(args.get("training"))
        for kind, layer in training_layers:
            if kind.keras == "BatchNormalization" and flag != "False":
                raise Blocked(layers.CODE, "a tf.keras BatchNormalization in a Keras model called in training mode: "
                                           "the Estimator never ran its moving-average updates (they are not in "
                                           "UPDATE_OPS), Keras 3 runs them; call the model with training=False, or "
                                           "use tf.compat.v1.layers.batch_normalization with UPDATE_OPS", layer)
        return cst.parse_expression(f"self.{attr}({code(args['inputs'])}, training={flag})")

    def forward_statement(self, target: str, stmt: cst.SimpleStatementLine, small: cst.Assign) -> None:
        value = small.value
        self.refuse_variable_makers(value, stmt)
        if self.loop is None and self.active != self.live and target not in self.forward | set(self.label_values) \
                and not self.builds_layers(value) and not self.uses_labels(value) \
                and not self.free_names(value) & set(self.weights):
            # a tensor op inside a mode branch (`probabilities = tf.nn.softmax(logits)` before the PREDICT return):
            # not part of the model; predictions/metrics that read it get it written out
            self.check_names(value, self.forward | set(self.forward_exprs), f"`{target} = ...`", stmt)
            self.forward_exprs[target] = value
            self.bind_name(target, "forward")
            return
        if self.loss is not None:
            raise Blocked(CODE, f"`{target} = ...` after the loss is not converted", stmt)
        if self.loop is None:
            self.whole_model(f"`{target} = ...`", stmt)
        if self.uses_labels(value):
            self.check_names(value, self.forward, f"`{target} = ...`", stmt)
        new_value = self.convert_forward(value, target)
        generated_names = {TF, *({"tf1_mod_rows", "VARIABLE_PARTITIONER"} if self.mod_rows else ()),
                           *((_NUMERIC_COLUMNS_INPUT,) if self.input_layers is True else ())}
        loop_names = self.loop.targets | {s[1] for s in self.loop.sites} if self.loop else set()
        self.check_names(new_value, self.forward | generated_names | loop_names | {self.params, "self", "training"},
                         f"`{target} = ...`", stmt)
        self.forward.add(target)
        self.bind_name(target, "forward")
        if self.loop is None and not self.builds_layers(value) and not self.free_names(value) & set(self.weights) \
                and not any(self.tf(c) == _INPUT_LAYER for c in calls_in(value)):
            self.forward_exprs[target] = value
            if self.scope_depth:
                self.scoped.add(target)
        new_stmt = stmt.with_changes(body=[small.with_changes(value=new_value)])
        if self.pending_leading:
            new_stmt = new_stmt.with_changes(leading_lines=[*self.pending_leading, *new_stmt.leading_lines])
            self.pending_leading = []
        (self.loop.body if self.loop else self.call_body).append(new_stmt)

    def whole_model(self, what: str, node) -> None:
        """The model is the same in every mode: what builds it cannot sit in a mode branch."""
        if self.active != self.live:
            modes = "/".join(m for m in MODES if m in self.active)
            raise Blocked(CODE, f"{what} runs only in {modes}: the Keras model is one forward pass for every mode; "
                                "move it out of the mode branch", node)

    def builds_layers(self, node) -> bool:
        for call in calls_in(node):
            if layers.kind_of(self.tf(call)) or (isinstance(call.func, cst.Name) and (
                    call.func.value in self.class_layers or call.func.value in self.keras_models)):
                return True
        return False

    def layer_helper(self, value) -> cst.FunctionDef | None:
        """`net(features, ...)` calling a function of this module that builds layers (directly or through another
        such function): a network helper, whose statements are the model's."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        fn = self.helpers.get(value.func.value)
        if fn is None or value.func.value in self.locals or value.func.value in self.assign_counts:
            return None
        try:
            if self.model_helper(value) is not None:  # `build_model()` returning a Keras model: keras_model()
                return None
        except Blocked:  # a Keras model built from parameters: inlined, its arguments then known
            pass
        return fn if self._helper_builds(fn, set()) else None

    def _helper_builds(self, fn: cst.FunctionDef, seen: set[str]) -> bool:
        seen.add(fn.name.value)
        found = False
        for call in calls_in(fn.body):  # (every call looked at, in walk order: `seen` grows as it did)
            path = self.tf(call)
            if layers.kind_of(path) or path in ("get_variable", "variable_scope") or (path and makes_variables(path)):
                found = True
            elif isinstance(call.func, cst.Name) and call.func.value in self.helpers \
                    and call.func.value not in seen and self._helper_builds(self.helpers[call.func.value], seen):
                found = True
        return found

    def inline_helper(self, target: str, call: cst.Call, fn: cst.FunctionDef, stmt) -> None:
        """`target = net(args)`: the helper's body runs here, as TF1 ran it inside the model_fn (each call builds its
        own layers, named in call order): `param = arg` for each parameter, its statements, then `target = <its
        return value>`. Its locals are renamed `<helper>_<name>` where the model_fn uses the name too."""
        name = fn.name.value
        if self.loop is not None:
            raise Blocked(CODE, f"{name}() builds layers and is called in a loop: not converted (TF1 built new layers "
                                "on every call); call it once per tower outside the loop", stmt)
        if name in self.inlining or len(self.inlining) > 8:
            raise Blocked(CODE, f"{name}() calls itself: a recursive network helper is not converted", stmt)
        p = fn.params
        if p.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or p.star_kwarg is not None or p.posonly_params:
            raise Blocked(CODE, f"{name}() takes *args/**kwargs or positional-only parameters: its layers are not "
                                "converted; give it plain parameters", fn)
        params = [*p.params, *p.kwonly_params]
        args: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            if arg.star:
                raise Blocked(CODE, f"{name}(*...) / {name}(**...) is not converted: pass its arguments one by one",
                              call)
            if arg.keyword is not None:
                args[arg.keyword.value] = arg.value
            elif i < len(p.params):
                args[p.params[i].name.value] = arg.value
            else:
                raise Blocked(CODE, f"{name}() gets more positional arguments than it takes", call)
        missing = [q.name.value for q in params if q.name.value not in args and q.default is None]
        unknown = set(args) - {q.name.value for q in params}
        if missing or unknown:
            raise Blocked(CODE, f"{name}() call does not match its parameters ({', '.join(missing or unknown)})", call)
        body = list(fn.body.body)
        if body and _docstring(body[0]) is not None:
            body = body[1:]
        last = body[-1] if body else None
        ret = last.body[0] if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 else None
        if not isinstance(ret, cst.Return) or ret.value is None:
            raise Blocked(CODE, f"{name}() is converted when it ends with `return <tensor>`", fn)
        if _has_return(body[:-1]):
            raise Blocked(CODE, f"{name}() returns before its last statement: not converted", fn)
        helper_names, counts = _names_and_assign_counts(fn)
        local = {q.name.value for q in params} | set(counts)
        same = {q for q, a in args.items() if isinstance(a, cst.Name) and a.value == q and not counts.get(q)}
        taken = set(self.fn_names) | self.module_names | {self.params}
        renames = {}
        for n in sorted(local - same):
            if n in taken:
                new, i = f"{name}_{n}", 1
                while new in taken | helper_names | set(renames.values()):
                    i += 1
                    new = f"{name}_{n}_{i}"
                renames[n] = new
        values = {q.name.value: args.get(q.name.value, q.default) for q in params if q.name.value not in same}
        # a value __init__ can see too (literals, params, module names: `units=params["units"]`, `tf.nn.relu`) is
        # written where the parameter is read, so layer arguments stay constructor arguments; tensors are assigned
        visible = set(self.module_names | {self.params} | set(self.statics))
        static = {q: v for q, v in values.items() if not counts.get(q) and _static(v, visible)}
        values = {q: v for q, v in values.items() if q not in static}
        lines = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(renames.get(q, q)))], v)])
                 for q, v in values.items()]
        rename = {k: v for k, v in renames.items() if k not in static}

        def inline(node):
            node = _substitute(node, {q: _parenthesized(v) for q, v in static.items()}) if static else node
            return _rename(node, rename) if rename else node

        statements = [(inline(b), b) for b in body[:-1]]
        result = inline(ret.value)
        statements.append((cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], result)]), last))
        comment = cst.EmptyLine(comment=cst.Comment(f"# {name}(...), inlined: its layers are this model's"))
        pieces = [(ln, stmt) for ln in lines] + statements
        own = [line for line in fn.leading_lines if line.comment is not None]  # `# Define the network` above the def
        self.pending_leading.extend([*stmt.leading_lines, *own, comment])  # above the next statement call() keeps
        self.fn_names = self.fn_names | set(rename.values()) | local | {target}
        for n in [*values, *counts]:
            key = rename.get(n, n)
            self.assign_counts[key] = self.assign_counts.get(key, 0) + (counts.get(n, 0) or 1)
        written = {id(new_stmt): original for new_stmt, original in pieces}

        def inlined(new_stmt) -> None:
            original = written[id(new_stmt)]
            try:
                self.statement(new_stmt)
            except Blocked as blocked:  # point at the helper's own line (a renamed copy has no position)
                raise Blocked.many([e if "inlines)" in e.message else  # already said by a helper this one calls
                                    Blocked(e.code, f"{e.message} (in {name}(), which the model_fn calls and "
                                                    "tfmigrate inlines)",
                                            e.node if new_stmt is original and e.node is not None else original)
                                    for e in blocked.errors]) from None

        self.inlining.append(name)
        tainted: set[str] = set()
        try:  # each statement's blockers, as in the model_fn's own body
            errors = self.each([new_stmt for new_stmt, _ in pieces], inlined, tainted)
        finally:
            self.inlining.pop()
        if errors:
            raise Blocked.many(errors)
        if fn not in self.inlined_helpers and self.helpers.get(name) is fn and name not in self.nested_helpers:
            self.inlined_helpers.append(fn)

    def variable_maker(self, node) -> tuple[cst.Call, str] | None:
        """A call in a forward value that creates variables the converted model would not own (tf.Variable, RNN
        cells and static/dynamic_rnn, tf.contrib, input_layer, templates): the first one, with its TF path."""
        for call in calls_in(node):
            path = self.tf(call)
            if path == _INPUT_LAYER and self.input_layers is True:
                continue  # numeric columns only: no variables (converted in convert_forward)
            if path and makes_variables(path):
                return call, path
        return None

    def refuse_variable_makers(self, node, report) -> None:
        for call in calls_in(node):
            if self.tf(call) == _INPUT_LAYER and self.input_layers is not False:
                if isinstance(self.input_layers, Blocked):
                    raise self.input_layers
                if _NUMERIC_COLUMNS_INPUT in self.module_names:
                    raise Blocked(variables.CODE, f"`{_NUMERIC_COLUMNS_INPUT}` is taken in this module; the converted "
                                                  "input_layer needs the name", call)
        hit = self.variable_maker(node)
        if hit is not None:
            call, path = hit
            raise Blocked(variables.CODE,
                          f"tf.{path} creates variables inside the model_fn, which the converted Keras model would "
                          "not own (a new variable per call, never trained): build it from tf.compat.v1.layers / "
                          "tf.keras.layers objects or tf.compat.v1.get_variable, which tfmigrate converts", call)

    def uses_labels(self, node) -> bool:
        return bool(self.free_names(node) & ({self.labels} | set(self.label_values)))

    def label_value(self, target: str, stmt: cst.SimpleStatementLine, value) -> None:
        """A hand-written value on labels (`tf.reduce_mean(tf.square(labels - preds))`): the loss, if used as one."""
        self.check_names(value, self.forward | {self.labels, self.params} | set(self.label_values)
                         | set(self.loss_objects), f"`{target} = ...`", stmt)
        self.label_values[target] = stmt
        self.label_order.append((target, stmt))
        self.bind_name(target, "label")

    def expression(self, value, stmt) -> None:
        path = self.tf(value) if isinstance(value, cst.Call) else None
        if self.drop(path, value):
            return
        if path == "summary.merge_all" and not value.args:  # a statement: the merged op goes nowhere
            self.notes.append((CODE, "tf.summary.merge_all() dropped: its result was not used (the Estimator merged "
                                     "and wrote the summaries itself; each summary's own note says what it wrote)",
                               value))
            return
        if _debug_print(value, self.module_names):
            self.notes.append((CODE, "print(...) dropped: it printed once, while the TF1 graph was built (the tensors' "
                                     "descriptions, not their values); tf.print in call() prints values", value))
            return
        if losses.is_loss(path):
            self.tf_loss(None, value, path)  # read back through get_total_loss()
            return
        if path == "losses.add_loss":
            raise Blocked(losses.CODE, "tf.losses.add_loss is not converted: add the term to the loss expression", value)
        if path in ("set_random_seed", "random.set_random_seed", "random.set_seed"):
            # TF 2.15, measured: the seed of the Estimator's graph from here on, the weights then as with
            # RunConfig(tf_random_seed=...); the input pipeline, built before the model_fn ran, stayed unseeded
            raise Blocked(CODE, f"`{code(value).strip()}` in the model_fn seeds the Estimator's graph from this point "
                                "on (its weights, not the input_fn's ops built before it) and is not converted: move "
                                "the seed to RunConfig(tf_random_seed=...), converted to keras.utils.set_random_seed "
                                "(which seeds the input pipeline too), and delete this call", value)
        raise Blocked(CODE, f"statement `{code(value).strip()}` in model_fn is not converted", stmt)

    def drop(self, path: str | None, call) -> bool:
        """Summaries, tf.logging calls and observing hooks: they do not change training; dropped with a note."""
        if not path or "." not in path:
            return False
        kind = hooks.hook_kind(path)
        if kind in hooks.OBSERVING:
            self.notes.append((hooks.CODE, hooks.dropped_note(kind), call))
            return True
        module, name = path.rsplit(".", 1)
        if module == "summary" and name in _SUMMARIES:
            if "TRAIN" in self.active:
                self.summary_calls.append(call)
            if name == "scalar" and "TRAIN" in self.active:
                self.scalar_summaries.append(call)  # converted in plan() if its value is computed from the output
                return True
            tag = code(call.args[0].value) if call.args else "?"
            self.notes.append((CODE, f"summary {tag} dropped: summaries do not change training. {SUMMARY_WHY}",
                               call))
            return True
        if module == "logging" and name in _LOGGING:
            self.notes.append((CODE, f"tf.logging.{name}(...) dropped: it logged once, while the TF1 graph was built",
                               call))
            return True
        return False

    def spec_hooks(self, node, where: str) -> None:
        """EstimatorSpec(training_hooks=[...]): only hooks that observe training (dropped with their note) convert."""
        if not isinstance(node, (cst.List, cst.Tuple)):
            raise Blocked(hooks.CODE, f"EstimatorSpec({where}=`{code(node)[:40]}`): a list of hooks built in model_fn "
                                      "is converted", node)
        for element in node.elements:
            value = element.value
            if isinstance(value, cst.Name) and value.value in self.dropped:
                continue
            path = self.tf(value) if isinstance(value, cst.Call) else None
            nan = self.nan_hooks.get(value.value) if isinstance(value, cst.Name) else \
                value if hooks.hook_kind(path) == hooks.NAN else None
            if nan is not None:
                if where not in ("training_hooks", "training_chief_hooks"):
                    raise Blocked(hooks.CODE, f"NanTensorHook in EstimatorSpec({where}=...) is not converted: it is "
                                              "converted on training only (training_hooks), where the migrated "
                                              "training checks its loss", value)
                if nan is value:
                    self.nan_hook(nan)
                if not any(n[2] is nan for n in self.notes):
                    self.notes.append((hooks.CODE, hooks.nan_note(self.nan_fail_flag(nan)), nan))
                self.nan_check = nan
                continue
            logger = self.logging_names.get(value.value) if isinstance(value, cst.Name) else \
                value if hooks.hook_kind(path) in (hooks.LOGGING, hooks.STEP_COUNTER) else None
            if logger is not None:
                if where in ("training_hooks", "training_chief_hooks"):
                    if not any(h is logger for h, _ in self.logging_hooks):
                        self.logging_hooks.append((logger, where))
                elif not any(n[2] is logger for n in self.notes):
                    counter = hooks.hook_kind(self.tf(logger)) == hooks.STEP_COUNTER
                    self.notes.append((hooks.CODE, hooks.dropped_note(hooks.STEP_COUNTER) if counter
                                       else hooks.logging_eval_note(), logger))
                continue
            summary = self.summary_hook_names.get(value.value) if isinstance(value, cst.Name) else \
                (value, None) if hooks.hook_kind(path) == hooks.SUMMARY else None
            if summary is not None:
                hook, what = summary
                if where not in ("training_hooks", "training_chief_hooks"):
                    if not any(n[2] is hook for n in self.notes):
                        self.notes.append((hooks.CODE, hooks.summary_dropped(
                            f"on {where} it only observes evaluation; {hooks.SUMMARY_HOW}"), hook))
                elif not any(h is hook for h, _, _ in self.summary_hooks):
                    self.summary_hooks.append((hook, self.summary_hook(hook) if what is None else what, where))
                continue
            if isinstance(value, cst.Call) and self.drop(path, value):
                continue
            kind = hooks.hook_kind(path)
            raise Blocked(hooks.CODE, hooks.blocked_message(kind, code(value)), value)

    # ---- SummarySaverHook (rules/planners/hooks.py) --------------------------------------------------------------------
    def summary_hook(self, call: cst.Call) -> dict | str:
        """A SummarySaverHook built in the model_fn → {"calls": the summary calls its op runs, "output_dir",
        "save_steps": nodes}, read where TF1 built it (merge_all() merges the summaries built before it); else the
        note saying why it is dropped (it only writes summaries)."""
        try:
            args = bind(call, hooks.SUMMARY_ARGS, "SummarySaverHook", hooks.CODE)
        except Blocked as blocked:
            return hooks.summary_dropped(blocked.message)
        given = {k: v for k, v in args.items() if not is_literal(v, None)}
        if "summary_writer" in given:
            return hooks.summary_dropped("summary_writer= (a TF1 FileWriter) has no TF2 meaning; pass output_dir=... "
                                         "instead, which converts")
        if "save_secs" in given:
            return hooks.summary_dropped("save_secs= writes at wall-time steps, other ones in every run; use "
                                         "save_steps=N, which converts")
        if "save_steps" not in given:
            raise Blocked(hooks.CODE, "SummarySaverHook without save_steps or save_secs: TF 2.15 raised ValueError "
                                      "here (exactly one of them); give save_steps=N, which converts", call)
        if "output_dir" not in given:
            return hooks.summary_dropped("without output_dir (or summary_writer) TF1 wrote nothing")
        if ("summary_op" in given) == ("scaffold" in given):
            raise Blocked(hooks.CODE, "SummarySaverHook needs exactly one of scaffold and summary_op: TF 2.15 raised "
                                      "ValueError here; give summary_op=tf.compat.v1.summary.merge_all(), which "
                                      "converts", call)
        for key in ("save_steps", "output_dir"):
            try:
                self.check_names(given[key], {self.params}, f"SummarySaverHook({key}=...)")
            except Blocked as blocked:
                return hooks.summary_dropped(blocked.message)
        op = given.get("summary_op")
        if op is None:
            scaffold = given["scaffold"]
            scaffold_args = bind(scaffold, ["init_op", "init_feed_dict", "init_fn", "ready_op",
                                            "ready_for_local_init_op", "local_init_op", "summary_op", "saver",
                                            "copy_from_scaffold", "local_init_feed_dict"], "Scaffold", hooks.CODE) \
                if isinstance(scaffold, cst.Call) and self.tf(scaffold) == "train.Scaffold" else None
            if scaffold_args is None or set(scaffold_args) - {"summary_op"}:
                return hooks.summary_dropped("scaffold= other than an inline tf.compat.v1.train.Scaffold() (with at "
                                             f"most summary_op=) is not converted; {hooks.SUMMARY_HOW}")
            if "summary_op" not in scaffold_args:
                return hooks.summary_dropped("with scaffold=Scaffold() and no summary_op it wrote no summaries "
                                             "(measured on TF 2.15: that Scaffold is never finalized, so its "
                                             "summary_op stays None)")
            op = scaffold_args["summary_op"]
        calls = self.summary_op_calls(op)
        if isinstance(calls, str):
            return hooks.summary_dropped(calls)
        return {"calls": calls, "output_dir": given["output_dir"], "save_steps": given["save_steps"]}

    def summary_op_calls(self, op) -> list[cst.Call] | str:
        """The summary calls a summary_op runs: `tf.compat.v1.summary.merge_all()` (those built before it in
        training), `merge([...])`, a summary call, a name bound to one of these, a list or tuple of them; else why
        not."""
        if isinstance(op, (cst.List, cst.Tuple)):
            calls = []
            for element in op.elements:
                if isinstance(element, cst.StarredElement):
                    return "a starred summary_op list is not converted"
                inner = self.summary_op_calls(element.value)
                if isinstance(inner, str):
                    return inner
                calls.extend(inner)
            return calls
        if isinstance(op, cst.Name) and op.value in self.summary_ops:
            return list(self.summary_ops[op.value])
        path = self.tf(op) if isinstance(op, cst.Call) else None
        if path == "summary.merge_all" and not op.args:
            return list(self.summary_calls)
        if path == "summary.merge" and len(op.args) == 1 \
                and (op.args[0].keyword is None or op.args[0].keyword.value == "inputs"):
            return self.summary_op_calls(op.args[0].value)
        if path is not None and path.startswith("summary.") and path.rsplit(".", 1)[1] in _SUMMARIES:
            if not self.drop(path, op):  # built here, inside the hook: a summary of the graph like any other
                return f"summary_op `{code(op)[:40]}` is not converted"
            return [op]
        return (f"summary_op `{code(op)[:40]}`: only tf.compat.v1.summary.merge_all(), merge([...]), summary ops "
                "built in the model_fn (or names of them) and lists of them are converted")

    def nan_hook(self, call: cst.Call) -> None:
        """`NanTensorHook(loss[, fail_on_nan_loss])` on the EstimatorSpec's loss, else Blocked (rules/planners/hooks.py)."""
        args = bind(call, ["loss_tensor", "fail_on_nan_loss"], "NanTensorHook", hooks.CODE)
        loss = args.get("loss_tensor")
        if loss is None or not self.is_loss_in(loss, "TRAIN"):
            raise Blocked(hooks.CODE, f"NanTensorHook({code(loss)[:40] if loss is not None else ''}) is converted "
                                      "on the loss the model_fn returns in its EstimatorSpec only (the value the "
                                      "migrated training checks); check other tensors in the model (tf.debugging."
                                      "check_numerics) or drop the hook", call)

    @staticmethod
    def nan_fail_flag(call: cst.Call) -> str | None:
        """fail_on_nan_loss as written, None when it is not given or True."""
        flag = bind(call, ["loss_tensor", "fail_on_nan_loss"], "NanTensorHook", hooks.CODE).get("fail_on_nan_loss")
        return None if flag is None or is_literal(flag, True) else code(flag)

    def label_expression(self, name: str):
        """The expression a model_fn local holds when it was computed from the labels alone (`x = f(labels)`)."""
        stmt = self.label_values.get(name)
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        return small.value if isinstance(small, cst.Assign) else None

    def tuple_assign(self, target: cst.Tuple, value, stmt) -> None:
        names = [e.value.value if isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement) else None
                 for e in target.elements]
        if None in names:
            raise Blocked(CODE, f"statement `{code(stmt).strip()}` in model_fn is not converted", stmt)
        if isinstance(value, cst.Tuple) and all(is_literal(e.value, None) for e in value.elements) \
                and len(value.elements) == len(names):
            for name in names:
                self.bind_name(name, "none")
            return
        if isinstance(value, cst.Call) and len(names) == 2:
            path = self.tf(value)
            # gradients, variables = zip(*optimizer.compute_gradients(loss))
            if (isinstance(value.func, cst.Name) and value.func.value == "zip" and "zip" not in self.module_names
                    and len(value.args) == 1 and value.args[0].star == "*"):
                pairs = self.grads_of(value.args[0].value)
                if pairs is not None and pairs.kind == "pairs":
                    self.grads[names[0]] = _Grads("list", pairs.transforms, pairs.unscaled, value)
                    self.trainable_lists.add(names[1])
                    return
            # grads, _ = tf.clip_by_global_norm(grads, clip_norm)
            if path == "clip_by_global_norm":
                args = bind(value, ["t_list", "clip_norm", "use_norm", "name"], "tf.clip_by_global_norm", optimizers.CODE)
                grads = self.grads_of(args.get("t_list"))
                if grads is None or grads.kind != "list" or "clip_norm" not in args:
                    raise Blocked(optimizers.CODE, "clip_by_global_norm is converted on the gradient list of "
                                                   "compute_gradients or tf.gradients", value)
                if "use_norm" in args and not is_literal(args["use_norm"], None):
                    raise Blocked(optimizers.CODE, "clip_by_global_norm(use_norm=...) is not converted", value)
                self.check_names(args["clip_norm"], {self.params}, "the clip norm")
                step = f"grads, _ = {code(value.func)}(grads, {code(args['clip_norm'])})"
                self.grads[names[0]] = _Grads("list", (*grads.transforms, step), grads.unscaled, value)
                self.dropped.add(names[1])
                return
        if (self.loop is None and self.loss is None and self.active == self.live
                and self.free_names(value) & self.forward and not self.builds_layers(value)
                and not self.uses_labels(value)):
            # `words, nwords = features` (tuple features), `mean, var = tf.nn.moments(x, [0])`: forward values
            self.refuse_variable_makers(value, stmt)
            self.check_names(value, self.forward | {self.params}, f"`{code(target)} = ...`", stmt)
            for name in names:
                self.forward.add(name)
                self.bind_name(name, "forward")
            if self.pending_leading:
                stmt = stmt.with_changes(leading_lines=[*self.pending_leading, *stmt.leading_lines])
                self.pending_leading = []
            self.call_body.append(stmt)
            return
        raise Blocked(CODE, f"statement `{code(stmt).strip()}` in model_fn is not converted", stmt)

    # ---- loss ------------------------------------------------------------------------------------------------
    def tf_loss(self, target: str | None, call: cst.Call, path: str) -> None:
        if self.loss is not None:
            raise Blocked(losses.CODE, "a second loss is not converted (sum them into one loss by hand)", call)
        self.loss = (target, losses.convert(call, path, self.labels, self.tf, self.label_expression), call)
        if target:
            self.bind_name(target, "loss")

    def total_loss(self, target: str, call: cst.Call) -> None:
        args = bind(call, ["add_regularization_losses", "name", "scope"], "tf.losses.get_total_loss", losses.CODE)
        if self.loss is None or not isinstance(self.loss[1], losses.LossPlan) or self.loss[1].scalar:
            raise Blocked(losses.CODE, "get_total_loss() is converted after exactly one tf.compat.v1.losses call", call)
        if "scope" in args and not is_literal(args["scope"], None):
            raise Blocked(losses.CODE, "get_total_loss(scope=...) is not converted", call)
        # the sum of the one tf.losses loss and the regularization losses; regularizers are not converted (TFM101,
        # TFM811), so there are none and the total is that loss
        self.loss = (target, self.loss[1], self.loss[2])
        self.bind_name(target, "loss")

    def is_loss(self, node, what: str) -> bool:
        """`node` names the loss (a hand-written loss on labels becomes the loss here)."""
        if not isinstance(node, cst.Name):
            return False
        if self.bound(node.value, "loss"):
            return True
        if node.value in self.label_values and self.loss is None:
            self.hand_written_loss(node.value, node)
            return True
        return False

    def hand_written_loss(self, name: str, use) -> None:
        # the assignments the loss depends on (a name may be reassigned: `loss = loss * scale`)
        latest = lambda n, before: max(i for i, (t, _) in enumerate(self.label_order[:before]) if t == n)  # noqa: E731
        chain, todo = set(), [latest(name, len(self.label_order))]
        while todo:
            index = todo.pop()
            if index in chain:
                continue
            chain.add(index)
            value = self.label_order[index][1].body[0].value
            for dep in self.free_names(value) & {t for t, _ in self.label_order[:index]}:
                todo.append(latest(dep, index))
        stmts = [self.label_order[i][1] for i in sorted(chain)]
        used = set().union(*(self.free_names(s.body[0].value) for s in stmts))
        stmts, objects, summed = self.keras_loss_objects(stmts, used, use)
        outputs = sorted(used & (self.forward - {self.features}))
        if len(outputs) != 1:
            what = "no value" if not outputs else ", ".join(f"`{o}`" for o in outputs)
            raise Blocked(losses.CODE, f"the hand-written loss `{name}` reads {what} of the forward pass; it is converted "
                                       "when it reads exactly one (the model output)", use)
        output = outputs[0]
        if self.features in used:
            raise Blocked(losses.CODE, f"the hand-written loss `{name}` reads features; it is converted when it reads "
                                       "labels and the model output only", use)
        reserved = {"self", "sample_weight", "replicas"} & ({self.label_order[i][0] for i in chain} | used)
        if reserved:
            raise Blocked(losses.CODE, f"the hand-written loss uses the name `{sorted(reserved)[0]}`, which the "
                                       "generated loss class needs", use)
        class_name = f"{class_name_for(self.fn.name.value, self.module_names)}Loss"
        if class_name in self.module_names:
            raise Blocked(losses.CODE, f"`{class_name}` is taken in this module; the generated loss class needs it", use)
        with_params = self.params in used
        scaling = (["    came. Its Keras loss reduces with SUM: the Estimator's optimizer did not scale it by 1/replicas,",
                    "    and neither does this class; the custom loop sums the gradients over replicas."] if summed else
                   ["    came. Scaled by 1/replicas under a strategy, as the Estimator's optimizer scaled it;",
                    '    reduction="none" (custom loop) gives the unscaled values compute_average_loss averages.'])
        lines = [generated(f"class {class_name}(keras.losses.Loss):"),
                 f'    """The loss {self.fn.name.value} wrote by hand, computed exactly as written.',
                 "",
                 "    keras.losses.Loss would cast the labels to float and reshape them first; TF1 used them as they",
                 *scaling,
                 '    """']
        if with_params:
            lines += ["", f"    def __init__(self, {self.params}=None, **kwargs):", "        super().__init__(**kwargs)",
                      f"        self.{self.params} = {self.params}"]
        lines += ["", f"    def __call__(self, {self.labels}, {output}, sample_weight=None):"]
        if with_params:
            lines.append(f"        {self.params} = self.{self.params}")
        for obj in objects:  # tf.keras loss objects the statements call, in Keras 3's spelling
            lines.append(f"        {obj} = {self.loss_objects[obj][0].ctor}")
        last = stmts[-1].body[0].value
        per_example = not summed and (isinstance(last, cst.Call) and self.tf(last) in ("reduce_mean", "math.reduce_mean")
                       and len(last.args) == 1 and last.args[0].keyword is None and not last.args[0].star)
        for stmt in stmts[:-1] if per_example else stmts:
            for line in code(stmt.with_changes(leading_lines=[])).rstrip("\n").splitlines():
                lines.append("        " + line)
        if per_example:
            if "per_element" in used | {self.label_order[i][0] for i in chain}:
                raise Blocked(losses.CODE, "the hand-written loss uses the name `per_element`, which the generated "
                                           "loss class needs", use)
            # a mean over all elements = the mean of the per-example means (same count per example): the custom
            # loop's compute_average_loss averages those over the global batch, as it does for tf.losses losses
            lines += ['        if self.reduction == "none":  # per-example means, for a custom training loop',
                      f"            per_element = {code(last.args[0].value)}",
                      generated("            return tf.reduce_mean(tf.reshape(per_element, [tf.shape(per_element)[0], "
                                "-1]), axis=1)")]
            for line in code(stmts[-1].with_changes(leading_lines=[])).rstrip("\n").splitlines():
                lines.append("        " + line)
        elif summed:
            # the marker lets verify record this value with its labels' batch, as it records the model_fn's loss
            lines.insert(lines.index('    """', 1) + 1, "\n    tf1_scalar_loss = True  # the model_fn's own loss per replica")
            lines.append(f"        return {name}  # reduction SUM: TF1 did not scale it by 1/replicas; gradients are "
                         "summed over replicas")
        else:
            self.notes.append((losses.CODE, f"the hand-written loss `{name}` is not a tf.reduce_mean over the batch: a "
                                            "custom training loop sees it as one value per batch", use))
            # the marker lets verify record this value with its labels' batch, as it records the model_fn's loss
            lines.insert(lines.index('    """', 1) + 1, "\n    tf1_scalar_loss = True  # the model_fn's own loss per replica")
            lines += ['        if self.reduction == "none":  # one value per batch, for a custom training loop',
                      generated(f"            return tf.reshape({name}, [1])")]
        if not summed:
            lines += [generated("        replicas = tf.distribute.get_strategy().num_replicas_in_sync"),
                      f"        return {name} * (1.0 / replicas) if replicas > 1 else {name}"]
        self.support.append("\n".join(lines))
        plan = losses.LossPlan(class_name, [self.params] if with_params else [], cst.Name(self.labels),
                               cst.Name(output), scalar=True, reduction="sum" if summed else None)
        self.loss = (name, plan, self.label_values[name])
        for mode in self.bindings.get(name, {}):
            self.bindings[name][mode] = ("loss", None)

    def keras_loss_objects(self, stmts: list, used: set[str], use) -> tuple[list, list[str], bool]:
        """The hand-written loss's statements with inline tf.keras loss constructors in Keras 3's spelling, and the
        loss objects (model_fn locals) they call, and whether the loss is summed (SUM under a strategy). Keras 2 recorded each loss object's reduction in the graph and the
        Estimator's v1 optimizer scaled the loss by 1/replicas unless it was SUM (the generated class scales the
        same way); SUM_OVER_BATCH_SIZE/AUTO raised a ValueError under a strategy."""
        found: list[losses.KerasLossObject] = []
        interp = self

        class _Respell(Transformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                if losses.keras_loss_class(interp.tf(original)):
                    obj = losses.keras_loss_object(original, interp.tf(original), interp.tf)
                    found.append(obj)
                    return cst.parse_expression(obj.ctor)
                return updated

        stmts = [stmt.visit(_Respell()) for stmt in stmts]
        objects = sorted(used & set(self.loss_objects))
        found += [self.loss_objects[name][0] for name in objects]
        for obj in found:
            if obj.reduction == "none" or self.tf1_strategy is False:
                continue
            if obj.reduction == "sum_over_batch_size" and self.tf1_strategy:
                raise Blocked(losses.CODE, "a tf.keras loss with the default (AUTO) or SUM_OVER_BATCH_SIZE reduction "
                                           "raised a ValueError in this Estimator's model_fn under its distribution "
                                           "strategy (Keras 2 allows it only in Model.compile); the original program "
                                           "does not train: use reduction NONE and reduce the losses by hand",
                              obj.node)
            if self.tf1_strategy is None:
                raise Blocked(losses.CODE, f"a tf.keras loss with reduction {obj.reduction.upper()} means something "
                                           "else with and without a distribution strategy, and this program's "
                                           "strategy is decided at run time", obj.node)
        reductions = {obj.reduction for obj in found}
        if "sum" in reductions and len(reductions) > 1:
            raise Blocked(losses.CODE, "tf.keras losses with reduction SUM and another reduction in one loss: the "
                                       "Estimator scaled the total by the last one's rule only; not converted", use)
        # SUM under a strategy: the Estimator left the loss unscaled (no 1/replicas), so does the generated class
        return stmts, objects, reductions == {"sum"} and bool(self.tf1_strategy)

    # ---- training op -----------------------------------------------------------------------------------------
    def is_global_step(self, node) -> bool:
        if isinstance(node, cst.Name) and node.value in self.global_steps:
            return True
        return isinstance(node, cst.Call) and self.tf(node) in ("train.get_global_step", "train.get_or_create_global_step")

    def is_update_ops(self, node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.update_ops
        return (isinstance(node, cst.Call) and self.tf(node) == "get_collection" and len(node.args) == 1
                and self.tf(node.args[0].value) == "GraphKeys.UPDATE_OPS")

    def on_optimizer(self, call: cst.Call, what: str) -> None:
        owner = call.func.value
        if isinstance(owner, cst.Call) and optimizers.optimizer_name(self.tf(owner)):
            self.optimizer = (None, owner)
        elif not (isinstance(owner, cst.Name) and self.optimizer and owner.value == self.optimizer[0]):
            raise Blocked(optimizers.CODE, f"{what}() on something other than the optimizer built above", call)

    def minimize(self, target: str, call: cst.Call) -> None:
        self.on_optimizer(call, "minimize")
        args = bind(call, _MINIMIZE_ARGS, "minimize", optimizers.CODE)
        if not self.is_loss(args.get("loss"), "minimize"):
            raise Blocked(optimizers.CODE, "minimize() must minimize the loss computed above", call)
        if "global_step" not in args or not self.is_global_step(args["global_step"]):
            raise Blocked(optimizers.CODE, _without_global_step("minimize"), call)
        extra = set(args) - {"loss", "global_step", "name"}
        if extra:
            raise Blocked(optimizers.CODE, f"minimize({', '.join(sorted(extra))}=...) is not converted", call)
        self.set_train_op(target, _Grads("pairs"), call)

    def set_train_op(self, target: str, grads: _Grads, node) -> None:
        if self.train_op is not None and self.grad_transforms != grads:
            raise Blocked(optimizers.CODE, "a second, different training op is not converted", node)
        self.train_op, self.grad_transforms = target, grads
        self.train_op_count += 1
        self.bind_name(target, "train_op")

    def compute_gradients(self, call: cst.Call) -> _Grads:
        self.on_optimizer(call, "compute_gradients")
        args = bind(call, _COMPUTE_GRADIENTS_ARGS, "compute_gradients", optimizers.CODE)
        if not self.is_loss(args.get("loss"), "compute_gradients"):
            raise Blocked(optimizers.CODE, "compute_gradients() must differentiate the loss computed above", call)
        var_list = args.get("var_list")
        if var_list is not None and not is_literal(var_list, None) and not self.is_trainable_list(var_list):
            raise Blocked(optimizers.CODE, "compute_gradients(var_list=...) on a subset of the variables is not "
                                           "converted: TF2 trains every trainable variable of the model", call)
        extra = set(args) - {"loss", "var_list"}
        if extra:
            raise Blocked(optimizers.CODE, f"compute_gradients({', '.join(sorted(extra))}=...) is not converted", call)
        return _Grads("pairs", node=call)

    def tf_gradients(self, call: cst.Call) -> _Grads:
        args = bind(call, _GRADIENTS_ARGS, "tf.gradients", optimizers.CODE)
        if not self.is_loss(args.get("ys"), "tf.gradients"):
            raise Blocked(optimizers.CODE, "tf.gradients must differentiate the loss computed above", call)
        if not self.is_trainable_list(args.get("xs")):
            raise Blocked(optimizers.CODE, "tf.gradients is converted on tf.compat.v1.trainable_variables() only", call)
        extra = set(args) - {"ys", "xs", "name"}
        if extra:
            raise Blocked(optimizers.CODE, f"tf.gradients({', '.join(sorted(extra))}=...) is not converted", call)
        return _Grads("list", unscaled=True, node=call)

    def is_trainable_list(self, node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.trainable_lists
        return isinstance(node, cst.Call) and self.tf(node) == "trainable_variables" and not node.args

    def grads_of(self, node) -> _Grads | None:
        if isinstance(node, cst.Name):
            return self.grads.get(node.value)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "compute_gradients":
                return self.compute_gradients(node)
        if isinstance(node, cst.Call) and self.tf(node) == "gradients":
            return self.tf_gradients(node)
        if isinstance(node, cst.ListComp):
            return self.gradient_comprehension(node)
        return None

    def gradient_comprehension(self, comp: cst.ListComp) -> _Grads | None:
        """`[(f(g), v) for g, v in grads_and_vars]` or `[f(g) for g in grads]` (optionally `if g is not None`)."""
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.asynchronous is not None or len(loop.ifs) > 1:
            return None
        source = self.grads_of(loop.iter)
        if source is None:
            return None
        target, element = loop.target, comp.elt
        if (source.kind == "pairs" and not loop.ifs and isinstance(element, cst.Name) and isinstance(target, cst.Tuple)
                and len(target.elements) == 2 and all(isinstance(e.value, cst.Name) for e in target.elements)):
            # [g for g, v in grads_and_vars] / [v for g, v in grads_and_vars]
            if element.value == target.elements[0].value.value:
                return _Grads("list", source.transforms, source.unscaled, comp)
            if element.value == target.elements[1].value.value:
                return _Grads("vars", node=comp)
        if source.kind == "pairs":
            if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
                    and all(isinstance(e.value, cst.Name) for e in target.elements)
                    and isinstance(element, cst.Tuple) and len(element.elements) == 2
                    and isinstance(element.elements[1].value, cst.Name)
                    and element.elements[1].value.value == target.elements[1].value.value):
                raise Blocked(optimizers.CODE, "a gradient comprehension is converted as `[(f(g), v) for g, v in "
                                               "grads_and_vars]`", comp)
            grad, expr = target.elements[0].value.value, element.elements[0].value
            var = target.elements[1].value.value
        else:
            if not isinstance(target, cst.Name):
                raise Blocked(optimizers.CODE, "a gradient comprehension is converted as `[f(g) for g in grads]`", comp)
            grad, expr, var = target.value, element, None
        if var is not None and var in self.free_names(expr):
            raise Blocked(optimizers.CODE, "a gradient transformation that depends on the variable is not converted", comp)
        self.check_names(expr, {grad, self.params}, "the gradient transformation", comp)
        filtered = False
        if loop.ifs:
            test = loop.ifs[0].test
            filtered = (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name)
                        and test.left.value == grad and len(test.comparisons) == 1
                        and isinstance(test.comparisons[0].operator, cst.IsNot)
                        and is_literal(test.comparisons[0].comparator, None))
            if not filtered:
                raise Blocked(optimizers.CODE, f"a gradient comprehension may only filter `if {grad} is not None`", comp)
        expr_code = code(expr)
        step = (f"grads = [None if {grad} is None else {expr_code} for {grad} in grads]" if filtered
                else f"grads = [{expr_code} for {grad} in grads]")
        return _Grads(source.kind, (*source.transforms, step), source.unscaled, comp)

    def apply_gradients(self, target: str, call: cst.Call) -> None:
        self.on_optimizer(call, "apply_gradients")
        args = bind(call, _APPLY_GRADIENTS_ARGS, "apply_gradients", optimizers.CODE)
        pairs = args.get("grads_and_vars")
        grads = self.grads_of(pairs)
        if (grads is None and isinstance(pairs, cst.Call) and isinstance(pairs.func, cst.Name)
                and pairs.func.value == "zip" and "zip" not in self.module_names and len(pairs.args) == 2
                and not any(a.star or a.keyword for a in pairs.args) and self.is_trainable_list(pairs.args[1].value)):
            grads = self.grads_of(pairs.args[0].value)
            grads = grads if grads is not None and grads.kind == "list" else None
        elif grads is not None and grads.kind != "pairs":
            grads = None
        if grads is None:
            raise Blocked(optimizers.CODE, "apply_gradients() is converted on compute_gradients' pairs (optionally "
                                           "transformed) or zip(gradients, trainable_variables)", call)
        if "global_step" not in args or not self.is_global_step(args["global_step"]):
            raise Blocked(optimizers.CODE, _without_global_step("apply_gradients"), call)
        if grads.transforms and self.profile != "keras3":
            raise Blocked(optimizers.CODE, "gradient clipping is converted for Keras 3 programs; parameter-server "
                                           "programs run on tf_keras, where it is not available yet", call)
        self.set_train_op(target, grads, call)

    def group(self, target: str, call: cst.Call) -> None:
        """`tf.group(minimize_op, update_ops)`, `tf.group([train_op, *update_ops])`, `tf.group(optimizer.minimize(...))`:
        the update ops run inside Keras' layers; the train op is the step. Any other op in the group ran with every
        training step (a counter's assign_add, an EMA update) and has no place in Keras' step: blocked, named."""
        items = []
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value != "name":
                raise Blocked(CODE, f"tf.group({arg.keyword.value}=...) is not converted", call)
            if arg.keyword is None and isinstance(arg.value, (cst.List, cst.Tuple)):
                items.extend(e.value for e in arg.value.elements)
            elif arg.keyword is None:
                items.append(arg.value)
        train_ops, others = [], []
        for item in items:
            method = item.func.attr.value if isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) else None
            if isinstance(item, cst.Name) and self.bound(item.value, "train_op"):
                train_ops.append(item)
            elif method in ("minimize", "apply_gradients"):  # the step written inline in the group
                (self.minimize if method == "minimize" else self.apply_gradients)(target, item)
                train_ops.append(item)
            elif not self.is_update_ops(item):
                others.append(item)
        if others:
            raise Blocked(CODE, f"tf.group(..., {code(others[0])}): an op grouped with the training op ran at every "
                                "training step, which Keras' train step does not; only the training op and the "
                                "UPDATE_OPS collection are converted in a tf.group (drop the extra op, or keep this "
                                "job on TF 2.15)", others[0])
        if len(train_ops) != 1:
            raise Blocked(CODE, "tf.group is converted on exactly one training op (minimize/apply_gradients) and the "
                                "UPDATE_OPS collection", call)
        self.bind_name(target, "train_op")
        self.train_op = target
        self.train_op_count += 1
        self.update_ops_run = True

    def with_block(self, stmt: cst.With) -> None:
        item = stmt.items[0].item if len(stmt.items) == 1 else None
        if isinstance(item, cst.Call) and self.tf(item) == "variable_scope":
            self.variable_scope(stmt, item)
            return
        ok = (
            isinstance(item, cst.Call)
            and self.tf(item) == "control_dependencies"
            and len(item.args) == 1
            and self.is_update_ops(item.args[0].value)
            and stmt.items[0].asname is None
        )
        if not ok:
            raise Blocked(CODE, "only `with tf.control_dependencies(update_ops):` around the training op is converted", stmt)
        before = self.train_op_count

        def inner_statement(inner) -> None:  # Keras updates batch-norm moving statistics itself
            if isinstance(inner, cst.SimpleStatementLine) and any(isinstance(s, cst.Return) for s in inner.body):
                raise Blocked(CODE, "a return inside control_dependencies is not converted", inner)
            self.statement(inner)

        tainted: set[str] = set()
        errors = self.each(stmt.body.body, inner_statement, tainted)
        if errors:  # (the training op's statement among them: not "must assign the training op" besides)
            self.update_ops_run = self.update_ops_run or self.train_op_count != before
            raise self.blocked_inside(errors, tainted)
        if self.train_op_count == before:
            raise Blocked(CODE, "control_dependencies block must assign the training op", stmt)
        self.update_ops_run = True

    def variable_scope(self, stmt: cst.With, call: cst.Call) -> None:
        if stmt.items[0].asname is not None:
            raise Blocked(variables.CODE, "`variable_scope(...) as scope` is not converted", stmt)
        self.whole_model("variable_scope", stmt)
        name, partitioner = variables.variable_scope(call)
        outer = self.scope_partitioner
        if partitioner is not None:
            self.scope_partitioner = self.partitioner(partitioner)
        self.notes.append((variables.CODE, f"variable_scope('{name}') flattened: Keras names weights by layer", call))
        self.pending_leading = [*self.pending_leading, *stmt.leading_lines]
        self.scope_depth += 1
        tainted: set[str] = set()
        errors = self.each(stmt.body.body, tainted=tainted)
        self.scope_depth -= 1
        self.scope_partitioner = outer
        if errors:
            raise self.blocked_inside(errors, tainted)

    def get_variable(self, target: str, call: cst.Call, stmt_leading) -> None:
        """A weight of the model; its comments move to the next forward statement."""
        name, kwargs, partitioner = variables.get_variable(call, self.tf)
        plan = self.partitioner(partitioner) if partitioner is not None else self.scope_partitioner
        if target in _MODEL_ATTRIBUTES or target in dict(self.layers) or target in self.weights:
            raise Blocked(variables.CODE, f"`{target}` cannot become a model attribute (name taken)", call)
        ctor = f"self.add_weight({', '.join(f'{k}={v}' for k, v in kwargs.items())})"
        self.check_names(ctor, {self.params, "keras", "self"}, "get_variable's arguments", call)
        self.layers.append((target, ctor))
        self.weights[target] = plan is not None
        self.pending_leading = [*self.pending_leading, *stmt_leading]

    # ---- loops -----------------------------------------------------------------------------------------------
    def for_loop(self, stmt: cst.For) -> None:
        """`for units in params["hidden_units"]:` in the forward pass: a list of layers built by the same loop."""
        if isinstance(stmt.iter, cst.Name) and stmt.iter.value in self.layer_lists and self.loop is None:
            self.layer_list_loop(stmt)
            return
        if self.loop is not None:
            raise Blocked(CODE, "nested loops in the forward pass are not converted", stmt)
        if stmt.orelse is not None or stmt.asynchronous is not None:
            raise Blocked(CODE, "for/else and async for are not converted", stmt)
        self.whole_model("a loop", stmt)
        if self.loss is not None:
            raise Blocked(CODE, "a loop after the loss is not converted", stmt)
        targets = {n.value for n in _all_name_nodes(stmt.target)}
        if not isinstance(stmt.target, (cst.Name, cst.Tuple)) or not all(
                isinstance(e.value, cst.Name) for e in getattr(stmt.target, "elements", [])):
            raise Blocked(CODE, "a loop target must be a name or a tuple of names", stmt.target)
        bad = self.free_names(stmt.iter) - {self.params} - self.module_names - BUILTINS
        if bad:
            raise Blocked(CODE, f"the loop runs over `{sorted(bad)[0]}`: only loops over Python values (params, "
                                "module constants, range(...)) are converted; a loop over tensors is not", stmt.iter)
        clash = targets & (self.forward | {self.params, self.features, self.labels, self.mode, "self", "training"})
        if clash:
            raise Blocked(CODE, f"the loop variable `{sorted(clash)[0]}` reuses a name of the model_fn", stmt.target)
        self.loop = _Loop(stmt, frozenset(targets))

        def inner_statement(inner) -> None:
            if isinstance(inner, cst.For):
                raise Blocked(CODE, "nested loops in the forward pass are not converted", inner)
            if not isinstance(inner, cst.SimpleStatementLine):
                raise Blocked(CODE, f"{type(inner).__name__.lower()} statement inside a forward loop is not converted", inner)
            self.forward_only(inner, "a forward loop", "a loop")

        tainted: set[str] = set()
        errors = self.each(stmt.body.body, inner_statement, tainted)
        loop, self.loop = self.loop, None
        if errors and not loop.body:
            raise Blocked.many(errors)
        if not loop.body:
            raise Blocked(CODE, "a loop without forward statements is not converted", stmt)
        new_target, new_iter = stmt.target, stmt.iter
        if loop.sites:
            self.runtime_names = True
            for name in ("tf1_name", "tf1_names"):
                if name in self.module_names or name in targets or name == self.params:
                    errors.append(Blocked(CODE, f"`{name}` is taken; the generated layer naming needs it", stmt))
            header = f"for {code(stmt.target)} in {code(stmt.iter)}:"
            init = [f"self.{attr} = []" for attr, _, _ in loop.sites]
            init += [header] + ["    " + wrap_call(f"self.{attr}.append({ctor})", "    ", 92)
                                for attr, _, ctor in loop.sites]
            self.layers.append((None, "\n".join(init)))
            self.list_attrs |= {attr for attr, _, _ in loop.sites}
            self.held_in_lists |= {attr for attr, _, _ in loop.sites}
            first = code(stmt.target)
            if isinstance(stmt.target, cst.Tuple) and not stmt.target.lpar:
                first = f"({first})"
            new_target = cst.parse_expression(f"{first}, {', '.join(local for _, local, _ in loop.sites)}")
            new_iter = cst.parse_expression(f"zip({code(stmt.iter)}, {', '.join(f'self.{a}' for a, _, _ in loop.sites)})")
        self.call_body.append(stmt.with_changes(target=new_target, iter=new_iter,
                                                body=stmt.body.with_changes(body=loop.body)))
        if errors:  # the loop's other statements are converted as they would be without the blocked ones
            raise self.blocked_inside(errors, tainted)

    def forward_only(self, inner: cst.SimpleStatementLine, where: str, what: str, branch: bool = False) -> None:
        """A statement of a forward loop or of a static `if` (`where`), which may only compute forward values:
        dropped (a summary), or interpreted; else Blocked. An `if` arm may not call a layer helper or build the spec."""
        small = inner.body[0] if len(inner.body) == 1 else None
        value = getattr(small, "value", None)
        path = self.tf(value) if isinstance(value, cst.Call) else None
        if isinstance(small, (cst.Expr, cst.Assign)) and self.drop(path, value):
            return
        found = layers.kind_of(path)
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)) or path == "get_variable" \
                or (found and found[0] != "functional") or branch and (self.layer_helper(value) is not None or (
                    isinstance(value, cst.Call) and self.tf(value) == "estimator.EstimatorSpec")):
            raise Blocked(CODE, f"`{code(inner).strip()}` inside {where} is not converted: {what} may only compute "
                                "forward values (functional tf.compat.v1.layers calls and tensor ops)", inner)
        self.simple(inner)

    # ---- mode branches and EstimatorSpecs --------------------------------------------------------------------
    def mode_branch(self, stmt: cst.If) -> None:
        """`if mode == ...:` / `!=` / `in (...)` / elif / else: each arm runs for its modes; returns end them."""
        if self.mode_set(stmt.test) is None and self.static_test(stmt):
            self.static_branch(stmt)
            return
        arms, remaining, node = [], self.active, stmt
        while True:
            modes = self.mode_set(node.test)
            if modes is None:
                raise Blocked(CODE, f"`if {code(node.test)}:` is not converted: only tests on mode (==, !=, in) or on "
                                    "static configuration alone (params, flags, module constants) branch the "
                                    "model_fn", node)
            arms.append((remaining & modes, node.body.body))
            remaining = remaining - modes
            if node.orelse is None:
                break
            if isinstance(node.orelse, cst.If):
                node = node.orelse
                continue
            arms.append((remaining, node.orelse.body.body))
            break
        outer, errors, tainted = self.active, [], set()
        for modes, body in arms:
            if not modes:
                continue  # the arm never runs (those modes returned or were tested before)
            self.active = modes
            errors += self.each(body, tainted=tainted)
        self.active = outer & self.live
        if errors:
            raise self.blocked_inside(errors, tainted)

    def static_test(self, stmt: cst.If) -> bool:
        """Every test of the if/elif chain reads only values `__init__` and `call()` see too, the same each time
        (params, module names such as FLAGS, literals): TF1 evaluated it once per graph, as Python."""
        node, allowed = stmt, set(self.module_names | {self.params} | set(self.statics))
        while isinstance(node, cst.If):
            if not _static_test(node.test, allowed):
                return False
            node = node.orelse
        return True

    def static_branch(self, stmt: cst.If) -> None:
        """`if params["dropout"]:` / `if FLAGS.use_bn:` around forward statements: a Python condition on the
        program's configuration, which TF1 evaluated while building each graph. `__init__` builds the arm's layers
        under the same test and `call()` runs the arm under it; layer names are counted at run time (tf1_name), as
        TF1 counted them whichever arm ran."""
        self.whole_model("a static `if`", stmt)
        if self.loss is not None or self.loop is not None:
            where = "after the loss" if self.loss is not None else "inside a loop"
            raise Blocked(CODE, f"`if {code(stmt.test)}:` {where} is not converted: a static `if` is converted "
                                "around forward statements (choosing the loss or optimizer by configuration is not "
                                "converted yet; build them without the `if`)", stmt)
        arms, node, errors, tainted = [], stmt, [], set()
        while node is not None:
            test = node.test if isinstance(node, cst.If) else None
            body = node.body.body
            self.loop = _Loop(stmt, frozenset(), branch=True)

            def inner_statement(inner, node=node, test=test) -> None:
                if isinstance(inner, cst.For) and inner.orelse is None and node is stmt:
                    # the same layers, TF1 names and forward pass, in a form that converts (a list of layers)
                    iterable = f"{code(inner.iter)} if {code(test)} else []"
                    raise Blocked(CODE, f"a loop inside `if {code(test)}:` is not converted: a static `if` may "
                                        "only compute forward values; write the loop outside the `if`, over an "
                                        f"empty list when the condition is false: `for {code(inner.target)} in "
                                        f"{iterable}:` where the loop was (the same layers and TF1 names)", inner)
                if not isinstance(inner, cst.SimpleStatementLine):
                    raise Blocked(CODE, f"{type(inner).__name__.lower()} statement inside `if {code(stmt.test)}:` "
                                        "is not converted: a static `if` may only compute forward values", inner)
                self.forward_only(inner, f"`if {code(stmt.test)}:`", "a static `if`", branch=True)

            try:
                errors += self.each(body, inner_statement, tainted)
            finally:
                arm, self.loop = self.loop, None
            self.list_attrs |= {attr for attr, _, _ in arm.sites}
            arms.append((node, test, arm))
            node = node.orelse if isinstance(node, cst.If) else None
        if any(arm.sites for _, _, arm in arms):
            self.runtime_names = True
            for name in ("tf1_name", "tf1_names"):
                if name in self.module_names or name == self.params:
                    errors.append(Blocked(CODE, f"`{name}` is taken; the generated layer naming needs it", stmt))
            init, built = [], list(arms)
            while not built[-1][2].sites:  # trailing arms that build nothing need no branch in __init__
                built.pop()
            for i, (_, test, arm) in enumerate(built):
                init.append(f"if {code(test)}:" if i == 0 else f"elif {code(test)}:" if test is not None else "else:")
                init += ["    " + wrap_call(f"self.{attr} = {ctor}", "    ", 92) for attr, _, ctor in arm.sites]
                if not arm.sites:
                    init.append("    pass")
            self.layers.append((None, "\n".join(init)))

        def rebuilt(node, index):
            if node is None:
                return None
            arm = arms[index][2]
            body = node.body.with_changes(body=arm.body or [cst.SimpleStatementLine([cst.Pass()])])
            if isinstance(node, cst.Else):
                return node.with_changes(body=body)
            return node.with_changes(body=body, orelse=rebuilt(node.orelse, index + 1))

        self.call_body.append(rebuilt(stmt, 0))
        if errors:  # the arms' other statements are converted as they would be without the blocked ones
            raise self.blocked_inside(errors, tainted)

    def returns(self, ret: cst.Return) -> None:
        self.spec(ret.value, self.active)
        self.live = self.live - self.active
        self.active = frozenset()

    def resolve(self, node, mode: str) -> tuple[str, object]:
        if node is None or is_literal(node, None):
            return "none", None
        if isinstance(node, cst.Dict):
            return "dict", node
        if isinstance(node, cst.Name):
            kind = self.bindings.get(node.value, {}).get(mode)
            if kind is None:
                raise Blocked(CODE, f"`{node.value}` is not assigned above in {mode} mode", node)
            return kind
        return "expression", node

    def is_spec(self, value: cst.Call) -> bool:
        path = self.tf(value)
        return path == "estimator.EstimatorSpec" or (self.tpu is not None and path in tpu_rules.SPECS)

    def spec(self, value, modes: frozenset[str]) -> None:
        if not (isinstance(value, cst.Call) and self.is_spec(value)):
            raise Blocked(CODE, "model_fn must return tf.estimator.EstimatorSpec(...)", value)
        tpu_spec = self.tf(value) != "estimator.EstimatorSpec"
        names = tpu_rules.SPEC_ARGS if tpu_spec else _SPEC_ARGS
        kind = "TPUEstimatorSpec" if tpu_spec else "EstimatorSpec"
        unknown = [a.keyword.value for a in value.args if a.keyword is not None and a.keyword.value not in names]
        if unknown:
            raise Blocked(CODE, f"{kind} has no argument '{unknown[0]}': TF1 raised a TypeError when this "
                                f"return ran; fix the call (the mode goes first: {kind}(mode, ...))", value)
        args = bind(value, names, kind, CODE)
        if tpu_spec:
            args = self.tpu_spec_args(args)
        if "scaffold" in args and not is_literal(args["scaffold"], None):
            raise Blocked(CODE, "EstimatorSpec(scaffold=...) is not converted: the Keras model initialises and "
                                "saves its own variables", args["scaffold"])
        for hook in ("training_chief_hooks", "training_hooks", "evaluation_hooks", "prediction_hooks"):
            if hook in args and not is_literal(args[hook], None):
                self.spec_hooks(args[hook], hook)
        if "PREDICT" in modes and "export_outputs" in args and not is_literal(args["export_outputs"], None):
            # only PREDICT mode's export_outputs were exported (other modes' were never read)
            kind, payload = self.resolve(args["export_outputs"], "PREDICT")
            # an export reads them (program.py raises this then); otherwise they are dropped with a note
            self.spec_export_outputs = payload if kind == "dict" else Blocked(
                CODE, "export_outputs must be a dict literal (or a name assigned one)", args["export_outputs"])
        for mode in MODES:
            if mode not in modes:
                continue
            for key in ("predictions", "loss", "train_op", "eval_metric_ops"):
                if isinstance(args.get(key), cst.Name):
                    self.resolve(args[key], mode)  # a name unbound in this mode: TF1 failed there too
            if mode in ("TRAIN", "EVAL") and "loss" in args:
                node = args["loss"]
                if not self.is_loss_in(node, mode):
                    raise Blocked(CODE, f"EstimatorSpec(loss={code(node)}) is not the loss computed above", node)
            if mode == "TRAIN":
                if "loss" not in args or "train_op" not in args:
                    raise Blocked(CODE, "the EstimatorSpec returned in TRAIN mode must carry loss and train_op", value)
                node = args["train_op"]
                if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                        and node.func.attr.value == "minimize"):  # EstimatorSpec(train_op=optimizer.minimize(...))
                    active, self.active = self.active, frozenset({"TRAIN"})
                    self.minimize("__tfmigrate_train_op__", node)
                    self.active = active
                    node = cst.Name("__tfmigrate_train_op__")
                if self.resolve(node, mode)[0] != "train_op":
                    raise Blocked(CODE, f"EstimatorSpec(train_op={code(node)}) is not the training op computed above", node)
            if mode == "EVAL":
                kind, payload = self.resolve(args.get("eval_metric_ops"), mode)
                if kind not in ("dict", "none"):
                    raise Blocked(metrics.CODE, "eval_metric_ops must be a dict literal", args["eval_metric_ops"])
                self.spec_metrics = payload
            if mode == "PREDICT":
                node = args.get("predictions")
                kind, payload = self.resolve(node, mode)
                if kind in ("forward", "expression"):  # `predictions=tf.nn.softmax(logits)`: a lone tensor
                    payload = node  # written in terms of the model output below, or blocked naming what it lacks
                elif kind not in ("dict", "none"):
                    raise Blocked(CODE, "predictions must be a dict literal or a value of the forward pass", node)
                self.spec_predictions = payload

    # ---- TPUEstimator(use_tpu=False) -------------------------------------------------------------------------
    def use_tpu_test(self, node) -> bool | None:
        """The value of a test on use_tpu (False here), or None when `node` is not one."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.use_tpu_test(node.expression)
            return None if inner is None else not inner
        text = code(node).strip()
        if text in self.tpu:
            return False
        if (isinstance(node, cst.Subscript) and code(node.value) == self.params and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.SimpleString)
                and node.slice[0].slice.value.evaluated_value == "use_tpu"):
            return False
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
                and code(node.func.value) == self.params and node.args
                and isinstance(node.args[0].value, cst.SimpleString) and node.args[0].value.evaluated_value == "use_tpu"):
            return False  # params.get("use_tpu"[, default]): the key is always there
        return None

    def no_tpu_ops(self, stmt) -> None:
        """tf.tpu ops (CrossShardOptimizer, ...) on the path that runs with use_tpu=False: TF1 built them on CPU,
        where they fail or mean something the converted model does not do."""
        for node in subtree_nodes(stmt):
            path = self.tf(node) if isinstance(node, cst.Call) else None
            if path is not None and (path.startswith("tpu.") or path.startswith("contrib.tpu.")) \
                    and path not in tpu_rules.SPECS:
                raise Blocked(tpu_rules.CODE, f"tf.{path} runs with use_tpu=False here: only TPU code under "
                                              "`if params[\"use_tpu\"]:` (or the use_tpu flag) is dropped; put it "
                                              "there", node)

    def use_tpu_choice(self, stmt: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        """`x = a if params["use_tpu"] else b`: the value for use_tpu=False."""
        small = stmt.body[0] if len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.IfExp):
            test = self.use_tpu_test(small.value.test)
            if test is not None:
                chosen = small.value.body if test else small.value.orelse
                if len(small.targets) == 1 and isinstance(chosen, cst.Name) and \
                        code(small.targets[0].target) == chosen.value:  # `opt = ... else opt`: nothing changes
                    return stmt.with_changes(body=[cst.Pass()])
                return stmt.with_changes(body=[small.with_changes(value=chosen.with_changes(lpar=[], rpar=[]))])
        return stmt

    def use_tpu_branch(self, stmt: cst.If) -> None:
        """`if params["use_tpu"]: ... else: ...`: only the arm for use_tpu=False ran."""
        if self.use_tpu_test(stmt.test):
            body = stmt.body.body
        elif isinstance(stmt.orelse, cst.If):
            self.statement(stmt.orelse)
            return
        else:
            body = stmt.orelse.body.body if stmt.orelse is not None else ()
        tainted: set[str] = set()
        errors = self.each(body, tainted=tainted)
        if errors:
            raise self.blocked_inside(errors, tainted)

    def tpu_spec_args(self, args: dict) -> dict:
        """TPUEstimatorSpec's arguments as the EstimatorSpec it became on CPU (as_estimator_spec)."""
        for key in ("host_call", "scaffold_fn"):
            if key in args and not is_literal(args[key], None):
                raise Blocked(tpu_rules.CODE, f"TPUEstimatorSpec({key}=...) is not converted: "
                                              + ("its outfeed host call (summaries) runs as a hook; write summaries "
                                                 "with a Keras callback" if key == "host_call" else
                                                 "the Keras model initialises its own variables"), args[key])
        metrics_node = args.pop("eval_metrics", None)
        if metrics_node is not None and not is_literal(metrics_node, None):
            pair = metrics_node
            if isinstance(pair, cst.Name):
                if pair.value not in self.tpu_metrics:
                    raise Blocked(tpu_rules.CODE, f"eval_metrics=`{pair.value}` is not a `(metric_fn, tensors)` "
                                                  "tuple assigned once above", pair)
                pair = self.tpu_metrics[pair.value]
            args["eval_metric_ops"] = self.inline_metric_fn(pair)
        return args

    def inline_metric_fn(self, pair) -> cst.Dict:
        """`(metric_fn, tensors)` → the dict `metric_fn(*tensors)` (or `**tensors`) returned."""
        if not (isinstance(pair, (cst.Tuple, cst.List)) and len(pair.elements) == 2
                and not any(isinstance(e, cst.StarredElement) for e in pair.elements)):
            raise Blocked(tpu_rules.CODE, "eval_metrics must be a `(metric_fn, tensors)` pair", pair)
        fn_node, tensors = pair.elements[0].value, pair.elements[1].value
        fn = None
        if isinstance(fn_node, cst.Name):
            fn = self.tpu_fns.get(fn_node.value)
            if fn is None and fn_node.value in self.helpers and fn_node.value not in self.assign_counts:
                fn = self.helpers[fn_node.value]
                if fn not in self.inlined_helpers:
                    self.inlined_helpers.append(fn)
        if fn is None:
            raise Blocked(tpu_rules.CODE, f"metric_fn `{code(fn_node)[:40]}` is not a function defined in model_fn or "
                                          "at module level of its file", fn_node)
        p = fn.params
        names = [x.name.value for x in p.params]
        if p.posonly_params or p.kwonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None \
                or any(x.default is not None for x in p.params):
            raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}` with defaults, *args or **kwargs is not "
                                          "converted", fn)
        if isinstance(tensors, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in tensors.elements) or len(tensors.elements) != len(names):
                raise Blocked(tpu_rules.CODE, f"eval_metrics passes {len(tensors.elements)} tensors to "
                                              f"`{fn.name.value}`, which takes {len(names)}", tensors)
            env = {n: _parenthesized(e.value) for n, e in zip(names, tensors.elements)}
        elif isinstance(tensors, cst.Dict) and all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                                                   for e in tensors.elements):
            env = {e.key.evaluated_value: _parenthesized(e.value) for e in tensors.elements}
            if set(env) != set(names):
                raise Blocked(tpu_rules.CODE, f"eval_metrics' keys do not match `{fn.name.value}`'s parameters", tensors)
        else:
            raise Blocked(tpu_rules.CODE, "eval_metrics' tensors must be a list, tuple or dict literal", tensors)
        body = list(fn.body.body)
        if body and _docstring(body[0]) is not None:
            body = body[1:]
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                env[small.targets[0].target.value] = _parenthesized(_substitute(small.value, env))
            elif isinstance(small, cst.Return) and small.value is not None:
                result = _substitute(small.value, env)
                if not isinstance(result, cst.Dict):
                    raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}` must return a dict literal", small)
                return result
            else:
                raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}`: only assignments and a final "
                                              "`return {...}` are converted", stmt)
        raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}` does not return its metrics dict", fn)

    def is_loss_in(self, node, mode: str) -> bool:
        if isinstance(node, cst.Name) and self.resolve(node, mode)[0] == "label" and self.loss is None:
            self.hand_written_loss(node.value, node)
        return isinstance(node, cst.Name) and self.resolve(node, mode)[0] == "loss"

    # ---- result ----------------------------------------------------------------------------------------------
    def summary_hook_plan(self, summaries: list[tuple[str, str, cst.CSTNode]]) -> dict:
        """The ModelPlan fields of the training SummarySaverHooks: (output_dir, save_steps code, the tags of
        `summaries` each writes, in the op's order); each hook's note."""
        planned = []
        for hook, what, where in self.summary_hooks:
            if isinstance(what, str):
                self.notes.append((hooks.CODE, what, hook))
                continue
            tags, missing = [], []
            for call in what["calls"]:
                found = [tag for tag, _, c in summaries if c is call]
                if found:
                    tags.extend(found)
                else:
                    missing.append(code(call.args[0].value) if call.args else code(call)[:40])
            if not tags:
                why = "TF1 merged no summary here, so it wrote none" if not what["calls"] else \
                    f"none of its summaries ({', '.join(missing)}) is one tfmigrate writes (see their notes)"
                self.notes.append((hooks.CODE, hooks.summary_dropped(why), hook))
                continue
            planned.append((code(what["output_dir"]), code(what["save_steps"]), tags))
            self.notes.append((hooks.CODE, hooks.summary_note(where, tags, missing), hook))
        uses_params = any(self.params in self.free_names(cst.parse_expression(text))
                          for directory, steps, _ in planned for text in (directory, steps))
        return {"summary_hooks": planned, "summary_hooks_params": uses_params}

    def plan(self, class_name: str) -> ModelPlan:
        if self.loss is None or self.optimizer is None or self.train_op is None:
            raise Blocked(CODE, "model_fn needs a loss, an optimizer and a training op (minimize or apply_gradients)",
                          self.fn)
        loss_name, loss_plan, loss_call = self.loss
        output = loss_plan.output
        if not (isinstance(output, cst.Name) and output.value in self.forward - {self.features}):
            raise Blocked(losses.CODE, "the loss must be computed on a value of the forward pass", loss_call)
        out = output.value
        predictions = None
        if self.spec_predictions is not None:
            pred = self.inline(self.spec_predictions, out)
            self.check_names(pred, {out}, "predictions (only the model output is available)")
            predictions = code(pred)
        summaries, tags = [], set()
        for call in self.scalar_summaries:
            summary = self.scalar_summary(call, out, tags, loss_name)
            if summary is not None:
                summaries.append(summary)
        export_methods = export_code = export_blocked = None
        if isinstance(self.spec_export_outputs, Blocked):
            export_blocked = self.spec_export_outputs
        elif self.spec_export_outputs is not None:
            try:
                export_methods, export_code = export_rules.plan(self.spec_export_outputs, self.tf, self.predict_value,
                                                                lambda node, what: self.from_output(node, out, what))
            except Blocked as blocked:
                export_blocked = blocked
        metric_ctors = []
        if self.spec_metrics is not None:
            table = self.spec_metrics
            for element in table.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                    raise Blocked(metrics.CODE, "eval_metric_ops keys must be string literals", table)
                call = element.value
                if isinstance(call, cst.Name) and call.value in self.metric_vars:
                    call = self.metric_vars[call.value]
                call = self.inline(call, out)
                name = metrics.metric_name(self.tf(call)) if isinstance(call, cst.Call) else None
                if name is None:
                    raise Blocked(metrics.CODE, f"eval_metric_ops['{element.key.evaluated_value}'] is not a tf.metrics call", element.value)
                ctor = metrics.convert(element.key.evaluated_value, call, name, self.labels, out, loss_name,
                                       self.resolve_prediction, self.tf, self.notes)
                if ctor is None:
                    self.notes.append((metrics.CODE, f"metric '{element.key.evaluated_value}' (mean of the loss) dropped: Keras reports the loss", call))
                else:
                    metric_ctors.append(ctor)
        opt_name, opt_call = self.optimizer
        lr_node = next((a.value for a in opt_call.args if a.keyword is None or a.keyword.value == "learning_rate"), None)
        learning_rate = None
        if isinstance(lr_node, cst.Name) and lr_node.value in self.schedules:
            learning_rate = self.schedules[lr_node.value]
        elif isinstance(lr_node, cst.Call) and optimizers.decay_name(self.tf(lr_node)):
            learning_rate = optimizers.convert_decay(lr_node, optimizers.decay_name(self.tf(lr_node)), self.is_global_step)
        elif lr_node is not None:
            self.check_names(lr_node, {self.params}, "the learning rate")
        optimizer = optimizers.convert(opt_call, optimizers.optimizer_name(self.tf(opt_call)), learning_rate,
                                       learning_rate is not None, self.profile)
        self.notes.extend((c, m, opt_call) for c, m in optimizer.notes)
        if self.grad_transforms is not None and (self.grad_transforms.transforms or self.grad_transforms.unscaled):
            optimizer = self.clipped_optimizer(optimizer, class_name)
        for attr, _ in self.layers:
            if attr in _MODEL_ATTRIBUTES:  # auto-names (dense, conv2d, …) never clash; explicit names might
                raise Blocked(layers.CODE, f"layer name `{attr}` clashes with a keras.Model attribute", self.fn)
        model_layers = [(attr, self.render_names(ctor)) for attr, ctor in self.layers]
        if self.batch_norm_training and not self.update_ops_run:
            # the train op never ran UPDATE_OPS: TF1's moving averages kept their initial values
            bn = f"{layers.TF1_BATCH_NORM}("
            model_layers = [(attr, ctor.replace(bn, f"{bn}update_averages=False, ")) for attr, ctor in model_layers]
        if self.runtime_names:
            model_layers.insert(0, (None, _TF1_NAME_HELPER))  # ends with a blank line
        taken = {attr for attr, _ in self.layers if attr} | self.list_attrs
        for attr in sorted(self.held_in_lists):
            # tf.train.Checkpoint (the checkpoints, resume, checkpoint convert) follows attributes, not the lists
            # Keras 3 tracks layers in: without this a restore silently left these layers at their initial values.
            # `<list>__<i>`: generated attributes are layer names and `_<n>` suffixes, never a double underscore
            if any(other.startswith(f"{attr}__") for other in taken):
                raise Blocked(layers.CODE, f"layer attribute names starting with `{attr}__` are taken", self.fn)
            model_layers.append((None, f"for index, layer in enumerate(self.{attr}):  # named for tf.train.Checkpoint\n"
                                       f"    setattr(self, f\"{attr}__{{index}}\", layer)"))
        self.drop_unused(out)
        return ModelPlan(
            fn_name=self.fn.name.value, class_name=class_name, docstring=self.docstring, features=self.features,
            labels=self.labels, params=self.params, layers=model_layers, call_body=self.call_body,
            # read from the forward statements themselves (a parse of their rendered text has the same names)
            params_in_call=any(self.params in self.free_names(stmt) for stmt in self.call_body),
            output=out, predictions=predictions, loss=loss_plan, metrics=metric_ctors, optimizer=optimizer,
            notes=self.notes, partitioner=partitioners.single(self.partitioners, self.fn), mod_rows=self.mod_rows,
            support=self.support, export_outputs=export_code, export_methods=export_methods,
            export_blocked=export_blocked, summaries=summaries, nan_check=self.nan_check,
            **self.logging_plan(out, loss_name), **self.summary_hook_plan(summaries),
        )

    # ---- LoggingTensorHook (rules/planners/hooks.py) ------------------------------------------------------------------
    def named_tensors(self, out: str) -> dict[str, tuple[str | None, str]]:
        """TF names of the model_fn's TF ops given `name="n"` (`x = tf.identity(value, name="n")`,
        `tf.nn.softmax(logits, name="n")` anywhere in a forward value or a dict of them, e.g. the predictions) →
        (the local holding it or None, value code from the output), for the values computed from the model output
        that TF1 built in training (what a LoggingTensorHook can log by name)."""
        candidates: list[tuple[str | None, cst.Call]] = []
        for local, expr in [*self.forward_exprs.items(), *self.dicts.items()]:
            if self.assign_counts.get(local) != 1 or local in self.scoped \
                    or "TRAIN" not in self.bindings.get(local, {}):
                continue  # in a variable_scope TF1 named it "<scope>/<name>"; a PREDICT-only one was not trained
            for call in calls_in(expr):
                candidates.append((local if call is expr else None, call))
        found: dict[str, tuple[str | None, str]] = {}
        # names TF1 had given already: a layer's scope ("dense", an explicit name) made the op "<name>_1"
        seen: set[str] = {a for a, _ in self.layers if a}
        for local, call in candidates:
            path = self.tf(call)
            if path == "identity":
                try:
                    name = bind(call, ["input", "name"], "tf.identity", CODE).get("name")
                except Blocked:
                    continue
            elif path is not None and _names_its_output(path):
                name = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "name"), None)
            else:
                continue
            if not isinstance(name, cst.SimpleString):
                continue
            tf_name = name.evaluated_value
            if tf_name in seen:  # TF1 made the second one "<name>_1"
                found.pop(tf_name, None)
                continue
            seen.add(tf_name)
            value = self.inline(cst.Name(local) if local is not None else call, out)
            if self.free_names(value) - {out} - self.module_names - BUILTINS:
                continue
            found[tf_name] = (local, code(value))
        return found

    def logging_plan(self, out: str, loss_name: str | None) -> dict:
        """The ModelPlan fields of the LoggingTensorHooks in training_hooks: what the step records, by key, and the
        TensorLogger constructors (rules/planners/hooks.py); a hook the step cannot supply as TF1 logged it is dropped with a
        note."""
        named = self.named_tensors(out)
        fields = {"named_tensors": {n: v for n, (_, v) in named.items()}}
        if not self.logging_hooks:
            return fields
        by_local = {local: n for n, (local, _) in named.items() if local is not None}
        logged: dict[str, str] = {}
        loggers, chief_loggers, reads_params, counters = [], [], False, False
        for call, where in self.logging_hooks:
            if hooks.hook_kind(self.tf(call)) == hooks.STEP_COUNTER:
                try:
                    logger = self.step_counter(call)
                except Blocked as error:  # it only observes: dropped with the note at its line
                    if not any(n[2] is call for n in self.notes):
                        self.notes.append((hooks.CODE, hooks.step_counter_dropped(error.message), call))
                    continue
                reads = self.params in set().union(set(), *(self.free_names(a.value) for a in call.args))
                counters = True
                note = hooks.step_counter_note()
            else:
                try:
                    logger, logged, reads = self.tensor_logger(call, out, loss_name, named, by_local, logged)
                except Blocked as error:  # it only logs: dropped with the note at its line, the file still converts
                    if not hooks.is_logging_drop(error):
                        raise
                    if not any(n[2] is call for n in self.notes):
                        self.notes.append((hooks.CODE, error.message, call))
                    continue
                note = hooks.logging_note(f"EstimatorSpec {where}")
            reads_params = reads_params or reads
            (chief_loggers if where == "training_chief_hooks" else loggers).append(logger)
            if not any(n[2] is call for n in self.notes):
                self.notes.append((hooks.CODE, note, call))
        fields.update(logged=list(logged.items()), loggers=loggers, chief_loggers=chief_loggers,
                      loggers_params=reads_params, counters=counters)
        return fields

    def step_counter(self, call: cst.Call) -> str:
        """A training_hooks / training_chief_hooks `StepCounterHook(every_n_steps | every_n_secs[, output_dir])` →
        the generated StepCounter's constructor, reading the model's optimizer iterations (rules/planners/hooks.py)."""
        args = bind(call, hooks.STEP_COUNTER_ARGS, "StepCounterHook", hooks.CODE)
        ctor = []
        for arg in hooks.STEP_COUNTER_ARGS:
            given = args.get(arg)
            if given is None or is_literal(given, None):
                continue
            if arg == "summary_writer":
                raise Blocked(hooks.CODE, hooks.STEP_COUNTER_WRITER, given)
            self.check_names(given, {self.params}, f"StepCounterHook({arg}=...)")
            ctor.append(f"{arg}={code(given)}")
        return wrap_call(f"StepCounter({', '.join([*ctor, 'step=step'])})", width=84)  # logging_hooks' step

    def tensor_logger(self, call: cst.Call, out: str, loss_name: str | None, named: dict, by_local: dict,
                      logged: dict) -> tuple[str, dict, bool]:
        """One training_hooks LoggingTensorHook → (its TensorLogger constructor, the recorded values with its own
        added, whether it reads params); Blocked (hooks.is_logging_drop: dropped with a note) at what the step
        cannot supply as TF1 logged it."""
        logged, reads_params = dict(logged), False
        args = bind(call, hooks.LOGGING_ARGS, "LoggingTensorHook", hooks.CODE)
        at_end = args.get("at_end")
        if at_end is not None and not is_literal(at_end, False):
            raise Blocked(hooks.CODE, hooks.logging_dropped(
                "at_end=True ran the tensors once more after training, on a new batch of the input; drop "
                "at_end or log the last values with every_n_iter"), at_end)
        tensors = args.get("tensors")
        if isinstance(tensors, cst.Dict) and all(isinstance(e, cst.DictElement)
                                                 and isinstance(e.key, cst.SimpleString) for e in tensors.elements):
            pairs = sorted(((e.key.evaluated_value, e.value) for e in tensors.elements), key=lambda p: p[0])
        elif isinstance(tensors, (cst.List, cst.Tuple)) and all(
                isinstance(e, cst.Element) and isinstance(e.value, cst.SimpleString) for e in tensors.elements):
            pairs = [(e.value.evaluated_value, e.value) for e in tensors.elements]
        else:
            raise Blocked(hooks.CODE, hooks.logging_dropped(
                "its tensors are converted as a dict literal {\"tag\": tensor or name} or a list of tensor "
                "names (TF1 printed a tensor of a list by its description)"), tensors or call)
        items = []
        for tag, value in pairs:
            key, value_code = self.logged_value(value, out, loss_name, named, by_local)
            if logged.get(key, value_code) != value_code:
                raise Blocked(hooks.CODE, hooks.logging_dropped(f"`{code(value)}`: two values under one key"), value)
            logged[key] = value_code
            items.append(f"({json.dumps(tag)}, {json.dumps(key)})")
        ctor = [f"[{', '.join(items)}]"]
        for arg in ("every_n_iter", "every_n_secs", "formatter"):
            given = args.get(arg)
            if given is None or is_literal(given, None):
                continue
            if arg == "formatter":
                self.check_formatter(given)
            else:
                self.check_names(given, {self.params}, f"LoggingTensorHook({arg}=...)")
            reads_params |= self.params in self.free_names(given) | _lambda_names(given)
            ctor.append(f"{arg}={code(given)}")
        return wrap_call(f"TensorLogger({', '.join(ctor)})", width=84), logged, reads_params

    def logged_value(self, value, out: str, loss_name: str | None, named: dict, by_local: dict) -> tuple[str, str]:
        """(key, value code) of one tensor a training_hooks LoggingTensorHook logs."""
        if isinstance(value, cst.SimpleString):
            key = logged_name_key(value.evaluated_value, named)
            if key is None:
                raise Blocked(hooks.CODE, hooks.logging_name_dropped(value.evaluated_value), value)
            return key
        if isinstance(value, cst.Name) and value.value == loss_name:
            return hooks.LOSS_KEY, "loss"
        if self.is_global_step(value):
            return hooks.GLOBAL_STEP_KEY, "step"
        if isinstance(value, cst.Name) and value.value in by_local:
            name = by_local[value.value]
            return f"name:{name}", named[name][1]
        inlined = self.inline(value, out)
        bad = self.free_names(inlined) - {out} - self.module_names - BUILTINS
        if bad:
            raise Blocked(hooks.CODE, hooks.logging_dropped(
                f"`{code(value)[:40]}` is not the loss, the global step or a value computed from the model output "
                f"(it reads `{sorted(bad)[0]}`), which is what the migrated training step can hand to the logger; log "
                "a value computed from the output, or compute this one from it"), value)
        return (value.value if isinstance(value, cst.Name) else f"tensor:{code(value)}"), code(inlined)

    def check_formatter(self, node) -> None:
        """A formatter the logger can call from the model class: module-level names, builtins, params."""
        names = self.free_names(node) | _lambda_names(node)
        bad = names - self.module_names - BUILTINS - {self.params}
        if bad:
            raise Blocked(hooks.CODE, hooks.logging_dropped(
                f"its formatter reads `{sorted(bad)[0]}`, a local of the model_fn; use a module-level function"), node)

    def scalar_summary(self, call: cst.Call, out: str, tags: set[str],
                       loss_name: str | None) -> tuple[str, str, cst.Call] | None:
        """`tf.compat.v1.summary.scalar("tag", tensor)` run in TRAIN mode → (tag, value code from the output, call),
        written by the custom loop's train step as the Estimator wrote it; else None and the note says why."""
        def keep_note(why: str) -> None:
            tag = code(call.args[0].value) if call.args else "?"
            self.notes.append((CODE, f"summary {tag} dropped: summaries do not change training. {SUMMARY_WHY} "
                                     f"({why})", call))

        try:
            args = bind(call, ["name", "tensor", "collections", "family"], "summary.scalar", CODE)
        except Blocked as blocked:
            keep_note(blocked.message)
            return None
        name = args.get("name")
        if set(args) != {"name", "tensor"} or not isinstance(name, cst.SimpleString):
            keep_note("converted: a literal tag and the tensor, no collections or family")
            return None
        tag = name.evaluated_value
        # TF1 made the tag unique in the graph (a second "x" became "x_1", a user "loss" next to the Estimator's
        # own "loss" too) and replaced characters an op name cannot have: those tags are not reproduced
        if not re.fullmatch(r"[A-Za-z0-9.][A-Za-z0-9_.\-/]*", tag) or tag in tags or tag == "loss":
            keep_note(f"the tag {tag!r} is not written as TF1 renamed it")
            return None
        if isinstance(args["tensor"], cst.Name) and args["tensor"].value == loss_name:
            # TF1's tensor was each replica's own loss, the custom loop's the one scaled for the global batch
            keep_note("the custom loop writes the loss under the tag 'loss', as the Estimator did")
            return None
        value = self.inline(args["tensor"], out)
        try:
            self.check_names(value, {out}, "the summary's value (only the model output is available)")
        except Blocked as blocked:
            keep_note(blocked.message)
            return None
        tags.add(tag)
        return tag, code(value), call

    def clipped_optimizer(self, optimizer: optimizers.OptimizerPlan, class_name: str) -> optimizers.OptimizerPlan:
        """The optimizer class with the model_fn's gradient processing in apply(): Keras 3 calls it per replica,
        before summing the gradients over replicas, where TF1 applied the user's clipping too."""
        grads = self.grad_transforms
        callee, rest = optimizer.ctor.split("(", 1)
        name = f"{class_name}Optimizer"  # one per model class: two model_fns may clip differently
        if name in self.module_names:
            raise Blocked(optimizers.CODE, f"`{name}` is taken in this module; the generated optimizer needs it", grads.node)
        uses_params = any(self.params in self.free_names(cst.parse_module(t)) for t in grads.transforms)
        lines = [f"class {name}({callee}):",
                 f'    """{callee} with the gradient processing {self.fn.name.value} did before apply_gradients.',
                 "",
                 "    Keras calls apply() on each replica's gradients before summing them over replicas, which is where",
                 "    TF1 transformed them too.",
                 '    """', ""]
        if uses_params:
            lines += [f"    def __init__(self, {self.params}=None, **kwargs):", "        super().__init__(**kwargs)",
                      f"        self.{self.params} = {self.params}", ""]
        lines.append("    def apply(self, grads, trainable_variables=None):")
        if uses_params:
            lines.append(f"        {self.params} = self.{self.params}")
        if grads.unscaled:
            lines += ["        # tf.gradients differentiated each replica's loss before the optimizer's 1/replicas scaling",
                      "        replicas = tf.distribute.get_strategy().num_replicas_in_sync",
                      "        if replicas > 1:",
                      "            grads = [None if g is None else g * replicas for g in grads]"]
            self.notes.append((optimizers.CODE, "tf.gradients took each replica's unscaled loss: the generated "
                                                f"{name} multiplies Keras' gradients by the replica count (exact for "
                                                "1, 2, 4, … replicas)", grads.node))
        head = generated("\n".join(lines))
        body = [f"        {t}" for t in grads.transforms]
        tail = "        return super().apply(grads, trainable_variables)"
        support = "\n".join([head, *body, tail]) + "\n"
        if optimizer.support_code:
            support = optimizer.support_code.strip("\n") + "\n\n\n" + support
        args = f"{self.params}, " if uses_params else ""
        return dataclasses.replace(optimizer, ctor=f"{name}({args}{rest}", support_code=support)

    def drop_unused(self, out: str) -> None:
        """Tensor ops only predictions or metrics read (written out there) are dropped from call()."""
        kept: list[cst.BaseStatement] = []
        for index, stmt in reversed(list(enumerate(self.call_body))):
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            target = (small.targets[0].target.value if isinstance(small, cst.Assign)
                      and isinstance(small.targets[0].target, cst.Name) else None)
            needed = set().union(*(self.free_names(s) for s in kept)) | {out}
            if (target in self.inlined and target not in needed and self.assign_counts.get(target) == 1
                    and not any(line.comment for line in stmt.leading_lines)):
                continue
            kept.append(stmt)
        self.call_body = kept[::-1]

    def inline(self, node, out: str):
        """Forward values computed from the output without layers (`predicted = tf.argmax(logits, 1)`), written
        out in terms of the output: predictions and metrics see only the model output."""
        exprs = {n: e for n, e in self.forward_exprs.items() if n != out and self.assign_counts.get(n) == 1}
        for _ in range(len(exprs)):
            free = self.free_names(node) & set(exprs)
            if not free:
                break
            node = _substitute(node, {n: _parenthesized(exprs[n]) for n in free})
            self.inlined |= free
        return node

    def predict_value(self, node):
        """A name → what PREDICT mode assigned it, when that is a dict or an export output call."""
        if isinstance(node, cst.Name):
            kind, payload = self.bindings.get(node.value, {}).get("PREDICT", (None, None))
            if kind in ("dict", "export_output"):
                return payload
        return node

    def from_output(self, node, out: str, what: str) -> str:
        """A PREDICT tensor (`probabilities`, `predictions["key"]`) written in terms of the model output."""
        resolve = self.resolve_prediction

        class _Keys(Transformer):  # predictions["key"] anywhere in the expression → that key's value
            def leave_Subscript(self, original, updated):
                value = resolve(original)
                return updated if value is original else _parenthesized(value)

        node = self.inline(self.predict_value(node).visit(_Keys()), out)
        self.check_names(node, {out}, f"{what} (only the model output is available)")
        return code(node)

    def resolve_prediction(self, node):
        """`predictions["key"]` → the dict's expression for that key."""
        if (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in self.dicts
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.SimpleString)):
            key = node.slice[0].slice.value.evaluated_value
            for element in self.dicts[node.value.value].elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == key:
                    return element.value
        return node


def _docstring(stmt) -> str | None:
    if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.SimpleString)):
        return stmt.body[0].value.value
    return None


def class_name_for(fn_name: str, taken: frozenset[str]) -> str:
    stem = fn_name[:-3] if fn_name.endswith("_fn") else fn_name
    words = [w for w in stem.split("_") if w]
    name = "".join(w[:1].upper() + w[1:] for w in words)
    if not name.lower().endswith("model"):
        name += "Model"
    while name in taken:
        name += "_"
    return name


def logged_name_key(name: str, named: dict) -> tuple[str, str] | None:
    """(key, value code) of a tensor a LoggingTensorHook names ("n" or "n:0"), None when tfmigrate cannot supply
    it: the names of the model_fn's tf.identity values computed from the output (`named`), and "loss", which
    found the Estimator's own loss summary (a serialized Summary; TF 2.15) unless the model_fn named a tensor so."""
    if name.endswith(":0"):
        name = name[:-2]
    if name in named:
        value = named[name]
        return f"name:{name}", value[1] if isinstance(value, tuple) else value
    if name == "loss":
        return hooks.LOSS_SUMMARY_KEY, 'tf.raw_ops.ScalarSummary(tags="loss", values=loss)'
    return None


# The walks below are module-level classes, one instance per walk: making a visitor class per call (as a closure)
# cost more than most of these walks.

class _LambdaNames(Visitor):
    def __init__(self, found: set[str]):
        self.found = found

    def visit_Lambda(self, n: cst.Lambda) -> bool:
        params = {p.name.value for p in n.params.params}
        self.found.update(x.value for x in free_name_nodes(n.body) if x.value not in params)
        self.found.update(_lambda_names(n.body))
        return False


def _lambda_names(node: cst.CSTNode) -> set[str]:
    """Names a lambda's body reads that are not its own parameters (free names skip lambdas)."""
    found: set[str] = set()
    walk(node, _LambdaNames(found))
    return found


class _FreeNameNodes(ValueNames):
    def visit_Lambda(self, n: cst.Lambda) -> bool:
        return False

    def _comprehension(self, n) -> bool:
        # the first iterable is read where the comprehension stands; its targets are local to it
        walk(n.for_in.iter, self)
        bound, inner, comp = set(), [], n.for_in
        while comp is not None:
            bound.update(t.value for t in free_name_nodes(comp.target))
            inner.extend([*([comp.iter] if comp is not n.for_in else []), *(i.test for i in comp.ifs)])
            comp = comp.inner_for_in
        parts = [n.key, n.value] if isinstance(n, cst.DictComp) else [n.elt]
        self.found.extend(x for part in [*parts, *inner] for x in free_name_nodes(part) if x.value not in bound)
        return False

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Name(self, n: cst.Name) -> None:
        self.found.append(n)


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _layer_call_node(layer: str, inputs: cst.BaseExpression, inputs_text: str, flag: str | None):
    """`cst.parse_expression(f"{layer}({inputs_text}, training={flag})")` (without `training=` for no flag) built
    without the parser, the same nodes (tests/rewrite/test_model_fn_nodes.py checks deep_equals): for `layer` a
    name or `self.name`, a flag that is a name, and inputs on one line (a multi-line one is parsed: its
    continuation lines' layout depends on where it is parsed). None otherwise."""
    if "\n" in inputs_text or (flag is not None and not _IDENTIFIER.fullmatch(flag)):
        return None
    owner, _, attr = layer.rpartition(".")
    if not _IDENTIFIER.fullmatch(attr) or owner not in ("", "self") or keyword.iskeyword(attr):
        return None
    if flag is not None and keyword.iskeyword(flag) and flag not in ("True", "False", "None"):
        return None
    func = cst.Name(attr) if not owner else cst.Attribute(cst.Name(owner), cst.Name(attr))
    value = inputs.deep_clone()
    if flag is None:
        return cst.Call(func, [cst.Arg(value)])
    return cst.Call(func, [cst.Arg(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                           cst.Arg(cst.Name(flag), keyword=cst.Name("training"),
                                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _text_free_names(text: str) -> set[str] | None:
    """The names `free_name_nodes` finds in `cst.parse_expression(text)`, read with `ast` (a C parse; None where
    `ast` does not read the text): Names used as values, lambdas skipped, a comprehension's targets local to it.
    (LibCST also holds True/False/None as Names, `ast` as constants: they are builtins, which every check drops.)
    tests/rewrite/test_model_fn_nodes.py compares both."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    found: set[str] = set()
    _ast_free_names(tree.body, found)
    return found


def _ast_free_names(node: ast.AST, found: set[str]) -> None:
    stack = [node]
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is ast.Name:
            found.add(n.id)
        elif kind is ast.Lambda:
            continue
        elif kind in _COMPREHENSIONS:
            _ast_free_names(n.generators[0].iter, found)
            bound, inner = set(), []
            for i, comp in enumerate(n.generators):
                _ast_free_names(comp.target, bound)
                inner.extend([*([comp.iter] if i else []), *comp.ifs])
            local: set[str] = set()
            for part in ([n.key, n.value] if kind is ast.DictComp else [n.elt]) + inner:
                _ast_free_names(part, local)
            found.update(local - bound)
        else:
            stack.extend(ast.iter_child_nodes(n))


def free_name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    """Name nodes used as values (not attribute names, keywords, or inside lambdas)."""
    found: list[cst.Name] = []
    walk(node, _FreeNameNodes(found))
    return found


class _ReplaceNames(Transformer):
    """Name nodes (by id) replaced by what `make` gives for their name."""

    def __init__(self, hits: set[int], make):
        self.hits, self.make = hits, make

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.make(original.value) if id(original) in self.hits else updated


def _rename(node: cst.CSTNode, names: dict[str, str]) -> cst.CSTNode:
    """Replace free uses of `names` by their expressions."""
    hits = {id(n) for n in free_name_nodes(node) if n.value in names}
    if not hits:
        return node
    return node.visit(_ReplaceNames(hits, lambda name: cst.parse_expression(names[name])))


def _substitute(node: cst.CSTNode, exprs: dict[str, cst.BaseExpression]) -> cst.CSTNode:
    """Replace free uses of names by expressions."""
    hits = {id(n) for n in free_name_nodes(node) if n.value in exprs}
    return node.visit(_ReplaceNames(hits, exprs.__getitem__))


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Call, cst.Attribute, cst.Subscript, cst.SimpleString, cst.Integer, cst.Float)):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _NamesAndAssignCounts(Visitor):
    def __init__(self):
        self.counts: dict[str, int] = {}
        self.names: set[str] = set()

    def visit_Name(self, n: cst.Name) -> None:
        self.names.add(n.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for name in _all_name_nodes(node.target):
            self.counts[name.value] = self.counts.get(name.value, 0) + 1

    def visit_For(self, node: cst.For) -> None:
        for name in _all_name_nodes(node.target):
            self.counts[name.value] = self.counts.get(name.value, 0) + 2  # a loop variable is never inlined

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `units *= 2` assigns `units` again: not a static local (was substituted: "statement `4 *= 2`")
        for name in _all_name_nodes(node.target):
            self.counts[name.value] = self.counts.get(name.value, 0) + 1


def _names_and_assign_counts(fn: cst.FunctionDef) -> tuple[set[str], dict[str, int]]:
    """Every name in the function, and how often each is assigned in its body (one walk)."""
    names = _NamesAndAssignCounts()
    walk(fn, names)
    return names.names, names.counts


class _AllNameNodes(Visitor):
    def __init__(self, found: list[cst.Name]):
        self.found = found

    def visit_Name(self, n: cst.Name) -> None:
        self.found.append(n)


def _all_name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []
    walk(node, _AllNameNodes(found))
    return found


_INPUT_LAYER = "feature_column.input_layer"
INPUT_LAYER_ARGS = _INPUT_LAYER_ARGS = ["features", "feature_columns", "weight_collections", "trainable",
                                        "cols_to_vars", "cols_to_output_tensors"]
_NUMERIC_COLUMNS_INPUT = "numeric_columns_input"
_NUMERIC_COLUMNS_SUPPORT = shared(generated('''\
def numeric_columns_input(features, columns):
    """tf.compat.v1.feature_column.input_layer(features, columns) over numeric_columns, as TF1 computed it: the
    columns in name order, each value (a last axis added at rank 1, then normalizer_fn, then float32) flattened to
    [batch, prod(shape)], all concatenated on the last axis. No variables (tfmigrate checked every column)."""
    parts = []
    for column in sorted(columns, key=lambda c: c.name):
        if type(column).__name__ not in ("NumericColumn", "_NumericColumn"):
            raise TypeError(f"{column.name} is not a numeric_column; this conversion reads numeric columns only")
        value = tf.convert_to_tensor(features[column.key])
        if value.shape.rank == 1:
            value = tf.expand_dims(value, -1)
        if column.normalizer_fn is not None:
            value = column.normalizer_fn(value)
        size = 1
        for dim in column.shape:
            size *= dim
        parts.append(tf.reshape(tf.cast(value, tf.float32), [-1, size]))
    return tf.concat(parts, axis=1)
''').rstrip("\n"))


def input_layer_calls(fn: cst.FunctionDef, names) -> list[cst.Call]:
    """The model_fn's tf.compat.v1.feature_column.input_layer calls."""
    return [c for c in calls_in(fn) if names.of(c) == _INPUT_LAYER]


class _Calls(Visitor):
    def __init__(self, found: list[cst.Call]):
        self.found = found

    def visit_Call(self, call: cst.Call) -> None:
        self.found.append(call)


# TF APIs whose `name=` is not (only) the name of the one tensor they return: layers, losses, metrics, variables,
# summaries and other namespaces that open a scope; several outputs ("n:0" is one of them); random values (the
# migrated step would draw other ones)
_NAME_NOT_OUTPUT = ("layers.", "keras.", "losses.", "metrics.", "summary.", "train.", "estimator.", "feature_column.",
                    "data.", "random.", "io.", "debugging.", "sets.", "strings.", "nn.rnn_cell.", "compat.")
_MULTI_OR_RANDOM = frozenset({
    "split", "unstack", "meshgrid", "unique", "unique_with_counts", "dynamic_partition", "nn.moments",
    "nn.weighted_moments", "nn.sufficient_statistics", "nn.top_k", "math.top_k", "nn.fused_batch_norm",
    "linalg.eigh", "linalg.svd", "linalg.qr", "svd", "self_adjoint_eig", "nn.dropout", "random_normal",
    "random_uniform", "truncated_normal", "multinomial", "random_shuffle", "random_crop", "nn.ctc_beam_search_decoder",
    "nn.ctc_greedy_decoder", "map_fn", "while_loop", "cond", "case", "py_func", "py_function", "numpy_function",
    "print", "Print", "Assert", "group", "tuple", "no_op", "get_variable", "Variable", "variable_scope",
    "name_scope", "control_dependencies", "nn.batch_normalization", "custom_gradient", "function"})


def _names_its_output(path: str) -> bool:
    """Whether `tf.<path>(..., name="n")` made its one output tensor "n:0" in TF1 (element-wise and reduction ops
    alike: tf.nn.softmax, tf.argmax, tf.sigmoid, tf.add, tf.reduce_mean, ...)."""
    return not path.startswith(_NAME_NOT_OUTPUT) and path not in _MULTI_OR_RANDOM and not makes_variables(path) \
        and layers.kind_of(path) is None and not losses.is_loss(path) and not metrics.metric_name(path) \
        and not path.startswith("assert")


MODEL_FN_ARGS = ("features", "labels", "mode", "params", "config")


def _signature(fn: cst.FunctionDef) -> tuple[dict[str, str], Blocked | None]:
    """The model_fn's parameter for each of features, labels, mode[, params][, config] (what the Estimator passes →
    the parameter's name) and the Blocked its signature gets.

    TF 2.15's Estimator calls `model_fn(features=..., **kwargs)` with labels / mode / params / config each passed by
    name when the signature has it (`_call_model_fn`, reading `getfullargspec(model_fn).args`), so when every
    parameter has one of those names each is read by its name, in any order. A missing `labels` or `mode` is
    reported (the body is still walked with it added, so its own blockers are reported too); keyword-only ones are
    parameters the Estimator never passed."""
    p = fn.params
    given = [x.name.value for x in p.params]
    shape = "model_fn must take (features, labels, mode[, params[, config]])"
    if isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None or p.posonly_params:
        raise Blocked(CODE, shape, fn)
    if p.kwonly_params:
        kwonly = [x.name.value for x in p.kwonly_params]
        raise Blocked(CODE, f"model_fn takes {', '.join(f'`{n}`' for n in kwonly)} as keyword-only: the Estimator "
                            "passes only the parameters listed before the `*` (TF 2.15 reads them with "
                            "getfullargspec().args), so TF1 never passed "
                            + ("them" if len(kwonly) > 1 else "it") + " and raised TypeError (a keyword-only "
                            "parameter without a default) or ValueError (Estimator(params=...) for a model_fn "
                            "without a `params` argument); move them before the `*`", p.kwonly_params[0])
    if not set(given) <= set(MODEL_FN_ARGS):
        if not 3 <= len(given) <= 5:
            raise Blocked(CODE, shape, fn)
        # (read by position; TF1 rejected names other than these when given to an Estimator)
        return dict(zip(MODEL_FN_ARGS, given)), None
    missing = [n for n in ("features", "labels", "mode") if n not in given]
    if "features" in missing:
        raise Blocked(CODE, f"model_fn({', '.join(given)}) takes no `features`: TF1 raised ValueError (\"model_fn "
                            "must include features argument\"); add it", fn)
    blocked = None
    if missing:
        blocked = Blocked(CODE, f"model_fn({', '.join(given)}) takes no "
                          + " and no ".join(f"`{n}`" for n in missing) + ": the conversion reads "
                          + ("the mode's branches from tests on `mode`" if missing == ["mode"] else
                             "the loss's labels from `labels`" if missing == ["labels"] else
                             "the labels from `labels` and the mode's branches from tests on `mode`")
                          + f", add {' and '.join(f'`{n}`' for n in missing)} (any position: the Estimator passes "
                          "each by name)"
                          + (" (without `labels`, the Estimator raised ValueError for an input_fn that returns "
                             "labels; with one that does not, labels is None)" if "labels" in missing else ""),
                          fn)
    return {n: n for n in MODEL_FN_ARGS if n in given or n in missing}, blocked


def params_not_taken(fn: cst.FunctionDef, params: cst.CSTNode) -> list[Blocked]:
    """Estimator(params=...) (not None) for a model_fn that has no `params` among the parameters the Estimator reads
    (before any `*`): TF 2.15's _verify_model_fn_args raised ValueError when the Estimator was built."""
    if "params" in (x.name.value for x in fn.params.params):
        return []
    return [Blocked(CODE, f"Estimator(params=...) for model_fn `{fn.name.value}`, which takes no `params`: TF 2.15 "
                          "raises \"ValueError: model_fn (...) does not include params argument, but params (...) is "
                          "passed to Estimator\", so the original never trained; add `params` to the model_fn (any "
                          "position: the Estimator passes it by name) or drop params=", params)]


def params_name(fn: cst.FunctionDef) -> str | None:
    """The model_fn's parameter the Estimator passes its params dict to (None: it takes none)."""
    given = [x.name.value for x in fn.params.params]
    if set(given) <= set(MODEL_FN_ARGS):
        return "params" if "params" in given else None
    return given[3] if len(given) > 3 else None


def calls_in(node) -> list[cst.Call]:
    """Every call in `node`'s subtree, in walk order (rules/program.py uses it too)."""
    found: list[cst.Call] = []
    walk(node, _Calls(found))
    return found


_VARIABLE_MAKERS = frozenset({"Variable", "get_local_variable", "make_template", "nn.static_rnn", "nn.dynamic_rnn",
                              "nn.bidirectional_dynamic_rnn", "nn.static_bidirectional_rnn", "nn.raw_rnn",
                              "feature_column.input_layer", "feature_column.linear_model"})


def makes_variables(path: str) -> bool:
    """TF APIs that create variables when called in a graph, beyond the layers and get_variable the rules convert."""
    return (path in _VARIABLE_MAKERS or path.startswith(("contrib.", "nn.rnn_cell.", "compat.v1.nn.rnn_cell."))
            or path.endswith(".Variable"))


def _statement_targets(stmt) -> set[str]:
    """Names a statement binds: assignment and loop targets, `with ... as` names, defs (and those in nested defs)."""
    found: set[str] = set()

    def add(target) -> None:
        if isinstance(target, cst.Name):
            found.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                add(element.value)
        elif isinstance(target, cst.StarredElement):
            add(target.value)

    for node in _walk_statements(stmt):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For)):
            add(node.target)
        elif isinstance(node, cst.AsName):
            add(node.name)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            found.add(node.name.value)
    return found


def _counterpart(copy, original, target):
    """The node of `original` at `target`'s place in `copy` (the same tree but for substituted names), else None."""
    if copy is target:
        return original
    if type(copy) is not type(original):
        return None
    children, written = copy.children, original.children
    if len(children) != len(written):
        return None
    for a, b in zip(children, written):
        found = _counterpart(a, b, target)
        if found is not None:
            return found
    return None


_RETURNED = "<return>"  # (in a walk's blocked names: it stopped at a blocked statement holding a return)


def _walk_statements(node):
    """`node` and every node below it."""
    yield node
    for child in node.children:
        yield from _walk_statements(child)


class _NamesRead(ValueNames):
    def visit_Name(self, n: cst.Name) -> None:
        self.found.add(n.value)


def _names_read_anywhere(node) -> set[str]:
    """Identifiers used as names anywhere below `node`, lambdas and nested defs included (attribute names and
    keywords are not names)."""
    found: set[str] = set()
    walk(node, _NamesRead(found))
    return found


_STATIC_CALLS = frozenset({"int", "float", "str", "bool", "len", "min", "max", "abs", "round", "tuple", "list"})


# _static's literal classes, tested by exact type: isinstance against LibCST's classes (ABCMeta) runs
# ABCMeta.__instancecheck__ for each miss; LibCST's node classes have no subclasses (tests/rewrite/test_walk.py)
_LITERALS = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString})


def _static(node, allowed: set[str]) -> bool:
    """A value the model's `__init__` can compute too, the same every time it is read: literals, names in
    `allowed` (params, module names), their attributes and items, arithmetic on them, `params.get(...)` and a
    few pure builtins. Never a TF call (a variable, a random tensor) or anything reading features/labels/mode."""
    kind = type(node)  # (exact types, not isinstance: see _LITERALS)
    if kind in _LITERALS:
        return True
    if kind is cst.Name:
        return node.value in allowed or node.value in ("True", "False", "None")
    if kind is cst.Attribute:
        return _static(node.value, allowed)
    if kind is cst.Subscript:
        return _static(node.value, allowed) and all(
            isinstance(e.slice, cst.Index) and _static(e.slice.value, allowed) for e in node.slice)
    if kind is cst.List or kind is cst.Tuple:
        return all(isinstance(e, cst.Element) and _static(e.value, allowed) for e in node.elements)
    if kind is cst.BinaryOperation:
        return _static(node.left, allowed) and _static(node.right, allowed)
    if kind is cst.UnaryOperation:
        return _static(node.expression, allowed)
    if kind is cst.Call:
        func = node.func
        pure = (isinstance(func, cst.Name) and func.value in _STATIC_CALLS and func.value in BUILTINS
                and func.value not in allowed - _STATIC_CALLS) or (
            isinstance(func, cst.Attribute) and func.attr.value == "get" and _static(func.value, allowed))
        return pure and all(a.star == "" and _static(a.value, allowed) for a in node.args)
    return False


def _static_test(node, allowed: set[str]) -> bool:
    """A condition on static values (`params["bn"]`, `FLAGS.model == "big"`, `not a and b`): see _static."""
    if isinstance(node, cst.BooleanOperation):
        return _static_test(node.left, allowed) and _static_test(node.right, allowed)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _static_test(node.expression, allowed)
    if isinstance(node, cst.Comparison):
        return _static(node.left, allowed) and all(_static(c.comparator, allowed) for c in node.comparisons)
    return _static(node, allowed)


def _imports_tensorflow_only(node) -> bool:
    """`import tensorflow as tf`, `import tensorflow.compat.v1 as tf`, `from tensorflow.compat.v1 import layers`."""
    def tf_module(dotted: str) -> bool:
        return dotted.split(".")[0] in ("tensorflow", "tensorflow_estimator")

    if isinstance(node, cst.Import):
        return all(tf_module(code(a.name)) for a in node.names)
    return (not node.relative and node.module is not None and tf_module(code(node.module))
            and not isinstance(node.names, cst.ImportStar))


def _import_targets(node) -> list[tuple[str, str]]:
    """(bound name, dotted target) of each name an import statement binds, as names.build_import_table records."""
    out = []
    if isinstance(node, cst.Import):
        for alias in node.names:
            dotted = code(alias.name)
            out.append((alias.asname.name.value, dotted) if alias.asname else (dotted.split(".")[0],
                                                                                dotted.split(".")[0]))
    else:
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else alias.name.value
            out.append((local, f"{code(node.module)}.{code(alias.name)}"))
    return out


class _Returns(Visitor):
    def __init__(self):
        self.found = []

    def visit_Return(self, node) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node) -> bool:  # a nested def's returns are its own
        return False

    def visit_Lambda(self, node) -> bool:
        return False


def _has_return(statements) -> bool:
    returns = _Returns()
    for stmt in statements:
        walk(stmt, returns)
    return bool(returns.found)


def _debug_print(value, module_names) -> bool:
    """`print(logits)`, `print("shape", net.shape)`: the builtin print over names, attributes, subscripts and literals
    (nothing it could call), so dropping it drops only output."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "print"
            and "print" not in module_names):
        return False

    def pure(node) -> bool:
        if isinstance(node, (cst.Name, cst.SimpleString, cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.Attribute):
            return pure(node.value)
        if isinstance(node, cst.Subscript):
            return pure(node.value) and all(isinstance(e.slice, cst.Index) and pure(e.slice.value) for e in node.slice)
        if isinstance(node, cst.ConcatenatedString):
            return pure(node.left) and pure(node.right)
        if isinstance(node, cst.FormattedString):
            return all(not isinstance(p, cst.FormattedStringExpression) or pure(p.expression) for p in node.parts)
        return False

    return all(not arg.star and pure(arg.value) for arg in value.args)


def builds_layers(ref, program) -> bool:
    """The def `ref` (a FunctionRef) calls a TF1 / Keras layer, get_variable or another variable-making API."""
    there = TFNames(program=program, file=ref.file)
    for inner in calls_in(ref.node):
        path = there.of(inner)
        if path and (layers.kind_of(path) or path == "get_variable" or makes_variables(path)):
            return True
    return False


def interpret(fn: cst.FunctionDef, names: TFNames, module_names: frozenset[str],
              tf1_partitions: bool | None = True, profile: str = "keras3", module: cst.Module | None = None,
              tf1_strategy: bool | None = False, helpers: dict[str, cst.FunctionDef] | None = None,
              input_layers: Blocked | bool = False, tpu: frozenset[str] | None = None) -> ModelPlan:
    interp = _Interpreter(fn, names, module_names, tf1_partitions, profile, module, tf1_strategy, helpers,
                          input_layers, tpu)
    interp.run()
    plan = interp.plan(class_name_for(fn.name.value, module_names))
    plan.helpers = list(interp.inlined_helpers)
    return plan
