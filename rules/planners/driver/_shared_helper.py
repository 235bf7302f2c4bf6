"""A helper handed different Estimators by its callers (`def print_rmse(model, df): model.evaluate(...)`, called
after a LinearRegressor trained and again after a DNNRegressor did, both held by `model`): a use of an Estimator is
converted for the one Estimator it reaches, so the helper's use is blocked. Said so, naming the callers, instead of
"used in a way tfmigrate does not convert"."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import FunctionRef, Value

from ...facts.sites import Site


def several_estimators(analysis, expr, file) -> str | None:
    """The message when `expr` (an Estimator's read) is a parameter whose callers pass it more than one Estimator
    of the run; None otherwise."""
    if not isinstance(expr, cst.Name):
        return None
    bindings = analysis.program.lookup(expr.value, expr, file)
    if len(bindings) != 1 or bindings[0].kind != "param" or not isinstance(bindings[0].scope.node, cst.FunctionDef):
        return None
    fn = bindings[0].scope.node
    ref = FunctionRef(fn, file)
    sites, lines = {}, []
    for call, caller in analysis.program.call_sites(fn):
        arg = analysis.program.argument_for(call, ref, expr.value)
        site = analysis.site_of(Value(arg, caller)) if arg is not None else None
        if isinstance(site, Site):  # an Estimator the run builds
            sites.setdefault(id(site.call), analysis.line(site.call, site.file))
            lines.append(str(analysis.line(call, caller)))
    if len(sites) < 2:
        return None
    method = expr_method(expr, file)
    built = ", ".join(str(line) for line in sites.values())
    return (f"`{expr.value}` is a parameter of `{fn.name.value}`, whose callers (lines {', '.join(lines)}) pass it "
            f"{len(sites)} different Estimators (built at lines {built}): tfmigrate converts a use of an Estimator "
            f"for the one Estimator it reaches, so this {method or 'use'} is not converted; call it on each Estimator "
            f"in the code that holds it (or give each Estimator a helper of its own) and re-run")


def expr_method(expr, file) -> str | None:
    """`evaluate()` for `model.evaluate(...)`."""
    parent = file.parent(expr)
    if isinstance(parent, cst.Attribute) and parent.value is expr and isinstance(file.parent(parent), cst.Call):
        return f"{parent.attr.value}()"
    return None
