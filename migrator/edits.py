"""Edits planned against the original tree, applied in one transform.

Rules decide everything first (analysis → plan); this applies the plan: replace an expression, replace a
statement by others, insert statements before one, wrap a simple statement in a `with` block, delete statements.
Comments above a deleted statement move to the statement that follows it. Nothing here knows TensorFlow.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

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
    # With `blocks` (a usable TextBlocks), generated text that `plain(text, expression)` accepts (no later pass
    # needs its tree; `expression`: the text replaces an expression) is not parsed: a placeholder goes in the tree
    # and the text, indented as LibCST would render its parse there (`indent_text`), is swapped in after the final
    # render.
    blocks: "TextBlocks | None" = None
    plain: Callable[[str], bool] | None = None

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
        # replaced expressions that may stay text: none of their ancestors is transformed (a transform reads its
        # children's nodes); each with the number of wrapped statements around it (a block level each)
        nested: dict[int, int] = {}
        if self.blocks is not None:
            for key in self.expressions:
                node, depth = parent_of(self._nodes[key]), 0
                while node is not None and id(node) not in self.transforms:
                    depth += id(node) in self.wraps
                    node = parent_of(node)
                if node is None:
                    nested[key] = depth
        return module.visit(_Apply(self, keep, module.default_indent, nested))

    def module_statement(self, text: str, leading=()) -> cst.BaseStatement:
        """Generated module-level code (one statement) to insert with `insert_statements_above`: a TextBlocks
        placeholder when it may stay text, else its parse."""
        text = text.strip() + "\n"
        if self.blocks is not None and TextBlocks.splices(text) and self.plain(text) and _flat_statement(text):
            return self.blocks.statement(text, leading, standalone=text.rstrip("\n") in SHARED)
        return cst.parse_module(text).body[0].with_changes(leading_lines=list(leading))

    def _track(self, node) -> None:
        self._nodes[id(node)] = node


def _parse_statements(text: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(text if text.endswith("\n") else text + "\n").body)


def _flat_statement(text: str) -> bool:
    """`text` (module-level code ending in a newline) is one statement: no other line starts at column 0."""
    return all(not line or line[0] in " \t)]}" for line in text[:-1].split("\n")[1:])


def indent_text(text: str, indent: str, statements: bool = True) -> str | None:
    """`text` as LibCST renders its parse placed at absolute indentation `indent` (render_lines): module-level
    statements ending in a newline, or (not `statements`) an expression, whose first line continues the line of
    the statement it is in. None where render_lines cannot tell (the caller parses instead)."""
    lines = render_lines(text if statements else text + "\n", indent)
    if lines is None:
        return None
    rendered = "".join(lines)
    return rendered if statements else rendered[len(indent):-1]


def render_lines(text: str, indent: str, top_blank: bool = True) -> list[str] | None:
    """Each line of `text` (module-level statements ending in a newline) as LibCST renders the parse of the text
    placed in a block at absolute indentation `indent` (None where this cannot tell: a tab or `\r`, trailing
    blank or comment lines, an unclosed bracket or string). LibCST adds the block's indentation to a line that
    starts a statement; to a line inside brackets when it starts with its statement's own indentation; to a blank
    or comment-only line when it is indented at least as far as the statement that follows it (whose leading
    lines it is); never to a line inside a multi-line string or after a backslash continuation. `top_blank=False`:
    blank lines before a statement at the text's top level get none (_render_model sets those to no indentation).
    tests/rewrite/test_indent_text.py compares it with LibCST on hand shapes and on every generated part."""
    if "\t" in text or "\r" in text or not text.endswith("\n"):
        return None
    lines = text.split("\n")[:-1]
    kinds: list[str] = []  # "stmt", "bracket", "string" (kept as written), "loose" (blank or comment-only)
    depth, quote, continued, stmt_indent = 0, "", False, ""
    for line in lines:
        if quote:
            kinds.append("string")
        elif continued:
            kinds.append("string")  # (kept as written, like a string's lines)
        elif depth:
            kinds.append("bracket" if line.startswith(stmt_indent) else "string")
        elif not line.strip() or line.lstrip().startswith("#"):
            kinds.append("loose")
        else:
            kinds.append("stmt")
            stmt_indent = line[:len(line) - len(line.lstrip(" "))]
        continued = False
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if quote:
                if c == "\\":
                    i += 1
                elif line.startswith(quote, i):
                    i += len(quote) - 1
                    quote = ""
            elif c in "\"'":
                quote = line[i:i + 3] if line.startswith(c * 3, i) else c
                i += len(quote) - 1
            elif c == "#":
                break
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            i += 1
        if line.endswith("\\"):
            if "#" in line or not quote and depth:
                return None  # (a comment's backslash, or one in brackets: not read here)
            continued = not quote
        elif quote and len(quote) == 1:
            return None  # an unterminated string
    if depth or quote or continued:
        return None
    out: list[str | None] = [None] * len(lines)
    following = None  # the indentation of the next statement line
    for k in range(len(lines) - 1, -1, -1):
        line, kind = lines[k], kinds[k]
        if kind == "stmt":
            following = len(line) - len(line.lstrip(" "))
            out[k] = f"{indent}{line}\n"
        elif kind == "loose":
            if following is None:
                return None  # trailing lines: the parse would put them in the module footer
            own = len(line) - len(line.lstrip(" "))
            prefixed = own >= following and (bool(line.strip()) or following > 0 or top_blank)
            out[k] = f"{indent}{line}\n" if prefixed else f"{line}\n"
        elif kind == "bracket":
            out[k] = f"{indent}{line}\n"
        else:
            out[k] = f"{line}\n"
    return out


SHARED: set[str] = set()  # generated module-level code that is the same text in every file needing it


def shared(text: str) -> str:
    """`text`, registered as generated support code the same in every file (TextBlocks.statement's `standalone`:
    the output check compiles such text once per process)."""
    SHARED.add(text.strip("\n"))
    return text


_ENTERED = (cst.IndentedBlock, cst.Module, cst.CompFor, cst.Parameters, cst.Param)
_STATEMENT = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def _kind_test(classes: tuple) -> Callable[[type], bool]:
    """`issubclass(kind, classes)`, answered once per node type (an ABC check costs more than a dict hit)."""
    known: dict[type, bool] = {}

    def test(kind: type) -> bool:
        found = known.get(kind)
        if found is None:
            found = known[kind] = issubclass(kind, classes)
        return found

    return test


_always_entered, _is_statement = _kind_test(_ENTERED), _kind_test(_STATEMENT)


class _Apply(Transformer):
    def __init__(self, edits: Edits, keep: set[int], default_indent: str = "    ", nested: dict | None = None):
        self.edits, self.keep = edits, keep
        self.originals: dict[int, int] = {}  # id(updated statement) → id(original statement)
        self.default_indent, self.nested = default_indent, nested or {}
        self.indents: list[str] = []  # the indentation of each IndentedBlock entered (LibCST's codegen adds them up)

    def on_visit(self, node) -> bool:
        # blocks, comprehension `for` clauses and parameter lists are not in the index's parent chain (it links
        # statements to their def/if/with, and a comprehension's parts to the comprehension, directly)
        kind = type(node)
        if id(node) not in self.keep and not _always_entered(kind):
            if _is_statement(kind):
                self.originals[id(node)] = id(node)
            return False
        if kind is cst.IndentedBlock:
            self.indents.append(self.default_indent if node.indent is None else node.indent)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        key = id(original_node)
        if updated_node is original_node and key not in self.keep:
            return updated_node  # not entered and not edited (on_visit noted a statement's original)
        updated = super().on_leave(original_node, updated_node)
        for fn in self.edits.transforms.get(key, ()):
            updated = fn(updated)
        text = self.edits.expressions.get(key)
        if text is not None:
            placeholder = self._text_expression(original_node, updated, text)
            if placeholder is not None:
                return placeholder
            new = cst.parse_expression(text)
            if isinstance(updated, cst.BaseExpression) and (updated.lpar or updated.rpar):
                new = new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            return new
        if _is_statement(type(updated)):
            self.originals[id(updated)] = key
        return updated

    def _text(self, text: str, indent: str, statements: bool = True) -> str | None:
        """A placeholder name for generated `text` (its swap registered), when it may stay text, else None."""
        blocks = self.edits.blocks
        if blocks is None or not self.edits.plain(text, not statements):
            return None
        indented = indent_text(text, indent, statements)
        if indented is None:
            return None
        name = blocks.name()
        if indented != text:  # the names passes read the code unindented
            blocks.code[len(blocks.swaps)] = text
        blocks.swaps.append((f"{indent}{name}\n" if statements else name, indented))
        return name

    def _statements(self, text: str, indent: str) -> list[cst.BaseStatement]:
        text = text if text.endswith("\n") else text + "\n"
        name = self._text(text, indent) if TextBlocks.splices(text) and not text.endswith("\n\n") else None
        if name is None:
            return _parse_statements(text)
        return [cst.SimpleStatementLine([cst.Expr(cst.Name(name))])]

    def _wrap(self, header: str, inner: list, indent: str) -> cst.BaseCompoundStatement:
        """`header` (`with …:` / `if …:`) over `inner`: a one-line header that may stay text is an `if` on a
        placeholder name in the tree, the header swapped in for its `if NAME:`."""
        if "\n" not in header and header.endswith(":"):
            name = self._text(header, "", statements=False)
            if name is not None:
                blocks = self.edits.blocks
                blocks.swaps[-1] = (f"if {name}:", header)
                blocks.code[len(blocks.swaps) - 1] = f"{header}\n    pass\n"  # (code that parses)
                return cst.If(cst.Name(name), cst.IndentedBlock(inner))
        with_stmt = _parse_statements(f"{header}\n    pass\n")[0]
        return with_stmt.with_changes(body=with_stmt.body.with_changes(body=inner))

    def _text_expression(self, original, updated, text: str):
        depth = self.nested.get(id(original))
        if (depth is None or text != text.strip() or not text
                or (isinstance(updated, cst.BaseExpression) and (updated.lpar or updated.rpar))):
            return None
        name = self._text(text, "".join(self.indents) + self.default_indent * depth, statements=False)
        return None if name is None else cst.Name(name)

    def _body(self, body) -> list:
        edits, out, pending = self.edits, [], []
        indent = "".join(self.indents)
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
                new.extend(self._statements("\n".join(edits.before[key]), indent))
            replacement = edits.statements.get(key)
            if isinstance(replacement, list):  # generated statements that carry their own leading lines
                new.extend(replacement)
                lead = pending
            elif replacement is not None:
                new.extend(self._statements(replacement, indent))
            elif key in edits.wraps:
                header, after = edits.wraps[key]
                inner = [stmt.with_changes(leading_lines=[])]
                if after:
                    inner.extend(self._statements("\n".join(after), indent + self.default_indent))
                new.append(self._wrap(header, inner, indent))
            else:
                new.append(stmt.with_changes(leading_lines=[]))
            if new:
                new[0] = new[0].with_changes(leading_lines=[*lead, *new[0].leading_lines])
            out.extend(new)
        return out

    def leave_IndentedBlock(self, original, updated):
        body = self._body(updated.body)
        self.indents.pop()
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
        self.standalone: set[int] = set()  # swap indexes of module-level text that is the same in every file
        self.code: dict[int, str] = {}  # swap index → the code its text stands for, where the text is not that
        self._names = 0

    @staticmethod
    def splices(text: str) -> bool:
        if not text.strip() or text[0] in " \t\r\n#\\" or "\r" in text:
            return False
        last = text.rstrip("\n").rsplit("\n", 1)[-1].lstrip()
        return not last.startswith("#") and not last.endswith("\\")

    def statement(self, text: str, leading=(), indent: str = "", rendered: str | None = None,
                  standalone: bool = False) -> cst.SimpleStatementLine:
        """The placeholder statement for `text` (module-level statements ending in a newline); placed in a block at
        absolute indentation `indent`, `rendered` is the text as LibCST renders its parse there (render_lines).
        `standalone`: the text is the same in every file that needs it (Context.replace_text)."""
        name = self.name()
        if standalone and not indent:
            self.standalone.add(len(self.swaps))
        if rendered is not None and rendered != text:
            self.code[len(self.swaps)] = text
        self.swaps.append((indent + name + "\n", text if rendered is None else rendered))
        return cst.SimpleStatementLine([cst.Expr(cst.Name(name))], leading_lines=list(leading))

    def name(self) -> str:
        """A fresh placeholder name (for a caller that writes the placeholder line into text it parses; it adds the
        swap itself, `(indent + name + "\n", text)`, once the parse confirmed where the line went)."""
        self._names += 1
        return f"{self.prefix}{self._names}__"

    def texts(self) -> list[str]:
        """The generated code kept as text, each piece as code that parses (module statements, or a class's)."""
        return [self.code.get(i, text) for i, (_, text) in enumerate(self.swaps)]
