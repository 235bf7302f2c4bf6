"""The hooks a training or evaluation attaches (rules/planners/hooks.py, TFM611): dropped with a note, the step
training stops at, a checkpoint saver, logging and step-counter hooks, SessionRunHook subclasses as callbacks."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value, code

from .. import hooks as hook_rules
from ...facts.calls import is_literal
from ...facts.sites import Site, bind_values
from ._training import loop_writes_checkpoints, resumes, writes_checkpoints
from ._values import Relative, is_empty


class HooksMixin:
    """Analysis: what each hook of a hook list becomes."""

    def hooks(self, value: Value, site: Site, where: str) -> dict[str, Value]:
        """The hooks a list attaches: observing hooks are dropped with a note, StopAtStepHook gives the step
        training stops at ({"last_step": v} or {"num_steps": v}); every other hook blocks (rules/planners/hooks.py)."""
        if is_literal(value.node, None) or is_empty(value.node):
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
                elif isinstance(call, cst.Call) and self.tf(call.func, h.value.file) in (
                        *hook_rules.EARLY_STOPPING, *hook_rules.MAKE_EARLY_STOPPING):
                    # a metric's stop_if_*_hook, or make_early_stopping_hook's predicate (_predicate_stop.py)
                    stopping = self.early_stopping if self.tf(call.func, h.value.file) in hook_rules.EARLY_STOPPING \
                        else self.predicate_stopping
                    try:
                        stopping(call, h.value, site, where, inline=element.value is call)
                    except Blocked:
                        self._failed.add(id(call))  # its read of the Estimator is this report's, not another
                        raise
                    # the hook as the program wrote it (a name holding it stays); its call becomes the callback's
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
            from .. import canned

            if site.target != "keras" and (canned.is_canned(site) or site.strategy.parameter_server) \
                    and any(id(c.node) not in site.loggers and id(c.node) not in site.counters for c in callbacks):
                raise Blocked(hook_rules.CODE, f"hook `{code(callbacks[0].node)[:60]}`: a SessionRunHook subclass "
                                               "is converted to a keras.callbacks.Callback, called by Keras fit or by "
                                               "the custom loop of a model_fn Estimator; not by the canned or "
                                               "parameter-server training loop yet (use --target keras)",
                                   callbacks[0].node)
            stop["callbacks"] = callbacks
        return stop

    def early_stopping(self, call: cst.Call, value: Value, site: Site, where: str, inline: bool = False) -> None:
        """`tf.estimator.experimental.stop_if_{higher,lower,no_increase,no_decrease}_hook(est, metric, x, ...)` on
        training → the generated EstimatorEarlyStopping (rules/planners/hooks.py); Blocked saying why otherwise.
        Whether each training builds its own hook is checked with the trainings (check_early_stopping)."""
        from .. import canned, keras_estimator

        path = self.tf(call.func, value.file)
        higher, third = hook_rules.EARLY_STOPPING[path]
        signature = [third if name is None else name for name in hook_rules.EARLY_STOPPING_ARGS]
        args = bind_values(call, signature, path.rsplit(".", 1)[1], value.file, value.env, rule=hook_rules.CODE)
        given = {k: v for k, v in args.items() if not is_literal(v.node, None)}

        def blocked(why, node=call):
            raise Blocked(hook_rules.CODE, hook_rules.early_stopping_blocked(why), node)

        if where != "train":
            blocked(f"on {where}: TF1 stopped an evaluation with it; attach it to training (train(hooks=...) or "
                    "TrainSpec(hooks=...))")
        for key in ("estimator", "metric_name", third):
            if key not in given:
                blocked(f"no {key} (TF1 raised)")
        if "run_every_secs" in args and "run_every_secs" not in given and "run_every_steps" not in given:
            blocked("run_every_secs=None without run_every_steps: TF 2.15's timer raised ValueError",
                    args["run_every_secs"].node)
        if "run_every_secs" in given and "run_every_steps" in given:
            blocked("run_every_secs and run_every_steps are both set: TF 2.15 raised ValueError (\"Only one of "
                    "`run_every_secs` and `run_every_steps` must be set\"); pass run_every_secs=None",
                    given["run_every_steps"].node)
        if "run_every_steps" in given and "run_every_secs" not in args:
            blocked("run_every_steps with the default run_every_secs=60: TF 2.15 raised ValueError (\"Only one of "
                    "`run_every_secs` and `run_every_steps` must be set\"); pass run_every_secs=None",
                    given["run_every_steps"].node)
        if self.site_of(given["estimator"]) is not site:
            blocked(f"`{code(given['estimator'].node)[:40]}` is not the Estimator it is attached to (it read another "
                    "Estimator's eval_dir)", given["estimator"].node)
        if site.target != "keras":
            blocked("converted on the Keras target (the custom training loop calls no such callback yet); use "
                    "--target keras")
        if canned.is_canned(site) or keras_estimator.is_keras(site):
            blocked("converted for a model_fn Estimator, not a canned or model_to_estimator one")
        kinds = (site.original_kinds or set()) | (site.strategy.kinds if site.strategy is not None else set())
        if kinds - {"default"}:
            blocked("under a distribution strategy TF 2.15 made its multi-worker hook instead (any train_distribute: "
                    "it raised ValueError with run_every_secs, and with run_every_steps stopped a step after the "
                    "check that asked), which is not converted; train without a strategy")
        if not resumes(site):
            blocked("the Estimator has no model_dir: its evaluations went to a temporary directory the migrated "
                    "program does not make; give RunConfig(model_dir=...)")
        if "eval_dir" in given:
            d = given["eval_dir"].node
            if not (isinstance(d, cst.Call) and isinstance(d.func, cst.Attribute) and d.func.attr.value == "eval_dir"
                    and not d.args and self.site_of(Value(d.func.value, value.file, value.env)) is site):
                blocked("eval_dir=... other than the Estimator's own eval_dir(): the migrated evaluate writes the "
                        "Estimator's evaluation summaries to model_dir/eval only; drop eval_dir", d)
        # inline in the hooks list: rendered into the callbacks there (hook_item); else its call is replaced
        self.early_stops[id(call)] = (site, call, value, {k: v for k, v in given.items()
                                                          if k not in ("estimator", "eval_dir")}, higher, third, inline)
        if not any(n[2] is call for n in self.notes):
            self.notes.append((hook_rules.CODE, hook_rules.EARLY_STOPPING_NOTE, call))

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
        from .. import canned, keras_estimator

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
        from .. import canned, keras_estimator

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
            if key in given and not (key == "listeners" and is_empty(given[key].node)):
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
