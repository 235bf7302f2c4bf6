"""Per-file pipeline: prefilter → parse once → run the registered migrations in one pass → render → check.

The engine knows no TensorFlow API: migrations come from `tfmigrate.rules.MIGRATIONS`, each a callable
`(module, context) -> module` that raises `Blocked` when the file cannot be migrated safely; the prefilter's words
come from `tfmigrate.rules.PREFILTER`. LibCST and the program model are imported only when a file needs a parse
(a run whose files are all skipped or cached never loads them).
"""
from __future__ import annotations

import codecs
import contextlib
import functools
import operator
import os
import re
from pathlib import Path

from .diagnostics import Blocked, Diagnostic, FileResult
from .files import Resolver, Unencodable, checkout_names, decode, encode, module_name_for, namespace_names
from .records import field, record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms where nothing else has)
if TYPE_CHECKING:
    from typing import Callable, Iterable

    import libcst as cst

    from .cache import ResultCache, StatIndex
    from .model import FileIndex, Program



def __getattr__(name: str):
    # the worker pool's module costs ~20 ms to import: only a run that starts a pool imports it
    if name == "ProcessPoolExecutor":
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# fewer files than this to parse: no worker pool (each worker costs an interpreter and a LibCST import)
POOL_MIN_FILES = 8


@record(frozen=True)
class Options:
    target: str = "auto"  # auto | keras | ctl
    strategy: str = "keep"  # keep | default | one-device | mirrored | multi-worker-mirrored | parameter-server
    style: str = "auto"  # auto | native | shim: how a model_fn's forward pass converts


@record
class Context:
    """What a migration sees besides the tree: options, the program model, and where to put notes."""

    options: Options
    path: str = "<stdin>"
    text: str = ""  # the decoded source, for cheap textual questions (no re-render of the tree)
    notes: list[tuple[str, str, cst.CSTNode | None]] = field(default_factory=list)
    module: cst.Module | None = None
    program: Program | None = None  # the files migrated together (a package); built on demand for one file
    file: FileIndex | None = None
    linked: set[str] = field(default_factory=set)  # other files this file's migration depends on (all or none)
    text_replacements: list[tuple[str, str, bool]] = field(default_factory=list)

    def note(self, code: str, message: str, node: cst.CSTNode | None = None) -> None:
        self.notes.append((code, message, node))

    def index(self) -> FileIndex:
        """This file's program-model index (one walk, only for files a rule asks about)."""
        from .model import FileIndex, Program

        if self.file is None:
            name, is_package = module_name_for(Path(self.path)) if self.path != "<stdin>" else ("", False)
            self.file = FileIndex(self.module, self.path, name or None, is_package)
            if self.program is None:
                self.program = Program()
            self.program.add(self.file)
        return self.file

    def replace_text(self, old: str, new: str, standalone: bool = False) -> None:
        """A textual swap applied to the rendered output (for unique placeholders a rule generated). `standalone`:
        `old` is a one-name module-level placeholder line and `new` module-level code that is the same text in
        every file needing it (generated support code): the output check compiles it once per process."""
        self.text_replacements.append((old, new, standalone))

    def link(self, *paths: str) -> None:
        self.linked.update(paths)


class _Positions:
    """line:col of nodes of the original tree, computed once per file and only when something is reported.

    The same numbers as LibCST's PositionProvider (start of the node's syntactic range), from one plain codegen
    pass that records token indices (no per-token line arithmetic, no position objects): line and column are
    counted only for the nodes asked about."""

    def __init__(self, module: cst.Module, wanted=None, text: str | None = None, parents: dict | None = None,
                 scan=None):
        self.module, self._state = module, None
        self.scan = scan  # () -> the module's spans.Scan (or None), when the caller has one
        self.wanted = wanted  # all the nodes that will be asked about, when known: the codegen stops after them
        # with the module's text and the index's parent links: only the top-level statements holding a wanted node
        # are generated, each placed by finding its text in the module's (_statement_positions)
        self.text, self.parents = text, parents

    def __call__(self, node: cst.CSTNode | None) -> tuple[int, int]:
        if node is None:
            return 1, 0
        if self._state is None:
            self._state = None if self.text is None or self.parents is None else \
                _statement_positions(self.module, self.wanted, self.text, self.parents,
                                     self.scan() if self.scan is not None else None)
            if self._state is None:
                self._state = _token_positions(self.module, self.wanted)
        return _position(self.module, self._state.start(node), node)


class _Statements:
    """Positions from several top-level statements' codegen states (_statement_positions)."""

    def __init__(self, states):
        self.states = states

    def start(self, node):
        for state in self.states:
            found = state.start(node)
            if found is not None:
                return found
        return None


def _top_statement(node, module, parents: dict):
    """The top-level statement of `module` holding `node` (from the index's parent links), or None."""
    key = id(node)
    while True:
        if key not in parents:
            return None
        parent = parents[key]
        if parent is module:
            return node
        if parent is None:
            return None
        node, key = parent, id(parent)


def _statement_positions(module: cst.Module, wanted, text: str, parents: dict, scan=None):
    """Positions without generating the whole module: the statement holding wanted nodes is generated alone (until
    its wanted nodes). With `scan` (spans.Scan), that is the innermost statement of the def/class bodies holding
    them that the scan places, starting on the line it says; without, the top-level statement, whose text, found
    exactly once in the module's text at a line start, says where it starts. None (the caller generates the
    module) when a wanted node is outside the statements or a text is not unique."""
    if not wanted or any(n is module for n in wanted):
        return None
    if scan is None and "\r" in text:  # lines counted by "\n" below (a scan exists only without a lone CR)
        return None
    groups: dict[int, tuple] = {}
    where = {id(stmt): i for i, stmt in enumerate(module.body)} if scan is not None else None
    for node in wanted:
        if node is None:
            continue
        top = _top_statement(node, module, parents)
        if top is None:
            return None
        if where is None or id(top) not in where:
            groups.setdefault(id(top), (top, [], None, ()))[1].append(node)
            continue
        inner, first, indents = _inner_statement(node, top, where[id(top)], scan, parents)
        groups.setdefault(id(inner), (inner, [], first, indents))[1].append(node)
    states = []
    for top, nodes, first, indents in groups.values():
        state = _token_positions(top, nodes, module, indents)
        if state.pending:
            return None
        if first is not None:
            state.first_line = first + 1
            states.append(state)
            continue
        snippet = "".join(state.tokens)
        at = text.find(snippet)
        if not snippet or at < 0 or (at and text[at - 1] != "\n") or text.find(snippet, at + 1) >= 0:
            return None
        state.first_line = text.count("\n", 0, at) + 1
        states.append(state)
    return _Statements(states)


def _inner_statement(node, top, index: int, scan, parents: dict):
    """(statement, its first line (0-based), the indents its codegen starts with): the innermost statement holding
    `node` through def and class bodies whose lines the scan can place, from the top-level statement `top`
    (module.body[index])."""
    from libcst import ClassDef, FunctionDef

    chain = [node]
    while chain[-1] is not top:
        chain.append(parents[id(chain[-1])])
    chain.reverse()
    lines = scan.lines
    first, head = lines[index]
    end = lines[index + 1][0] if index + 1 < len(lines) else scan.masked.count("\n") - len(scan.module.footer)
    current, indents, default = top, (), scan.module.default_indent
    j = 0
    while j + 1 < len(chain) and chain[j] is current and isinstance(current, (FunctionDef, ClassDef)):
        block = current.body
        if not hasattr(block, "indent"):  # a one-line body (SimpleStatementSuite)
            break
        j += 1 if chain[j + 1] is not block else 2  # (the index's parent links skip the IndentedBlock)
        if j >= len(chain):
            break
        stmt = chain[j]
        k = next((k for k, s in enumerate(block.body) if s is stmt), None)
        if k is None:
            break
        indent = block.indent if block.indent is not None else default
        placed = scan.block(block, "".join(indents) + indent, head, end)
        if placed is None:
            break
        indents = (*indents, indent)
        first, head = placed[k]
        if k + 1 < len(placed):
            end = placed[k + 1][0]
        current = stmt
    return current, first, indents


_NO_RECORD = contextlib.nullcontext()  # record_syntactic_position for a node whose range is not recorded


class _Done(Exception):
    """Every wanted node's range is known: the rest of the module need not be generated."""


def _token_positions(module: cst.CSTNode, wanted=None, owner: cst.Module | None = None, indents=()):
    """Token ranges from one codegen of `module` (or of a statement of `owner` inside blocks of those `indents`),
    stopped once every wanted node is done."""
    global _TOKEN_STATE
    if _TOKEN_STATE is None:
        _TOKEN_STATE = _token_state_class()
    state = _TOKEN_STATE(owner or module, wanted)
    state.indent_tokens.extend(indents)
    try:
        module._codegen(state)
    except _Done:
        pass
    return state


_TOKEN_STATE = None  # _token_positions' CodegenState subclass: made once (a class made per call costs ~15 us)


def _token_state_class():
    """The CodegenState subclass _token_positions runs (made on first use: LibCST is imported lazily)."""
    from libcst import IndentedBlock
    from libcst._nodes.internal import CodegenState
    from libcst.metadata.position_provider import NEWLINE_RE

    class _State(CodegenState):
        """Records, per node, the token index where its range starts and ends (PositionProvider's rules: a
        syntactic range when the node records one, else the whitespace-inclusive one, never overwritten)."""

        def __init__(self, module: cst.Module, wanted):
            super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
            self.first_line = 1  # the line the first token starts on (column 0)
            self.ranges: dict[int, tuple[int, int]] = {}
            self.pending = {id(n) for n in wanted if n is not None} if wanted is not None else None
            # the nodes whose ranges are recorded: every node, or only the wanted ones (an IndentedBlock's syntactic
            # range starts at its first statement's: recorded for every node then)
            self.watch = None if wanted is None or any(isinstance(n, IndentedBlock) for n in wanted) \
                else frozenset(self.pending)
            self._stack: list[int] = []
            self._lines: list[tuple[int, int]] | None = None

        def before_codegen(self, node) -> None:
            if self.watch is None or id(node) in self.watch:
                self._stack.append(len(self.tokens))

        def after_codegen(self, node) -> None:
            if self.watch is None or id(node) in self.watch:
                start = self._stack.pop()
                if id(node) not in self.ranges:
                    self.ranges[id(node)] = (start, len(self.tokens))
                    self.done(node)

        def done(self, node) -> None:
            if self.pending is not None:
                self.pending.discard(id(node))
                if not self.pending:
                    raise _Done  # a node's start depends only on the tokens before it

        def record_syntactic_position(self, node, *, start_node=None, end_node=None):
            if self.watch is not None and id(node) not in self.watch:
                return _NO_RECORD
            return _Record(self, node, start_node, end_node)

        def start(self, node):
            found = self.ranges.get(id(node))
            if found is None:
                return None
            line, column = self.first_line, 0
            for token in self.tokens[:found[0]]:  # PositionProvider's arithmetic, token by token
                segments = NEWLINE_RE.split(token)
                if len(segments) == 1:
                    column += len(token)
                else:
                    line += len(segments) - 1
                    column = len(segments[-1])
            return line, column

    class _Record:
        """The syntactic range of `node` (a context manager without a generator: entered for most nodes)."""

        __slots__ = ("state", "node", "start_node", "end_node", "start")

        def __init__(self, state, node, start_node, end_node):
            self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

        def __enter__(self) -> None:
            self.start = len(self.state.tokens)

        def __exit__(self, *exc) -> bool:
            if exc[0] is not None:  # _Done: stopping
                return False
            ranges = self.state.ranges
            start, end = self.start, len(self.state.tokens)
            if self.start_node is not None:
                start = ranges[id(self.start_node)][0]
            if self.end_node is not None:  # (not recorded when only wanted nodes are: only starts are asked for)
                end = ranges.get(id(self.end_node), (start, end))[1]
            ranges[id(self.node)] = (start, end)
            self.state.done(self.node)
            return False

    return _State


def position_in(module: cst.Module, node: cst.CSTNode | None) -> tuple[int, int]:
    """line:col of a node in a module (computed per call: for the few diagnostics about other files)."""
    return _Positions(module)(node)


def _position(module: cst.Module, pos: tuple[int, int] | None, node: cst.CSTNode) -> tuple[int, int]:
    if pos:
        return pos
    # a node from a rewritten tree has no position in the original: find its text there instead
    text, snippet = module.code, module.code_for_node(node).strip()
    index = text.find(snippet) if snippet else -1
    if index < 0:
        return 1, 0
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index) - 1


def _notebook(path: str, options: Options, prefilter: bool) -> FileResult:
    """A Jupyter notebook converted in place, its code cells as one program (tfmigrate.notebooks)."""
    from tfmigrate.rules import NOTEBOOK_FINDING, PREFILTER

    from .notebooks import migrate

    try:
        return migrate(path, options, PREFILTER if prefilter else (), NOTEBOOK_FINDING)
    except Exception as exc:  # a rule defect must not lose other files' results
        return FileResult(path, "failed", error=f"internal error: {type(exc).__name__}: {exc}")


MAX_SOURCE_BYTES = 1 << 20  # LibCST holds ~800 bytes per source byte: a 5 MB file took 4 GB and minutes


def max_source_bytes() -> int:
    """The largest file parsed: 1 MiB, or $TFMIGRATE_MAX_FILE_BYTES."""
    try:
        return int(os.environ.get("TFMIGRATE_MAX_FILE_BYTES") or MAX_SOURCE_BYTES)
    except ValueError:
        return MAX_SOURCE_BYTES


def parse_source(data: bytes, path: str) -> tuple[str, str, cst.Module] | FileResult:
    """(text, encoding, module), or a failed FileResult for bytes that do not decode or parse, or are too large."""
    import libcst as cst

    limit = max_source_bytes()
    if len(data) > limit:
        return FileResult(path, "failed", data, data, error=f"too large to migrate: {len(data):,} bytes, the limit is "
                          f"{limit:,} (parsing takes ~800 bytes of memory per byte); split the file, or raise the "
                          "limit with TFMIGRATE_MAX_FILE_BYTES")
    try:
        text, encoding = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return FileResult(path, "failed", data, data, error=f"cannot decode: {exc}")
    try:
        with parse_checks():
            module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        line, col, message = syntax_error_position(text, path, exc)
        return FileResult(path, "failed", data, data, error=f"syntax error: {message}", error_at=(line, col))
    except (RecursionError, MemoryError):
        raise
    except Exception as exc:  # LibCST's own defects on code it tokenized (a validation it fails, a TypeError)
        line, col, message = _unparsable(text, path, exc)
        return FileResult(path, "failed", data, data, error=message, error_at=(line, col))
    return text, encoding, module


def _unparsable(text: str, path: str, exc: Exception) -> tuple[int, int, str]:
    """Where and why LibCST failed on a file it read without a syntax error (`x = a if b else(lambda: c)` makes
    LibCST 1.9 raise a TypeError; a name its tokenizer accepts and Python does not fails its validation): Python's
    own error when Python rejects the file too, else the first top-level statement LibCST cannot build alone."""
    import libcst as cst

    why = f"{type(exc).__name__}: {exc}".strip()
    tree = _python_parse(text, path)
    if isinstance(tree, SyntaxError):
        return tree.lineno or 1, max(0, (tree.offset or 1) - 1), f"syntax error: {tree.msg}"
    if tree is None:
        return 1, 0, f"LibCST cannot parse this file (Python accepts it): {why}"
    lines = text.splitlines(keepends=True)
    for statement in tree.body:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        try:
            with parse_checks():
                cst.parse_module("".join(lines[first - 1:statement.end_lineno]))
        except Exception:
            return first, 0, (f"LibCST cannot parse the statement at line {first} (Python accepts it): {why}; "
                              "the file is left as it is (rewriting that statement another way lets it be migrated)")
    return 1, 0, f"LibCST cannot parse this file (Python accepts it): {why}"


_LEXICAL: frozenset | None = None  # (_lexical_nodes)


def _lexical_nodes() -> frozenset:
    """The LibCST node classes whose `_validate` cannot fail on a tree its parser built: CSTNode's no-op; a
    whitespace, newline or comment token's text matched against the form its tokenizer matched; an expression's
    count of left and right parentheses (_BaseParenthesizedNode's check), which the grammar adds in pairs."""
    global _LEXICAL
    if _LEXICAL is None:
        import libcst as cst

        found, stack = set(), [cst.CSTNode]
        while stack:
            for cls in stack.pop().__subclasses__():
                if cls not in found:
                    found.add(cls)
                    stack.append(cls)
        _LEXICAL = frozenset({cls for cls in found if cls._validate is cst.CSTNode._validate
                              or cls._validate.__qualname__ == "_BaseParenthesizedNode._validate"}
                             | {cst.SimpleWhitespace, cst.Newline, cst.Comment})
    return _LEXICAL


@contextlib.contextmanager
def parse_checks():
    """While LibCST parses, its nodes skip the validation that cannot fail on a tree the parser built.

    Every node's __init__ calls CSTNode.__post_init__, which only calls `_validate` (no node class overrides
    it); ~13% of a parse of the corpus is spent there, most of it on the classes skipped here (_lexical_nodes) and
    on names, whose check is kept but for the parentheses (str.isidentifier first). Every other check still runs,
    so a tree LibCST rejects today is rejected the same way (a non-ASCII name its tokenizer accepts and
    str.isidentifier does not; `a if b else(lambda: c)`, whose IfExp check raises a TypeError):
    tests/speed/test_parse_checks.py compares both parses. The class attribute is swapped for the parse only and
    restored: process-wide, but the tool parses in one thread per process (its pool is processes), and a node
    another thread built meanwhile would skip only these checks."""
    import libcst as cst

    def post_init(node, _skip=_lexical_nodes(), _name=cst.Name) -> None:
        kind = type(node)
        if kind in _skip or (kind is _name and node.value.isidentifier()):
            return
        node._validate()

    saved = cst.CSTNode.__dict__["__post_init__"]
    cst.CSTNode.__post_init__ = post_init
    try:
        yield
    finally:
        cst.CSTNode.__post_init__ = saved


def _python_parse(text: str, path: str):
    """CPython's own parse of the text: its tree, its SyntaxError, or None when it cannot say (a null byte, ...)."""
    import ast

    try:
        return compile(text, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:
        return err
    except (ValueError, MemoryError, RecursionError):
        return None


def syntax_error_position(text: str, path: str, exc: cst.ParserSyntaxError) -> tuple[int, int, str]:
    """One position for a syntax error: the offending line and 0-based column.

    LibCST's native parser reports where its parser gave up (often the start of the next line, and a second,
    different position inside its message); CPython's own parser names the offending token, so ask it first.
    Source that CPython accepts but LibCST cannot parse keeps LibCST's position and says so."""
    err = _python_parse(text, path)
    if isinstance(err, SyntaxError):
        return err.lineno or 1, max(0, (err.offset or 1) - 1), err.msg
    message = re.sub(r"^(parser|tokenizer) error: (error at \d+:\d+: )?", "", exc.message)
    return exc.raw_line, exc.raw_column, f"LibCST cannot parse this (Python accepts it): {message}"


# A relative import resolves against the package path: its words count as the file's words (conservatively, the
# whole resolved path). Matched anywhere, strings and comments included, which only makes the scan stricter.
_RELATIVE_IMPORT = re.compile(rb"\bfrom[\s\\]*\.")  # what _has_relative_import finds (a regex scan is slower)
_SPACE = frozenset(b" \t\n\r\f\v\\")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _has_relative_import(data: bytes) -> bool:
    """`from` (at a word start) followed by spaces/backslashes and a dot, anywhere: _RELATIVE_IMPORT, found with
    bytes.find (each `from` of a file checked) instead of a regex over every byte."""
    i, n = data.find(b"from"), len(data)
    while i >= 0:
        if i == 0 or data[i - 1] not in _WORD:
            j = i + 4
            while j < n and data[j] in _SPACE:
                j += 1
            if j < n and data[j] == 0x2E:
                return True
        i = data.find(b"from", i + 4)
    return False
# Encodings in which every ASCII character of the decoded text comes from its own byte (so a word absent from
# the bytes is absent from the text); a coding cookie naming any other (utf-7, utf-16, EBCDIC, unicode_escape…)
# means the file is decoded and parsed like any other.
_ASCII_TRANSPARENT = {"utf-8", "utf-8-sig", "ascii", "koi8-r", "koi8-u", "gbk", "gb2312", "gb18030", "big5",
                      "big5hkscs", "shift_jis", "cp932", "euc_jp", "euc_kr", "cp949", "cp950",
                      *(f"iso8859-{n}" for n in range(1, 17)), *(f"cp125{n}" for n in range(9))}


def prefilter_skips(data: bytes, path: str, words: Iterable[bytes]) -> bool:
    """True when no rule can change or flag the file: none of the rules' words is in its bytes (nor, when it has a
    relative import, in its resolved path), and its bytes spell ASCII words as its text does. One byte scan in
    the common case; no decode, no parse."""
    words = tuple(words)
    if any(word in data for word in words):
        return False
    if path != "<stdin>" and _has_relative_import(data):
        try:
            where = os.fsencode(os.path.realpath(path))
        except (OSError, ValueError):
            return False
        if any(word in where for word in words):
            return False
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    if data.find(b"coding", 0, second if second >= 0 else len(data)) >= 0:  # in the first two lines (no copy)
        import io
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            name = codecs.lookup(encoding).name
        except (SyntaxError, LookupError):
            return False  # does not decode: reported as a failure, like any file the rules would read
        if name not in _ASCII_TRANSPARENT:
            return False
    return True


# identifier_facts: what one `ast` parse says about a file whose bytes have one of the rules' words
TEXT_ONLY = 1  # none of the words is in an identifier: they are only in strings and comments
NO_ROOTS = 2  # no import (any scope) of a module under one of the rules' roots, no star import, and no relative
#               import resolving through a real path with a root in it
NO_NAMES = 4  # no attribute (`x.name`) is one of the rules' names


def identifiers_skip(data: bytes, path: str, words: Iterable[bytes]) -> bool:
    """Second stage, for a file migrated alone whose bytes have a word: True when none of the words is in any
    identifier (names, attributes, imported modules and names, def/class/parameter/keyword names) — the words are
    only in strings and comments, where no rule looks — and no relative import resolves through a path with one.
    One C parse (`ast`, ~10× LibCST's); a file that does not parse is left to the full pipeline to report."""
    return bool(identifier_facts(data, path, words) & TEXT_ONLY)


def skips_alone(facts: int) -> bool:
    """A file migrated alone is unchanged with no finding (the rules' word: tfmigrate.rules, ROOTS and NAMES) when
    its words are only in text, or it imports no root and no attribute of it is one of the names."""
    return bool(facts & TEXT_ONLY) or facts & (NO_ROOTS | NO_NAMES) == NO_ROOTS | NO_NAMES


def identifier_facts(data: bytes, path: str, words: Iterable[bytes], roots: Iterable[str] = (),
                     names: Iterable[str] = ()) -> int:
    """TEXT_ONLY | NO_ROOTS | NO_NAMES, as far as they hold, from one `ast` parse (0 when it does not parse: the
    full pipeline reports the file). `words` as bytes (the prefilter's); `roots`, top-level module names;
    `names`, exact attribute names. TEXT_ONLY also needs no relative import resolving through a path with a word,
    NO_ROOTS none through a path with a root."""
    words = tuple(word.decode() for word in words)
    roots, names = frozenset(roots), frozenset(names)
    facts = TEXT_ONLY | NO_ROOTS | NO_NAMES
    if path != "<stdin>" and _has_relative_import(data):
        try:
            where = os.path.realpath(path)
        except (OSError, ValueError):
            return 0
        if any(word in where for word in words):
            facts &= ~TEXT_ONLY
        if any(root in where for root in roots):
            facts &= ~NO_ROOTS
    compiled = _code_names(data)
    if compiled is not None:  # a file that converts usually clears every fact here, without the `ast`
        every, globals_attributes = compiled
        if facts & TEXT_ONLY and any(word in name for name in every for word in words):
            facts &= ~TEXT_ONLY
        if any(name.partition(".")[0] in roots for name in globals_attributes):  # (imported modules are co_names)
            facts &= ~NO_ROOTS
        if not names.isdisjoint(globals_attributes):  # an attribute, or a global of the same name (conservative)
            facts &= ~NO_NAMES
        if not facts:
            return 0
    import ast  # here: a run whose files are all skipped or cached never parses one

    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, UnicodeError, LookupError, MemoryError, RecursionError):
        return 0
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Name:
            found = (node.id,)
        elif kind is ast.Attribute:
            inner = node.value  # `a.b` too: a rule's word may span an attribute chain's last two names
            left = inner.id if type(inner) is ast.Name else inner.attr if type(inner) is ast.Attribute else None
            found = (node.attr, f"{left}.{node.attr}") if left else (node.attr,)
            if node.attr in names:
                facts &= ~NO_NAMES
        elif kind is ast.alias:
            found = (node.name, node.asname or "")
        elif kind is ast.Import:
            if any(alias.name.partition(".")[0] in roots for alias in node.names):
                facts &= ~NO_ROOTS
            continue
        elif kind is ast.ImportFrom:  # the module, and each name it imports spelled in full (`m.name`)
            found = (node.module or "", *(f"{node.module}.{alias.name}" for alias in node.names if node.module))
            if (not node.level and (node.module or "").partition(".")[0] in roots) \
                    or any(alias.name == "*" for alias in node.names):
                facts &= ~NO_ROOTS
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            found = (node.name,)
        elif kind is ast.arg:
            found = (node.arg,)
        elif kind is ast.keyword:
            found = (node.arg or "",)
        elif kind in (ast.Global, ast.Nonlocal):
            found = tuple(node.names)
        elif kind.__name__.startswith("Match"):  # MatchAs/MatchStar name, MatchMapping rest, MatchClass kwd_attrs
            found = (getattr(node, "name", None) or "", getattr(node, "rest", None) or "",
                     *getattr(node, "kwd_attrs", ()))
        else:
            continue
        if facts & TEXT_ONLY and any(word in name for name in found for word in words):
            facts &= ~TEXT_ONLY
        if not facts:
            break
    return facts


def _code_names(data: bytes) -> tuple[set[str], set[str]] | None:
    """Every name of the compiled code (names, attributes, imported modules (dotted) and names, parameters and
    locals, def/class names), and the global and attribute names among them (`co_names`), or None when it does not
    compile. compile() makes no Python objects for the tree, ~3×
    cheaper than `ast.parse`, and every such name is an identifier of the source (the compiler's own — `<module>`,
    `.0`, `__qualname__`, … — hold none of the rules' words). It can only clear facts (a name seen here is in the
    source); what it does not show (keyword names, `global`, star imports, uncompiled annotations) is the ast's."""
    import warnings
    from types import CodeType

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the user's SyntaxWarnings are not tfmigrate's to print)
            code = compile(data, "<tfmigrate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeError, LookupError, MemoryError, RecursionError, OverflowError):
        return None
    found: set[str] = set()
    globals_attributes: set[str] = set()
    stack = [code]
    while stack:
        code = stack.pop()
        globals_attributes.update(code.co_names)
        found.add(code.co_name)
        found.update(code.co_varnames, code.co_cellvars, code.co_freevars)
        stack.extend(const for const in code.co_consts if type(const) is CodeType)
    return found | globals_attributes, globals_attributes


def _alone(unit: dict[str, bytes]) -> tuple[bytes, str]:
    [(path, data)] = unit.items()
    return data, path


def migrate_source(data: bytes, path: str, options: Options, parsed=None, program: Program | None = None,
                   index: FileIndex | None = None, prefilter: bool = True) -> FileResult:
    """Migrate one file's bytes. Never raises for bad input: failures come back as status "failed".

    With `prefilter`, a file in which none of the rules' trigger words appears comes back "skipped", unparsed; so
    does one (migrated alone) whose words are only in strings and comments, or that imports none of the rules'
    roots and has none of their names as an attribute (`identifier_facts`, `skips_alone`)."""
    from tfmigrate.rules import MIGRATIONS, NAMES, PREFILTER, ROOTS  # rules register themselves; engine stays TF-agnostic

    if parsed is None:
        if prefilter and (prefilter_skips(data, path, PREFILTER)
                          or skips_alone(identifier_facts(data, path, PREFILTER, ROOTS, NAMES))):
            return FileResult(path, "skipped", data, data)
        parsed = parse_source(data, path)
        if isinstance(parsed, FileResult):
            return parsed
    text, encoding, module = parsed
    context = Context(options, path, text, module=module, program=program, file=index)
    new = module
    try:
        for migration in MIGRATIONS:
            new = migration(new, context)
    except Blocked as blocked:
        # one finding once: two blockers of distinct nodes at one place (a statement and its substituted copy, one
        # construct reached from two Estimators) with one message are one diagnostic
        # (a blocker may carry a note beside it: why the model-mapping shim could not convert it either)
        diags = list(dict.fromkeys(_diagnostic(e, module, path, context, getattr(e, "severity", "error"))
                                   for e in blocked.errors))
        return FileResult(path, "blocked", data, data, diagnostics=diags, linked=context.linked)
    except RecursionError:
        return FileResult(path, "failed", data, data, error="internal error: recursion limit")
    file = context.file if context.file is not None and context.file.module is module else None
    scanned: list = []  # [spans.scan(module, text)], computed once, for positions and the render

    def scan():
        if not scanned:
            from .spans import scan

            scanned.append(scan(module, text))
        return scanned[0]

    position = _Positions(module, [node for _, _, node in context.notes], text, file.parents if file else None,
                          scan)
    diags = list(dict.fromkeys(Diagnostic(code, msg, *position(node), "note", path)
                               for code, msg, node in context.notes))
    if new is module and not context.text_replacements:  # no rule changed the tree: LibCST renders it byte-exact
        return FileResult(path, "unchanged", data, data, diagnostics=diags, linked=context.linked)
    from .spans import render_reusing

    found = scan()
    out_text, pieces = _swap(render_reusing(new, module, text, found.spans if found is not None else None),
                             context.text_replacements)
    if out_text == text:
        return FileResult(path, "unchanged", data, data, diagnostics=diags, linked=context.linked)
    try:
        _check_compiles(out_text, pieces, path)  # never hand back code that does not parse
    except Exception as exc:  # an internal defect, unless the user's own code never compiled: keep their file
        own = _input_error(text, path)
        if own is not None:
            return FileResult(path, "failed", data, data, error=f"the file does not compile as it is: {own.msg}; "
                              "fix it (Python rejects it before any migration) and run again",
                              error_at=(own.lineno or 1, max(0, (own.offset or 1) - 1)))
        return FileResult(path, "failed", data, data, error=f"internal error: output does not parse ({exc})")
    if "\r\n" in text and text.count("\n") == text.count("\r\n"):
        # a CRLF file: generated text (templates, docstrings) ends its lines as the file does; Python reads a
        # CRLF inside a string literal as LF, so it is the same program (done after the compile check, whose
        # pieces are cut from out_text as it was)
        out_text = re.sub(r"(?<!\r)\n", "\r\n", out_text)
    try:
        out = encode(out_text, encoding)
    except Unencodable as exc:  # a template's character a PEP 263 encoding lacks, outside a comment
        return FileResult(path, "failed", data, data, diagnostics=diags, error=str(exc), linked=context.linked)
    return FileResult(path, "changed", data, out, diagnostics=diags, linked=context.linked)


def _swap(text: str, replacements: list[tuple[str, str, bool]]) -> tuple[str, list[tuple[str, str]] | None]:
    """`text` with each (old, new, standalone) swapped in, in order, over the whole text; and the same text as
    pieces [(text, placeholder name where the piece is a standalone swap's `new`, else "")] — None when there is no
    standalone swap, or the pieces do not join to the same text (an `old` across a piece boundary)."""
    whole = text
    for old, new, _ in replacements:
        whole = whole.replace(old, new)
    if not any(standalone for _, _, standalone in replacements):
        return whole, None
    pieces = [(text, "")]
    for old, new, standalone in replacements:
        name = old[:-1] if standalone and old.endswith("\n") and old[:-1].isidentifier() else ""
        out: list[tuple[str, str]] = []
        for piece, of in pieces:
            if old not in piece:
                out.append((piece, of))
            elif of or not name:  # (inside a standalone piece, a later swap is part of its text)
                out.append((piece.replace(old, new), of))
            else:
                first, *rest = piece.split(old)
                out.append((first, ""))
                for after in rest:
                    out.extend(((new, name), (after, "")))
        pieces = out
    return whole, pieces if "".join(piece for piece, _ in pieces) == whole else None


_STANDALONE_COMPILED: set[tuple[int, str]] = set()  # (future flags, text) of standalone pieces that compiled
_STAND_INS: dict[str, str | None] = {}  # standalone piece → its stand-in's names line (None: never stood in)
_STATEMENT_GLOBAL = re.compile(r"(?:^|[;:])[ \t\f]*global(?!\w)", re.MULTILINE)  # (or a docstring's line)
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def _stand_in(piece: str) -> str | None:
    """The line standing in for `piece` in the module check: its module-scope names, each read and bound
    (`(a, b,) = (a, b,)`), so a `global` in the rest of the module meets them as it would meet the piece. None for
    a piece that does not compile alone, declares a module-scope `global` or annotates a module-scope name (what a
    stand-in cannot show)."""
    if piece in _STAND_INS:
        return _STAND_INS[piece]
    import ast
    import dis
    from types import CodeType

    line = None
    try:
        code = compile(piece, "<tfmigrate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        code = None
    if code is not None and dis.opmap["SETUP_ANNOTATIONS"] not in code.co_code[::2] and not (
            _STATEMENT_GLOBAL.search(piece) and _module_global(ast.parse(piece))):
        names, stack = set(), [code]
        while stack:  # (a walrus in a module-level comprehension binds a module-scope name)
            unit = stack.pop()
            names.update(unit.co_names)
            stack.extend(c for c in unit.co_consts if type(c) is CodeType and c.co_name in _COMPREHENSIONS)
        listed = "".join(f"{name}, " for name in sorted(names))
        line = f"({listed}) = ({listed})\n" if names else ""
        _STANDALONE_COMPILED.add((0, piece))
    _STAND_INS[piece] = line
    return line


def _module_global(tree) -> bool:
    import ast

    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if type(node) is ast.Global:
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _check_compiles(whole: str, pieces: list[tuple[str, str]] | None, path: str) -> None:
    """compile() `whole`, the output (raises what compile raises). A standalone piece (`_swap`: the same text in
    many files) at the start of a line is compiled once per process; the rest is compiled with two lines in its
    place: `import <its placeholder>` and its stand-in (`_stand_in`). That is exact: the import compiles only as a
    statement of its own, and found among the module code's names (not in a string) it is a module-level
    statement; a run of module-level statements that compiles alone compiles in a module but for the module
    scope's `global` declarations (the stand-in reads and binds the piece's names there) and the `__future__`
    flags (the piece is compiled under the module's). Any failure compiles `whole`, for the real error and line."""
    if pieces is None or "barry_as_FLUFL" in whole:
        compile(whole, path, "exec", dont_inherit=True)
        return
    import __future__

    reduced, standalone, before = [], [], "\n"
    for piece, name in pieces:
        line = _stand_in(piece) if name and before.endswith("\n") and piece.endswith("\n") else None
        if line is not None:
            reduced.append(f"import {name}\n{line}")
            standalone.append((name, piece))
        else:
            reduced.append(piece)
        before = piece or before
    try:
        code = compile("".join(reduced), path, "exec", dont_inherit=True)
        flags = code.co_flags & functools.reduce(operator.or_, (getattr(__future__, f).compiler_flag
                                                               for f in __future__.all_feature_names))
        for name, piece in standalone:
            if name not in code.co_names:
                raise ValueError(name)
            if (flags, piece) not in _STANDALONE_COMPILED:
                compile(piece, path, "exec", flags=flags, dont_inherit=True)
                _STANDALONE_COMPILED.add((flags, piece))
    except Exception:
        compile(whole, path, "exec", dont_inherit=True)


def _input_error(text: str, path: str) -> SyntaxError | None:
    """The compiler's error for the input itself (LibCST parses some code Python rejects, e.g. `return` at module
    level), or None when it compiles: only asked once the output failed, so it costs nothing otherwise."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    except (ValueError, MemoryError, RecursionError):
        return None
    return None


def _diagnostic(blocked: Blocked, module: cst.Module, path: str, context: Context, severity: str) -> Diagnostic:
    """A blocker, located in the file that holds its node (a package's blocker may sit in another file)."""
    node = blocked.node
    other = context.program.file_of(node) if context.program is not None and node is not None else None
    if other is not None and other.module is not module:
        line, col = position_in(other.module, node)
        return Diagnostic(blocked.code, blocked.message, line, col, severity, other.path)
    line, col = _Positions(module)(node)
    return Diagnostic(blocked.code, blocked.message, line, col, severity, path)


class _IdentifierFacts:
    """identifier_facts once per file (one `ast` parse): asked when grouping and again for a unit of one; a warm
    run reads the answer from the cache instead of parsing."""

    def __init__(self, cache: ResultCache | None, resolver: Resolver, words, roots, names):
        self.cache, self.resolver, self.words, self.roots, self.names = cache, resolver, words, roots, names
        self.known: dict[str, tuple[bytes, int]] = {}

    def __call__(self, data: bytes, path: str) -> int:
        known = self.known.get(path)
        if known is None or known[0] is not data:  # (a rescan after a stale stat index reads the bytes anew)
            verdict = key = None
            if self.cache is not None:  # (the verdict reads the real path of a file with a relative import: keyed
                # by it too)
                where = self.resolver.realpath(path) if _has_relative_import(data) else ""
                key = self.cache.flag_key("identifier facts", path, data, where)
                verdict = self.cache.get_flag(key)
            if verdict is None:
                verdict = identifier_facts(data, path, self.words, self.roots, self.names)
                if key is not None:
                    self.cache.put_flag(key, verdict)
            known = self.known[path] = (data, verdict)
        return known[1]


def _group(items: list[str], prefilter: bool, stat_index: StatIndex | None, resolver: Resolver, facts,
           joined: set[str]):
    """Read and group the (non-notebook) files into units (see migrate_paths): (failed, datas, passed, unread,
    grouped) — `grouped` maps each file of a unit of several to its unit's key; `joined` gets the files the
    prefilter rules out that joined a unit. A stat index found stale on the way is forgotten and the scan redone."""
    from tfmigrate.rules import PREFILTER, PROJECT_WORDS, ROOTS

    while True:
        failed, datas, passed, unread = _scan(items, prefilter, PREFILTER, stat_index, resolver)
        # a program file has a project word in an identifier: one whose words are only in strings and comments
        # (a docstring about Estimators) builds and uses none, so it links like a file without the word — it may
        # still join the one unit that imports it — instead of tying every file it imports into one unit
        project = {p: d for p, d in datas.items()
                   if any(word in d for word in PROJECT_WORDS) and not facts(d, p) & TEXT_ONLY}
        imports = {p: _IMPORT.findall(d) for p, d in project.items()}  # each program file scanned once
        grouped = _link_by_imports(project, resolver, imports)
        others = {**{p: d for p, d in datas.items() if p not in project}, **passed, **dict.fromkeys(unread, b"")}
        joins: list[str] = []
        attached: list[str] = []  # files without a program word that joined a unit
        if project and others:
            # an Estimator's input functions or feature columns may live in a module without an Estimator word (a
            # canned estimator's data module): a file that the program files of exactly one unit import joins that unit
            for path, importers in _imported_by(project, others, resolver, imports).items():
                units = {grouped[p] for p in importers}
                if len(units) == 1:
                    grouped[path] = units.pop()
                    attached.append(path)
                    if path in passed or path in unread:
                        joins.append(path)
            # an entry point without the word (task.py: flags, then `model.train_and_evaluate(args)` under
            # `if __name__ == "__main__":`) that imports the program files of exactly one unit runs that unit's code
            # on TF2: it joins it. A file the prefilter skips has no TensorFlow name to convert and runs the module's
            # functions as they are, and a module with no main guard (a library, a package __init__) is run by
            # whatever imports it: they stay alone
            entries: dict[str, set[str]] = {}
            candidates = {p: d for p, d in datas.items()
                          if p not in project and p not in grouped and b"__main__" in d}
            for target, importers in _imported_by(candidates, project, resolver).items():
                for importer in importers:
                    entries.setdefault(importer, set()).add(grouped[target])
            for path, units in entries.items():
                # one that imports the program files of several units (a run loop and the model_fn it is handed, in
                # modules that do not import each other) runs them together: it ties them into one (below)
                grouped[path] = min(units)
                attached.append(path)
            # what such an entry point hands the unit's code (the input functions of a module without the word,
            # passed to a run loop) joins with it, as a program file's imports do
            rest = {p: d for p, d in others.items() if p not in grouped}
            if entries and rest:
                for path, importers in _imported_by({p: datas[p] for p in entries}, rest, resolver).items():
                    if len({grouped[p] for p in importers}) == 1:
                        grouped[path] = grouped[next(iter(importers))]
                        attached.append(path)
                        if path in passed or path in unread:
                            joins.append(path)
        stale = False
        for path in joins:
            if path in unread:  # skipped unread by the stat index: its bytes are needed now
                try:
                    data = _read(path)
                except OSError:
                    stale = True
                    break
                if not prefilter_skips(data, path, PREFILTER):  # changed under the same stat data: trust none
                    stale = True
                    break
                del unread[path]
                passed[path] = data
            datas[path] = passed.pop(path)
            joined.add(path)
        if not stale:
            break
        stat_index.forget()
        joined.clear()
    if attached:
        # a joined file that imports program files of other units ties them in (a package `__init__` re-exporting
        # the model_fn its importer uses): the resolution reaches through it into them
        parent = {grouped[p]: grouped[p] for p in project}

        def find(key: str) -> str:
            while parent[key] != key:
                parent[key] = parent[parent[key]]
                key = parent[key]
            return key

        for target, importers in _imported_by({p: datas[p] for p in attached}, project, resolver).items():
            for importer in importers:
                parent[find(grouped[target])] = find(grouped[importer])
        grouped = {p: find(key) for p, key in grouped.items()}
    if prefilter and project:
        # a unit none of whose program files imports a root (NO_ROOTS) holds no Estimator: every check the rules
        # run on its files reads that file only (tfmigrate.rules), so its program files are migrated one by one
        # (or skipped: skips_alone) and the files that joined it are skipped — unless a file of the unit has a
        # relative import inside a package named for a root (its names may resolve there)
        members: dict[str, list[str]] = {}
        for path, key in grouped.items():
            members.setdefault(key, []).append(path)
        for paths in members.values():
            if len(paths) < 2 or not all(facts(datas[p], p) & NO_ROOTS for p in paths if p in project):
                continue
            if any(p not in project and _has_relative_import(datas[p])
                   and any(root in resolver.realpath(p) for root in ROOTS) for p in paths):
                continue
            for path in paths:
                del grouped[path]
                if path in joined:
                    joined.discard(path)
                    passed[path] = datas.pop(path)
    return failed, datas, passed, unread, grouped


def migrate_paths(
    paths: Iterable[Path], options: Options, jobs: int | None = None, on_result: Callable[[FileResult], None] | None = None,
    cache: ResultCache | None = None, prefilter: bool = True, stat_index: StatIndex | None = None,
) -> list[FileResult]:
    """Migrate many files: skip what the prefilter rules out, read the others' results from `cache` when it has
    them, migrate the rest (in worker processes when there are enough files to parse to pay for start-up).

    Files that may depend on each other (one of the rules' PROJECT_WORDS is in an identifier of theirs: a model_fn
    in one file, the Estimator that uses it in another; a file with the words only in strings and comments is
    treated as one without them) and import one another are one unit: parsed and indexed together as one program
    and migrated all or none. A file the program files of exactly one unit import joins it, and the program files
    such a file imports join it too (a package `__init__` re-exporting a model_fn). Every other file is a unit of
    its own. With the prefilter, a unit none of whose program files imports one of the rules' ROOTS (NO_ROOTS)
    holds no Estimator (the rules' word: tfmigrate.rules): its program files are migrated one by one and the files
    that joined it are skipped, unparsed. The cache keys each unit by all its files.

    `stat_index` (with the prefilter on): a file whose stat data is what the index recorded when the prefilter
    last skipped its bytes is skipped unread — its result carries no bytes (source = output = b""), so callers
    that use a skipped file's bytes (--out, unused-suppression reports) pass no index."""
    from tfmigrate.rules import NAMES, PREFILTER, ROOTS

    items = [str(p) for p in paths]
    results: dict[str, FileResult] = {p: _notebook(p, options, prefilter) for p in items if p.endswith(".ipynb")}
    for result in results.values():
        if on_result:
            on_result(result)
    resolver = Resolver()
    if not prefilter:
        stat_index = None

    joined: set[str] = set()  # files the prefilter rules out that joined a unit (see _group)
    facts = _IdentifierFacts(cache, resolver, PREFILTER, ROOTS, NAMES)

    def collect(batch: list[FileResult]) -> None:
        for result in batch:
            if result.path in joined and result.status == "unchanged" and not result.diagnostics:
                result = FileResult(result.path, "skipped", result.source, result.source)  # as the prefilter says
            result.unit = batch[0].path  # a batch is one unit (the CLI writes it all or none)
            results[result.path] = result
            if on_result:
                on_result(result)

    failed, datas, passed, unread, grouped = _group([p for p in items if not p.endswith(".ipynb")], prefilter,
                                                    stat_index, resolver, facts, joined)
    for failure in failed:
        collect([failure])
    for path, data in passed.items():  # (collect's work for a skipped file, without a call per file)
        result = results[path] = FileResult(path, "skipped", data, data)
        if on_result:
            on_result(result)
    for path in unread:
        result = results[path] = FileResult(path, "skipped")
        if on_result:
            on_result(result)
    units: dict[str, dict[str, bytes]] = {}
    for path, data in datas.items():
        units.setdefault(grouped.get(path, path), {})[path] = data
    work: list[tuple[dict[str, bytes], Options]] = []
    keys: list[str | None] = []
    for unit in units.values():
        key = cache.key(options, unit, resolver) if cache is not None else None
        hit = cache.get(key, unit) if key is not None else None
        if hit is not None:
            collect(hit)
        elif prefilter and len(unit) == 1 and skips_alone(facts(*_alone(unit))):
            data, path = _alone(unit)  # a unit of one: the second stage cannot change how files are grouped
            skipped = [FileResult(path, "skipped", data, data)]
            if key is not None:
                cache.put(key, skipped)
            collect(skipped)
        else:
            work.append((unit, options))
            keys.append(key)

    def done(key: str | None, batch: list[FileResult]) -> None:
        if key is not None:
            cache.put(key, batch)
        collect(batch)

    _run_units(work, keys, jobs, done)
    if cache is not None:
        cache.prune()
    if stat_index is not None:
        stat_index.save()
    return [results[p] for p in items]


def _run_units(work: list, keys: list, jobs: int | None, done: Callable) -> None:
    """Migrate the units of `work`, in worker processes when there are enough files to parse to pay for start-up."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or sum(len(unit) for unit, _ in work) < POOL_MIN_FILES or len(work) < 2:
        for key, item in zip(keys, work):
            done(key, _migrate_unit(item))
    else:
        from tfmigrate import rules

        rules.prepare()  # imported once here; forked workers inherit it
        jobs = min(jobs, len(work))
        pool_class = globals().get("ProcessPoolExecutor") or __getattr__("ProcessPoolExecutor")  # (tests spy on it)
        with pool_class(max_workers=jobs) as pool:
            chunksize = max(1, min(8, len(work) // (jobs * 4)))
            for key, batch in zip(keys, pool.map(_migrate_unit, work, chunksize=chunksize)):
                done(key, batch)


REL_IMPORT = 1  # stat index flag: the prefilter's verdict also read the file's real path (it has a relative import)


def _scan(items: list[str], prefilter: bool, words: tuple[bytes, ...], stat_index: StatIndex | None,
          resolver: Resolver) -> tuple[list[FileResult], dict[str, bytes], dict[str, bytes], dict[str, None]]:
    """Read and byte-scan every file: (read failures, files to migrate, files the prefilter skips, files the stat
    index says the prefilter skips — not read)."""
    failed: list[FileResult] = []
    datas: dict[str, bytes] = {}
    passed: dict[str, bytes] = {}  # files the prefilter rules out: skipped unless a program file imports them
    unread: dict[str, None] = {}  # (ordered: results come back in a run's order)
    lookup = stat_index.lookup if stat_index is not None else None
    not_link = resolver.not_links.add
    for path in items:
        if lookup is not None:
            flags = lookup(path)
            # a file with a relative import was skipped also because no word is in its real path: still so?
            if flags is not None and not (flags & REL_IMPORT and any(
                    word in os.fsencode(resolver.realpath(path)) for word in words)):
                unread[path] = None
                not_link(path)  # the index compares lstat data: a symlink never matches
                continue
        try:
            data, stat = _read_stat(path)
        except OSError as exc:
            failed.append(FileResult(path, "failed", error=f"cannot read: {exc.strerror or exc}"))
            continue
        if prefilter and prefilter_skips(data, path, words):
            passed[path] = data
            if stat_index is not None:
                stat_index.record(path, stat, REL_IMPORT if _has_relative_import(data) else 0)
        else:
            datas[path] = data
    return failed, datas, passed, unread


def _read(path: str) -> bytes:
    return _read_stat(path)[0]


def _read_stat(path: str) -> tuple[bytes, os.stat_result]:
    """A file's bytes (os.read: without a buffered file object, which a run over thousands of files notices) and
    its stat data, taken before the bytes were read (what the stat index records)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        stat = os.fstat(fd)
        size = stat.st_size + 1
        chunks = []
        while True:  # until EOF (a file may grow; a pipe reports no size)
            chunk = os.read(fd, max(size, 1 << 16))
            if not chunk:
                return (b"".join(chunks) if len(chunks) != 1 else chunks[0]), stat
            chunks.append(chunk)
    finally:
        os.close(fd)


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([\w., \t()*]+)|import[ \t]+([\w., \t]+))",
                     re.MULTILINE)


def _imported_by(importers: dict[str, bytes], targets: dict[str, bytes], resolver: Resolver | None = None,
                 imports: dict[str, list] | None = None) -> dict[str, set[str]]:
    """{target path: the `importers` files whose import statements name it} (the textual scan of _link_by_imports).

    An import matches a module name equal to it or ending in `.import`: the names are indexed by every dotted
    suffix (a lookup per import instead of a pass over every file per import), and only files whose name can end
    in an import's last part are named at all (the same matches, in the same order)."""
    resolver = resolver or Resolver()
    wanted: list[tuple[str, list[str]]] = []
    for path, data in importers.items():
        for frm, what, plain in (imports[path] if imports is not None else _IMPORT.findall(data)):
            if plain:
                wanted.append((path, [t.split()[0] for t in plain.decode(errors="replace").split(",") if t.strip()]))
            else:
                base = _absolute_base(frm.decode(errors="replace"), path)
                if base is None:
                    continue
                items = [w.strip(" ()\t").split()[0] for w in what.decode(errors="replace").split(",")
                         if w.strip(" ()\t")]
                wanted.append((path, [base, *(f"{base}.{w}" for w in items if w != "*")]))
    lasts = {target.rpartition(".")[2] for _, targets_ in wanted for target in targets_}

    # a module name ends in its file's stem (the real one: a symlink's target may be named otherwise), or, for
    # __init__.py, in its real directory's name (one loop, no call per file: a run may pass thousands of targets)
    basename, islink, not_links = os.path.basename, os.path.islink, resolver.not_links
    names: dict[str, str] = {}
    for path in targets:
        base = basename(path)
        if base == "__init__.py" and (path in not_links or not islink(path)):
            # its package's name ends in the real directory's name (no other file of a tree is as common)
            if basename(os.path.dirname(resolver.realpath(path))) not in lasts:
                continue
        elif not (base in ("", ".", "..") or (path not in not_links and islink(path))):
            dot = base.rfind(".")
            if (base[:dot] if 0 < dot < len(base) - 1 else base).rpartition(".")[2] not in lasts:
                continue
        names[resolver.module_name(path)[0]] = path
    by_suffix: dict[str, list[str]] = {}
    for name, other in names.items():
        if name:
            parts = name.split(".")
            for i in range(len(parts)):
                by_suffix.setdefault(".".join(parts[i:]), []).append(other)
            for dotted in namespace_names(other, name):
                if other not in by_suffix.setdefault(dotted, []):
                    by_suffix[dotted].append(other)
            for dotted in checkout_names(name):  # `from albert import x` of google-research__albert/x.py
                if other not in by_suffix.setdefault(dotted, []):
                    by_suffix[dotted].append(other)
    out: dict[str, set[str]] = {}
    for path, targets_ in wanted:
        for target in targets_:
            for other in by_suffix.get(target, ()):
                out.setdefault(other, set()).add(path)
    return out


def _absolute_base(base: str, importer: str) -> str | None:
    """`from .x import y` in pkg/mod.py names pkg.x: a relative base made absolute (None above the top package)."""
    level = len(base) - len(base.lstrip("."))
    if not level:
        return base
    name, _ = module_name_for(Path(importer))
    package = name.split(".") if importer.endswith("__init__.py") else name.split(".")[:-1]
    if level - 1 > len(package) or not package:
        return None
    package = package[:len(package) - (level - 1)]
    rest = base[level:]
    return ".".join(package + ([rest] if rest else []))


def _link_by_imports(datas: dict[str, bytes], resolver: Resolver | None = None,
                     imports: dict[str, list] | None = None) -> dict[str, str]:
    """Group files that import one another (a textual scan, before any parse): path → its unit's key.

    A model_fn can only come from another file through an import of it, so files that import no other file of
    the run stay units of their own and run in parallel. Relative imports link a file to its whole package."""
    resolver = resolver or Resolver()
    names: dict[str, str] = {}
    packages: dict[str, str] = {}
    for path in datas:
        name, _ = resolver.module_name(path)
        names[name] = path
        packages[path] = name.rpartition(".")[0] if not path.endswith("__init__.py") else name
    parent = {p: p for p in datas}

    def find(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    for path, data in datas.items():
        for frm, what, plain in (imports[path] if imports is not None else _IMPORT.findall(data)):
            targets = []
            if plain:
                targets = [t.split()[0] for t in plain.decode(errors="replace").split(",") if t.strip()]
            else:
                base = frm.decode(errors="replace")
                if base.startswith("."):
                    for other, package in packages.items():
                        if package == packages[path] and other != path:
                            union(path, other)
                    continue
                items = [w.strip(" ()\t").split()[0] for w in what.decode(errors="replace").split(",") if w.strip(" ()\t")]
                targets = [base, *(f"{base}.{w}" for w in items if w != "*")]
            for target in targets:
                for name, other in names.items():
                    if other != path and name and (name == target or name.endswith("." + target)
                                                   or target.startswith(name + ".")
                                                   or "." in target and target in namespace_names(other, name)
                                                   or target in checkout_names(name)):
                        union(path, other)
    return {p: find(p) for p in datas}


def _migrate_unit(args: tuple[dict[str, bytes], Options]) -> list[FileResult]:
    """One unit's results (the prefilter already ran): one file alone, or the files of one program together."""
    datas, options = args
    if len(datas) == 1:
        [(path, data)] = datas.items()
        try:
            return [migrate_source(data, path, options, prefilter=False)]
        except Exception as exc:  # a rule defect must not lose other files' results
            return [FileResult(path, "failed", data, data, error=f"internal error: {type(exc).__name__}: {exc}")]
    return _migrate_program(datas, options)


def _migrate_program(datas: dict[str, bytes], options: Options) -> list[FileResult]:
    """Parse every file once, index them into one Program, migrate each; linked files change all or none."""
    from .model import FileIndex, Program

    program = Program()
    parsed: dict[str, tuple] = {}
    results: dict[str, FileResult] = {}
    for path, data in datas.items():
        got = parse_source(data, path)
        if isinstance(got, FileResult):
            results[path] = got
            continue
        name, is_package = module_name_for(Path(path))
        index = FileIndex(got[2], path, name or None, is_package)
        program.add(index)
        parsed[path] = (got, index)
    for path, (got, index) in parsed.items():
        try:
            results[path] = migrate_source(datas[path], path, options, got, program, index)
        except Exception as exc:  # a rule defect must not lose other files' results
            results[path] = FileResult(path, "failed", datas[path], datas[path],
                                       error=f"internal error: {type(exc).__name__}: {exc}")
    # a unit is the files linked through one Estimator (driver, model_fn, specs): all change, or none does
    groups: dict[str, set[str]] = {p: {p} for p in results}
    for path, result in results.items():
        for other in result.linked:
            if other in groups and groups[other] is not groups[path]:
                merged = groups[path] | groups[other]
                for member in merged:
                    groups[member] = merged
    # a finding a unit's file places in another file that reports it itself is that file's, shown once
    for path, result in list(results.items()):
        if result.status != "blocked":
            continue
        kept = [d for d in result.diagnostics if d.path == path or d.path not in results
                or d not in results[d.path].diagnostics]
        if kept:
            result.diagnostics[:] = kept
        elif result.diagnostics:
            results[path] = _left_for(result, sorted({d.path for d in result.diagnostics}), results)
    # the files needing manual work themselves: not those left unchanged only for another one (TFM600)
    causes = {p for p, r in results.items() if r.status == "failed"
              or r.status == "blocked" and any(d.code != "TFM600" for d in r.diagnostics)}
    for path, result in list(results.items()):
        bad = sorted(p for p in groups[path] if p in causes and p != path) or sorted(
            p for p in groups[path] if results[p].status in ("blocked", "failed") and p != path)
        if bad and result.status in ("changed", "unchanged"):
            results[path] = _left_for(result, bad, results)
    return [results[p] for p in datas]


def _left_for(result: FileResult, others: list[str], results: dict | None = None) -> FileResult:
    """`result`'s file left as it was, for the other files of its unit that need manual work (TFM600), naming the
    first construct that blocks them and where (the user sees why from any file of the unit)."""
    found = [d for p in others for d in (results[p].diagnostics if results and p in results else [])
             if d.severity == "error" and d.code != "TFM600"]
    why = f": {found[0].path}:{found[0].line} {found[0].code} {found[0].message}" if found else ""
    why += f" (and {len(found) - 1} more there)" if len(found) > 1 else ""
    return FileResult(result.path, "blocked", result.source, result.source, linked=result.linked, diagnostics=[
        Diagnostic("TFM600", f"left unchanged: migrated as one unit with {', '.join(others)}, which needs manual "
                             f"work{why}", 1, 0, "error", result.path)])


def explain_paths(paths: Iterable[Path], options: Options) -> list[dict]:
    """Index the files that may hold Estimator code as one program and return the rules' plan (plain data)."""
    from tfmigrate.rules import PROJECT_WORDS, explain

    from .model import FileIndex, Program

    program = Program()
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue
        if not any(word in data for word in PROJECT_WORDS):
            continue
        got = parse_source(data, str(path))
        if isinstance(got, FileResult):
            continue
        name, is_package = module_name_for(Path(path))
        program.add(FileIndex(got[2], str(path), name or None, is_package))
    return explain(program, options)
