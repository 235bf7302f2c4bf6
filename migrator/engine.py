"""Per-file pipeline: prefilter → parse once → run the registered migrations in one pass → render → check.

The engine knows no TensorFlow API: migrations come from `tfmigrate.rules.MIGRATIONS`, each a callable
`(module, context) -> module` that raises `Blocked` when the file cannot be migrated safely.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .diagnostics import Blocked, Diagnostic, FileResult
from .files import decode, encode


@dataclass(frozen=True)
class Options:
    target: str = "auto"  # auto | keras | ctl
    strategy: str = "keep"  # keep | default | one-device | mirrored | multi-worker-mirrored | parameter-server


@dataclass
class Context:
    """What a migration sees besides the tree: options, and where to put non-blocking notes."""

    options: Options
    path: str = "<stdin>"
    text: str = ""  # the decoded source, for cheap textual questions (no re-render of the tree)
    notes: list[tuple[str, str, cst.CSTNode | None]] = field(default_factory=list)

    def note(self, code: str, message: str, node: cst.CSTNode | None = None) -> None:
        self.notes.append((code, message, node))


class _Positions:
    """line:col of nodes of the original tree, computed once per file and only when something is reported."""

    def __init__(self, module: cst.Module):
        self.module, self._positions = module, None

    def __call__(self, node: cst.CSTNode | None) -> tuple[int, int]:
        if node is None:
            return 1, 0
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return _position(self.module, self._positions.get(node), node)


def _position(module: cst.Module, pos, node: cst.CSTNode) -> tuple[int, int]:
    if pos:
        return pos.start.line, pos.start.column
    # a node from a rewritten tree has no position in the original: find its text there instead
    text, snippet = module.code, module.code_for_node(node).strip()
    index = text.find(snippet) if snippet else -1
    if index < 0:
        return 1, 0
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index) - 1


def migrate_source(data: bytes, path: str, options: Options) -> FileResult:
    """Migrate one file's bytes. Never raises for bad input: failures come back as status "failed"."""
    from tfmigrate.rules import MIGRATIONS, PREFILTER  # rules register themselves; engine stays TF-agnostic

    if not any(word in data for word in PREFILTER):
        return FileResult(path, "skipped", data, data)
    try:
        text, encoding = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return FileResult(path, "failed", data, data, error=f"cannot decode: {exc}")
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return FileResult(path, "failed", data, data, error=f"syntax error at {exc.raw_line}:{exc.raw_column}: {exc.message}")
    context = Context(options, path, text)
    new = module
    try:
        for migration in MIGRATIONS:
            new = migration(new, context)
    except Blocked as blocked:
        line, col = _Positions(module)(blocked.node)
        diags = [Diagnostic(blocked.code, blocked.message, line, col, "error", path)]
        return FileResult(path, "blocked", data, data, diagnostics=diags)
    except RecursionError:
        return FileResult(path, "failed", data, data, error="internal error: recursion limit")
    position = _Positions(module)
    diags = [Diagnostic(code, msg, *position(node), "note", path) for code, msg, node in context.notes]
    out_text = new.code
    if out_text == text:
        return FileResult(path, "unchanged", data, data, diagnostics=diags)
    try:
        compile(out_text, path, "exec", dont_inherit=True)  # never hand back code that does not parse
    except Exception as exc:  # an internal defect: report it, keep the user's file
        return FileResult(path, "failed", data, data, error=f"internal error: output does not parse ({exc})")
    return FileResult(path, "changed", data, encode(out_text, encoding), diagnostics=diags)


def _migrate_path(args: tuple[str, Options]) -> FileResult:
    path, options = args
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return FileResult(path, "failed", error=f"cannot read: {exc.strerror or exc}")
    try:
        return migrate_source(data, path, options)
    except Exception as exc:  # a rule defect must not lose other files' results
        return FileResult(path, "failed", data, data, error=f"internal error: {type(exc).__name__}: {exc}")


def migrate_paths(
    paths: Iterable[Path], options: Options, jobs: int | None = None, on_result: Callable[[FileResult], None] | None = None
) -> list[FileResult]:
    """Migrate many files, in worker processes when there are enough of them to pay for start-up."""
    items = [(str(p), options) for p in paths]
    jobs = jobs or os.cpu_count() or 1
    results: list[FileResult] = []
    if jobs == 1 or len(items) < 8:
        for item in items:
            result = _migrate_path(item)
            results.append(result)
            if on_result:
                on_result(result)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(_migrate_path, items, chunksize=8):
            results.append(result)
            if on_result:
                on_result(result)
    return results
