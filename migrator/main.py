"""The `tfmigrate` console script: `rewrite` without typer when its arguments are plain, else the typer app.

typer (with click, rich and, in recent versions, pydantic) costs ~0.3 CPU-s to import: more than a cached
`rewrite --check` over a whole repository. So the hot command is parsed here first, by a parser that accepts only
what click would parse the same way (each option spelled in full or `--opt=value`, `-q`, `-j N` / `-jN`, `-o FILE`,
positional paths); anything else — help, --version, another command, a bad value, an unknown or combined option,
a usage error — goes to the typer app, which prints the same help and errors as before. Both call
`rewrite_command.command`, so results, output and exit codes are the same.
"""
from __future__ import annotations

import gc
import sys

# The collector's first generation is collected every 700 new container objects by default. Start-up (LibCST's
# ~230 node dataclasses, the rules' modules, jinja2) allocates ~70,000 objects that all live to the end, and each
# file's rewrite allocates hundreds of thousands more: at 700, a one-file rewrite spent ~13% of its CPU time in
# ~140 collections, most of them during the imports, and a 216-file run ~10% (its full collections re-scanning
# every object start-up made). Collected every 10,000: the same garbage is found (it is only found later) for
# ~2 MB more peak memory on that run. The console script's process only (and the workers it forks).
_GC_THRESHOLD = 10_000

# option → (keyword, kind): "flag" sets True, "value" takes the next argument (the last one wins), "many" appends
_OPTIONS = {
    "--target": ("target", "value"), "--strategy": ("strategy", "value"), "--style": ("style", "value"),
    "--diff": ("diff", "flag"),
    "--check": ("check", "flag"), "--out": ("out", "value"), "--exclude": ("exclude", "many"),
    "--force-exclude": ("force_exclude", "flag"), "--select": ("select", "many"), "--ignore": ("ignore", "many"),
    "--report-unused-suppressions": ("report_unused", "flag"), "--output-format": ("output_format", "value"),
    "--output-file": ("output_file", "value"), "-o": ("output_file", "value"), "--statistics": ("statistics", "flag"),
    "--config": ("config", "many"), "--isolated": ("isolated", "flag"), "--jobs": ("jobs", "int"),
    "-j": ("jobs", "int"), "--quiet": ("quiet", "flag"), "-q": ("quiet", "flag"), "--explain": ("explain", "flag"),
    "--no-cache": ("no_cache", "flag"), "--cache-dir": ("cache_dir", "value"), "--no-prefilter": ("no_prefilter", "flag"),
}


def defaults() -> dict:
    """The rewrite command's defaults (cli.rewrite's typer defaults; tests/rewrite/test_cli_fast.py compares)."""
    return dict(target=None, strategy=None, style=None, diff=False, check=False, out=None, exclude=[], force_exclude=None,
                select=[], ignore=[], report_unused=None, output_format=None, output_file=None, statistics=False,
                config=[], isolated=False, jobs=0, quiet=False, explain=False, no_cache=False, cache_dir=None,
                no_prefilter=False)


def parse_rewrite(args: list[str]) -> tuple[list[str], dict] | None:
    """(paths, options) of `rewrite ARGS` when click would read them the same way, else None (let typer parse)."""
    paths: list[str] = []
    options = defaults()
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            paths.append(arg)
            continue
        name, eq, attached = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name == "-j" or (name.startswith("-j") and name[2:].isdigit()):
            name, attached, eq = "-j", name[2:], "=" if name[2:] else ""
        spec = _OPTIONS.get(name)
        if spec is None:
            return None
        key, kind = spec
        if kind == "flag":
            if eq:
                return None
            options[key] = True
            continue
        if eq:
            value = attached
        else:
            if i >= len(args) or args[i].startswith("-"):
                return None  # a missing value (or one click might read differently): click reports it
            value = args[i]
            i += 1
        if kind == "many":
            options[key] = [*options[key], value]
        elif kind == "int":
            if not (value.isascii() and value.isdigit()):
                return None
            options[key] = int(value)
        else:
            options[key] = value
    if not paths:
        return None
    options["check"] = options["check"] and not options["diff"]  # --check --diff: the diff (cli.check_and_diff)
    return paths, options


def main(argv: list[str] | None = None) -> None:
    try:
        _main(argv)
    except BrokenPipeError:
        # `tfmigrate rewrite --diff . | head`: the reader left; stop quietly as other CLIs do (no traceback), and
        # keep Python's exit-time flush from raising it again
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def _main(argv: list[str] | None) -> None:
    if argv is None:
        gc.set_threshold(_GC_THRESHOLD, *gc.get_threshold()[1:])
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["rewrite"]:
        parsed = parse_rewrite(args[1:])
        if parsed is not None:
            from tfmigrate.rewrite_command import UsageError, command

            try:
                code = command(parsed[0], **parsed[1])
            except UsageError:
                pass  # typer reports it, with the usage line
            except KeyboardInterrupt:  # as click does
                print(file=sys.stderr)
                print("Aborted!", file=sys.stderr)
                sys.exit(1)
            else:
                sys.exit(code)
    from tfmigrate.cli import app

    app(args=args, prog_name="tfmigrate")
