"""The EstimatorSpec each mode returns: its loss, train_op, eval_metric_ops, predictions and export_outputs."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import bind, code, is_literal
from .. import metrics
from .. import tpu as tpu_rules
from ._constants import CODE, MODES, SPEC_ARGS

_SPEC_ARGS = SPEC_ARGS


class SpecMixin:
    """EstimatorSpec returns."""

    def unreturned_spec(self):
        target, _, stmt, _ = self.pending_spec
        raise Blocked(CODE, f"`{target} = tf.estimator.EstimatorSpec(...)` is converted when the next statement is "
                            f"`return {target}`; return the EstimatorSpec there (or directly)", stmt)

    def returns(self, ret: cst.Return) -> None:
        self.spec(ret.value, self.active)
        self.live = self.live - self.active
        self.active = frozenset()

    def is_spec(self, value: cst.Call) -> bool:
        path = self.tf(value)
        return path == "estimator.EstimatorSpec" or (self.tpu is not None and path in tpu_rules.SPECS)

    def spec(self, value, modes: frozenset[str]) -> None:
        if not (isinstance(value, cst.Call) and self.is_spec(value)):
            raise Blocked(CODE, "model_fn must return tf.estimator.EstimatorSpec(...)", value)
        tpu_spec = self.tf(value) != "estimator.EstimatorSpec"
        names = tpu_rules.SPEC_ARGS if tpu_spec else _SPEC_ARGS
        kind = "TPUEstimatorSpec" if tpu_spec else "EstimatorSpec"
        unknown = [a.keyword.value for a in value.args if a.keyword is not None and a.keyword.value not in names]
        if unknown:
            error = Blocked(CODE, f"{kind} has no argument '{unknown[0]}': TF1 raised a TypeError when this "
                                  f"return ran; fix the call (the mode goes first: {kind}(mode, ...))", value)
            if modes == frozenset({"PREDICT"}) and not tpu_spec:
                # only predict() and exports run PREDICT: a program doing neither never ran this return, and the model
                # converts without predictions (program.py blocks with this error where the program predicts)
                self.spec_predict_blocked = error
                return
            raise error
        args = bind(value, names, kind, CODE)
        if tpu_spec:
            args = self.tpu_spec_args(args)
        if "scaffold" in args and not is_literal(args["scaffold"], None):
            raise Blocked(CODE, "EstimatorSpec(scaffold=...) is not converted: the Keras model initialises and "
                                "saves its own variables", args["scaffold"])
        for hook in ("training_chief_hooks", "training_hooks", "evaluation_hooks", "prediction_hooks"):
            if hook in args and not is_literal(args[hook], None):
                self.spec_hooks(args[hook], hook)
        if "PREDICT" in modes and "export_outputs" in args and not is_literal(args["export_outputs"], None):
            # only PREDICT mode's export_outputs were exported (other modes' were never read)
            kind, payload = self.resolve(args["export_outputs"], "PREDICT")
            # an export reads them (program.py raises this then); otherwise they are dropped with a note
            self.spec_export_outputs = payload if kind == "dict" else Blocked(
                CODE, "export_outputs must be a dict literal (or a name assigned one)", args["export_outputs"])
        for mode in MODES:
            if mode not in modes:
                continue
            for key in ("predictions", "loss", "train_op", "eval_metric_ops"):
                if isinstance(args.get(key), cst.Name):
                    self.resolve(args[key], mode)  # a name unbound in this mode: TF1 failed there too
            if mode in ("TRAIN", "EVAL") and "loss" in args:
                node = args["loss"]
                if not self.is_loss_in(node, mode):
                    raise Blocked(CODE, f"EstimatorSpec(loss={code(node)}) is not the loss computed above", node)
            if mode == "TRAIN":
                if "loss" not in args or "train_op" not in args:
                    raise Blocked(CODE, "the EstimatorSpec returned in TRAIN mode must carry loss and train_op", value)
                node = args["train_op"]
                if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                        and node.func.attr.value == "minimize"):  # EstimatorSpec(train_op=optimizer.minimize(...))
                    active, self.active = self.active, frozenset({"TRAIN"})
                    self.minimize("__tfmigrate_train_op__", node)
                    self.active = active
                    node = cst.Name("__tfmigrate_train_op__")
                if self.resolve(node, mode)[0] != "train_op":
                    raise Blocked(CODE, f"EstimatorSpec(train_op={code(node)}) is not the training op computed above", node)
            if mode == "EVAL":
                kind, payload = self.resolve(args.get("eval_metric_ops"), mode)
                if kind not in ("dict", "none"):
                    raise Blocked(metrics.CODE, "eval_metric_ops must be a dict literal", args["eval_metric_ops"])
                self.spec_metrics = payload
                self.spec_eval_predictions = args.get("predictions")
            if mode == "PREDICT":
                node = args.get("predictions")
                kind, payload = self.resolve(node, mode)
                if kind in ("forward", "expression"):  # `predictions=tf.nn.softmax(logits)`: a lone tensor
                    payload = node  # written in terms of the model output below, or blocked naming what it lacks
                elif kind not in ("dict", "none"):
                    raise Blocked(CODE, "predictions must be a dict literal or a value of the forward pass", node)
                self.spec_predictions = payload

    def is_loss_in(self, node, mode: str) -> bool:
        if isinstance(node, cst.Name) and self.resolve(node, mode)[0] == "label" and self.loss is None:
            self.hand_written_loss(node.value, node)
        return isinstance(node, cst.Name) and self.resolve(node, mode)[0] == "loss"
