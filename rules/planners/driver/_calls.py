"""What drives an Estimator: train / evaluate / train_and_evaluate / predict / export_saved_model calls → the
site's Uses, with the checkpoint each restores first."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value, code

from .. import strategy as strategies
from ...facts.calls import is_literal
from ...facts.sites import CODE_KIND, Site, Use, bind_values
from ...facts.estimator import EVAL_SPEC_ARGS, EVALUATE_ARGS, EXPORT_ARGS, EXPORT_SAVEDMODEL_ARGS, PREDICT_ARGS, TRAIN_ARGS, TRAIN_SPEC_ARGS, CODE
from ._chosen import chosen_sites
from ._checkpoint_reads import READS as CHECKPOINT_READS, message as checkpoint_read_message
from ._training import check_end_of_input, resumes, stop_at
from ._values import Relative


# functions returning a new Estimator around the one they are given, with what the wrapper added and what to do
_WRAPPERS = {
    path: what for paths, what in [
        (("estimator.add_metrics", "contrib.estimator.add_metrics"),
         "the Estimator it returns also evaluates the metric_fn's metrics; return them from the model_fn's "
         "eval_metric_ops instead (a canned Estimator: compute them from the migrated model's predictions after "
         "evaluation) and drive the Estimator itself"),
        (("contrib.estimator.forward_features",),
         "the Estimator it returns adds input features to its predictions (and, from the later TF 1.x releases on, "
         "to its PredictOutput export signatures: TF 1.x releases differ there, and TF 2.15's tensorflow_estimator "
         "has no forward_features to run it on); drive the Estimator itself and read those features from the input "
         "next to the migrated predictions"),
    ] for path in paths}


_ESTIMATOR_METHODS = {"train", "evaluate", "predict", "export_saved_model", "export_savedmodel",
                      "experimental_export_all_saved_models", "get_variable_value", "get_variable_names",
                      "latest_checkpoint", "model_dir", "config", "params", "model_fn"}


class CallsMixin:
    """Analysis: each call on an Estimator becomes a Use of its site."""

    # ---- what drives it --------------------------------------------------------------------------------------
    def _use(self, call: cst.Call, file: FileIndex, path: str | None) -> None:
        """A use of an Estimator (`path`: the call's TF path, `self.tf(call, file)`)."""
        if id(call) in self.wrappers or id(call) in self._failed:
            return  # add_metrics over an Estimator of the run: converted or reported (_add_metrics.py)
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
            chosen = chosen_sites(self, site) if not isinstance(site, Site) else None
            if chosen:  # one of several Estimators, chosen by an if/elif: a Use of each (_chosen.py)
                self.chosen[id(call)] = chosen
                for one in chosen:
                    self._train_and_evaluate(one, call, file, args)
                return
            if not isinstance(site, Site):
                raise Blocked(CODE, f"train_and_evaluate(`{code(args['estimator'].node)}`, ...): "
                                    f"{self.why(site, 'an Estimator')}", call)
            self._train_and_evaluate(site, call, file, args)
            return
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _ESTIMATOR_METHODS):
            return
        site = self.site_of(Value(func.value, file))
        chosen = chosen_sites(self, site) if not isinstance(site, Site) else None
        if chosen:  # one of several Estimators, chosen by an if/elif: a Use of each (_chosen.py)
            self.chosen[id(call)] = chosen
            for one in chosen:
                self._method_use(one, call, file, func)
            return
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
        self._method_use(site, call, file, func)

    def _train_and_evaluate(self, site: Site, call: cst.Call, file: FileIndex, args) -> None:
        """`tf.estimator.train_and_evaluate(est, train_spec, eval_spec)` of the Estimator of `site`: its Use."""
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

    def _method_use(self, site: Site, call: cst.Call, file: FileIndex, func: cst.Attribute) -> None:
        """`est.train(...)`, `est.evaluate(...)`, ... on the Estimator of `site`: its Use."""
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
            steps = stop_at(steps, stop)
            if "input_fn" not in args:
                raise Blocked(CODE, "train() without input_fn", call)
            if steps is None:
                check_end_of_input(site, call)
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
        elif method in CHECKPOINT_READS:
            from .. import model_fn  # (a model_fn's meaning: its package)

            fn = getattr(site, "model_fn", None)
            if fn is not None and isinstance(fn.node, cst.FunctionDef) and model_fn.trains_by_assignment(
                    fn.node, lambda node: self.tf(node, fn.file)):
                self.kept_reads.add(id(func.value))  # the generated trainer answers it by TF1 name, as the
                return  # Estimator did (planners/assign_step.py)
            raise Blocked(CODE, checkpoint_read_message(method), call)
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
        return use

    def _restore(self, site: Site, use: Use, checkpoint: Value | None, what: str) -> None:
        """predict / evaluate / export_saved_model restored a checkpoint first: `checkpoint_path` if given, else the
        latest in model_dir (none: predict/evaluate ran on freshly initialised variables, export raised). Right
        after training in the same function that is the weights the migrated model holds; otherwise the migrated
        model restores the same checkpoint (Model.restore_checkpoint), or the use is blocked saying why."""
        same = _same_object(self.program, use)
        trained = _trained_before(site, use.call, use.file, lambda u: u.kind in ("train", "train_and_evaluate")
                                  and same(u))
        if checkpoint is None and not _trained_before(site, use.call, use.file, lambda u: u.checkpoint is not None
                                                      and same(u)) \
                and _trained_before(site, use.call, use.file, lambda u: (u.kind in ("train", "train_and_evaluate")
                                    or u.restore and use.kind != "export") and same(u)):
            # trained, or model_dir's latest restored, earlier in this function (no checkpoint_path since); an
            # export restores again: without a checkpoint it raised where predict/evaluate went on
            return
        model_dir = site.run_config.get("model_dir")
        has_dir = model_dir is not None and not (isinstance(model_dir, Value) and is_literal(model_dir.node, None))
        where = "with nothing trained before it in the same function" if not trained else "with checkpoint_path"
        from .. import keras_estimator

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


def _same_object(program, use: Use):
    """Whether an earlier use drove the same Estimator object as `use`: a builder called again (a notebook's
    prediction cell calling the training cell's `create_estimator(...)` anew) builds the same Site but a new object,
    whose predict restored model_dir where the migrated model is freshly built. Receivers read through names are
    compared by the bindings reaching them; others are taken as one object, as before."""
    def bindings(u: Use):
        if not isinstance(u.receiver, cst.Name):
            return None
        return [id(b) for b in program.lookup(u.receiver.value, u.call, u.file)]

    mine = bindings(use)
    return lambda u: mine is None or u.file is not use.file or bindings(u) in (None, mine)


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
