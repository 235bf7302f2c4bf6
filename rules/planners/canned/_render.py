"""Module-level code for the canned models of one anchor: the support code not yet in the file, then each model
class and its builder (Keras) or trainer (custom loop)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.edits import shared

from .. import feature_columns as fcols
from ...emit import codewords
from .. import heads, optimizers
from ...emit.wrap import generated, wrap_call
from ._model import LABEL_DIMENSION, CannedModel, Column, scope_of_key
from ._plan import SUPPORT_NAMES, CannedPlan


PS_TASK_COUNT = '''
def ps_task_count():
    """The ps tasks TF_CONFIG lists: the Estimator's RunConfig.num_ps_replicas (0 outside a cluster)."""
    return len(tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec().as_dict().get("ps", ()))
'''


def render(items: list[tuple[CannedPlan, str, str]], support_done: set[str], blocks=None,
           words=(), quiet: dict | None = None) -> list[cst.BaseStatement]:
    """Module-level statements for the canned models of one anchor: support code not yet emitted in the file, then
    each model class and its builder (Keras) or trainer (custom loop)."""
    from ...emit.assembly import template_env, support

    env = template_env()
    parts = []
    needed = []
    for plan, _, _ in items:
        if plan.model.family != "baseline" or plan.model.head_plan.weight is not None:
            needed.append("numeric_input")
        if any(c.boundaries is not None for c in plan.model.dnn_columns):
            needed.append("bucketized_input")
        if any(isinstance(c.boundaries, str) for c in (*plan.model.dnn_columns, *plan.model.linear_columns)):
            needed.append("column_boundaries")  # run-time boundaries, checked as TF1 checked them
        if any(isinstance(c.size, str) for c in (*plan.model.dnn_columns, *plan.model.linear_columns)):
            needed.append("column_shape")  # a run-time numeric shape, checked as TF1 checked it
        if any(c.vocabulary is not None for c in plan.model.dnn_columns):
            needed.append("indicator_input")
        if plan.model.linear_columns:
            needed.extend(["LinearModel", "ColumnWeights"])
        if plan.loss.elementwise:
            needed.append("SquaredError")
        needed.extend(_column_parts(plan.model))
        needed.extend(plan.model.support)
    for plan, _, target in items:
        needed.extend(plan.model.head_plan.support(target))
        if plan.resuming or plan.restoring:  # the optimizer slots' names in the Estimator's checkpoint
            needed.append("legacy_slots" if not plan.model.v1 else "estimator_slots")
        if plan.resuming and target == "keras":  # the Estimator's model.ckpt-<step> checkpoints (driver.py)
            needed.append("EstimatorCheckpoints")
        if plan.model.family == "baseline":
            needed.append("BaselineBias")
        if plan.model.batch_norm:
            needed.append("TF1BatchNormalization")
    for item in dict.fromkeys(needed):
        if item in support_done:
            continue
        support_done.add(item)
        if item in fcols.SUPPORT_PARTS:
            parts.append(support("feature_columns.py.j2", part=item))
        elif item in SUPPORT_NAMES:
            parts.append(support("canned_support.py.j2", part=item))
        elif item in heads.HEAD_PARTS:
            # labels of [batch, label_dimension] in HeadMetric when a regressor of this file has more than one
            parts.append(support("canned_head.py.j2", part=item, label_dimension=LABEL_DIMENSION in support_done))
        elif item == "EstimatorCheckpoints":
            parts.append(support("estimator_checkpoints.py.j2").strip("\n"))
        elif item in ("legacy_slots", "estimator_slots"):
            # Adam's and RMSprop's legacy slot names only where a model of this file trains with them
            ctors = " ".join(plan.optimizer.ctor for plan, _, _ in items)
            parts.append(support("estimator_restore.py.j2", part="slots", canned="v2" if item == "legacy_slots" else "v1",
                                 legacy_adam="LegacyKerasAdam(" in ctors,
                                 legacy_rmsprop="LegacyRMSprop(" in ctors,
                                 proximal_adagrad="TF1ProximalAdagrad(" in ctors).strip("\n"))
        else:
            parts.append(item.strip("\n"))
    for plan, builder, target in items:
        model = plan.model
        inputs = lambda columns: [c.input_code() for c in columns]  # noqa: E731
        by_name = lambda columns: [  # noqa: E731  (run-time keys: a dict of the inputs, sorted by name at run time)
            f"**{{key: {c.input_code('key')} for key in {c.runtime}}}" if c.runtime else f'"{c.name}": {c.input_code()}'
            for c in columns]
        runtime = any(c.runtime for c in model.linear_columns)
        sizes = "{" + ", ".join(f"**{{key: {c.size} for key in {c.runtime}}}" if c.runtime else
                                f'"{c.name if runtime else scope_of_key(c.key)}": {_weights(c, model)}'
                                for c in model.linear_columns) + "}"
        if runtime:  # the weights in column-name order, like the inputs
            sizes = f"dict(sorted({sizes}.items()))"
        # Keras' evaluate() loss weighs batches by size; the Estimator's was the mean of the batches' losses
        test_step = env.get_template("test_step.py.j2").render() if target == "keras" else ""
        restore = dict(canned="v1" if model.v1 else "v2", resuming=plan.resuming, restoring=plan.restoring,
                       # the variable scope a v1 canned model_fn created its optimizer's slots in
                       v1_scope={"dnn": "dnn/", "linear": "linear/", "baseline": "baseline/"}.get(model.family, ""))
        if model.family == "baseline":  # no feature columns: a bias per output (rules/planners/heads.py)
            # heads.py writes its code as Python strings: `generated` marks their `tf.` like the templates' own
            parts.append(generated(heads.baseline_class(plan.class_name, plan.fn_name, model.units)
                                   + model.head_plan.methods(target) + _head_outputs(plan))
                         + test_step
                         + (env.get_template("predict_examples.py.j2").render(predicting=True) if plan.predicting
                            else "")
                         + _export_methods(env, plan)
                         + env.get_template("estimator_restore.py.j2").render(part="methods", model=model, **restore))
        else:
            parts.append(env.get_template("canned_model.py.j2").render(
                plan=plan, model=model, dnn_inputs=inputs(model.dnn_columns),
                linear_inputs=inputs(model.linear_columns),
                dnn_by_name=by_name(model.dnn_columns) if any(c.runtime for c in model.dnn_columns) else None,
                linear_by_name=by_name(model.linear_columns) if any(c.runtime for c in model.linear_columns) else None,
                sizes=sizes, literal_dropout=_is_number(model.dropout),
                embeddings=[(fcols.scope_name(c.name), fcols.layer_code(c.categorical, c.embedding))
                            for c in model.dnn_columns if c.embedding is not None],
                keep_input_dtype=any(c.normalizer for c in (*model.dnn_columns, *model.linear_columns)),
                head_methods=generated(model.head_plan.methods(target) + _head_outputs(plan))
                + test_step
                + (env.get_template("predict_examples.py.j2").render(predicting=True) if plan.predicting else "")
                + _export_methods(env, plan), **restore))
        view = _Wrapped(plan, "model" if target == "keras" else "self.model")
        if target == "keras":
            parts.append(env.get_template("keras_build.py.j2").render(plan=view, build_fn=builder))
        else:
            if model.partitioner is not None:
                parts.append(shared(generated(PS_TASK_COUNT)).strip("\n"))
                parts.append(f"VARIABLE_PARTITIONER = {wrap_call(model.partitioner.tf2, width=96)}")
            parts.append(env.get_template("ctl_trainer.py.j2").render(plan=view, trainer=builder,
                                                                      parameter_server=model.parameter_server,
                                                                      predicting=plan.predicting, exporting=(),
                                                                      warm_starting=False, resuming=plan.resuming,
                                                                      until_end=plan.until_end, callbacks=False,
                                                                      saver=False))
            if model.parameter_server:
                parts.append(support("ps_strategy.py.j2"))
    from ...emit.assembly import emit_parts, quiet_generated

    # parts naming none of the file's TF bindings may stay text (program.emit_parts): nothing later changes them
    named = codewords.code_words(words)  # the words in code, not in docstrings or comments
    items = emit_parts(parts, blocks, named)
    body = [stmt for stmt, _, _ in items]
    body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)])
    if quiet is not None and named is not None:  # code the leftover-name pass need not enter
        quiet_generated([(stmt, kind, text) for stmt, (_, kind, text) in zip(body, items)], named, quiet)
    return body


def _head_outputs(plan: CannedPlan) -> str:
    """The head's predictions() (predict or export) and export_outputs() (export) methods (rules/planners/heads.py)."""
    head = plan.model.head_plan
    return ((head.predictions_method() if plan.predicting or plan.exporting else "")
            + (head.export_outputs_method() if plan.exporting else ""))


def _export_methods(env, plan: CannedPlan) -> str:
    """export_parsing_saved_model and write_signatures (templates/export_methods.py.j2, as a model_fn's model
    with export_outputs has them): one signature per key of the head's EXPORT_OUTPUTS."""
    if not plan.exporting:
        return ""
    view = {"export_outputs": True, "fn_name": plan.fn_name}
    if plan.model.forwarded:  # tf.contrib.estimator.forward_features' keys (driver/_forward_features.py)
        view["forwarded"] = tuple(plan.model.forwarded)
    return env.get_template("export_methods.py.j2").render(plan=view, exporting=plan.exporting)


def _column_parts(model: CannedModel) -> list[str]:
    """The feature-column support code a model's columns call (feature_columns.py.j2)."""
    out = []
    for c in (*model.dnn_columns, *model.linear_columns):
        if c.categorical is None:
            continue
        out.extend(c.categorical.parts)
        out.extend(c.embedding.parts if c.embedding is not None else ())
        out.append("EmbeddingColumn" if c.embedding is not None else "indicator_of" if c.indicator else
                   "CategoricalWeights")
    return [p for p in fcols.SUPPORT_PARTS if p in out]  # a fixed order: the module reads the same every run


def _weights(column: Column, model: CannedModel) -> str:
    """A linear column's entry in LinearModel's dict: its size (dense) or its categorical weights layer."""
    if column.categorical is None:
        return str(column.size)
    return (f'CategoricalWeights({column.categorical.num_buckets}, {model.units}, "{model.sparse_combiner}", '
            f'name="{fcols.scope_name(column.name)}")')


class _Wrapped:
    """The plan with its long generated calls laid out one argument per line (as program._render_model does)."""

    def __init__(self, plan: CannedPlan, model: str):
        self._plan = plan
        self.optimizer = _OptimizerView(plan.optimizer, model)
        one = ", ".join(plan.metrics)
        self.metrics = [one if len(one) <= 70 else "\n" + "".join(f"    {m},\n" for m in plan.metrics)]

    def __getattr__(self, name):
        return getattr(self._plan, name)


class _OptimizerView:
    def __init__(self, optimizer: optimizers.OptimizerPlan, model: str):
        self._optimizer = optimizer
        self.ctor = wrap_call(optimizer.ctor.replace("__tfmigrate_model__", model), width=76)

    def __getattr__(self, name):
        return getattr(self._optimizer, name)


def _is_number(text: str | None) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True
