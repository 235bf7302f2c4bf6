"""A name assigned in the branches of an if/elif/else (or assigned, then reassigned under an `if`), read after it:
the value it holds, as the one conditional expression `A if c else B` would give (issue 28).

- `select()`: the branch a test on the followed call's literal arguments picks (`tf_version == "tf1"` read through
  `create_optimizer("tf1")`): that one assignment, exact whatever reads it (each call picks its own);
- `choice()`: otherwise a conditional expression built from the program's own nodes (the `if` test and each
  branch's value), for the readers that convert `x = A if c else B` (RunConfig settings, train_distribute).

A branch ending in `raise` or `sys.exit(...)` never reaches the read: it is no value of the choice.
Anything else (an assignment in a loop, two in one branch, a branch without one and no earlier value, a nested
`if`) is not a choice: the reader keeps its "can hold different values" message.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

_NEEDS_PARENS = (cst.IfExp, cst.Lambda, cst.NamedExpr, cst.Yield)


@dataclass(frozen=True, eq=False)
class Arm:
    test: cst.BaseExpression | None  # None: the `else` branch
    body: cst.CSTNode  # the branch's IndentedBlock
    binding: object | None  # the branch's assignment of the name, or None (the name keeps its earlier value)


def _plain(b) -> bool:
    """`name = value` (one target, no unpacking) as its statement's only part."""
    stmt = b.statement
    return b.kind == "assign" and not b.unpack and b.value is not None and isinstance(stmt, cst.SimpleStatementLine) \
        and len(stmt.body) == 1 and isinstance(stmt.body[0], (cst.Assign, cst.AnnAssign)) \
        and (not isinstance(stmt.body[0], cst.Assign) or len(stmt.body[0].targets) == 1)


def _chain(b, file) -> tuple[cst.If, list[Arm]] | None:
    """The if/elif/else chain whose branch holds `b`'s statement directly, with its arms; None otherwise."""
    block = file.parent(b.statement)
    owner = file.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if isinstance(owner, cst.Else):
        owner = file.parent(owner)
    if not isinstance(owner, cst.If):
        return None
    top = owner
    while isinstance(file.parent(top), cst.If) and file.parent(top).orelse is top:  # an `elif`
        top = file.parent(top)
    arms, node = [], top
    while isinstance(node, cst.If):
        arms.append(Arm(node.test, node.body, None))
        node = node.orelse
    if isinstance(node, cst.Else):
        arms.append(Arm(None, node.body, None))
    return top, arms


def _groups(found, at, file):
    """(base binding or None, [(top If, arms with their bindings)]) when `found` is an optional first assignment
    followed by assignments each directly in one branch of if-chains (one per branch) that run before `at`, at its
    level; None otherwise."""
    if not all(_plain(b) and b.scope is found[0].scope and b.scope.file is file for b in found):
        return None
    # read in the same scope: the `if` must be at the read's level or above it; read in a nested def: at the top
    at_block = file.blocks.get(id(at), ()) if file.scope_of(at) is found[0].scope else ()
    base, rest = None, list(found)
    if _chain(found[0], file) is None:
        base, rest = found[0], found[1:]
    groups: list[tuple[cst.If, list[Arm]]] = []
    for b in rest:
        found_chain = _chain(b, file)
        if found_chain is None:
            return None  # in a loop, a `with`, a `try`: not a branch of an `if`
        top, arms = found_chain
        block = file.blocks.get(id(top), ())
        if at_block[:len(block)] != block or file.inside(at, {id(top)}):
            return None  # the `if` in a loop the read is not in, or the read inside the `if` itself
        if base is not None and file.blocks.get(id(top)) != base.block:
            return None  # the `if` must run after the first assignment, at its level
        if groups and groups[-1][0] is top:
            arms = groups.pop()[1]
        elif groups and file.blocks.get(id(top)) != file.blocks.get(id(groups[-1][0])):
            return None
        i = next(i for i, a in enumerate(arms) if a.body is file.parent(b.statement))
        # two assignments in one branch, one after the other: the later holds after it (its value may read the first)
        arms = [*arms[:i], Arm(arms[i].test, arms[i].body, b), *arms[i + 1:]]
        groups.append((top, arms))
    return (base, groups) if groups else None


def _literal(program, node, file, env, depth=0):
    """(True, value) of an expression known from the source (a literal, a name bound to one, an argument given
    one), else (False, None)."""
    from .model import Value, code

    if depth > 8:
        return False, None
    if isinstance(node, (cst.Name, cst.Attribute)) and not (isinstance(node, cst.Name) and node.value in
                                                             ("True", "False", "None")):
        r = program.resolve(Value(node, file, env))
        constant = isinstance(r.node, cst.Name) and r.node.value in ("True", "False", "None")
        if r.node is node or r.ambiguous or (r.stopped_at is not None and not constant):
            return False, None
        return _literal(program, r.node, r.value.file, r.value.env, depth + 1)
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float, cst.Name, cst.ConcatenatedString, cst.Tuple,
                         cst.List, cst.UnaryOperation)):
        try:
            return True, ast.literal_eval(code(node).strip())
        except (ValueError, SyntaxError, TypeError):
            return False, None
    return False, None


_COMPARE = {cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b, cst.In: lambda a, b: a in b,
            cst.NotIn: lambda a, b: a not in b, cst.LessThan: lambda a, b: a < b,
            cst.GreaterThan: lambda a, b: a > b, cst.LessThanEqual: lambda a, b: a <= b,
            cst.GreaterThanEqual: lambda a, b: a >= b, cst.Is: lambda a, b: a is b,
            cst.IsNot: lambda a, b: a is not b}


def truth(program, test, file, env) -> bool | None:
    """What a test evaluates to when the source alone tells (literals, names and arguments bound to them), else
    None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = truth(program, test.expression, file, env)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = truth(program, test.left, file, env)
        is_and = isinstance(test.operator, cst.And)
        if left is not None and left is not is_and:
            return left  # `False and ...`, `True or ...`
        right = truth(program, test.right, file, env)
        return right if left is not None else (right if right is not None and right is not is_and else None)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        op = _COMPARE.get(type(test.comparisons[0].operator))
        known_a, a = _literal(program, test.left, file, env)
        known_b, b = _literal(program, test.comparisons[0].comparator, file, env)
        if op is None or not (known_a and known_b):
            return None
        try:
            return bool(op(a, b))
        except TypeError:
            return None
    known, value = _literal(program, test, file, env)
    return bool(value) if known else None


def _reads_only(test, names: set[str]) -> bool:
    from .model import free_names

    found = free_names(test)
    return bool(found) and all(n.value in names for n in found)


class _Calls(cst.CSTVisitor):
    def __init__(self):
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)


def run_time_test(program, test, file, computed) -> cst.Call | None:
    """A call in an `if` test that `computed` (the rules' predicate over its qualified name) says computes its value
    when the program runs (a tensor), not a setting the source or flags give: the engine knows no API itself."""
    calls = _Calls()
    test.visit(calls)
    for call in calls.found:
        if computed(program.qualified(call.func, file) or ""):
            return call
    return None


def select(program, found, at, file, env):
    """The one assignment of `found` that reaches, when every `if` deciding between them tests only parameters
    this call gives literals (`create_optimizer("tf1")` read through its `if version == "tf1":`); None otherwise."""
    shaped = _groups(found, at, file)
    if shaped is None:
        return None
    current, groups = shaped
    given = {name for name, _ in env}
    for _top, arms in groups:
        if not all(a.test is None or _reads_only(a.test, given) for a in arms):
            return None  # a module constant or a flag: the same for every caller (a choice), not this call's
        for arm in arms:
            value = True if arm.test is None else truth(program, arm.test, file, env)
            if value is None:
                return None
            if value:
                current = arm.binding or current
                break
    return current


def choice(program, found, at, file, env, computed) -> tuple[cst.IfExp, tuple] | None:
    """`A if c else B` (made of the program's own nodes, in `file`) for what `found` holds after its if-chains,
    and the bindings it reads; None when `found` is not that shape or a test or value would need parentheses."""
    shaped = _groups(found, at, file)
    if shaped is None:
        return None
    base, groups = shaped
    if any(run_time_test(program, a.test, file, computed) for _, arms in groups for a in arms if a.test is not None):
        return None
    groups = [(top, _reaching(arms)) for top, arms in groups]
    if not all(arms for _, arms in groups):
        return None
    current = base.value if base is not None else None
    first = groups[0][1]
    # the first value reaches unless the first `if` has an `else` and every branch assigns
    used = [base] if base is not None and (first[-1].test is not None or any(a.binding is None for a in first)) \
        else []
    for _top, arms in groups:
        if arms[-1].test is not None:
            arms = [*arms, Arm(None, None, None)]  # no `else`: the earlier value
        acc = arms[-1].binding.value if arms[-1].binding is not None else current
        for arm in reversed(arms[:-1]):
            value = arm.binding.value if arm.binding is not None else current
            if value is None or acc is None:
                return None  # a branch that leaves the name unbound
            if (isinstance(value, _NEEDS_PARENS) and not value.lpar) or \
                    (isinstance(arm.test, _NEEDS_PARENS) and not arm.test.lpar):
                return None
            acc = cst.IfExp(test=arm.test, body=value, orelse=acc)
        current = acc
        used += [a.binding for a in arms if a.binding is not None]
    if not isinstance(current, cst.IfExp):
        return None
    return current, tuple(used)


def _reaching(arms: list[Arm]) -> list[Arm]:
    """The arms that reach the read: a branch ending in `raise` or `sys.exit(...)` (`else: raise ValueError(...)`)
    never does, so the value it leaves does not matter; when that is the `else`, the last arm left stands for it."""
    kept = [a for a in arms if not _ends(a)]
    if kept and len(kept) < len(arms) and arms[-1].test is None and kept[-1].test is not None:
        kept[-1] = Arm(None, kept[-1].body, kept[-1].binding)
    return kept


def _ends(arm: Arm) -> bool:
    last = arm.body.body[-1] if arm.binding is None and arm.body is not None and arm.body.body else None
    small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    if isinstance(small, cst.Raise):
        return True
    from .model import code

    return isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and \
        code(small.value.func) in ("sys.exit", "exit", "quit", "os._exit")


def why_not(program, found, at, file, computed) -> tuple[str, cst.CSTNode] | None:
    """Why the assignments `found` are not one choice, when the reason is a construct to name: ("loop", the loop an
    assignment is in) or ("tensor", the call an `if` tests that `computed` says is a run-time value); None otherwise."""
    for b in found:
        node = file.parent(b.statement) if b.scope.file is file else None
        while node is not None and node is not b.scope.node:
            if isinstance(node, (cst.For, cst.While)) and not file.inside(at, {id(node)}):
                return "loop", node
            node = file.parent(node)
    shaped = _groups(found, at, file)
    for _, arms in (shaped[1] if shaped else ()):
        for arm in arms:
            call = run_time_test(program, arm.test, file, computed) if arm.test is not None else None
            if call is not None:
                return "tensor", call
    return None
