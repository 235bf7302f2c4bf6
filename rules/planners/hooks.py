"""TFM611 session-run hooks: what each SessionRunHook becomes, wherever the program attaches it.

Hooks reach an Estimator through `est.train(hooks=...)`, `TrainSpec(hooks=...)`, `EvalSpec(hooks=...)` and the
model_fn's `EstimatorSpec(training_hooks=..., training_chief_hooks=..., evaluation_hooks=...)`: a list or tuple
of hook constructor calls, inline or assigned to names first.

Converted, exactly:
- `StopAtStepHook(last_step=N)` on training: training stops at global step N, so the migrated training runs to
  `min(max_steps, N)` (`N` alone without max_steps). `StopAtStepHook(num_steps=N)`: N steps from the step
  training starts at, like `train(steps=N)` (the same on a fresh model_dir; noted).
  In the model_fn's `EstimatorSpec(training_hooks=[...])` (made there, after the loss or before; `num_steps` /
  `last_step` literal or from params): the generated `StopAtStep` callback (templates/stop_at_step.py.j2) from the
  model's `stop_hooks()`, in every Keras fit and custom-loop train (which reads the trainer's optimizer): it stops
  after the step that reaches last_step, num_steps counted from the step each training starts at, as TF1's hook did
  in each train() (fixtures/spec_stop_hook: 120/120 steps equivalent on both targets). training_chief_hooks /
  evaluation_hooks and parameter servers: blocked. Values computed after the loss only for the model_fn's
  LoggingTensorHooks (`w = tf.identity(...)` then `LoggingTensorHook([w])`) are not part of the converted model;
  the logger logs them when they are computed from the model output, else it is dropped with a note.

- The NaN loss check every Estimator ran, hook or not: TF 2.15's `_train_with_estimator_spec` appended
  `NanTensorHook(estimator_spec.loss)` to every training's hooks, so a program whose loss went NaN raised
  `tf.compat.v1.train.NanLossDuringTrainingError` ("NaN loss during training.", TF 2.21 still has the class, so an
  `except` of it still catches it) after logging "Model diverged with loss = NaN." as an error, after the first step
  whose loss was NaN. Every migrated training does the same. Keras target (model_fn, canned and model_to_estimator
  fits): the generated `NanLossCheck` callback (templates/nan_loss_check.py.j2, once per file, above the
  module-level statement that trains), last in fit's callbacks (logs["loss"] is the running mean of the epoch's
  losses: NaN from the first NaN step on, the same step for losses never -inf); custom loop (model_fn and canned):
  `float(loss)` after each step, checked after that step's checkpoint, training_chief_hooks and train hooks and
  before its training_hooks (see "Hook order" below; TF1 fetched the loss every step
  too: on CPU no extra wait, measured below). Measured on TF 2.15 (fixtures/nan_checkpoint_hooks, NaN labels at
  step K): the chief's checkpoint saver ran before the NaN hook, so step K's checkpoint (NaN weights) is written,
  then the error, and no end-of-training checkpoint; the migrated program does the same, with the model_fn's
  NanTensorHook(loss) and with no hook at all (model_fn and canned LinearRegressor; tests/fixtures_run/
  test_nan_checkpoint_runs.py). Parameter servers: approximated, with a note: the chief reads the loss of the last
  step it scheduled at each log/checkpoint boundary and raises there, not after the NaN step itself (TF1's chief or
  worker raised after its own step); on a NaN it reads that segment's losses for the first NaN step and writes the
  boundary's checkpoint only when it is that step (TF1 saved step K's checkpoint, then raised). Measured on the
  runtime's local cluster (tests/fixtures_run/test_ps_cluster_runs.py, one trainer per side: TF1 chief + ps,
  migrated chief + worker + ps; save_checkpoints_steps=20, log_step_count_steps=25): NaN labels at step 47, 55, 60:
  TF 2.15's chief raised after step 47, 55, 60 with model.ckpt-0, 20, 40 (and 60 for K=60) on disk; the migrated
  chief raised at step 50, 60, 60 (its worker ran those steps) with the same checkpoints (saving at every
  checkpoint boundary, K=55 also wrote a model.ckpt-60 of NaN weights the Estimator never wrote). A NaN loss the
  next steps do not repeat is not seen.
- `NanTensorHook(loss[, fail_on_nan_loss])` in the model_fn's `EstimatorSpec(training_hooks=[...])` or
  `training_chief_hooks` (inline or a name), on the loss the spec returns: the check above, which the Estimator ran
  before training_hooks anyway; the hook is dropped with a note. `fail_on_nan_loss=False` changes nothing: the
  Estimator's own NanTensorHook(loss) raised first (noted). Not TerminateOnNaN: it stops without raising (and on inf
  too).
- `CheckpointSaverHook(checkpoint_dir, save_steps=N[, checkpoint_basename=...])` in `train(hooks=)` /
  `TrainSpec(hooks=)` (inline, named, or a list a helper returns), model_fn Estimator with a model_dir: checkpoints
  (tf.train.Checkpoint of model and optimizer) `<checkpoint_dir>/<basename>-<step>` at the first step, every N steps
  after the last save and at the last step, keeping RunConfig(keep_checkpoint_max); nothing is written to model_dir,
  as the Estimator added no saver of its own next to the hook (measured: TF 2.15 wrote run.ckpt-0, 3, 6, 9, 10 for
  N=3, max_steps 10, keep 4 listed 3, 6, 9, 10). Keras target: the generated `EstimatorCheckpoints` callback
  (checkpoint_dir, save_steps, keep_checkpoint_max, basename); custom loop: `trainer.train(..., checkpoint_dir=...,
  save_steps=N, checkpoint_basename=...)`, the trainer's own saver writing there instead of model_dir (another worker
  than the chief: a temporary directory under checkpoint_dir it removes, as EstimatorCheckpoints). Both still restore
  from model_dir, as the Estimator did. No .meta / graph.pbtxt. tests/fixtures_run/test_nan_checkpoint_runs.py runs
  TF 2.15 and both targets and compares the listed and on-disk steps.

- `LoggingTensorHook(tensors, every_n_iter | every_n_secs[, formatter])` → the generated `TensorLogger` callback
  (templates/tensor_logger.py.j2), in the model_fn's `EstimatorSpec(training_hooks=[...])` / `training_chief_hooks`
  (inline or a name; the model's `logging_hooks()` builds them, `logging_hooks(chief=True)` the chief's, run where
  TF1 ran them: "Hook order" below) and
  in `train(hooks=)` / `TrainSpec(hooks=)` (inline or named; in its place in the hooks list). Measured on TF 2.15
  (fixtures/logging_hook): the hook logs with tf.compat.v1.logging.info (INFO: seen only when the program sets that
  verbosity) at its own local iterations 0, N, 2N, ... (every_n_iter; every_n_secs: the first iteration at least
  that many seconds after the last log, TF1's SecondOrStepTimer, which TensorLogger copies), a dict's tags sorted,
  a list's as written, as "tag = value, tag = value (0.123 sec)" (no seconds on the first line; numpy's str of the
  values with suppress=True) or `formatter({tag: value})`; the values are those the training step's own
  session.run computed: the forward pass and the loss before the update, the global step before its increment
  (TF1 read that variable unordered with the train op's increment: some lines, more under load, showed the next
  value; measured with every_n_iter=1 in fixtures/hook_order).
  The migrated training step records the same values (Keras: `compute_loss`; custom loop: the step) through
  `record_logged_tensors` → `logged_tensors(output, loss, step)`, a py_function handing them to TensorLogger
  (jit_compile=False on Keras), which logs them after the step in the same text; only the seconds differ.
  What a tensor can be: in the model_fn, the spec's loss, the global step (`get_global_step()` or a name of it)
  or a value computed from the model output (`mean = tf.identity(tf.reduce_mean(logits), name="mean")`); by name
  (strings, from train hooks or the model_fn): a TF op of the model_fn given `name="n"` and computed from the
  output, in training too, assigned to a name or anywhere inside a value or a dict of them (`tf.identity(...,
  name="n")`, the tutorials' `predictions = {"probabilities": tf.nn.softmax(logits, name="softmax_tensor")}`,
  tf.argmax, tf.sigmoid, tf.add, tf.reduce_mean, ...: TF1 named the op's one output "n:0"; not layers, losses,
  metrics, ops with several outputs or random values, whose name= is a scope or another tensor's; "n" or "n:0", a
  name used once, not inside a variable_scope), and "loss", which found the Estimator's own loss summary op (TF1
  printed its serialized Summary, `b'\n\x0b\n\x04loss\x15...'`; the migrated program prints the same bytes from
  tf.raw_ops.ScalarSummary) unless the model_fn named a tensor "loss". One replica: with several, TensorLogger
  prints that it logs nothing. Checked by tests/fixtures_run/test_logging_hook_runs.py (Keras and custom loop
  under verify: the same 20 lines, tags and iterations, values within 1e-6 rel / 1e-6 abs; max rel Δ 3.8e-6 on a
  mean logit of 0.0156). Each line is printed once: see "Logged once" below. A LoggingTensorHook on evaluation
  is dropped with a note.
  A LoggingTensorHook on training tfmigrate cannot convert is dropped with a note at its line, not blocked: it only
  reads values and writes log lines, so training computes the same without it (its presence changes nothing that
  runs; the note names the tensor or argument and says how to log it in TF2): `at_end=True` (TF1 ran its tensors
  once more after training, on a new input batch, then discarded the session), a tensor tfmigrate cannot supply (a
  hidden layer's value, a tensor of the program outside the model_fn, a name that is not a model_fn op computed
  from the output, "global_step": TF1 found the variable's resource handle and printed it), a formatter reading
  model_fn locals, tensors not written as a dict or list literal, a canned or model_to_estimator Estimator or
  parameter servers. A hook with one such tensor is dropped whole (TF1 printed all its tags on one line); the
  other LoggingTensorHooks of the training still convert.

- Early stopping: `tf.estimator.experimental.stop_if_higher_hook` / `stop_if_lower_hook` / `stop_if_no_increase_hook` /
  `stop_if_no_decrease_hook` (and tf.contrib.estimator's) in `train(hooks=)` / `TrainSpec(hooks=)` → the generated
  `EstimatorEarlyStopping` callback (templates/early_stopping.py.j2), a copy of TF 2.15's early_stopping.py: at the
  first step of training, then every run_every_steps global steps or run_every_secs seconds, it reads every
  evaluation summary in model_dir/eval (simple_value by tag and step, evaluations before min_steps skipped) and
  stops training after that step when the metric crossed the threshold or had not improved for the given steps.
  The migrated evaluate of that Estimator writes what the Estimator's evaluate wrote there (`EvalSummaries`: every
  metric but global_step at the step evaluated). Exact because nothing writes eval_dir while a train() runs, so the
  first check decides (the later ones read the same events): the hook must be built for each training (inside the
  loop, before each train(); one hook object serving several trainings blocks: its timer went on from its last
  check, by wall time or by a global-step read racing the update), and train_and_evaluate only when its final
  evaluation was provably the only one (save_checkpoints_steps >= max_steps). Keras target, model_fn Estimator with
  a model_dir, no distribution strategy (TF 2.15 made its multi-worker hook under any train_distribute), eval_dir
  absent or `est.eval_dir()`. fixtures/early_stop_loop (7 rounds of train(steps=30) + evaluate, a threshold and a
  no-decrease hook per round: both programs stop at the same steps, 30, 60, 61, ..., 65; verify equivalent, 65
  trained steps, max rel Δ 2.8e-7). TF1's `signal_early_stopping/STOP` variable is not in the migrated checkpoints.
- `make_early_stopping_hook(est, should_stop_fn, run_every_secs=60, run_every_steps=None)` on training → the
  generated `EstimatorStopOnPredicate(should_stop_fn, ...)` (templates/predicate_stop.py.j2; driver/_predicate_stop.py),
  TF 2.15's _StopOnPredicateHook: it calls the program's own should_stop_fn after the first step of training, then
  on the same SecondOrStepTimer cadence, and stops after the step it returned True. A should_stop_fn that does not
  depend on when it is called (a flag, the last evaluate's result) stops at the same step; with run_every_secs (the
  migration guide's wall-time budget) the stop step depends on wall time in TF1 as in TF2: converted with a note
  saying verify cannot compare past it. Same conditions as above (Keras target, model_fn Estimator, no strategy,
  one hook per training) except model_dir and train_and_evaluate's evaluations, which it does not read; what TF1
  rejected (both cadences, run_every_steps with the default run_every_secs, neither) blocks.
  fixtures/early_stop_predicate (6 rounds of train(steps=30), the predicate reading the last evaluated global step:
  both stop at 30, 60, 61, ..., 64; verify equivalent, 64/64 steps, max rel Δ 3.7e-7).

Checkpoints without a hook (driver.py): the Estimator's own saver wrote model.ckpt-<step> at the step training
started from, every save_checkpoints_steps after the last save (not at multiples of it after a resume) and at the
last step. Keras model_fn target: `EstimatorCheckpoints(model_dir, save_steps=..., keep_checkpoint_max=...)` does
the same (it replaces BackupAndRestore there; restore_model_dir reads it back); the custom loop saves the same
steps with the same names. Canned Keras fits use EstimatorCheckpoints too (tests/fixtures_run/test_canned_model_dir.py),
model_to_estimator fits too (rules/planners/keras_estimator.py); the parameter-server loop saves the Estimator chief's steps
(tests/fixtures_run/test_ps_cluster_runs.py: a fresh run to step 50 and a resume to 90, 0, 20, 40, 50, 70, 90 on
both sides).

- `StepCounterHook(every_n_steps | every_n_secs[, output_dir])` in `train(hooks=)` / `TrainSpec(hooks=)` and in the
  model_fn's `EstimatorSpec(training_hooks=[...])` / `training_chief_hooks` (inline or a name; under parameter
  servers the model_fn's logging and step-counting hooks are dropped with a note: the scheduled loop calls no
  callbacks) → the
  generated `StepCounter` callback (templates/step_counter.py.j2; `step=lambda: <est>.optimizer.iterations`, the
  Keras model's or the custom-loop trainer's): TF1's timer and stale-step check copied, so it triggers silently at
  the first step, then logs "global_step/sec: <rate>" (tf.compat.v1.logging.info, "%g") and writes the scalar
  summary "global_step/sec" at that global step to output_dir (measured on TF 2.15: steps 4, 7, 10 for
  every_n_steps=3 over 10 steps; fixtures/logging_hook, tests/fixtures_run/test_logging_hook_runs.py: 31, 61, 91
  on both sides). The rate is wall time (other values in every run); TF1's events file also held the graph (not
  written). In the model_fn (measured on TF 2.15, fixtures/hook_order): the same steps as on train hooks (4, 7, 10
  for every_n_steps=3 over 10 steps), run after the Estimator's NaN check like the other training_hooks; without
  output_dir nothing is written (not to model_dir: its events file held only the Estimator's own summaries), so
  neither does StepCounter; the model's `logging_hooks(step=...)` builds it (`step`: the Keras model's optimizer
  iterations by default, the custom loop passes its trainer's). `summary_writer=` (a TF1 FileWriter) blocks on train
  hooks and is dropped with a note in the model_fn (it only logs); canned / model_to_estimator / parameter servers
  block on train hooks.

Hook order (measured on TF 2.15, fixtures/hook_order, tests/fixtures_run/test_hook_order_runs.py): TF1's
MonitoredTrainingSession called every hook's before_run, then every after_run, in this order: the chief's
CheckpointSaverHook, the model_fn's training_chief_hooks, the Estimator's own StepCounterHook and SummarySaverHook,
the program's train(hooks=) / TrainSpec(hooks=), the Estimator's NanTensorHook(loss) (and its own "loss = ..., step
= ..." LoggingTensorHook: see "The Estimator's own lines"), then the model_fn's training_hooks. At a step
whose loss is NaN, the NanTensorHook raised in its after_run: the checkpoint of that step is written, the chief's
and the train hooks' lines of that step are logged, the training_hooks' are not, and no hook's end() runs. Keras
target: fit's callbacks are [TF1SlotInit, EstimatorCheckpoints, *logging_hooks(chief=True), EstimatorSummaries,
the train hooks, NanLossCheck(), *logging_hooks()] (Keras calls them in list order and stops at the raise); custom
loop: the step's checkpoint, the chief's and the train hooks' on_train_batch_end, the NaN check, then the
training_hooks' callbacks (callbacks[checked:]).

Logged once: TF 2.21's checkpoint writer (tensorflow/python/checkpoint/functional_saver.py, MultiDeviceSaver.save)
logs "Sharding callback duration" with absl.logging.info at every save, and absl.logging.log calls
logging.basicConfig() when the root logger has no handler: the root logger gets a stderr StreamHandler, and as the
"tensorflow" logger has its own handler (tf_logging.get_logger adds one when the root had none) and propagates, every
tensorflow log line from the first checkpoint on was printed twice (the absl line itself is below absl's level and
not printed). tf.saved_model.save and keras' ExportArchive.write_out do the same; a restore does not. The generated
writers (EstimatorCheckpoints.save, the custom loop's _save, the model's write_saved_model: every export) give the
root logger a handler that prints nothing while they write, so absl adds none, and remove it (and any other handler
the write added) afterwards: the program's logging is as before the save, lines are printed once, those TF logs
during the write too ("Assets written to: ..." of an export), and a later logging.basicConfig(...) of the program
still configures the root logger (with absl's handler in place it did nothing). A program whose root logger has
handlers is not touched (absl adds none then). Measured (tests/fixtures_run/test_export_logging_runs.py,
fixtures/export_parsing with INFO lines shown, Keras and custom loop): TF 2.15 printed every line once; the migrated
program before this printed its exports' "Assets written to" lines and the line logged after them twice, now once.

The Estimator's own lines (measured on TF 2.15 with a scratch model_fn Estimator, INFO lines shown; the source:
Estimator._train_with_estimator_spec, MonitoredTrainingSession): with RunConfig(log_step_count_steps=N) (default 100)
- every worker's LoggingTensorHook({"loss": loss, "step": global_step}, every_n_iter=N) logs "loss = <the step's
  loss>, step = <global step before the update>" at local iterations 0, N, 2N, ... of each train() call (a resume
  from step 30 with N=7: 30, 37, 44), " (<%.3f> sec)" (seconds since its previous line) on every line but the run's
  first; never at the last step off the schedule (no at_end). The loss is the numpy float32's str ("0.6146178"), the
  same value as that step's loss; the step is read in the step's session.run, unordered with its increment (it may
  show k + 1, as the other LoggingTensorHooks: "Hook order"). It runs after the NaN check: a NaN step logs none.
- the chief's StepCounterHook(every_n_steps=N, output_dir=model_dir) triggers silently at the run's first global
  step, then logs "global_step/sec: <rate, %g>" at global steps first + N, first + 2N, ... (1 + N, 1 + 2N, ... from 0;
  30 steps with N=7: 8, 15, 22, 29; resumed 31 → 45: 38, 45) and writes that scalar to model_dir; it runs with the
  chief's hooks, so its line comes before that step's hook lines and the loss line (N=7: "loss ... step = 0",
  "global_step/sec", "loss ... step = 7"). Under MultiWorkerMirroredStrategy every worker has one (the others write
  to model_dir/tmp_worker_<i>), run after the worker hooks: its line follows the loss line of the same step
  (measured, fixtures/classifier_mwms, chief + worker, N=50: loss 0, loss 50, rate, loss 100, rate, loss 150, rate,
  on both tasks; the loss lines the global loss, the same on both). A master + worker cluster moves it to worker
  0 only (not converted).
- "Loss for final step: <loss>." after each train() that ran a step (also with log_step_count_steps=None); none when
  max_steps was reached already (train skipped).
- log_step_count_steps=None: neither per-step line. RunConfig(log_step_count_steps=0) raised ValueError
  ("log_step_count_steps should be > 0").
Custom-loop target: the trainer's _log_step prints the same lines at the same steps in the same places (the counter's
line after the step's checkpoint, before the program's hooks; the loss line after the NaN check, before the model_fn's
training_hooks), the loss being the step's global loss (the value the Estimator fetched on one worker; several
workers: each prints the loss line, the chief and MWMS workers the counter's, after it under MWMS, as TF 1's hooks;
fixtures/classifier_mwms under verify --workers 2: both tasks print TF 2.15's 8 lines in its order, losses
bit-equal), then "Loss for
final step" (tests/fixtures_run/test_estimator_log_runs.py, fixtures/adam_mae, N=50, 200 steps under verify: the same
8 lines, the losses bit-equal, the seconds and rates wall time). The global_step/sec summary is not written to
model_dir (model_fn.py). Under parameter servers the scheduled loop prints "step N: loss = X" at its boundaries
instead (not converted). Keras target: not printed yet; Keras' logs["loss"] is the running mean of the epoch, not
the step's loss, and recording the step's loss needs a py_function in the training step (jit_compile=False), as the
TensorLogger models do: a change to every Keras program's step, left for later. RunConfig(log_step_count_steps=...)
is dropped there with a note (Keras prints its own progress bar instead).

- `SummarySaverHook(save_steps=N, output_dir=D, summary_op=...)` (positional or keyword arguments) in the model_fn's
  `EstimatorSpec(training_hooks=[...])` / `training_chief_hooks` (inline or a name), with `summary_op` =
  `tf.compat.v1.summary.merge_all()` (the summaries built before it: merge_all is read where the hook is built),
  `tf.compat.v1.summary.merge([...])`, one scalar summary op of the model_fn, a name of one of these, a list or tuple
  of them, or `scaffold=tf.compat.v1.train.Scaffold(summary_op=...)` → the model's `summary_hooks()` → [(D, N, tags)],
  written from the same `summaries(output)` values the model_fn's scalar summaries already give (model_fn.py): Keras
  target: the generated `EstimatorSummaries` callback opens one writer per directory and `compute_loss` writes each
  hook's tags under `tf.summary.record_if`; custom loop: the trainer's loop writes them after the step. Measured on TF
  2.15 (fixtures/summary_saver_hook, tests/fixtures_run/test_summary_saver_hook_events.py): the hook wrote at the
  run's first global step and every N steps after it (the timer restarts at the first step of each run: 1, 5, 9, ...
  then 12, 16, 20 on a resume from step 11), never at the last step unless it fell on one, with that step's forward
  values (the loss before the update); to its own output_dir, one events file per directory shared with the
  Estimator's own writer when D is model_dir (SummaryWriterCache); merge_all in the model_fn does not hold the
  Estimator's `loss` (added after the model_fn returns); the Estimator's own summary saver still wrote every summary
  and `loss` to model_dir every save_summary_steps (the two schedules are independent, both kept). The migrated side
  writes the same (directory, tag, step) events with the same values (verify equivalent; the test allows verify's 1e-5
  rel / 1e-6 abs, measured bit-equal: 45 + 18 + 24 events, max |Δ| 0, Keras and custom loop), TensorBoard scalars, no
  graph or session-log records. TF 2.15's own steps were racy: the hook's stale global-step fetch races with the
  optimizer's increment, so with the default thread pool a write came one step early now and then (2 of 5 runs of 60
  steps had one among the hook's 15 writes; once the Estimator's own model_dir writer drifted too); one inter-op thread (the fixture's) made it rarer, not impossible (none in 5 runs, then one on a loaded machine); the test accepts exactly that race's shape on the TF 1 side, never on the migrated one. On the chief
  only: a training_hooks hook on several workers also wrote each other worker's events file to D (noted, not written).
  Written only with a model_dir, as the model_fn's summaries (noted otherwise). Dropped with a note (it only writes
  summaries; training is the same): `save_secs=` (wall-time steps), `summary_writer=` (a TF1 FileWriter), no
  output_dir (TF1 wrote nothing), `scaffold=Scaffold()` without a summary_op (measured: wrote no summaries, the
  Scaffold is never finalized), a summary_op of other values, the hook in evaluation_hooks / prediction_hooks, under
  parameter servers; a summary in the op tfmigrate does not write (histogram, image, a hidden layer's value:
  model_fn.py) is named in the hook's note and left out. Outside the model_fn (`train(hooks=)` / `TrainSpec(hooks=)`):
  with `scaffold=Scaffold()` dropped with the same note (it wrote nothing); with a summary_op, blocked (an op built
  outside the model_fn is not in the Estimator's graph: TF 2.15 raised, merge_all() in eager mode); canned and
  model_to_estimator Estimators only have these. Blocked as TF 2.15 raised ValueError: neither save_steps nor
  save_secs, or not exactly one of summary_op and scaffold.

Dropped with a note (they observe training and change nothing in it; the note says the Keras way to get the
same output):
- `ProfilerHook` (`keras.callbacks.TensorBoard(profile_batch=...)` or `tf.profiler.experimental`).

A user-written `SessionRunHook` subclass of the program (in any file of it; its instance inline, named, built by a
helper, or in a hooks list a helper returns) attached to training through `train(hooks=)` / `TrainSpec(hooks=)`
becomes a `keras.callbacks.Callback` subclass, in place, when its methods hold Python state only (counters, time,
printing, files). Keras target: the instance goes in fit's callbacks. Custom loop target: in
`trainer.train(..., callbacks=[...])`, whose loop calls set_model, on_train_begin, on_train_batch_begin before and
on_train_batch_end after each step, stops after the step that set model.stop_training, and calls on_train_end after
the final checkpoint; none of them when max_steps is reached already (the Estimator skipped training and its hooks).
- `begin(self)` → `on_train_begin(self, logs=None)`; `after_create_session(self, session, coord)` →
  `on_train_begin` too (with both, `begin` stays and `on_train_begin` calls `self.begin()` first, the Estimator's
  order); `before_run(self, run_context)` → `on_train_batch_begin(self, batch, logs=None)`; `after_run(self,
  run_context, run_values)` → `on_train_batch_end(self, batch, logs=None)`; `end(self, session)` →
  `on_train_end(self, logs=None)`;
- `run_context.request_stop()` (a statement) → `self.model.stop_training = True`. Same last step: the Estimator
  ran the step whose before_run/after_run requested the stop and no other; Keras' fit loop and the generated loop
  check stop_training after each on_train_batch_end (fixtures/custom_hook: the hook stops after step 130 of 200,
  verified on both targets);
- the instance goes first in the callbacks list, written as the program wrote it: a name holding it stays, so code
  reading the hook's state after training reads the callback's.
Blocked at the line, with what to do: a `SessionRunArgs` fetch or any use of `run_values` (Keras gives a callback
the running mean of the loss over the epoch in `logs`, not the values of this step's tensors; a global step
fetched next to the train_op was read unordered with its increment); any TensorFlow use in the class (graph
tensors by name, `get_global_step()` in begin, `get_default_graph()`; a callback runs outside the graph); `session`
/ `coord` / other uses of `run_context`; names keras.callbacks.Callback defines (`self.model`, `self.params`,
`on_*`); a hook calling its own hook methods; a hook class another class derives from; decorators or several
bases; the hook on evaluation (EvalSpec /
evaluate hooks) or in `EstimatorSpec(training_hooks=...)` (it may hold the model_fn's tensors); canned
estimators and parameter servers on the custom loop target (their loops call no callbacks yet: use --target keras).

Blocked, with the hook named at its line: `NanTensorHook` attached outside the model_fn (its tensor, a name, is not
known to be the loss), on another tensor than the spec's loss, on evaluation, or under parameter servers (the chief
reads the workers' losses only at log/checkpoint steps); `CheckpointSaverHook` with `saver=`, `scaffold=`,
`listeners=` (TF1 graph objects), `save_secs=` (wall-time steps differ per run), on a canned Estimator (its fit and
loop keep their own checkpointing), under parameter servers, without a model_dir, in an EstimatorSpec, twice on one
training; `FinalOpsHook`, `FeedFnHook`, `GlobalStepWaiterHook`, `ProfilerHook` with
`show_dataflow`/`show_memory` settings alike, hooks from other libraries (Horovod, tf.contrib early stopping):
their `before_run`/`after_run` read graph tensors the Keras model does not have. A StopAtStepHook on evaluation
or prediction is blocked too.

Why exact: the dropped hooks only read values and write logs; a converted LoggingTensorHook logs the values the
same training step computed, at the same iterations, and changes nothing the step computes (it reads them); the NaN check raises the same error after the same
step with the same checkpoints on disk, and the checkpoint writer saves the same steps under the same names
(tests/fixtures_run/test_nan_checkpoint_runs.py compares both sides on TF 2.15 / TF 2.21); what training computes is the same without them
(fixtures/observing_hooks verifies it step by step); StopAtStepHook only decides the number of steps; a converted
hook class runs the same Python at the same points of training and can only end it, after the same step.

Example (fixtures/observing_hooks):

    watch = [tf.estimator.StopAtStepHook(last_step=STOP_AT), tf.estimator.StepCounterHook(every_n_steps=50)]
    train_spec = tf.estimator.TrainSpec(input_fn=..., max_steps=args.steps, hooks=watch)
    →
    est.fit(..., epochs=1, steps_per_epoch=min(args.steps, STOP_AT),
            callbacks=[StepCounter(every_n_steps=50, step=lambda: est.optimizer.iterations), ...])
    note: TFM611 StepCounterHook converted: the generated StepCounter callback logs "global_step/sec: <rate>" ...

    class BudgetHook(tf.estimator.SessionRunHook):          class BudgetHook(keras.callbacks.Callback):
        def after_run(self, run_context, run_values):  →        def on_train_batch_end(self, batch, logs=None):
            self.steps_seen += 1                                     self.steps_seen += 1
            if self.steps_seen >= self._budget:                      if self.steps_seen >= self._budget:
                run_context.request_stop()                               self.model.stop_training = True
    (fixtures/custom_hook; TrainSpec(hooks=[budget, ...]) → fit(..., callbacks=[budget, ...]))
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked

CODE = "TFM611"

# hook → what the user can do to get its output in TF2 (the hook itself is dropped with this note)
OBSERVING = {
    "StepCounterHook": "Keras reports the time per step in its progress output; attached to training it is "
                       "converted",
    "ProfilerHook": "profile with keras.callbacks.TensorBoard(profile_batch=...) or tf.profiler.experimental",
}
STOP = "StopAtStepHook"
STOP_IN_SPEC_NOTE = ("StopAtStepHook (EstimatorSpec training_hooks) → the generated StopAtStep callback in every fit: "
                     "training stops after the step that reaches its last step, num_steps counted from the step each "
                     "training starts at, as in each TF1 train()")
LOGGING = "LoggingTensorHook"
STEP_COUNTER = "StepCounterHook"  # converted on training (train hooks and the model_fn's training hooks)
STEP_COUNTER_ARGS = ["every_n_steps", "every_n_secs", "output_dir", "summary_writer"]
NAN = "NanTensorHook"
SUMMARY = "SummarySaverHook"  # converted in the model_fn's training hooks (model_fn.py); elsewhere a note or a block
SUMMARY_ARGS = ["save_steps", "save_secs", "output_dir", "summary_writer", "scaffold", "summary_op"]
SAVER = "CheckpointSaverHook"
SAVER_ARGS = ["checkpoint_dir", "save_secs", "save_steps", "saver", "checkpoint_basename", "scaffold", "listeners",
              "save_graph_def"]
_NAMESPACES = ("train.", "estimator.")
_BLOCKED = {
    "NanTensorHook": "attached outside the model_fn it reads a tensor tfmigrate cannot tell is the model's loss; "
                     "if it is the loss, drop it: every migrated training raises NanLossDuringTrainingError on a NaN "
                     "loss, as every Estimator did with its own NanTensorHook(loss); else attach it in the model_fn's "
                     "EstimatorSpec(training_hooks=[...]) on the loss, which converts (keras.callbacks.TerminateOnNaN "
                     "is not the same: it stops without raising)",
    "CheckpointSaverHook": "converted when attached to training through train(hooks=...) or TrainSpec(hooks=...) "
                           "(Keras target, a model_fn Estimator with a model_dir); elsewhere set "
                           "RunConfig(save_checkpoints_steps=...), which the migrated program checkpoints from",
}


def hook_kind(path: str | None) -> str | None:
    """The hook class name of a tf path (`train.LoggingTensorHook`, `estimator.StopAtStepHook`), else None."""
    if not path:
        return None
    for namespace in _NAMESPACES:
        if path.startswith(namespace) and path[len(namespace):].endswith("Hook") and "." not in path[len(namespace):]:
            return path[len(namespace):]
    return None


def dropped_note(kind: str) -> str:
    return f"{kind} dropped: it only observes training ({OBSERVING[kind]})"


def nan_note(fail_flag: str | None) -> str:
    """The note of a converted NanTensorHook(loss); fail_flag: its fail_on_nan_loss when not True (code text)."""
    note = ("NanTensorHook converted: after the first training step whose loss is NaN the migrated training logs "
            "\"Model diverged with loss = NaN.\" and raises tf.compat.v1.train.NanLossDuringTrainingError (\"NaN loss "
            "during training.\"), after that step's checkpoint and with no final one, as the Estimator did (Keras: the "
            "NanLossCheck callback; custom loop: a check after each step); every migrated training checks this, as "
            "every Estimator added NanTensorHook(loss) itself, so the hook is dropped")
    if fail_flag is not None:
        note += (f"; fail_on_nan_loss={fail_flag} changed nothing in TF1: the Estimator's own NanTensorHook(loss), "
                 "run before training_hooks, raised first (TF 2.15)")
    return note


# parameter servers: the Estimator's own NanTensorHook(loss) is the one training behaviour the scheduled loop lacks
PS_NAN_NOTE = ("the Estimator's own NaN loss check (NanTensorHook(loss) on every worker: NanLossDuringTrainingError "
               "after the worker's step whose loss was NaN) is approximated under parameter servers: the migrated "
               "chief schedules steps on the workers and reads the loss of the last step scheduled only at each log "
               "or checkpoint step; it raises the same error there, not after the NaN step itself (the workers run "
               "the steps up to that boundary), and writes that boundary's checkpoint only when its own step was the "
               "first NaN one, so the checkpoints on disk are the Estimator chief's with one worker (a NaN loss that "
               "later steps' losses do not repeat is not seen)")


PS_LOGGING_NOTE = ("dropped under parameter servers: the chief schedules the steps on the workers and calls no "
                   "callbacks, so this hook of the model_fn (it only logs) is not converted; log from a "
                   "keras.callbacks.Callback of a single-worker run")


def saver_note(target: str = "keras") -> str:
    """The note of a converted CheckpointSaverHook; target: "keras" (EstimatorCheckpoints) or the custom loop."""
    writer = "the generated EstimatorCheckpoints callback writes" if target == "keras" else \
        "the custom loop's trainer.train(..., checkpoint_dir=, save_steps=, checkpoint_basename=) writes"
    return (f"CheckpointSaverHook converted: {writer} a tf.train.Checkpoint "
            "of the model and optimizer as <checkpoint_dir>/<checkpoint_basename>-<global step> at the first step, "
            "every save_steps steps after the last one and at the last step, keeping RunConfig(keep_checkpoint_max), "
            "and nothing to model_dir, as the Estimator (which added no saver of its own next to this hook); no "
            ".meta / graph.pbtxt (a TF2 checkpoint holds no graph)")


def saver_blocked(what: str) -> str:
    """Why a CheckpointSaverHook is not converted: `what` is the argument, or "target"."""
    if what == "save_secs":
        return ("CheckpointSaverHook(save_secs=...) is not converted: checkpoints by wall time land on other steps "
                "in every run; use save_steps=N, which converts")
    if what == "target":
        return ("CheckpointSaverHook is converted for a model_fn Estimator with a model_dir, on the Keras target or "
                "the custom loop (not for canned Estimators, which keep their own checkpointing, nor under parameter "
                "servers); here set RunConfig(save_checkpoints_steps=...) instead, which the migrated program "
                "checkpoints from")
    return (f"CheckpointSaverHook({what}=...) is not converted: a TF2 checkpoint has no TF1 {what} (the Saver, "
            "Scaffold or CheckpointSaverListener ran on the TF1 graph); drop it, or write a keras.callbacks.Callback "
            "that saves what the listener needs")


# early-stopping hook makers (TF 2.15's early_stopping.py) → (higher_is_better, the third parameter's name: a
# threshold or the steps without improvement); their signatures follow
EARLY_STOPPING = {
    f"{prefix}.{name}": (higher, third)
    for prefix in ("estimator.experimental", "contrib.estimator")
    for name, higher, third in (("stop_if_higher_hook", True, "threshold"), ("stop_if_lower_hook", False, "threshold"),
                                ("stop_if_no_increase_hook", True, "max_steps_without_increase"),
                                ("stop_if_no_decrease_hook", False, "max_steps_without_decrease"))}
EARLY_STOPPING_ARGS = ["estimator", "metric_name", None, "eval_dir", "min_steps", "run_every_secs", "run_every_steps"]
MAKE_EARLY_STOPPING = ("estimator.experimental.make_early_stopping_hook", "contrib.estimator.make_early_stopping_hook")
EARLY_STOPPING_NOTE = ("early-stopping hook → EstimatorEarlyStopping: at the first step of this training, then on the "
                       "hook's cadence, it reads eval_dir's evaluation summaries (the migrated evaluate writes them "
                       "there, EvalSummaries) and stops training after that step, as TF 2.15's hook did; nothing "
                       "writes eval_dir while this training runs, so its first check decides")


# make_early_stopping_hook's entry in the driver's early_stops (its third item: no metric, a predicate)
PREDICATE = "should_stop_fn"


def predicate_note(timed: bool) -> str:
    """The note of a make_early_stopping_hook converted to EstimatorStopOnPredicate."""
    when = ("then every run_every_secs seconds of wall time, so the step it stops after depends on how fast "
            "training runs, in TF1 as in TF2 (not step-comparable by verify past it)" if timed else
            "then every run_every_steps global steps (TF1 read the global step unordered with the update, so its "
            "later checks could fall a step apart from run to run; a should_stop_fn that does not depend on when "
            "it is called stops at the same step)")
    return ("make_early_stopping_hook → EstimatorStopOnPredicate: it calls should_stop_fn after the first step of "
            f"this training, {when}, and stops training after the step it returned True, as TF 2.15's hook did")


def early_stopping_blocked(why: str) -> str:
    return (f"early-stopping hook not converted: {why}")


def blocked_message(kind: str | None, text: str, path: str | None = None) -> str:
    """Why a hook is not converted: `kind` its Hook class name, or `path` the TensorFlow function that made it."""
    if kind in _BLOCKED:
        return f"{kind} is not converted: {_BLOCKED[kind]}"
    if kind is not None:
        return f"{kind} is not converted yet"
    if path is not None:
        return (f"hook `{text[:60]}` made by tf.{path}(...) is not converted: "
                "TensorFlow made it for the TF1 session, whose graph the migrated program has not")
    return (f"hook `{text[:60]}` is not converted here: a SessionRunHook subclass of this program becomes a "
            "keras.callbacks.Callback only when attached to training through train(hooks=...) or "
            "TrainSpec(hooks=...) (not EstimatorSpec hooks, which may read the model_fn's tensors); other hooks read "
            "graph tensors the Keras model does not have: rewrite it as a keras.callbacks.Callback")


# ---- user-written SessionRunHook subclasses → keras.callbacks.Callback subclasses ----------------------------------
SESSION_RUN_HOOK = ("estimator.SessionRunHook", "train.SessionRunHook")
# hook method → (callback method, its parameters, the hook parameters that have no callback value)
_METHODS = {
    "begin": ("on_train_begin", "self, logs=None", ()),
    "after_create_session": ("on_train_begin", "self, logs=None", ("session", "coord")),
    "before_run": ("on_train_batch_begin", "self, batch, logs=None", ("run_context",)),
    "after_run": ("on_train_batch_end", "self, batch, logs=None", ("run_context", "run_values")),
    "end": ("on_train_end", "self, logs=None", ("session",)),
}
# what keras.callbacks.Callback defines itself (Keras 3): a hook using these names would change the callback
_CALLBACK_NAMES = {"model", "_model", "params", "set_model", "set_params", "validation_data", "async_safe",
                   "_supports_tf_logs"} | {f"on_{w}_{e}" for w in ("train", "test", "predict", "epoch")
                                           for e in ("begin", "end", "batch_begin", "batch_end")} \
    | {"on_batch_begin", "on_batch_end"}
_FETCHES = ("a SessionRunArgs fetch is not converted: Keras gives a callback the running mean of the loss over the "
            "epoch in `logs`, not the values of this step's tensors (TF1 fetched them in the same session.run), and "
            "a global step fetched next to the train_op was read unordered with its increment; count steps in the "
            "hook itself (a Python counter) or rewrite it as a keras.callbacks.Callback")


@dataclass
class CallbackPlan:
    """How one SessionRunHook subclass becomes a keras.callbacks.Callback subclass (rules/planners/hooks.py)."""

    cls: cst.ClassDef
    file: object  # the FileIndex of the class
    base: cst.CSTNode  # the SessionRunHook base expression
    renames: list = field(default_factory=list)  # (FunctionDef, new name, new parameters text)
    stops: list = field(default_factory=list)  # statements `run_context.request_stop()`
    begin_first: cst.CSTNode | None = None  # after_create_session's first statement: `self.begin()` goes above


def callback_plan(cls: cst.ClassDef, file, tf_of) -> CallbackPlan:
    """The plan converting a user-written SessionRunHook subclass, or Blocked naming the first line that cannot be
    converted exactly: its body may hold Python state only (counters, time, printing, files); run_context only
    as `run_context.request_stop()`; no session, coord, run_values or TensorFlow."""
    name = cls.name.value
    if len(cls.bases) != 1 or cls.keywords or cls.decorators:
        raise Blocked(CODE, f"hook class {name}: only a class with the single base SessionRunHook (no decorators, "
                            "metaclass) is converted to a keras.callbacks.Callback", cls)
    base = cls.bases[0].value
    methods: dict[str, cst.FunctionDef] = {}
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            if stmt.decorators or stmt.asynchronous:
                raise Blocked(CODE, f"hook {name}.{stmt.name.value}: decorated methods are not converted", stmt)
            methods[stmt.name.value] = stmt
            if stmt.name.value in _CALLBACK_NAMES:
                raise Blocked(CODE, f"hook {name} defines `{stmt.name.value}`, which keras.callbacks.Callback "
                                    "defines itself; rename it", stmt)
        elif isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Expr, cst.Assign, cst.AnnAssign, cst.Pass)) for s in stmt.body):
            for s in stmt.body:
                for t in (s.targets if isinstance(s, cst.Assign) else [s] if isinstance(s, cst.AnnAssign) else []):
                    target = t.target
                    if isinstance(target, cst.Name) and target.value in _CALLBACK_NAMES:
                        raise Blocked(CODE, f"hook {name} sets `{target.value}`, which keras.callbacks.Callback "
                                            "defines itself; rename it", stmt)
        else:
            raise Blocked(CODE, f"hook class {name}: only methods and simple class attributes are converted", stmt)
    plan = CallbackPlan(cls, file, base)
    finder = _Uses()
    cls.body.visit(finder)
    for node in finder.attributes:  # self.model / self.params would be Keras' own; self.before_run(...) renamed
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            if node.attr.value in _CALLBACK_NAMES:
                raise Blocked(CODE, f"hook {name} uses `self.{node.attr.value}`, which keras.callbacks.Callback "
                                    "sets itself; rename the attribute", node)
            if node.attr.value in _METHODS and node.attr.value in methods:
                raise Blocked(CODE, f"hook {name} calls its own `{node.attr.value}`; only the Estimator's calls of "
                                    "the hook methods are converted", node)
    for node in [*finder.attributes, *finder.names]:
        path = tf_of(node, file)
        if path is not None and path != "":
            if path == "estimator.SessionRunArgs" or path == "train.SessionRunArgs":
                raise Blocked(CODE, f"hook {name}: {_FETCHES}", node)
            raise Blocked(CODE, f"hook {name} uses tf.{path}: a Keras callback runs outside the training graph, so "
                                "only hooks whose methods hold Python state (counters, time, printing, files) and "
                                "request_stop() are converted; move the TensorFlow part into the model", node)
    if "after_create_session" in methods and "begin" in methods:
        body = methods["after_create_session"].body.body
        plan.begin_first = body[0]
    for method, fn in methods.items():
        if method not in _METHODS:
            continue
        new, params, unavailable = _METHODS[method]
        given = [p.name.value for p in fn.params.params]
        if fn.params.star_arg is not cst.MaybeSentinel.DEFAULT or fn.params.kwonly_params or fn.params.star_kwarg \
                or fn.params.posonly_params or len(given) != len(unavailable) + 1:
            raise Blocked(CODE, f"hook {name}.{method}: expected the SessionRunHook signature "
                                f"({', '.join(('self',) + unavailable)})", fn)
        if method == "begin" and "after_create_session" in methods:
            continue  # stays `begin`; on_train_begin (after_create_session) calls it first, as the Estimator did
        hook_params = dict(zip(unavailable, given[1:]))
        taken = {n.value for n in _all_names(fn.body)}
        for role, param in hook_params.items():
            for use in (n for n in _all_names(fn.body) if n.value == param):
                if role == "run_context" and _is_request_stop(use, fn):
                    plan.stops.append(_statement_of(use, fn))
                    continue
                why = {"run_values": _FETCHES,
                       "run_context": "only run_context.request_stop() (as a statement) is converted, to "
                                      "self.model.stop_training = True"}.get(
                    role, f"a Keras callback has no {role}: only hooks whose methods hold Python state are converted")
                raise Blocked(CODE, f"hook {name}.{method} uses `{param}`: {why}", use)
        clash = [p for p in ("batch", "logs") if p in taken and p in params]
        if clash:
            raise Blocked(CODE, f"hook {name}.{method} uses the name `{clash[0]}`, which the callback method takes "
                                "as a parameter; rename it", fn)
        plan.renames.append((fn, new, params))
    return plan


def callback_edits(plan: CallbackPlan, edits) -> None:
    """Apply a CallbackPlan: the base, the method names and parameters, request_stop → stop_training."""
    edits.replace(plan.base, "keras.callbacks.Callback")
    for fn, new, params in plan.renames:
        edits.transform(fn, lambda f, n=new, p=params: f.with_changes(
            name=cst.Name(n), params=cst.parse_statement(f"def f({p}): pass").params))
    for stmt in plan.stops:
        edits.replace_statement(stmt, "self.model.stop_training = True\n")
    if plan.begin_first is not None:
        edits.insert_before(plan.begin_first, ["self.begin()"])


class _Uses(cst.CSTVisitor):
    def __init__(self):
        self.attributes: list[cst.Attribute] = []
        self.names: list[cst.Name] = []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.attributes.append(node)
        return True

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node)


def _all_names(node) -> list[cst.Name]:
    finder = _Uses()
    node.visit(finder)
    return finder.names


def _is_request_stop(name: cst.Name, fn: cst.FunctionDef) -> bool:
    """`run_context.request_stop()` as a whole statement line of its own."""
    stmt = _statement_of(name, fn)
    if stmt is None or len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Expr):
        return False
    call = stmt.body[0].value
    return (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute)
            and call.func.value is name and call.func.attr.value == "request_stop")


def _statement_of(name: cst.Name, fn: cst.FunctionDef):
    """The SimpleStatementLine of fn's body (at any depth) that contains `name`."""
    found = []

    class _Find(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node) -> bool:
            inner = _Uses()
            node.visit(inner)
            if any(n is name for n in inner.names):
                found.append(node)
            return False

    fn.body.visit(_Find())
    return found[0] if found else None


# ---- LoggingTensorHook → the generated TensorLogger callback (templates/tensor_logger.py.j2) ----------------------
LOGGING_ARGS = ["tensors", "every_n_iter", "every_n_secs", "at_end", "formatter"]
GLOBAL_STEP_KEY = "global_step"  # the key of the global step (before this step's update) in logged_tensors
LOSS_KEY = "loss"  # the key of the EstimatorSpec's loss
LOSS_SUMMARY_KEY = "loss:0"  # the tensor TF1 found under the name "loss": the Estimator's serialized loss summary


def logging_note(where: str) -> str:
    return (f"LoggingTensorHook ({where}) converted: the generated TensorLogger callback logs the same tags with "
            "tf.compat.v1.logging.info (INFO level, as TF1: set the verbosity to INFO to see them) at the same local "
            "iterations (the first, then every_n_iter, or every_n_secs of wall time), with the values of that "
            "step's forward pass (before the update) and the global step before it, in TF1's text \"tag = value, "
            "... (0.123 sec)\" (or the formatter's); one replica (with more it says so and logs nothing)")


def logging_eval_note() -> str:
    return ("LoggingTensorHook on evaluation dropped: it only observes evaluation (converted on training only; log "
            "evaluation values with a keras.callbacks.Callback's on_test_batch_end)")


def logging_dropped(why: str) -> str:
    """The note of a LoggingTensorHook tfmigrate cannot convert: it only logs, so it is dropped, not blocked."""
    return (f"LoggingTensorHook not converted, dropped (it only logs values; training is the same without it): "
            f"{why}")


def is_logging_drop(error: Blocked) -> bool:
    """Whether a Blocked raised while converting a LoggingTensorHook is one that drops the hook with a note."""
    return error.code == CODE and error.message.startswith("LoggingTensorHook not converted, dropped")


def logging_name_dropped(name: str) -> str:
    """Why a tensor name a LoggingTensorHook logs is not converted (the hook is dropped with this note)."""
    if name in ("global_step", "global_step:0"):
        return logging_dropped(f"the name {name!r} found the global step variable's resource handle in TF1 (it "
                               "printed the handle, not the step); log tf.compat.v1.train.get_global_step() from the "
                               "model_fn's EstimatorSpec(training_hooks=[...]), which converts")
    return logging_dropped(f"the tensor name {name!r} is not one tfmigrate can supply: only the names given with "
                           "name=\"...\" to a TF op of the model_fn computed from the model output (tf.identity, "
                           "tf.nn.softmax, ...; not inside a variable_scope, a name used once) and \"loss\" (the "
                           "Estimator's loss summary) are; to log it in TF2, name the value so in the model_fn, pass "
                           "the tensor itself in EstimatorSpec(training_hooks=[LoggingTensorHook(...)]), or print it "
                           "from a keras.callbacks.Callback")


# ---- StepCounterHook on training → the generated StepCounter callback (templates/step_counter.py.j2) --------------
STEP_COUNTER_WRITER = ("StepCounterHook(summary_writer=...) is not converted: a TF1 FileWriter has no TF2 meaning; "
                       "pass output_dir=... instead")


def step_counter_dropped(why: str) -> str:
    """The note of a model_fn StepCounterHook tfmigrate cannot convert: it only observes, so it is dropped."""
    return (f"StepCounterHook not converted, dropped (it only logs the step rate; training is the same without it): "
            f"{why}")


def step_counter_note() -> str:
    return ("StepCounterHook converted: the generated StepCounter callback logs \"global_step/sec: <rate>\" with "
            "tf.compat.v1.logging.info and writes it as the scalar summary \"global_step/sec\" to output_dir at the "
            "same global steps as the hook (the first step without a line, then every every_n_steps steps, or "
            "every_n_secs); the rate is wall time, so its values differ from run to run; no graph in the events file")


# ---- SummarySaverHook in the model_fn's training hooks → the model's summary_hooks(), written by both targets ------
def summary_note(where: str, tags: list[str], missing: list[str]) -> str:
    """The note of a converted SummarySaverHook of EstimatorSpec(`where`=...): the tags it writes, the ones it
    cannot (their own notes say why)."""
    note = (f"SummarySaverHook ({where}) converted: the migrated training writes its summaries "
            f"({', '.join(tags)}) to output_dir at the same global steps (this run's first step, then every save_steps "
            "steps; never the last step unless it falls on one), with the values of that step's forward pass, one "
            "events file per directory (TF1's SummaryWriterCache), on the chief; no graph or session-log records. "
            "TF 2.15 itself sometimes wrote one step early (its stale global-step read races with the increment)")
    if where == "training_hooks":
        note += "; with several workers TF1's other workers wrote their own events files to output_dir too (not written)"
    if missing:
        note += f"; not written: {', '.join(missing)} (see those summaries' notes)"
    return note


def summary_dropped(why: str) -> str:
    """The note of a SummarySaverHook tfmigrate does not convert: it only writes summaries, so it is dropped."""
    return f"SummarySaverHook not converted, dropped (it only writes summaries; training is the same without it): {why}"


SUMMARY_HOW = ("attach SummarySaverHook(save_steps=N, output_dir=..., summary_op=tf.compat.v1.summary.merge_all() or "
               "scalar summary ops of the model_fn) in the model_fn's EstimatorSpec(training_hooks=[...]), which "
               "converts, or write tf.summary in a keras.callbacks.Callback")


def summary_outside(where: str, scaffold_only: bool, op_or_scaffold: int) -> tuple[bool, str]:
    """A SummarySaverHook in train(hooks=) / TrainSpec(hooks=) (where="train") or on evaluation: (blocked?, message).
    op_or_scaffold: how many of summary_op and scaffold it is given."""
    if op_or_scaffold != 1:
        return True, ("SummarySaverHook needs exactly one of scaffold and summary_op: TF 2.15 raised ValueError here; "
                      f"{SUMMARY_HOW}")
    if where != "train":
        return False, summary_dropped(f"on {where} it only observes evaluation; {SUMMARY_HOW}")
    if scaffold_only:
        return False, summary_dropped(
            "with scaffold=Scaffold() and no summary_op it wrote no summaries (measured on TF 2.15: that Scaffold is "
            "never finalized, so its summary_op stays None and the events file in output_dir holds only the graph "
            f"and session-log records); to write summaries, {SUMMARY_HOW}")
    return True, ("SummarySaverHook in train(hooks=...) / TrainSpec(hooks=...) with a summary_op is not converted: a "
                  "summary op built outside the model_fn is not in the Estimator's graph (TF 2.15 raised, e.g. "
                  f"merge_all() in eager mode); {SUMMARY_HOW}")
