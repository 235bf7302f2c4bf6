"""tf.estimator.add_metrics' metric_fn merged into the model_fn's EVAL eval_metric_ops, as TF 2.15's extenders.py
did: `metric_fn(labels=, predictions=, features=)` with the EVAL EstimatorSpec's predictions, its metrics winning
over the model_fn's of the same key. The merged dict is converted like the model_fn's own (rules/planners/metrics.py)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from .. import metrics
from ._names import free_name_nodes, parenthesized, substitute
from ._syntax import docstring_of

_ARGS = ("labels", "predictions", "features", "config")  # what TF1 passed by name (_VALID_METRIC_FN_ARGS)


class _Keyed(cst.CSTTransformer):
    """`predictions["key"]` → the value the EVAL EstimatorSpec's predictions dict literal gives that key."""

    def __init__(self, name: str, table: dict[str, cst.BaseExpression]):
        self.name, self.table, self.replaced = name, table, 0

    def leave_Subscript(self, original, updated):
        if isinstance(updated.value, cst.Name) and updated.value.value == self.name and len(updated.slice) == 1 \
                and isinstance(updated.slice[0].slice, cst.Index) \
                and isinstance(updated.slice[0].slice.value, cst.SimpleString):
            key = updated.slice[0].slice.value.evaluated_value
            if key not in self.table:
                raise Blocked(metrics.CODE, f"add_metrics' metric_fn reads predictions[{key!r}], which the model_fn's "
                                            "EVAL EstimatorSpec does not return (TF1 failed there)", original)
            self.replaced += 1
            return parenthesized(self.table[key])
        return updated


class AddedMetricsMixin:
    """tf.estimator.add_metrics(estimator, metric_fn) over this model_fn (rules/planners/driver/_add_metrics.py)."""

    def add_metric_fn(self, fn: cst.FunctionDef) -> None:
        """Merges the dict `fn` returns, written in the model_fn's names, into the EVAL eval_metric_ops."""
        p = fn.params
        names = [x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params]]
        if isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None or set(names) - set(_ARGS):
            raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}` takes other arguments than "
                                        "labels, predictions, features and config (TF1 refused it too)", fn)
        if "config" in names:
            raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}` takes config: not converted yet "
                                        "(the migrated metrics see only the labels and the model output); drop it "
                                        "if the metrics do not read it", fn)
        env: dict[str, cst.BaseExpression] = {"labels": cst.Name(self.labels), "features": cst.Name(self.features)}
        keyed = None
        if "predictions" in names:
            kind, payload = self.resolve(self.spec_eval_predictions, "EVAL")
            if kind == "none":  # TF1's EstimatorSpec gave the metric_fn an empty dict
                raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}` reads the predictions, and the "
                                            "model_fn's EVAL EstimatorSpec returns none; return them in EVAL mode "
                                            "too (EstimatorSpec(predictions=...))", fn)
            if kind == "dict":
                if not all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                           for e in payload.elements):
                    raise Blocked(metrics.CODE, "the EVAL EstimatorSpec's predictions dict needs string literal keys "
                                                "for add_metrics' metric_fn", payload)
                keyed = _Keyed("predictions", {e.key.evaluated_value: e.value for e in payload.elements})
            else:
                env["predictions"] = parenthesized(self.spec_eval_predictions)
        env = {k: v for k, v in env.items() if k in names}

        def written(node):  # the metric_fn's expression in the model_fn's names
            if keyed is not None:
                uses, keyed.replaced = sum(n.value == "predictions" for n in free_name_nodes(node)), 0
                node = node.visit(keyed)
                if keyed.replaced != uses:
                    raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}` uses the predictions dict "
                                                "other than as predictions[\"key\"]: not converted", node)
            return substitute(node, env)

        body = list(fn.body.body)
        if body and docstring_of(body[0]) is not None:
            body = body[1:]
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                env[small.targets[0].target.value] = parenthesized(written(small.value))
            elif isinstance(small, cst.Return) and isinstance(small.value, cst.Dict):
                self.merge_metrics(written(small.value), fn)
                return
            else:
                raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}`: only assignments and a final "
                                            "`return {...}` dict literal are converted", stmt)
        raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}` does not return a dict literal", fn)

    def merge_metrics(self, added: cst.Dict, fn: cst.FunctionDef) -> None:
        """TF1's `all_metrics.update(new_metrics)`: a key of both keeps the metric_fn's metric, in the old place."""
        if not all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in added.elements):
            raise Blocked(metrics.CODE, f"add_metrics' metric_fn `{fn.name.value}`: the keys of its dict must be "
                                        "string literals", added)
        new = {e.key.evaluated_value: e for e in added.elements}
        old = list(self.spec_metrics.elements) if self.spec_metrics is not None else []
        merged = [new.pop(e.key.evaluated_value, e) if isinstance(e, cst.DictElement)
                  and isinstance(e.key, cst.SimpleString) else e for e in old]
        self.spec_metrics = cst.Dict([*merged, *new.values()])
