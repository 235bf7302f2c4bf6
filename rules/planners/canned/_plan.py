"""The plan the templates render for a canned model (its class, builder, loss, metrics, optimizer), like
program._model_plan for a model_fn."""
from __future__ import annotations

import re
from dataclasses import dataclass, field


from tfmigrate.diagnostics import Blocked

from .. import feature_columns as fcols
from .. import heads, optimizers, partitioners
from ...emit.assembly import free_name
from ._model import CODE, CannedModel


SUPPORT_NAMES = ("numeric_input", "bucketized_input", "indicator_input", "LinearModel", "ColumnWeights", "SquaredError",
                  *fcols.SUPPORT_PARTS)


_OPTIMIZER_NAMES = ("TF1Ftrl", "LegacyAdagrad", "LegacyKerasAdam", "LegacyRMSprop", "WideDeepOptimizer", "TF1Adam",
                   "TF1Momentum", "WideDeepSteps", "TF1ProximalAdagrad", "WideDeepGlobalStep")


_PS_NAMES = ("parameter_server_strategy", "VARIABLE_PARTITIONER", "ps_task_count")  # generated under parameter servers


# ---- the plan the templates render ------------------------------------------------------------------------------
@dataclass
class _Loss:
    keras_class: str
    args: list[str]
    reduction: str  # what the head used: "sum_over_batch_size" | "sum"
    # the generated SquaredError: one loss per label (not per example), reduced over all of them as TF1 did
    elementwise: bool = False

    def ctor(self, reduction: str | None = None) -> str:
        args = list(self.args)
        if reduction:
            args.append(f'reduction="{reduction}"')
        elif self.reduction == "sum":
            args.append('reduction="sum"')
        module = "" if self.elementwise else "keras.losses."
        return f"{module}{self.keras_class}({', '.join(args)})"


@dataclass
class CannedPlan:
    """What keras_build.py.j2 / ctl_trainer.py.j2 read (the model_fn plan's names), plus the canned model."""

    model: CannedModel
    class_name: str
    fn_name: str
    loss: _Loss
    metrics: list[str]
    optimizer: optimizers.OptimizerPlan
    params: str = "params"
    partitioner: partitioners.PartitionerPlan | None = None  # under parameter servers (v1 DNN)
    mod_rows: bool = False
    predictions: str | None = None  # "head" when predict() reads the head's PREDICT outputs (rules/planners/heads.py)
    export_outputs: None = None
    export_methods: None = None
    export_blocked: None = None
    notes: list = field(default_factory=list)
    head_targets: bool = False  # the model's head_targets maps labels / reads weights (rules/planners/heads.py)
    weighted_metrics: bool = False  # Keras passes sample weights only to compile(weighted_metrics=...)
    predicting: bool = False  # predict() after training: the model gets predictions() and predict_examples()
    exporting: frozenset = frozenset()  # export receivers ("parsing"): the head's export_outputs() and export methods
    until_end: bool = False  # trained without max_steps: the custom loop stops where the input ends
    resuming: bool = False  # training resumes from model_dir: the Estimator's checkpoint by its names, or this program's
    restoring: bool = False  # predict / evaluate / export with nothing trained first restore model_dir's checkpoint


_HEADS = {  # head → (loss class, loss args); the metrics are the head's (rules/planners/heads.py)
    "multi_class": ("SparseCategoricalCrossentropy", ["from_logits=True"]),
    # the loss object reshapes labels of rank 1 against [batch, 1] logits, as TF1's binary head did
    "binary": ("BinaryCrossentropy", ["from_logits=True"]),
    "regression": ("MeanSquaredError", []),
}


def model_plan(sites: list, context):
    """(plan, target, builder name, parameter server?, notes) for one canned estimator, like program._model_plan."""
    from ...facts.words import ROOTS as TF_ROOTS
    from ...facts.reading import export_kinds, module_level_names, reading_sites
    from tfmigrate.names import build_import_table

    model: CannedModel = sites[0].model_fn
    key = ("canned-plan", id(model.node), context.options)
    cache = context.program.cache
    if key in cache:
        return cache[key]
    predicts, exports = reading_sites(sites)
    exporting = export_kinds(exports)
    if exporting and model.head == "regression" and model.units > 1:
        raise Blocked(CODE, f"export_saved_model of a {model.name} with label_dimension={model.units} is not "
                            "converted yet: its [batch, label_dimension] regression signatures are not compared with "
                            "TF 2.15's; export from the Estimator, or migrate the program without the export and "
                            "write the SavedModel with tf.saved_model.save", model.node)
    module = model.file.module
    module_names = module_level_names(module, build_import_table(module, TF_ROOTS))
    taken = cache.setdefault(("canned-names", id(model.file)), set(module_names))
    ps_names = _PS_NAMES if model.parameter_server else ()
    for name in (*SUPPORT_NAMES, *_OPTIMIZER_NAMES, *heads.HEAD_PARTS, *ps_names):
        if name in module_names:
            raise Blocked(CODE, f"`{name}` is taken in this module; the generated model code needs the name", model.node)
    stem = model.name
    class_name = free_name(f"{stem}Model", taken)
    target = sites[0].target
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", stem.replace("DNN", "Dnn")).lower()
    builder = free_name(f"build_{snake}" if target == "keras" else f"{stem}Trainer", taken)
    loss_class, loss_args = _HEADS[model.head]
    loss = _Loss(loss_class, loss_args, model.reduction)
    if model.head == "regression" and model.units > 1:
        # label_dimension > 1: the head reduced the [batch, label_dimension] squared errors as one set (divided by
        # batch * label_dimension), Keras' MeanSquaredError averages each example's first
        loss = _Loss("SquaredError", [], model.reduction, elementwise=True)
    plan = CannedPlan(model, class_name, model.tf_name, loss,
                      model.head_plan.metrics(target), model.optimizer, head_targets=model.head_plan.targets,
                      weighted_metrics=model.head_plan.weight is not None, predicting=bool(predicts),
                      exporting=exporting)
    if predicts or exports:
        plan.predictions = "head"  # the head's PREDICT outputs, generated by rules/planners/heads.py
    plan.partitioner = model.partitioner
    if model.added_metrics:  # tf.estimator.add_metrics' metrics after the head's (canned/_added_metrics.py)
        at = len(plan.metrics) - (target == "keras")  # before the keras target's GlobalStep
        plan.metrics[at:at] = model.added_metrics
    notes = [*model.notes, *((c, m, model.node) for c, m in model.optimizer.notes)]
    cache[key] = (plan, target, builder, model.parameter_server, notes)
    return cache[key]

