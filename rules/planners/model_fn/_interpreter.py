"""The model_fn interpreter: its state, composed from one mixin per construct family, and `interpret`."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.tfnames import TFNames
from .. import layers, losses, partitioners
from ._added_metrics import AddedMetricsMixin
from ._assignments import AssignmentsMixin
from ._constants import ALL_MODES
from ._forward import ForwardMixin
from ._hook_values import HookValuesMixin
from ._hooks import HooksMixin
from ._input_layer import InputLayerMixin
from ._keras_models import KERAS_MODELS, KerasModelsMixin
from ._layer_calls import LayerCallsMixin
from ._layer_names import LayerNamesMixin
from ._checkpoint_init import CheckpointInitMixin
from ._logging_loops import LoggingLoopsMixin
from ._loops import Loop, LoopsMixin
from ._loss import LossMixin
from ._mode_forward import ModeForwardMixin
from ._modes import ModesMixin
from ._names import names_and_assign_counts
from ._network_helpers import NetworkHelpersMixin
from ._result import ModelPlan, ResultMixin
from ._signature import class_name_for, signature
from ._spec import SpecMixin
from ._statements import StatementsMixin
from ._summaries import SummariesMixin
from ._tpu import TpuMixin
from ._unused_args import UnusedArgsMixin
from ._unpacked_columns import UnpackedColumnsMixin
from ._train_op import Grads, TrainOpMixin
from ._variables import VariablesMixin
from ._visible_names import VisibleNamesMixin


def interpret(fn: cst.FunctionDef, names: TFNames, module_names: frozenset[str],
              tf1_partitions: bool | None = True, profile: str = "keras3", module: cst.Module | None = None,
              tf1_strategy: bool | None = False, helpers: dict[str, cst.FunctionDef] | None = None,
              input_layers: Blocked | bool = False, tpu: frozenset[str] | None = None,
              added_metrics: tuple[cst.FunctionDef, ...] = ()) -> ModelPlan:
    interp = Interpreter(fn, names, module_names, tf1_partitions, profile, module, tf1_strategy, helpers,
                          input_layers, tpu)
    interp.run()
    for metric_fn in added_metrics:  # tf.estimator.add_metrics (_added_metrics.py)
        interp.add_metric_fn(metric_fn)
    plan = interp.plan(class_name_for(fn.name.value, module_names))
    plan.helpers = list(interp.inlined_helpers)
    return plan


class Interpreter(StatementsMixin, AssignmentsMixin, ModesMixin, SpecMixin, VisibleNamesMixin, ForwardMixin,
                  LayerCallsMixin, LayerNamesMixin, KerasModelsMixin, NetworkHelpersMixin, LoopsMixin, VariablesMixin,
                  InputLayerMixin, LossMixin, TrainOpMixin, SummariesMixin, HooksMixin, TpuMixin, ResultMixin,
                  UnusedArgsMixin, HookValuesMixin, LoggingLoopsMixin, CheckpointInitMixin, AddedMetricsMixin,
                  ModeForwardMixin, UnpackedColumnsMixin):
    """Reads a model_fn statement by statement, for the three modes at once (the package's docstring says what
    converts); each mixin holds the methods of one construct family, this class the state they share."""

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
            if type(stmt) is cst.FunctionDef and helpers is None:  # (exact types: see _syntax._LITERALS)
                self.helpers[stmt.name.value] = stmt
            elif type(stmt) is cst.SimpleStatementLine and type(stmt.body[0]) is cst.Assign:
                assign = stmt.body[0]
                if isinstance(assign.value, cst.Call) and names.of(assign.value) in KERAS_MODELS:
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
        roles, self.signature_blocked = signature(fn)
        self.features, self.labels, self.mode = roles["features"], roles["labels"], roles["mode"]
        self.params = roles.get("params", "params")
        self.config = roles.get("config")
        self.locals = frozenset(roles.values())
        fn_names, self.assign_counts = names_and_assign_counts(fn)
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
        self.loop: Loop | None = None
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
        self.grads: dict[str, Grads] = {}
        self.trainable_lists: set[str] = set()
        self.grad_transforms: Grads | None = None  # what the train op did to the gradients
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
        self.stop_names: dict[str, cst.Call] = {}  # names bound to StopAtStepHook(...) (_hook_values)
        self.stop_hooks: list[cst.Call] = []  # StopAtStepHooks in training_hooks / training_chief_hooks
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
        self.live = ALL_MODES  # modes that have not returned yet
        self.active = ALL_MODES  # modes that run the current statement
        self.spec_predictions: cst.BaseExpression | None = None
        self.spec_predict_blocked = None  # PREDICT's EstimatorSpec raised a TypeError in TF1 (_spec.py)
        self.spec_export_outputs: cst.Dict | None = None
        self.spec_metrics: cst.Dict | None = None
        self.spec_eval_predictions: cst.BaseExpression | None = None  # EVAL's predictions= (add_metrics reads it)
        self.support: list[str] = []
        self.notes: list[tuple[str, str, cst.CSTNode | None]] = []
        self.docstring: str | None = None
        self.weights: dict[str, bool] = {}  # get_variable results: Python name → partitioned in TF1
        self.partitioner_vars: dict[str, partitioners.PartitionerPlan] = {}
        self.partitioners: list[partitioners.PartitionerPlan] = []
        self.scope_partitioner: partitioners.PartitionerPlan | None = None
        self.pending_leading: list = []  # comments above a flattened variable_scope
        self.mod_rows = False

    def tf(self, node) -> str | None:
        return self.names.of(node, self.locals)
