"""The calls that drive an Estimator → Keras `fit` / `evaluate` / `predict_examples` / `export_*_saved_model`
(Keras target) or the custom-loop trainer's `train` / `evaluate` / `predict`, with the restore of model_dir before."""
from __future__ import annotations

import textwrap

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import code, operand

from ...emit.wrap import wrap_call
from ...facts.sites import Site, Use
from ...facts.estimator import CODE
from ._add_metrics import without_hidden
from ._inputs import callable_text
from ._training import keras_resumes, resumes
from ._values import Relative


class DriveMixin:
    """Emitter: each Use of a site as code."""

    def train_text(self, site: Site, use: Use, start: str | None = None) -> str:
        """`start`: the name holding the step restored from model_dir (Keras target): max_steps stays the
        Estimator's absolute global step, so fit trains the steps left."""
        receiver = code(use.receiver)
        at = use.call
        if isinstance(use.train.get("max_steps"), Relative):
            start = None  # train(steps=N): N more steps, wherever training starts
        self.start = start
        steps = self.render(use.train["max_steps"], at, "max_steps") if "max_steps" in use.train else None
        self.start = None
        if site.target == "keras":
            plan = self.plans[id(site.model_fn.node)]
            data = self.keras_data(use.train["input_fn"], site, at, "train", receiver)
            # no max_steps: the Estimator trained until the input ended, as one epoch over it does
            left = steps if start is None or steps is None else \
                f"{operand(steps)} - {start}"
            per_epoch = f"steps_per_epoch={left}, " if steps is not None else ""
            return wrap_call(f"{receiver}.fit({data}, epochs=1, {per_epoch}"
                             f"callbacks={self.callbacks(site, plan, at, use.train.get('callbacks', ()), use.train.get('checkpoint'), receiver)})", "",
                             width=92)
        self.summaries_without_model_dir(site, self.plans.get(id(site.model_fn.node)))
        dataset_fn, _ = self.dataset_fn(use.train["input_fn"], site, at, "train")
        # max_steps=None: until the input ends, as the Estimator trained without max_steps
        hooks = [item for item in (self.hook_item(h, site, at, receiver) for h in use.train.get("callbacks", ()))
                 if item is not None]
        extra = f", callbacks=[{', '.join(hooks)}]" if hooks else ""
        saver = use.train.get("checkpoint")
        if saver is not None:  # a CheckpointSaverHook: its directory, steps and basename instead of model_dir's
            extra += (f", checkpoint_dir={self.render(saver['checkpoint_dir'], at, 'checkpoint_dir')}"
                      f", save_steps={self.render(saver['save_steps'], at, 'save_steps')}")
            if "checkpoint_basename" in saver:
                extra += f", checkpoint_basename={self.render(saver['checkpoint_basename'], at, 'checkpoint_basename')}"
        return wrap_call(f"{receiver}.train({dataset_fn}, max_steps={steps}{extra})", "", width=92)

    def resume_lines(self, site: Site, use: Use) -> tuple[list[str], str | None, str | None]:
        """Keras target: (statements restoring model_dir before fit, the name of the step reached, the condition
        under which fit still has steps to train, None without max_steps)."""
        if site.target != "keras" or not (resumes(site) or keras_resumes(site)):
            return [], None, None
        receiver, at = code(use.receiver), use.call
        model_dir = self.render(site.run_config["model_dir"], at, "model_dir")
        start = self.free_name("initial_step", at)
        if keras_resumes(site):  # a compiled Keras model: the generated function next to it (keras_support)
            lines = [f"{start} = restore_model_dir({receiver}, {model_dir})  # resume where training stopped"]
        else:
            lines = [f"{start} = {receiver}.restore_model_dir({model_dir}, {receiver}.optimizer)  "
                     "# resume where training stopped"]
        if "max_steps" not in use.train or isinstance(use.train["max_steps"], Relative):
            return lines, start, None
        self.start = start
        steps = self.render(use.train["max_steps"], at, "max_steps")
        self.start = None
        return lines, start, f"{start} < {operand(steps)}"

    def evaluate_text(self, site: Site, use: Use, default_steps: str | None) -> str:
        receiver = code(use.receiver)
        at = use.call
        steps_value = use.evaluate.get("steps")
        steps = self.render(steps_value, at, "steps") if steps_value is not None else default_steps or "None"
        if site.target == "keras":
            data = self.keras_data(use.evaluate["input_fn"], site, at, "eval", receiver)
            from .. import keras_estimator

            if keras_estimator.is_keras(site) and (keras_estimator.CODE, keras_estimator.EVAL_LOSS_NOTE, use.call) \
                    not in self.notes:
                self.notes.append((keras_estimator.CODE, keras_estimator.EVAL_LOSS_NOTE, use.call))
            summaries = self.eval_summaries(site, use, at)
            return without_hidden(self.analysis, use, wrap_call(
                f"{receiver}.evaluate({data}, steps={steps}, return_dict=True{summaries})", "", width=92))
        dataset_fn, _ = self.dataset_fn(use.evaluate["input_fn"], site, at, "eval")
        return without_hidden(self.analysis, use, wrap_call(f"{receiver}.evaluate({dataset_fn}, steps={steps})", "",
                                                            width=92))

    def predict_text(self, site: Site, use: Use) -> str:
        """Estimator.predict's generator: the migrated model's PREDICT outputs, per example or per batch, from the
        input_fn's dataset as the Estimator read it (features of (features, labels) elements, no strategy)."""
        at = use.call
        data, _ = self.dataset_fn(use.predict["input_fn"], site, at, "infer")
        args = [data]
        for key in ("predict_keys", "yield_single_examples"):
            if key in use.predict:
                args.append(f"{key}={self.render(use.predict[key], at, key)}")
        method = "predict_examples" if site.target == "keras" else "predict"
        return wrap_call(f"{code(use.receiver)}.{method}({', '.join(args)})", "", width=92)

    def export_text(self, site: Site, use: Use, base: str | None = None, receiver: dict | None = None) -> str:
        """export_saved_model → the model's export_parsing_saved_model (a parsing receiver),
        export_raw_saved_model (build_raw_serving_input_receiver_fn) or export_receiver_saved_model (a hand-written
        one): the same signatures in each case."""
        at = use.call
        receiver = use.export if receiver is None else receiver
        args = [base or self.render(use.export["export_dir_base"], at, "export_dir_base")]
        if "raw_features" in receiver:
            method = "export_raw_saved_model"
            args.append(self.render(receiver["raw_features"], at, "features"))
            if "default_batch_size" in receiver:
                args.append(f"default_batch_size={self.render(receiver['default_batch_size'], at, 'default_batch_size')}")
        elif "receiver_fn" in receiver:
            method = "export_receiver_saved_model"
            args.append(self.render(receiver["receiver_fn"], at, "serving_input_receiver_fn"))
            if receiver["single_feature"]:
                args.append("single_feature=True")
        else:
            method = "export_parsing_saved_model"
            args.append(self.render(receiver["feature_spec"], at, "feature_spec"))
            if "default_batch_size" in receiver:
                args.append(f"default_batch_size={self.render(receiver['default_batch_size'], at, 'default_batch_size')}")
        model = code(use.receiver) if site.target == "keras" else f"{code(use.receiver)}.model"
        return wrap_call(f"{model}.{method}({', '.join(args)})", "", width=92)

    def exporter_texts(self, site: Site, use: Use) -> list[str]:
        """EvalSpec exporters: one export each into model_dir/export/<name>, after training."""
        model_dir = self.render(site.run_config["model_dir"], use.call, "model_dir")
        return [self.export_text(site, use, f'tf.io.gfile.join({model_dir}, "export", '
                                            f'{self.render(name, use.call, "exporter name")})', receiver)
                for name, receiver in use.exporters]

    def restore_text(self, site: Site, use: Use) -> str:
        """`model.restore_checkpoint(model_dir, sample, ...)` before a predict / evaluate / export that restored a
        checkpoint the migrated model does not hold yet: one element of the data it reads builds the variables
        (Keras builds lazily), then checkpoint_path or model_dir's latest is read (TF1 names or this program's)."""
        at, receiver = use.call, code(use.receiver)
        if site.target == "keras":
            model = receiver
            model_dir = self.render(site.run_config["model_dir"], at, "model_dir") \
                if "model_dir" in site.run_config else "None"
        else:
            model, model_dir = f"{receiver}.model", f"{receiver}.model_dir"
        if use.kind == "predict":
            sample = f"next(iter({self.dataset_fn(use.predict['input_fn'], site, at, 'infer')[0]}))"
        elif use.kind == "evaluate":
            fn, shards = self.dataset_fn(use.evaluate["input_fn"], site, at, "eval")
            if fn.startswith("lambda input_context: ") and not shards:
                sample = f"next(iter({fn[len('lambda input_context: '):]}))"
            else:
                sample = f"next(iter({callable_text(fn, cst.parse_expression(fn))}(tf.distribute.InputContext())))"
        elif "raw_features" in use.export:  # build_raw_serving_input_receiver_fn's tensors: what the signature feeds
            sample = self.render(use.export["raw_features"], at, "features")
        elif "receiver_fn" in use.export:  # a hand-written receiver: its features for an empty batch
            sample = f'{model}.receiver_sample({self.render(use.export["receiver_fn"], at, "serving_input_receiver_fn")}' \
                + (", single_feature=True)" if use.export["single_feature"] else ")")
        else:  # an empty batch of the parsing spec: the shapes the serving signature feeds
            spec = self.render(use.export["feature_spec"], at, "feature_spec")
            sample = f'tf.io.parse_example(tf.constant([], tf.string), {spec})'
        args = [model_dir, sample]
        if use.checkpoint is not None:
            args.append(f"checkpoint_path={self.render(use.checkpoint, at, 'checkpoint_path')}")
        elif site.target == "keras" and not any(n[0] == CODE and n[2] is site.call for n in self.notes):
            self.notes.append((CODE, "restores model_dir's latest checkpoint first, as the Estimator did: the "
                                     "Estimator's own, or the model.ckpt-<step> a migrated Keras fit wrote "
                                     "(EstimatorCheckpoints: the last step included); a latest.weights.h5 an earlier "
                                     "migrated fit's BackupAndRestore left there is read when saved at a later step",
                                 site.call))
        if use.kind == "export":
            args.append("required=True")
        return wrap_call(f"{model}.restore_checkpoint({', '.join(args)})", "", width=92)

    def use(self, site: Site, use: Use, edits) -> None:
        stmt = self.file.statement_of(use.call)
        if use.restore:
            edits.insert_before(stmt, [self.restore_text(site, use)])
        if use.kind == "predict":
            edits.replace(use.call, self.predict_text(site, use))
            return
        if use.kind == "export":
            edits.replace(use.call, self.export_text(site, use))
            return
        if site.target == "keras" and use.train and ("model_dir" in site.run_config or site.warm_start):
            self.build_before_fit(site, use, edits)
        if use.kind == "train":
            resume, start, test = self.resume_lines(site, use) if use.train else ([], None, None)
            edits.replace(use.call, self.train_text(site, use, start))
            if resume:
                edits.insert_before(stmt, resume)
            if test:  # max_steps reached already: the Estimator trained nothing
                edits.wrap(stmt, f"if {test}:", [])
        elif use.kind == "evaluate":
            edits.replace(use.call, self.evaluate_text(site, use, None))
        else:
            if not isinstance(stmt, cst.SimpleStatementLine):
                raise Blocked(CODE, "train_and_evaluate in the header of a compound statement is not converted",
                              use.call)
            if "throttle_secs" in use.evaluate or "start_delay_secs" in use.evaluate:
                self.notes.append((CODE, "EvalSpec throttle/start delay: evaluation runs once, after training",
                                   use.call))
            exports = self.exporter_texts(site, use) if use.exporters else []
            parent = self.file.parent(use.call)
            bare = isinstance(parent, cst.Expr)
            if exports and not bare:  # the export paths are train_and_evaluate's second result
                name = self.free_name("export_results", use.call)
                exports = [f"{name} = [\n" + "".join("    " + e.replace("\n", "\n    ") + ",\n" for e in exports) + "]"]
            resume, start, test = self.resume_lines(site, use)
            train = self.train_text(site, use, start)
            if test:  # max_steps reached already: the Estimator trained nothing
                train = f"if {test}:\n" + textwrap.indent(train, "    ")
            edits.insert_before(stmt, [*resume, train, *exports])
            evaluate = self.evaluate_text(site, use, "100")  # EvalSpec's default steps
            # train_and_evaluate returned (eval_result, export_results)
            edits.replace(use.call, evaluate if bare else f"({evaluate}, {name if exports else '[]'})")

