"""Where each top-level statement of a parsed module sits in the text it was parsed from, without codegen.

LibCST's parse round-trips: `module.code` is the input text, and it is the concatenation of the header's lines,
each top-level statement's code (`module.code_for_node(stmt)`: its leading_lines, the statement, and for a compound
statement its blocks' footers) and the footer's lines. So the text of an unchanged statement is a slice of the
input, once its boundaries are known. A statement's own first line (its first decorator, or its keyword, or its
first token) starts at column 0; its leading_lines are the lines right before it, one line each.

The heads are found with a cheap textual scan: strings and comments blanked out (regex), then the column-0 lines
that are outside brackets and not after a backslash continuation. Each statement has a known number of column-0
head lines (itself, its decorators, its elif/else/except/finally clauses): the scan's heads must be exactly those,
with the expected keywords, header and footer lines where the module says, or there are no spans (the caller
generates the code). Lone CR newlines, form feeds and lines that start with a backslash are not scanned at all.
"""
from __future__ import annotations

import re
from itertools import accumulate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import libcst as cst

# strings (their prefix letters stay: they change no line, bracket or head) and comments; DOTALL so an escaped
# newline stays inside its string
_MASK = re.compile(r"#[^\r\n]*|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
                   r"|\"\"\"[^\"\\]*(?:(?:\\.|\"(?!\"\"))[^\"\\]*)*\"\"\""
                   r"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'|\"[^\"\\\r\n]*(?:\\.[^\"\\\r\n]*)*\"", re.DOTALL)
_HEAD = re.compile(r"^[^\s#]", re.MULTILINE)
_UNSCANNED = re.compile(r"\r(?!\n)|\f|^[ \t]*\\", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\S")
# a simple statement's first word is none of these (`match` is a soft keyword: `match = ...` is a simple statement)
_COMPOUND = frozenset(("def", "class", "async", "if", "for", "while", "try", "with", "elif", "else", "except",
                       "finally", "@"))


def _blank(match: re.Match) -> str:
    found = match.group()
    if found[0] == "#":
        return ""
    lines = found.count("\n")
    return "$" + "\n " * lines if lines else "$"  # (a string at column 0 is a head: `$` is no word, no bracket)


def _odd_tail(text: str) -> bool:
    """An indented line (whitespace only, or a comment) among the blank and comment lines that end the file: LibCST's
    code may then drop the blank lines after the last statement (it does not round-trip `x = 1\\n\\n  \\n`)."""
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, end - 1) + 1
        line = text[start:end].rstrip("\r\n")
        stripped = line.strip(" \t")
        if stripped and stripped[0] != "#":
            return False
        if line[:1] == " " or line[:1] == "\t":
            return True
        end = start
    return False


def _heads(stmt) -> list[str] | None:
    """The first words of the column-0 lines of a top-level statement, in order ('' for a simple statement's: any
    word but a compound statement's), or None for a node that is not a statement LibCST parses."""
    import libcst as cst

    kind = type(stmt)
    if kind is cst.SimpleStatementLine:
        first = stmt.body[0] if stmt.body else None
        return ["import" if type(first) is cst.Import else "from" if type(first) is cst.ImportFrom else ""]
    heads = ["@"] * len(getattr(stmt, "decorators", ()))
    if kind is cst.FunctionDef:
        heads.append("async" if stmt.asynchronous is not None else "def")
    elif kind is cst.ClassDef:
        heads.append("class")
    elif kind is cst.If:
        heads.append("if")
        orelse = stmt.orelse
        while type(orelse) is cst.If:
            heads.append("elif")
            orelse = orelse.orelse
        if orelse is not None:
            heads.append("else")
    elif kind is cst.For or kind is cst.While or kind is cst.With:
        heads.append("async" if getattr(stmt, "asynchronous", None) is not None else
                     "for" if kind is cst.For else "while" if kind is cst.While else "with")
        if kind is not cst.With and stmt.orelse is not None:
            heads.append("else")
    elif kind is cst.Try or kind is cst.TryStar:
        heads.append("try")
        heads.extend("except" for _ in stmt.handlers)
        if stmt.orelse is not None:
            heads.append("else")
        if stmt.finalbody is not None:
            heads.append("finally")
    elif kind is cst.Match:
        heads.append("match")
    else:
        return None
    return heads


def _find_heads(masked: str, pattern: re.Pattern, start: int = 0, end: int | None = None, line: int = 0):
    """(line index, first word) of the lines `pattern` finds in masked[start:end] (line `line` starts at `start`,
    outside brackets) that are outside brackets and not continued from the line before."""
    heads: list[tuple[int, str]] = []
    depth, at = 0, start
    count = masked.count
    for found in pattern.finditer(masked, start, len(masked) if end is None else end):
        begin = found.start()
        depth += count("(", at, begin) + count("[", at, begin) + count("{", at, begin) \
            - count(")", at, begin) - count("]", at, begin) - count("}", at, begin)
        line += count("\n", at, begin)
        at = begin
        if depth:
            continue
        cut = begin - 1 if begin and masked[begin - 1] == "\n" else begin
        if cut and masked[cut - 1] == "\r":
            cut -= 1
        if cut and masked[cut - 1] == "\\":
            continue
        heads.append((line, _WORD.match(masked, found.end() - 1).group()))
    return heads


def _align(body, heads, previous: int) -> list[tuple[int, int]] | None:
    """(first line, head line) of each statement of `body` from the heads found for it, when they are exactly the
    statements' heads (count and words) and each statement's leading lines fit after the one before."""
    out = []
    i = 0
    for stmt in body:
        expected = _heads(stmt)
        if expected is None or i + len(expected) > len(heads):
            return None
        head = heads[i][0]
        first = head - len(stmt.leading_lines)
        if first <= previous:
            return None
        for word in expected:
            got = heads[i][1]
            if (got != word) if word else got in _COMPOUND:
                return None
            i += 1
        out.append((first, head))
        previous = heads[i - 1][0]
    return out if i == len(heads) else None


class Scan:
    """A module's text with strings and comments blanked out, and where its top-level statements are."""

    def __init__(self, module: cst.Module, text: str, masked: str, spans: list[int], lines: list[tuple[int, int]]):
        self.module, self.text, self.masked, self.spans, self.lines = module, text, masked, spans, lines
        self._starts: list[int] | None = None
        self._blocks: dict[int, list[tuple[int, int]] | None] = {}

    def block(self, block, prefix: str, head: int, end: int) -> list[tuple[int, int]] | None:
        """(first line, head line) of each statement of the IndentedBlock `block`, whose statements' lines start
        with `prefix` (every enclosing block's indent), of a statement whose head is line `head` and whose code
        ends before line `end`; None when the scan cannot say for sure."""
        found = self._blocks.get(id(block), self)
        if found is not self:
            return found
        if self._starts is None:
            self._starts = [0, *accumulate(map(len, self.masked.split("\n")))]  # line i starts at [i] + i
        starts = self._starts
        pattern = _PREFIXED.get(prefix)
        if pattern is None:
            pattern = _PREFIXED[prefix] = re.compile("^" + re.escape(prefix) + r"[^\s#]", re.MULTILINE)
        heads = _find_heads(self.masked, pattern, starts[head] + head, starts[end] + end, head)
        found = self._blocks[id(block)] = _align(block.body, heads, head) if block.body else None
        return found


_PREFIXED: dict[str, re.Pattern] = {}


def scan(module: cst.Module, text: str) -> Scan | None:
    """Where each top-level statement of `module` (parsed from `text`) is; None when the scan cannot say for
    sure."""
    if _UNSCANNED.search(text) or _odd_tail(text):
        return None
    if not module.has_trailing_newline:
        text += module.default_newline
    elif text and text[-1] != "\n":
        return None
    masked = _MASK.sub(_blank, text)
    # column-0 lines of the masked text outside brackets and not continued from the line before: the heads
    lines = _align(module.body, _find_heads(masked, _HEAD), len(module.header) - 1)
    if lines is None:
        return None
    total = masked.count("\n")
    footer = total - len(module.footer)
    if footer <= (lines[-1][1] if lines else len(module.header) - 1) \
            or (not module.body and footer != len(module.header)) \
            or (module.body and lines[0][0] != len(module.header)):
        return None
    ends = [0, *accumulate(map(len, text.split("\n")))]  # line i starts at ends[i] + i
    spans = [ends[first] + first for first, _ in lines]
    spans.append(ends[footer] + footer)
    return Scan(module, text, masked, spans, lines)


def statement_spans(module: cst.Module, text: str) -> list[int] | None:
    """Offsets [s0, s1, ..., sn, f] into `text` (what `module` was parsed from): statement i of module.body is
    text[s_i:s_i+1], the header text[:s0], the footer text[f:] (plus the popped newline when the module has no
    trailing newline: that statement's or footer line's code ends in module.default_newline). None when the scan
    cannot say for sure."""
    found = scan(module, text)
    return found.spans if found is not None else None


def render_reusing(new: cst.Module, module: cst.Module, text: str, spans: list[int] | None) -> str:
    """`render(new)`, the same text, where the top-level statements, header and footer that `new` shares with
    `module` (the same node objects) are slices of `text` (what `module` was parsed from, `spans` its
    statement_spans); the rest is generated as LibCST does."""
    from .visitors import codegen_state, render

    if spans is None or not (new.has_trailing_newline and module.has_trailing_newline) \
            or new.default_indent != module.default_indent or new.default_newline != module.default_newline:
        return render(new)
    state = codegen_state(new)
    tokens = state.tokens
    if new.header is module.header or _same(new.header, module.header):
        if spans[0]:
            tokens.append(text[:spans[0]])
    else:
        for line in new.header:
            line._codegen(state)
    where = {id(stmt): i for i, stmt in enumerate(module.body)}
    run = None  # (first, last) original statements sliced together
    for stmt in new.body:
        i = where.get(id(stmt))
        if i is not None and module.body[i] is stmt:
            if run is not None and run[1] + 1 == i:
                run = (run[0], i)
                continue
            if run is not None:
                tokens.append(text[spans[run[0]]:spans[run[1] + 1]])
            run = (i, i)
            continue
        if run is not None:
            tokens.append(text[spans[run[0]]:spans[run[1] + 1]])
            run = None
        stmt._codegen(state)
    if run is not None:
        tokens.append(text[spans[run[0]]:spans[run[1] + 1]])
    if new.footer is module.footer or _same(new.footer, module.footer):
        if spans[-1] < len(text):
            tokens.append(text[spans[-1]:])
    else:
        for line in new.footer:
            line._codegen(state)
    if not tokens:
        tokens.append(new.default_newline)
    return "".join(tokens)


def _same(a, b) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
