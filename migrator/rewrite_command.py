"""`tfmigrate rewrite`: run the engine over paths and report like black/ruff."""
from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

from .diagnostics import FileResult
from .engine import Options, migrate_paths, migrate_source
from .files import discover, write_atomic


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _report(result: FileResult, quiet: bool) -> None:
    if quiet:
        return
    for diag in result.diagnostics:
        _say(diag.format())
    if result.status == "failed":
        _say(f"{result.path}: error: {result.error}")


def _summary(results: list[FileResult], writing: bool) -> str:
    changed = sum(r.status == "changed" for r in results)
    blocked = sum(r.status == "blocked" for r in results)
    failed = sum(r.status == "failed" for r in results)
    verb = "rewrote" if writing else "would rewrite"
    noun = "file" if changed == 1 else "files"
    return f"{verb} {changed} {noun}, {blocked} need{'s' if blocked == 1 else ''} manual work, {failed} failed"


def _exit_code(results: list[FileResult], writing: bool) -> int:
    """ruff/black convention: 2 on any failure; 1 if manual work remains or (--check/--diff/stdin) a file would change."""
    if any(r.status == "failed" for r in results):
        return 2
    if any(r.status == "blocked" for r in results):
        return 1
    if not writing and any(r.status == "changed" for r in results):
        return 1
    return 0


def _out_path(path: Path, roots: list[Path], out: Path) -> Path:
    """Where a file goes under --out: relative to the directory argument it was found in, else as given."""
    for root in roots:
        if root.is_dir():
            try:
                return out / path.relative_to(root)
            except ValueError:
                continue
    if path.is_absolute():
        return out / path.name
    return out / Path(*[p for p in path.parts if p not in ("..", ".")])


def _cache(enabled: bool, directory: str | None):
    """The result cache of this run, or None (--no-cache). Results are the same either way; only time differs."""
    if not enabled:
        return None
    from .cache import ResultCache, default_dir

    return ResultCache(directory or default_dir())


def run_rewrite(paths, target, strategy, diff, check, out, exclude, jobs, quiet, cache=True, cache_dir=None,
                prefilter=True) -> int:
    options = Options(target=target, strategy=strategy)
    if paths == ["-"]:  # stdin is never cached
        data = sys.stdin.buffer.read()
        result = migrate_source(data, "<stdin>", options, prefilter=prefilter)
        _report(result, quiet)
        sys.stdout.buffer.write(result.output if result.status == "changed" else data)
        return _exit_code([result], writing=False)
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        _say(f"error: no such file or directory: {', '.join(missing)}")
        return 2
    files = discover(paths, exclude)
    progress = _progress(len(files), quiet)
    results = migrate_paths(files, options, jobs, on_result=progress, cache=_cache(cache, cache_dir),
                            prefilter=prefilter)
    if progress:
        progress.close()
    roots = [Path(p) for p in paths]
    for result in results:
        _report(result, quiet)
        if result.status != "changed":
            if out and result.status != "failed":
                write_atomic(_out_path(Path(result.path), roots, Path(out)), result.source)
            continue
        if diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    result.source.decode("utf-8", "replace").splitlines(True),
                    result.output.decode("utf-8", "replace").splitlines(True),
                    f"a/{result.path}",
                    f"b/{result.path}",
                )
            )
        elif check:
            if not quiet:
                _say(f"would rewrite {result.path}")
        elif out:
            write_atomic(_out_path(Path(result.path), roots, Path(out)), result.output)
        else:
            write_atomic(Path(result.path), result.output)
    _say(_summary(results, writing=not (diff or check)))
    return _exit_code(results, writing=not (diff or check))


def run_explain(paths, target, strategy, exclude) -> int:
    """Print the plan the rules make for these files as JSON; exit 1 if something blocks, else 0."""
    import json

    from .engine import explain_paths

    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        _say(f"error: no such file or directory: {', '.join(missing)}")
        return 2
    plan = explain_paths(discover(paths, exclude), Options(target=target, strategy=strategy))
    print(json.dumps(plan, indent=2))
    return 1 if plan and plan[-1]["blockers"] else 0


class _Progress:
    """A one-line counter on stderr for long runs (only on a terminal, only for many files)."""

    def __init__(self, total: int):
        self.total, self.done = total, 0

    def __call__(self, _result: FileResult) -> None:
        self.done += 1
        if self.done % 25 == 0 or self.done == self.total:
            sys.stderr.write(f"\r{self.done}/{self.total} files")
            sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


def _progress(total: int, quiet: bool):
    if quiet or total < 50 or not sys.stderr.isatty():
        return None
    return _Progress(total)
