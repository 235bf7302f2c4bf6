"""TFM601 estimator driver: every Estimator, what configures it and what drives it, wherever it is written.

Asked of the program model (migrator/model.py), not of one statement list: an Estimator built at module level,
under `__main__`, in `main(argv)`, in a helper that returns it, in a method; arguments positional or by keyword;
RunConfig built inline, in a helper, through `.replace(...)`; specs inline, in helpers returning tuples; input
functions as defs, lambdas, `functools.partial`, closures from factories, taking any of `params`, `mode`,
`config`, `input_context` (the generated code passes what the Estimator passed by name: input_context=None
without a strategy, fixtures/predict_spec_typo).
Across the files of a run: an Estimator subclass of one module built in another (`from estimator import
MyEstimator`: the import takes the builder's name in its place; fixtures/subclass_package), a
`build_estimator(model_dir, ...)` handed as a value to a run loop that calls it through its parameter
(fixtures/builder_run_loop). A run loop handed the model_fn itself (`run_loop.run(flags, model_fn, ...)`, its one
caller an entry point that may name no Estimator) keeps its parameter, which now holds the converted model's
builder (`est = model_fn(params)`); the caller passes the builder (`nets.build_ring_model`) where it passed the
model_fn, and the loop's file gets its own EstimatorCheckpoints (fixtures/handed_run_loop). A loop that reads the
parameter otherwise too is blocked naming that read; several callers are blocked at the Estimator, naming each
caller (tests/rewrite/test_whole_program.py, test_handed_run_loop.py). A loop handed the builder FUNCTION and its
column helper (the official wide & deep layout, fixtures/builder_fn_run_loop): see _handed.py.

An Estimator chosen at run time (issue 28) — a name assigned one Estimator per branch of an if/elif/else, or a
`build_estimator(model_dir, model_type)` whose every `return` is one — converts each Estimator where it is built (the
`if` kept, choosing which model is built) and writes the shared train/evaluate/predict/export calls once, when every
branch's model converts them to the same code; otherwise it blocks naming the two texts that differ (_chosen.py;
fixtures/estimator_choice_flag).
`est = tf.estimator.add_metrics(est, metric_fn)` over a custom model_fn Estimator is that Estimator: the statement
and the metric_fn go, the metrics join the model's (_add_metrics.py; fixtures/add_metrics); over a canned one it blocks.
An evaluate() of the Estimator itself (before the wrapper, or beside `other = add_metrics(est, fn)`) returns its result
without the metric_fn's keys, as that Estimator never computed them (a key the model_fn may use too blocks; a
train_and_evaluate of it blocks).
The Estimator expression becomes the TF2 model (Keras target: built in `strategy.scope()`) or the generated
custom-loop trainer (ctl target) in place; `train` / `evaluate` / `train_and_evaluate` calls become `fit` /
`evaluate` (Keras) or the trainer's `train` / `evaluate`; RunConfig, TrainSpec and EvalSpec statements and the
helpers that only built them are removed once everything that read them is converted.
`est.predict(input_fn, predict_keys, yield_single_examples)` after the Estimator trained earlier in the same
function (the Estimator restored the checkpoint training ended with: the weights the migrated model holds then)
becomes `est.predict_examples(dataset, ...)` (Keras) or `trainer.predict(dataset, ...)` (ctl): a generator of
the PREDICT outputs as numpy values, per example or per batch, like the Estimator's; the input_fn is called as
the Estimator called it for PREDICT (mode "infer", no input_context) and (features, labels) elements give their
features. `verify` records what both sides' predict generators yield and compares it value by value.
`est.export_saved_model(base, tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))` (and
`export_savedmodel`) after training in the same function becomes `est.export_parsing_saved_model(base, spec)`: a
keras.export.ExportArchive SavedModel in base/<timestamp> with the Estimator's serving_default signature
(serialized tf.Example "examples" in, the PREDICT outputs out; a bare tensor as "output"); it returns the path as
bytes like the Estimator. A model_fn with `export_outputs` gets one signature per key instead, with the
Estimator's input and output names (rules/planners/export_outputs.py; fixtures/export_outputs).
tests/fixtures_run/test_export_signatures.py loads both SavedModels and compares them.
`EvalSpec(exporters=FinalExporter(name, receiver) | LatestExporter(...) | a list)` over a parsing receiver: after
training, one export per exporter into model_dir/export/<name>/<timestamp> (the Estimator's last export; a
LatestExporter's exports of evaluations during training are not made, noted); the paths are train_and_evaluate's
second result. `BestExporter` exported at every evaluation that improved the loss (its first export unconditional);
TF 2.15's local train_and_evaluate evaluated at the first checkpoint saved during training, then every throttle_secs,
and at the end: a BestExporter converts like FinalExporter only when that final evaluation was provably the only one
(one process, RunConfig(save_checkpoints_steps=N) with N >= max_steps: literals, or one `args.steps` never assigned;
fixtures/export_raw), else it blocks naming why. `build_raw_serving_input_receiver_fn(features, default_batch_size)`
→ `est.export_raw_saved_model(base, features, default_batch_size)` (rules/planners/receivers.py).
`tf.compat.v1.estimator.inputs.numpy_input_fn(x, y, batch_size, num_epochs, shuffle=False)` as an input_fn becomes
`tf.data.Dataset.from_tensor_slices((x, y)).repeat(num_epochs).batch(batch_size)`, the same batches in the same
order (rules/planners/numpy_inputs.py; fixtures/numpy_input); shuffle=True adds `.shuffle(queue_capacity)` with a note: its
queue order is not reproducible, so `verify --statistical` compares it (fixtures/numpy_shuffle).
A hand-written serving_input_receiver_fn (a def returning `ServingInputReceiver(features, receiver_tensors)` or
`TensorServingInputReceiver`) in an export or exporter becomes `est.export_receiver_saved_model(base, fn)`: the
function stays, returning `(features, receiver_tensors)` with `tf.compat.v1.placeholder`s, and runs once in
`tf.compat.v1.wrap_function`, pruned from the receiver tensors to the features — the signature's inputs are the
receiver tensors by key (rules/planners/receivers.py says what blocks; fixtures/export_receiver). A dict of them
looked up by a flag with a known default (`SERVING_FUNCTIONS[args.export_format]`): each function converted so, the
lookup kept at the export (rules/planners/serving_functions.py; fixtures/serving_functions_dict). A read of the
Estimator's RunConfig `config.model_dir` is written as the model_dir value (_config_reads.py).
`Estimator(warm_start_from=path | WarmStartSettings(ckpt, vars_to_warm_start, var_name_to_prev_var_name))`, also
`settings if flag else None`: `est.warm_start_from_tf1(...)` right after the model is built, before the first
fit (ctl: `ModelTrainer(warm_start=lambda model: ...)`, called in `_build`), with WarmStartSettings' meaning
(a regex: trainable weights matched from the start of their TF1 names; a list: every weight; renames; a missing name or shape is an error); BackupAndRestore's checkpoint still
wins over it, as model_dir's did. tests/fixtures_run/test_warm_start_runs.py warm-starts both programs from one TF1
checkpoint and compares every step.
An Estimator model_dir (given, not None; model_fn and canned Estimators, not parameter-server ones): the Estimator
resumed from the latest checkpoint there, max_steps being the absolute global step. The migrated model's
`restore_model_dir(model_dir, optimizer)` does the same before training: this program's own checkpoint
(BackupAndRestore's latest.weights.h5 — dropping the backup's "epoch done" count, which would otherwise make a
second run's one-epoch fit skip training (tests/fixtures_run/test_resume_runs.py) — or a tf.train.Checkpoint),
else the Estimator's latest TF1 checkpoint read
by TF1 name (`restore_estimator_checkpoint`): every weight, the optimizer slots whose mapping is exact (TF 2.15's
`<var>/Adagrad`; `<var>/Adam`, `<var>/Adam_1`, beta1_power, beta2_power; `<var>/Momentum`, as TF1Momentum's
accumulator or as keras SGD's velocity -lr·accum; `<var>/Ftrl`, `<var>/Ftrl_1`; `<var>/RMSProp[_1[_2]]`;
`<var>/Adadelta[_1]`) and global_step as optimizer.iterations; a missing name or another shape raises an error
naming it, nothing starts fresh. Keras: `initial_step = est.restore_model_dir(...)` then
`if initial_step < max_steps: est.fit(..., steps_per_epoch=max_steps - initial_step)` (train(steps=N) and
StopAtStepHook(num_steps=N) count from initial_step); ctl: ModelTrainer._build restores and the loop counts from
optimizer.iterations (there train(steps=N)/num_steps stay absolute, noted). No checkpoint: fresh initialisation,
as the Estimator. tests/fixtures_run/test_resume_runs.py trains the original K steps, then continues the original
and the migrated program from copies of that model_dir and compares every step. Checkpoints (model_fn
Estimators with a model_dir): the Estimator's model.ckpt-<step> at the step training started from, every
save_checkpoints_steps after the last save, and at the last step, keep_checkpoint_max kept — Keras: the generated
`EstimatorCheckpoints` callback (instead of BackupAndRestore, which saved at multiples of save_freq and not at the
end); custom loop: the same steps and names; a CheckpointSaverHook's directory and steps instead on both
(rules/planners/hooks.py; tests/fixtures_run/test_nan_checkpoint_runs.py), the parameter-server loop too (its chief saves what
TF 2.15's PS Estimator chief saved: measured on a chief, a worker and a ps resuming from step 130 with
save_checkpoints_steps=50, 130, 180, 230, 280, 300; by CheckpointSaverHook's code an async chief read a global step
the other workers also moved, so a save could land past last + N, not seen there; the loop saves at last + N
exactly; tests/fixtures_run/test_ps_cluster_runs.py runs both on the local cluster, fresh and resumed). Canned
and model_to_estimator Keras fits too (rules/planners/keras_estimator.py). Parameter-server programs restore
only their own TF2 checkpoints: `tfmigrate checkpoint convert MODEL_DIR --program MIGRATED --out DIR` writes one
from the Estimator's model_dir (partitioned variables included), for any migrated model_fn program.
predict / evaluate / export_saved_model with nothing trained before it in the same function (a predict(model_dir)
helper with its own Estimator, a `--mode predict` branch, a program that only predicts), or with checkpoint_path:
the Estimator restored checkpoint_path, else model_dir's latest (none: predict/evaluate ran on freshly initialised
variables, export raised "Couldn't find trained model"). The migrated model does the same first:
`est.restore_checkpoint(model_dir, sample[, checkpoint_path=...][, required=True])` (ctl:
`trainer.model.restore_checkpoint(trainer.model_dir, ...)`; the trainer's evaluate restores model_dir in _build),
where `sample` (one element of the predict/eval data, an empty batch of the parsing spec for an export; for a
hand-written serving_input_receiver_fn `est.receiver_sample(fn)`: the receiver's features for an empty batch of
its placeholders, fixtures/predict_only_receiver) builds the variables Keras creates lazily; then checkpoint_path (a TF1 prefix read by TF1 name, or this program's), else
model_dir's latest.weights.h5 / tf.train.Checkpoint / the Estimator's TF1 checkpoint (newest_checkpoint: the one
saved at the later step, a stale backup never winning over a newer Estimator checkpoint; restore_model_dir
too, and a resume removes that stale backup, which fit's BackupAndRestore would load; tests/fixtures_run/
test_restore_newest.py); weights only. Once
restored (or trained) in a function, later predict/evaluate there read the same weights; an export restores again
(it must fail without a checkpoint). "Trained before" means the same Estimator OBJECT: a builder called again
(a notebook's prediction cell calling the training cell's `create_estimator(run_config, hparams)` anew) builds a
new Estimator over the same model_dir, which restored it, so the new model restores too
(fixtures/builder_two_callers: train, then predict from a second build, predictions compared). A builder called
from several places is followed when every caller passes the same module-level value (one construction, outside
any loop: the notebook's `run_config` and `hparams`; migrator/model.py Program._same_def); different values, a
name rebound between the calls, or a value built in a loop stay blocked, naming the callers; a RunConfig not read
makes no claim about its model_dir. An input_fn lambda written in its train/evaluate/predict call ran within that
call, so a module-level name it reads (a notebook's `def input_fn` redefined in a later cell) holds what reaches
the call (tests/rewrite/test_notebook_input_fn_cells.py). fixtures/predict_separate; tests/fixtures_run/test_predict_separate_runs.py
predicts, evaluates and exports from a model_dir the Estimator trained and compares with the Estimator.
Canned models read it by the names the canned estimator gave its variables (rules/planners/canned.py).
Blocked there, with the reason: warm_start_from,
parameter servers, no model_dir (the Estimator read the temporary directory of training done elsewhere), evaluate(checkpoint_path=...) on the custom loop.
Blocked, each with its own line: predict(hooks=...), export(assets_extra/as_text/experimental_mode), raw serving receivers over placeholders,
predict/export under parameter servers, a model_fn with no
predictions; BestExporter unless the final evaluation was the only one, exporters without a model_dir, warm start with vocabularies or under parameter servers, an Estimator value used in a way the tool cannot follow, a
name with several possible values, input functions the tool cannot see. Hooks: rules/planners/hooks.py (TFM611).
Mode keys no Estimator of the run reaches (a script, a test, a helper it never calls) become the strings they are,
and Estimator API in a file that builds no Estimator is reported with where the run reaches it from
(rules/planners/mode_keys.py).

Training more than once (in a loop, or call after call; Keras target, a model_fn Estimator with a model_dir, train()
calls): each Estimator call went on from the global step the last one reached; each migrated fit first restores
model_dir (`restore_model_dir`: the checkpoint the last fit wrote) and trains `steps=N` more, or up to `max_steps=M`
(`if initial_step < M`), so `for r in rounds: est.train(input_fn, steps=N); est.evaluate(...)` trains and evaluates
the same steps (fixtures/early_stop_loop). Noted: TF1 rebuilt its graph in every train(), so a random op without an
op seed repeated its values each call, where the migrated one goes on. The custom loop, canned and model_to_estimator
Estimators, no model_dir, warm start, a strategy or a train_and_evaluate among the trainings block, saying so.

TFM600 (migrated as a unit): files linked through one Estimator (the model_fn in one file, the driver in
another, specs from a third) change together or not at all; when one of them is blocked, every other file of the
unit is left unchanged with a TFM600 error naming the file that blocked and its first blocker: `path:line CODE
message` of the construct, wherever in the run it stands (and how many more that file has).
TFM603 (other estimator kinds): `tf.keras.estimator.model_to_estimator(keras_model=...)` becomes the compiled
Keras model (rules/planners/keras_estimator.py: what converts, what blocks); the canned estimators rules/planners/canned.py does not
convert (RNN estimators) and `TPUEstimator` are found and reported with what to do.
TFM605 (TPUEstimator on CPU): `tf.compat.v1.estimator.tpu.TPUEstimator(use_tpu=False)` (literal, or a flag
defaulting to False) is converted as the Estimator it was on CPU: rules/planners/tpu.py says how and what blocks
(fixtures/tpu_estimator_cpu); TF 1.x's `tf.contrib.tpu.TPUEstimator` is that class (tf_upgrade_v2 renames it so)
and is converted the same way, with the same checks.
A model_fn-shaped def no Estimator is built with, which the program calls itself (`spec = obj.model_fn(x, y,
ModeKeys.TRAIN, params)`, then `sess.run(spec.train_op)` in a tf.compat.v1.Session) is TF1 graph code, not an
Estimator program: blocked saying so, with the call (rules/planners/direct_model_fn.py; TF's migration_debugging guide).
A helper whose callers hand it different Estimators (`print_rmse(model)` after a LinearRegressor, then after a
DNNRegressor) blocks at its use, naming the callers and the Estimators: a use converts for the one Estimator it
reaches (_shared_helper.py); handed one Estimator from any number of callers, it converts.
`est.get_variable_value(name)`, `get_variable_names()`, `latest_checkpoint()` block (not converted yet, #29), naming
the migrated program's exact read instead (_checkpoint_reads.py); of a model_fn that trains by assignment they stay
as written: its generated trainer answers them by TF1 name from model_dir's latest checkpoint (assign_step.py).
`Estimator(model_fn=wrapper.model_fn)` with `wrapper = Wrapper()` (a bound method) blocks naming the method and
whether it reads `self` (without: make it a module-level function, which converts; _object_method.py).

Why exact: the input functions are called as the Estimator called them (same arguments, same per-replica sharding
through `distribute_datasets_from_function`), `tf_random_seed` becomes `keras.utils.set_random_seed`, and
`max_steps` becomes the number of steps trained, so both programs see the same batches in the same order;
`tfmigrate verify` checks every driver fixture step by step. Without max_steps (`TrainSpec(input_fn)`,
`train(input_fn)`) the Estimator trained until the input ended: one Keras epoch, or the custom loop's
`train(dataset_fn, max_steps=None)` stepping until the distributed iterator ends (under MWMS: when every worker's
shard has ended, the same step for equal shards; `fixtures/keras_in_model_fn`); parameter servers block.

Example (`fixtures/regression_adagrad`, Keras target):

    config = tf.estimator.RunConfig(model_dir=d, tf_random_seed=42, save_checkpoints_steps=100)
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params={...})
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=args.steps)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    →
    keras.utils.set_random_seed(42)
    strategy = tf.distribute.get_strategy()
    with strategy.scope():
        estimator = build_model({...})
    initial_step = estimator.restore_model_dir(d, estimator.optimizer)
    if initial_step < args.steps:
        estimator.fit(train_input_fn(), epochs=1, steps_per_epoch=args.steps - initial_step,
                      callbacks=[EstimatorCheckpoints(d, save_steps=100)])
    estimator.evaluate(eval_input_fn(), steps=None, return_dict=True)
"""
from __future__ import annotations

from ...facts.sites import CODE_KIND, Site
from ._analysis import Analysis
from ._emitter import Emitter
from ._estimator import closure_factory
from ._explain import explain
from ._training import keras_resumes, loop_writes_checkpoints, resumes, training_calls, until_end_of_input, writes_checkpoints
from ._values import MODE_KEYS, Choice, Least, Relative

# what rules/program.py, rules/__init__.py and the other planners read of the driver
__all__ = ["CODE_KIND", "MODE_KEYS", "Analysis", "Choice", "Emitter", "Least", "Relative", "Site", "closure_factory",
           "explain", "keras_resumes", "loop_writes_checkpoints", "resumes", "training_calls", "until_end_of_input",
           "writes_checkpoints"]
