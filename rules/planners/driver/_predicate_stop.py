"""`tf.estimator.experimental.make_early_stopping_hook(est, should_stop_fn, run_every_secs, run_every_steps)` on
training (rules/planners/hooks.py, TFM611) → the generated EstimatorStopOnPredicate callback: TF 2.15's
_StopOnPredicateHook, calling the program's own should_stop_fn on the hook's timer."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from .. import hooks as hook_rules
from ...facts.calls import is_literal
from ...facts.sites import Site, bind_values


class PredicateStopMixin:
    """Analysis: an early-stopping hook made from a predicate of the program."""

    def predicate_stopping(self, call: cst.Call, value: Value, site: Site, where: str, inline: bool = False) -> None:
        """Registers the hook in early_stops (third parameter "should_stop_fn", no metric) or raises Blocked saying
        why it cannot be exact. Each training building its own hook is checked with the trainings (_reads)."""
        from .. import canned, keras_estimator

        path = self.tf(call.func, value.file)
        args = bind_values(call, ["estimator", "should_stop_fn", "run_every_secs", "run_every_steps"],
                           path.rsplit(".", 1)[1], value.file, value.env, rule=hook_rules.CODE)
        given = {k: v for k, v in args.items() if not is_literal(v.node, None)}

        def blocked(why, node=call):
            raise Blocked(hook_rules.CODE, hook_rules.early_stopping_blocked(why), node)

        if where != "train":
            blocked(f"on {where}: TF1 stopped an evaluation with it; attach it to training (train(hooks=...) or "
                    "TrainSpec(hooks=...))")
        for key in ("estimator", "should_stop_fn"):
            if key not in given:
                blocked(f"no {key} (TF1 raised)")
        # TF 2.15: run_every_secs defaults to 60; both set (or neither) raised ValueError from the hook or its timer
        if "run_every_secs" in given and "run_every_steps" in given:
            blocked("run_every_secs and run_every_steps are both set: TF 2.15 raised ValueError (\"Only one of "
                    "`run_every_secs` and `run_every_steps` must be set\"); pass run_every_secs=None",
                    given["run_every_steps"].node)
        if "run_every_steps" in given and "run_every_secs" not in args:
            blocked("run_every_steps with the default run_every_secs=60: TF 2.15 raised ValueError (\"Only one of "
                    "`run_every_secs` and `run_every_steps` must be set\"); pass run_every_secs=None",
                    given["run_every_steps"].node)
        if "run_every_secs" in args and "run_every_secs" not in given and "run_every_steps" not in given:
            blocked("run_every_secs=None without run_every_steps: TF 2.15's timer raised ValueError",
                    args["run_every_secs"].node)
        if self.site_of(given["estimator"]) is not site:
            blocked(f"`{code(given['estimator'].node)[:40]}` is not the Estimator it is attached to",
                    given["estimator"].node)
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
        self.early_stops[id(call)] = (site, call, value, {k: v for k, v in given.items() if k != "estimator"},
                                      None, hook_rules.PREDICATE, inline)
        if not any(n[2] is call for n in self.notes):
            timed = "run_every_steps" not in given
            self.notes.append((hook_rules.CODE, hook_rules.predicate_note(timed), call))
