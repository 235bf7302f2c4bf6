"""A small import/alias table: resolves `a.b.c` expressions to dotted names through module-level imports.

Cheaper than LibCST's ScopeProvider + QualifiedNameProvider (about 60% of a metadata pipeline, see
codemod-conventions §4.3) and, unlike them, it follows module-level alias assignments (`v1 = tf.compat.v1`).
Local shadowing is handled by the caller passing the names bound in the enclosing function.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

from .visitors import Visitor


@dataclass
class Binding:
    name: str  # local name
    target: str  # dotted name it stands for
    statement: cst.CSTNode  # the module-level statement that binds it (Import, ImportFrom or Assign line)
    kind: str  # "import" | "from" | "alias"


@dataclass
class ImportTable:
    bindings: dict[str, list[Binding]] = field(default_factory=dict)

    def current(self, name: str) -> Binding | None:
        found = self.bindings.get(name)
        return found[-1] if found else None

    def resolve(self, node: cst.CSTNode, local_names: frozenset[str] = frozenset()) -> str | None:
        """Dotted name an expression refers to, or None if it is not rooted in a module-level binding."""
        if not is_dotted(node):
            return None
        full = get_full_name_for_node(node)
        if full is None:
            return None
        root, _, rest = full.partition(".")
        if root in local_names:
            return None
        binding = self.current(root)
        if binding is None:
            return None
        return f"{binding.target}.{rest}" if rest else binding.target


def is_dotted(node: cst.CSTNode) -> bool:
    """A pure `a.b.c` chain (no call, subscript or other expression inside)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _dotted(node: cst.BaseExpression) -> str | None:
    return get_full_name_for_node(node)


def _module_level_statements(body) -> list[cst.CSTNode]:
    """Simple statements at module level, descending into if/try blocks (version-dependent imports)."""
    out: list[cst.CSTNode] = []
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend((stmt, small) for small in stmt.body)
        elif isinstance(stmt, cst.If):
            out.extend(_module_level_statements(stmt.body.body))
            orelse = stmt.orelse
            while orelse is not None:
                out.extend(_module_level_statements(orelse.body.body))
                orelse = getattr(orelse, "orelse", None)
        elif isinstance(stmt, cst.Try):
            out.extend(_module_level_statements(stmt.body.body))
            for handler in stmt.handlers:
                out.extend(_module_level_statements(handler.body.body))
    return out


def build_import_table(module: cst.Module, roots: tuple[str, ...] | None = None) -> ImportTable:
    """Collect module-level imports (optionally only of the given top-level packages) and aliases of them."""
    table = ImportTable()

    def add(name: str, target: str, stmt, kind: str) -> None:
        table.bindings.setdefault(name, []).append(Binding(name, target, stmt, kind))

    def wanted(dotted: str) -> bool:
        return roots is None or dotted.split(".")[0] in roots

    for line, small in _module_level_statements(module.body):
        if isinstance(small, cst.Import):
            for alias in small.names:
                dotted = _dotted(alias.name)
                if dotted is None or not wanted(dotted):
                    continue
                if alias.asname is not None:
                    add(alias.asname.name.value, dotted, line, "import")
                else:
                    top = dotted.split(".")[0]
                    add(top, top, line, "import")
        elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
            base = _dotted(small.module)
            if base is None or not wanted(base) or isinstance(small.names, cst.ImportStar):
                continue
            for alias in small.names:
                local = alias.asname.name.value if alias.asname else alias.name.value
                add(local, f"{base}.{_dotted(alias.name)}", line, "from")
        elif isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name) and isinstance(small.value, (cst.Name, cst.Attribute)):
                resolved = table.resolve(small.value)
                if resolved is not None:
                    add(target.value, resolved, line, "alias")
    return table


def bound_names(fn: cst.FunctionDef) -> frozenset[str]:
    """Names bound locally in a function (parameters and simple assignment targets), for shadowing checks."""
    names: set[str] = set()
    params = fn.params
    for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
        names.add(p.name.value)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    fn.visit(_BoundNames(fn, names))
    return frozenset(names)


class _BoundNames(Visitor):
    """bound_names' walk (one class for every call)."""

    def __init__(self, fn: cst.FunctionDef, names: set[str]):
        self.fn, self.names = fn, names

    def on_visit(self, node) -> bool:
        # assignment targets and defs are statements: no expression holds one
        return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for n in _target_names(node.target):
            self.names.add(n)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return node is self.fn


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    return []
