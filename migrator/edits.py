"""Edits planned against the original tree, applied in one transform.

Rules decide everything first (analysis → plan); this applies the plan: replace an expression, replace a
statement by others, insert statements before one, wrap a simple statement in a `with` block, delete statements.
Comments above a deleted statement move to the statement that follows it. Nothing here knows TensorFlow.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .visitors import Transformer


@dataclass
class Edits:
    expressions: dict[int, str] = field(default_factory=dict)  # id(expr) → replacement code
    statements: dict[int, list[cst.BaseStatement] | str] = field(default_factory=dict)  # id(stmt) → replacement
    before: dict[int, list[str]] = field(default_factory=dict)  # id(stmt) → lines inserted above it
    wraps: dict[int, tuple[str, list[str]]] = field(default_factory=dict)  # id(stmt) → (`with …:`, lines after)
    deleted: set[int] = field(default_factory=set)
    above: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)  # id(stmt) → new statements above it
    transforms: dict[int, list] = field(default_factory=dict)  # id(node) → functions(updated node) → new node
    _nodes: dict[int, cst.CSTNode] = field(default_factory=dict)  # every edited node (its ancestors get visited)

    def replace(self, node: cst.CSTNode, text: str) -> None:
        self._track(node)
        if id(node) in self.expressions and self.expressions[id(node)] != text:
            raise ValueError("conflicting replacements for one expression")
        self.expressions[id(node)] = text

    def replace_statement(self, stmt: cst.CSTNode, new: list[cst.BaseStatement] | str) -> None:
        self._track(stmt)
        self.statements[id(stmt)] = new

    def insert_before(self, stmt: cst.CSTNode, lines: list[str]) -> None:
        self._track(stmt)
        self.before.setdefault(id(stmt), []).extend(lines)

    def insert_statements_above(self, stmt: cst.CSTNode, statements: list[cst.BaseStatement]) -> None:
        """New statements (with their own leading lines) above `stmt`, which keeps its own leading lines (and any
        other edit of it): generated module-level code placed before the statement that uses it."""
        self._track(stmt)
        self.above.setdefault(id(stmt), []).extend(statements)

    def wrap(self, stmt: cst.CSTNode, header: str, after: list[str] = ()) -> None:
        self._track(stmt)
        self.wraps[id(stmt)] = (header, list(after))

    def transform(self, node: cst.CSTNode, fn) -> None:
        """Change a node structurally (e.g. drop a parameter) after its children were edited."""
        self._track(node)
        self.transforms.setdefault(id(node), []).append(fn)

    def delete(self, stmt: cst.CSTNode) -> None:
        self._track(stmt)
        self.deleted.add(id(stmt))

    def apply(self, module: cst.Module, parent_of) -> cst.Module:
        """Apply to the original tree; subtrees without an edit are not visited, so they keep their identity."""
        keep: set[int] = set()
        for key, node in self._nodes.items():
            while node is not None and id(node) not in keep:
                keep.add(id(node))
                node = parent_of(node)
        return module.visit(_Apply(self, keep))

    def _track(self, node) -> None:
        self._nodes[id(node)] = node


def _parse_statements(text: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(text if text.endswith("\n") else text + "\n").body)


class _Apply(Transformer):
    def __init__(self, edits: Edits, keep: set[int]):
        self.edits, self.keep = edits, keep
        self.originals: dict[int, int] = {}  # id(updated statement) → id(original statement)

    def on_visit(self, node) -> bool:
        # blocks, comprehension `for` clauses and parameter lists are not in the index's parent chain (it links
        # statements to their def/if/with, and a comprehension's parts to the comprehension, directly)
        if id(node) not in self.keep and not isinstance(node, (cst.IndentedBlock, cst.Module, cst.CompFor,
                                                               cst.Parameters, cst.Param)):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self.originals[id(node)] = id(node)
            return False
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        updated = super().on_leave(original_node, updated_node)
        for fn in self.edits.transforms.get(id(original_node), ()):
            updated = fn(updated)
        text = self.edits.expressions.get(id(original_node))
        if text is not None:
            new = cst.parse_expression(text)
            if isinstance(updated, cst.BaseExpression) and (updated.lpar or updated.rpar):
                new = new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            return new
        if isinstance(updated, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.originals[id(updated)] = id(original_node)
        return updated

    def _body(self, body) -> list:
        edits, out, pending = self.edits, [], []
        for stmt in body:
            key = self.originals.get(id(stmt))
            if key is None:
                out.append(stmt)
                continue
            if key in edits.above:
                out.extend(edits.above[key])
            if key in edits.deleted:
                pending.extend(stmt.leading_lines)
                continue
            if key not in edits.before and key not in edits.statements and key not in edits.wraps:
                # untouched statements keep their identity (later passes find them by it)
                out.append(stmt.with_changes(leading_lines=[*pending, *stmt.leading_lines]) if pending else stmt)
                pending = []
                continue
            lead = [*pending, *stmt.leading_lines]
            pending = []
            new: list[cst.BaseStatement] = []
            if key in edits.before:
                new.extend(_parse_statements("\n".join(edits.before[key])))
            replacement = edits.statements.get(key)
            if isinstance(replacement, list):  # generated statements that carry their own leading lines
                new.extend(replacement)
                lead = pending
            elif replacement is not None:
                new.extend(_parse_statements(replacement))
            elif key in edits.wraps:
                header, after = edits.wraps[key]
                inner = [stmt.with_changes(leading_lines=[])]
                if after:
                    inner.extend(_parse_statements("\n".join(after)))
                with_stmt = _parse_statements(f"{header}\n    pass\n")[0]
                new.append(with_stmt.with_changes(body=with_stmt.body.with_changes(body=inner)))
            else:
                new.append(stmt.with_changes(leading_lines=[]))
            if new:
                new[0] = new[0].with_changes(leading_lines=[*lead, *new[0].leading_lines])
            out.extend(new)
        return out

    def leave_IndentedBlock(self, original, updated):
        body = self._body(updated.body)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated.with_changes(body=body)

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._body(updated.body))


class TextBlocks:
    """Generated module-level code kept as text: the tree holds a one-name placeholder statement per block and the
    engine swaps the text in after the final render (Context.replace_text). Such code is never parsed, walked or
    rendered — the caller passes only code that no later pass would change.

    Exact only where LibCST would render the parsed text as written: at module level (no indentation to add), in a
    module whose default indent and newline are the text's own ("    ", "\\n"), for text that opens with a
    statement and does not end in a comment (a parsed module would move those to its header/footer). `usable`
    says so for the module; `splices(text)` for a text."""

    def __init__(self, module: cst.Module, source: str):
        self.usable = module.default_indent == "    " and module.default_newline == "\n"
        self.prefix = "__tfmigrate_text_"
        while self.prefix in source:  # never a name the user's file has
            self.prefix += "x"
        self.swaps: list[tuple[str, str]] = []  # (placeholder line, text), for Context.replace_text
        self._names = 0

    @staticmethod
    def splices(text: str) -> bool:
        if not text.strip() or text[0] in " \t\r\n#\\" or "\r" in text:
            return False
        last = text.rstrip("\n").rsplit("\n", 1)[-1].lstrip()
        return not last.startswith("#") and not last.endswith("\\")

    def statement(self, text: str, leading=()) -> cst.SimpleStatementLine:
        """The placeholder statement for `text` (module-level statements ending in a newline)."""
        name = self.name()
        self.swaps.append((name + "\n", text))
        return cst.SimpleStatementLine([cst.Expr(cst.Name(name))], leading_lines=list(leading))

    def name(self) -> str:
        """A fresh placeholder name (for a caller that writes the placeholder line into text it parses; it adds the
        swap itself, `(indent + name + "\n", text)`, once the parse confirmed where the line went)."""
        self._names += 1
        return f"{self.prefix}{self._names}__"

    def texts(self) -> list[str]:
        return [text for _, text in self.swaps]
