"""tfmigrate.visitors.Transformer walks the children of the node LibCST's `visit` starts at itself: the same
visits and leaves in the same order as LibCST's own walk, the same tree (removed and flattened children treated as
LibCST treats them, sequences made tuples), and an entered node whose children all come back unchanged is kept
(for a class with an on_leave of its own, rebuilt as LibCST would)."""
from __future__ import annotations

import libcst as cst
import pytest

from test_walk import EXTRA, ROOT, SOURCES
from tfmigrate.visitors import TRIVIA, Transformer


class _Edit(Transformer):
    """Renames, removes (a `pass`, a keyword argument, a decorator, a comma's element) and flattens (a `return`
    line into two) to exercise every kind of child result."""

    def __init__(self):
        self.seen: list[tuple[str, int]] = []

    def on_visit(self, node) -> bool:
        if not isinstance(node, TRIVIA):  # (LibCST asks about them; a class without an on_leave skips them)
            self.seen.append(("visit", id(node)))
        return super().on_visit(node)

    def visit_Lambda(self, node) -> bool:
        return False  # a subtree not entered

    def leave_Name(self, original, updated):
        self.seen.append(("leave", id(original)))
        return cst.Name("this") if updated.value == "self" else updated

    def leave_Pass(self, original, updated):
        return cst.RemoveFromParent()

    def leave_Arg(self, original, updated):
        return cst.RemoveFromParent() if updated.keyword is not None and updated.keyword.value == "name" else updated

    def leave_Decorator(self, original, updated):
        return cst.RemoveFromParent()

    def leave_SimpleStatementLine(self, original, updated):
        if any(isinstance(s, cst.Return) for s in updated.body):
            return cst.FlattenSentinel([updated, updated.with_changes(leading_lines=())])
        return updated

    def leave_Else(self, original, updated):
        return cst.RemoveFromParent() if isinstance(original.body, cst.IndentedBlock) and len(original.body.body) == 1 \
            else updated

    def leave_AsName(self, original, updated):
        return cst.RemoveFromParent()


class _OwnLeave(_Edit):
    def on_leave(self, original_node, updated_node):
        self.seen.append(("left", id(original_node), updated_node is original_node))
        return super().on_leave(original_node, updated_node)


def _libcst(transformer: Transformer, module: cst.Module):
    transformer._walking = True  # on_visit only answers: LibCST's own visit walks and rebuilds
    try:
        return module.visit(transformer)
    finally:
        transformer._walking = False


@pytest.mark.parametrize("kind", [_Edit, _OwnLeave])
@pytest.mark.parametrize("source", [*SOURCES[::3], "EXTRA"],
                         ids=lambda p: p if isinstance(p, str) else str(p.relative_to(ROOT)))
def test_same_walk_same_tree(source, kind):
    text = EXTRA.split("type T = int")[0] if source == "EXTRA" else source.read_text()
    module = cst.parse_module(text)
    fast, slow = kind(), kind()
    try:
        expected = _libcst(slow, module)
    except (TypeError, cst.CSTValidationError) as error:  # a removal the parent does not allow: the same error
        with pytest.raises(type(error), match=str(error)[:40].replace("(", r"\(").replace("[", r"\[")):
            module.visit(fast)
        return
    got = module.visit(fast)
    assert fast.seen == slow.seen
    assert got.code == expected.code
    assert got.deep_equals(expected)


def test_unchanged_nodes_are_kept():
    module = cst.parse_module("def f(a):\n    return g(a, b=1)\n")

    class _Nothing(Transformer):
        pass

    assert module.visit(_Nothing()) is module
    changed = module.visit(_Edit())
    assert changed is not module and changed.body[0].params is module.body[0].params  # (no Name `self` in it)
    own = module.visit(_OwnLeave())
    assert own is not module and own.body[0].params is not module.body[0].params  # rebuilt, as LibCST does
