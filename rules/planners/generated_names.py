"""Which names generated text binds and reads (read with `ast`, not LibCST), and which of those texts the import
fix-up (planners/imports.py) leaves as they are, so they can stay text."""
from __future__ import annotations

import dataclasses
import re
from functools import lru_cache

from tfmigrate.names import ImportTable

from ..emit import codewords
from . import imports


@dataclasses.dataclass(frozen=True)
class _Read:
    """The Names of a text, read with `ast` (`ast_read`), by the role LibCST's passes give them."""
    uses: frozenset[str]  # every Name outside import statements but attribute names: what imports.name_uses counts
    references: frozenset[str]  # what imports.LeftoverNames asks about: those Names but keyword-argument names, and
    # every pure dotted chain (`a.b.c`, `a.b`) rooted in a Name
    attributes: frozenset[str]  # attribute names (`x.attr`)
    imported: frozenset[str]  # the names of import statements (every dotted part, `as` names)
    dotted: bool  # the text is one expression, a Name or a pure dotted chain (parenthesized or not)


@lru_cache(maxsize=256)
def ast_read(text: str, lines: tuple[int, ...] | None = None) -> _Read | None:
    """The Names of generated `text` (module statements, or a class's when indented), read with `ast` (a C
    parse); None when `ast` does not parse it. With `lines` (sorted line numbers of the text, from 1), only the
    nodes that reach one of those lines are looked at: the Names on them (the words a caller found there)."""
    import ast
    from bisect import bisect_left

    wrapped = text.startswith(" ")
    try:
        tree = ast.parse("class _:\n" + text if wrapped else text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if lines is not None and wrapped:
        lines = tuple(line + 1 for line in lines)
    names: set[str] = set()  # references and bindings (not keyword-argument names)
    keywords: set[str] = set()
    attributes: set[str] = set()
    imported: set[str] = set()
    add = names.add
    chains: set[str] = set()
    roots = tree.body[0].body if wrapped else tree.body
    stack = list(roots)
    while stack:
        node = stack.pop()
        if lines is not None:
            first = getattr(node, "lineno", None)
            if first is not None:
                at = bisect_left(lines, first)
                if at == len(lines) or lines[at] > node.end_lineno:
                    continue
        kind = type(node)
        if kind is ast.Name:
            add(node.id)
            continue
        if kind is ast.Constant:
            value = node.value
            if value is None or value is True or value is False:
                add(str(value))
            continue
        if kind is ast.Attribute:
            attributes.add(node.attr)
            parts, inner = [node.attr], node.value
            while type(inner) is ast.Attribute:
                parts.append(inner.attr)
                inner = inner.value
            if type(inner) is ast.Name:
                parts.append(inner.id)
                chains.add(".".join(reversed(parts)))
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            add(node.name)
        elif kind is ast.arg:
            add(node.arg)
        elif kind is ast.keyword:
            if node.arg is not None:
                keywords.add(node.arg)
        elif kind is ast.Import or kind is ast.ImportFrom:
            if kind is ast.ImportFrom and node.module:
                imported.update(node.module.split("."))
            for alias in node.names:
                if alias.name != "*":
                    imported.update(alias.name.split("."))
                if alias.asname:
                    imported.add(alias.asname)
            continue
        elif kind is ast.Global or kind is ast.Nonlocal:
            names.update(node.names)
        elif kind is ast.ExceptHandler:
            if node.name:
                add(node.name)
        elif kind is ast.MatchAs or kind is ast.MatchStar:
            if node.name:
                add(node.name)
        elif kind is ast.MatchMapping:
            if node.rest:
                add(node.rest)
        elif kind is ast.MatchClass:
            names.update(node.kwd_attrs)
        stack.extend(ast.iter_child_nodes(node))
    top = roots[0].value if len(roots) == 1 and type(roots[0]) is ast.Expr else None
    while type(top) is ast.Attribute:
        top = top.value
    return _Read(frozenset(names | keywords), frozenset(names | chains), frozenset(attributes), frozenset(imported),
                 type(top) is ast.Name)


_CONTINUING = re.compile(r"(?:else|elif|except|finally)\b")


_ONE_LINE_STRING = re.compile(r""""[^"\n]*"|'[^'\n]*'""")


_TRIPLE_QUOTES = ('"' * 3, "'" * 3)


def _statement_starts(lines: list[str], first: int, end: int, indent: str) -> list[int] | None:
    """The indices among lines[first:end] (masked: no plain string or comment; f-strings on one line) where a
    statement at `indent` starts: a line at that indentation outside brackets and continuations, not an
    `else:`-like clause of the statement before nor a def under its decorators. None when the brackets do not
    balance."""
    starts: list[int] = []
    depth, continued, decorated, width = 0, False, False, len(indent)
    for i in range(first, end):
        line = lines[i]
        if (not depth and not continued and line.startswith(indent)
                and line[width:width + 1] not in ("", " ", "\t", ")", "]", "}")):
            if not decorated and not _CONTINUING.match(line, width):
                starts.append(i)
            decorated = line.startswith("@", width)
        code = _ONE_LINE_STRING.sub("", line) if "'" in line or '"' in line else line
        depth += code.count("(") + code.count("[") + code.count("{") - code.count(")") - code.count("]") \
            - code.count("}")
        continued = line.endswith("\\")
        if depth < 0:
            return None
    return starts if not depth else None


def _ast_read_lines(text: str, lines: tuple[int, ...]) -> _Read | None:
    """`ast_read(text, lines)` for module statements (not indented) and lines that hold code (the words' lines)
    without parsing the statements that reach none of `lines` (a model class of ~200 lines has its words on 2-6):
    the text parsed is the text with those
    top-level statements, and those of a class body, made blank lines (same line numbers). The nodes `ast_read`
    reads are those reaching the lines, and each statement kept parses as in the whole text: the same Names.
    `dotted` is not told (False). Statements are found in the text with its strings and comments blanked
    (codewords.mask); where that cannot be vouched for (a multi-line f-string, brackets that do not balance) or the
    text so made does not parse, the whole text is read as before."""
    masked = codewords.mask(text) if lines and not text.startswith(" ") else None
    if masked is None or any(quotes in masked for quotes in _TRIPLE_QUOTES):
        return ast_read(text, lines)
    code = masked.split("\n")
    top = _statement_starts(code, 0, len(code), "")
    if not top or top[0] != 0:
        return ast_read(text, lines)
    kept = [False] * len(code)
    wanted = {line - 1 for line in lines}
    for a, b in zip(top, [*top[1:], len(code)]):
        if not any(a <= i < b for i in wanted):
            continue
        body = _statement_starts(code, a + 1, b, "    ") if code[a].startswith("class ") else None
        if not body or any(a <= i < body[0] for i in wanted):
            kept[a:b] = [True] * (b - a)
            continue
        kept[a:body[0]] = [True] * (body[0] - a)  # the class's header (and docstring)
        for c, d in zip(body, [*body[1:], b]):
            if any(c <= i < d for i in wanted):
                kept[c:d] = [True] * (d - c)
    if sum(kept) * 4 > len(code) * 3:
        return ast_read(text, lines)  # (most of the text: read as it is)
    skeleton = "\n".join(line if keep else "" for line, keep in zip(text.split("\n"), kept))
    read = ast_read(skeleton, lines)
    if read is None:
        return ast_read(text, lines)
    return dataclasses.replace(read, dotted=False)


def compat_names(table: ImportTable) -> tuple[set[str], set[str]]:
    """(names kept as written, v1 names whose uses the leftover-name pass rewrites): a name bound to a v1 module
    TF2 still has (`flags = tf.compat.v1.flags`, `FLAGS = flags.FLAGS`) keeps its meaning, it and the code using
    it stay as written."""
    kept = {n for n, bs in table.bindings.items() if imports.kept_compat(bs[-1].target)}
    return kept, {n for n, bs in table.bindings.items() if ".compat.v1" in bs[-1].target} - kept


class Settled:
    """Which generated texts that name the file's TF bindings the import fix-up leaves as they are, so they need no
    LibCST tree: the leftover-name pass (imports.LeftoverNames) rewrites or blocks none of their references — each
    Name and pure dotted chain (`tf.nn.relu`, `tf.nn`, `tf`) it would ask about, asked outside every function
    (a function's local names only ever make it ask less; import statements it does not enter). Such a text is
    kept as text like one that names no binding; the fix-up counts its Names (`uses`) where it would have counted
    those of its parse (imports.name_uses), and `_names_any` reads it with the other texts."""

    def __init__(self, table: ImportTable, words: codewords.CodeWords, module=None):
        kept, v1_bindings = compat_names(table)
        # (`module`, the original: whether a TF 1.x program's tf.nn.dropout is rewritten, planners/tf1_program)
        self.leftover = imports.LeftoverNames(table, v1_bindings, "tf", set(), kept, tf1_module=module)
        self.words, self.bindings = words, table.bindings
        self._known: dict[str, bool] = {}
        self._references: dict[str, bool] = {}  # _rewritten's answers
        self.accepted: dict[str, frozenset[str]] = {}  # text → the bindings it names (as name_uses counts them)

    def __call__(self, text: str, expression: bool = False, masked: str | None = None) -> bool:
        """Whether `text` (module statements, or a class's when indented; with `expression`, an expression put in
        place of another, whose surroundings are not known: not when it is a bare dotted chain, which an enclosing
        attribute would extend), which names a binding in code, may stay text. `masked`: words.masked(text)."""
        # one answer for a text whatever its trailing newlines (the passes ask about a part as rendered, stripped,
        # or with the one newline a text block ends in): the same statements, the same Names
        core = text.rstrip("\n")
        key = f"({core}" if expression else core
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = self._settled(core, expression, self.words.masked(core) if masked is None
                                                     else masked[:len(core)])
        if known and text is not core:
            self.accepted[text] = self.accepted[core]
        return known

    def _settled(self, text: str, expression: bool, masked: str) -> bool:
        lines, line, last = [], 1, 0
        find, count, newline = self.words.find, masked.count, masked.find
        m = find(masked)
        while m is not None:  # the lines the words are on (in code): the walk's
            at = m.start()
            line += count("\n", last, at)
            lines.append(line)
            last = newline("\n", at)  # (the rest of this line holds no other line's word)
            if last < 0:
                break
            m = find(masked, last)
        read = ast_read(text, tuple(lines)) if expression else _ast_read_lines(text, tuple(lines))
        if read is None or expression and read.dotted:
            return False
        bindings = self.bindings
        if any(self._rewritten(name) for name in read.references if name.partition(".")[0] in bindings):
            return False
        self.accepted[text] = frozenset(name for name in read.uses if name in bindings)
        return True

    def _rewritten(self, name: str) -> bool:
        """Whether the leftover-name pass rewrites (or blocks on) the reference `name` (a Name or dotted chain)
        asked outside every function: the same answer for the same name, so asked once per name (each ask builds
        the chain's nodes)."""
        known = self._references.get(name)
        if known is None:
            known = self._references[name] = \
                self.leftover._resolvable(imports.dotted_expression(name)) is not None
        return known

    def uses(self, texts) -> dict[str, int]:
        """The bindings named (as imports.name_uses counts Names) in the texts kept as text."""
        from collections import Counter

        counts: Counter = Counter()
        accepted = self.accepted
        for text in texts:
            names = accepted.get(text)
            if names is None:  # (a text block's text: the part asked about, and a newline)
                names = accepted.get(text.rstrip("\n"))
            if names:
                counts.update(names)
        return counts
