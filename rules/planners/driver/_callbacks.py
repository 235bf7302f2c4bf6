"""Keras fit's callbacks in the order TF1 ran the Estimator's hooks: checkpoints (EstimatorCheckpoints or
BackupAndRestore), summaries, the train hooks as callbacks, the NaN loss check."""
from __future__ import annotations

import json


from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value

from .. import hooks as hook_rules
from ...emit.wrap import wrap_call
from ...facts.calls import is_literal
from ...facts.sites import Site
from ...facts.estimator import CODE
from ._training import keras_resumes, writes_checkpoints


class CallbacksMixin:
    """Emitter: the callbacks of a converted training."""

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
        if id(hook.node) in self.analysis.early_stops:  # written inline in the hooks list
            return self.early_stopping_text(self.analysis.early_stops[id(hook.node)], at)
        if id(hook.node) not in site.loggers:
            return self.render(hook, at, "hook")
        named, args = site.loggers[id(hook.node)]
        plan = self.plans.get(id(site.model_fn.node))
        keys = dict(getattr(plan, "logged", ()))
        items = []
        for tag, name, node in named:
            from ..model_fn import logged_name_key

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
        if getattr(plan, "stops", None) and receiver is not None:  # StopAtStepHooks of training_hooks
            items.append(f"*{receiver}.stop_hooks()")
        return f"[{', '.join(items)}]"

    def early_stopping_edits(self, edits) -> None:
        """Each early-stopping hook call of this file → the generated EstimatorEarlyStopping, reading model_dir/eval
        (the Estimator's eval_dir, where the migrated evaluate writes its summaries: eval_summaries)."""
        for entry in self.analysis.early_stops.values():
            if entry[2].file is self.file and not entry[6]:
                edits.replace(entry[1], wrap_call(self.early_stopping_text(entry, entry[1]), "", width=92))

    def early_stopping_text(self, entry, at) -> str:
        """The EstimatorEarlyStopping constructor of one early-stopping hook (_hooks.early_stopping's entry)."""
        site, call, _, args, higher, third, _ = entry
        if third == hook_rules.PREDICATE:  # make_early_stopping_hook: the program's predicate on the hook's timer
            text = [self.render(args["should_stop_fn"], at, "should_stop_fn")]
            text += [f"{k}={self.render(args[k], at, k)}" for k in ("run_every_secs", "run_every_steps") if k in args]
            if "run_every_steps" in args and "run_every_secs" not in args:
                text.append("run_every_secs=None")  # given as None (else TF1 raised): the callback's default is 60
            return f"{self.support_name(site, 'EstimatorStopOnPredicate', at)}({', '.join(text)})"
        model_dir = self.render(site.run_config["model_dir"], at, "model_dir")
        text = [self.render(args["metric_name"], at, "metric_name"),
                f'tf.io.gfile.join({model_dir}, "eval")', f"higher_is_better={higher}"]
        key = "threshold" if third == "threshold" else "max_steps_without_improvement"
        text.append(f"{key}={self.render(args[third], at, third)}")
        # run_every_secs given as None when run_every_steps is (else TF1 raised): the callback's default is 60 too
        text += [f"{k}={self.render(args[k], at, k)}" for k in ("min_steps", "run_every_secs", "run_every_steps")
                 if k in args]
        if "run_every_steps" in args and "run_every_secs" not in args:
            text.append("run_every_secs=None")
        return f"{self.support_name(site, 'EstimatorEarlyStopping', at)}({', '.join(text)})"

    def eval_summaries(self, site: Site, use, at) -> str:
        """`, callbacks=[EvalSummaries(eval_dir)]` for an evaluation of an Estimator an early-stopping hook reads:
        the Estimator wrote every evaluation's metrics to eval_dir ("eval", or "eval_<name>"); else ""."""
        if not any(entry[0] is site and entry[5] != hook_rules.PREDICATE  # (a predicate reads no evaluation)
                   for entry in self.analysis.early_stops.values()):
            return ""
        model_dir = self.render(site.run_config["model_dir"], at, "model_dir")
        name = use.evaluate.get("name")
        where = '"eval"' if name is None or is_literal(name.node, None) else \
            f'"eval_" + {self.render(name, at, "name")} if {self.render(name, at, "name")} else "eval"'
        return f", callbacks=[{self.support_name(site, 'EvalSummaries', at)}(tf.io.gfile.join({model_dir}, {where}))]"

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
