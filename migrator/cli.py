"""The `tfmigrate` command line: rewrite (this package) plus verify/env (tfmigrate.runtime)."""
from __future__ import annotations

from typing import Optional

import typer

from tfmigrate.config import STRATEGIES, TARGETS  # noqa: F401  (the CLI's choices, re-exported)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Migrate TF1 Estimator programs to TF2 and prove they train the same.",
)


def _flags_take_no_value() -> None:
    """Recent typer prints a type column for every option, so a flag reads `--diff <bool>` as if it took a
    value. A flag takes none: show no type for it (older typer never showed one)."""
    try:
        from typer.core import TyperOption
    except ImportError:  # pragma: no cover
        return
    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_tfmigrate", False):
        return

    def display_type_rich(self, ctx):
        if getattr(self, "is_flag", False) and not getattr(self, "count", False):
            return None
        return shown(self, ctx)

    display_type_rich._tfmigrate = True
    TyperOption.display_type_rich = display_type_rich


_flags_take_no_value()


def _plain_usage_arguments() -> None:
    """Recent typer writes a required argument as `{paths}...` in the usage line, which reads like a set literal
    or a choice: write PATH... as click, black and ruff do (optional ones stay in brackets)."""
    try:
        from typer.core import TyperArgument
    except ImportError:  # pragma: no cover
        return
    if not hasattr(TyperArgument, "_usage_display_name"):
        return

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.metavar else self.display_name_raw.upper()
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 and not name.endswith("...") else "")

    TyperArgument._usage_display_name = _usage_display_name


_plain_usage_arguments()


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("tfmigrate")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tfmigrate {version()}")
        raise typer.Exit(0)


@app.callback()
def main(
    show_version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                      help="Print tfmigrate's version and exit."),
) -> None:
    """Migrate TF1 Estimator programs to TF2 and prove they train the same."""


def _register_runtime_commands() -> None:
    # verify / env live in the runtime package; they never import TensorFlow in this process.
    from tfmigrate.runtime.commands import register

    register(app)


_register_runtime_commands()


def check_and_diff(check: bool, diff: bool) -> bool:
    """`--check --diff` is black's CI idiom: show the diff and fail if anything would change, which is what --diff
    alone does here (exit 1 on a change). The --check to pass on."""
    return check and not diff


@app.command()
def rewrite(
    paths: list[str] = typer.Argument(..., metavar="PATH", help="Files or directories (recursing into *.py and *.ipynb); '-' reads stdin, writes stdout."),
    target: Optional[str] = typer.Option(None, "--target", metavar="TARGET", help="auto | keras (Model.fit) | ctl (custom training loop). auto picks what runs on the strategy.  \\[default: auto]"),
    strategy: Optional[str] = typer.Option(None, "--strategy", metavar="STRATEGY", help="keep (what the program used) | default | one-device | mirrored | multi-worker-mirrored | parameter-server.  \\[default: keep]"),
    style: Optional[str] = typer.Option(None, "--style", metavar="STYLE", help="auto | native (Keras layers) | shim (the model_fn's forward pass kept as written under TF's model-mapping shim). auto: native where it converts, else the shim.  \\[default: auto]"),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing (exit 1 if a file would change)."),
    check: bool = typer.Option(False, "--check", help="List files that would change; write nothing. With --diff (black's CI idiom): the diff, and exit 1 if a file would change."),
    out: str = typer.Option(None, "--out", metavar="DIR", help="Write the migrated tree to DIR (relative paths kept) instead of in place."),
    exclude: list[str] = typer.Option([], "--exclude", metavar="GLOB", help="Names or globs to skip, added to the configured excludes (repeatable)."),
    force_exclude: Optional[bool] = typer.Option(None, "--force-exclude", help="Apply the excludes to files named on the command line too (pre-commit)."),
    select: list[str] = typer.Option([], "--select", metavar="CODES", help="Report only findings of these codes or prefixes (comma-separated; replaces the configured `select`)."),
    ignore: list[str] = typer.Option([], "--ignore", metavar="CODES", help="Do not report findings of these codes or prefixes (added to the configured `ignore`). Blocking findings still block."),
    report_unused: Optional[bool] = typer.Option(None, "--report-unused-suppressions", help="Report `# tfmigrate: ignore[...]` comments that hid nothing (TFM901; exit 1)."),
    output_format: Optional[str] = typer.Option(None, "--output-format", metavar="FORMAT", help="text | json | sarif | github | junit.  \\[default: text]"),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", metavar="FILE", help="Write the findings (any --output-format) to FILE instead of stdout."),
    statistics: bool = typer.Option(False, "--statistics", help="Count the reported findings per code."),
    config: list[str] = typer.Option([], "--config", metavar="FILE|KEY=VALUE", help="A configuration file (pyproject.toml / tfmigrate.toml), or one KEY=VALUE override (TOML value; repeatable)."),
    isolated: bool = typer.Option(False, "--isolated", help="Ignore every configuration file."),
    jobs: int = typer.Option(0, "--jobs", "-j", metavar="N", show_default=False, help="Worker processes (default: CPU count)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
    explain: bool = typer.Option(False, "--explain", help="Print the migration plan (JSON: each Estimator, its "
                                 "model_fn, config, strategy, target, uses, removed statements, blockers); write nothing."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the result cache."),
    cache_dir: str = typer.Option(None, "--cache-dir", help="Result cache directory (default: $TFMIGRATE_CACHE_DIR, "
                                  "else rewrite-cache under $TFMIGRATE_HOME or the user cache dir, ~/.cache/tfmigrate)."),
    no_prefilter: bool = typer.Option(False, "--no-prefilter",
                                      help="Parse every file. By default a file in which no rule's trigger word "
                                      "appears is not parsed, so a syntax error in it is not reported; this reports it."),
) -> None:
    """Rewrite Estimator programs into TF2 programs.

    Exit codes (the same for stdin, '-'):
    0  every file converted, or nothing to do;
    1  manual work remains (a file is blocked, even by suppressed findings), or --check/--diff would change a file;
    2  error: a file that cannot be read or parsed, a bad option or configuration.

    Settings come from \\[tool.tfmigrate] in the nearest pyproject.toml (or a tfmigrate.toml) above the paths;
    flags override them.
    """
    from tfmigrate.rewrite_command import UsageError, command

    check = check_and_diff(check, diff)
    try:
        code = command(paths, target=target, strategy=strategy, style=style, diff=diff, check=check, out=out, exclude=exclude,
                       force_exclude=force_exclude, select=select, ignore=ignore, report_unused=report_unused,
                       output_format=output_format, output_file=output_file, statistics=statistics, config=config,
                       isolated=isolated, jobs=jobs, quiet=quiet, explain=explain, no_cache=no_cache,
                       cache_dir=cache_dir, no_prefilter=no_prefilter)
    except UsageError as exc:
        raise typer.BadParameter(str(exc)) from None
    raise typer.Exit(code)


@app.command("rules")
def list_rules() -> None:
    """List the rule codes tfmigrate knows, with what each converts (`tfmigrate rule CODE` for one in full)."""
    from tfmigrate.ruledoc import all_rules

    for rule in all_rules():
        typer.echo(f"{rule.code:<8} {rule.name:<28} {rule.summary}")


@app.command("rule")
def show_rule(code: str = typer.Argument(..., metavar="CODE", help="A rule code (TFM601) or name (estimator-driver).")) -> None:
    """Explain one rule: what it converts, why the conversion is exact, what it blocks, an example."""
    from tfmigrate.ruledoc import find, render, suggestions

    rule = find(code)
    if rule is None:
        close = suggestions(code)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        typer.echo(f"error: unknown rule {code!r}{hint} (`tfmigrate rules` lists them)", err=True)
        raise typer.Exit(2)
    typer.echo(render(rule), nl=False)
