"""`est = tf.estimator.add_metrics(est, metric_fn)` (and tf.contrib.estimator's): the Estimator it returns is the
one it wraps, whose EVAL EstimatorSpec also carries the metric_fn's metrics (rules/planners/model_fn/_added_metrics.py
merges them into the model_fn's eval_metric_ops, converted like those)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, FunctionRef, Value, code

from ...facts.sites import Site
from ...facts.estimator import CODE
from .. import canned
from ..canned import convert_added_metrics

ADD_METRICS = ("estimator.add_metrics", "contrib.estimator.add_metrics")


class AddMetricsMixin:
    """Analysis: each add_metrics call over a custom-model_fn Estimator is that Estimator, with its metric_fn."""

    def add_metrics(self, call: cst.Call, file: FileIndex) -> None:
        """Registers `call` as the site it wraps; blocks what the model_fn's metric converters cannot follow."""
        args = {("estimator", "metric_fn")[i]: a.value for i, a in enumerate(call.args) if a.keyword is None and i < 2}
        args.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
        if set(args) != {"estimator", "metric_fn"}:
            raise Blocked(CODE, "tf.estimator.add_metrics(estimator, metric_fn): arguments not read", call)
        site = self.site_of(Value(args["estimator"], file))
        if not isinstance(site, Site):
            return  # not an Estimator this run builds (or already reported): _calls says why at its uses
        if site.added_metrics:  # (each merge would need its own model: not done)
            raise Blocked(CODE, "a second tf.estimator.add_metrics over one Estimator is not converted yet: return "
                                "all the metrics from one metric_fn", call)
        canned_site = canned.is_canned(site)  # its metrics are converted against the head (canned/_added_metrics.py)
        if not isinstance(site.model_fn, FunctionRef) and not canned_site:
            raise Blocked(CODE, f"tf.estimator.add_metrics(`{code(args['estimator'])}`, ...) over a Keras "
                                "Estimator is not converted yet: its metric_fn reads the Estimator's own "
                                "predictions dict; compute those metrics from the migrated model's predictions after "
                                "evaluation, and drive the Estimator itself", call)
        fn = self.program.function_of(Value(args["metric_fn"], file))
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.bound \
                or fn.file is not site.model_fn.file or fn.file.scope_of(fn.node).kind != "module":
            raise Blocked(CODE, f"add_metrics' metric_fn `{code(args['metric_fn'])}` is not converted: only a def at "
                                "module level of the model_fn's file is (its metrics join the model_fn's "
                                "eval_metric_ops); define it there, or return the metrics from the model_fn's "
                                "eval_metric_ops", args["metric_fn"])
        if canned_site:
            site.model_fn.added_metrics = convert_added_metrics(fn.node, site.model_fn,
                                                                       lambda node: self.tf(node, fn.file))
        site.added_metrics = [(fn.node, call)]
        self._site_by_call[id(call)] = site
        site.consumed.extend(b for b in fn.trail if b.kind == "def")
        self.wrappers[id(call)] = (call, file, args["estimator"])

    def check_added_metrics(self) -> None:
        """An evaluation of a site given add_metrics goes through the wrapper (the model carries the metrics), or
        is an evaluate() of the Estimator itself: its result drops the metric_fn's keys (hidden_metrics), as TF1's
        Estimator, which never computed them, returned none of them."""
        self.hidden_metrics = {}
        for site in self.sites:
            if not site.added_metrics:
                continue
            for use in site.uses:
                if id(use.receiver) in self.wrappers:  # `train_and_evaluate(add_metrics(est, fn), ...)`: drives `est`
                    use.receiver = self.wrappers[id(use.receiver)][2]
                    continue
                if use.kind not in ("evaluate", "train_and_evaluate"):
                    continue
                r = self.program.resolve(Value(use.receiver, use.file))
                if id(r.node) not in self.wrappers and use.kind == "evaluate":
                    self.hidden_metrics[id(use.call)] = self._own_keys(site, use)
                elif id(r.node) not in self.wrappers:
                    raise Blocked(CODE, f"{use.kind}() on `{code(use.receiver)}`, the Estimator without the metrics "
                                        "tf.estimator.add_metrics adds to it elsewhere, is not converted: the migrated "
                                        "model evaluates them everywhere; evaluate the add_metrics Estimator only",
                                  use.call)

    def _own_keys(self, site: Site, use) -> tuple[str, ...]:
        """The keys the metric_fn adds, when none is also a key the model_fn may return (then the Estimator's own
        evaluate reported the model_fn's metric under it, which the migrated model no longer computes): none is
        written as a string anywhere else in the program."""
        fn = site.added_metrics[0][0]
        last = fn.body.body[-1] if fn.body.body else None
        ret = last.body[0] if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 else None
        keys = [e.key.evaluated_value for e in ret.value.elements] if isinstance(ret, cst.Return) \
            and isinstance(ret.value, cst.Dict) and all(isinstance(e, cst.DictElement)
                                                        and isinstance(e.key, cst.SimpleString)
                                                        for e in ret.value.elements) else None
        if keys is None:  # (the model_fn's merge reports the metric_fn's own shape)
            raise Blocked(CODE, f"evaluate() on `{code(use.receiver)}`, the Estimator without the metrics "
                                "tf.estimator.add_metrics adds to it elsewhere: its result would drop the metric_fn's "
                                "keys, which must be string literals of its final `return {...}`", use.call)
        # any other string literal of the program spelling a key (the model_fn's eval_metric_ops, maybe built by a
        # helper) may be a metric the metric_fn replaces: not told apart here, so it blocks
        strings = {n.evaluated_value for f in self.program.files for n in _strings(f.module)
                   if not f.inside(n, {id(fn)})}
        if strings & set(keys) or "loss" in keys or "global_step" in keys:
            raise Blocked(CODE, f"evaluate() on `{code(use.receiver)}`, the Estimator without the metrics "
                                "tf.estimator.add_metrics adds to it elsewhere, is not converted: the metric_fn's key "
                                f"{sorted(strings & set(keys) | {'loss', 'global_step'} & set(keys))[0]!r} is also "
                                "the model_fn's (or the Estimator's), which that evaluate reported and the migrated "
                                "model replaces; evaluate the add_metrics Estimator only", use.call)
        return tuple(keys)


def _strings(node: cst.CSTNode) -> list[cst.SimpleString]:
    """Every string literal under `node`."""
    found: list[cst.SimpleString] = []

    class _Collect(cst.CSTVisitor):
        def visit_SimpleString(self, n: cst.SimpleString) -> None:
            found.append(n)

    node.visit(_Collect())
    return found


def without_hidden(analysis, use, text: str) -> str:
    """evaluate()'s text, its result without the keys of metrics the evaluated Estimator did not have."""
    hidden = getattr(analysis, "hidden_metrics", {}).get(id(use.call))
    if not hidden:
        return text
    keys = ", ".join(f'"{k}"' for k in hidden) + ("," if len(hidden) == 1 else "")
    # the Estimator evaluated here had no add_metrics: its result had none of the metric_fn's keys
    return f"{{k: v for k, v in {text}.items() if k not in ({keys})}}"


def wrapper_edits(analysis, file: FileIndex, edits) -> None:
    """`est = add_metrics(est, fn)` goes; `other = add_metrics(est, fn)` becomes `other = est` (the model carries
    the metrics). An add_metrics call inside a converted use is replaced with that use."""
    uses = {id(use.call) for site in analysis.sites for use in site.uses}
    for call, where, estimator in analysis.wrappers.values():
        if where is not file or file.inside(call, uses):
            continue
        parent = file.parent(call)
        stmt = file.parent(parent) if isinstance(parent, cst.Assign) else None
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(stmt, cst.SimpleStatementLine) \
                and len(stmt.body) == 1 and code(parent.targets[0].target) == code(estimator):
            edits.delete(stmt)
        else:
            edits.replace(call, code(estimator))
