"""The `tfmigrate` command line: rewrite (this package) plus verify/env (tfmigrate.runtime)."""
from __future__ import annotations

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Migrate TF1 Estimator programs to TF2 and prove they train the same.",
)


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
    target: str = typer.Option("auto", help="auto | keras (Model.fit) | ctl (custom training loop). auto picks what runs on the strategy."),
    strategy: str = typer.Option("keep", help="keep (what the program used) | default | one-device | mirrored | multi-worker-mirrored | parameter-server."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing."),
    check: bool = typer.Option(False, "--check", help="List files that would change; write nothing."),
    out: str = typer.Option(None, "--out", help="Write the migrated tree to DIR (relative paths kept) instead of in place."),
    exclude: list[str] = typer.Option([], "--exclude", help="Directory or file names to skip (repeatable)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes (default: CPU count)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
    explain: bool = typer.Option(False, "--explain", help="Print the migration plan (JSON: each Estimator, its "
                                 "model_fn, config, strategy, target, uses, removed statements, blockers); write nothing."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the result cache."),
    cache_dir: str = typer.Option(None, "--cache-dir", help="Result cache directory (default: $TFMIGRATE_CACHE_DIR, "
                                  "else rewrite-cache under $TFMIGRATE_HOME or the user cache dir, ~/.cache/tfmigrate)."),
    no_prefilter: bool = typer.Option(False, "--no-prefilter", hidden=True,
                                      help="Parse every file, even one no rule's trigger word appears in (a check)."),
) -> None:
    """Rewrite Estimator programs into TF2 programs.

    Exit 0: done (or nothing to do); 1: a file needs manual work, or (--check/--diff) would change; 2: error.
    """
    from tfmigrate.rewrite_command import run_explain, run_rewrite

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
    raise typer.Exit(run_rewrite(paths, target, strategy, diff, check, out, tuple(exclude), jobs or None, quiet,
                                 cache=not no_cache, cache_dir=cache_dir, prefilter=not no_prefilter))


@app.command("rules")
def list_rules() -> None:
    """List the rule codes tfmigrate knows, with what each converts."""
    from tfmigrate.rules import RULES

    for rule in RULES:
        typer.echo(f"{rule.code:<8} {rule.name:<28} {rule.summary}")
