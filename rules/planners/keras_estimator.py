"""TFM603 `tf.keras.estimator.model_to_estimator(keras_model=model, ...)` → the compiled Keras model itself.

What TF 2.15's model_to_estimator did (tensorflow_estimator/python/estimator/keras_lib.py): it converted the
compiled optimizer to its `tf.keras.optimizers.legacy` form (same config; `weight_decay`, EMA and jit settings
dropped), cloned the model into each Estimator graph with the compiled loss (SUM_OVER_BATCH_SIZE: the batch mean)
and metrics, fed dict features to the inputs by the model's input names (a tensor straight to its only input;
`{"features", "sample_weights"}` as sample weights), started from the Keras model's current weights (through
`model_dir/keras/keras_model.ckpt`), and its evaluate() returned the loss (mean over batches), the compiled metrics
and global_step.

Converted exactly (one process, default strategy, Keras target): a `tf.keras.Model(inputs, output)` or
`tf.keras.Sequential(...)` (also built up by `model.add(layer)` statements) built and compiled once in the program
(inline, in a helper that returns it, or in another file of the run: both files then migrate as one unit) with
`optimizer=` (positional or keyword) one of SGD (learning_rate, momentum, nesterov), Adagrad and Adam (object,
`legacy.` object or string; a constant learning rate), `loss=` without a reduction argument and `metrics=`.
The Estimator expression becomes the model (`est = model`); the compiled optimizer becomes the Keras 3 optimizer
that runs the legacy update bit for bit (legacy SGD → keras.optimizers.SGD; legacy Adagrad → generated
`LegacyAdagrad`; legacy Adam → generated `LegacyKerasAdam`: pow(β, t) and 1 - β in float32, as tf_keras' legacy
Adam fed ResourceApplyAdam); the driver calls become `fit`/`evaluate` through rules/planners/driver.py's Keras target. The
input data goes through a generated `model_to_estimator_inputs(model, dataset)` that picks dict features by the
model's input names. `fixtures/model_to_estimator`, `fixtures/model_to_estimator_sgd`; verify aligns the weights
of the Estimator's object-based model.ckpt-0 (`layer_with_weights-N/...`) in layer order
(runtime/boot/target_boot.py).

Blocked, each with its reason: keras_model_path, custom_objects, metric_names_map, export_outputs, a model the tool
cannot follow to one build and one compile, any other use of the model object (fit, predict, save, passing it on:
the Estimator trained a copy, so it kept its weights; `summary()` is fine), a subclassed model, several outputs, a
loss with a reduction, compile arguments other than optimizer/loss/metrics, other optimizers (Ftrl, RMSprop, ...) or
unknown optimizer arguments (weight_decay was dropped by the legacy conversion; clipnorm, amsgrad), a learning-rate
schedule, a distribution strategy, the custom-loop target, predict / export_saved_model, and predict/evaluate that
restored a checkpoint. Checkpoints (a model_dir given): measured on TF 2.15 (fixtures/model_to_estimator,
save_checkpoints_steps=60, max_steps 120), model_to_estimator's Estimator wrote model.ckpt-0, 60, 120 (the first
step, every save_checkpoints_steps after the last save, the last step; keep_checkpoint_max kept), object-based
(`layer_with_weights-N/...`, the legacy optimizer's slots, `estimator_global_step`), as a model_fn Estimator's steps
and names. The migrated fit writes the same steps and names with the generated EstimatorCheckpoints callback (a
tf.train.Checkpoint of the model and its optimizer), and `initial_step = restore_model_dir(model, model_dir)`
(generated next to it) resumes from the newest one before fit, which trains `max_steps - initial_step` steps
(tests/fixtures_run/test_model_to_estimator_checkpoints.py: the same checkpoint steps fresh and resumed, and the
resumed steps equal to the Estimator's step for step). A checkpoint the Estimator wrote is not read: the migrated
program raises an error naming it instead of training from fresh weights (noted); under verify's target boot it reads
the moved model_dir (a CheckpointManager finds the newest). Sample weights given as `{"features", "sample_weights"}`
features raise an error at run time (not converted). A Sequential whose first layer got `input_shape` reads the
key Keras 2 named its input (`<first layer>_input`, e.g. `dense_input`); an unnamed `tf.keras.Input` (Keras 2:
`input_<n>`, a session-wide counter Keras 3 does not keep) raises a KeyError at run time that says to name it. evaluate()'s loss is the Estimator's only when every
evaluation batch is full (the Estimator averaged batch losses, Keras averages examples; noted at each evaluate).
The compiled metrics get a generated `EstimatorGlobalStep` metric (evaluate() returns global_step, as the
Estimator's did); metrics are converted when written as a list in the compile call.

Measured (`tfmigrate verify --workers 1 fixtures/model_to_estimator/...`): 120/120 steps bit-equal and evaluate()'s
loss, accuracy and global_step equal (model_to_estimator_sgd: the same); with stock keras.optimizers.Adam instead of
LegacyKerasAdam 1/120 steps are bit-equal (max relative difference 1.8e-5).

TFM603 also reports the Estimator kinds that are not converted, with what to do (rules/planners/driver.py `kind_message`):
RNN estimators, `tf.estimator.experimental.TPUEstimator` (tf.compat.v1.estimator.tpu's and TF 1.x's
tf.contrib.tpu's convert on CPU: rules/planners/tpu.py), and TF 1.x's `tf.contrib.learn` Estimators (`learn.Estimator`,
`learn.DNNClassifier`, ..., `SKCompat`, `Experiment`: rules/program.py `_contrib_learn_message`), which are not
tf.estimator and are ported to it by hand first (fit(x, y) → train(input_fn)).

Example (`fixtures/model_to_estimator`):

    model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=lr), loss=loss, metrics=["accuracy"])
    ...
    estimator = tf.keras.estimator.model_to_estimator(keras_model=model, config=config)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    →
    model.compile(optimizer=LegacyKerasAdam(learning_rate=lr, beta_1=0.9, beta_2=0.999, epsilon=1e-07), loss=loss,
                  metrics=["accuracy", EstimatorGlobalStep(lambda: model.optimizer.iterations)])
    ...
    estimator = model
    initial_step = restore_model_dir(estimator, args.model_dir)  # resume where training stopped
    if initial_step < args.steps:
        estimator.fit(model_to_estimator_inputs(estimator, train_input_fn()), epochs=1,
                      steps_per_epoch=args.steps - initial_step,
                      callbacks=[EstimatorCheckpoints(args.model_dir, save_steps=60), NanLossCheck()])
    estimator.evaluate(model_to_estimator_inputs(estimator, eval_input_fn()), steps=None, return_dict=True)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared
from tfmigrate.model import FileIndex, Value, code

from . import optimizers
from ..facts.calls import bind, is_literal, literal
from ..emit.wrap import generated

CODE = "TFM603"
_ESTIMATOR_CHECKPOINT = ("a checkpoint the Estimator itself wrote there is not read: the migrated program stops with an "
                         "error naming it (start from a fresh model_dir)")
# the model_dir note where nothing in the run trains the model (a builder only): the file holds no fit, no
# EstimatorCheckpoints and no restore_model_dir (generated only next to a training call tfmigrate converts)
UNTRAINED_CHECKPOINT_NOTE = ("model_dir: nothing in this run trains this model, so this file writes and reads no "
                             "checkpoints; a fit tfmigrate converts together with this file writes the Estimator's "
                             "model.ckpt-<step> checkpoints to model_dir (EstimatorCheckpoints) and resumes from the "
                             f"newest of them (restore_model_dir); {_ESTIMATOR_CHECKPOINT}")
_SIGNATURE = ["keras_model", "keras_model_path", "custom_objects", "model_dir", "config", "checkpoint_format",
              "use_v2_estimator", "metric_names_map", "export_outputs"]
_NOT_CONVERTED = {
    "keras_model_path": "the model is loaded from a file tfmigrate cannot read; build it in the program and pass "
                        "keras_model=",
    "custom_objects": "custom objects are not converted",
    "metric_names_map": "renamed metrics are not converted",
    "export_outputs": "export signatures are not converted",
}
_MODELS = {"keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential"}
_COMPILE = ["optimizer", "loss", "metrics"]
_OPTIMIZER_SIGNATURES = {  # Keras 2.15's optimizers (what compile got), their arguments that are converted
    "SGD": ["learning_rate", "momentum", "nesterov"],
    "Adagrad": ["learning_rate", "initial_accumulator_value", "epsilon"],
    "Adam": ["learning_rate", "beta_1", "beta_2", "epsilon"],
}
_DEFAULTS = {
    "SGD": {"learning_rate": "0.01"},
    "Adagrad": {"learning_rate": "0.001", "initial_accumulator_value": "0.1", "epsilon": "1e-07"},
    "Adam": {"learning_rate": "0.001", "beta_1": "0.9", "beta_2": "0.999", "epsilon": "1e-07"},
}
_STRINGS = {"sgd": "SGD", "adagrad": "Adagrad", "adam": "Adam"}
EVAL_LOSS_NOTE = ("evaluate()'s loss: the Estimator averaged the loss of each batch, Keras averages over examples; "
                  "the two differ when the last batch is smaller (batch the evaluation data with drop_remainder=True, "
                  "or compare with tfmigrate verify)")

LEGACY_ADAM_CLASS = optimizers.LEGACY_ADAM_CLASS  # LegacyKerasAdam, shared with v2 canned estimators

GLOBAL_STEP_CLASS = '''
class EstimatorGlobalStep(keras.metrics.Metric):
    """evaluate()'s global_step, as the Estimator returned it: the training steps taken (the optimizer's
    iterations). `step` is a callable, so the metric does not track the model it reads."""

    def __init__(self, step, name="global_step"):
        super().__init__(name=name)
        self.step = step

    def update_state(self, *args, **kwargs):
        pass

    def result(self):
        return self.step()

    def reset_state(self):
        pass
'''

INPUTS_FUNCTION = '''
def model_to_estimator_inputs(model, dataset):
    """The (features, labels) batches as tf.keras.estimator.model_to_estimator fed them to the model: dict
    features go to the model's inputs by input name (keys the model has no input for are not read)."""
    features = dataset.element_spec[0]
    if not isinstance(features, dict):
        return dataset
    if set(features) == {"features", "sample_weights"}:
        raise NotImplementedError("model_to_estimator's sample_weights features are not converted by tfmigrate")
    names = [tensor.name for tensor in model.inputs]
    if isinstance(model, keras.Sequential) and len(names) == 1 and names[0] not in features:
        # Keras 2 named the input a Sequential made from its first layer's input_shape "<first layer>_input"
        names = [f"{model.layers[0].name}_input"]
    missing = sorted(set(names) - set(features))
    if missing:
        raise KeyError(f"the features have no key for the model inputs {missing} (the names TF 2.15's Keras gave "
                       "them; an unnamed tf.keras.Input was 'input_<n>' there: give it name= the feature's key)")
    if len(names) == 1:
        return dataset.map(lambda features, labels: (features[names[0]], labels))
    return dataset.map(lambda features, labels: ([features[name] for name in names], labels))
'''


@dataclass
class KerasModel:
    """Stands in for a Site's model_fn: the user's compiled Keras model that model_to_estimator wrapped."""

    node: cst.Call  # the model_to_estimator call
    file: FileIndex  # where the model is compiled
    model: Value  # the keras_model argument
    optimizer_node: cst.BaseExpression  # the compile call's optimizer expression (replaced)
    compile_file: FileIndex
    compile_call: cst.Call  # rewritten: the exact optimizer, and EstimatorGlobalStep added to its metrics
    optimizer: optimizers.OptimizerPlan
    notes: list = field(default_factory=list)
    bound: tuple = ()

    @property
    def tf_name(self) -> str:
        return "tf.keras.estimator.model_to_estimator"


@dataclass
class KerasPlan:
    """What rules/planners/driver.py and rules/program.py read of a model plan."""

    optimizer: optimizers.OptimizerPlan
    predictions: object = None
    export_outputs: object = None
    partitioner: object = None
    helpers: tuple = ()


def is_keras(site) -> bool:
    return isinstance(site.model_fn, KerasModel)


def site(analysis, call: cst.Call, file: FileIndex) -> None:
    """A model_to_estimator call → a driver Site (registered on `analysis`), or Blocked."""
    from . import strategy as strategies
    from ..facts.sites import Site, bind_values

    args = bind_values(call, _SIGNATURE, "model_to_estimator", file)
    # every blocker of the call is collected: its arguments', its model's, its RunConfig's and strategy's; the
    # Estimator's uses are analysed on (an unconverted Site only they see) for their own
    errors: list[Blocked] = []
    for key, why in _NOT_CONVERTED.items():
        if key in args and not is_literal(args[key].node, None):
            errors.append(Blocked(CODE, f"model_to_estimator({key}=...) is not converted: {why}", args[key].node))
    if "keras_model" not in args or is_literal(args["keras_model"].node, None):
        raise Blocked.many([*errors, Blocked(CODE, "model_to_estimator without keras_model is not converted", call)])
    try:
        model = _compiled_model(analysis, call, args["keras_model"])
    except Blocked as blocked:
        errors.append(blocked)
        model = KerasModel(call, file, args["keras_model"], None, file, None, None)
    run_trail: list = []
    run_config = analysis.run_config(args, call, file, run_trail, unconverted=errors)
    s = Site(call, file, model, call, "", None, run_config)
    s.consumed.extend(run_trail)
    analysis.strategy_or_default(s, errors)
    if s.strategy.kinds != {"default"} or s.original_kinds - {"default"}:
        errors.append(Blocked(CODE, "model_to_estimator under a distribution strategy is not converted yet (Keras 2 "
                                    "scaled the loss per replica inside the Estimator); migrate it in one process (no "
                                    "train_distribute)", call))
    s.target = strategies.choose_target(analysis.options.target, s.strategy, call)
    if s.target != "keras":
        errors.append(Blocked(CODE, "model_to_estimator is converted to the Keras target only (the model already is "
                                    "a Keras model): rewrite with --target keras", call))
    analysis._site_by_call[id(call)] = s
    if errors:
        s.unconverted = True
        raise Blocked.many(errors)
    if "model_dir" in run_config:
        analysis.notes.append((CODE, "the migrated fit writes the Estimator's model.ckpt-<step> checkpoints to "
                                  f"model_dir (EstimatorCheckpoints) and resumes from the newest of them "
                                  f"(restore_model_dir); {_ESTIMATOR_CHECKPOINT}", call))
    analysis.sites.append(s)


def _compiled_model(analysis, call: cst.Call, value: Value) -> KerasModel:
    """The compiled Keras model model_to_estimator wraps, or Blocked."""
    program = analysis.program
    r = program.resolve(value)
    built = r.node
    if r.ambiguous or not isinstance(built, cst.Call) or analysis.tf(built.func, r.value.file) not in _MODELS:
        if r.ambiguous or r.stopped_at is not None:
            what = analysis.why(r, "a tf.keras.Model(...) or tf.keras.Sequential(...)")
        elif isinstance(built, cst.Call) and (program.qualified(built.func, r.value.file) or "").startswith(
                "tensorflow.python.keras."):
            what = (f"`{code(built)[:60]}` is TF 1.x's private tensorflow.python.keras (in TF 2 another copy of "
                    "Keras than tf.keras): import it from tensorflow.keras and re-run")
        else:
            what = (f"`{code(built)[:60]}` is not a tf.keras.Model(inputs, outputs) or tf.keras.Sequential(...) "
                    "call (a subclassed model is not converted)")
        raise Blocked(CODE, f"model_to_estimator(keras_model=`{code(value.node)[:40]}`): {what}", value.node)
    _one_output(analysis, built, r.value.file)
    compiles = [(c, f) for f in program.files for c in f.calls
                if isinstance(c.func, cst.Attribute) and c.func.attr.value == "compile"
                and program.resolve(Value(c.func.value, f)).node is built]
    if len(compiles) != 1:
        raise Blocked(CODE, f"model_to_estimator: the Keras model is compiled {len(compiles)} times where tfmigrate "
                            "can see it; compile it once (model_to_estimator trains with the compiled optimizer, "
                            "loss and metrics)", value.node)
    compile_call, compile_file = compiles[0]
    _only_compiled_and_wrapped(analysis, value, r, compile_call)
    compiled = bind(compile_call, _COMPILE, "Model.compile (before model_to_estimator)", CODE)
    if "optimizer" not in compiled or "loss" not in compiled:
        raise Blocked(CODE, "Model.compile without optimizer and loss: model_to_estimator needs both", compile_call)
    _loss(analysis, Value(compiled["loss"], compile_file))
    plan = _optimizer(analysis, Value(compiled["optimizer"], compile_file))
    if "metrics" in compiled and not isinstance(compiled["metrics"], (cst.List, cst.Tuple)):
        raise Blocked(CODE, "Model.compile(metrics=...) before model_to_estimator is converted when it is a list "
                            "written in the call (evaluate() gets global_step added to it)", compiled["metrics"])
    # the compile call's file is the model's: the program's files that hold it migrate as one unit
    return KerasModel(call, compile_file, value, compiled["optimizer"], compile_file, compile_call, plan)


def _only_compiled_and_wrapped(analysis, value: Value, r, compile_call: cst.Call) -> None:
    """The Estimator trained a clone: the Keras model object itself kept its weights and its optimizer never ran.
    After the migration they are one object, so any other use of the model (fit, predict, save, evaluate, passing it
    on) would see other weights or optimizer state: blocked. Allowed: compile, summary, and the names, returns and
    the argument that carry it to model_to_estimator."""
    program = analysis.program
    trail = [b for b in r.trail if b.kind in ("assign", "param")]
    carriers = {id(b.value) for b in trail if b.value is not None}
    sequential = analysis.tf(r.node.func, r.value.file) in ("keras.Sequential", "keras.models.Sequential")
    for b in trail:
        file = b.scope.file
        for load in file.loads_of(program, b):
            parent = file.parent(load)
            if load is value.node or load is compile_call.func.value or id(load) in carriers \
                    or isinstance(parent, cst.Return):
                continue
            if isinstance(parent, cst.Attribute) and parent.attr.value == "summary":
                continue
            if sequential and _adds_a_layer(parent, file):
                continue  # `model.add(layer)`: building the model, as model_to_estimator's copy was built
            raise Blocked(CODE, f"`{load.value}` (the Keras model given to model_to_estimator) is used here: the "
                                "Estimator trained a copy of it, so this model kept its own weights and optimizer "
                                "state, while after the migration it is the model that trains; not converted (use "
                                "the model only to compile it and pass it to model_to_estimator)", load)


def _adds_a_layer(attribute, file) -> bool:
    """`model.add(layer)` as a statement of its own (a Sequential built layer by layer)."""
    if not (isinstance(attribute, cst.Attribute) and attribute.attr.value == "add"):
        return False
    call = file.parent(attribute)
    return isinstance(call, cst.Call) and call.func is attribute and isinstance(file.parent(call), cst.Expr)


def _one_output(analysis, built: cst.Call, file: FileIndex) -> None:
    if analysis.tf(built.func, file) not in ("keras.Model", "keras.models.Model"):
        return
    args = bind(built, ["inputs", "outputs", "name"], "tf.keras.Model", CODE)
    if "outputs" not in args:
        raise Blocked(CODE, "tf.keras.Model(...) without outputs is not converted", built)
    r = analysis.program.resolve(Value(args["outputs"], file))
    node = r.node
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 1:
        return
    if isinstance(node, (cst.List, cst.Tuple, cst.Dict)):
        raise Blocked(CODE, "model_to_estimator of a Keras model with several outputs is not converted yet (one "
                            "loss per output, summed by Keras 2)", args["outputs"])


def _loss(analysis, value: Value) -> None:
    r = analysis.program.resolve(value)
    node = r.node
    if isinstance(node, cst.Call) and any(a.keyword is not None and a.keyword.value == "reduction"
                                          for a in node.args):
        raise Blocked(CODE, "model_to_estimator with a loss reduction other than the default is not converted yet "
                            "(Keras 2 applied it inside the Estimator graph)", node)
    if isinstance(node, (cst.List, cst.Dict, cst.Tuple)):
        raise Blocked(CODE, "model_to_estimator with several losses is not converted yet", node)


def _optimizer(analysis, value: Value) -> optimizers.OptimizerPlan:
    r = analysis.program.resolve(value)
    node, file = r.node, r.value.file
    try:
        text = literal(node)
    except ValueError:
        text = None
    if isinstance(text, str):
        name = _STRINGS.get(text.lower())
        if name is None:
            raise Blocked(optimizers.CODE, f"compile(optimizer='{text}') under model_to_estimator is not converted: "
                                           "no Keras 3 optimizer is proven to run its legacy update exactly (sgd, "
                                           "adagrad and adam are converted)", value.node)
        values = dict(_DEFAULTS[name])
    else:
        path = analysis.tf(node.func, file) if isinstance(node, cst.Call) else None
        name = path.split(".")[-1] if path and path.startswith("keras.optimizers.") else None
        if name not in _OPTIMIZER_SIGNATURES or r.ambiguous:
            raise Blocked(optimizers.CODE, f"compile(optimizer=`{code(value.node)[:50]}`) under model_to_estimator "
                                           "is not converted: tfmigrate converts tf.keras.optimizers.SGD, Adagrad "
                                           "and Adam (the legacy forms model_to_estimator trained with)", value.node)
        bound = bind(node, _OPTIMIZER_SIGNATURES[name], f"tf.keras.optimizers.{name} under model_to_estimator",
                     optimizers.CODE)
        values = dict(_DEFAULTS[name])
        for key, arg in bound.items():
            if key == "learning_rate" and isinstance(analysis.program.resolve(Value(arg, file, r.value.env)).node,
                                                     cst.Call):
                raise Blocked(optimizers.CODE, f"{name}(learning_rate=`{code(arg)[:50]}`) under model_to_estimator: "
                                               "a learning-rate schedule is not converted yet (not verified against "
                                               "the legacy optimizer's)", arg)
            text = analysis.program.render(Value(arg, file, r.value.env), value.node, value.file)
            if text is None:
                raise Blocked(optimizers.CODE, f"{name}({key}=`{code(arg)}`) is not visible at compile()", arg)
            values[key] = text
    order = _OPTIMIZER_SIGNATURES[name]
    kwargs = ", ".join(f"{k}={values[k]}" for k in order if k in values)
    if name == "SGD":
        if "momentum" in values:
            try:  # Keras 3 SGD refuses an int momentum
                values["momentum"] = repr(float(literal(cst.parse_expression(values["momentum"]))))
            except (ValueError, TypeError):
                values["momentum"] = f"float({values['momentum']})"
            kwargs = ", ".join(f"{k}={values[k]}" for k in order if k in values)
        return optimizers.OptimizerPlan(f"keras.optimizers.SGD({kwargs})")
    if name == "Adagrad":
        return optimizers.OptimizerPlan(f"LegacyAdagrad({kwargs})",
                                        support_code=shared(generated(optimizers.LEGACY_ADAGRAD_CLASS)))
    why = "keras.optimizers.Adam computes 1 - beta in float64; generated LegacyKerasAdam keeps tf_keras' legacy update"
    return optimizers.OptimizerPlan(f"LegacyKerasAdam({kwargs})", support_code=shared(generated(LEGACY_ADAM_CLASS)),
                                    notes=[(optimizers.CODE_INEXACT, why)])


def compile_text(model: KerasModel) -> str:
    """The compile call with the exact optimizer and, in its metrics, the Estimator's global_step."""
    call = model.compile_call
    step = f"EstimatorGlobalStep(lambda: {code(call.func.value)}.optimizer.iterations)"
    args, has_metrics = [], False
    for index, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else _COMPILE[index]
        if arg.value is model.optimizer_node:
            arg = arg.with_changes(value=cst.parse_expression(model.optimizer.ctor))
        if name == "metrics":
            has_metrics = True
            elements = [*arg.value.elements]
            if elements:
                elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            new = cst.List([*elements, cst.Element(cst.parse_expression(step))])
            arg = arg.with_changes(value=new)
        args.append(arg)
    if not has_metrics:
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(cst.parse_expression(f"[{step}]"), keyword=cst.Name("metrics"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    return code(call.with_changes(args=args))


def model_plan(sites: list, context):
    """(plan, target, builder name, parameter server?, notes), like program._model_plan."""
    from ..facts.reading import reading_sites

    model: KerasModel = sites[0].model_fn
    predicts, exports = reading_sites(sites)
    if predicts or exports:
        first = (predicts or exports)[0]
        raise Blocked(CODE, "predict / export_saved_model of a model_to_estimator Estimator is not converted yet "
                            "(its PREDICT outputs were named by the model's outputs); call model.predict on the "
                            "Keras model", first.call)
    notes = [*model.notes, *((c, m, model.optimizer_node) for c, m in model.optimizer.notes)]
    return KerasPlan(model.optimizer), "keras", "", False, notes


def support(compiled: list, fed: list, checkpoints: list[str] = ()) -> list[str]:
    """Module-level code of one file: the optimizer classes and global_step metric of the models it compiles, the
    input adapter where model_to_estimator's Estimators are trained or evaluated, and `checkpoints` (the
    EstimatorCheckpoints class and restore_model_dir where one trains with a model_dir; each text once)."""
    out: list[str] = []
    texts = [t for s in compiled for t in (s.model_fn.optimizer.support_code, shared(GLOBAL_STEP_CLASS))]
    for text in texts + ([shared(INPUTS_FUNCTION)] if fed else []) + list(checkpoints):
        if text and text not in out:
            out.append(text)
    return out
