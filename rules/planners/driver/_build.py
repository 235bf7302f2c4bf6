"""The Estimator expression → the model built in its strategy's scope (Keras target) or the custom-loop trainer,
with its seed, RunConfig settings and warm start; the note for a builder nothing in the run calls."""
from __future__ import annotations

import textwrap

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from .. import tpu as tpu_rules
from ...emit.wrap import generated, wrap_call
from ...facts.calls import is_literal
from ...facts.sites import Site, Use
from ...facts.estimator import CODE
from ._inputs import is_atom_text
from ._training import writes_checkpoints


class BuildMixin:
    """Emitter: the statement that built the Estimator."""

    # ---- the Estimator expression ----------------------------------------------------------------------------
    def site(self, site: Site, edits) -> None:
        from .. import keras_estimator

        stmt = site.statement
        if not isinstance(stmt, cst.SimpleStatementLine):
            raise Blocked(CODE, "an Estimator built in the header of a compound statement is not converted; "
                                "assign it to a name first", site.call)
        lines = []
        if site.tpu is not None and site.tpu.live:  # before the guard: a refused TPU path raises there
            self.tpu_refusals(site)
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
        if site.tpu is not None and site.tpu.live:  # TPUStrategy where TF1 ran on a TPU (rules/planners/tpu_strategy.py)
            strategy_name = self.tpu_strategy(site, lines)
        elif visible:
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

    def tpu_refusals(self, site: Site) -> None:
        """What the generated TPU branch does not cover (rules/planners/tpu_strategy.py refuse: blocks, or for a
        flag defaulting to False the CPU path converts and the flag raises when set)."""
        from .. import tpu_strategy

        if site.target != "keras":
            tpu_strategy.refuse(self, site.tpu, f"--target {site.target} (TPUStrategy is generated for Keras fit "
                                                "only)", site.call)
        elif site.strategy_value is not None or site.strategy_binding is not None:
            tpu_strategy.refuse(self, site.tpu, "a train_distribute strategy besides it", site.call)
        elif site.strategy.parameter_server or (site.tpu.path == "only" and site.strategy.kinds != {"default"}):
            tpu_strategy.refuse(self, site.tpu, f"--strategy {'/'.join(sorted(site.strategy.kinds))} where TF1 "
                                                "ran on a TPU (TPUStrategy)", site.call)

    def tpu_strategy(self, site: Site, lines: list) -> str:
        from .. import tpu_strategy

        name = self.free_name("strategy", site.call)
        lines.append(tpu_strategy.strategy_lines(site.tpu, name, self.free_name("tpu_resolver", site.call),
                                                 lambda v: self.render(v, site.call, "the TPU path"),
                                                 self.strategy_expression(site)))
        self.notes.append((tpu_strategy.CODE, tpu_strategy.not_verified(site.tpu), site.call))
        if "iterations_per_loop" in site.tpu.tpu_config:
            self.notes.append((tpu_strategy.CODE, tpu_strategy.ITERATIONS,
                               site.tpu.tpu_config["iterations_per_loop"].node))
        return name

    def uncalled_note(self, site: Site, builder: str | None) -> None:
        """A def returning this Estimator that nothing in the run calls (`def build_estimator(model_dir)`) returns
        the converted model now: callers outside the run calling train/evaluate(input_fn=...) on it would break.
        The note says what it returns and how the conversion drives it where a caller is in the run. `builder`: the
        model's builder as called here (None for model_to_estimator's Keras model)."""
        from .. import canned, keras_estimator

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
        return f"if {'not ' if ws['negate'] else ''}{test if is_atom_text(ws['if'].node) else f'({test})'}:\n" + \
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

    def first_input(self, site: Site):
        for use in site.uses:
            if use.train:
                return use.train["input_fn"], "train"
        return None


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
