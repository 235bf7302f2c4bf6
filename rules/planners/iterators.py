"""TFM001 dataset iterators: an input_fn that returns a one-shot iterator's `get_next()` → one that returns the dataset.

An Estimator input_fn may return a `tf.data.Dataset` or the tensors of its iterator; the Estimator read the same
elements in the same order either way (it made the iterator itself for a dataset). TF2 datasets have no
`make_one_shot_iterator()` and Keras `fit` reads a dataset, so in a converted program's input_fn

    return ds.make_one_shot_iterator().get_next()                    →   return ds
    features, labels = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
    return features, labels                                          →   return ds
    iterator = ds.make_one_shot_iterator()
    return iterator.get_next()                                       →   return ds

    images, labels = ds.make_one_shot_iterator().get_next()
    return {"x": images}, labels                                     →   return ds.map(lambda images, labels:
                                                                                       ({"x": images}, labels))

    features = ds.make_one_shot_iterator().get_next()
    return features, parse(features.pop("y"))                       →   return ds.map(lambda features:
                                                                                       (features, parse(features.pop("y"))))
    features = it.get_next()                                             def per_batch(features):
    label = features.pop("y")                                                label = features.pop("y")
    return features, label                                           →       return features, label
                                                                         return ds.map(per_batch)
    features = it.get_next()
    return {"x": features[0]}, features[1]                           →   return tf.data.Dataset.zip((ds,)).map(
                                                                             lambda features: ({"x": features[0]}, features[1]))

(the iterator's statements consecutive at the input_fn's top level; what follows `get_next()` to the input_fn's end
simple statements ending in its one return. The Estimator's graph ran the input_fn's ops once per step on the batch
get_next() gave, which is what `dataset.map` does per element; Python in them runs once, when the input_fn is
called or the map traced. One name read as a dict (`.pop`, a string key) is a dict element, which map hands to a
one-parameter function whole; another one name (`features[0]`: a tuple element, or a tensor's rows, not known here)
maps the zipped 1-tuple, which map hands over whole either way.) Blocked, saying why:
- random ops, dropout, variables or summaries in that work, or in a function of the program it calls: graph state
  in the Estimator (seeded by the graph, written by its hooks), which a map would not reproduce; do it in the
  model_fn;
- a loop or branch after `get_next()`, or the iterator read again: move that work into `dataset.map(...)` and
  return the dataset;
- `make_initializable_iterator` in an input_fn: the Estimator never ran its initializer (TF1 failed unless the
  program registered it); return the dataset;
- a dataset iterator method anywhere else in a converted file (`ds.make_one_shot_iterator()` in a helper or the
  driver): TF2 datasets have none; iterate the dataset (`for x in ds`, `iter(ds)`).
"""
from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value

from ..facts.calls import code
from ..facts.tfnames import TFNames

CODE = "TFM001"
_ONE_SHOT = "make_one_shot_iterator"
_ITERATORS = (_ONE_SHOT, "make_initializable_iterator")
_FUNCTIONS = {"data.make_one_shot_iterator": _ONE_SHOT, "data.make_initializable_iterator":
              "make_initializable_iterator"}


def plan(file, analysis, names, edits) -> tuple[list, list[Blocked]]:
    """Edits (into `edits`) turning this file's input_fns that return an iterator's tensors into ones returning
    their dataset; (notes, blockers) of every iterator use in the file. Nothing to do (fast) in a file that never
    names an iterator."""
    if not any(word in file.names for word in _ITERATORS):
        return [], []
    input_fns = _input_fns(file, analysis)
    notes, errors, handled = [], [], set()
    for fn in input_fns:
        found = _iterator_calls(fn, file, names)
        if not found:
            continue
        handled.update(id(call) for call, _, _ in found)
        try:
            note = _convert(fn, found, file, names, edits)
        except Blocked as e:
            errors.append(e)
        else:
            notes.append(note)
    for node in (n for word in _ITERATORS for n in file.names.get(word, ())):
        call = _call_of(node, file)
        if call is not None and id(call) not in handled and _iterator_of(call, names) is not None:
            errors.append(Blocked(CODE, f"`{code(call)[:60]}`: TF2 datasets have no {_iterator_of(call, names)[0]} "
                                        "(TF1's graph-mode iterator); tfmigrate converts it only in an input_fn of an "
                                        "Estimator it converts (returning `get_next()` → returning the dataset); "
                                        "elsewhere iterate the dataset (`for batch in dataset`, `iter(dataset)`)",
                                  call))
    return notes, errors


def _input_fns(file, analysis) -> list[cst.FunctionDef]:
    """The defs of this file the program's Estimators call as input functions (train / evaluate / predict)."""
    program, out = analysis.program, {}
    for site in analysis.sites:
        for use in site.uses:
            for args in (use.train, use.evaluate, use.predict):
                value = args.get("input_fn")
                fn = program.function_of(value) if value is not None else None
                if fn is not None and isinstance(fn.node, cst.Lambda) and isinstance(fn.node.body, cst.Call):
                    fn = program.function_of(Value(fn.node.body.func, fn.file))  # `lambda: input_fn(data, 32)`
                elif fn is not None and _forwards(fn.node):  # `def train_input(): return input_fn(data, 32)`
                    fn = program.function_of(Value(fn.node.body.body[-1].body[0].value.func, fn.file)) or fn
                if fn is not None and fn.file is file and isinstance(fn.node, cst.FunctionDef):
                    out[id(fn.node)] = fn.node
    return list(out.values())


def _forwards(node) -> bool:
    """A def whose whole body (docstring aside) is `return f(...)`: its input is f's (serving_functions.py's census
    shape: `def train_input(): return input_module.input_fn(files, ...)`)."""
    if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
        return False
    body = [s for s in node.body.body if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
                                              and isinstance(s.body[0], cst.Expr)
                                              and isinstance(s.body[0].value, cst.SimpleString))]
    return len(body) == 1 and body[0] is node.body.body[-1] and len(node.body.body) <= 2 \
        and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
        and isinstance(body[0].body[0], cst.Return) and isinstance(body[0].body[0].value, cst.Call)


def _iterator_of(call: cst.Call, names) -> tuple[str, cst.BaseExpression] | None:
    """(kind, dataset expression) of `ds.make_one_shot_iterator()` / `tf.compat.v1.data.make_one_shot_iterator(ds)`
    (and the initializable ones), else None."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _ITERATORS and not call.args:
        if names.of(func) is None:  # (a TF module's function is the other spelling, below)
            return func.attr.value, func.value
    kind = _FUNCTIONS.get(names.of(call) or "")
    if kind is not None and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
        return kind, call.args[0].value
    return None


def _call_of(name: cst.Name, file) -> cst.Call | None:
    parent = file.parents.get(id(name))
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        call = file.parents.get(id(parent))
        return call if isinstance(call, cst.Call) and call.func is parent else None
    return None


def _iterator_calls(fn: cst.FunctionDef, file, names) -> list[tuple[cst.Call, str, cst.BaseExpression]]:
    out = []
    for word in _ITERATORS:
        for node in file.names.get(word, ()):
            call = _call_of(node, file)  # (`ds.make_one_shot_iterator()`, `tf.data.make_one_shot_iterator(ds)`)
            found = None if call is None else _iterator_of(call, names)
            if found is not None and file.inside(call, {id(fn)}):
                out.append((call, *found))
    return out


def _convert(fn: cst.FunctionDef, found: list, file, names, edits) -> tuple:
    """The edits for one input_fn; Blocked when its iterator is used otherwise than returned."""
    if len(found) != 1:
        raise Blocked(CODE, f"input_fn `{fn.name.value}` makes {len(found)} dataset iterators: not converted; "
                            "return one dataset", found[1][0])
    call, kind, dataset = found[0]
    if kind != _ONE_SHOT:
        raise Blocked(CODE, f"{kind} in input_fn `{fn.name.value}`: the Estimator never ran its initializer (TF1 "
                            "failed unless the program registered it); return the dataset itself (the Estimator "
                            "iterated a returned dataset the same way)", call)
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    line = file.parents.get(id(file.parents.get(id(call))))
    at = next((i for i, s in enumerate(body) if s is line or file.inside(call, {id(s)})), None)
    shape = None if at is None else _shape(body[at:], call)
    if shape is None:
        raise Blocked(CODE, f"input_fn `{fn.name.value}` uses the tensors of `{code(call)[:50]}` otherwise than "
                            "returning them (as get_next() gave them, regrouped, or computed on by the simple "
                            "statements that end the input_fn: `features = it.get_next()`, then `label = "
                            "features.pop(\"y\")`, `return features, label`): not converted; move that work "
                            "into dataset.map(...) and return the dataset (the Estimator iterated a returned dataset "
                            "the same way)", call)
    first, dropped, regrouped = shape
    if isinstance(regrouped, _Computed):
        return _convert_computed(fn, call, kind, dataset, first, dropped, regrouped, file, names, edits)
    ds_path = _path_to(first, dataset)

    def returned(updated):
        value = _follow(updated, ds_path)
        if regrouped is not None:  # `ds.map(lambda images, labels: ({"x": images}, labels))`
            value = _mapped(value, regrouped[0], regrouped[1])
        return updated.with_changes(body=[cst.Return(value=value, semicolon=cst.MaybeSentinel.DEFAULT)])

    edits.transform(first, returned)
    for stmt in dropped:
        edits.delete(stmt)
    if regrouped is not None:
        return (CODE, f"input_fn `{fn.name.value}` returns its dataset mapped to what it returned from "
                      f"`{code(call)[:50]}.get_next()` (`.map(lambda {', '.join(regrouped[0])}: ...)`): the "
                      "Estimator read the same elements, regrouped the same way, and TF2 datasets have no "
                      f"{kind}", call)
    return (CODE, f"input_fn `{fn.name.value}` returns its dataset instead of `{code(call)[:50]}.get_next()`: the "
                  "Estimator read the same elements in the same order either way, and TF2 datasets have no "
                  f"{kind}", call)


def _shape(stmts: list, call: cst.Call) -> tuple[cst.SimpleStatementLine, list] | None:
    """(statement that becomes `return <dataset>`, statements dropped) for the accepted shapes, else None."""
    lines = [s if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None for s in stmts]
    if not lines or lines[0] is None:
        return None
    first = lines[0].body[0]
    if isinstance(first, cst.Return) and _is_get_next(first.value, call):  # return ds.moi().get_next()
        return lines[0], [], None
    if isinstance(first, cst.Assign) and len(first.targets) == 1:
        target = first.targets[0].target
        if first.value is call and isinstance(target, cst.Name) and len(lines) >= 2 and lines[1] is not None:
            nxt = lines[1].body[0]  # it = ds.moi(); ...
            if isinstance(nxt, cst.Return) and _is_get_next(nxt.value, target.value):
                return lines[0], [lines[1]], None
            if isinstance(nxt, cst.Assign) and _is_get_next(nxt.value, target.value) and len(lines) >= 3:
                returned = _returned(lines[2], nxt)
                if returned is False:  # computed on: the statements to the input_fn's end, mapped
                    returned = _computed(stmts[2:], nxt, target.value)
                    return None if returned is None else (lines[0], [lines[1], *stmts[2:]], returned)
                return lines[0], [lines[1], lines[2]], returned
            return None
        if _is_get_next(first.value, call) and len(lines) >= 2:
            returned = _returned(lines[1], first)
            if returned is False:
                returned = _computed(stmts[1:], first, None)
                return None if returned is None else (lines[0], list(stmts[1:]), returned)
            return lines[0], [lines[1]], returned
    return None


class _Computed(NamedTuple):
    """The statements that end an input_fn after `x = ....get_next()`, computing on the element (see _computed)."""
    params: list
    statements: list
    returned: cst.BaseExpression | None  # the one `return <expression>`, when that is all there is
    whole: bool  # one name bound to the whole element, not known to be a dict: map the zipped dataset


_DICT_METHODS = frozenset({"pop", "get", "keys", "items", "values", "copy", "update", "setdefault"})
_SMALL = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Return)


def _computed(tail: list, assign: cst.Assign, iterator: str | None) -> _Computed | None:
    """The statements after `x = ....get_next()` to the input_fn's end when they are simple statements ending in
    its one `return <value>` and never read the iterator again: run on each element by `dataset.map`, they compute
    what the Estimator's graph computed on each batch get_next() gave (the input_fn's ops ran once per step, on that
    step's batch). None otherwise (compound statements: a loop or a branch)."""
    small = [st for line in tail if isinstance(line, cst.SimpleStatementLine) for st in line.body]
    if not small or len(small) != sum(len(line.body) for line in tail if isinstance(line, cst.SimpleStatementLine)) \
            or len(tail) != sum(isinstance(line, cst.SimpleStatementLine) for line in tail):
        return None
    if not all(isinstance(st, _SMALL) for st in small) or not isinstance(small[-1], cst.Return) \
            or small[-1].value is None or any(isinstance(st, cst.Return) for st in small[:-1]):
        return None
    read = {n.value for line in tail for n in _walk(line) if isinstance(n, cst.Name)}
    if iterator is not None and iterator in read:
        return None
    target = assign.targets[0].target
    params = _names(target)
    if isinstance(params, str):
        whole, params = not _dict_read(tail, params), [params]
    elif isinstance(params, tuple) and all(isinstance(p, str) for p in params[1:]):
        whole, params = False, list(params[1:])  # `images, labels = ...`: a (features, labels) element
    else:
        return None
    returned = small[-1].value if len(small) == 1 else None
    return _Computed(params, list(tail), returned, whole)


def _dict_read(tail: list, name: str) -> bool:
    """`name` is read as a dict (`name.pop(...)`, `name["key"]`): a dict element (TF 1.x raised otherwise)."""
    for node in (n for line in tail for n in _walk(line)):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == name \
                and node.attr.value in _DICT_METHODS:
            return True
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name \
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString)):
            return True
    return False


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def _stateful(tail: list, file, names, seen: set) -> cst.Call | None:
    """A call in these statements (or in a function of the program they call, followed) whose result would not be
    the same when `dataset.map` runs it: random ops (seeded by op, not by the Estimator's graph), dropout, variables,
    summaries (the Estimator wrote them; nothing does in a map)."""
    for node in (n for line in tail for n in _walk(line)):
        if not isinstance(node, cst.Call):
            continue
        path = names.of(node) or ""
        parts = path.split(".")
        if any("random" in p or "dropout" in p or p in ("Variable", "get_variable", "summary") for p in parts):
            return node
        fn = names.program.function_of(Value(node.func, file)) if names.program is not None else None
        if fn is not None and isinstance(fn.node, cst.FunctionDef) and id(fn.node) not in seen:
            seen.add(id(fn.node))
            inner = TFNames(program=names.program, file=fn.file)
            if _stateful([fn.node.body], fn.file, inner, seen) is not None:
                return node
    return None


def _tf_alias(file) -> str | None:
    """The name this file imports TensorFlow as (`import tensorflow as tf`, or its compat.v1), else None."""
    for name, bindings in file.top.bindings.items():
        if bindings and bindings[-1].kind == "import" and bindings[-1].target in ("tensorflow", "tensorflow.compat.v1"):
            return name
    return None


def _mapped(dataset: cst.BaseExpression, params: list, body) -> cst.Call:
    """`dataset.map(lambda <params>: <body>)` (`body` an expression) or `dataset.map(<body>)` (a function's name)."""
    if isinstance(body, cst.Name):
        return cst.Call(cst.Attribute(dataset, cst.Name("map")), [cst.Arg(body)])
    body = body.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
        if isinstance(body, cst.Tuple) and not body.lpar else body
    return cst.Call(cst.Attribute(dataset, cst.Name("map")), [cst.Arg(cst.Lambda(
        cst.Parameters([cst.Param(cst.Name(p)) for p in params]), body))])


def _convert_computed(fn, call, kind, dataset, first, dropped, computed: _Computed, file, names, edits) -> tuple:
    """`return ds.map(<the statements after get_next()>)`: a lambda for one `return <value>`, else a def above."""
    where = f"input_fn `{fn.name.value}`"
    bad = _stateful(computed.statements, file, names, set())
    if bad is not None:
        raise Blocked(CODE, f"{where} computes `{code(bad)[:50]}` on the tensors of `{code(call)[:50]}.get_next()`: "
                            "in dataset.map(...) it would not give what the Estimator's graph gave (random ops, "
                            "dropout, variables and summaries are graph state there); not converted; return the "
                            "dataset and do that work in the model_fn", bad)
    alias = _tf_alias(file) if computed.whole else None
    if computed.whole and alias is None:
        raise Blocked(CODE, f"{where} reads `{computed.params[0]}` = `{code(call)[:50]}.get_next()` otherwise than as "
                            "a dict, and this file has no `import tensorflow as ...` for the exact mapping; unpack "
                            "the element (`images, labels = ...get_next()`)", call)
    taken = set(file.names)
    function = next(n for n in ("per_batch", *(f"per_batch_{i}" for i in range(2, 100))) if n not in taken)
    if computed.returned is None:  # the statements, as they were, in a def the dataset maps
        edits.insert_statements_above(first, [cst.FunctionDef(
            cst.Name(function), cst.Parameters([cst.Param(cst.Name(p)) for p in computed.params]),
            cst.IndentedBlock(body=[s.with_changes(leading_lines=[]) if i == 0 else s
                                    for i, s in enumerate(computed.statements)]))])
    ds_path = _path_to(first, dataset)

    def returned(updated):
        value = _follow(updated, ds_path)
        if computed.whole:  # map calls f(*element) for a tuple: a 1-tuple of the element hands it over whole
            value = cst.Call(cst.parse_expression(f"{alias}.data.Dataset.zip"), [cst.Arg(cst.Tuple(
                [cst.Element(value, comma=cst.Comma())]))])
        body = computed.returned if computed.returned is not None else cst.Name(function)
        return updated.with_changes(body=[cst.Return(value=_mapped(value, computed.params, body),
                                                     semicolon=cst.MaybeSentinel.DEFAULT)])

    edits.transform(first, returned)
    for stmt in dropped:
        edits.delete(stmt)
    zipped = f" (zipped into 1-tuples, `{alias}.data.Dataset.zip((ds,))`, so that map hands each element over whole, " \
        "as get_next() gave it)" if computed.whole else ""
    return (CODE, f"{where} returns its dataset{zipped} mapped by what it computed on "
                  f"`{code(call)[:50]}.get_next()`: the Estimator's graph computed the same on each batch, and TF2 "
                  f"datasets have no {kind}", call)


def _returned(line, assign: cst.Assign):
    """What `return ...` right after `x = ....get_next()` makes of the tensors: None when it returns them as they
    are; (lambda parameters, expression) when it only regroups them (see _regroups); False otherwise."""
    if _returns_targets(line, assign):
        return None
    if line is None or not isinstance(line.body[0], cst.Return) or line.body[0].value is None:
        return False
    target, value = assign.targets[0].target, line.body[0].value
    if isinstance(target, cst.Name):  # one name: its element a dict, read by string keys only
        names, keys = {target.value}, (cst.SimpleString,)
        params = [target.value]
    else:
        params = _names(target)
        if not (isinstance(params, tuple) and all(isinstance(p, str) for p in params[1:])):
            return False
        names, keys, params = set(params[1:]), (cst.SimpleString, cst.Integer), list(params[1:])
    return (params, value) if _regroups(value, names, keys, isinstance(target, cst.Name)) else False


def _regroups(node, names: set, keys: tuple, keyed: bool) -> bool:
    """`node` only regroups the tensors named `names`: tuples and dicts (string keys) of those names or of their
    items by a literal key (`{"x": images["x"]}, labels`), no computation, so mapping the dataset with it gives each
    element exactly what the input_fn returned. With `keyed` (one name holding the whole element) only its items are
    read, by string key: a dict element (a tuple or tensor element raised TypeError in TF 1.x)."""
    if isinstance(node, cst.Name):
        return node.value in names and not keyed
    if isinstance(node, cst.Subscript):
        index = node.slice[0].slice if len(node.slice) == 1 else None
        return isinstance(node.value, cst.Name) and node.value.value in names and isinstance(index, cst.Index) \
            and isinstance(index.value, keys) and not isinstance(index.value, cst.ConcatenatedString)
    if isinstance(node, cst.Tuple):
        return bool(node.elements) and all(isinstance(e, cst.Element) and _regroups(e.value, names, keys, keyed)
                                           for e in node.elements)
    if isinstance(node, cst.Dict):
        return bool(node.elements) and all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                                           and _regroups(e.value, names, keys, keyed) for e in node.elements)
    return False


def _is_get_next(expr, what) -> bool:
    """`<what>.get_next()`: `what` the iterator call itself, or the name it was assigned to."""
    if not (isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "get_next"):
        return False
    inner = expr.func.value
    return inner is what if isinstance(what, cst.Call) else isinstance(inner, cst.Name) and inner.value == what


def _returns_targets(line, assign: cst.Assign) -> bool:
    """`return a, b` (or `return (a, b)`) right after `a, b = ....get_next()`; `return x` after `x = ...`."""
    if line is None or not isinstance(line.body[0], cst.Return) or len(assign.targets) != 1:
        return False
    want, got = _names(assign.targets[0].target), _names(line.body[0].value)
    return want is not None and want == got


def _names(node) -> tuple | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in node.elements):
        inner = tuple(_names(e.value) for e in node.elements)
        return None if None in inner else ("()", *inner)
    return None


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> list:
    """The (field, index) steps from `root` down to `target` (so the transform finds its edited copy)."""
    def walk(node, path):
        if node is target:
            return path
        for name in (f.name for f in node.__dataclass_fields__.values()):
            value = getattr(node, name)
            items = list(enumerate(value)) if isinstance(value, (tuple, list)) else [(None, value)]
            for i, child in items:
                if isinstance(child, cst.CSTNode):
                    found = walk(child, [*path, (name, i)])
                    if found is not None:
                        return found
        return None
    found = walk(root, [])
    assert found is not None, "the dataset expression is inside the statement"
    return found


def _follow(node, path: list):
    for name, i in path:
        node = getattr(node, name)
        if i is not None:
            node = node[i]
    return node
