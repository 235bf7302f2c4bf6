"""Small read-only queries over LibCST subtrees."""
from __future__ import annotations

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
