"""Where an Estimator API call stands and which values reach its arguments: the sites every planner reads
(moved down from the driver so the canned, Keras, TPU, numpy and receiver planners need not import it)."""
from __future__ import annotations

from dataclasses import dataclass, field
import libcst as cst
from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Binding, FileIndex, FunctionRef, Value, target_names
from .estimator import CODE


CODE_KIND = "TFM603"


OTHER_KINDS = {  # Estimator kinds found but not converted by this rule, with what the user can do
    "estimator.DNNClassifier": "canned", "estimator.DNNRegressor": "canned",
    "estimator.LinearClassifier": "canned", "estimator.LinearRegressor": "canned",
    "estimator.DNNLinearCombinedClassifier": "canned", "estimator.DNNLinearCombinedRegressor": "canned",
    "estimator.BaselineClassifier": "canned", "estimator.BaselineRegressor": "canned",
    "estimator.BoostedTreesClassifier": "canned", "estimator.BoostedTreesRegressor": "canned",
    "estimator.tpu.TPUEstimator": "tpu", "estimator.experimental.TPUEstimator": "tpu",
    "keras.estimator.model_to_estimator": "keras", "estimator.experimental.RNNClassifier": "canned",
    "estimator.experimental.RNNEstimator": "canned",
    "estimator.DNNEstimator": "canned", "estimator.LinearEstimator": "canned",  # over a head: canned/_head_estimator.py
    "estimator.DNNLinearCombinedEstimator": "canned",
}


def kind_message(path: str) -> str:
    kind = OTHER_KINDS[path]
    if kind == "canned":
        return (f"canned estimator tf.{path} is not converted yet (canned estimators and feature columns are "
                "tracked separately); its driver calls are left as they are")
    if kind == "tpu":
        return (f"tf.{path} is not converted (TF 2.15 has no such class): with use_tpu=False, "
                "tf.compat.v1.estimator.tpu.TPUEstimator is, or tf.estimator.Estimator(model_fn, ...); use one and "
                "re-run tfmigrate")
    return (f"tf.{path}: the Keras model already exists; train it with model.fit under a tf.distribute strategy "
            "instead of wrapping it in an Estimator (not rewritten automatically yet)")


@dataclass
class Use:
    kind: str  # train | evaluate | train_and_evaluate | predict
    call: cst.Call
    file: FileIndex
    receiver: cst.BaseExpression
    train: dict[str, Value] = field(default_factory=dict)  # input_fn, max_steps
    evaluate: dict[str, Value] = field(default_factory=dict)  # input_fn, steps
    predict: dict[str, Value] = field(default_factory=dict)  # input_fn, predict_keys, yield_single_examples
    export: dict[str, Value] = field(default_factory=dict)  # export_dir_base, feature_spec, default_batch_size
    exporters: list = field(default_factory=list)  # EvalSpec exporters: (name Value, receiver args, kind)
    # predict / evaluate / export with nothing trained before it in the same function, or given checkpoint_path:
    # the migrated model first restores what the Estimator restored (Model.restore_checkpoint)
    restore: bool = False
    checkpoint: Value | None = None  # checkpoint_path=...


@dataclass
class Site:
    """One Estimator: where it is built, what configures it, what drives it."""

    call: cst.Call
    file: FileIndex
    model_fn: FunctionRef
    model_fn_expr: cst.BaseExpression
    params: str
    params_value: Value | None
    run_config: dict[str, Value] = field(default_factory=dict)
    strategy: object = None  # planners.strategy.StrategyPlan | None (facts import no planner)
    strategy_value: Value | None = None  # the program's own strategy expression, rewritten in place
    strategy_binding: Binding | None = None
    strategy_arms: list = field(default_factory=list)  # (binding, its StrategyPlan): a name set in an if/else's branches
    original_kinds: set[str] | None = None
    strategy_blocked: str | None = None  # why its strategy is not converted (analysed on under the default's)
    target: str = ""
    uses: list[Use] = field(default_factory=list)
    consumed: list[Binding] = field(default_factory=list)  # config/spec bindings whose statements go
    removable: list[Binding] = field(default_factory=list)  # bindings that go if nothing else reads them (columns)
    factory: tuple | None = None  # model_fn is a closure: (factory def, its `return model_fn` statement)
    warm_start: dict = field(default_factory=dict)  # WarmStartSettings' arguments (ckpt_to_initialize_from, ...)
    receivers: dict = field(default_factory=dict)  # hand-written serving_input_receiver_fns by id(def)
    callback_plans: dict = field(default_factory=dict)  # SessionRunHook subclasses → callbacks, by id(class)
    # blockers of its configuration (RunConfig settings, strategy): the Estimator is still analysed, its model_fn and
    # uses too, so that every blocker of the program is reported at once; its files are left unchanged
    errors: list = field(default_factory=list)
    # LoggingTensorHooks on training by id(call): ([(tag, tensor name, node)], {argument: Value}) (rules/planners/hooks.py)
    loggers: dict = field(default_factory=dict)
    logger_calls: dict = field(default_factory=dict)  # id(call) → the LoggingTensorHook call (for its notes)
    dropped_loggers: set = field(default_factory=set)  # LoggingTensorHooks dropped with a note, by id(call)
    counters: dict = field(default_factory=dict)  # StepCounterHooks on training by id(call): {argument: Value}
    tpu: object = None  # planners.tpu.TPUSite | None: a TPUEstimator(use_tpu=False): per-mode batch sizes (rules/planners/tpu.py)
    # its model_fn or params are blocked: not converted, only its uses are analysed (for their own blockers)
    unconverted: bool = False
    # every argument of its construction is known (not behind `**kwargs` or a subclass not converted): else its
    # configuration is not, and the uses' checks that read it (a model_dir) are not made
    config_known: bool = True
    model_fn_failed: bool = False  # one of its own blockers is about its model_fn (Estimator(params=...) it takes not)
    # tf.estimator.add_metrics over it: [(metric_fn def, the add_metrics call)] (planners/driver/_add_metrics.py)
    added_metrics: list = field(default_factory=list)

    @property
    def statement(self) -> cst.CSTNode:
        return self.file.statement_of(self.call)


def statement_bindings(stmt, file: FileIndex) -> list[Binding]:
    found = []
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        scope = file.scope_of(stmt)
        return [b for b in scope.bindings.get(stmt.name.value, []) if b.node is stmt]
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    for name in target_names(t.target):
                        scope = file.scope_of(name)
                        found += [b for b in scope.bindings.get(name.value, []) if b.node is name]
    return found


def deletable(stmt) -> bool:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return True
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Assign) for s in stmt.body)


def bind_values(call: cst.Call, signature: list[str], what: str, file: FileIndex, env=(), keywords_only=False,
                rule: str = CODE) -> dict[str, Value]:
    """A call's arguments mapped onto a known signature, as Values (with the environment they were reached in)."""
    bound: dict[str, Value] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            raise Blocked(rule, f"{what}: *args/**kwargs cannot be mapped safely; pass arguments by name", call)
        if arg.keyword is None:
            if keywords_only or index >= len(signature):
                raise Blocked(rule, f"{what}: too many positional arguments", call)
            bound[signature[index]] = Value(arg.value, file, env)
        else:
            name = arg.keyword.value
            if name not in signature:
                raise Blocked(rule, f"{what}: argument '{name}' is not converted", arg)
            bound[name] = Value(arg.value, file, env)
    return bound
