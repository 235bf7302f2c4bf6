"""A run-time column value assigned anew on each pass of a loop that builds one column per pass (the TF docs'
linear tutorial: `for name in NAMES: vocabulary = data[name].unique(); columns.append(...(name, vocabulary))`).

Where the Estimator is built the name holds the last pass's value only, so the model gets each column's own value
instead: the expression the pass assigned, with the loop's target written as that pass's item
(`data["color"].unique()`), evaluated where the Estimator is built, as every run-time column value is (the column
was built before it, from the same names holding the same values; render checks each name reaches there
unchanged). The expression runs a second time there, so one whose value depends on how often it runs (`next(it)`,
`queue.pop()`, a random draw, a file handle's read) keeps the loop blocker, as does anything but one assignment of
the name in the loop."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import Value, rebinding_loop

from ...facts.nodes import subtree_nodes

# loop_envs' stand-in for a key known only at run time: a pass whose item is not written in the source
_RUNTIME_KEY = "__tfmigrate_runtime_key__"
# calls whose result depends on how often they ran: a second evaluation gives another value
_STATEFUL_FUNCTIONS = {"next", "iter", "input"}
_STATEFUL_METHODS = {"pop", "popleft", "popitem", "read", "readline", "readlines", "send", "shuffle", "permutation",
                     "__next__"}
# what a module-level iterator is made by: any use of it (next, a for, zip, islice) consumes it
_ITERATOR_MAKERS = {"open", "iter", "reader", "DictReader", "islice", "cycle", "count", "chain", "tee", "zip", "map",
                    "filter", "enumerate", "reversed"}
_RANDOM = ("random", "rand", "randn", "randint", "choice", "normal", "uniform", "sample")


def _stateful(node: cst.CSTNode, program=None, file=None, depth: int = 0) -> str | None:
    """The call in `node` whose value changes with each evaluation, or None; the bodies of the program's functions
    it calls are read too (a helper reading the next line of a handle opened once), a few calls deep."""
    if isinstance(node, cst.FunctionDef) and _declares_global(node):
        return f"{node.name.value} (global/nonlocal state)"
    held = _module_iterator(node, program, file)
    if held is not None:
        return held
    for call in _calls(node):
        if program is not None and depth < 4:
            fn = program.callee(Value(call.func, file), 0)
            if fn is not None and isinstance(fn.node, cst.FunctionDef):
                inner = _stateful(fn.node, program, fn.file, depth + 1)
                if inner is not None:
                    return inner
        func = call.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        dotted = cst.Module([]).code_for_node(func)
        # `open(p).read()` reads the file anew; `handle.read()` goes on from where the last read stopped
        method = isinstance(func, cst.Attribute) and name in _STATEFUL_METHODS and not (
            name.startswith("read") and isinstance(func.value, cst.Call))
        if name in _STATEFUL_FUNCTIONS or method or "random" in dotted.split(".") or name in _RANDOM:
            return dotted
    return None


def _module_iterator(node: cst.CSTNode, program, file) -> str | None:
    """A name `node` reads that holds a module-level iterator (`HANDLE = open(p)`, `IT = iter(x)`, a generator):
    each evaluation goes on from where the last stopped, however it is consumed."""
    if program is None:
        return None
    for name in (n for n in subtree_nodes(node) if isinstance(n, cst.Name)):
        parent = file.parent(name)
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            continue
        for b in program.lookup(name.value, name, file):
            if b.scope.kind != "module" or b.kind != "assign" or b.unpack:
                continue
            value = b.value
            if isinstance(value, cst.GeneratorExp):
                return name.value
            func = value.func if isinstance(value, cst.Call) else None
            called = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) \
                else None
            if called in _ITERATOR_MAKERS:
                return name.value
            fn = program.callee(Value(func, b.scope.file), 0) if func is not None else None
            if fn is not None and isinstance(fn.node, cst.FunctionDef) \
                    and any(isinstance(n, (cst.Yield,)) for n in subtree_nodes(fn.node.body)):
                return name.value  # a generator function's result
    return None


def _declares_global(fn: cst.FunctionDef) -> bool:
    return any(isinstance(n, (cst.Global, cst.Nonlocal)) for n in subtree_nodes(fn))


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    return [n for n in subtree_nodes(node) if isinstance(n, cst.Call)]


def per_pass_text(reader, value: Value) -> str | None:
    """Code at the Estimator for `value` (a name the enclosing loop re-binds, its env binding the loop's target to
    this pass's item), or None when it is not one assignment over names that reach the Estimator unchanged."""
    while isinstance(value.node, cst.Name) and value.arg(value.node.value) is not None:
        value = value.arg(value.node.value)  # a helper's parameter: the argument the pass gave it
    name, file = value.node, value.file
    if not isinstance(name, cst.Name):
        return None
    bindings = reader.program.lookup(name.value, name, file)
    if len(bindings) != 1:
        return None
    b = bindings[0]
    loop = rebinding_loop(name, bindings, file, reader.call, reader.file)
    if loop is None or b.kind != "assign" or b.value is None or b.unpack or b.scope.file is not file:
        return None
    if _stateful(b.value, reader.program, file) is not None:
        return None
    assigned = Value(b.value, file, value.env)
    # every name the loop re-binds that the expression reads must be the loop's target, given by this pass's env
    text = reader.program.render(assigned, reader.call, reader.file)
    if text is None or _RUNTIME_KEY in text:
        return None
    return text
