"""A dict of serving_input_receiver_fns looked up by a flag (part of TFM601).

`FinalExporter(name, SERVING_FUNCTIONS[args.export_format])` with `SERVING_FUNCTIONS = {"JSON": json_fn, "CSV": csv_fn}`
(the Cloud ML census shape): every value is a hand-written receiver (rules/planners/receivers.py) and each gets that
module's edits, so whichever key the run picks gives the function the Estimator would have called; the lookup itself
stays as written and is evaluated at the export. Converted when:
- the dict is a literal with string keys, assigned once at the top of a module and never changed (no item
  assignment, `del`, `update`/`pop`/...), every value a def returning ServingInputReceiver (or every value one returning
  TensorServingInputReceiver: the model's features keep one form);
- the key is a string literal (or a name assigned one) that is a key, or a flag of this program (argparse
  `add_argument("--export-format" | "--export_format", default=...)`, absl `DEFINE_string/DEFINE_enum`) defined once
  with a string default that is a key. argparse `choices` must all be keys; without them, a value that is not a key
  raised KeyError when the exporter was built (before training) and raises it at the export (after training): noted.

Blocked, at the line: a key with no default known at rewrite time (a parameter, `sys.argv[1]`, a flag defaulting to
None), a default or choice that is not a key, a dict that changes, a value that is not a hand-written receiver (a
`build_parsing_serving_input_receiver_fn(...)` call: the export method would depend on the key), a receiver body that
runs a session (the export runs the function once, in a graph with no session).

Also here: a receiver built by a factory (`def build_tensor_serving_input_receiver_fn(shape, ...)` defining and
returning the receiver def, the TF official models' utils/export shape, in the run loop's module or one it imports)
converts when every call of the factory is an export's receiver, directly or through a name assigned once and read
only by exports; a call used any other way keeps the blocker at that use.
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from ..facts.flags import definitions as flag_definitions
from ..facts.calls import literal
from ..facts.mutations import changed_in_place
from ..facts.nodes import subtree_nodes

CODE = "TFM601"
_STRING_FLAGS = ("DEFINE_string", "DEFINE_enum")


def is_lookup(node: cst.CSTNode) -> bool:
    """`D[key]`: one plain index (what this module converts or explains)."""
    return isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)


def lookup(analysis, value: Value, subscript: Value, site, receiver_of) -> dict:
    """The receiver of `D[key]`: {"receiver_fn": value, "single_feature": ...}; `receiver_of(Value)` gives each dict
    value's receiver (the hand-written check), `value` is what is rendered at the export. Each receiver's plan
    records the dict's binding: its reads there are the lookup's, and the dict's own reads are checked later."""
    program, node, file = analysis.program, subscript.node, subscript.file
    shown = code(value.node)[:60]
    table = program.resolve(Value(node.value, file, subscript.env))
    if table.ambiguous or not isinstance(table.node, cst.Dict):
        raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: `{code(node.value)[:40]}` is not a dict literal "
                            "assigned once that tfmigrate can see", value.node)
    keys = _keys(table.node, shown, value.node)
    binding = _unchanged(program, table, shown, value.node)
    key, choices = _key(analysis, Value(node.slice[0].slice.value, file, subscript.env), shown, value.node)
    if key not in keys:
        raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the key's default {key!r} is not a key of the dict "
                            f"({', '.join(map(repr, keys))}): the Estimator raised KeyError", value.node)
    if choices is not None and set(choices) - set(keys):
        raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the flag allows "
                            f"{', '.join(map(repr, sorted(set(choices) - set(keys))))}, not a key of the dict", value.node)
    kinds = set()
    for element in table.node.elements:
        item = Value(element.value, table.value.file, table.value.env)
        receiver = receiver_of(item)
        if "receiver_fn" not in receiver:
            raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the dict's {literal(element.key)!r} value "
                                f"`{code(element.value)[:40]}` is not a def returning ServingInputReceiver; only a "
                                "dict of those is converted (the export's method would depend on the key)",
                          element.value)
        fn = program.function_of(item)
        _no_session(analysis, fn, item)
        plan = site.receivers[id(fn.node)]
        if binding not in plan.tables:
            plan.tables.append(binding)
        kinds.add(receiver["single_feature"])
    if len(kinds) > 1:
        raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the dict mixes ServingInputReceiver and "
                            "TensorServingInputReceiver functions; the model's features would change form with the key",
                      value.node)
    if choices is None and not isinstance(key_node := node.slice[0].slice.value, cst.SimpleString) \
            and analysis.program.resolve(Value(key_node, file, subscript.env)).node is key_node:
        analysis.notes.append((CODE, f"serving_input_receiver_fn `{shown}`: a flag value that is not a key of the dict "
                                     "raised KeyError when the exporter was built, before training; the migrated "
                                     "program raises it at the export, after training (give the flag choices=)",
                               value.node))
    return {"receiver_fn": value, "single_feature": kinds.pop()}


def _keys(node: cst.Dict, shown: str, at) -> list[str]:
    keys = []
    for element in node.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
            raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the dict's keys are not all string literals",
                          element.key if isinstance(element, cst.DictElement) else at)
        keys.append(element.key.evaluated_value)
    return keys


def _unchanged(program, table, shown: str, at):
    """The dict's binding is its only one and nothing changes it (item assignment/del, mutating methods)."""
    assigns = [b for b in table.trail if b.kind == "assign"]
    if not assigns or assigns[-1].scope.kind != "module":
        raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the dict is not assigned at the top of a module",
                      at)
    name = assigns[-1].name
    changed = changed_in_place(program, name)
    if changed is not None:
        raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the dict `{name}` is changed here; only a "
                            "dict that keeps its literal value is converted", changed)
    return assigns[-1]


def stray_reads(program, binding, covered: set[int]) -> None:
    """A dict of receivers is read only by exports' lookups (its functions now return (features, receiver_tensors));
    `covered`: the nodes the conversion replaces or removes."""
    for file in program.files:
        for use in file.names.get(binding.name, ()):
            parent = file.parent(use)
            if isinstance(parent, cst.ImportAlias):
                continue  # `from trainer.inputs import SERVING_FUNCTIONS`: its reads are checked
            read = parent if isinstance(parent, cst.Attribute) and parent.attr is use else use
            if read is use and id(use) not in {id(n) for n in file.loads.get(binding.name, ())}:
                continue  # a store, a def name, a keyword
            r = program.resolve(Value(read, file))
            if r.node is not binding.value or file.inside(read, covered):
                continue
            raise Blocked(CODE, f"`{binding.name}`, a dict of serving_input_receiver_fns, is also used here; its migrated "
                                "functions return (features, receiver_tensors) instead of a ServingInputReceiver, so "
                                "only exports may use it (give this use its own functions)", read)


def _key(analysis, key: Value, shown: str, at) -> tuple[str, list[str] | None]:
    """The key the run picks by default, and the values the flag allows (None: not limited)."""
    r = analysis.program.resolve(key)
    if isinstance(r.node, cst.SimpleString) and not r.ambiguous:
        return r.node.evaluated_value, [r.node.evaluated_value]
    node = r.node if not r.ambiguous else key.node
    if isinstance(node, cst.Attribute):
        flags = _flags(analysis.program, node.attr.value)
        if len(flags) == 1 and isinstance(flags[0][0], cst.SimpleString):
            default, choices = flags[0]
            return default.evaluated_value, choices
        if len(flags) > 1:
            raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the flag `{node.attr.value}` is defined "
                                f"{len(flags)} times; define it once, with a string default", at)
        if flags:
            raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the flag `{node.attr.value}` has no string "
                                "default, so tfmigrate cannot tell which receiver the run exports with", at)
    raise Blocked(CODE, f"serving_input_receiver_fn `{shown}`: the key `{code(key.node)[:40]}` is computed at run time "
                        "with no default tfmigrate can read (converted: a string literal, or a flag of this program "
                        "with a string default)", at)


def _flags(program, name: str) -> list[tuple[cst.BaseExpression | None, list[str] | None]]:
    """(default, choices) of every string flag `name` the program defines (facts/flags.py: argparse, absl
    DEFINE_string/DEFINE_enum); a default or choices given by a name assigned once are its value."""
    return [(_value(program, f.default, f.file), _strings(_value(program, f.choices, f.file)))
            for f in flag_definitions(program, name, _STRING_FLAGS)]


def _value(program, node, file):
    """`node`, or the literal a name assigned once holds (`choices=FORMATS`)."""
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return node
    r = program.resolve(Value(node, file))
    return r.node if not r.ambiguous else node


def _strings(node) -> list[str] | None:
    if isinstance(node, (cst.List, cst.Tuple)) and all(isinstance(e.value, cst.SimpleString) for e in node.elements):
        return [e.value.evaluated_value for e in node.elements]
    return None


def _no_session(analysis, fn, at: Value) -> None:
    """A receiver that runs a session: the export runs the function once, in a graph with no session."""
    if fn is None:
        return
    for call in (n for n in subtree_nodes(fn.node.body) if isinstance(n, cst.Call)):
        path = analysis.tf(call.func, fn.file) or ""
        if path.rsplit(".", 1)[-1] in ("Session", "InteractiveSession", "get_default_session") \
                or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "run"
                    and "session" in code(call.func.value).lower()):
            raise Blocked(CODE, f"serving_input_receiver_fn `{fn.node.name.value}` runs a session "
                                f"(`{code(call)[:40]}`): the export runs the receiver once to build the serving "
                                "graph, with no session; compute that value outside the receiver", call)


def factory_reads(program, b, stray: list, covered: set[int], receiver: cst.FunctionDef) -> list:
    """Of the stray reads of a def on the way to a receiver, the ones left once its factory is allowed
    (`def build_tensor_serving_input_receiver_fn(shape, ...): def fn(): ...; return fn`, the TF official models'
    utils/export shape): the factory's `return fn` and the calls of the factory, when every such call is an export's
    receiver, directly or through a name assigned once whose every read is one."""
    scope = receiver_scope = None
    for candidate in program.files:
        s = candidate.function_scopes.get(id(receiver))
        if s is not None:
            receiver_scope = s
            break
    scope = receiver_scope.parent if receiver_scope is not None else None
    if scope is None or scope.kind != "function" or not isinstance(scope.node, cst.FunctionDef):
        return stray
    file = scope.file
    if b.node is receiver:  # the factory's `return fn`
        returns = {id(r) for r in scope.returns if isinstance(r.value, cst.Name) and r.value.value == b.name}
        rest = [n for n in stray if id(file.parent(n)) not in returns]
    elif b.node is scope.node:  # calls of the factory: checked below, each
        rest = [n for n in stray if not _called(program.file_of(n), n)]
    else:
        return stray
    if len(rest) == len(stray) or not _feeds_exports(program, scope.node, covered):
        return stray
    return rest


def _called(file, name) -> bool:
    parent = file.parent(name)
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        name, parent = parent, file.parent(parent)
    return isinstance(parent, cst.Call) and parent.func is name


def _feeds_exports(program, factory: cst.FunctionDef, covered: set[int]) -> bool:
    """Every call of `factory` is inside a converted export, or assigned once to a name read only there."""
    calls = program.call_sites(factory)
    for call, file in calls:
        if file.inside(call, covered):
            continue
        assign = file.parent(call)
        name = assign.targets[0].target.value if isinstance(assign, cst.Assign) and len(assign.targets) == 1 \
            and isinstance(assign.targets[0].target, cst.Name) else None
        found = [x for x in file.scope_of(call).bindings.get(name, ()) if x.value is call] if name else []
        if len(found) != 1 or any(not file.inside(n, covered) for n in file.loads_of(program, found[0])):
            return False  # the factory's result is used some other way: its function keeps the receiver type
    return bool(calls)
