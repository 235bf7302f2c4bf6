"""EstimatorSpec hooks (rules/planners/hooks.py): NanTensorHook on the loss, LoggingTensorHook and StepCounterHook
→ the generated TensorLogger / StepCounter callbacks, and the TF names of named tensors they log."""
from __future__ import annotations

import json

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...emit.wrap import wrap_call
from ...facts.calls import bind, code, is_literal
from .. import hooks, layers, losses, metrics
from ._constants import BUILTINS, CODE
from ._names import calls_in, lambda_names
from ._variable_makers import makes_variables


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


class HooksMixin:
    """NaN, logging and step-counter hooks."""

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
            stop = self.stop_names.get(value.value) if isinstance(value, cst.Name) else \
                value if hooks.hook_kind(path) == hooks.STOP else None
            if stop is not None:  # _hook_values
                self.spec_stop_hook(stop, where)
                continue
            if isinstance(value, cst.Call) and self.drop(path, value):
                continue
            kind = hooks.hook_kind(path)
            raise Blocked(hooks.CODE, hooks.blocked_message(kind, code(value)), value)

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
            reads_params |= self.params in self.free_names(given) | lambda_names(given)
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
        names = self.free_names(node) | lambda_names(node)
        bad = names - self.module_names - BUILTINS - {self.params}
        if bad:
            raise Blocked(hooks.CODE, hooks.logging_dropped(
                f"its formatter reads `{sorted(bad)[0]}`, a local of the model_fn; use a module-level function"), node)
