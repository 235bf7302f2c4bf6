"""The migration plan as plain data (`tfmigrate rewrite --explain`)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import code

from ._analysis import Analysis
from ._values import Choice, Least, Relative


def explain(analysis: Analysis, locate) -> list[dict]:
    """The plan as plain data (what `tfmigrate rewrite --explain` prints): each Estimator, what configures and
    drives it, what goes away, and every blocker. `locate(node) -> "path:line"`."""
    def text(v) -> str:
        if isinstance(v, Choice):
            return f"{code(v.body.node)} if {code(v.test.node)} else {code(v.orelse.node)}"
        if isinstance(v, Least):
            return f"min({text(v.first)}, {text(v.second)})"
        if isinstance(v, Relative):
            return f"<initial step> + {text(v.value)}"
        if isinstance(v, list):
            return "[" + ", ".join(text(x) for x in v) + "]"
        env = ", ".join(f"{k}={code(x.node)}" for k, x in v.env)
        return code(v.node) + (f"  [with {env}]" if env else "")

    out = []
    for site in analysis.sites:
        fn = site.model_fn.node
        out.append({
            "estimator": locate(site.call),
            "model_fn": f"the compiled Keras model `{code(site.model_fn.model.node)}` ({site.model_fn.tf_name})"
            if hasattr(site.model_fn, "compile_call") else
            f"canned {site.model_fn.tf_name}" if not isinstance(fn, cst.FunctionDef) else
            f"{fn.name.value} at {locate(fn)}" + (" (closure in a factory)" if site.factory else ""),
            "target": site.target,
            # a strategy not converted is unknown: the plan never says what the default analysis assumed
            "strategy": {"not_converted": site.strategy_blocked, "kinds": [], "tf2": None, "tf1_ran_under": []}
            if site.strategy_blocked else
            {"kinds": sorted(site.strategy.kinds), "tf2": site.strategy.expression.replace(
                "__tfmigrate_tf__", "tf"), "tf1_ran_under": sorted(site.original_kinds or [])},
            "params": site.params,
            "run_config": {k: text(v) for k, v in site.run_config.items()},
            "uses": [{"kind": u.kind, "at": locate(u.call),
                      **{f"train.{k}": text(v) for k, v in u.train.items()},
                      **{f"evaluate.{k}": text(v) for k, v in u.evaluate.items()},
                      **{f"predict.{k}": text(v) for k, v in u.predict.items()},
                      **{f"export.{k}": text(v) for k, v in u.export.items()}} for u in site.uses],
            "removed": sorted({locate(b.statement) for b in site.consumed}),
        })
    out.append({"blockers": [f"{locate(e.node)}: {e.code} {e.message}" for e in analysis.errors]})
    return out
