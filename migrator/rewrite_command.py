"""`tfmigrate rewrite`: run the engine over paths and report like black/ruff.

Exit codes: 0 every file converted (or nothing to do); 1 manual work remains (a file is blocked, even when its
blocking findings are suppressed) or a file would change under --check/--diff, or (--report-unused-suppressions)
a suppression comment is unused; 2 an error (a file that cannot be read, decoded or parsed, a bad option or
configuration, a unit that could not be written or one of whose files changed while the run read it: that unit is
left as it was); 130 interrupted (Ctrl-C while writing stops between two units). The same holds for stdin ('-').
"""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from .config import OUTPUT_FORMATS, STRATEGIES, STYLES, TARGETS, Config, ConfigError
from .diagnostics import FileResult
from .engine import Options, migrate_paths, migrate_source
from .files import decode, discover, discover_files
from .records import field, record
from .reporting import EXIT_ERROR, Report, Style, format_failure, format_finding, use_color
from .suppressions import Selection, SelectorError, apply, check_selectors


@record
class RewriteSettings:
    target: str = "auto"
    strategy: str = "keep"
    style: str = "auto"
    diff: bool = False
    check: bool = False
    out: str | None = None
    exclude: tuple[str, ...] | None = None  # names / globs skipped (None: files.DEFAULT_EXCLUDES)
    extend_exclude: tuple[str, ...] = ()  # added to `exclude` (config `extend-exclude` and --exclude)
    force_exclude: bool = False  # apply the excludes to files named explicitly too (pre-commit)
    jobs: int | None = None
    quiet: bool = False
    selection: Selection = field(default_factory=Selection)
    output_format: str = "text"
    output_file: str | None = None
    statistics: bool = False
    root: Path | None = None  # the directory of the configuration file (exclude globs are relative to it)
    cache: bool = True  # the result cache (--no-cache: off); results are the same either way, only time differs
    cache_dir: str | None = None
    prefilter: bool = True  # --no-prefilter (hidden): parse every file, a check of the trigger words

    @property
    def writing(self) -> bool:
        return not (self.diff or self.check)


def split_codes(values) -> list[str] | None:
    """`--select TFM6,TFM001 --select TFM7` → ['TFM6', 'TFM001', 'TFM7'] (None when the flag was not given)."""
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def build_settings(config: Config, *, target=None, strategy=None, style=None, select=None, ignore=None, exclude=(),
                   force_exclude=None, report_unused=None, output_format=None, **flags) -> RewriteSettings:
    """Command-line flags over the configuration over the defaults. `select` from the command line replaces the
    configured one; `ignore` and `exclude` add to it (ruff's --select / --ignore / --extend-exclude)."""
    target = config.pick(target, "target", "auto")
    strategy = config.pick(strategy, "strategy", "keep")
    style = config.pick(style, "style", "auto")
    if style not in STYLES:
        raise ConfigError(f"--style must be one of {', '.join(STYLES)}, not {style!r}")
    if target not in TARGETS:
        raise ConfigError(f"--target must be one of {', '.join(TARGETS)}, not {target!r}")
    if strategy not in STRATEGIES:
        raise ConfigError(f"--strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    output_format = config.pick(output_format, "output-format", "text")
    if output_format not in OUTPUT_FORMATS:
        raise ConfigError(f"--output-format must be one of {', '.join(OUTPUT_FORMATS)}, not {output_format!r}")
    where = config.describe()
    try:
        selection = Selection(
            select=check_selectors(select if select is not None else config.get("select", ["ALL"]),
                                   "--select" if select is not None else f"{where}: select"),
            ignore=check_selectors([*config.get("ignore", []), *(ignore or [])], "ignore"),
            per_file_ignores={glob: check_selectors(codes, f"{where}: per-file-ignores[{glob!r}]")
                              for glob, codes in config.get("per-file-ignores", {}).items()},
            root=config.root,
            report_unused=bool(config.pick(report_unused, "report-unused-suppressions", False)),
        )
    except SelectorError as exc:
        raise ConfigError(str(exc)) from None
    configured = config.get("exclude")
    return RewriteSettings(
        target=target, strategy=strategy, style=style, selection=selection, output_format=output_format,
        exclude=tuple(configured) if configured is not None else None,
        extend_exclude=(*config.get("extend-exclude", []), *exclude),
        force_exclude=bool(config.pick(force_exclude, "force-exclude", False)),
        root=config.root, **{**flags, "cache_dir": flags.get("cache_dir") or config.get("cache-dir")},
    )


class UsageError(Exception):
    """A bad combination of options: the CLI reports it with its usage line (exit 2)."""


def command(paths: list[str], *, target=None, strategy=None, style=None, diff=False, check=False, out=None, exclude=(),
            force_exclude=None, select=(), ignore=(), report_unused=None, output_format=None, output_file=None,
            statistics=False, config=(), isolated=False, jobs=0, quiet=False, explain=False, no_cache=False,
            cache_dir=None, no_prefilter=False) -> int:
    """`tfmigrate rewrite` once its arguments are parsed (by typer, or by tfmigrate.main's fast path): the exit
    code. Raises UsageError before doing anything when options conflict."""
    from .config import resolve

    if diff and check:
        raise UsageError("--diff and --check are exclusive")
    if out and (diff or check):
        raise UsageError("--out writes files; it cannot be combined with --diff or --check")
    try:
        settings = build_settings(
            resolve(paths, list(config), isolated), target=target, strategy=strategy, style=style, select=split_codes(select),
            ignore=split_codes(ignore), exclude=tuple(exclude), force_exclude=force_exclude,
            report_unused=report_unused, output_format=output_format, diff=diff, check=check, out=out,
            jobs=jobs or None, quiet=quiet, output_file=output_file, statistics=statistics,
            cache=not no_cache, cache_dir=cache_dir, prefilter=not no_prefilter)
    except ConfigError as exc:
        _say(f"error: {exc}")
        return EXIT_ERROR
    if settings.output_format != "text" and not output_file and (diff or paths == ["-"]):
        raise UsageError(f"--output-format {settings.output_format} writes to stdout, which --diff / stdin "
                         "use for code: add --output-file FILE")
    if explain:
        return run_explain(paths, settings)
    return run_rewrite(paths, settings)


def _say(text: str = "") -> None:
    print(text, file=sys.stderr)


def _unified_diff(result: FileResult, name: str, encoding: str = "utf-8") -> list[str]:
    import difflib

    if name.endswith(".ipynb"):  # one diff per changed code cell, not one of the JSON
        from .notebooks import cell_diff

        return cell_diff(result.source, result.output, name)
    return list(difflib.unified_diff(
        result.source.decode(encoding, "replace").splitlines(True),
        result.output.decode(encoding, "replace").splitlines(True),
        f"a/{name}", f"b/{name}",
    ))


def _write_diff(result: FileResult, name: str | None = None) -> None:
    """The patch of a changed file, in the file's own encoding (a latin-1 file's patch applies to it)."""
    name = name or result.path
    try:  # (a notebook's JSON and its cell diff are UTF-8)
        encoding = "utf-8" if name.endswith(".ipynb") else decode(result.source)[1]
    except (SyntaxError, UnicodeDecodeError, LookupError):
        encoding = "utf-8"
    if encoding == "utf-8":  # (as before: through the text stream)
        sys.stdout.writelines(_unified_diff(result, name))
        return
    sys.stdout.flush()
    sys.stdout.buffer.write("".join(_unified_diff(result, name, encoding)).encode(encoding))
    sys.stdout.buffer.flush()


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


def _cache(settings: RewriteSettings):
    """The result cache of this run, or None (--no-cache). Results are the same either way; only time differs."""
    if not settings.cache:
        return None
    from .cache import ResultCache, default_dir

    return ResultCache(settings.cache_dir or default_dir())


def _stat_index(settings: RewriteSettings, cache, options: Options, paths: list[str]):
    """The stat index of this run (skipped files trusted by their stat data), or None: without the cache or the
    prefilter, and when the run uses skipped files' bytes (--out copies them, unused suppressions are read
    from them)."""
    if cache is None or not settings.prefilter or settings.out or settings.selection.report_unused:
        return None
    from .cache import StatIndex

    return StatIndex.for_run(cache, options, paths)


def run_rewrite(paths: list[str], settings: RewriteSettings) -> int:
    try:
        return _run_rewrite(paths, settings)
    finally:
        _release()  # a Ctrl-C held while writing is raised here, after the report (KeyboardInterrupt is caught)


def _run_rewrite(paths: list[str], settings: RewriteSettings) -> int:
    options = Options(target=settings.target, strategy=settings.strategy, style=settings.style)
    if paths == ["-"]:
        return _run_stdin(options, settings)
    missing = [p for p in paths if not os.path.lexists(p)]
    if missing:
        _say(f"error: no such file or directory: {', '.join(missing)}")
        return EXIT_ERROR
    files = discover_files(paths, settings.extend_exclude, settings.exclude, settings.root, settings.force_exclude)
    if not files:
        named = [p for p in paths if os.path.isfile(p)]
        if named and settings.force_exclude and len(named) == len(paths):  # (pre-commit's way: each file named)
            _say(f"note: {', '.join(named)} {'is' if len(named) == 1 else 'are'} excluded by the configuration "
                 "(`exclude` / `extend-exclude`, applied to named files with --force-exclude): nothing to do")
        else:
            _say(f"warning: no Python files found in {', '.join(paths)} (directories are searched recursively for "
                 "*.py files and *.ipynb notebooks; see `exclude` / `extend-exclude`): nothing to do")
        return _finish(Report([], settings.writing), settings)
    files = _once(files, len(paths) > 1, settings.quiet)
    progress = _progress(len(files), settings.quiet)
    cache = _cache(settings)
    try:
        results = migrate_paths(files, options, settings.jobs, on_result=progress, cache=cache,
                                prefilter=settings.prefilter, stat_index=_stat_index(settings, cache, options, paths))
    except KeyboardInterrupt:
        _say("\ninterrupted before any file was written: nothing was changed")
        return EXIT_INTERRUPTED
    if progress:
        progress.close()
    roots = [Path(p) for p in paths]
    written: list[str] | None = None
    if settings.writing:
        plan = _plan(results, settings, roots)
        if isinstance(plan, str):
            _say(f"error: {plan}; nothing was written")
            return EXIT_ERROR
        results, written = _write_units(results, plan)
    report = apply(results, settings.selection, settings.writing)
    _print_findings(report, settings)
    if not settings.quiet:
        for result in results:  # Python reads no NUL byte: a UTF-16 or binary file no rule could ever match
            if result.status == "skipped" and b"\0" in result.source:
                _say(f"note: {result.path} is not Python source text (it holds NUL bytes: UTF-16 or binary); "
                     "skipped")
    for result in results:
        if result.status != "changed":
            continue
        if settings.diff:
            _write_diff(result)
        elif settings.check:
            if not settings.quiet and settings.output_format == "text":
                _say(f"would rewrite {result.path}")
    # the same whether the prefilter skipped a file or the rules left it unchanged without a finding
    if results and all(r.status == "skipped" or (r.status == "unchanged" and not r.diagnostics) for r in results) \
            and not settings.quiet:
        _say(f"note: no file uses a construct tfmigrate converts ({_checked(results)} checked): nothing to migrate")
    code = _finish(report, settings)
    if written is not None and _interrupted():
        _say(f"interrupted: {len(written)} file{'s' if len(written) != 1 else ''} written, each with its whole unit"
             f"{': ' + ', '.join(written) if written else ''}; no unit was left half-written; the other files are "
             "as they were")
        return EXIT_INTERRUPTED  # run_rewrite releases the signal: SIGTERM ends the process there
    return code


EXIT_INTERRUPTED = 130  # the shell's code for a command ended by SIGINT


def _once(files: list[str], several: bool, quiet: bool) -> list[str]:
    """Each file once: the same file named twice (`a.py` and `../x/a.py`, a path through a symlinked directory)
    would be migrated twice and written twice. Only several arguments can name a file twice."""
    if not several:
        return files
    seen: dict[tuple[int, int], str] = {}
    out = []
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            out.append(path)  # reported when it is read
            continue
        first = seen.setdefault((st.st_dev, st.st_ino), path)
        if first is path:
            out.append(path)
        elif not quiet:
            _say(f"note: {path} is the same file as {first}: migrated once, as {first}")
    return out


def _plan(results, settings: RewriteSettings, roots: list[Path]):
    """{unit: [(result, Write)]} of every file this run writes, or the reason it writes nothing (an --out path
    that two files would both be written to)."""
    from .files import Write

    units: dict[str, list] = {}
    dests: dict[str, str] = {}
    for r in results:
        if settings.out:
            if r.status == "failed" and not r.source:
                continue  # never read: nothing to copy
            dest = os.path.abspath(_out_path(Path(r.path), roots, Path(settings.out)))
            try:
                mode = os.stat(r.path).st_mode & 0o7777  # the copy keeps the source's mode
            except OSError:
                mode = None
            same = os.path.realpath(dest) == os.path.realpath(r.path)  # --out over the sources: in place
            data = r.output if r.status == "changed" else r.source
            if same and data == r.source:
                continue  # --out over the sources: an unchanged file is already there
            w = Write(r.path, os.path.realpath(dest) if same else dest, data, r.source if same else None, mode)
        elif r.status == "changed":
            w = Write(r.path, os.path.realpath(r.path), r.output, r.source)  # a symlink: its target
        else:
            continue
        other = dests.setdefault(w.dest, r.path)
        if other != r.path:
            if settings.out:
                return f"--out: {other} and {r.path} would both be written to {_out_path(Path(r.path), roots, Path(settings.out))}"
            if not settings.quiet:  # in place, two symlinks to one file: it is written once, by the first
                _say(f"note: {r.path} is the same file as {other}: written once, as {other}")
            continue
        units.setdefault(r.unit or r.path, []).append((r, w))
    return units


def _write_units(results, plan) -> tuple[list[FileResult], list[str]]:
    """Commit each unit all or none (files.commit); a unit that cannot be written, or a file of which changed since
    it was read, is left as it is and its files come back "failed" saying why. Ctrl-C and SIGTERM are held while
    writing and stop the run between two units (run_rewrite reports which files were written)."""
    import signal

    from .files import Changed, WriteError, commit

    _held.mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    failed: dict[str, FileResult] = {}
    written: list[str] = []
    for unit, members in plan.items():
        if _interrupted():
            for r, _ in members:
                failed[r.path] = FileResult(r.path, "failed", r.source, r.source, r.diagnostics,
                                            "not written: interrupted (Ctrl-C) before its unit", r.linked)
            continue
        try:
            commit([w for _, w in members])
        except (WriteError, OSError) as exc:
            if isinstance(exc, Changed):
                why = f"not written: {exc}; its unit was left as it is now, so no edit is lost: run again"
            elif isinstance(exc, WriteError):
                why = f"not written: {exc}"
            else:
                where = f" ({exc.filename})" if exc.filename else ""
                why = f"cannot write: {exc.strerror or exc}{where}"
            names = [r.path for r, _ in members]
            if len(names) > 1:
                why += f"; every file of its unit ({', '.join(names)}) was left as it was"
            for r, _ in members:
                failed[r.path] = FileResult(r.path, "failed", r.source, r.source, r.diagnostics, why, r.linked)
            continue
        written.extend(r.path for r, w in members if w.expect is None or w.data != w.expect)
    return [failed.get(r.path, r) for r in results], written


# The signal mask before the write phase blocked SIGINT/SIGTERM, per thread (masks are per thread): with one global,
# two threads rewriting at once could restore each other's mask and leave one with SIGINT blocked for good.
_held = threading.local()


def _interrupted() -> bool:
    import signal

    return bool(signal.sigpending() & {signal.SIGINT, signal.SIGTERM})


def _release() -> None:
    """Restore the signal mask: a Ctrl-C held while writing is raised now (KeyboardInterrupt), after the report."""
    import signal

    mask = getattr(_held, "mask", None)
    if mask is not None:
        _held.mask = None
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        except KeyboardInterrupt:
            pass


def _checked(results) -> str:
    """What a run looked at: `2 Python files`, `1 notebook`, `3 Python files and 1 notebook`."""
    notebooks = sum(r.path.endswith(".ipynb") for r in results)
    counts = [(len(results) - notebooks, "Python file"), (notebooks, "notebook")]
    return " and ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in counts if n) or "0 Python files"


def _run_stdin(options: Options, settings: RewriteSettings) -> int:
    """'-': read stdin; write the migrated program (or, --diff, the diff; --check, nothing) to stdout."""
    data = sys.stdin.buffer.read()
    result = migrate_source(data, "<stdin>", options, prefilter=settings.prefilter)  # stdin is never cached
    report = apply([result], settings.selection, settings.writing)
    _print_findings(report, settings)
    if settings.diff:
        if result.status == "changed":
            _write_diff(result, "<stdin>")
    elif settings.check:
        if result.status == "changed" and not settings.quiet and settings.output_format == "text":
            _say("would rewrite -")
    else:
        sys.stdout.buffer.write(result.output if result.status == "changed" else data)
        sys.stdout.flush()
    return _finish(report, settings)


def _print_findings(report: Report, settings: RewriteSettings) -> None:
    """Text findings on stderr, file by file, as they come (the machine formats are written at the end)."""
    if settings.quiet or settings.output_format != "text":
        return
    style = Style(use_color(sys.stderr))
    by_result: dict[str, list] = {}
    for d in report.findings:
        by_result.setdefault(d.path, []).append(d)
    printed = set()
    for result in report.results:
        found = by_result.get(result.path)
        if found:
            for d in sorted(found, key=lambda d: (d.line, d.col)):
                _say(format_finding(d, style))
        printed.add(result.path)
        if result.status == "failed":
            _say(format_failure(result, style))
        if result.path in report.blocked_silently:
            codes = ", ".join(report.blocked_silently[result.path])
            _say(f"{style(result.path, 'bold')}: {style('note', 'cyan')}: left unchanged: every finding that blocks "
                 f"it is suppressed or ignored ({codes}); it still needs manual work")
    for path, diags in by_result.items():  # findings about files outside the run (a package's other file)
        if path not in printed:
            for d in diags:
                _say(format_finding(d, style))


def _finish(report: Report, settings: RewriteSettings) -> int:
    if settings.output_format != "text":
        from .formats import write_report

        write_report(report, settings.output_format, settings.output_file)
    if settings.statistics:
        for code, count, name in report.statistics():
            _say(f"{count:>5}\t{code}\t{name}")
    if report.results:
        _say(report.summary())
    return report.exit_code()


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


def run_explain(paths, settings: RewriteSettings) -> int:
    """Print the plan the rules make for these files as JSON; exit 1 if something blocks, else 0."""
    import json

    from .engine import explain_paths

    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        _say(f"error: no such file or directory: {', '.join(missing)}")
        return 2
    files = discover(paths, settings.extend_exclude, settings.exclude, settings.root, settings.force_exclude)
    plan = explain_paths(files, Options(target=settings.target, strategy=settings.strategy, style=settings.style))
    print(json.dumps(plan, indent=2))
    return 1 if plan and plan[-1]["blockers"] else 0
