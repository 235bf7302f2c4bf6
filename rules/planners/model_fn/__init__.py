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
  A helper whose result the model_fn tuple-unpacks (BERT's `(total_loss, per_example_loss, logits, probabilities)
  = create_model(..., is_training, ...)`) maps to the same inlining, its `return (a, b, ...)` one assignment per
  target (a returned local takes its target's name; a return ending the helper's last `with variable_scope(...)`
  assigns them there), the flag Keras' `training` (fixtures/unpacked_helper).
  Blocked, named: a helper called in a loop, with
  `*args`/`**kwargs`, returning early, recursive, or also used outside the converted model_fn.
- `if params["bn"]:` / `if FLAGS.use_dropout:` / `if MODEL == "deep":` (elif/else too) around forward statements: a
  Python test on static configuration (params, module names such as flags, literals; a static local is read as its
  value), which TF1 evaluated while building each graph. `__init__` builds the arms' layers under the same test and
  `call()` runs the same `if`; layer names are then counted at run time by `tf1_name`, so `dense_1`/`dense_2` after
  the `if` are what TF1 named them whichever arm ran (fixtures/static_config). Blocked: a test that also reads mode
  or a tensor, a static `if` after the loss or one in a mode branch constructing an optimizer (choosing the loss or
  optimizer: `if FLAGS.dpsgd:` in the TRAIN branch is blocked as that, at its line, not as a forward pass to move out
  of the branch), statements other than forward values inside it (layer objects, helpers, loops, returns).
- `if mode == ModeKeys.TRAIN:` (`!=`, `in (...)`, elif/else) around forward statements before the loss that
  reassign a forward tensor (`net = tf.nn.dropout(net, keep_prob)`, `net = tf.clip_by_value(...)`): TF1 built that
  op into the TRAIN graph only; `call()` runs the same `if` on `training` (true in fit, false in evaluate/predict;
  model_fn/_mode_forward.py, fixtures/mode_forward: 200/200 steps bit-equal, evaluate equal). Blocked at the `if`:
  an arm that differs between EVAL and PREDICT (one `training` flag), a name the forward pass had not computed
  before the `if`. Inside a forward loop the same `if` stays in the loop (a TRAIN-only dropout per layer). Arms that
  build layers or call helpers are left to the shim (rules/planners/shim.py).
- `del params` / `del config` (any of the model_fn's parameters): dropped, the statement only unbinds a local; a read
  of the name after it blocks (TF1 raised UnboundLocalError there). Values assigned after the loss that only the
  model_fn's LoggingTensorHooks read (`w = tf.identity(...)`, the migration guide's pattern) are not part of the
  model; the logger logs them when they are computed from the output, else it is dropped with a note
  (rules/planners/hooks.py; fixtures/spec_stop_hook).
- `tf.compat.v1.feature_column.input_layer(features, columns)` when the program model reads every column as a
  `numeric_column` (inline, a module constant, a model_fn local, `params["feature_columns"]` from the Estimator's
  params dict, lists built by loops or helpers; rules/program.py): no variables, so it becomes the generated
  `numeric_columns_input(features, columns)`, TF1's input-layer arithmetic on the same column objects at run time
  (name order, rank-1 values get a last axis, normalizer_fn, float32, flattened, concatenated;
  fixtures/input_layer_params: 200/200 steps bit-equal). Over embedding, indicator and bucketized columns (of
  vocabulary-list, hash-bucket, identity, bucketized and crossed categorical columns) it becomes the generated
  `TF1InputLayer` attribute `input_layer` (_input_layer_columns.py: the canned conversion's exact column code,
  embedding weights named `input_layer/<column>_embedding/embedding_weights`; the optimizer checked as for canned
  embeddings; fixtures/model_fn_input_layer 120/120 steps bit-equal). A second call, one in a variable_scope or a
  loop, vocabulary files and the columns the canned conversion blocks block, naming the column.
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
  summaries. `tf.compat.v1.logging.*` statements are dropped with a note (they do not change training); so is a
  `for` loop that only logs (BERT's `for name in sorted(features.keys()): tf.compat.v1.logging.info(...)` and its
  loop over `tvars = trainable_variables()` with an `init_string`: TF1 ran it once per graph build, on names and
  static shapes; its iterable calls only sorted/list/keys/..., its body only logs, binds loop-local names and tests
  them, and nothing it binds is read elsewhere; fixtures/bert_logging_loops: 200/200 steps bit-equal). An unused
  `tf.summary.merge_all()` statement and a debugging `print(...)` over names, attributes and literals (it printed
  tensor descriptions once, while the graph was built) are dropped with a note too; a print that calls something
  blocks.
- `mode == ModeKeys.TRAIN` (or a name assigned it) becomes the Keras `training` flag.

Modes: `if` on mode (`==`, `!=`, `in (...)`, `not in`, `not`/`and`/`or`, elif/else, a name assigned
`mode == TRAIN`) runs each arm for its modes; arms may assign (`metrics = {...}`, `train_op = None`) or return.
Each mode's `EstimatorSpec` is read from the return it reaches: TRAIN gives loss and train_op, EVAL the loss and
`eval_metric_ops`, PREDICT the predictions (a dict, or the output). The model itself must be the same in every
mode: forward statements, layers and variables inside a mode branch block. An EstimatorSpec given an argument it
does not take raised a TypeError when its return ran: blocked, except in a PREDICT-only return, which only
predict() and exports run (TF's multi-worker tutorial returns `EstimatorSpec(labels=labels, predictions=...)` and
only trains): blocked, naming the call, where the program predicts or exports; else converted without predictions,
with a note. The optimizer used other than by its minimize (Horovod's `hvd.DistributedOptimizer(optimizer)`) is
blocked saying what the conversion would lose.

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
a second loss, `tf.losses.add_loss`, `if init_checkpoint:` around `train.init_from_checkpoint(...)` (BERT's assignment map;
the warm_start_from alternative is named), hand-written losses reading features or several forward values, gradient
processing that depends on the variable or on a subset of variables, gradient clipping on tf_keras
(parameter-server) programs, hooks, scaffolds, code after the last return.
A train_op of assignments only (`tf.group(v.assign_add(2), step.assign_add(1))`, inline or bound to a name: no
gradient, as TF's saved_model and migrating_checkpoints guides write to make a checkpoint or an export), with a
constant or computed loss, maps to a `tf.Module` holding the get_variable / tf.Variable variables under their TF1
names and the global step, its model_fn kept as a method (the spec a dict, the train_op a function), and a trainer
whose tf.function step runs the same assignments after the loss, saving tf.train.Checkpoint files at the
Estimator's steps; get_variable_value / get_variable_names / latest_checkpoint read by TF1 name
(rules/planners/assign_step.py; fixtures/assign_step: 60/60 steps, predictions and evaluate bit-equal).

Example (`fixtures/regression_adagrad`):

    def model_fn(features, labels, mode, params):          class Model(keras.Model):
        x = features["x"]                                       def __init__(self, params=None): ...layers...
        net = tf.compat.v1.layers.dense(x, 8, ...)   →         def call(self, features, training=False): ...
        ...                                                     def predictions(self, predictions): ...
        return tf.estimator.EstimatorSpec(mode, ...)        def build_model(params=None):  # compiled: loss,
                                                                ...                        # optimizer, metrics
"""
from __future__ import annotations

# the package's API (rules/program.py, rules/planners/driver.py read these here); one module per construct family
from ...facts.calls import (  # (read through this module by rules/program.py)
           bind,
           is_literal,
)
from ._assigned_training import trains_by_assignment
from ._constants import BUILTINS, CODE, MODES, SPEC_ARGS
from ._hooks import logged_name_key
from ._input_layer import INPUT_LAYER_ARGS, input_layer_calls
from ._interpreter import interpret
from ._names import calls_in, free_name_nodes
from ._result import ModelPlan
from ._signature import MODEL_FN_ARGS, class_name_for, params_name, params_not_taken
from ._summaries import SUMMARY_WHY
from ._variable_makers import builds_layers, makes_variables

__all__ = ["BUILTINS", "CODE", "INPUT_LAYER_ARGS", "MODEL_FN_ARGS", "MODES", "SUMMARY_WHY", "ModelPlan", "bind",
           "builds_layers", "calls_in", "class_name_for", "free_name_nodes", "input_layer_calls", "interpret",
           "is_literal", "logged_name_key", "makes_variables", "params_name", "params_not_taken", "SPEC_ARGS",
           "trains_by_assignment"]
