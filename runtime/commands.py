"""CLI glue: `tfmigrate verify` and `tfmigrate env setup|status`. Thin; logic lives in the modules."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console


def register(app: typer.Typer) -> None:
    env_app = typer.Typer(help="Manage the TensorFlow environments verify runs programs in.", no_args_is_help=True)

    @env_app.command("setup")
    def env_setup(
        force: bool = typer.Option(False, "--force", help="Rebuild even if the environment looks ready."),
        only: Optional[str] = typer.Option(None, "--only", help="Only this environment: legacy or target."),
    ) -> None:
        """Create (or adopt, or reuse) the legacy (TF 2.15 + estimator) and target (TF 2.21) venvs."""
        from . import envs

        console = Console()
        try:
            for name in ([only] if only else list(envs.SPECS)):
                envs.ensure(name, progress=lambda m: console.print(m, highlight=False), force=force)
                st = envs.status(name)
                console.print(f"{name}: {st.state} ({st.detail}) at {st.path}", highlight=False)
        except envs.EnvError as exc:
            console.print(f"[red]error:[/] {exc}", highlight=False)
            raise typer.Exit(2)

    @env_app.command("status")
    def env_status() -> None:
        """Show where the environments are and whether they are ready."""
        from . import envs

        console = Console()
        console.print(f"home: {envs.home()}", highlight=False)
        ready = True
        for name in envs.SPECS:
            st = envs.status(name)
            ready &= st.state == "ready"
            console.print(f"{name}: {st.state} — {st.detail} ({st.path}; wants {' '.join(envs.SPECS[name])})",
                          highlight=False)
        raise typer.Exit(0 if ready else 1)

    app.add_typer(env_app, name="env")

    @app.command("verify", context_settings={"allow_interspersed_args": True})
    def verify_cmd(
        original: Path = typer.Argument(..., help="The TF1 Estimator program."),
        migrated: Path = typer.Argument(..., help="The migrated TF2 program."),
        program_args: Optional[List[str]] = typer.Argument(None, help="After --: arguments for both programs."),
        workers: int = typer.Option(2, "--workers", help="Trainers in total (chief + workers); 1 = single process."),
        ps: int = typer.Option(0, "--ps", help="Parameter servers (async: statistical comparison)."),
        evaluator: bool = typer.Option(False, "--evaluator", help="Add an evaluator task."),
        steps: Optional[int] = typer.Option(None, "--steps", help="Compare only the first K steps."),
        repeats: int = typer.Option(3, "--repeats", help="Runs of the original for the async band."),
        rtol: float = typer.Option(1e-5, "--rtol"),
        atol: float = typer.Option(1e-6, "--atol"),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write the full result as JSON."),
        html_out: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report."),
        timeout: float = typer.Option(600.0, "--timeout", help="Seconds per cluster run."),
        run_dir: Optional[Path] = typer.Option(None, "--run-dir", help="Keep run files here (default: a temp dir)."),
    ) -> None:
        """Run ORIGINAL and MIGRATED on local clusters and compare their per-step losses.

        Exit code 0 equivalent, 1 not equivalent, 2 error.
        """
        from . import capture, cluster, envs, report, verify

        console = Console()
        s = verify.Settings(
            original=original.resolve(), migrated=migrated.resolve(), workers=workers, ps=ps,
            evaluator=evaluator, steps=steps, repeats=repeats, rtol=rtol, atol=atol, json_out=json_out,
            html_out=html_out, timeout=timeout, args=list(program_args or []),
            run_dir=run_dir.resolve() if run_dir else None,
        )
        try:
            result = verify.run(s, say=lambda m: console.print(m))
        except (cluster.ClusterError, envs.EnvError, verify.VerifyError, capture.CaptureError, ValueError) as exc:
            console.print("[bold red]error:[/] " + _escape(str(exc)), highlight=False)
            console.print("verdict: error (no comparison)")
            raise typer.Exit(verify.EXIT_ERROR)
        report.print_verdict(result, console)
        if json_out:
            report.write_json(result, json_out)
            console.print(f"json: {json_out}", highlight=False)
        if html_out:
            report.write_html(result, html_out)
            console.print(f"html: {html_out}", highlight=False)
        raise typer.Exit(verify.EXIT_EQUIVALENT if result["comparison"]["equivalent"] else verify.EXIT_DIFFERENT)


def _escape(s: str) -> str:
    from rich.markup import escape

    return escape(s)
