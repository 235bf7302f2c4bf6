"""Small read-only queries over LibCST subtrees."""
from __future__ import annotations

import libcst as cst

from tfmigrate.visitors import Visitor


def subtree_nodes(node):
    """Every node of the subtree, with the project's read-only walk (LibCST's visit rebuilds what it descends into)."""
    out = []

    class _V(Visitor):
        def on_visit(self, n):
            out.append(n)
            return super().on_visit(n)

    node.visit(_V())
    return out


def docstring_of(stmt) -> str | None:
    if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.SimpleString)):
        return stmt.body[0].value.value
    return None
