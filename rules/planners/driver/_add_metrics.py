"""`est = tf.estimator.add_metrics(est, metric_fn)` (and tf.contrib.estimator's): the Estimator it returns is the
one it wraps, whose EVAL EstimatorSpec also carries the metric_fn's metrics (rules/planners/model_fn/_added_metrics.py
merges them into the model_fn's eval_metric_ops, converted like those)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, FunctionRef, Value, code

from ...facts.sites import Site
from ...facts.estimator import CODE

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
        if not isinstance(site.model_fn, FunctionRef):
            raise Blocked(CODE, f"tf.estimator.add_metrics(`{code(args['estimator'])}`, ...) over a canned or Keras "
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
        site.added_metrics = [(fn.node, call)]
        self._site_by_call[id(call)] = site
        site.consumed.extend(b for b in fn.trail if b.kind == "def")
        self.wrappers[id(call)] = (call, file, args["estimator"])

    def check_added_metrics(self) -> None:
        """Every evaluation of a site given add_metrics must go through the wrapper: the model carries the metrics."""
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
                if id(r.node) not in self.wrappers:
                    raise Blocked(CODE, f"{use.kind}() on `{code(use.receiver)}`, the Estimator without the metrics "
                                        "tf.estimator.add_metrics adds to it elsewhere, is not converted: the migrated "
                                        "model evaluates them everywhere; evaluate the add_metrics Estimator only",
                                  use.call)


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
