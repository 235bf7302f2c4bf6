"""A run loop handed the model_fn through a parameter (`run_loop(flags, model_fn, ...)` building
`Estimator(model_fn=model_fn, ...)`, called from `mnist_main.py` with its own model_fn): the loop is converted once
and keeps its parameter, which now holds the converted model's builder; the caller passes that builder where it
passed its model_fn. Exact because the parameter is read nowhere else in the loop (it only ever reached the
Estimator), and the loop's generated code needs nothing of the model's module (EstimatorCheckpoints is written
into the loop's own file).

A run loop handed the Estimator's builder FUNCTION (`model = build_estimator_fn(model_dir=..., model_column_fn=...)`,
the official wide & deep layout) keeps its call: the builder converts in its caller's file and the loop, which
cannot import that caller, writes its own EstimatorCheckpoints (fixtures/builder_fn_run_loop). Several callers each
handing their own builder: each builder's parameters are followed with its own caller's arguments (the model's
call_sites), and each is blocked here (`several_loop_callers`) naming the loop's callers, as the loop's one body
would drive every converted model."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, FunctionRef, code

from ...facts.sites import Site
from ...facts.estimator import CODE

# the support classes a handed builder's loop can hold itself (generic code: nothing of the model's module)
LOCAL_SUPPORT = {"EstimatorCheckpoints": "estimator_checkpoints.py.j2"}


@dataclass(frozen=True)
class Handed:
    param: str  # the loop's parameter, as the Estimator reads it
    arg: cst.BaseExpression  # what the caller passes for it (`model_fn`, `model.model_fn`)
    call: cst.Call  # the caller's call of the loop
    file: FileIndex  # the caller's file


def handed(site: Site, program) -> Handed | None:
    """The caller's argument when `site`'s model_fn is a parameter of the function that builds the Estimator, read
    only there, and that function's one caller passes the model_fn def by name (`model_fn` or `module.model_fn`)."""
    expr = site.model_fn_expr
    if not isinstance(expr, cst.Name) or site.factory is not None or site.model_fn.bound:
        return None
    found = program.lookup(expr.value, expr, site.file)
    loop = site.file.enclosing_function(site.call)
    if len(found) != 1 or found[0].kind != "param" or loop is None or found[0].scope.node is not loop:
        return None
    reads = [n for n in site.file.loads_of(program, found[0]) if n is not expr]
    if reads:  # the loop uses it otherwise too: that use would get the builder
        return None
    callers = program.call_sites(loop)
    if len(callers) != 1:
        return None
    call, file = callers[0]
    arg = program.argument_for(call, FunctionRef(loop, site.file), expr.value)
    fn = site.model_fn
    if isinstance(arg, cst.Name):
        bound = program.lookup(arg.value, arg, file)
        if fn.file is not file or len(bound) != 1 or bound[0].node is not fn.node:
            return None
    elif isinstance(arg, cst.Attribute):
        # `module.model_fn` by any name its module is imported by (`lab.tides.model` of tides/model.py: PEP 420)
        owner, _, attr = (program.qualified(arg, file) or "").rpartition(".")
        if arg.attr.value != fn.node.name.value or attr != fn.node.name.value \
                or program.by_module.get(owner) is not fn.file:
            return None
    else:
        return None
    return Handed(expr.value, arg, call, file)


def not_handed(site: Site, program, line) -> Blocked | None:
    """Why a model_fn that is a parameter of the function building the Estimator is not handed its builder."""
    expr = site.model_fn_expr
    loop = site.file.enclosing_function(site.call)
    found = program.lookup(expr.value, expr, site.file) if isinstance(expr, cst.Name) else []
    if len(found) != 1 or found[0].kind != "param" or loop is None or found[0].scope.node is not loop:
        return None
    reads = [n for n in site.file.loads_of(program, found[0]) if n is not expr]
    callers = program.call_sites(loop)
    if len(callers) > 1:  # every caller passes the same def (else it is not followed to one)
        places = ", ".join(f"{f.path.rpartition('/')[2]}:{line(c, f)}" for c, f in callers[:4])
        return Blocked(CODE, f"`{expr.value}` is a parameter of `{loop.name.value}`, which is called from "
                             f"{len(callers)} places ({places}): the converted model's builder is handed to a run loop "
                             f"by its one caller only; give `{loop.name.value}` one caller", expr)
    if reads:
        why = (f"`{loop.name.value}` also reads its parameter `{expr.value}` at line {line(reads[0], site.file)}, "
               "which would get the converted model's builder; use the parameter only to build the Estimator")
    else:
        why = ("the caller passes something else than the model_fn def by name (`model_fn` or `module.model_fn`); "
               "pass the def itself")
    return Blocked(CODE, f"model_fn `{expr.value}` is a parameter of the run loop `{loop.name.value}`: {why}", expr)


def several_loop_callers(program, fn: cst.FunctionDef, call: cst.Call, line) -> Blocked | None:
    """A builder function handed to a run loop that several callers hand their own builders (each `*_main.py`
    calling `run_loop(..., build_estimator_fn=build_estimator)`): the loop's one body drives each caller's
    Estimator, and each converts with its own settings (checkpoints, callbacks, data); blocked at the builder,
    naming the loop's callers."""
    handed = program.handed_from(call, fn)
    if handed is None:
        return None
    loop = handed[2]
    callers = program.call_sites(loop.node)
    places = ", ".join(f"{f.path.rpartition('/')[2]}:{line(c, f)}" for c, f in callers[:4])
    name = loop.node.name.value
    return Blocked(CODE, f"`{fn.name.value}` is handed to the run loop `{name}` through its parameter "
                         f"`{code(call.func)}`, and `{name}` is called from {len(callers)} places ({places}), each "
                         f"handing its own builder: `{name}`'s one body would drive every converted model, each "
                         f"converted with its own settings; give each program its own run loop (a copy of `{name}` "
                         "next to its caller), or pass one caller's files at a time", fn)


def builder_argument(entry: Handed, builder: str) -> str:
    """The caller's argument, now naming the model's builder as it reaches it."""
    if isinstance(entry.arg, cst.Attribute):
        return f"{code(entry.arg.value)}.{builder}"
    return builder


def local_support(emitter, name: str, at: cst.CSTNode, why: str) -> str:
    """A support class this file writes at its module level (the model's own copy is out of reach: in the caller's
    module, or nested in the factory that returns the model_fn); others block, naming the class and `why`."""
    if name not in LOCAL_SUPPORT:
        raise Blocked(CODE, f"{why}; the generated {name} of its model cannot be reached from here; build and drive "
                            "the Estimator where the model_fn is named", at)
    emitter.local_support.append((name, at))
    return name


def handed_edits(emitter, edits) -> None:
    """This file's part: the caller's argument names the builder."""
    for site in emitter.analysis.sites:
        entry = emitter.analysis.handed.get(id(site.call))
        if entry is not None and entry.file is emitter.file:
            edits.replace(entry.arg, builder_argument(entry, emitter.builders[id(site.model_fn.node)]))


def local_support_edits(emitter, edits) -> None:
    """The support classes local_support named, once each, above the first module-level statement using one."""
    from ...emit.assembly import support

    names = dict.fromkeys(name for name, _ in emitter.local_support)
    if names:
        statements = [edits.module_statement(support(LOCAL_SUPPORT[name]), [cst.EmptyLine(), cst.EmptyLine()])
                      for name in names]
        edits.insert_statements_above(emitter.support_anchor([at for _, at in emitter.local_support]), statements)
