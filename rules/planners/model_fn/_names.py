"""Names in LibCST nodes: the free names a value reads (also from generated text, with `ast`), the calls in a
subtree, and free names replaced by expressions."""
from __future__ import annotations

import ast

import libcst as cst

from tfmigrate.visitors import Transformer, ValueNames, Visitor, walk

# The walks below are module-level classes, one instance per walk: making a visitor class per call (as a closure)
# cost more than most of these walks.

class _LambdaNames(Visitor):
    def __init__(self, found: set[str]):
        self.found = found

    def visit_Lambda(self, n: cst.Lambda) -> bool:
        params = {p.name.value for p in n.params.params}
        self.found.update(x.value for x in free_name_nodes(n.body) if x.value not in params)
        self.found.update(lambda_names(n.body))
        return False


def lambda_names(node: cst.CSTNode) -> set[str]:
    """Names a lambda's body reads that are not its own parameters (free names skip lambdas)."""
    found: set[str] = set()
    walk(node, _LambdaNames(found))
    return found


class _FreeNameNodes(ValueNames):
    def visit_Lambda(self, n: cst.Lambda) -> bool:
        return False

    def _comprehension(self, n) -> bool:
        # the first iterable is read where the comprehension stands; its targets are local to it
        walk(n.for_in.iter, self)
        bound, inner, comp = set(), [], n.for_in
        while comp is not None:
            bound.update(t.value for t in free_name_nodes(comp.target))
            inner.extend([*([comp.iter] if comp is not n.for_in else []), *(i.test for i in comp.ifs)])
            comp = comp.inner_for_in
        parts = [n.key, n.value] if isinstance(n, cst.DictComp) else [n.elt]
        self.found.extend(x for part in [*parts, *inner] for x in free_name_nodes(part) if x.value not in bound)
        return False

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Name(self, n: cst.Name) -> None:
        self.found.append(n)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def text_free_names(text: str) -> set[str] | None:
    """The names `free_name_nodes` finds in `cst.parse_expression(text)`, read with `ast` (a C parse; None where
    `ast` does not read the text): Names used as values, lambdas skipped, a comprehension's targets local to it.
    (LibCST also holds True/False/None as Names, `ast` as constants: they are builtins, which every check drops.)
    tests/rewrite/test_model_fn_nodes.py compares both."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    found: set[str] = set()
    _ast_free_names(tree.body, found)
    return found


def _ast_free_names(node: ast.AST, found: set[str]) -> None:
    stack = [node]
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is ast.Name:
            found.add(n.id)
        elif kind is ast.Lambda:
            continue
        elif kind in _COMPREHENSIONS:
            _ast_free_names(n.generators[0].iter, found)
            bound, inner = set(), []
            for i, comp in enumerate(n.generators):
                _ast_free_names(comp.target, bound)
                inner.extend([*([comp.iter] if i else []), *comp.ifs])
            local: set[str] = set()
            for part in ([n.key, n.value] if kind is ast.DictComp else [n.elt]) + inner:
                _ast_free_names(part, local)
            found.update(local - bound)
        else:
            stack.extend(ast.iter_child_nodes(n))


def free_name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    """Name nodes used as values (not attribute names, keywords, or inside lambdas)."""
    found: list[cst.Name] = []
    walk(node, _FreeNameNodes(found))
    return found


class _ReplaceNames(Transformer):
    """Name nodes (by id) replaced by what `make` gives for their name."""

    def __init__(self, hits: set[int], make):
        self.hits, self.make = hits, make

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.make(original.value) if id(original) in self.hits else updated


def rename_names(node: cst.CSTNode, names: dict[str, str]) -> cst.CSTNode:
    """Replace free uses of `names` by their expressions."""
    hits = {id(n) for n in free_name_nodes(node) if n.value in names}
    if not hits:
        return node
    return node.visit(_ReplaceNames(hits, lambda name: cst.parse_expression(names[name])))


def substitute(node: cst.CSTNode, exprs: dict[str, cst.BaseExpression]) -> cst.CSTNode:
    """Replace free uses of names by expressions."""
    hits = {id(n) for n in free_name_nodes(node) if n.value in exprs}
    return node.visit(_ReplaceNames(hits, exprs.__getitem__))


def parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Call, cst.Attribute, cst.Subscript, cst.SimpleString, cst.Integer, cst.Float)):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _NamesAndAssignCounts(Visitor):
    def __init__(self):
        self.counts: dict[str, int] = {}
        self.names: set[str] = set()

    def visit_Name(self, n: cst.Name) -> None:
        self.names.add(n.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for name in all_name_nodes(node.target):
            self.counts[name.value] = self.counts.get(name.value, 0) + 1

    def visit_For(self, node: cst.For) -> None:
        for name in all_name_nodes(node.target):
            self.counts[name.value] = self.counts.get(name.value, 0) + 2  # a loop variable is never inlined

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `units *= 2` assigns `units` again: not a static local (was substituted: "statement `4 *= 2`")
        for name in all_name_nodes(node.target):
            self.counts[name.value] = self.counts.get(name.value, 0) + 1


def names_and_assign_counts(fn: cst.FunctionDef) -> tuple[set[str], dict[str, int]]:
    """Every name in the function, and how often each is assigned in its body (one walk)."""
    names = _NamesAndAssignCounts()
    walk(fn, names)
    return names.names, names.counts


class _AllNameNodes(Visitor):
    def __init__(self, found: list[cst.Name]):
        self.found = found

    def visit_Name(self, n: cst.Name) -> None:
        self.found.append(n)


def all_name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []
    walk(node, _AllNameNodes(found))
    return found


class _Calls(Visitor):
    def __init__(self, found: list[cst.Call]):
        self.found = found

    def visit_Call(self, call: cst.Call) -> None:
        self.found.append(call)


def calls_in(node) -> list[cst.Call]:
    """Every call in `node`'s subtree, in walk order (rules/program.py uses it too)."""
    found: list[cst.Call] = []
    walk(node, _Calls(found))
    return found


class _NamesRead(ValueNames):
    def visit_Name(self, n: cst.Name) -> None:
        self.found.add(n.value)


def names_read_anywhere(node) -> set[str]:
    """Identifiers used as names anywhere below `node`, lambdas and nested defs included (attribute names and
    keywords are not names)."""
    found: set[str] = set()
    walk(node, _NamesRead(found))
    return found
