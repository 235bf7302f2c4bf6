"""The `tfmigrate` command line: rewrite (this package) plus verify/env (tfmigrate.runtime)."""
from __future__ import annotations

from typing import Optional

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
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
    show_version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                      help="Print tfmigrate's version and exit."),
) -> None:
    """Migrate TF1 Estimator programs to TF2 and prove they train the same."""


def _register_runtime_commands() -> None:
    # verify / env live in the runtime package; they never import TensorFlow in this process.
    from tfmigrate.runtime.commands import register

    register(app)


_register_runtime_commands()


TARGETS = ("auto", "keras", "ctl")
STRATEGIES = ("keep", "default", "one-device", "mirrored", "multi-worker-mirrored", "parameter-server")


@app.command()
def rewrite(
    paths: list[str] = typer.Argument(..., help="Files or directories (recursing into *.py); '-' reads stdin, writes stdout."),
    target: Optional[str] = typer.Option(None, "--target", metavar="TARGET", help="auto | keras (Model.fit) | ctl (custom training loop). auto picks what runs on the strategy.  [default: auto]"),
    strategy: Optional[str] = typer.Option(None, "--strategy", metavar="STRATEGY", help="keep (what the program used) | default | one-device | mirrored | multi-worker-mirrored | parameter-server.  [default: keep]"),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing."),
    check: bool = typer.Option(False, "--check", help="List files that would change; write nothing."),
    out: str = typer.Option(None, "--out", metavar="DIR", help="Write the migrated tree to DIR (relative paths kept) instead of in place."),
    exclude: list[str] = typer.Option([], "--exclude", metavar="GLOB", help="Names or globs to skip, added to the configured excludes (repeatable)."),
    jobs: int = typer.Option(0, "--jobs", "-j", metavar="N", help="Worker processes (default: CPU count)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
    explain: bool = typer.Option(False, "--explain", help="Print the migration plan (JSON: each Estimator, its "
                                 "model_fn, config, strategy, target, uses, removed statements, blockers); write nothing."),
) -> None:
    """Rewrite Estimator programs into TF2 programs.

    Exit codes (the same for stdin, '-'):
    0  every file converted, or nothing to do;
    1  manual work remains (a file is blocked), or --check/--diff would change a file;
    2  error: a file that cannot be read or parsed, a bad option or configuration.
    """
    from tfmigrate.rewrite_command import RewriteSettings, run_explain, run_rewrite

    target = target or "auto"
    strategy = strategy or "keep"
    if target not in TARGETS:
        raise typer.BadParameter(f"--target must be one of {', '.join(TARGETS)}")
    if strategy not in STRATEGIES:
        raise typer.BadParameter(f"--strategy must be one of {', '.join(STRATEGIES)}")
    if diff and check:
        raise typer.BadParameter("--diff and --check are exclusive")
    if out and (diff or check):
        raise typer.BadParameter("--out writes files; it cannot be combined with --diff or --check")
    if explain:
        raise typer.Exit(run_explain(paths, target, strategy, tuple(exclude)))
    settings = RewriteSettings(target=target, strategy=strategy, diff=diff, check=check, out=out,
                               extend_exclude=tuple(exclude), jobs=jobs or None, quiet=quiet)
    raise typer.Exit(run_rewrite(paths, settings))


@app.command("rules")
def list_rules() -> None:
    """List the rule codes tfmigrate knows, with what each converts."""
    from tfmigrate.rules import RULES
    from tfmigrate.suppressions import ENGINE_RULES

    for rule in (*RULES, *ENGINE_RULES):
        typer.echo(f"{rule.code:<8} {rule.name:<28} {rule.summary}")
