"""TFM601 estimator driver: every Estimator, what configures it and what drives it, wherever it is written.

Asked of the program model (migrator/model.py), not of one statement list: an Estimator built at module level,
under `__main__`, in `main(argv)`, in a helper that returns it, in a method; arguments positional or by keyword;
RunConfig built inline, in a helper, through `.replace(...)`; specs inline, in helpers returning tuples; input
functions as defs, lambdas, `functools.partial`, closures from factories, taking any of `params`, `mode`,
`config`, `input_context` (the generated code passes what the Estimator passed by name).

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
receiver tensors by key (rules/planners/receivers.py says what blocks; fixtures/export_receiver).
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
where `sample` (one element of the predict/eval data, an empty batch of the parsing spec for an export) builds the
variables Keras creates lazily; then checkpoint_path (a TF1 prefix read by TF1 name, or this program's), else
model_dir's latest.weights.h5 / tf.train.Checkpoint / the Estimator's TF1 checkpoint (newest_checkpoint: the one
saved at the later step, a stale backup never winning over a newer Estimator checkpoint; restore_model_dir
too, and a resume removes that stale backup, which fit's BackupAndRestore would load; tests/fixtures_run/
test_restore_newest.py); weights only. Once
restored (or trained) in a function, later predict/evaluate there read the same weights; an export restores again
(it must fail without a checkpoint). fixtures/predict_separate; tests/fixtures_run/test_predict_separate_runs.py
predicts, evaluates and exports from a model_dir the Estimator trained and compares with the Estimator.
Canned models read it by the names the canned estimator gave its variables (rules/planners/canned.py).
Blocked there, with the reason: warm_start_from,
parameter servers, no model_dir (the Estimator read the temporary directory of training done elsewhere), a
hand-written receiver (nothing to build the model from), evaluate(checkpoint_path=...) on the custom loop.
Blocked, each with its own line: predict(hooks=...), export(assets_extra/as_text/experimental_mode), raw serving receivers over placeholders,
predict/export under parameter servers, a model_fn with no
predictions; BestExporter unless the final evaluation was the only one, exporters without a model_dir, warm start with vocabularies or under parameter servers, an Estimator value used in a way the tool cannot follow, a
name with several possible values, input functions the tool cannot see. Hooks: rules/planners/hooks.py (TFM611).

TFM600 (migrated as a unit): files linked through one Estimator (the model_fn in one file, the driver in
another, specs from a third) change together or not at all; when one of them is blocked, every other file of the
unit is left unchanged with a TFM600 error naming the file that blocked.
TFM603 (other estimator kinds): `tf.keras.estimator.model_to_estimator(keras_model=...)` becomes the compiled
Keras model (rules/planners/keras_estimator.py: what converts, what blocks); the canned estimators rules/planners/canned.py does not
convert (RNN estimators) and `TPUEstimator` are found and reported with what to do.
TFM605 (TPUEstimator on CPU): `tf.compat.v1.estimator.tpu.TPUEstimator(use_tpu=False)` (literal, or a flag
defaulting to False) is converted as the Estimator it was on CPU: rules/planners/tpu.py says how and what blocks
(fixtures/tpu_estimator_cpu); TF 1.x's `tf.contrib.tpu.TPUEstimator` is that class (tf_upgrade_v2 renames it so)
and is converted the same way, with the same checks.

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

import json
import textwrap
from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Binding, FileIndex, FunctionRef, Program, Resolved, Value, code
from tfmigrate.visitors import Visitor

from . import hooks as hook_rules
from . import numpy_inputs
from . import receivers as receiver_rules
from . import strategy as strategies
from . import tpu as tpu_rules
from ..emit.wrap import generated, wrap_call
from ..facts.calls import is_literal, literal
from ..facts.sites import CODE_KIND, OTHER_KINDS, Site, Use, bind_values, deletable, kind_message, statement_bindings
from ..facts.estimator import ESTIMATOR_ARGS, EVAL_SPEC_ARGS, EVALUATE_ARGS, EXPORT_ARGS, EXPORT_SAVEDMODEL_ARGS, PARSING_RECEIVER_ARGS, PREDICT_ARGS, WARM_START_ARGS, RUN_CONFIG_ARGS, RUN_CONFIG_DROPPED, TRAIN_ARGS, TRAIN_SPEC_ARGS, CODE

_KEPT_CONFIG = ("model_dir", "tf_random_seed", "save_checkpoints_steps", "keep_checkpoint_max", "log_step_count_steps",
                "train_distribute")
_MODES = {"train": '"train"', "eval": '"eval"', "infer": '"infer"'}  # the values of tf.estimator.ModeKeys
MODE_KEYS = {"estimator.ModeKeys.TRAIN": '"train"', "estimator.ModeKeys.EVAL": '"eval"',
             "estimator.ModeKeys.PREDICT": '"infer"'}
# TF 1.x's tf.contrib.tpu.TPUEstimator is the class tf_upgrade_v2 renames to tf.compat.v1.estimator.tpu.TPUEstimator
# what `x = X() if flag else None` is converted for (why(): the hint for `x = None` then `if flag: x = X()`)
_CHOSEN_OR_NONE = ("a strategy", "warm start")
# functions returning a new Estimator around the one they are given, with what the wrapper added and what to do
_WRAPPERS = {
    path: what for paths, what in [
        (("estimator.add_metrics", "contrib.estimator.add_metrics"),
         "the Estimator it returns also evaluates the metric_fn's metrics; return them from the model_fn's "
         "eval_metric_ops instead (a canned Estimator: compute them from the migrated model's predictions after "
         "evaluation) and drive the Estimator itself"),
        (("contrib.estimator.forward_features",),
         "the Estimator it returns adds input features to its predictions; drive the Estimator itself and read "
         "those features from the input next to the migrated predictions"),
    ] for path in paths}
_TPU_ESTIMATORS = ("estimator.tpu.TPUEstimator", "contrib.tpu.TPUEstimator")
_ESTIMATOR_METHODS = {"train", "evaluate", "predict", "export_saved_model", "export_savedmodel",
                      "experimental_export_all_saved_models", "get_variable_value", "get_variable_names",
                      "latest_checkpoint", "model_dir", "config", "params", "model_fn"}


@dataclass(frozen=True, eq=False)
class Choice:
    """A RunConfig setting that depends on a run-time condition: `a if test else b` (each a Value)."""

    test: Value
    body: Value
    orelse: Value
    node: cst.CSTNode  # the conditional expression, for diagnostics


@dataclass(frozen=True, eq=False)
class Least:
    """The smaller of two step counts: max_steps and a StopAtStepHook's last step (`min(a, b)`)."""

    first: Value
    second: Value
    node: cst.CSTNode


@dataclass(frozen=True, eq=False)
class Relative:
    """A step count relative to the global step training starts from (`train(steps=N)`,
    `StopAtStepHook(num_steps=N)`): `initial_step + N` where the migrated program resumes from model_dir."""

    value: Value

    @property
    def node(self):
        return self.value.node


_CONFIG_DEFAULTS = {"model_dir": "None", "tf_random_seed": "None", "save_checkpoints_steps": "None",
                    "keep_checkpoint_max": "5", "log_step_count_steps": "100", "train_distribute": "None"}


class Analysis:
    """All Estimator sites of a program and their uses; diagnostics are collected, not raised one by one."""

    def __init__(self, program: Program, names_for, options):
        self.program, self.names_for, self.options = program, names_for, options
        self.sites: list[Site] = []
        self.errors: list[Blocked] = []
        self.notes: list = []
        self.summary_steps: dict[int, Value] = {}  # RunConfig(save_summary_steps) by id(Estimator call)
        self._site_by_call: dict[int, Site] = {}
        self._failed: set[int] = set()  # Estimator calls already reported: their uses are not reported again
        self._ambiguous_reported: set[tuple[int, ...]] = set()  # names holding one of several Estimators
        self.dropped_args: list = []  # (call, file, argument value) whose parameter the conversion made unused
        self.dropped_params: list = []  # (def, file, parameter name)
        self.inline_args: list[cst.CSTNode] = []  # TF1 values written inline as a helper's argument (a RunConfig)
        self.model_fn_aliases: set[int] = set()  # `fn = model_fn` bindings, which go with the converted model_fn
        # id(def) → the model_fn every Estimator of the run is built with (model_fn=, first positional, a subclass'
        # super().__init__), converted or not: what is a model_fn is what is passed to an Estimator
        self.model_fn_defs: dict[int, FunctionRef] = {}
        # id(Estimator call) → (def returning it, its file) when nothing in the run calls that def: a note says what
        # it returns now and how callers outside the run must drive it
        self.uncalled_builders: dict[int, tuple[cst.FunctionDef, FileIndex]] = {}

    def tf(self, node, file: FileIndex) -> str | None:
        return self.names_for(file).of(node)

    # ---- finding ------------------------------------------------------------------------------------------
    def run(self) -> "Analysis":
        # `MyEstimator(...)` needs a class of the program with an Estimator base: without one, no call's callee is
        # resolved to look for it
        subclasses = any(self.tf(b.value, file) == "estimator.Estimator" for file in self.program.files
                         for scope in file.class_scopes.values() for b in scope.node.bases)
        paths: dict[int, str | None] = {}  # each call's TF path, for the second loop's _use (the calls stay alive)
        for file in self.program.files:
            for call in file.calls:
                path = paths[id(call)] = self.tf(call, file)
                if path == "estimator.Estimator":
                    if self._guard(self._site, call, file) is False:
                        self._failed.add(id(call))
                elif path is None and subclasses and self._estimator_subclass(call, file) is not None:
                    if self._guard(self._site, call, file) is False:
                        self._failed.add(id(call))
                elif path in OTHER_KINDS and OTHER_KINDS[path] == "canned":
                    from . import canned  # canned estimators: a Site whose model rules/planners/canned.py generates

                    if self._guard(canned.site, self, call, file, path) is False:
                        self._failed.add(id(call))
                elif path == "keras.estimator.model_to_estimator":
                    from . import keras_estimator  # the compiled Keras model itself (rules/planners/keras_estimator.py)

                    if self._guard(keras_estimator.site, self, call, file) is False:
                        self._failed.add(id(call))
                elif path in _TPU_ESTIMATORS:  # use_tpu=False: an Estimator (rules/planners/tpu.py)
                    if self._guard(self._site, call, file, path) is False:
                        self._failed.add(id(call))
                elif path in OTHER_KINDS:
                    self.errors.append(Blocked(CODE_KIND, kind_message(path), call))
        for file in self.program.files:
            for call in file.calls:
                path = paths[id(call)] if id(call) in paths else self.tf(call, file)
                if self._guard(self._use, call, file, path) is False:
                    self._failed.add(id(call))  # reported; the Estimator's holder check skips it
        for site in self.sites:
            if site.tpu is not None:
                self._guard(tpu_rules.check_model_fn, self, site.model_fn, site.tpu, site.uses)
        self.finish()
        return self

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except Blocked as blocked:
            self.errors.append(blocked)
            return False

    def site_of(self, value: Value) -> Site | Resolved:
        r = self.program.resolve(value)
        site = self._site_by_call.get(id(r.node))
        return site if site is not None else r

    def _holds_estimator(self, binding) -> bool:
        """One of a name's several reaching bindings assigns it an Estimator this run builds."""
        if binding.kind != "assign" or binding.value is None or binding.unpack:
            return False
        return isinstance(self.site_of(Value(binding.value, binding.scope.file)), Site)

    # ---- an Estimator ----------------------------------------------------------------------------------------
    def _estimator_subclass(self, call: cst.Call, file: FileIndex):
        """For `MyEstimator(...)` where `class MyEstimator(tf.estimator.Estimator)` is a class of the program: (the
        class, its file). None otherwise."""
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        r = self.program.resolve(Value(call.func, file))
        if isinstance(r.node, cst.ClassDef) and any(self.tf(b.value, r.value.file) == "estimator.Estimator"
                                                    for b in r.node.bases):
            return r.node, r.value.file
        return None

    def _subclass_init(self, call: cst.Call, file: FileIndex):
        """For `MyEstimator(...)` where `class MyEstimator(tf.estimator.Estimator)` passes its model_fn to the base
        `__init__`: (the class binding, the base `__init__` call, its environment). None otherwise; a subclass not
        converted raises."""
        key = ("subclass", id(call))
        if key in self.program.cache:
            return self.program.cache[key]
        found = None
        subclass = self._estimator_subclass(call, file)
        if subclass is not None:
            cls, cfile = subclass
            scope = cfile.class_scopes[id(cls)]
            init = next((b.node for b in scope.bindings.get("__init__", []) if b.kind == "def"), None)
            if init is None:
                raise Blocked(CODE, f"Estimator subclass {cls.name.value} without __init__ is not converted: give it "
                                    "an __init__ that passes model_fn (and config, params) to super().__init__, or "
                                    "build tf.estimator.Estimator(model_fn=...) itself", cls)
            base_call = next((c for c in cfile.calls if cfile.enclosing_function(c) is init
                              and isinstance(c.func, cst.Attribute) and c.func.attr.value == "__init__"), None)
            if base_call is None:
                raise Blocked(CODE, f"{cls.name.value}.__init__ does not call the Estimator's __init__: call "
                                    "super().__init__(model_fn=..., config=..., params=...) in it", init)
            others = [b for name, bs in scope.bindings.items() for b in bs if name != "__init__"
                      and b.kind in ("def", "assign")]
            if others:
                raise Blocked(CODE, f"Estimator subclass {cls.name.value} defines `{others[0].name}`; only a "
                                    "subclass whose __init__ passes model_fn/config/params to the Estimator is "
                                    "converted", others[0].node)
            ref = FunctionRef(init, cfile)
            params = ref.params[1:]
            env, positional = [], 0
            for arg in call.args:
                if arg.star:
                    raise Blocked(CODE, f"{cls.name.value}(*args/**kwargs) cannot be mapped", call)
                name = arg.keyword.value if arg.keyword is not None else (params[positional] if positional < len(params) else None)
                if arg.keyword is None:
                    positional += 1
                if name is not None:
                    env.append((name, Value(arg.value, file)))
            for p in init.params.params[1:]:  # defaults of parameters the call does not pass
                if p.default is not None and p.name.value not in {k for k, _ in env}:
                    env.append((p.name.value, Value(p.default, cfile)))
            binding = next(b for b in cfile.top.bindings.get(cls.name.value, []) + scope.parent.bindings.get(
                cls.name.value, []) if b.node is cls)
            found = (binding, base_call, tuple(env), cfile)
        self.program.cache[key] = found
        return found

    def _site(self, call: cst.Call, file: FileIndex, tpu_path: str | None = None) -> None:
        # the Estimator's own argument errors, the model_fn's, the params' and the warm start's blockers are collected:
        # the Estimator's configuration and uses are analysed on (an unconverted Site that only they see), so that
        # their own blockers are reported too; what the failed arguments leave unknown is not checked
        own: list[Blocked] = []
        subclass, args, known = None, {}, True
        try:
            subclass = self._subclass_init(call, file) if tpu_path is None else None
        except Blocked as blocked:  # a subclass not converted: nothing is known of what it passes to the Estimator
            own.append(blocked)
            known = False
        tpu = None
        if tpu_path is not None:
            args, known = self._estimator_args(call, tpu_rules.ESTIMATOR, "TPUEstimator", file, own, rule=CODE_KIND)
            try:
                tpu = tpu_rules.check_estimator(self, args, call, file, tpu_path)
            except Blocked as blocked:  # not provably use_tpu=False: its uses are still a TPUEstimator's
                own.append(blocked)
                tpu = tpu_rules.TPUSite(dict.fromkeys(("train", "eval", "infer")), args.get("use_tpu"), False,
                                        frozenset())
        elif subclass is not None:
            binding, base_call, env, cfile = subclass
            args, known = self._estimator_args(base_call, ["self", *ESTIMATOR_ARGS] if _explicit_self(base_call)
                                               else ESTIMATOR_ARGS, "Estimator.__init__", cfile, own, env)
            args.pop("self", None)
        elif known:
            args, known = self._estimator_args(call, ESTIMATOR_ARGS, "Estimator", file, own)
        if "model_fn" not in args and known:
            own.append(Blocked(CODE, "Estimator(...) without model_fn: TF raised TypeError (model_fn is required); "
                                     "pass the model function as model_fn=...", call))
        warm_start, warm_trail = {}, []
        if "warm_start_from" in args and not is_literal(args["warm_start_from"].node, None):
            try:
                warm_start, warm_trail = self.warm_start(args["warm_start_from"])
            except Blocked as blocked:
                own.append(blocked)
        fn = factory = None
        fn_failed = []
        try:
            if "model_fn" in args:
                fn, factory = self._model_fn(args, call, file)
        except Blocked as blocked:
            own.append(blocked)
        if fn is not None:
            self.model_fn_defs[id(fn.node)] = fn
        try:
            params_value, params = self._params(args, call, file, tpu)
        except Blocked as blocked:
            own.append(blocked)
            params_value, params = None, "{}"
        if fn is not None and tpu is None and params_value is not None and not is_literal(params_value.node, None):
            from .model_fn import params_not_taken

            fn_failed = params_not_taken(fn.node, params_value.node)  # (about the model_fn's signature)
            own.extend(fn_failed)
        trail: list[Binding] = []
        unconverted: list[Blocked] = []
        try:
            run_config = self.run_config(args, call, file, trail, tpu=tpu is not None, unconverted=unconverted)
        except Blocked as blocked:  # (a TPUEstimator without its RunConfig)
            own.append(blocked)
            run_config = {}
        site = Site(call, file, fn, args["model_fn"].node if "model_fn" in args else call, params, params_value,
                    run_config)
        site.config_known = known
        site.model_fn_failed = bool(fn_failed)
        site.errors = unconverted
        site.tpu = tpu
        site.factory = factory
        site.consumed.extend(trail)
        site.consumed.extend(warm_trail)
        if factory is None and fn is not None:  # `fn = model_fn` / `fn = trainer.model.model_fn`: the def it names
            aliases = [b for b in fn.trail if b.kind == "assign"]  # becomes a builder
            site.consumed.extend(aliases)
            self.model_fn_aliases.update(id(b) for b in aliases)
        site.warm_start = warm_start
        if subclass is not None:
            site.consumed.append(subclass[0])
        self.strategy_or_default(site, site.errors)
        if site.errors:
            # analysed on as if without those settings (their blockers leave its files unchanged): its model_fn
            # and uses get their own diagnostics too
            self.errors.extend(site.errors)
        site.target = strategies.choose_target(self.options.target, site.strategy, call)
        if warm_start and site.strategy.parameter_server:
            own.append(Blocked(CODE, "warm_start_from under parameter servers is not converted yet (the weights are "
                                     "sharded over the ps tasks)", args["warm_start_from"].node))
        self._site_by_call[id(call)] = site
        if own:
            site.unconverted = True  # its uses are analysed (site_of finds it); nothing else sees it
            raise Blocked.many(own)
        self.sites.append(site)

    def _estimator_args(self, call: cst.Call, signature: list[str], what: str, file: FileIndex, own: list, env=(),
                        rule: str = CODE) -> tuple[dict[str, Value], bool]:
        """The arguments of an Estimator's construction, and whether every one is known. Its argument errors (each
        keyword it has no parameter for, too many positional arguments, `*args` / `**kwargs`) go to `own`; the
        arguments that are certain are still returned, for its configuration and uses to be analysed."""
        try:
            return bind_values(call, signature, what, file, env, rule=rule), True
        except Blocked:
            pass
        bound: dict[str, Value] = {}
        positional, starred = 0, None
        for arg in call.args:
            if arg.star:
                starred = starred or arg
            elif arg.keyword is not None:
                if arg.keyword.value in signature:
                    bound[arg.keyword.value] = Value(arg.value, file, env)
                else:
                    own.append(Blocked(rule, f"{what} has no argument '{arg.keyword.value}': TF raised TypeError "
                                             "for it, so the original does not run either; remove it (the "
                                             f"arguments are {_names(signature)})", arg))
            elif starred is None:
                if positional < len(signature):
                    bound[signature[positional]] = Value(arg.value, file, env)
                elif positional == len(signature):
                    own.append(Blocked(rule, f"{what}: too many positional arguments (TF raised TypeError): its "
                                             f"arguments are {_names(signature)}, in that order; pass each by "
                                             "keyword", arg))
                positional += 1
        if starred is not None:
            own.append(Blocked(rule, f"{what}({starred.star}{code(starred.value)}): tfmigrate cannot see which "
                                     f"arguments `{starred.star}{code(starred.value)}` holds; pass the Estimator's "
                                     "arguments by keyword",
                               starred))
        return bound, starred is None

    def _model_fn(self, args: dict[str, Value], call: cst.Call, file: FileIndex) -> tuple[FunctionRef, tuple | None]:
        """The Estimator's model_fn def, and its factory when it is a closure (else None)."""
        fn = self.program.function_of(args["model_fn"])
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            method = _method_model_fn(args["model_fn"])
            if method is not None:
                raise Blocked(CODE, method, args["model_fn"].node)
            r = self.program.resolve(args["model_fn"])
            raise Blocked(CODE, f"model_fn=`{code(args['model_fn'].node)}`: {self.why(r, 'a function')}",
                          args["model_fn"].node)
        if fn.bound:
            raise Blocked(CODE, f"model_fn=`{code(args['model_fn'].node)}` binds {', '.join(fn.bound)} with "
                                "functools.partial; not converted yet", args["model_fn"].node)
        factory = None
        if fn.file.scope_of(fn.node).kind != "module":
            factory = closure_factory(fn) or _same_function(fn, call, file)
            if factory is None:
                raise Blocked(CODE, f"model_fn `{fn.node.name.value}` is defined inside another function that does "
                                    "not simply return it; define it at module level or in a factory that ends "
                                    f"with `return {fn.node.name.value}`", fn.node)
        return fn, factory

    def _params(self, args: dict[str, Value], call: cst.Call, file: FileIndex, tpu) -> tuple[Value | None, str]:
        """The Estimator's params: (the value as written, its code where the Estimator is built)."""
        params_value = args.get("params")
        if params_value is not None and not is_literal(params_value.node, None):
            why: list = []
            params = self.program.render(params_value, call, file, why)
            if params is None:
                raise Blocked(CODE, f"params `{code(params_value.node)}` is not visible where the Estimator is "
                                    "built", params_value.node)
        else:
            params = "{}"
        if tpu is not None:  # what TPUEstimator added to the model_fn's copy of params on CPU
            params = tpu_rules.model_params(self, params, tpu, call, file)
        return params_value, params

    def warm_start(self, value: Value) -> tuple[dict[str, Value], list]:
        """Estimator(warm_start_from=path | WarmStartSettings(...)): what the generated loader needs."""
        r = self.program.resolve(value)
        node = r.node
        if r.ambiguous:
            raise Blocked(CODE, f"warm_start_from `{code(value.node)[:40]}`: {self.why(r, 'warm start')}", value.node)
        if isinstance(node, cst.IfExp) and (is_literal(node.body, None) or is_literal(node.orelse, None)):
            # `WarmStartSettings(...) if flag else None`: warm-start under the same condition
            settings, other = (node.orelse, node.body) if is_literal(node.body, None) else (node.body, node.orelse)
            found, trail = self.warm_start(Value(settings, r.value.file, r.value.env))
            found["if"] = Value(node.test, r.value.file, r.value.env)
            found["negate"] = other is node.body
            return found, trail + [b for b in r.trail if b.kind == "assign"]
        if isinstance(node, cst.IfExp):
            raise Blocked(CODE, "warm_start_from chosen between two settings by a condition is not converted yet",
                          value.node)
        if isinstance(node, cst.Call) and self.tf(node.func, r.value.file) == "estimator.WarmStartSettings":
            args = bind_values(node, WARM_START_ARGS, "WarmStartSettings", r.value.file, r.value.env)
            if "var_name_to_vocab_info" in args and not is_literal(args["var_name_to_vocab_info"].node, None):
                raise Blocked(CODE, "WarmStartSettings(var_name_to_vocab_info=...) is not converted: remapping "
                                    "vocabulary rows has no generated equivalent yet", args["var_name_to_vocab_info"].node)
            if "ckpt_to_initialize_from" not in args:
                raise Blocked(CODE, "WarmStartSettings without ckpt_to_initialize_from", node)
            if "vars_to_warm_start" in args and is_literal(args["vars_to_warm_start"].node, None):
                raise Blocked(CODE, "WarmStartSettings(vars_to_warm_start=None) warm-starts only vocabularies; not "
                                    "converted", args["vars_to_warm_start"].node)
            return ({k: v for k, v in args.items() if not is_literal(v.node, None)},
                    [b for b in r.trail if b.kind == "assign"])
        return {"ckpt_to_initialize_from": value}, []

    def why(self, r: Resolved, what: str) -> str:
        if r.ambiguous:
            lines = ", ".join(str(self.line(b.statement, b.scope.file)) for b in r.ambiguous)
            name = r.ambiguous[0].name
            values = [b.value for b in r.ambiguous if b.kind == "assign" and not b.unpack and b.value is not None]
            given = [v for v in values if not is_literal(v, None)]
            if what in _CHOSEN_OR_NONE and len(r.ambiguous) == len(values) == 2 and len(given) == 1:
                # `strategy = None` then `if flag: strategy = X()`: the conditional expression converts
                return (f"`{name}` can hold different values here (assigned at lines {lines}); assign it once, "
                        f"as `{name} = {_short(given[0])} if <condition> else None` (which tfmigrate converts)")
            kind = what.split(" ", 1)[1] if what.startswith(("a ", "an ")) else what  # "which Estimator it is"
            return f"`{name}` can hold different values here (assigned at lines {lines}); " \
                   f"assign it once so tfmigrate can tell which {kind} it is"
        if r.stopped_at is not None:
            name = code(r.stopped_at) if not isinstance(r.stopped_at, cst.Param) else r.stopped_at.name.value
            outside = self._imported_from_outside(r) or self._unfollowed_parameter(r, name, what)
            if outside:
                return outside
            return f"tfmigrate cannot follow `{name}` to {what} (a parameter with several callers, a global, or " \
                   "a name from a module outside the migrated files); pass the files that define it too"
        # `model.fn_gen(...)`, `net.model_fn` with `net = Net(...)`: made by a module the run does not hold
        root, file = r.node, r.value.file
        for _ in range(4):
            while isinstance(root, (cst.Attribute, cst.Call)):
                root = root.value if isinstance(root, cst.Attribute) else root.func
            if not isinstance(root, cst.Name):
                break
            rr = self.program.resolve(Value(root, file))
            outside = self._imported_from_outside(rr)
            if outside:
                return f"`{code(r.node)[:60]}` is not {what} tfmigrate can see: {outside}"
            if rr.stopped_at is not None or rr.node is root or not isinstance(rr.node, (cst.Attribute, cst.Call)):
                break
            root, file = rr.node, rr.value.file
        return f"`{code(r.node)[:60]}` is not {what} tfmigrate can see"

    def _unfollowed_parameter(self, r: Resolved, name: str, what: str) -> str | None:
        """A parameter of a def called nowhere in the run, or from several places: which, and what to do."""
        last = r.trail[-1] if r.trail else None
        if not isinstance(r.stopped_at, cst.Param) or last is None or last.node is not r.stopped_at \
                or last.kind != "param" or not isinstance(last.scope.node, cst.FunctionDef):
            return None
        fn = last.scope.node.name.value
        sites = self.program.call_sites(last.scope.node)
        if not sites and fn == "estimator_fn" and last.scope.parent is not None and last.scope.parent.kind == "module":
            return _sagemaker_entry(last.scope.node)
        if not sites:
            return (f"`{name}` is a parameter of `{fn}`, which is never called in the files given, so tfmigrate "
                    f"cannot see what `{name}` holds (it needs {what}); pass the file or package that calls `{fn}` in the same run, "
                    f"or build the value inside `{fn}`")
        if len(sites) > 1:
            lines = ", ".join(f"{f.path.rpartition('/')[2]}:{self.line(c, f)}" for c, f in sites[:4])
            return (f"`{name}` is a parameter of `{fn}`, which is called from {len(sites)} places ({lines}), so "
                    f"tfmigrate cannot tell what `{name}` holds (it needs {what}); build the value inside `{fn}`, or give `{fn}` one "
                    "caller")
        return None

    def _imported_from_outside(self, r: Resolved) -> str | None:
        """`from model.net import model_fn` of a module the run does not hold: the file to pass, or None."""
        last = r.trail[-1] if r.trail else None
        if r.stopped_at is None or last is None or last.node is not r.stopped_at or last.kind not in ("import", "from"):
            return None
        target = self.program.absolute(last.target, last.scope.file)
        module = target.rpartition(".")[0] if last.kind == "from" else target
        if not module:
            return None
        what = f"is imported from `{module}`" if last.kind == "from" else f"is the module `{module}`"
        if module.split(".")[0] in ("tensorflow", "tensorflow_estimator", "keras", "tf_keras"):
            # TensorFlow's own object where the program's was expected: often a positional argument in the
            # parameter before or after the one meant (EvalSpec's 4th is hooks, its 5th exporters)
            return (f"`{last.name}` {what}: a TensorFlow object stands where the program's own was expected; check "
                    "that each positional argument is in its parameter's place, or pass it by keyword")
        return (f"`{last.name}` {what}, which is not among the migrated files: "
                f"pass {module.replace('.', '/')}.py (or its package) to tfmigrate too")

    def line(self, node, file: FileIndex) -> int:
        from tfmigrate.engine import position_in

        return position_in(file.module, node)[0]

    def run_config(self, args: dict[str, Value], call: cst.Call, file: FileIndex, trail: list,
                   tpu: bool = False, unconverted: list | None = None) -> dict[str, Value]:
        """The kept RunConfig settings; one not converted is a blocker, added to `unconverted` (each one of them, the
        others still read), else raised."""
        config: dict[str, Value] = {}
        value = args.get("config")
        if tpu and (value is None or is_literal(value.node, None)):
            raise Blocked(CODE_KIND, "TPUEstimator without config: TF1 raised ValueError (`config` must be a "
                                     "tf.compat.v1.estimator.tpu.RunConfig)", call)
        if value is not None and not is_literal(value.node, None):
            config = self.config_values(value, trail, tpu=tpu)
        for key, v in list(config.items()):
            if key in RUN_CONFIG_DROPPED:
                self.notes.append((CODE, f"RunConfig({key}=...) dropped: {RUN_CONFIG_DROPPED[key]}", v.node))
                if key == "save_summary_steps":  # the custom loop of a model_fn with scalar summaries takes it back
                    self.summary_steps[id(call)] = v
                del config[key]
            elif key not in _KEPT_CONFIG:
                error = Blocked(CODE, f"RunConfig({key}=...) is not converted", v.node)
                if unconverted is None:
                    raise error
                unconverted.append(error)
                del config[key]
        if "model_dir" in args and not is_literal(args["model_dir"].node, None):
            config["model_dir"] = args["model_dir"]
        return config

    def config_values(self, value: Value, trail: list, tpu: bool = False) -> dict[str, Value]:
        """RunConfig keyword values, through names, helpers and `.replace(...)` chains."""
        r = self.program.resolve(value)
        node, file = r.node, r.value.file
        trail.extend(b for b in r.trail if b.kind in ("assign", "def"))
        if isinstance(file.parent(node), cst.Arg):  # `make_estimator(d, tf.estimator.RunConfig(...))`
            self.inline_args.append(node)
        if tpu and isinstance(node, cst.Call) and self.tf(node, file) in tpu_rules.RUN_CONFIGS:
            return tpu_rules.run_config(self, node, file, r.value.env, trail)
        if tpu and isinstance(node, cst.Call) and self.tf(node, file) == "estimator.RunConfig":
            raise Blocked(CODE_KIND, "TPUEstimator(config=tf.estimator.RunConfig(...)): TF1 raised ValueError "
                                     "(`config` must be a tf.compat.v1.estimator.tpu.RunConfig)", node)
        if isinstance(node, cst.Call) and self.tf(node, file) == "estimator.RunConfig":
            unknown = [a for a in node.args if a.keyword is not None and a.keyword.value not in RUN_CONFIG_ARGS]
            if unknown:  # RUN_CONFIG_ARGS is TF 2.15's whole signature
                raise Blocked(CODE, f"RunConfig has no argument '{unknown[0].keyword.value}': tf.estimator.RunConfig "
                                    "(TF 2.15) raises TypeError for it, so the original does not run there either; "
                                    "pass only RunConfig's arguments (a strategy goes in train_distribute=...)",
                              unknown[0])
            return bind_values(node, RUN_CONFIG_ARGS, "RunConfig", file, r.value.env)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "replace":
            base = self.config_values(Value(node.func.value, file, r.value.env), trail, tpu=tpu)
            base.update(bind_values(node, RUN_CONFIG_ARGS, "RunConfig.replace", file, r.value.env, keywords_only=True))
            return base
        if isinstance(node, cst.IfExp):
            # `a if test else b`: each setting is the same in both, or becomes `x if test else y`
            env = r.value.env
            a = self.config_values(Value(node.body, file, env), trail, tpu=tpu)
            b = self.config_values(Value(node.orelse, file, env), trail, tpu=tpu)
            out = {}
            for key in sorted(set(a) | set(b)):
                va, vb = a.get(key), b.get(key)
                if va is not None and vb is not None and va.node is vb.node:
                    out[key] = va
                    continue
                if key == "train_distribute":
                    raise Blocked(strategies.CODE, "a RunConfig whose train_distribute depends on a run-time "
                                                   "condition is not converted; choose the strategy in one "
                                                   "expression and pass it to one RunConfig", node)
                default = Value(cst.parse_expression(_CONFIG_DEFAULTS.get(key, "None")), file)
                out[key] = Choice(Value(node.test, file, env), va or default, vb or default, node)
            return out
        raise Blocked(CODE, f"config=`{code(value.node)}`: {self.why(r, 'a tf.estimator.RunConfig')}", value.node)

    def strategy_or_default(self, site: Site, errors: list) -> None:
        """The site's strategy; one not converted is a blocker added to `errors`, and the site is analysed on under
        the default strategy, to report its model_fn's and uses' blockers with this one."""
        try:
            self.strategy(site)
        except Blocked as blocked:
            errors.append(blocked)
            site.strategy_blocked = blocked.message
            site.strategy_value = site.strategy_binding = None
            site.original_kinds = strategies.original_kinds(None, lambda n: self.tf(n, site.file))
            site.strategy = strategies.convert(None, lambda n: self.tf(n, site.file))

    def strategy(self, site: Site) -> None:
        node = site.run_config.get("train_distribute")
        tf_of = (lambda n: self.tf(n, site.file))
        if node is None:
            plan_node, original = None, strategies.original_kinds(None, tf_of)
        else:
            r = self.program.resolve(node)
            tf_of = (lambda n, f=r.value.file: self.tf(n, f))
            plan_node = r.node
            if r.ambiguous:
                raise Blocked(strategies.CODE, f"train_distribute: {self.why(r, 'a strategy')}", node.node)
            original = strategies.original_kinds(plan_node, tf_of)
            binding = r.trail[-1] if r.trail and r.trail[-1].kind == "assign" and not r.trail[-1].unpack else None
            if binding is not None and binding.value is plan_node and isinstance(node.node, cst.Name):
                site.strategy_value, site.strategy_binding = node, binding
        site.original_kinds = original
        if self.options.strategy != "keep":
            site.strategy = strategies.from_option(self.options.strategy)
        elif plan_node is None:
            site.strategy = strategies.convert(None, tf_of)
        else:
            site.strategy = strategies.convert(plan_node, tf_of)

    # ---- what drives it --------------------------------------------------------------------------------------
    def _use(self, call: cst.Call, file: FileIndex, path: str | None) -> None:
        """A use of an Estimator (`path`: the call's TF path, `self.tf(call, file)`)."""
        if path in _WRAPPERS:  # `est = tf.estimator.add_metrics(est, metric_fn)`: the uses of its value are quiet
            wrapped = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "estimator"), None)
            inner = self.site_of(Value(wrapped, file)) if wrapped is not None else None
            if isinstance(inner, Site) or inner is not None and id(inner.node) in self._failed:
                raise Blocked(CODE, f"tf.{path}(`{code(wrapped)}`, ...) is not converted yet: {_WRAPPERS[path]}; "
                                    "tfmigrate converts the Estimator, not the one TensorFlow wraps it in", call)
        if path == "estimator.train_and_evaluate":
            args = bind_values(call, ["estimator", "train_spec", "eval_spec"], "train_and_evaluate", file)
            if "estimator" not in args or "train_spec" not in args or "eval_spec" not in args:
                raise Blocked(CODE, "train_and_evaluate needs estimator, train_spec and eval_spec", call)
            site = self.site_of(args["estimator"])
            if not isinstance(site, Site) and id(site.node) in self._failed:
                return
            if not isinstance(site, Site):
                raise Blocked(CODE, f"train_and_evaluate(`{code(args['estimator'].node)}`, ...): "
                                    f"{self.why(site, 'an Estimator')}", call)
            use = Use("train_and_evaluate", call, file, args["estimator"].node)
            errors = []  # the TrainSpec's, the EvalSpec's and the exporters' blockers, each reported
            try:
                use.train = self.spec(args["train_spec"], "TrainSpec", TRAIN_SPEC_ARGS, site)
            except Blocked as blocked:
                errors.append(blocked)
            try:
                use.evaluate = self.spec(args["eval_spec"], "EvalSpec", EVAL_SPEC_ARGS, site)
                exporters = use.evaluate.pop("exporters", None)
                if exporters is not None:  # (a BestExporter's check reads the TrainSpec's max_steps: not when blocked)
                    use.exporters = self.exporters(exporters, site, use.train.get("max_steps"), train_read=not errors)
            except Blocked as blocked:
                errors.append(blocked)
            if errors:
                raise Blocked.many(errors)
            site.uses.append(use)
            return
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _ESTIMATOR_METHODS):
            return
        site = self.site_of(Value(func.value, file))
        if not isinstance(site, Site):
            if any(self._holds_estimator(b) for b in site.ambiguous):
                # `if flag: est = LinearRegressor(...) else: est = Estimator(...)`, then `est.train(...)`: reported
                # at its first use; the others are not converted either, nor reported again
                key = tuple(sorted(id(b) for b in site.ambiguous))
                if key in self._ambiguous_reported:
                    self._failed.add(id(call))
                    return
                self._ambiguous_reported.add(key)
                raise Blocked(CODE, f"{func.attr.value}() on `{code(func.value)}`: {self.why(site, 'an Estimator')}",
                              call)
            return
        method = func.attr.value
        if site.tpu is not None and method not in ("train", "evaluate", "predict"):
            raise Blocked(CODE_KIND, f"estimator.{method}() of a TPUEstimator is not converted yet (train, evaluate, "
                                     "predict and train_and_evaluate are)", call)
        if method == "train":
            strategies.refuse_estimator_train(site.original_kinds, call)
            args = bind_values(call, TRAIN_ARGS, "train", file)
            if "saving_listeners" in args and not is_literal(args["saving_listeners"].node, None):
                raise Blocked(CODE, "train(saving_listeners=...) is not converted yet: run their code after the "
                                    "migrated training saves its checkpoints", args["saving_listeners"].node)
            stop = self.hooks(args["hooks"], site, "train") if "hooks" in args else {}
            steps = args.get("max_steps")
            if steps is None and "steps" in args:
                steps = Relative(args["steps"])
                if site.target != "keras" and resumes(site):
                    self.notes.append((CODE, "train(steps=N) converted as max_steps=N: the same on a fresh model_dir; "
                                             "the custom loop resumed from a checkpoint trains up to step N", call))
            if steps is not None and is_literal(steps.node, None):
                steps = None
            steps = _stop_at(steps, stop)
            if "input_fn" not in args:
                raise Blocked(CODE, "train() without input_fn", call)
            if steps is None:
                _until_end_of_input(site, call)
            if not isinstance(file.parent(call), cst.Expr):
                raise Blocked(CODE, "the value of estimator.train() (the Estimator itself) is used; not converted", call)
            train = {"input_fn": args["input_fn"]}
            if steps is not None:
                train["max_steps"] = steps
            for key in ("callbacks", "checkpoint"):
                if key in stop:
                    train[key] = stop[key]
            site.uses.append(Use("train", call, file, func.value, train=train))
        elif method == "evaluate":
            args = bind_values(call, EVALUATE_ARGS, "evaluate", file)
            if "hooks" in args:
                self.hooks(args.pop("hooks"), site, "evaluate")
            checkpoint = args.pop("checkpoint_path", None)
            if checkpoint is not None and is_literal(checkpoint.node, None):
                checkpoint = None
            extra = set(args) - {"input_fn", "steps", "name"}
            if extra:
                raise Blocked(CODE, f"evaluate({', '.join(sorted(extra))}=...) is not converted yet", call)
            if "input_fn" not in args:
                raise Blocked(CODE, "evaluate() without input_fn", call)
            use = Use("evaluate", call, file, func.value, evaluate=args)
            self._restore(site, use, checkpoint, "evaluate")
            site.uses.append(use)
        elif method == "predict":
            site.uses.append(self._predict(site, call, file, func.value))
        elif method in ("export_saved_model", "export_savedmodel"):
            site.uses.append(self._export(site, call, file, func.value, method))
        elif method == "experimental_export_all_saved_models":
            raise Blocked(CODE, f"estimator.{method}() is not converted yet: export the migrated model with "
                                "keras.export.ExportArchive, one endpoint per mode", call)
        else:
            raise Blocked(CODE, f"estimator.{method} is not converted", call)

    def _predict(self, site: Site, call: cst.Call, file: FileIndex, receiver) -> Use:
        """`est.predict(input_fn, ...)` after the Estimator trained in the same function: the Estimator restored
        the checkpoint training ended with, which are the weights the migrated model holds at that point."""
        args = bind_values(call, PREDICT_ARGS, "predict", file)
        if "input_fn" not in args:
            raise Blocked(CODE, "predict() without input_fn", call)
        if "hooks" in args:
            self.hooks(args.pop("hooks"), site, "predict")
        checkpoint = args.pop("checkpoint_path", None)
        if checkpoint is not None and is_literal(checkpoint.node, None):
            checkpoint = None
        if site.strategy is not None and site.strategy.parameter_server:
            raise Blocked(CODE, "predict() of an Estimator trained with parameter servers is not converted yet", call)
        use = Use("predict", call, file, receiver, predict=args)
        self._restore(site, use, checkpoint, "predict")
        return use

    def _export(self, site: Site, call: cst.Call, file: FileIndex, receiver, method: str) -> Use:
        """`est.export_saved_model(base, build_parsing_serving_input_receiver_fn(spec))` after training in the same
        function: the same serving signature (serialized tf.Example "examples" in, the PREDICT outputs out)."""
        args = bind_values(call, EXPORT_ARGS if method == "export_saved_model" else EXPORT_SAVEDMODEL_ARGS, method, file)
        for key in ("export_dir_base", "serving_input_receiver_fn"):
            if key not in args:
                raise Blocked(CODE, f"{method}() without {key}", call)
        for key, why in (("assets_extra", "copy the assets next to the export yourself"),
                         ("experimental_mode", "only the PREDICT graph is exported by the migrated model")):
            if key in args and not is_literal(args[key].node, None) and \
                    not (key == "experimental_mode" and self.tf(args[key].node, file) == "estimator.ModeKeys.PREDICT"):
                raise Blocked(CODE, f"{method}({key}=...) is not converted: {why}", args[key].node)
        if "as_text" in args and not is_literal(args["as_text"].node, False):
            raise Blocked(CODE, f"{method}(as_text=...) is not converted: the migrated SavedModel is binary",
                          args["as_text"].node)
        if site.strategy is not None and site.strategy.parameter_server:
            raise Blocked(CODE, f"{method}() of an Estimator trained with parameter servers is not converted yet", call)
        receiver_args = self.receiver(args["serving_input_receiver_fn"], site)
        export = {"export_dir_base": args["export_dir_base"], **receiver_args}
        use = Use("export", call, file, receiver, export=export)
        checkpoint = args.get("checkpoint_path")
        self._restore(site, use, None if checkpoint is None or is_literal(checkpoint.node, None) else checkpoint,
                      method)
        if use.restore and "receiver_fn" in receiver_args:
            raise Blocked(CODE, f"{method}() with a hand-written serving_input_receiver_fn and nothing trained before "
                                "it in the same function is not converted yet: the migrated model would have to be "
                                "built from the receiver's placeholders before it restores the checkpoint; train "
                                "first in this function, or use build_parsing_serving_input_receiver_fn", call)
        return use

    def _restore(self, site: Site, use: Use, checkpoint: Value | None, what: str) -> None:
        """predict / evaluate / export_saved_model restored a checkpoint first: `checkpoint_path` if given, else the
        latest in model_dir (none: predict/evaluate ran on freshly initialised variables, export raised). Right
        after training in the same function that is the weights the migrated model holds; otherwise the migrated
        model restores the same checkpoint (Model.restore_checkpoint), or the use is blocked saying why."""
        trained = _trained_before(site, use.call, use.file)
        if checkpoint is None and not _trained_before(site, use.call, use.file, lambda u: u.checkpoint is not None) \
                and _trained_before(site, use.call, use.file, lambda u: u.kind in ("train", "train_and_evaluate")
                                    or u.restore and use.kind != "export"):
            # trained, or model_dir's latest restored, earlier in this function (no checkpoint_path since); an
            # export restores again: without a checkpoint it raised where predict/evaluate went on
            return
        model_dir = site.run_config.get("model_dir")
        has_dir = model_dir is not None and not (isinstance(model_dir, Value) and is_literal(model_dir.node, None))
        where = "with nothing trained before it in the same function" if not trained else "with checkpoint_path"
        from . import keras_estimator

        if keras_estimator.is_keras(site):
            raise Blocked(CODE, f"estimator.{what}() of a model_to_estimator Estimator {where} is not converted yet: "
                                "the Estimator restored a checkpoint first; train first in this function", use.call)
        if site.strategy is not None and site.strategy.parameter_server:
            if not has_dir and checkpoint is None and use.kind == "evaluate":
                return
            raise Blocked(CODE, f"estimator.{what}() under parameter servers {where} is not converted yet", use.call)
        if site.warm_start:
            raise Blocked(CODE, f"estimator.{what}() of an Estimator with warm_start_from {where} is not converted "
                                "yet: without a checkpoint in model_dir the Estimator warm-started (predict/evaluate) "
                                "or exported the warm-start checkpoint; train first in this function", use.call)
        if not has_dir and checkpoint is None and site.config_known:
            if use.kind == "evaluate":
                return  # a fresh temporary model_dir: the Estimator evaluated its initialisation, as the model does
            raise Blocked(CODE, f"estimator.{what}() {where} is not converted: this Estimator has no model_dir, so "
                                "it read a checkpoint from the temporary directory of whatever training this Estimator "
                                "object did elsewhere, which tfmigrate cannot follow; give RunConfig(model_dir=...) "
                                "or train first in this function", use.call)
        if use.kind == "evaluate" and site.target != "keras":
            if checkpoint is not None:
                raise Blocked(CODE, "evaluate(checkpoint_path=...) is not converted for the custom training loop "
                                    "(its evaluate restores model_dir's latest checkpoint); use --target keras or "
                                    "evaluate model_dir's latest checkpoint", checkpoint.node)
            return  # the trainer's evaluate builds the model and restores model_dir's latest checkpoint (_build)
        use.restore, use.checkpoint = True, checkpoint

    def spec(self, value: Value, what: str, signature: list[str], site: Site) -> dict[str, Value]:
        r = self.program.resolve(value)
        node = r.node
        site.consumed.extend(b for b in r.trail if b.kind in ("assign", "def"))
        if not (isinstance(node, cst.Call) and self.tf(node, r.value.file) == f"estimator.{what}"):
            raise Blocked(CODE, f"{what} `{code(value.node)[:60]}`: {self.why(r, 'a tf.estimator.' + what)}", value.node)
        args = bind_values(node, signature, what, r.value.file, r.value.env)
        if "saving_listeners" in args and not is_literal(args["saving_listeners"].node, None) \
                and not _empty(args["saving_listeners"].node):
            raise Blocked(CODE, f"{what}(saving_listeners=...) is not converted yet: run their code after the "
                                "migrated training saves its checkpoints", args["saving_listeners"].node)
        hooks = args.pop("hooks", None)
        stop = self.hooks(hooks, site, "train" if what == "TrainSpec" else "evaluate") if hooks is not None else {}
        if "input_fn" not in args:
            raise Blocked(CODE, f"{what} without input_fn", node)
        if what == "TrainSpec":
            steps = args.pop("max_steps", None)
            steps = _stop_at(None if steps is None or is_literal(steps.node, None) else steps, stop)
            if steps is None:
                _until_end_of_input(site, node)
            else:
                args["max_steps"] = steps
            for key in ("callbacks", "checkpoint"):
                if key in stop:
                    args[key] = stop[key]
        return args

    def exporters(self, value: Value, site: Site, max_steps=None, train_read: bool = True) -> list:
        """EvalSpec(exporters=...): FinalExporter / LatestExporter (and a BestExporter when the final evaluation was
        the only one) export the model the final evaluation saw to model_dir/export/<name>/<timestamp>, as the
        Estimator's last export did."""
        if is_literal(value.node, None) or _empty(value.node):
            return []
        r = self.program.resolve(value)
        site.consumed.extend(b for b in r.trail if b.kind == "assign")
        items = [Value(e.value, r.value.file, r.value.env) for e in r.node.elements] \
            if isinstance(r.node, (cst.List, cst.Tuple)) else [value]
        if site.config_known and ("model_dir" not in site.run_config
                                  or is_literal(site.run_config["model_dir"].node, None)):
            raise Blocked(CODE, "EvalSpec exporters without a model_dir: the Estimator exported under a temporary "
                                "directory; give RunConfig(model_dir=...)", value.node)
        found, errors = [], []  # each exporter's blocker, at its own line
        for item in items:
            try:
                e = self.program.resolve(item)
                site.consumed.extend(b for b in e.trail if b.kind == "assign")
                node = e.node
                path = self.tf(node.func, e.value.file) if isinstance(node, cst.Call) else None
                kind = path.rsplit(".", 1)[-1] if path and path.startswith("estimator.") else None
                if kind not in ("FinalExporter", "LatestExporter", "BestExporter"):
                    raise Blocked(CODE, f"exporter `{code(item.node)[:60]}` is not converted: only FinalExporter, "
                                        "LatestExporter and BestExporter are", item.node)
                if kind == "BestExporter" and train_read:
                    why = self.evaluated_more_than_once(site, max_steps)
                    if why:
                        raise Blocked(CODE, f"BestExporter `{code(item.node)[:60]}` is not converted: the Estimator "
                                            "evaluated at the first checkpoint saved during training, then every "
                                            "throttle_secs, and after training, exporting whenever the loss improved; "
                                            "the migrated program evaluates once, after training. That is the same "
                                            "export only when the final evaluation was the only one: "
                                            "RunConfig(save_checkpoints_steps=N) with N >= max_steps, known at rewrite "
                                            f"time, one process ({why})", item.node)
                signature = {"LatestExporter": ["name", "serving_input_receiver_fn", "assets_extra", "as_text",
                                                "exports_to_keep"],
                             "BestExporter": ["name", "serving_input_receiver_fn", "event_file_pattern", "compare_fn",
                                              "assets_extra", "as_text", "exports_to_keep"]
                             }.get(kind, ["name", "serving_input_receiver_fn", "assets_extra", "as_text"])
                args = bind_values(node, signature, kind, e.value.file, e.value.env)
                if kind == "BestExporter":
                    args.setdefault("name", Value(cst.SimpleString('"best_exporter"'), e.value.file, e.value.env))
                    self.notes.append((CODE, "BestExporter: the Estimator's only evaluation was the final one "
                                             "(save_checkpoints_steps >= max_steps) and a BestExporter's first export "
                                             "is unconditional (compare_fn is not consulted), so it exported the "
                                             "trained model once, as the migrated program does", node))
                if "assets_extra" in args and not is_literal(args["assets_extra"].node, None):
                    raise Blocked(CODE, f"{kind}(assets_extra=...) is not converted", args["assets_extra"].node)
                if "as_text" in args and not is_literal(args["as_text"].node, False):
                    raise Blocked(CODE, f"{kind}(as_text=...) is not converted: the migrated SavedModel is binary",
                                  args["as_text"].node)
                if "name" not in args or "serving_input_receiver_fn" not in args:
                    raise Blocked(CODE, f"{kind} without name or serving_input_receiver_fn", node)
                receiver = self.receiver(args["serving_input_receiver_fn"], site)
                if kind == "LatestExporter":
                    self.notes.append((CODE, "LatestExporter: the migrated program evaluates once, after training, and "
                                             "exports that model (the last of the Estimator's exports); exports of "
                                             "evaluations during training are not made", node))
                found.append((args["name"], receiver))
            except Blocked as error:
                errors.append(error)
        if errors:
            raise Blocked.many(errors)
        return found

    def evaluated_more_than_once(self, site: Site, max_steps: Value | None) -> str | None:
        """Why train_and_evaluate may have evaluated before the end of training, or None when provably not: one
        process (a multi-worker job evaluated on its evaluator task every throttle_secs) and no checkpoint saved
        between the first one and the last (TF 2.15's listener skips the first save, evaluates at the next one
        whatever throttle_secs says, and at the end unless that step was just evaluated)."""
        if site.strategy is not None and site.strategy.kinds - {"default", "one-device", "mirrored"}:
            return "a multi-worker job evaluated on its evaluator task"
        if "save_checkpoints_steps" not in site.run_config:
            return "no save_checkpoints_steps: checkpoints every 600 s"
        if isinstance(max_steps, Least):  # min(max_steps, StopAtStepHook's last_step): N >= max_steps suffices
            max_steps = max_steps.first
        if max_steps is None or not isinstance(max_steps, Value):
            return "no plain TrainSpec max_steps"
        every = site.run_config["save_checkpoints_steps"]
        if not isinstance(every, Value):
            return "save_checkpoints_steps chosen by a condition"
        a, b = self.program.resolve(every), self.program.resolve(max_steps)
        try:
            if int(literal(a.node)) >= int(literal(b.node)):
                return None
            return f"save_checkpoints_steps={code(a.node)} < max_steps={code(b.node)}"
        except (ValueError, TypeError):
            pass
        if self.same_value(a, b):
            return None
        return f"save_checkpoints_steps={code(every.node)[:30]} and max_steps={code(max_steps.node)[:30]} are not " \
               "literals or one value"

    def same_value(self, a: Resolved, b: Resolved) -> bool:
        """Both expressions are one `name.attribute` (`args.steps`) of the same binding, never assigned to."""
        if a.node is b.node:
            return True
        node = a.node
        if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and code(node) == code(b.node)):
            return False
        found_a = self.program.lookup(node.value.value, node, a.value.file)
        found_b = self.program.lookup(node.value.value, b.node, b.value.file)
        if not (len(found_a) == len(found_b) == 1 and found_a[0] is found_b[0]):
            return False
        text = code(node)
        key = ("assign-targets", id(a.value.file))  # (one walk per file, however many values are compared)
        targets = self.program.cache.get(key)
        if targets is None or targets[0] is not a.value.file:
            targets = self.program.cache[key] = (a.value.file, _assign_targets(a.value.file.module))
        return not any(isinstance(t.target, cst.Attribute) and code(t.target) == text for t in targets[1])

    def receiver(self, value: Value, site: Site) -> dict:
        """serving_input_receiver_fn (rules/planners/receivers.py): build_parsing_serving_input_receiver_fn's arguments, or
        a hand-written receiver function ({"receiver_fn": its expression, "single_feature": ...})."""
        r = self.program.resolve(value)
        node = r.node
        path = self.tf(node.func, r.value.file) if isinstance(node, cst.Call) else None
        if path == receiver_rules.PARSING:
            receiver_args = bind_values(node, PARSING_RECEIVER_ARGS, "build_parsing_serving_input_receiver_fn",
                                        r.value.file, r.value.env)
            if "feature_spec" not in receiver_args:
                raise Blocked(CODE, "build_parsing_serving_input_receiver_fn() without feature_spec", node)
            site.consumed.extend(b for b in r.trail if b.kind == "assign")
            # a helper returning the receiver (`def serving_input_fn(): return build_parsing_...(spec)`) goes when
            # nothing else calls it: its feature_spec is rendered into the export
            site.removable.extend(b for b in r.trail if b.kind == "def")
            receiver_args["feature_spec"] = self._helper_local(receiver_args["feature_spec"], value)
            return receiver_args
        if path == receiver_rules.RAW:
            raw = bind_values(node, receiver_rules.RAW_ARGS, "build_raw_serving_input_receiver_fn", r.value.file,
                              r.value.env)
            if "features" not in raw:
                raise Blocked(CODE, "build_raw_serving_input_receiver_fn() without features", node)
            receiver_rules.check_raw_features(raw["features"].node, lambda n: self.tf(n, r.value.file))
            site.consumed.extend(b for b in r.trail if b.kind == "assign")
            return {"raw_features": raw["features"], **({"default_batch_size": raw["default_batch_size"]}
                                                          if "default_batch_size" in raw else {})}
        fn = self.program.function_of(value)
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            raise Blocked(CODE, f"serving_input_receiver_fn `{code(value.node)[:60]}`: "
                                f"{self.why(r, 'build_parsing_serving_input_receiver_fn(...) or a def returning ServingInputReceiver')}",
                          value.node)
        plan = site.receivers.get(id(fn.node)) or receiver_rules.handwritten(fn, value, self.tf)
        site.receivers[id(fn.node)] = plan
        return {"receiver_fn": value, "single_feature": plan.single_feature}

    def _helper_local(self, spec: Value, at: Value) -> Value:
        """A feature_spec that is a local of the helper building the receiver (`spec = {...}` or
        `spec = make_parse_example_spec(columns)` read once, by the receiver call): its value, rendered at the
        export instead of the name, which means nothing there. Anything else is kept as it is."""
        if not isinstance(spec.node, cst.Name):
            return spec
        found = self.program.lookup(spec.node.value, spec.node, spec.file)
        if len(found) != 1 or found[0].kind != "assign" or found[0].scope.kind != "function" \
                or found[0].scope is at.file.scope_of(at.node):
            return spec
        if len(spec.file.loads_of(self.program, found[0])) != 1:  # mutated or read elsewhere: not one value
            return spec
        r = self.program.resolve(spec)
        if r.ambiguous or isinstance(r.node, cst.Name):
            return spec
        return r.value if r.value.node is r.node else Value(r.node, r.value.file, r.value.env)

    def hooks(self, value: Value, site: Site, where: str) -> dict[str, Value]:
        """The hooks a list attaches: observing hooks are dropped with a note, StopAtStepHook gives the step
        training stops at ({"last_step": v} or {"num_steps": v}); every other hook blocks (rules/planners/hooks.py)."""
        if is_literal(value.node, None) or _empty(value.node):
            return {}
        r = self.program.resolve(value)
        if not isinstance(r.node, (cst.List, cst.Tuple)):
            raise Blocked(hook_rules.CODE, f"hooks `{code(value.node)[:60]}`: {self.why(r, 'a list of hooks')}",
                          value.node)
        trail = list(r.trail)
        stop: dict[str, Value] = {}
        callbacks: list[Value] = []  # SessionRunHook subclasses, converted to keras callbacks (Keras fit)
        errors: list[Blocked] = []  # each hook's blocker, at its own line
        for element in r.node.elements:
            try:
                if isinstance(element, cst.StarredElement):
                    raise Blocked(hook_rules.CODE, "a starred hook list is not converted", element)
                h = self.program.resolve(Value(element.value, r.value.file, r.value.env))
                trail.extend(h.trail)
                call = h.node
                kind = hook_rules.hook_kind(self.tf(call.func, h.value.file)) if isinstance(call, cst.Call) else None
                if kind == hook_rules.STEP_COUNTER and where == "train":
                    site.counters[id(call)] = self.step_counter(call, h.value, site)
                    callbacks.append(Value(call, h.value.file, h.value.env))
                elif kind == hook_rules.SUMMARY:
                    args = bind_values(call, hook_rules.SUMMARY_ARGS, "SummarySaverHook", h.value.file, h.value.env)
                    given = {k for k, v in args.items() if not is_literal(v.node, None)}
                    scaffold = args.get("scaffold")
                    scaffold_only = "summary_op" not in given and scaffold is not None \
                        and isinstance(scaffold.node, cst.Call) \
                        and self.tf(scaffold.node.func, h.value.file) == "train.Scaffold" and not scaffold.node.args
                    blocked, message = hook_rules.summary_outside(where, scaffold_only,
                                                                  len(given & {"summary_op", "scaffold"}))
                    if blocked:
                        raise Blocked(hook_rules.CODE, message, call)
                    if not any(n[2] is call for n in self.notes):
                        self.notes.append((hook_rules.CODE, message, call))
                elif kind in hook_rules.OBSERVING:
                    if not any(n[2] is call for n in self.notes):  # one note per hook, however often it is attached
                        self.notes.append((hook_rules.CODE, hook_rules.dropped_note(kind), call))
                elif kind == hook_rules.LOGGING and where != "train":
                    if not any(n[2] is call for n in self.notes):
                        self.notes.append((hook_rules.CODE, hook_rules.logging_eval_note(), call))
                elif kind == hook_rules.LOGGING:
                    try:
                        site.loggers[id(call)] = self.logging_hook(call, h.value, site)
                        site.logger_calls[id(call)] = call
                    except Blocked as error:  # it only logs: dropped with the note, the file still converts
                        if not hook_rules.is_logging_drop(error):
                            raise
                        self.drop_logger(site, call, error)
                        continue
                    callbacks.append(Value(call, h.value.file, h.value.env))
                elif kind == hook_rules.STOP and where == "train":
                    args = bind_values(call, ["num_steps", "last_step"], "StopAtStepHook", h.value.file, h.value.env)
                    given = {k: v for k, v in args.items() if not is_literal(v.node, None)}
                    if len(given) != 1 or "last_step" in stop or "num_steps" in stop:
                        raise Blocked(hook_rules.CODE, "StopAtStepHook is converted with exactly one of num_steps or "
                                                       "last_step, once per training", call)
                    stop = given
                    if "num_steps" in given:
                        stop = {"num_steps": Relative(given["num_steps"])}
                        if site.target != "keras" and resumes(site):
                            self.notes.append((hook_rules.CODE, "StopAtStepHook(num_steps=N) converted as N training "
                                                                "steps: the same on a fresh model_dir; the custom loop "
                                                                "resumed from a checkpoint trains up to step N", call))
                elif kind == hook_rules.SAVER and where == "train":
                    if "checkpoint" in stop:
                        raise Blocked(hook_rules.CODE, "a second CheckpointSaverHook on one training is not converted",
                                      call)
                    stop["checkpoint"] = self.saver_hook(call, h.value, site)
                elif kind is None and isinstance(call, cst.Call) and self._hook_class(call, h.value.file) is not None:
                    if where != "train":
                        raise Blocked(hook_rules.CODE, f"hook `{code(element.value)[:60]}` on {where}: a "
                                                       "SessionRunHook subclass is converted on training only (a "
                                                       "Keras callback's on_test_* methods run at other points than "
                                                       "the Estimator's evaluation hooks)", element.value)
                    plan = self._hook_class(call, h.value.file)
                    site.callback_plans[id(plan.cls)] = plan
                    # the instance as the program wrote it: a name holding it stays (the program may read it later)
                    callbacks.append(Value(element.value, r.value.file, r.value.env))
                    trail = trail[:len(trail) - len(h.trail)]
                else:
                    maker = self.tf(call.func, h.value.file) if isinstance(call, cst.Call) else None
                    if maker is not None:  # its reads of the Estimator are this report's (`stop_if_...(est, ...)`)
                        self._failed.add(id(call))
                    raise Blocked(hook_rules.CODE, hook_rules.blocked_message(kind, code(element.value), maker),
                                  element.value)
            except Blocked as error:
                errors.append(error)
        if errors:
            raise Blocked.many(errors)
        site.consumed.extend(b for b in trail if b.kind in ("assign", "def"))
        if callbacks:
            from . import canned

            if site.target != "keras" and (canned.is_canned(site) or site.strategy.parameter_server) \
                    and any(id(c.node) not in site.loggers and id(c.node) not in site.counters for c in callbacks):
                raise Blocked(hook_rules.CODE, f"hook `{code(callbacks[0].node)[:60]}`: a SessionRunHook subclass "
                                               "is converted to a keras.callbacks.Callback, called by Keras fit or by "
                                               "the custom loop of a model_fn Estimator; not by the canned or "
                                               "parameter-server training loop yet (use --target keras)",
                                   callbacks[0].node)
            stop["callbacks"] = callbacks
        return stop

    def drop_logger(self, site: Site, call: cst.CSTNode, error: Blocked) -> None:
        """A LoggingTensorHook on training tfmigrate cannot convert: dropped, its note at the hook's line."""
        site.loggers.pop(id(call), None)
        site.dropped_loggers.add(id(call))
        if not any(n[2] is call for n in self.notes):
            self.notes.append((hook_rules.CODE, error.message, call))

    def logging_hook(self, call: cst.Call, value: Value, site: Site) -> tuple[list, dict]:
        """`LoggingTensorHook(tensors, every_n_iter | every_n_secs[, formatter])` on training, its tensors named
        by strings: ([(tag, name, node)] in TF1's logging order, {argument: Value}); the names are looked up in the
        model_fn's plan (program.py); else Blocked saying what to do (rules/planners/hooks.py)."""
        from . import canned, keras_estimator

        args = bind_values(call, hook_rules.LOGGING_ARGS, "LoggingTensorHook", value.file, value.env,
                           rule=hook_rules.CODE)
        given = {k: v for k, v in args.items() if not is_literal(v.node, None)}
        if "at_end" in given and not is_literal(given["at_end"].node, False):
            raise Blocked(hook_rules.CODE, hook_rules.logging_dropped(
                "at_end=True ran the tensors once more after training, on a new batch of the input; drop at_end or "
                "log the last values with every_n_iter"), given["at_end"].node)
        if canned.is_canned(site) or keras_estimator.is_keras(site) or site.strategy.parameter_server:
            raise Blocked(hook_rules.CODE, hook_rules.logging_dropped(
                "converted for a model_fn Estimator (its tensors named in the model_fn), not for a canned or "
                "model_to_estimator Estimator or under parameter servers"), call)
        if "tensors" not in given:
            raise Blocked(hook_rules.CODE, hook_rules.logging_dropped("no tensors"), call)
        r = self.program.resolve(given["tensors"])
        tensors = r.node
        pairs = None
        if isinstance(tensors, cst.Dict) and all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                                                 for e in tensors.elements):
            pairs = sorted(((e.key.evaluated_value, e.value) for e in tensors.elements), key=lambda p: p[0])
        elif isinstance(tensors, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in tensors.elements):
            pairs = [(e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else None, e.value)
                     for e in tensors.elements]
        if pairs is None:
            raise Blocked(hook_rules.CODE, hook_rules.logging_dropped(
                "its tensors are converted as a dict literal {\"tag\": \"tensor name\"} or a list of tensor names"),
                tensors)
        named = []
        for tag, node in pairs:
            if not isinstance(node, cst.SimpleString):
                raise Blocked(hook_rules.CODE, hook_rules.logging_dropped(
                    f"`{code(node)[:40]}` is a tensor of the program outside the model_fn, which the migrated model "
                    "does not have; name the value with tf.identity(value, name=\"...\") in the model_fn and log "
                    "that name, or attach the hook in the model_fn's EstimatorSpec(training_hooks=[...])"), node)
            named.append((tag, node.evaluated_value, node))
        site.consumed.extend(b for b in r.trail if b.kind in ("assign", "def"))
        if not any(n[2] is call for n in self.notes):
            self.notes.append((hook_rules.CODE, hook_rules.logging_note("train hooks"), call))
        return named, {k: v for k, v in given.items() if k in ("every_n_iter", "every_n_secs", "formatter")}

    def step_counter(self, call: cst.Call, value: Value, site: Site) -> dict[str, Value]:
        """`StepCounterHook(every_n_steps | every_n_secs[, output_dir])` on training → {argument: Value} for the
        generated StepCounter (rules/planners/hooks.py); Blocked saying what to do."""
        from . import canned, keras_estimator

        args = bind_values(call, hook_rules.STEP_COUNTER_ARGS, "StepCounterHook", value.file, value.env,
                           rule=hook_rules.CODE)
        given = {k: v for k, v in args.items() if not is_literal(v.node, None)}
        if "summary_writer" in given:
            raise Blocked(hook_rules.CODE, hook_rules.STEP_COUNTER_WRITER, given["summary_writer"].node)
        if canned.is_canned(site) or keras_estimator.is_keras(site) or site.strategy.parameter_server:
            raise Blocked(hook_rules.CODE, "StepCounterHook is converted for a model_fn Estimator, not for a canned "
                                           "or model_to_estimator Estimator or under parameter servers; drop it (Keras "
                                           "reports the time per step)", call)
        if not any(n[2] is call for n in self.notes):
            self.notes.append((hook_rules.CODE, hook_rules.step_counter_note(), call))
        return given  # StepCounter has the hook's defaults (every_n_steps=100) and raises where it raised

    def saver_hook(self, call: cst.Call, value: Value, site: Site) -> dict[str, Value]:
        """`CheckpointSaverHook(checkpoint_dir, save_steps=N[, checkpoint_basename=...])` on training: the
        generated EstimatorCheckpoints writes to checkpoint_dir instead of model_dir, as the Estimator, which added
        no checkpoint saver of its own then (rules/planners/hooks.py); else Blocked saying what to do."""
        args = bind_values(call, hook_rules.SAVER_ARGS, "CheckpointSaverHook", value.file, value.env,
                           rule=hook_rules.CODE)
        given = {k: v for k, v in args.items() if not is_literal(v.node, None)}
        for key in ("saver", "scaffold", "listeners"):
            if key in given and not (key == "listeners" and _empty(given[key].node)):
                raise Blocked(hook_rules.CODE, hook_rules.saver_blocked(key), given[key].node)
        if "save_secs" in given:
            raise Blocked(hook_rules.CODE, hook_rules.saver_blocked("save_secs"), given["save_secs"].node)
        if "save_steps" not in given or "checkpoint_dir" not in given:
            raise Blocked(hook_rules.CODE, "CheckpointSaverHook is converted with checkpoint_dir and save_steps (TF1 "
                                           "raised without one of save_steps/save_secs)", call)
        if not writes_checkpoints(site) and not loop_writes_checkpoints(site):
            raise Blocked(hook_rules.CODE, hook_rules.saver_blocked("target"), call)
        if not any(n[2] is call for n in self.notes):
            self.notes.append((hook_rules.CODE, hook_rules.saver_note(site.target), call))
        return {k: v for k, v in given.items() if k in ("checkpoint_dir", "save_steps", "checkpoint_basename")}

    def _hook_class(self, call: cst.Call, file: FileIndex):
        """The CallbackPlan of `MyHook(...)` where MyHook is a SessionRunHook subclass of the program; None when
        the call is not one (Blocked when the class cannot be converted exactly, rules/planners/hooks.py)."""
        r = self.program.resolve(Value(call.func, file))
        cls = r.node
        if not (isinstance(cls, cst.ClassDef) and len(cls.bases) >= 1
                and any(self.tf(b.value, r.value.file) in hook_rules.SESSION_RUN_HOOK for b in cls.bases)):
            return None
        key = ("callback", id(cls))
        if key not in self.program.cache:
            for file in self.program.files:  # a subclass would keep overriding the old method names
                for scope in file.class_scopes.values():
                    other = scope.node
                    if any(self.program.resolve(Value(b.value, file)).node is cls for b in other.bases):
                        raise Blocked(hook_rules.CODE, f"hook class {cls.name.value} is converted only when no class "
                                                       f"of the program derives from it ({other.name.value} does: "
                                                       "its overrides would keep the SessionRunHook method names)",
                                      other)
            self.program.cache[key] = hook_rules.callback_plan(cls, r.value.file, self.tf)
        return self.program.cache[key]

    # ---- what goes away --------------------------------------------------------------------------------------
    def finish(self) -> None:
        """Decide which config/spec statements and helpers go, and check nothing else reads an Estimator."""
        for site in self.sites:
            self._guard(self._trains_once, site)
            for use in site.uses:
                for value in (use.train.get("input_fn"), use.evaluate.get("input_fn"), use.predict.get("input_fn")):
                    if value is not None:
                        self._guard(self._numpy_input, value, site)
        covered: set[int] = set()  # nodes whose subtree the conversion replaces or removes
        for site in self.sites:
            covered.add(id(site.call))
            for use in site.uses:
                covered.add(id(use.call))
        for node in self.inline_args:  # the helper's parameter now unread: it and the argument go
            if not self.program.file_of(node).inside(node, covered):
                self._dead_argument(node, covered)
        candidates = [b for site in self.sites for b in (*site.consumed, *site.removable)]
        # another file of the run importing a candidate (`from trainer.hooks import hooks`) reads it through that
        # import: the import is a candidate too, and the definition goes only if every import of it goes
        importers = self._importers(candidates, covered)
        candidates += [i for found in importers.values() for i in found if i.kind == "from"]
        # a receiver's feature_spec / features are rendered into the export: what they read stays
        # (`make_parse_example_spec(columns())` keeps the columns helper of a canned estimator)
        exported = {id(v.node) for site in self.sites for use in site.uses
                    for receiver in [use.export, *(r for _, r in use.exporters)]
                    for key in ("feature_spec", "raw_features") if isinstance(receiver.get(key), Value)
                    for v in [receiver[key]]}
        doomed: dict[int, Binding] = {}
        changed = True
        while changed:
            changed = False
            for b in candidates:
                if id(b) in doomed:
                    continue
                file = b.scope.file
                if b.kind == "def":
                    reads = [call for call, _ in self.program.call_sites(b.node)]
                    reads += [n for n in file.loads_of(self.program, b)
                              if not isinstance(file.parent(n), cst.Call) or file.parent(n).func is not n]
                else:
                    reads = file.loads_of(self.program, b)
                reads = [n for n in reads if not self.program.file_of(n).inside(n, covered)
                         or self.program.file_of(n).inside(n, exported)]
                reads = [n for n in reads if not self._dead_argument(n, covered)]
                reads += [i.node for i in importers.get(id(b), ()) if id(i) not in doomed]
                if not reads:
                    doomed[id(b)] = b
                    covered.add(id(b.statement))
                    changed = True
        self.deleted: list[tuple[cst.CSTNode, FileIndex]] = []
        self.dropped_imports: list[tuple[cst.ImportFrom, FileIndex, set[int]]] = []
        seen: set[int] = set()
        for b in doomed.values():
            stmt, file = b.statement, b.scope.file
            if id(stmt) in seen:
                continue
            if b.kind == "from":
                seen.add(id(stmt))
                self._drop_import(stmt, file, doomed)
                continue
            targets = statement_bindings(stmt, file)
            if all(id(t) in doomed for t in targets) and deletable(stmt):
                seen.add(id(stmt))
                self.deleted.append((stmt, file))
        gone = {id(s) for s, _ in self.deleted}
        optional = {id(b) for site in self.sites for b in site.removable} - {id(b) for site in self.sites for b in site.consumed}
        for b in doomed.values():
            if id(b.statement) not in gone and id(b) not in optional:
                self.errors.append(Blocked(CODE, f"`{b.name}` holds a TF1 {self._what(b)} and is still needed by "
                                                 "other code on this line; split the statement", b.statement))
        consumed = {id(b): b for site in self.sites for b in site.consumed}
        for b in consumed.values():
            if id(b) in doomed:
                continue
            file = b.scope.file
            # a read in the statement that rebinds the name (`config = config.replace(...)`) is the chain: the later
            # binding's own stray reads are reported, not this one again
            chained = {id(c.statement) for c in consumed.values() if c.name == b.name and c is not b}
            # a read inside a call already reported (train_and_evaluate blocked by its EvalSpec), or at a node a
            # blocker names (the BestExporter in EvalSpec(exporters=[...])), is that blocker's
            reported = {id(x.node) for e in self.errors for x in e.errors if x.node is not None}
            stray = [n for n in file.loads_of(self.program, b)
                     if not self.program.file_of(n).inside(n, covered | gone | self._failed | reported | chained)]
            if stray and self._holds_reported(b):
                continue  # its own statement holds a reported blocker (an exporter not converted): reads follow it
            if stray:
                self.errors.append(Blocked(CODE, f"`{b.name}` (a TF1 {self._what(b)}) is also used here, in a way "
                                                 "tfmigrate does not convert: the conversion replaces the statement "
                                                 f"that builds it (line {self.line(b.statement, file)}); keep what "
                                                 "this code needs in a variable of its own, or delete this use",
                                           stray[0]))
        for site in self.sites:
            self._guard(self._holders, site, covered | gone | self._failed)
        for site in {id(s.model_fn.node): s for s in self.sites
                     if s.factory is None and isinstance(s.model_fn.node, cst.FunctionDef)}.values():
            self._guard(self._model_fn_reads, site, covered | gone | self._failed)
        for plan in {key: plan for site in self.sites for key, plan in site.receivers.items()}.values():
            self._guard(self._receiver_reads, plan, covered | gone)

    def _holds_reported(self, b: Binding) -> bool:
        """A blocker already reported names a node of `b`'s statement."""
        statement = {id(b.statement)}
        return any(x.node is not None and self.program.file_of(x.node) is b.scope.file
                   and b.scope.file.inside(x.node, statement) for e in self.errors for x in e.errors)

    def _model_fn_reads(self, site: Site, covered: set[int]) -> None:
        """The model_fn's def becomes the model's builder: its name read anywhere but in the converted Estimator
        calls (and the `fn = model_fn` aliases that go with them) would read a name that is gone."""
        fn = site.model_fn
        name, module = fn.node.name.value, fn.file.module_name
        binding = next((b for b in fn.file.top.bindings.get(name, []) if b.node is fn.node), None)
        if binding is None:
            return
        reads = list(fn.file.loads_of(self.program, binding))
        for other, i, target in self._imports() if module else ():
            if other is fn.file:
                continue
            if i.kind == "from" and target == f"{module}.{name}":
                reads += other.loads_of(self.program, i)
                continue
            if target != module and not module.startswith(target + "."):
                continue
            path = [*module[len(target):].split(".")[1:], name]  # `trainer` + model.model_fn
            for load in other.loads_of(self.program, i):
                node = load
                for attr in path:
                    parent = other.parent(node)
                    if not (isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value == attr):
                        node = None
                        break
                    node = parent
                if node is not None:
                    reads.append(node)
        stray = [n for n in reads if not self.program.file_of(n).inside(n, covered | {id(fn.node)})]
        if stray:
            raise Blocked(CODE, f"model_fn `{name}` becomes the converted model's builder, but is also used here, "
                                "which is not converted; pass it only to the Estimator", stray[0])

    def _imports(self):
        """(file, binding, absolute target) of every `import` / `from` binding of the program, in any scope."""
        for file in self.program.files:
            for scope in [file.top, *file.function_scopes.values()]:
                for bindings in scope.bindings.values():
                    for i in bindings:
                        if i.kind in ("import", "from"):
                            yield file, i, self.program.absolute(i.target, file)

    def _what(self, b: Binding) -> str:
        return "model_fn alias" if id(b) in self.model_fn_aliases else _what(b)

    def _importers(self, candidates: list[Binding], covered: set[int]) -> dict[int, list[Binding]]:
        """{id(module-level candidate): the bindings of other files that import it}: `from m import name [as x]`
        (a candidate too) and `import m` / `from pkg import m` read as `m.name` outside the converted code (an
        attribute read that keeps it; `hooks=w.watch_hooks` in a converted call goes with the call)."""
        wanted = {(b.scope.file.module_name, b.name): b for b in candidates
                  if b.scope.kind == "module" and b.scope.file.module_name and b.kind != "from"}
        found: dict[int, list[Binding]] = {}
        if not wanted:
            return found
        for file, i, target in self._imports():
            module, _, name = target.rpartition(".")
            b = wanted.get((module, name)) if i.kind == "from" else None
            if b is not None and b.scope.file is not file:
                found.setdefault(id(b), []).append(i)
                continue
            for (m, n), b in wanted.items():  # `mod.name` through an import of the module
                if m == target and b.scope.file is not file and any(
                        isinstance(file.parent(load), cst.Attribute) and file.parent(load).value is load
                        and file.parent(load).attr.value == n and not file.inside(load, covered)
                        for load in file.loads_of(self.program, i)):
                    found.setdefault(id(b), []).append(i)
        return found

    def _drop_import(self, stmt, file: FileIndex, doomed: dict[int, Binding]) -> None:
        """`from m import a, b`: the doomed names go; the statement goes when none is left."""
        line = file.parent(stmt) if not isinstance(stmt, cst.SimpleStatementLine) else stmt
        node = stmt if isinstance(stmt, cst.ImportFrom) else next(
            (s for s in getattr(stmt, "body", ()) if isinstance(s, cst.ImportFrom)), None)
        if node is None or isinstance(node.names, cst.ImportStar):
            return
        scope_bindings = [b for b in doomed.values() if b.kind == "from" and b.statement is stmt]
        gone = {id(b.node) for b in scope_bindings}
        if all(id(alias) in gone for alias in node.names) and isinstance(line, cst.SimpleStatementLine) \
                and len(line.body) == 1:
            self.deleted.append((line, file))
        else:
            self.dropped_imports.append((node, file, gone))

    def _numpy_input(self, value: Value, site: Site) -> None:
        """An input_fn that is a numpy_input_fn(...) call: checked here, its statement goes with the Estimator."""
        if self.program.function_of(value) is not None:
            return
        r = self.program.resolve(value)
        if isinstance(r.node, cst.Call) and self.tf(r.node.func, r.value.file) == numpy_inputs.NUMPY:
            # the original's own strategy (TF1 refused queue-based input under one); --strategy may add one later
            note = numpy_inputs.check(r.node, r.value.file, r.value.env,
                                      not (site.original_kinds or set()) - {"default", "one-device"})
            if note and not any(n[2] is r.node for n in self.notes):  # one note per numpy_input_fn call
                self.notes.append((numpy_inputs.CODE, note, r.node))
            site.consumed.extend(b for b in r.trail if b.kind in ("assign", "def"))  # a helper that returned it too

    def _receiver_reads(self, plan, covered: set[int]) -> None:
        """A hand-written receiver now returns (features, receiver_tensors): nothing else may read it."""
        for b in plan.fn.trail:
            if b.kind != "def":
                continue
            stray = [n for n in b.scope.file.loads_of(self.program, b)
                     if not self.program.file_of(n).inside(n, covered)]
            if stray:
                raise Blocked(CODE, f"serving_input_receiver_fn `{b.name}` is also used here; the migrated function "
                                    "returns (features, receiver_tensors) instead of a ServingInputReceiver, so only "
                                    "exports may use it (give this use its own function)", stray[0])

    def _trains_once(self, site: Site) -> None:
        """Each Estimator training call continued from the global step the previous one reached (max_steps is
        absolute, steps relative, the checkpoint in model_dir carries the step over); the migrated fit / train
        calls do not carry it over yet, so an Estimator that trains more than once is not converted."""
        training = [u for u in site.uses if u.kind in ("train", "train_and_evaluate")]
        if len(training) > 1:
            raise Blocked(CODE, f"this Estimator trains {len(training)} times (lines "
                                f"{', '.join(str(self.line(u.call, u.file)) for u in training)}); each call went on "
                                "from the global step the previous one reached, which the migrated training does not "
                                "carry over yet: train once, to the final max_steps", training[1].call)
        for use in training:
            node = use.file.parent(use.call)
            while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.Module)):
                if isinstance(node, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
                    raise Blocked(CODE, "training inside a loop: each Estimator call went on from the global step "
                                        "the previous one reached, which the migrated training does not carry over "
                                        "yet; train once, to the final max_steps", use.call)
                node = use.file.parent(node)

    def _dead_argument(self, name: cst.CSTNode, covered: set[int]) -> bool:
        """`helper(config, ...)` where helper reads its parameter only in converted code: the parameter and the
        argument at every call site go (they would pass a value that no longer exists)."""
        file = self.program.file_of(name)
        arg = file.parent(name)
        call = file.parent(arg) if isinstance(arg, cst.Arg) and arg.value is name else None
        if not isinstance(call, cst.Call) or arg.star:
            return False
        fn = self.program.callee(Value(call.func, file), 0)
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            return False
        param = next((p for p in fn.params if self.program.argument_for(call, fn, p) is name), None)
        scope = fn.file.function_scopes[id(fn.node)]
        binding = next((b for b in scope.bindings.get(param or "", []) if b.kind == "param"), None)
        if binding is None or any(not fn.file.inside(n, covered) for n in fn.file.loads_of(self.program, binding)):
            return False
        sites = self.program.call_sites(fn.node)
        args = []
        for site_call, site_file in sites:
            a = self.program.argument_for(site_call, fn, param)
            if a is None or any(x.star for x in site_call.args):
                return False
            args.append((site_call, site_file, a))
        for site_call, site_file, a in args:
            covered.add(id(a))
            self.dropped_args.append((site_call, site_file, a))
        self.dropped_params.append((fn.node, fn.file, param))
        return True

    def _one_returned(self, fn, file: FileIndex) -> bool:
        """A helper returning one of several Estimators (`if model_type == "wide": return LinearClassifier(...)`):
        which one its caller drives is chosen at run time; reported once, at the helper."""
        built = {id(s.call) for s in self.sites}
        returns = [r.value for r in file.function_scopes[id(fn)].returns if id(r.value) in built] if fn else []
        if len(returns) < 2:
            return False
        lines = ", ".join(str(self.line(r, file)) for r in returns)
        message = (f"`{fn.name.value}` returns one of {len(returns)} Estimators (lines {lines}), chosen at run time: "
                   "tfmigrate converts the Estimator a name holds, one per name; build the one this program trains "
                   "(or each, under its own name and function) and drive it")
        if not any(x.message == message for e in self.errors for x in e.errors):
            raise Blocked(CODE, message, fn)
        return True  # reported with another of its Estimators

    def _holders(self, site: Site, covered: set[int]) -> None:
        """Every read of a variable holding this Estimator must be a converted use (or pass it on)."""
        handled = {id(use.receiver) for use in site.uses}
        todo: list[tuple[cst.CSTNode, FileIndex]] = [(site.call, site.file)]
        seen: set[int] = set()
        while todo:
            expr, file = todo.pop()
            if id(expr) in seen:
                continue
            seen.add(id(expr))
            parent = file.parent(expr)
            stmt = file.statement_of(expr)
            if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, cst.Name):
                scope = file.scope_of(parent.targets[0].target)
                for b in scope.bindings.get(parent.targets[0].target.value, []):
                    if b.node is parent.targets[0].target:
                        for read in file.loads_of(self.program, b):
                            if id(read) in handled or file.inside(read, covered - {id(site.call)}):
                                continue
                            todo.append((read, file))
                continue
            if isinstance(parent, cst.Return):
                fn = file.enclosing_function(expr)
                if self._one_returned(fn, file):
                    return
                if isinstance(fn, cst.FunctionDef) and fn.name.value == "estimator_fn" \
                        and file.scope_of(fn).kind == "module" and not self.program.call_sites(fn):
                    raise Blocked(CODE, _sagemaker_entry(fn), fn)
                callers = self.program.call_sites(fn) if fn is not None else []
                if isinstance(fn, cst.FunctionDef) and not callers:
                    self.uncalled_builders[id(site.call)] = (fn, file)
                for call, caller in callers:
                    todo.append((call, caller))
                continue
            if expr is site.call and isinstance(parent, (cst.Expr,)):
                continue
            if isinstance(parent, cst.Arg) and isinstance(file.parent(parent), cst.Call):
                call = file.parent(parent)
                fn = self.program.callee(Value(call.func, file), 0) if not isinstance(call.func, cst.Lambda) else None
                if fn is not None and isinstance(fn.node, cst.FunctionDef):
                    name = next((p for p in fn.params if self.program.argument_for(call, fn, p) is expr), None)
                    scope = fn.file.function_scopes[id(fn.node)]
                    for b in scope.bindings.get(name or "", []):
                        if b.kind == "param":
                            for read in fn.file.loads_of(self.program, b):
                                if id(read) not in handled:
                                    todo.append((read, fn.file))
                    continue
            if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, cst.Attribute):
                # `self.classifier = tf.estimator.LinearRegressor(...)`: driven through the attribute elsewhere
                target = code(parent.targets[0].target)
                fn = file.enclosing_function(expr)
                owner = file.scope_of(fn).node if fn is not None else None
                where = (f" in {type(owner).__name__ == 'ClassDef' and f'class `{owner.name.value}`' or 'this file'}"
                         if owner is not None else "")
                raise Blocked(CODE, f"the Estimator is stored in the attribute `{target}`{where}: tfmigrate follows "
                                    "an Estimator through local and module-level names and function arguments, not "
                                    "object attributes, so the train/evaluate/predict calls made on the attribute "
                                    "(in other methods) cannot be converted with it; assign it to a local name and "
                                    "drive it from the same function (or a function it is passed to)", expr)
            if expr is site.call:
                raise Blocked(CODE, "the Estimator is used right where it is built, in a way tfmigrate does not "
                                    "convert; assign it to a name first", expr)
            raise Blocked(CODE, f"`{code(expr)}` (an Estimator) is used here in a way tfmigrate does not convert "
                                "(only train / evaluate / train_and_evaluate / predict are converted yet)", stmt or expr)


def _short(node) -> str:
    """An expression for a message: a call as `f(...)` when its arguments make it long."""
    text = code(node)
    if len(text) > 50 and isinstance(node, cst.Call):
        return f"{code(node.func)[:50]}(...)"
    return text[:50]


def _sagemaker_entry(fn: cst.FunctionDef) -> str:
    """SageMaker's legacy TensorFlow container calls a module's estimator_fn(run_config, params) itself, with its
    train_input_fn(training_dir, params) / serving_input_fn(params), and drives the Estimator it returns: no file
    of the program does, and a Keras model returned in its place would break the container's calls."""
    params = ", ".join(p.name.value for p in fn.params.params)
    return (f"`{fn.name.value}({params})` is the entry point of SageMaker's legacy TensorFlow container (it calls "
            "estimator_fn, train_input_fn, eval_input_fn and serving_input_fn itself and drives the Estimator "
            "returned), so no file of the program drives this Estimator; make it a script-mode training script "
            "(build the Estimator, train and export it under `if __name__ == \"__main__\":`) and run tfmigrate on "
            "that script")


def _method_model_fn(value: Value) -> str | None:
    """The message for `Estimator(self.model_fn, ...)` in a method: the model_fn is a method looked up on the object
    at run time (a subclass's override), which tfmigrate does not follow; None for other expressions."""
    node, file = value.node, value.file
    if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"):
        return None
    fn = file.enclosing_function(node)
    cls = file.parent(fn) if fn is not None else None
    if isinstance(cls, cst.IndentedBlock):
        cls = file.parent(cls)
    if not isinstance(cls, cst.ClassDef):
        return None
    name, owner = node.attr.value, cls.name.value
    found = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
    head = f"model_fn=`self.{name}` is a method of the object, looked up at run time"
    how = ("tfmigrate converts a model_fn that is a function (module level, or returned by a factory); pass the "
           "Estimator that function, or run tfmigrate on a program that does")
    if found is None:
        return f"{head}: class `{owner}` does not define `{name}` (a subclass or the object's owner does); {how}"
    body = [s for s in found.body.body if not _docstring_statement(s)]
    abstract = len(body) == 1 and (
        isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], (cst.Raise, cst.Pass))
        or isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, cst.Ellipsis))
    if abstract:
        return (f"{head}: `{owner}.{name}` only raises (or passes), so the model_fn that trains is a subclass's "
                f"override, chosen by the object's class; {how}")
    return f"{head} (`{owner}.{name}`, which a subclass may override); {how}"


def _docstring_statement(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _trained_before(site: Site, call: cst.Call, file: FileIndex, which=None) -> bool:
    """predict/export/evaluate read the checkpoint training ended with: the migrated model holds those weights
    right after it trained, earlier in the same function (an unconditional call before this one). `which(use)`:
    other earlier uses to look for (default: training)."""
    def running(node):  # a comprehension runs where it stands: its enclosing scope
        scope = file.scope_of(node)
        while scope.kind == "comprehension":
            scope = scope.parent
        return scope

    order, block, scope = file.orders[id(call)], file.blocks[id(call)], running(call)
    which = which or (lambda u: u.kind in ("train", "train_and_evaluate"))
    trained = [u for u in site.uses if which(u) and u.file is file
               and running(u.call) is scope and file.orders[id(u.call)] < order
               and block[:len(file.blocks[id(u.call)])] == file.blocks[id(u.call)]]
    return bool(trained)


def resumes(site: Site) -> bool:
    """The Estimator resumed from the latest checkpoint in its model_dir (one was given): the migrated program
    restores it too (restore_model_dir: its own TF2 checkpoint, else the Estimator's TF1 one by name; a canned model
    by the names its estimator gave the variables). model_to_estimator models and parameter servers keep today's
    restore of their own checkpoints only."""
    model_dir = site.run_config.get("model_dir")
    if model_dir is None or (isinstance(model_dir, Value) and is_literal(model_dir.node, None)):
        return False
    if site.strategy is not None and site.strategy.parameter_server:
        return False
    from . import keras_estimator

    return not keras_estimator.is_keras(site)


def loop_writes_checkpoints(site: Site) -> bool:
    """Custom loop target, a model_fn Estimator resuming from its model_dir (not canned, not parameter servers):
    the generated trainer writes the Estimator's checkpoints, or a CheckpointSaverHook's (rules/planners/hooks.py)."""
    from . import canned

    return site.target != "keras" and resumes(site) and not canned.is_canned(site)


def training_calls(analysis: Analysis, file: FileIndex) -> list[cst.Call]:
    """The calls of `file` that train an Estimator on the Keras target (each becomes a fit whose callbacks end with
    the generated NanLossCheck)."""
    return [u.call for s in analysis.sites if s.target == "keras" for u in s.uses if u.file is file and u.train]


def writes_checkpoints(site: Site) -> bool:
    """Keras target, a model_fn or canned Estimator resuming from its model_dir: the generated EstimatorCheckpoints
    callback writes the Estimator's checkpoints (steps, names, how many kept) instead of a BackupAndRestore backup.
    Canned models too, now that they name the layers they hold in lists and restore_model_dir builds the optimizer
    before reading its slots (tests/fixtures_run/test_canned_model_dir.py: a canned program resuming its own
    model.ckpt-<step> matches the Estimator step for step, DNN and wide & deep). model_to_estimator fits too
    (keras_resumes)."""
    return site.target == "keras" and (resumes(site) or keras_resumes(site))


def keras_resumes(site: Site) -> bool:
    """A model_to_estimator Estimator with a model_dir: its fit writes the Estimator's checkpoints (measured on TF
    2.15: model.ckpt-<step> at the first step, every save_checkpoints_steps after the last save and at the last step,
    keep_checkpoint_max kept, as a model_fn Estimator's) with EstimatorCheckpoints, and the generated
    `restore_model_dir(model, model_dir)` resumes from the newest of them (tests/fixtures_run/
    test_model_to_estimator_checkpoints.py); a checkpoint the Estimator itself wrote is not read (an error)."""
    from . import keras_estimator

    model_dir = site.run_config.get("model_dir")
    return keras_estimator.is_keras(site) and model_dir is not None and not (
        isinstance(model_dir, Value) and is_literal(model_dir.node, None))


def _what(b: Binding) -> str:
    return "config/spec value" if b.kind != "def" else "config/spec helper"


def _without_aliases(imp: cst.ImportFrom, original: tuple, gone: set[int]) -> cst.ImportFrom:
    """The import without the aliases whose original node is in `gone` (positions match the original's)."""
    kept = [new for old, new in zip(original, imp.names) if id(old) not in gone]
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return imp.with_changes(names=kept)


def _import_instead(imp: cst.ImportFrom, original: tuple, alias: cst.ImportAlias, names: tuple) -> cst.ImportFrom:
    """`from m import a, model_fn, b` with `names` in the place of the alias (positions match the original's)."""
    kept = []
    for old, new in zip(original, imp.names):
        if old is alias:
            kept += [cst.ImportAlias(name=cst.Name(n), comma=new.comma) for n in names]
        else:
            kept.append(new)
    kept = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in kept[:-1]] + \
        [kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return imp.with_changes(names=kept)


def closure_factory(fn: FunctionRef):
    """(factory def, its return statement) when `fn` is a def nested in a factory whose only return is
    `return <fn>`: the model is then built inside the factory, where the closure's names are."""
    scope = fn.file.scope_of(fn.node)
    if scope.kind != "function" or scope.parent is None:
        return None
    returns = scope.returns
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Name) or returns[0].value.value != fn.node.name.value:
        return None
    if fn.file.scope_of(scope.node).kind != "module" and fn.file.scope_of(scope.node).kind != "class":
        return None
    return scope.node, returns[0]


def _stop_at(steps: Value | None, stop: dict[str, Value]):
    """max_steps combined with a StopAtStepHook: training ended at whichever came first."""
    hook = stop.get("last_step") or stop.get("num_steps")
    if hook is None:
        return steps
    if steps is None:
        return hook
    return Least(steps, hook, steps.node)


def _until_end_of_input(site: Site, node) -> None:
    """Training without max_steps ran until the input_fn's data ended (forever on a repeated dataset): one Keras
    epoch over the same data does the same; the custom loop trains until its distributed iterator ends. Under
    MultiWorkerMirroredStrategy every worker reads its own shard and the Estimator's workers stopped together only
    when the shards gave the same number of batches (a shorter one stopped and the others waited in the next
    all-reduce); the distributed iterator ends when every worker's shard has ended, so equal shards give the same
    steps. Parameter servers: each worker ended on its own, asynchronously; not converted."""
    if site.strategy is not None and site.strategy.parameter_server:
        raise Blocked(CODE, "training without max_steps runs until the input data ends; under parameter servers "
                            "each worker ended on its own, which the coordinator's scheduled steps do not "
                            "reproduce: give max_steps", node)


def until_end_of_input(sites) -> bool:
    """Some training of these Estimators has no max_steps: the custom loop must stop where the input ends."""
    return any(use.train and "max_steps" not in use.train for site in sites for use in site.uses)


def _same_function(fn: FunctionRef, call: cst.Call, file: FileIndex):
    """(enclosing def, None) when the model_fn is defined in the function that also builds the Estimator (at any
    depth below it): the model is built there, under the name the builder gets."""
    outer = fn.file.scope_of(fn.node)
    if fn.file is not file or outer.kind != "function":
        return None
    scope = file.scope_of(call)
    while scope is not None and scope is not outer:
        scope = scope.parent
    if scope is None or file.orders.get(id(fn.node), 0) > file.orders.get(id(call), 0):
        return None
    return outer.node, None


def _explicit_self(call: cst.Call) -> bool:
    """`tf.estimator.Estimator.__init__(self, ...)` passes self; `super().__init__(...)` does not."""
    return not (isinstance(call.func.value, cst.Call) and isinstance(call.func.value.func, cst.Name)
                and call.func.value.func.value == "super")


def _names(signature: list[str]) -> str:
    """`a`, `b`, `c`: a signature's parameters, `self` left out."""
    return ", ".join(f"`{n}`" for n in signature if n != "self")


def _empty(node) -> bool:
    return isinstance(node, (cst.List, cst.Tuple)) and not node.elements


class Emitter:
    """The edits of one file: Estimator expressions, their uses, strategy assignments, removed statements."""

    def __init__(self, analysis: Analysis, file: FileIndex, builders: dict[int, str], plans: dict[int, object]):
        self.analysis, self.program, self.file = analysis, analysis.program, file
        self.builders, self.plans = builders, plans  # by id(model_fn def)
        self.notes = analysis.notes
        # `from model import model_fn` of the Estimator's model_fn: the names this file imports instead, by id(alias)
        self.by_name: dict[int, tuple[cst.ImportFrom, cst.ImportAlias, list[str]]] = {}

    def render(self, value, at: cst.CSTNode, what: str) -> str:
        if isinstance(value, Choice):
            return (f"{self.render(value.body, at, what)} if {self.render(value.test, at, what)} "
                    f"else {self.render(value.orelse, at, what)}")
        if isinstance(value, Least):
            return f"min({self.render(value.first, at, what)}, {self.render(value.second, at, what)})"
        if isinstance(value, Relative):
            text = self.render(value.value, at, what)
            return f"{self.start} + {text}" if getattr(self, "start", None) else text
        why: list = []
        text = self.program.render(value, at, self.file, why, rewrite=self.mode_key)
        if text is None:
            name = why[0].value if why else code(value.node)
            here = self.program.lookup(name, why[0], value.file) if why else []
            rebound = list(value.file.top.bindings.get(name, ())) if all(b.scope is value.file.top
                                                                          for b in here) else []
            reason = (f"it is bound at lines {', '.join(str(self.analysis.line(b.statement, value.file)) for b in rebound)}"
                      " of this module; give each its own name" if len(rebound) > 1 else
                      "it is local to another function; pass the value explicitly or build it where the Estimator "
                      "is used")
            node, where = value.node, ""
            if value.file is not self.file and self.program.file_of(at) is self.file:
                # needed by this file's converted code (main.py's train of helpers' Estimator): reported here, where
                # this file blocks, naming where the value is written
                node, where = at, f" (written at {value.file.path}:{self.analysis.line(value.node, value.file)})"
            raise Blocked(CODE, f"{what} `{code(value.node)[:60]}`{where} uses `{name}`, which does not mean the same "
                                f"where the converted code needs it ({reason})", node)
        return text

    def mode_key(self, attribute: cst.Attribute, file: FileIndex) -> str | None:
        """`tf.estimator.ModeKeys.X` in code the conversion moves → the string it always was."""
        if attribute.attr.value in ("TRAIN", "EVAL", "PREDICT"):
            return MODE_KEYS.get(self.analysis.tf(attribute, file))
        return None

    def edits(self, edits) -> None:
        self.keras_support(edits)
        self.nan_support(edits)
        for site in self.analysis.sites:
            if site.file is self.file:
                self.site(site, edits)
            for use in site.uses:
                if use.file is self.file:
                    self.use(site, use, edits)
            if site.strategy_binding is not None and site.strategy_binding.scope.file is self.file:
                edits.replace(site.strategy_binding.value, self.strategy_expression(site))
        callback_plans = {key: plan for site in self.analysis.sites for key, plan in site.callback_plans.items()}
        for plan in callback_plans.values():
            if plan.file is self.file:
                hook_rules.callback_edits(plan, edits)
        receivers = {key: plan for site in self.analysis.sites for key, plan in site.receivers.items()}
        for plan in receivers.values():
            if plan.file is self.file:
                receiver_rules.edits(plan, edits)
        for stmt, file in self.analysis.deleted:
            if file is self.file:
                edits.delete(stmt)
        for node, file, gone in self.analysis.dropped_imports:
            if file is self.file:
                edits.transform(node, lambda imp, gone=gone, names=node.names: _without_aliases(imp, names, gone))
        for fn, file, param in {(id(f), p): (f, fl, p) for f, fl, p in self.analysis.dropped_params}.values():
            if file is self.file:
                edits.transform(fn.params, lambda params, p=param: _drop_param(params, p))
        for call, file, value in self.analysis.dropped_args:
            if file is self.file:
                edits.transform(call, lambda c, v=code(value): _drop_arg(c, v))
        for statement, alias, names in self.by_name.values():
            edits.transform(statement, lambda imp, a=alias, n=tuple(names), old=statement.names:
                            _import_instead(imp, old, a, n))

    def strategy_expression(self, site: Site) -> str:
        plan = self.plans[id(site.model_fn.node)]
        if plan.partitioner is not None and site.strategy.parameter_server:
            call = strategies.PS_EXPRESSION
            return site.strategy.expression.replace(call, call[:-1] + "VARIABLE_PARTITIONER)")
        return site.strategy.expression

    def builder(self, site: Site) -> str:
        name = self.builders[id(site.model_fn.node)]
        if site.factory is not None and site.factory[1] is None:  # defined in the function that builds it
            return name
        if site.factory is not None:  # the factory now returns the builder: call what the program wrote
            text = self.render(Value(site.model_fn_expr, site.file), site.call, "model_fn")
            return text if isinstance(site.model_fn_expr, (cst.Name, cst.Attribute, cst.Call)) else f"({text})"
        if site.model_fn.file is site.file:
            return name
        expr = site.model_fn_expr
        if isinstance(expr, cst.Attribute):
            return f"{code(expr.value)}.{name}"
        alias = self.program.module_alias(site.model_fn.file, site.call, site.file)
        if alias is not None:  # `fn = trainer.model.model_fn` / `from m import model_fn` beside `import m`
            return f"{alias}.{name}"
        if self.import_by_name(site, name):
            return name
        raise Blocked(CODE, f"model_fn `{code(expr)}` is imported by name from {site.model_fn.file.path}; use "
                            "`import module` and `module.model_fn` so the migrated builder can be reached", expr)

    def support_name(self, site: Site, name: str, at: cst.CSTNode) -> str:
        """A class keras_build.py.j2 writes next to the model's builder (EstimatorCheckpoints, NanLossCheck), as
        this file reaches it: `module.Name` when the model_fn is `module.model_fn` of another file, or when the
        Estimator built in another file is used here (`helpers.make_estimator()` trained in main.py: through
        `import helpers` at `at`, the use; blocked there without such an import)."""
        if site.model_fn.file is self.file:
            return name
        if site.file is not self.file:
            alias = self.program.module_alias(site.model_fn.file, at, self.file)
            if alias is None:
                module = site.model_fn.file.module_name or "module"
                raise Blocked(CODE, f"the Estimator of {site.file.path} is used here, but the generated {name} next "
                                    f"to its model in {site.model_fn.file.path} cannot be reached from here; "
                                    f"add `import {module}` to this file (a module import, not `from ... import`)", at)
            return f"{alias}.{name}"
        expr = site.model_fn_expr
        if isinstance(expr, cst.Call):  # a factory of another module: `module.make_model_fn(...)`
            expr = expr.func
        if isinstance(expr, cst.Attribute):
            return f"{code(expr.value)}.{name}"
        alias = self.program.module_alias(site.model_fn.file, at, self.file)
        if alias is not None:
            return f"{alias}.{name}"
        if self.import_by_name(site, name):
            return name
        raise Blocked(CODE, f"model_fn `{code(site.model_fn_expr)[:40]}` of {site.model_fn.file.path}: the generated "
                            f"{name} there cannot be reached from here; use `import module` and `module.model_fn`",
                      site.model_fn_expr)

    def import_by_name(self, site: Site, name: str) -> bool:
        """`from model import model_fn` (at module level) names the Estimator's model_fn: the import takes `name` (the
        builder, a support class) in its place. False when the model_fn is reached otherwise, or `name` is taken here."""
        expr = site.model_fn_expr
        if site.file is not self.file or not isinstance(expr, cst.Name) or not site.model_fn.file.module_name:
            return False
        found = self.program.lookup(expr.value, expr, self.file)
        if not found and self.file.star_imports:
            # `from model_fn import *` as the file's last star import: the builder and support classes the conversion
            # puts at the top of that module come with it
            last = self.program.absolute(self.file.star_imports[-1], self.file)
            return (site.model_fn.file.module_name == last and not name.startswith("_") and name not in self.file.names
                    and self.program.star_member(expr.value, self.file) is not None)
        if len(found) != 1 or found[0].kind != "from" or found[0].scope.kind != "module" or \
                not isinstance(found[0].node, cst.ImportAlias) or self.program.absolute(found[0].target, self.file) \
                != f"{site.model_fn.file.module_name}.{site.model_fn.node.name.value}":
            return False
        alias = found[0].node
        entry = self.by_name.get(id(alias))
        if entry is not None and name in entry[2]:
            return True
        if name in self.file.names:
            return False
        stmt = found[0].statement
        statement = next((s for s in ([stmt] if isinstance(stmt, cst.ImportFrom) else getattr(stmt, "body", ()))
                          if isinstance(s, cst.ImportFrom) and not isinstance(s.names, cst.ImportStar)
                          and any(a is alias for a in s.names)), None)
        if statement is None:
            return False
        self.by_name.setdefault(id(alias), (statement, alias, []))[2].append(name)
        return True

    def support_anchor(self, nodes: list[cst.CSTNode], after_imports: bool = True) -> cst.CSTNode:
        """The module-level statement generated support code goes above: the first one holding any of `nodes`, or,
        when that is not a def or class (code at module level) and after_imports, the first statement after the
        imports."""
        anchors = []
        for node in nodes:
            while not isinstance(self.file.parent(node), cst.Module):
                node = self.file.parent(node)
            anchors.append(node)
        anchor = min(anchors, key=lambda a: self.file.orders.get(id(a), 0))
        if after_imports and not isinstance(anchor, (cst.FunctionDef, cst.ClassDef)):  # right after the imports
            anchor = next((stmt for stmt in self.file.module.body if not _import_or_docstring(stmt)), anchor)
        return anchor

    def keras_support(self, edits) -> None:
        """model_to_estimator: the generated optimizer class and global_step metric above the module-level statement
        that compiles the model, whose optimizer becomes the one that runs the legacy update; the input adapter
        above the first statement that trains or evaluates such an Estimator (the model may live in another file)."""
        from . import keras_estimator

        sites = [s for s in self.analysis.sites if keras_estimator.is_keras(s)]
        compiled = [s for s in sites if s.model_fn.compile_file is self.file]
        fed = [s for s in sites if any(u.file is self.file for u in s.uses)]
        if not compiled and not fed:
            return
        nodes = [s.model_fn.compile_call for s in compiled] + [u.call for s in fed for u in s.uses
                                                                 if u.file is self.file]
        checkpoints = []
        if any(keras_resumes(s) for s in fed):  # the Estimator's checkpoints, written and read back by the fit
            from ..emit.assembly import support

            checkpoints = [support(name) for name in ("estimator_checkpoints.py.j2", "restore_model_dir.py.j2")]
        statements = [edits.module_statement(text, [cst.EmptyLine(), cst.EmptyLine()])
                      for text in keras_estimator.support(compiled, fed, checkpoints)]
        edits.insert_statements_above(self.support_anchor(nodes), statements)
        for s in compiled:
            edits.replace(s.model_fn.compile_call, keras_estimator.compile_text(s.model_fn))

    def nan_support(self, edits) -> None:
        """Keras target: the NanLossCheck callback class (templates/nan_loss_check.py.j2), once, above the first
        module-level statement of this file that trains an Estimator: every Estimator's training raised
        NanLossDuringTrainingError after the first step whose loss was NaN (rules/planners/hooks.py)."""
        from ..emit.assembly import support

        nodes = training_calls(self.analysis, self.file)
        if not nodes:
            return
        text = support("nan_loss_check.py.j2")
        # right above the statement that trains: the class needs nothing the module binds before it (after the
        # imports could be above a `tf = tf.compat.v1` the conversion rewrites)
        edits.insert_statements_above(self.support_anchor(nodes, after_imports=False), [
            edits.module_statement(text, [cst.EmptyLine(), cst.EmptyLine()])])

    # ---- the Estimator expression ----------------------------------------------------------------------------
    def site(self, site: Site, edits) -> None:
        from . import keras_estimator

        stmt = site.statement
        if not isinstance(stmt, cst.SimpleStatementLine):
            raise Blocked(CODE, "an Estimator built in the header of a compound statement is not converted; "
                                "assign it to a name first", site.call)
        lines = []
        if site.tpu is not None:
            check = tpu_rules.guard(site.tpu, lambda v: self.render(v, site.call, "use_tpu"))
            if check is not None:
                lines.append(check)
        seed = site.run_config.get("tf_random_seed")
        if seed is not None and not is_literal(seed.node, None):
            lines.append(f"keras.utils.set_random_seed({self.render(seed, site.call, 'tf_random_seed')})")
        if keras_estimator.is_keras(site):  # the Estimator was the compiled model, built already: the model itself
            self.uncalled_note(site, None)
            edits.replace(site.call, self.render(site.model_fn.model, site.call, "keras_model"))
            if lines:  # the Estimator seeded its graphs' ops (dropout, shuffles) from here on
                edits.insert_before(stmt, lines)
            return
        visible = site.strategy_value is not None and \
            self.program.render(site.strategy_value, site.call, self.file) is not None
        if visible:
            strategy_name = self.render(site.strategy_value, site.call, "train_distribute")
        elif site.strategy_binding is not None:
            # built where the Estimator cannot see it (a config helper's local): build it again here
            self.render(Value(site.strategy_binding.value, site.strategy_binding.scope.file), site.call,
                        "train_distribute")
            strategy_name = self.free_name("strategy", site.call)
            lines.append(f"{strategy_name} = {self.strategy_expression(site)}")
        else:
            strategy_name = self.free_name("strategy", site.call)
            lines.append(f"{strategy_name} = {self.strategy_expression(site)}")
        builder = self.builder(site)
        self.uncalled_note(site, builder)
        if site.target == "keras":
            for key, why in (("keep_checkpoint_max", "BackupAndRestore keeps the latest checkpoint only"),
                             ("log_step_count_steps", "Keras prints its own progress")):
                if key == "keep_checkpoint_max" and writes_checkpoints(site):
                    continue  # EstimatorCheckpoints keeps as many
                if key in site.run_config:
                    self.notes.append((CODE, f"RunConfig({key}=...) dropped: {why}", site.run_config[key].node))
            edits.replace(site.call, f"{builder}({site.params})")
            build = self.build_at_site(site)
            after = [build] if build else []
            if site.warm_start and build is not None:  # else with the build before the first fit
                after.append(self.warm_start_text(site, _assigned_name(stmt, site.call), site.call))
            edits.wrap(stmt, f"with {strategy_name}.scope():", after)
        else:
            kwargs = [f"{k}={self.render(site.run_config[k], site.call, 'RunConfig(' + k + ')')}" for k in
                      ("model_dir", "save_checkpoints_steps", "keep_checkpoint_max", "log_step_count_steps")
                      if k in site.run_config]
            summary_steps = self.analysis.summary_steps.get(id(site.call))
            if (summary_steps is not None and not site.strategy.parameter_server
                    and getattr(self.plans.get(id(site.model_fn.node)), "summaries", None)):
                # the loop writes the model_fn's scalar summaries every save_summary_steps: no longer dropped
                kwargs.append(f"save_summary_steps={self.render(summary_steps, site.call, 'RunConfig(save_summary_steps)')}")
                self.notes[:] = [n for n in self.notes if n[2] is not summary_steps.node]
            if site.warm_start:
                warm = self.warm_start_text(site, "model", site.call)
                if "\n" in warm:  # conditional: pass the loader only when the Estimator warm-started
                    test, call = warm.split("\n", 1)
                    warm = f"(lambda model: {' '.join(call.split())}) {test.removesuffix(':')} else None"
                else:
                    warm = f"lambda model: {' '.join(warm.split())}"
                kwargs.append(f"warm_start={warm}")
            edits.replace(site.call, wrap_call(f"{builder}({', '.join([strategy_name, site.params, *kwargs])})", "", width=80))
        if lines:
            edits.insert_before(stmt, lines)

    def uncalled_note(self, site: Site, builder: str | None) -> None:
        """A def returning this Estimator that nothing in the run calls (`def build_estimator(model_dir)`) returns
        the converted model now: callers outside the run calling train/evaluate(input_fn=...) on it would break.
        The note says what it returns and how the conversion drives it where a caller is in the run. `builder`: the
        model's builder as called here (None for model_to_estimator's Keras model)."""
        from . import canned, keras_estimator

        found = self.analysis.uncalled_builders.get(id(site.call))
        if found is None:
            return
        fn, _ = found
        if builder is None:
            now = "the compiled Keras model it was built from"
            self.notes[:] = [(n[0], keras_estimator.UNTRAINED_CHECKPOINT_NOTE, n[2])
                             if n[2] is site.call and n[0] == keras_estimator.CODE else n for n in self.notes]
        elif site.target == "keras":
            now = f"the compiled Keras model that `{builder}(...)` builds"
        else:
            now = f"the custom-training-loop trainer `{builder}(...)`"
        after = "; or run tfmigrate on them together with this file"
        if site.target == "keras" and writes_checkpoints(site) and builder is not None and not canned.is_canned(site):
            # a model_fn's module holds EstimatorCheckpoints and Model.restore_model_dir whatever drives it
            how = ("`model.fit(dataset, epochs=1, steps_per_epoch=max_steps - initial_step, "
                   "callbacks=[EstimatorCheckpoints(model_dir)])` after `initial_step = "
                   "model.restore_model_dir(model_dir, model.optimizer)` (its variables built first, by calling it "
                   "on a batch) to resume from model_dir, and evaluate it with "
                   "`model.evaluate(dataset, steps=steps, return_dict=True)`")
        elif site.target == "keras":
            how = ("`model.fit(dataset, epochs=1, steps_per_epoch=max_steps)` and evaluate it with "
                   "`model.evaluate(dataset, steps=steps, return_dict=True)`")
            if writes_checkpoints(site):  # generated only for a training call tfmigrate converts
                after = ("; to write and resume from model_dir's checkpoints as the Estimator did, run tfmigrate "
                         "on the callers together with this file (it generates EstimatorCheckpoints and "
                         "restore_model_dir only for training calls it converts)")
        else:
            how = ("`trainer.train(lambda input_context: dataset, max_steps=max_steps)` and evaluate it with "
                   "`trainer.evaluate(lambda input_context: dataset, steps=steps)`")
        name = fn.name.value
        self.notes.append((CODE, f"`{name}` returned an Estimator and now returns {now}; nothing in this run calls "
                                 f"it: callers elsewhere must train it with {how}, the dataset being what the input_fn "
                                 f"returned, not with train/evaluate(input_fn=...){after}", fn.name))

    def warm_start_text(self, site: Site, holder: str, at: cst.CSTNode) -> str:
        """The Estimator initialised these variables from the TF1 checkpoint before training (a checkpoint in
        model_dir still won: so does BackupAndRestore's, restored by fit). Written as it reads at `at`."""
        ws = site.warm_start
        args = [self.render(ws["ckpt_to_initialize_from"], at, "warm_start_from")]
        for key in ("vars_to_warm_start", "var_name_to_prev_var_name"):
            if key in ws:
                args.append(f"{key}={self.render(ws[key], at, key)}")
        if "if" not in ws:
            return wrap_call(f"{holder}.warm_start_from_tf1({', '.join(args)})", "", width=88)
        test = self.render(ws["if"], at, "warm_start_from")
        call = wrap_call(f"{holder}.warm_start_from_tf1({', '.join(args)})", "", width=84)
        return f"if {'not ' if ws['negate'] else ''}{test if _is_atom_text(ws['if'].node) else f'({test})'}:\n" + \
            "\n".join("    " + line for line in call.splitlines())

    def build_at_site(self, site: Site) -> str | None:
        """`est(next(iter(data))[0])` right where the model is built, when the training data is visible there:
        the variables (TF1 names) exist before fit, so BackupAndRestore can restore them."""
        holder = _assigned_name(site.statement, site.call)
        sample = self.first_input(site)
        if holder is None or sample is None:
            return None
        try:
            data = self.keras_data(sample[0], site, site.call, sample[1], holder)
        except Blocked:
            return None
        return f"{holder}({_first_replica(holder, f'next(iter({data}))[0]', site)})"

    def build_before_fit(self, site: Site, use: Use, edits) -> None:
        """Otherwise the first fit builds it first, under the strategy the model was created in."""
        if self.build_at_site(site) is not None or use is not next((u for u in site.uses if u.train), None):
            return
        receiver = code(use.receiver)
        data = self.keras_data(use.train["input_fn"], site, use.call, "train", receiver)
        warm = [textwrap.indent(self.warm_start_text(site, receiver, use.call), "    ")] if site.warm_start else []
        edits.insert_before(self.file.statement_of(use.call), [
            f"with {receiver}.distribute_strategy.scope():  # build the variables before model_dir is restored",
            f"    {receiver}({_first_replica(receiver, f'next(iter({data}))[0]', site)})", *warm])

    def free_name(self, base: str, at: cst.CSTNode) -> str:
        name, n = base, 1
        while self.program.lookup(name, at, self.file) or name in self.file.loads:
            n += 1
            name = f"{base}_{n}"
        return name

    def first_input(self, site: Site):
        for use in site.uses:
            if use.train:
                return use.train["input_fn"], "train"
        return None

    # ---- input functions -------------------------------------------------------------------------------------
    def dataset_fn(self, value: Value, site: Site, at: cst.CSTNode, mode: str) -> tuple[str, bool]:
        """(code of a `dataset_fn(input_context)` at `at`, whether it shards by input_context).

        For mode "infer" (predict), code of the dataset itself: the Estimator passed no input_context there."""
        node = value.node
        infer = mode == "infer"
        if site.tpu is not None:
            ref = self.program.function_of(value)
            if ref is None or isinstance(ref.node, cst.Lambda) or "params" not in ref.params or "params" in ref.bound:
                raise Blocked(CODE_KIND, f"input_fn `{code(node)[:40]}` of a TPUEstimator does not take `params`: TF1 "
                                         "raised ValueError (TPUEstimator passes the batch size as "
                                         "params[\"batch_size\"])", node)
        if isinstance(node, cst.Lambda):
            p = node.params
            if isinstance(p.star_arg, cst.Param) or p.kwonly_params or p.star_kwarg:
                raise Blocked(CODE, "an input_fn lambda with *args/keyword-only parameters is not converted", node)
            names = [x.name.value for x in p.params]
            body = self.render(Value(node.body, value.file, value.env), at, "input_fn")
            if not names:
                return (body, False) if infer else (f"lambda input_context: {body}", False)
            if names == ["input_context"] and not infer:
                return f"lambda input_context: {body}", True
            raise Blocked(CODE, "an input_fn lambda may take only input_context (the Estimator passed params/"
                                "mode/config by name)", node)
        fn = self.program.function_of(value)
        if fn is None:
            r = self.program.resolve(value)
            path = self.analysis.tf(r.node, r.value.file) if isinstance(r.node, cst.Call) else None
            if path == numpy_inputs.NUMPY:  # checked by the analysis (Analysis._numpy_input)
                args = numpy_inputs.arguments(r.node, r.value.file, r.value.env)
                dataset = numpy_inputs.dataset_text(
                    args, lambda v, what: self.render(v, at, what))
                return (dataset, False) if infer else (f"lambda input_context: {dataset}", False)
            if path == numpy_inputs.PANDAS:
                raise Blocked(CODE, f"tf.{path} {numpy_inputs.PANDAS_TODO}", r.node.func)  # as in its own file
            if path and path.startswith("estimator.inputs."):
                raise Blocked(CODE, f"tf.{path} is not converted: its queue-based shuffling has no exact TF2 "
                                    "equivalent; build a tf.data.Dataset (from_tensor_slices) input_fn", r.node)
            raise Blocked(CODE, f"input_fn `{code(node)[:60]}`: {self.analysis.why(r, 'an input function')}", node)
        text = self.render(value, at, "input_fn")
        params = [p for p in fn.params if p not in fn.bound]
        defaults = _defaults(fn.node)
        kwargs = []
        for p in params:
            if p == "input_context" and infer:
                if p not in defaults:
                    raise Blocked(CODE, f"input_fn `{code(node)[:40]}` for predict takes input_context without a "
                                        "default; the Estimator called it without one", node)
            elif p == "input_context":
                kwargs.append("input_context=input_context")
            elif p == "params":
                params = "{}" if site.params_value is None else self.render(site.params_value, at, 'params')
                if site.tpu is not None:  # TPUEstimator put the mode's batch size in the input_fn's params
                    batch = site.tpu.batch.get(mode)
                    params = tpu_rules.input_params(
                        params, None if batch is None else self.render(batch, at, f"the {mode} batch size"))
                kwargs.append(f"params={params}")
            elif p == "mode":
                kwargs.append(f"mode={_MODES[mode]}")
            elif p == "config":
                raise Blocked(CODE, f"input_fn `{code(node)[:40]}` takes config (the Estimator's RunConfig), which "
                                    "has no TF2 object; read what it needs from flags or params", node)
            elif p not in defaults:
                raise Blocked(CODE, f"input_fn `{code(node)[:40]}` has a parameter `{p}` the Estimator would not "
                                    "pass", node)
        if infer:
            return f"{_callable(text, node)}({', '.join(kwargs)})", False
        shards = "input_context" in params
        if params == ["input_context"] and not fn.bound and _is_atom_text(node):
            return text, True
        if not kwargs:
            return f"lambda input_context: {_callable(text, node)}()", False
        kwargs = [k for k in kwargs if k != "input_context=input_context"] + \
            (["input_context=input_context"] if shards else [])
        return f"lambda input_context: {_callable(text, node)}({', '.join(kwargs)})", shards

    def keras_data(self, value: Value, site: Site, at: cst.CSTNode, mode: str, model: str) -> str:
        """The dataset fit/evaluate reads; under a multi-replica strategy, distributed by the strategy the model
        was built under (`model.distribute_strategy`: the program's strategy variable may not be visible here)."""
        dataset_fn, _ = self.dataset_fn(value, site, at, mode)
        from . import keras_estimator

        if keras_estimator.is_keras(site):  # dict features → the model's inputs by name, as model_to_estimator did
            data = dataset_fn[len("lambda input_context: "):] if dataset_fn.startswith("lambda input_context: ") \
                else f"{dataset_fn}()"
            return f"model_to_estimator_inputs({model}, {data})"
        if site.strategy.kinds <= {"default", "one-device"}:
            if dataset_fn.startswith("lambda input_context: "):
                return dataset_fn[len("lambda input_context: "):]
            return f"{dataset_fn}()"
        return f"{model}.distribute_strategy.distribute_datasets_from_function({dataset_fn})"

    # ---- what drives it --------------------------------------------------------------------------------------
    def hook_item(self, hook: Value, site: Site, at, receiver: str | None = None) -> str | None:
        """A callback of train(hooks=) / TrainSpec(hooks=): a SessionRunHook subclass's instance (now a keras
        callback) as written, a LoggingTensorHook as the generated TensorLogger of the keys its names have in the
        model's logged_tensors (program.py looked them up), None for a LoggingTensorHook dropped with a note."""
        if id(hook.node) in site.counters:
            args = [f"{k}={self.render(v, at, 'StepCounterHook(' + k + ')')}"
                    for k, v in site.counters[id(hook.node)].items()]
            return f"{self.support_name(site, 'StepCounter', at)}({', '.join([*args, f'step=lambda: {receiver}.optimizer.iterations'])})"
        if id(hook.node) in site.dropped_loggers:
            return None
        if id(hook.node) not in site.loggers:
            return self.render(hook, at, "hook")
        named, args = site.loggers[id(hook.node)]
        plan = self.plans.get(id(site.model_fn.node))
        keys = dict(getattr(plan, "logged", ()))
        items = []
        for tag, name, node in named:
            from .model_fn import logged_name_key

            key = logged_name_key(name, getattr(plan, "named_tensors", {}))
            if key is None or key[0] not in keys:
                raise Blocked(hook_rules.CODE, hook_rules.logging_name_dropped(name), node)
            items.append(f"({json.dumps(tag)}, {json.dumps(key[0])})")
        text = [f"[{', '.join(items)}]"]
        text += [f"{k}={self.render(v, at, 'LoggingTensorHook(' + k + ')')}" for k, v in args.items()]
        return f"{self.support_name(site, 'TensorLogger', at)}({', '.join(text)})"

    def callbacks(self, site: Site, plan, at, hooks=(), saver: dict | None = None, receiver: str | None = None) -> str:
        """fit's callbacks in the order TF 2.15's MonitoredTrainingSession ran the Estimator's hooks (measured, NaN loss
        at step K: the checkpoint of step K, then training_chief_hooks, then the train hooks logged at step K, the
        Estimator's NanTensorHook(loss) raised, and training_hooks did not log): the checkpoint saver, the model_fn's
        training_chief_hooks, the summary writer, the train hooks (SessionRunHook subclasses, now keras callbacks,
        LoggingTensorHooks as TensorLoggers, StepCounterHooks as StepCounters), the NaN loss check, the model_fn's
        training_hooks."""
        items = []
        if plan.optimizer.after_build:
            items.append("TF1SlotInit()")
        model_dir = site.run_config.get("model_dir")
        self.summaries_without_model_dir(site, plan)
        if model_dir is not None and writes_checkpoints(site):
            # the Estimator's checkpoints: at the first step, every save_checkpoints_steps after it, at the last;
            # a CheckpointSaverHook's instead (the Estimator added no saver of its own then)
            if saver is not None:
                args = [self.render(saver["checkpoint_dir"], at, "checkpoint_dir"),
                        f"save_steps={self.render(saver['save_steps'], at, 'save_steps')}"]
            else:
                args = [self.render(model_dir, at, "model_dir")]
                if site.run_config.get("save_checkpoints_steps") is not None:
                    args.append(f"save_steps={self.render(site.run_config['save_checkpoints_steps'], at, 'save_steps')}")
            if site.run_config.get("keep_checkpoint_max") is not None:  # the Estimator's Saver, the hook's too
                args.append(f"keep_checkpoint_max={self.render(site.run_config['keep_checkpoint_max'], at, 'keep')}")
            if saver is not None and "checkpoint_basename" in saver:
                args.append(f"basename={self.render(saver['checkpoint_basename'], at, 'checkpoint_basename')}")
            # model_to_estimator: keras_support writes the class in each file that trains
            name = "EstimatorCheckpoints" if keras_resumes(site) else \
                self.support_name(site, "EstimatorCheckpoints", at)
            items.append(f"{name}({', '.join(args)})")
        elif model_dir is not None:
            save = site.run_config.get("save_checkpoints_steps")
            freq = self.render(save, at, "save_checkpoints_steps") if save is not None else '"epoch"'
            items.append(f"keras.callbacks.BackupAndRestore({self.render(model_dir, at, 'model_dir')}, "
                         f"save_freq={freq}, delete_checkpoint=False)")
        if getattr(plan, "chief_loggers", None) and receiver is not None:
            items.append(f"*{receiver}.logging_hooks(chief=True)")  # after the checkpoint saver, as in TF1
        if model_dir is not None:
            if getattr(plan, "summaries", None):  # the model_fn's scalar summaries (model_class.py.j2 compute_loss)
                every = self.analysis.summary_steps.get(id(site.call))
                items.append(f"EstimatorSummaries({self.render(model_dir, at, 'model_dir')}"
                             + (f", {self.render(every, at, 'RunConfig(save_summary_steps)')})" if every else ")"))
                if every is not None:
                    self.notes[:] = [n for n in self.notes if n[2] is not every.node]
        # SessionRunHook subclasses, now keras callbacks, LoggingTensorHooks as TensorLoggers, StepCounters
        items += [item for item in (self.hook_item(h, site, at, receiver) for h in hooks) if item is not None]
        # the NanTensorHook(loss) every Estimator added (nan_support writes the class in this file): TF1 ran the
        # chief's checkpoint and summary hooks, then the train hooks, then it, then the model_fn's training_hooks
        items.append("NanLossCheck()")
        if getattr(plan, "loggers", None) and receiver is not None:
            items.append(f"*{receiver}.logging_hooks()")
        return f"[{', '.join(items)}]"

    def summaries_without_model_dir(self, site: Site, plan) -> None:
        """The model_fn's scalar summaries are written to model_dir; without one the Estimator used a temporary
        directory, which the migrated program does not make: say so."""
        if getattr(plan, "summaries", None) and site.run_config.get("model_dir") is None:
            for tag, _, call in plan.summaries:
                if not any(n[2] is call for n in self.notes):
                    self.notes.append((CODE, f'summary "{tag}" not written: no model_dir (the Estimator wrote it to '
                                             "a temporary directory); give RunConfig a model_dir", call))
            if plan.summary_hooks:
                self.notes.append((hook_rules.CODE, "the model_fn's SummarySaverHooks are not written either: the "
                                                    "migrated program writes them next to model_dir's summaries; "
                                                    "give RunConfig a model_dir", site.call))

    def train_text(self, site: Site, use: Use, start: str | None = None) -> str:
        """`start`: the name holding the step restored from model_dir (Keras target): max_steps stays the
        Estimator's absolute global step, so fit trains the steps left."""
        receiver = code(use.receiver)
        at = use.call
        if isinstance(use.train.get("max_steps"), Relative):
            start = None  # train(steps=N): N more steps, wherever training starts
        self.start = start
        steps = self.render(use.train["max_steps"], at, "max_steps") if "max_steps" in use.train else None
        self.start = None
        if site.target == "keras":
            plan = self.plans[id(site.model_fn.node)]
            data = self.keras_data(use.train["input_fn"], site, at, "train", receiver)
            # no max_steps: the Estimator trained until the input ended, as one epoch over it does
            left = steps if start is None or steps is None else \
                f"{steps if _is_atom_text_code(steps) else f'({steps})'} - {start}"
            per_epoch = f"steps_per_epoch={left}, " if steps is not None else ""
            return wrap_call(f"{receiver}.fit({data}, epochs=1, {per_epoch}"
                             f"callbacks={self.callbacks(site, plan, at, use.train.get('callbacks', ()), use.train.get('checkpoint'), receiver)})", "",
                             width=92)
        self.summaries_without_model_dir(site, self.plans.get(id(site.model_fn.node)))
        dataset_fn, _ = self.dataset_fn(use.train["input_fn"], site, at, "train")
        # max_steps=None: until the input ends, as the Estimator trained without max_steps
        hooks = [item for item in (self.hook_item(h, site, at, receiver) for h in use.train.get("callbacks", ()))
                 if item is not None]
        extra = f", callbacks=[{', '.join(hooks)}]" if hooks else ""
        saver = use.train.get("checkpoint")
        if saver is not None:  # a CheckpointSaverHook: its directory, steps and basename instead of model_dir's
            extra += (f", checkpoint_dir={self.render(saver['checkpoint_dir'], at, 'checkpoint_dir')}"
                      f", save_steps={self.render(saver['save_steps'], at, 'save_steps')}")
            if "checkpoint_basename" in saver:
                extra += f", checkpoint_basename={self.render(saver['checkpoint_basename'], at, 'checkpoint_basename')}"
        return wrap_call(f"{receiver}.train({dataset_fn}, max_steps={steps}{extra})", "", width=92)

    def resume_lines(self, site: Site, use: Use) -> tuple[list[str], str | None, str | None]:
        """Keras target: (statements restoring model_dir before fit, the name of the step reached, the condition
        under which fit still has steps to train, None without max_steps)."""
        if site.target != "keras" or not (resumes(site) or keras_resumes(site)):
            return [], None, None
        receiver, at = code(use.receiver), use.call
        model_dir = self.render(site.run_config["model_dir"], at, "model_dir")
        start = self.free_name("initial_step", at)
        if keras_resumes(site):  # a compiled Keras model: the generated function next to it (keras_support)
            lines = [f"{start} = restore_model_dir({receiver}, {model_dir})  # resume where training stopped"]
        else:
            lines = [f"{start} = {receiver}.restore_model_dir({model_dir}, {receiver}.optimizer)  "
                     "# resume where training stopped"]
        if "max_steps" not in use.train or isinstance(use.train["max_steps"], Relative):
            return lines, start, None
        self.start = start
        steps = self.render(use.train["max_steps"], at, "max_steps")
        self.start = None
        return lines, start, f"{start} < {steps if _is_atom_text_code(steps) else f'({steps})'}"

    def evaluate_text(self, site: Site, use: Use, default_steps: str | None) -> str:
        receiver = code(use.receiver)
        at = use.call
        steps_value = use.evaluate.get("steps")
        steps = self.render(steps_value, at, "steps") if steps_value is not None else default_steps or "None"
        if site.target == "keras":
            data = self.keras_data(use.evaluate["input_fn"], site, at, "eval", receiver)
            from . import keras_estimator

            if keras_estimator.is_keras(site) and (keras_estimator.CODE, keras_estimator.EVAL_LOSS_NOTE, use.call) \
                    not in self.notes:
                self.notes.append((keras_estimator.CODE, keras_estimator.EVAL_LOSS_NOTE, use.call))
            return wrap_call(f"{receiver}.evaluate({data}, steps={steps}, return_dict=True)", "", width=92)
        dataset_fn, _ = self.dataset_fn(use.evaluate["input_fn"], site, at, "eval")
        return wrap_call(f"{receiver}.evaluate({dataset_fn}, steps={steps})", "", width=92)

    def predict_text(self, site: Site, use: Use) -> str:
        """Estimator.predict's generator: the migrated model's PREDICT outputs, per example or per batch, from the
        input_fn's dataset as the Estimator read it (features of (features, labels) elements, no strategy)."""
        at = use.call
        data, _ = self.dataset_fn(use.predict["input_fn"], site, at, "infer")
        args = [data]
        for key in ("predict_keys", "yield_single_examples"):
            if key in use.predict:
                args.append(f"{key}={self.render(use.predict[key], at, key)}")
        method = "predict_examples" if site.target == "keras" else "predict"
        return wrap_call(f"{code(use.receiver)}.{method}({', '.join(args)})", "", width=92)

    def export_text(self, site: Site, use: Use, base: str | None = None, receiver: dict | None = None) -> str:
        """export_saved_model → the model's export_parsing_saved_model (a parsing receiver),
        export_raw_saved_model (build_raw_serving_input_receiver_fn) or export_receiver_saved_model (a hand-written
        one): the same signatures in each case."""
        at = use.call
        receiver = use.export if receiver is None else receiver
        args = [base or self.render(use.export["export_dir_base"], at, "export_dir_base")]
        if "raw_features" in receiver:
            method = "export_raw_saved_model"
            args.append(self.render(receiver["raw_features"], at, "features"))
            if "default_batch_size" in receiver:
                args.append(f"default_batch_size={self.render(receiver['default_batch_size'], at, 'default_batch_size')}")
        elif "receiver_fn" in receiver:
            method = "export_receiver_saved_model"
            args.append(self.render(receiver["receiver_fn"], at, "serving_input_receiver_fn"))
            if receiver["single_feature"]:
                args.append("single_feature=True")
        else:
            method = "export_parsing_saved_model"
            args.append(self.render(receiver["feature_spec"], at, "feature_spec"))
            if "default_batch_size" in receiver:
                args.append(f"default_batch_size={self.render(receiver['default_batch_size'], at, 'default_batch_size')}")
        model = code(use.receiver) if site.target == "keras" else f"{code(use.receiver)}.model"
        return wrap_call(f"{model}.{method}({', '.join(args)})", "", width=92)

    def exporter_texts(self, site: Site, use: Use) -> list[str]:
        """EvalSpec exporters: one export each into model_dir/export/<name>, after training."""
        model_dir = self.render(site.run_config["model_dir"], use.call, "model_dir")
        return [self.export_text(site, use, f'tf.io.gfile.join({model_dir}, "export", '
                                            f'{self.render(name, use.call, "exporter name")})', receiver)
                for name, receiver in use.exporters]

    def restore_text(self, site: Site, use: Use) -> str:
        """`model.restore_checkpoint(model_dir, sample, ...)` before a predict / evaluate / export that restored a
        checkpoint the migrated model does not hold yet: one element of the data it reads builds the variables
        (Keras builds lazily), then checkpoint_path or model_dir's latest is read (TF1 names or this program's)."""
        at, receiver = use.call, code(use.receiver)
        if site.target == "keras":
            model = receiver
            model_dir = self.render(site.run_config["model_dir"], at, "model_dir") \
                if "model_dir" in site.run_config else "None"
        else:
            model, model_dir = f"{receiver}.model", f"{receiver}.model_dir"
        if use.kind == "predict":
            sample = f"next(iter({self.dataset_fn(use.predict['input_fn'], site, at, 'infer')[0]}))"
        elif use.kind == "evaluate":
            fn, shards = self.dataset_fn(use.evaluate["input_fn"], site, at, "eval")
            if fn.startswith("lambda input_context: ") and not shards:
                sample = f"next(iter({fn[len('lambda input_context: '):]}))"
            else:
                sample = f"next(iter({_callable(fn, cst.parse_expression(fn))}(tf.distribute.InputContext())))"
        elif "raw_features" in use.export:  # build_raw_serving_input_receiver_fn's tensors: what the signature feeds
            sample = self.render(use.export["raw_features"], at, "features")
        else:  # an empty batch of the parsing spec: the shapes the serving signature feeds
            spec = self.render(use.export["feature_spec"], at, "feature_spec")
            sample = f'tf.io.parse_example(tf.constant([], tf.string), {spec})'
        args = [model_dir, sample]
        if use.checkpoint is not None:
            args.append(f"checkpoint_path={self.render(use.checkpoint, at, 'checkpoint_path')}")
        elif site.target == "keras" and not any(n[0] == CODE and n[2] is site.call for n in self.notes):
            self.notes.append((CODE, "restores model_dir's latest checkpoint first, as the Estimator did: the "
                                     "Estimator's own, or the model.ckpt-<step> a migrated Keras fit wrote "
                                     "(EstimatorCheckpoints: the last step included); a latest.weights.h5 an earlier "
                                     "migrated fit's BackupAndRestore left there is read when saved at a later step",
                                 site.call))
        if use.kind == "export":
            args.append("required=True")
        return wrap_call(f"{model}.restore_checkpoint({', '.join(args)})", "", width=92)

    def use(self, site: Site, use: Use, edits) -> None:
        stmt = self.file.statement_of(use.call)
        if use.restore:
            edits.insert_before(stmt, [self.restore_text(site, use)])
        if use.kind == "predict":
            edits.replace(use.call, self.predict_text(site, use))
            return
        if use.kind == "export":
            edits.replace(use.call, self.export_text(site, use))
            return
        if site.target == "keras" and use.train and ("model_dir" in site.run_config or site.warm_start):
            self.build_before_fit(site, use, edits)
        if use.kind == "train":
            resume, start, test = self.resume_lines(site, use) if use.train else ([], None, None)
            edits.replace(use.call, self.train_text(site, use, start))
            if resume:
                edits.insert_before(stmt, resume)
            if test:  # max_steps reached already: the Estimator trained nothing
                edits.wrap(stmt, f"if {test}:", [])
        elif use.kind == "evaluate":
            edits.replace(use.call, self.evaluate_text(site, use, None))
        else:
            if not isinstance(stmt, cst.SimpleStatementLine):
                raise Blocked(CODE, "train_and_evaluate in the header of a compound statement is not converted",
                              use.call)
            if "throttle_secs" in use.evaluate or "start_delay_secs" in use.evaluate:
                self.notes.append((CODE, "EvalSpec throttle/start delay: evaluation runs once, after training",
                                   use.call))
            exports = self.exporter_texts(site, use) if use.exporters else []
            parent = self.file.parent(use.call)
            bare = isinstance(parent, cst.Expr)
            if exports and not bare:  # the export paths are train_and_evaluate's second result
                name = self.free_name("export_results", use.call)
                exports = [f"{name} = [\n" + "".join("    " + e.replace("\n", "\n    ") + ",\n" for e in exports) + "]"]
            resume, start, test = self.resume_lines(site, use)
            train = self.train_text(site, use, start)
            if test:  # max_steps reached already: the Estimator trained nothing
                train = f"if {test}:\n" + textwrap.indent(train, "    ")
            edits.insert_before(stmt, [*resume, train, *exports])
            evaluate = self.evaluate_text(site, use, "100")  # EvalSpec's default steps
            # train_and_evaluate returned (eval_result, export_results)
            edits.replace(use.call, evaluate if bare else f"({evaluate}, {name if exports else '[]'})")


def _import_or_docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) or isinstance(s, cst.Expr) and isinstance(s.value, cst.SimpleString)
        for s in stmt.body)


def _drop_param(params: cst.Parameters, name: str) -> cst.Parameters:
    kept = [p for p in params.params if p.name.value != name]
    if kept and kept[-1].comma is not cst.MaybeSentinel.DEFAULT and len(kept) < len(params.params) \
            and params.params[-1].name.value == name and params.star_arg is cst.MaybeSentinel.DEFAULT \
            and not params.kwonly_params and params.star_kwarg is None:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return params.with_changes(params=kept, kwonly_params=[p for p in params.kwonly_params if p.name.value != name])


def _drop_arg(call: cst.Call, value_code: str) -> cst.Call:
    args = list(call.args)
    for i, a in enumerate(args):
        if code(a.value) == value_code:
            del args[i]
            if args and i == len(args):
                args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            break
    return call.with_changes(args=args)


def _first_replica(holder: str, features: str, site: Site) -> str:
    """The features a model is built from. Under MirroredStrategy a distributed dataset yields one batch per
    local replica (PerReplica values, which a Keras model refuses as inputs) when the machine has several devices:
    the first replica's batch, the shape every replica's own batch has."""
    if site.strategy is None or "mirrored" not in site.strategy.kinds:
        return features
    return (generated("tf.nest.map_structure(") + f"lambda value: {holder}.distribute_strategy.experimental_local_results("
            f"value)[0], {features})")


def _assigned_name(stmt, call) -> str | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        assign = stmt.body[0]
        if assign.value is call and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
            return assign.targets[0].target.value
    return None


def _defaults(fn) -> set[str]:
    p = fn.params
    return {x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params] if x.default is not None}


def _is_atom_text_code(text: str) -> bool:
    """Code that binds tighter than `-` / `<`: a name, attribute, call, subscript or literal."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))


def _is_atom_text(node) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute))


def _callable(text: str, node) -> str:
    return text if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else f"({text})"


def explain(analysis: Analysis, locate) -> list[dict]:
    """The plan as plain data (what `tfmigrate rewrite --explain` prints): each Estimator, what configures and
    drives it, what goes away, and every blocker. `locate(node) -> "path:line"`."""
    def text(v) -> str:
        if isinstance(v, Choice):
            return f"{code(v.body.node)} if {code(v.test.node)} else {code(v.orelse.node)}"
        if isinstance(v, Least):
            return f"min({text(v.first)}, {text(v.second)})"
        if isinstance(v, Relative):
            return f"<initial step> + {text(v.value)}"
        if isinstance(v, list):
            return "[" + ", ".join(text(x) for x in v) + "]"
        env = ", ".join(f"{k}={code(x.node)}" for k, x in v.env)
        return code(v.node) + (f"  [with {env}]" if env else "")

    out = []
    for site in analysis.sites:
        fn = site.model_fn.node
        out.append({
            "estimator": locate(site.call),
            "model_fn": f"the compiled Keras model `{code(site.model_fn.model.node)}` ({site.model_fn.tf_name})"
            if hasattr(site.model_fn, "compile_call") else
            f"canned {site.model_fn.tf_name}" if not isinstance(fn, cst.FunctionDef) else
            f"{fn.name.value} at {locate(fn)}" + (" (closure in a factory)" if site.factory else ""),
            "target": site.target,
            # a strategy not converted is unknown: the plan never says what the default analysis assumed
            "strategy": {"not_converted": site.strategy_blocked, "kinds": [], "tf2": None, "tf1_ran_under": []}
            if site.strategy_blocked else
            {"kinds": sorted(site.strategy.kinds), "tf2": site.strategy.expression.replace(
                "__tfmigrate_tf__", "tf"), "tf1_ran_under": sorted(site.original_kinds or [])},
            "params": site.params,
            "run_config": {k: text(v) for k, v in site.run_config.items()},
            "uses": [{"kind": u.kind, "at": locate(u.call),
                      **{f"train.{k}": text(v) for k, v in u.train.items()},
                      **{f"evaluate.{k}": text(v) for k, v in u.evaluate.items()},
                      **{f"predict.{k}": text(v) for k, v in u.predict.items()},
                      **{f"export.{k}": text(v) for k, v in u.export.items()}} for u in site.uses],
            "removed": sorted({locate(b.statement) for b in site.consumed}),
        })
    out.append({"blockers": [f"{locate(e.node)}: {e.code} {e.message}" for e in analysis.errors]})
    return out


def _assign_targets(module: cst.Module) -> list:
    """Every assignment target of a module (`x.y = ...`, `x.y += ...` included)."""
    found: list = []
    module.visit(_AssignTargets(found))
    return found


class _AssignTargets(Visitor):
    def __init__(self, found: list):
        self.found = found

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.found.append(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found.append(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.found.append(node)
