"""`tf.estimator.add_metrics(estimator, metric_fn)` over a canned estimator (part of TFM620).

TF 2.15's add_metrics (extenders.py) wraps the canned model_fn: in EVAL it calls `metric_fn(labels=, predictions=)`
with the labels the input_fn gave and the canned head's PREDICT dict, and adds the metrics to the head's. The
migrated canned model outputs the head's logits, and each key the metric_fn may read is a function of them
(tensorflow_estimator 2.15, head/regression_head.py, binary_class_head.py, multi_class_head.py):

- regressor: `predictions` = the logits;
- classifier: `logits`; `class_ids` = argmax over the classes (binary: argmax of [0, logit], i.e. logit > 0);
  binary `logistic` = sigmoid(logit).

Each metric becomes a Keras metric on (labels, model output) through rules/planners/metrics.py, the converter of a
model_fn's eval_metric_ops, with those keys written as the model output's argmax / `> 0` / sigmoid forms; it is
added to the head's metrics, so evaluate() reports it under its key as the Estimator did.

Blocked: metric_fn keys the head reports itself (TF1's dict update replaced the head's metric), heads whose
metrics see mapped labels or weights (weight_column, label_vocabulary, parameter servers: the metric_fn saw the raw
labels, unweighted), keys other than those above (`probabilities`, `classes`, ...), `features` / `config` read,
metrics the converter writes as TF1Mean (not generated for canned models yet).
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.nodes import docstring_of

from .. import metrics
from ._model import CODE, CannedModel

_OUT = "__canned_output__"  # the model output in the forms metrics.convert reads (never a user name: checked)
# the head's PREDICT key → the form of the model output it is (metrics._form)
_KEYS = {
    "regression": {"predictions": "identity"},
    "binary": {"logits": "identity", "logistic": "sigmoid", "class_ids": "positive"},
    "multi_class": {"logits": "identity", "class_ids": "argmax"},
}
# every key of the head's PREDICT dict (TF 2.15 heads' create_estimator_spec)
_CLASSES = ("logits", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes")
_PREDICT_KEYS = {"regression": ("predictions",), "binary": ("logits", "logistic", *_CLASSES[1:]),
                 "multi_class": _CLASSES}
# what each head's evaluate() reported itself (rules/planners/heads.py), besides loss and global_step
_HEAD_KEYS = {
    "regression": {"average_loss", "label/mean", "prediction/mean"},
    "binary": {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss", "label/mean",
               "precision", "prediction/mean", "recall"},
    "multi_class": {"accuracy", "average_loss"},
}


def convert(fn: cst.FunctionDef, model: CannedModel, tf_path_of) -> list[str]:
    """The Keras metric constructors of the dict `fn` returns, on the canned model's labels and output."""
    what = f"add_metrics' metric_fn `{fn.name.value}` over {model.name}"
    if model.head_plan is not None and model.head_plan.targets:
        raise Blocked(CODE, f"{what} is not converted yet: the head maps the labels or reads example weights "
                            "(weight_column, label_vocabulary, parameter servers) before its metrics, while the "
                            "metric_fn saw the raw labels, unweighted", fn)
    p = fn.params
    names = [x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params]]
    if isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None \
            or set(names) - {"labels", "predictions", "features", "config"}:
        raise Blocked(CODE, f"{what} takes other arguments than labels, predictions, features and config (TF1 "
                            "refused it too)", fn)
    used = {n.value for n in _names(fn.body)}
    if _OUT in used:
        raise Blocked(CODE, f"{what}: the name {_OUT} is taken", fn)
    if "labels" not in names:
        raise Blocked(CODE, f"{what} takes no labels: not converted yet", fn)
    read = sorted({"features", "config"} & set(names) & used)
    if read:
        raise Blocked(CODE, f"{what} reads `{read[0]}`: not converted yet (the migrated metrics see the labels and "
                            "the model output only)", fn)
    keys = _KEYS[model.head]
    made: list[cst.CSTNode] = []  # the rewritten nodes, kept alive: `paths` is keyed by their id
    paths: dict[int, str | None] = {}
    env: dict[str, cst.BaseExpression] = {}

    def form(key: str, node: cst.CSTNode) -> cst.BaseExpression:
        out = cst.Name(_OUT)
        kind = keys.get(key)
        if kind is None and key not in _PREDICT_KEYS[model.head]:
            raise Blocked(CODE, f"{what} reads predictions[{key!r}], which the head does not return (TF1 failed "
                                f"there; its keys: {', '.join(repr(k) for k in _PREDICT_KEYS[model.head])})", node)
        if kind is None:
            raise Blocked(CODE, f"{what} reads predictions[{key!r}]: not converted yet (converted: "
                                f"{', '.join(repr(k) for k in keys)}, what the migrated model computes exactly)",
                          node)
        if kind == "identity":
            new = out
        elif kind == "positive":  # argmax([0, logit]) == 1 exactly when logit > 0
            new = cst.Comparison(out, [cst.ComparisonTarget(cst.GreaterThan(), cst.Integer("0"))])
        else:
            new = cst.Call(cst.Name(kind), [cst.Arg(out)] + ([cst.Arg(cst.Integer("1"))] if kind == "argmax" else []))
            paths[id(new)] = kind
        made.append(new)
        return new

    def resolved(node: cst.BaseExpression) -> cst.BaseExpression:
        """`node` with the metric_fn's locals and `predictions["key"]` written as forms of the model output."""
        if isinstance(node, cst.Name) and node.value in env:
            return env[node.value]
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == "predictions" \
                and "predictions" in names and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and isinstance(node.slice[0].slice.value, cst.SimpleString):
            return form(node.slice[0].slice.value.evaluated_value, node)
        if isinstance(node, cst.Call):
            new = node.with_changes(args=[a.with_changes(value=resolved(a.value)) for a in node.args])
            paths[id(new)] = tf_path_of(node)
        elif isinstance(node, cst.Comparison):
            new = node.with_changes(left=resolved(node.left), comparisons=[
                c.with_changes(comparator=resolved(c.comparator)) for c in node.comparisons])
        else:
            return node
        made.append(new)
        return new

    def path_of(node):
        return paths[id(node)] if id(node) in paths else tf_path_of(node)

    body = list(fn.body.body)
    if body and docstring_of(body[0]) is not None:
        body = body[1:]
    for stmt in body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and small.targets[0].target.value not in names:
            env[small.targets[0].target.value] = resolved(small.value)
        elif isinstance(small, cst.Return) and isinstance(small.value, cst.Dict):
            return _metrics(small.value, model, what, resolved, path_of)
        else:
            raise Blocked(CODE, f"{what}: only assignments to new names and a final `return {{...}}` dict literal "
                                "are converted", stmt)
    raise Blocked(CODE, f"{what} does not return a dict literal", fn)


def _metrics(table: cst.Dict, model: CannedModel, what: str, resolved, path_of) -> list[str]:
    out = []
    for element in table.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
            raise Blocked(CODE, f"{what}: the keys of its dict must be string literals", table)
        key = element.key.evaluated_value
        if key in _HEAD_KEYS[model.head] | {"loss", "global_step"}:
            raise Blocked(CODE, f"{what}: its metric {key!r} replaces the head's own: not converted yet; give it "
                                "another key", element.key)
        call = element.value
        name = metrics.metric_name(path_of(call)) if isinstance(call, cst.Call) else None
        if name is None or name == "mean":
            raise Blocked(CODE, f"{what}: metric {key!r} is not converted yet (a tf.metrics call other than "
                                "tf.metrics.mean on the labels and a prediction key is)", call)
        ctor = metrics.convert(key, call, name, "labels", _OUT, None, resolved, path_of, model.notes)
        if ctor is None or not ctor.startswith("keras.metrics."):
            raise Blocked(CODE, f"{what}: metric {key!r} is not converted yet", call)
        out.append(ctor)
    return out


def _names(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    node.visit(_Collect())
    return found
