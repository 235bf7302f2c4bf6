"""The driver's analysis: every Estimator site of a program and its uses, composed of the mixins that read
each part (which Estimator, its RunConfig, the calls, specs and hooks that drive it, what goes away)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, FunctionRef, Program, Resolved, Value

from .. import tpu as tpu_rules
from ...facts.sites import CODE_KIND, OTHER_KINDS, Site, kind_message
from ._add_metrics import ADD_METRICS, AddMetricsMixin
from ._forward_features import FORWARD_FEATURES, ForwardFeaturesMixin
from ._calls import CallsMixin
from ._estimator import ESTIMATOR_CLASS, EstimatorMixin
from ._hooks import HooksMixin
from ._predicate_stop import PredicateStopMixin
from ._reads import ReadsMixin
from ._removal import RemovalMixin
from ._run_config import RunConfigMixin
from ._specs import SpecsMixin
from ._why import WhyMixin


# TF 1.x's tf.contrib.tpu.TPUEstimator is the class tf_upgrade_v2 renames to tf.compat.v1.estimator.tpu.TPUEstimator
_TPU_ESTIMATORS = ("estimator.tpu.TPUEstimator", "contrib.tpu.TPUEstimator")


class Analysis(AddMetricsMixin, ForwardFeaturesMixin, EstimatorMixin, RunConfigMixin, WhyMixin, CallsMixin, SpecsMixin, HooksMixin, RemovalMixin,
               ReadsMixin, PredicateStopMixin):
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
        self.chosen: dict[int, list[Site]] = {}  # id(call) on a name holding one of several Estimators → their Sites
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
        # receivers of get_variable_value / get_variable_names / latest_checkpoint calls left as written: the trainer
        # generated for a model_fn that trains by assignment answers them (planners/assign_step.py)
        self.kept_reads: set[int] = set()
        # id(call) of an early-stopping hook on training → (site, call, Value, arguments, higher_is_better, the
        # third parameter's name) (_hooks.early_stopping)
        self.early_stops: dict[int, tuple] = {}
        # id(Estimator call) → the caller's argument when the model_fn is handed to a run loop (_handed.py)
        self.handed: dict[int, object] = {}
        self.wrappers: dict[int, tuple] = {}  # add_metrics calls standing for the Estimator they wrap (_add_metrics.py)

    def tf(self, node, file: FileIndex) -> str | None:
        return self.names_for(file).of(node)

    # ---- finding ------------------------------------------------------------------------------------------
    def run(self) -> "Analysis":
        # `MyEstimator(...)` needs a class of the program with an Estimator base: without one, no call's callee is
        # resolved to look for it
        subclasses = any(self.tf(b.value, file) in ESTIMATOR_CLASS for file in self.program.files
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
                    from .. import canned  # canned estimators: a Site whose model rules/planners/canned.py generates

                    if self._guard(canned.site, self, call, file, path) is False:
                        self._failed.add(id(call))
                elif path == "keras.estimator.model_to_estimator":
                    from .. import keras_estimator  # the compiled Keras model itself (rules/planners/keras_estimator.py)

                    if self._guard(keras_estimator.site, self, call, file) is False:
                        self._failed.add(id(call))
                elif path in _TPU_ESTIMATORS:  # use_tpu=False: an Estimator (rules/planners/tpu.py)
                    if self._guard(self._site, call, file, path) is False:
                        self._failed.add(id(call))
                elif path in OTHER_KINDS:
                    self.errors.append(Blocked(CODE_KIND, kind_message(path), call))
        for file in self.program.files:  # (after every site is known: the Estimator may be built further down)
            for call in file.calls:
                if paths.get(id(call)) in ADD_METRICS and self._guard(self.add_metrics, call, file) is False:
                    self._failed.add(id(call))
        for file in self.program.files:  # after add_metrics: a chain wraps the add_metrics Estimator
            for call in file.calls:
                if paths.get(id(call)) in FORWARD_FEATURES and self._guard(self.forward_features, call, file) is False:
                    self._failed.add(id(call))
        for file in self.program.files:
            for call in file.calls:
                path = paths[id(call)] if id(call) in paths else self.tf(call, file)
                if self._guard(self._use, call, file, path) is False:
                    self._failed.add(id(call))  # reported; the Estimator's holder check skips it
        self._guard(self.check_added_metrics)
        self._guard(self.check_forwarded)
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

    def line(self, node, file: FileIndex) -> int:
        from tfmigrate.engine import position_in

        return position_in(file.module, node)[0]
