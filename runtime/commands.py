"""CLI glue: `tfmigrate verify` and `tfmigrate env setup|status`. Thin; logic lives in the modules."""
from __future__ import annotations

import contextlib
import os
import signal
import sys

from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

# Not a terminal (a CI log, a pipe): rich would assume 80 columns and squeeze tables into columns of `…`, so lines
# get this width instead (COLUMNS still decides when set); no table of verify reaches it.
PIPE_WIDTH = 1000


def make_console() -> Console:
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return Console()
    return Console(width=PIPE_WIDTH)


def register(app: typer.Typer) -> None:
    """The runtime's commands: env, verify, launch-spec, checkpoint."""
    _env(app)
    _launch_spec(app)
    _checkpoint(app)
    _verify(app)


def _env(app: typer.Typer) -> None:
    env_app = typer.Typer(help="Manage the TensorFlow environments verify runs programs in.", no_args_is_help=True)

    @env_app.command("setup")
    def env_setup(
        force: bool = typer.Option(False, "--force", help="Rebuild even if the environment looks ready."),
        only: Optional[str] = typer.Option(None, "--only", help="Only this environment: legacy or target."),
    ) -> None:
        """Create (or adopt, or reuse) the legacy (TF 2.15 + estimator) and target (TF 2.21) venvs."""
        from . import envs

        console = make_console()
        names = [only] if only else list(envs.SPECS)
        todo = [n for n in names if n in envs.SPECS and (force or envs.status(n).state != "ready")]
        if todo:  # before the first download: what it will cost
            console.print(f"building {', '.join(todo)}: {envs.estimate(todo)}", highlight=False)
        try:
            for name in names:
                envs.ensure(name, progress=lambda m: console.print(m, highlight=False), force=force,
                            live=live_status(console))
                st = envs.status(name)
                console.print(f"{name}: {st.state} ({st.detail}) at {st.path}", highlight=False)
        except envs.EnvError as exc:
            console.print(f"[red]error:[/] {exc}", highlight=False)
            raise typer.Exit(2)

    @env_app.command("status")
    def env_status() -> None:
        """Show where the environments are and whether they are ready."""
        from . import envs

        console = make_console()
        console.print(f"home: {envs.home()}", highlight=False)
        ready = True
        for name in envs.SPECS:
            st = envs.status(name)
            ready &= st.state == "ready"
            console.print(f"{name}: {st.state} — {st.detail} ({st.path}; wants {' '.join(envs.SPECS[name])})",
                          highlight=False)
        raise typer.Exit(0 if ready else 1)

    @env_app.command("key")
    def env_key() -> None:
        """Print a cache key for the environments (CI: cache ENVS-DIR under this key; see docs/ci.md)."""
        from . import envs

        typer.echo(envs.cache_key())

    @env_app.command("path")
    def env_path() -> None:
        """Print the directory the environments live in (the path a CI cache should hold)."""
        from . import envs

        typer.echo(str(envs.envs_dir()))

    app.add_typer(env_app, name="env")


def _verify(app: typer.Typer) -> None:
    @app.command("verify", context_settings={"allow_interspersed_args": True})
    def verify_cmd(
        original: Optional[Path] = typer.Argument(None, help="The TF1 Estimator program (a .py file)."),
        migrated: Optional[Path] = typer.Argument(None, help="The migrated TF2 program (a .py file)."),
        program_args: Optional[List[str]] = typer.Argument(None, help="After --: arguments for both programs."),
        workers: Optional[int] = typer.Option(None, "--workers", metavar="N", help="Trainers in total (chief + workers); 1 = single process.  \\[default: 2]"),
        ps: Optional[int] = typer.Option(None, "--ps", metavar="M", help="Parameter servers (async: statistical comparison).  \\[default: 0]"),
        evaluator: Optional[bool] = typer.Option(None, "--evaluator", help="Add an evaluator task."),
        steps: Optional[int] = typer.Option(None, "--steps", metavar="K", help="Compare only the first K steps."),
        repeats: Optional[int] = typer.Option(None, "--repeats", metavar="R", help="Runs of the original for the statistical band.  \\[default: 3 with --ps, 10 with --statistical]"),
        statistical: Optional[bool] = typer.Option(None, "--statistical/--stepwise", help="Compare statistically (like --ps) a synchronous program whose own runs differ, e.g. numpy_input_fn(shuffle=True): picked by itself when the rewrite's notes on ORIGINAL say so; --stepwise compares step by step anyway."),
        rtol: Optional[float] = typer.Option(None, "--rtol", metavar="X", help="Relative tolerance per step.  \\[default: 1e-05]"),
        atol: Optional[float] = typer.Option(None, "--atol", metavar="Y", help="Absolute tolerance per step.  \\[default: 1e-06]"),
        json_out: Optional[Path] = typer.Option(None, "--json", metavar="FILE", help="Write the full result as JSON."),
        html_out: Optional[Path] = typer.Option(None, "--html", metavar="FILE", help="Write a self-contained HTML report."),
        timeout: Optional[float] = typer.Option(None, "--timeout", metavar="S", help="Seconds per cluster run.  \\[default: 600]"),
        run_dir: Optional[Path] = typer.Option(None, "--run-dir", metavar="DIR", help="Keep run files here (default: a temp dir, removed after an equivalent verdict)."),
        keep: bool = typer.Option(False, "--keep", help="Keep the temporary run dir (logs, captures, checkpoints) even when equivalent."),
        all_cases: bool = typer.Option(False, "--all", help="Run every case declared as \\[\\[tool.tfmigrate.verify]] (or \\[\\[verify]] in tfmigrate.toml)."),
        case: List[str] = typer.Option([], "--case", metavar="NAME", help="With --all: only this case (repeatable)."),
        junit_xml: Optional[Path] = typer.Option(None, "--junit-xml", metavar="FILE", help="With --all: write a JUnit XML report."),
        jobs: int = typer.Option(0, "--jobs", "-j", metavar="N", show_default=False, help="With --all: cases at once (default: as many as the cores hold)."),
        config: List[str] = typer.Option([], "--config", metavar="FILE|KEY=VALUE", help="A configuration file, or one KEY=VALUE override (repeatable)."),
        isolated: bool = typer.Option(False, "--isolated", help="Ignore every configuration file."),
    ) -> None:
        """Run ORIGINAL and MIGRATED on local clusters and compare their per-step losses.

        Exit code 0 equivalent, 1 not equivalent, 2 error. With --all: 0 every case reached its expected
        verdict, 1 some did not, 2 some could not run. Defaults come from \\[tool.tfmigrate.verify-defaults].
        """
        from tfmigrate.config import ConfigError, resolve

        from . import capture, cluster, envs, report, suite, verify

        console = make_console()
        try:
            if all_cases:
                if original or migrated:
                    raise ConfigError("--all runs the declared cases: give no ORIGINAL / MIGRATED")
                cfg = resolve(["."], config, isolated)
            else:
                if original is None or migrated is None:
                    raise ConfigError("give ORIGINAL and MIGRATED (two program files), or --all to run the cases "
                                      "declared in [[tool.tfmigrate.verify]]")
                cfg = resolve([str(original)], config, isolated)
        except ConfigError as exc:
            console.print("[bold red]error:[/] " + _escape(str(exc)), highlight=False)
            raise typer.Exit(verify.EXIT_ERROR)
        if all_cases:
            _run_all(cfg, console, case, jobs or None, run_dir, junit_xml)
            return
        d = {**suite.DEFAULTS, **cfg.get("verify-defaults", {})}
        pick = lambda cli, key: cli if cli is not None else d[key]  # noqa: E731
        needed, why = verify.trainers_for(original) if not pick(ps, "ps") else (None, "")
        if needed is not None and workers is None and "workers" not in cfg.get("verify-defaults", {}):
            workers = needed  # no strategy: a cluster would only run copies of the program (the original may hang)
            console.print(f"note: {_escape(why)}: verify runs one process (--workers 1); --workers N runs a "
                          "cluster, --ps M an asynchronous parameter-server job", highlight=False)
        elif needed is not None and (workers or d["workers"]) > 1:
            console.print(f"note: {_escape(why)}: on a {workers or d['workers']}-task cluster without parameter "
                          "servers each task runs its own copy of the program (the TF1 original may wait for ps "
                          "tasks until --timeout); --workers 1 runs it as it trains", highlight=False)
        said = verify.rewrite_notes(original)
        if "tpu" in said:  # a TPUEstimator's TPU path: say which path this machine compares
            console.print(f"note: {_escape(said['tpu'])}", highlight=False)
        if statistical is None and not pick(ps, "ps") and "statistical" not in cfg.get("verify-defaults", {}):
            if "statistical" in said:
                statistical = True  # the original's own runs differ: a step-by-step comparison would fail by design
                console.print(f"note: comparing statistically (--statistical), as the rewrite's note says: "
                              f"{_escape(said['statistical'])}; --stepwise compares step by step", highlight=False)
            elif "random" in said:
                console.print(f"note: the rewrite's note says the migrated program draws other random numbers "
                              f"({_escape(said['random'])}): losses are not expected to agree step by step",
                              highlight=False)
        s = verify.Settings(
            original=original.resolve(), migrated=migrated.resolve(), workers=pick(workers, "workers"),
            ps=pick(ps, "ps"), evaluator=pick(evaluator, "evaluator"), steps=pick(steps, "steps"),
            repeats=suite.repeats_for(pick(statistical, "statistical"), repeats,
                                      cfg.get("verify-defaults", {}).get("repeats")),
            statistical=pick(statistical, "statistical"), rtol=pick(rtol, "rtol"), atol=pick(atol, "atol"), json_out=json_out,
            html_out=html_out, timeout=pick(timeout, "timeout"),
            args=list(program_args) if program_args else list(d["args"]),
            run_dir=run_dir.resolve() if run_dir else None, keep=keep,
        )
        if html_out:
            from . import charts

            try:
                charts.require()  # before the run, not after it
            except charts.ChartsUnavailable as exc:
                console.print("[bold red]error:[/] " + _escape(str(exc)), highlight=False)
                raise typer.Exit(verify.EXIT_ERROR)
        try:
            # SIGTERM stops the run like Ctrl-C: every task's process group is killed before we exit
            with cluster.stop_on_signals():
                result = verify.run(s, say=lambda m: console.print(m), live=live_status(console))
        except KeyboardInterrupt as exc:
            _interrupted(console, getattr(exc, "signum", signal.SIGINT))
        except cluster.ClusterError as exc:
            if exc.kind == "interrupt":
                _interrupted(console, exc.signum or signal.SIGINT)
            console.print("[bold red]error:[/] " + _escape(str(exc)), highlight=False)
            console.print("verdict: error (no comparison)")
            raise typer.Exit(verify.EXIT_ERROR)
        except (envs.EnvError, verify.VerifyError, capture.CaptureError, ValueError) as exc:
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


def _launch_spec(app: typer.Typer) -> None:
    @app.command("launch-spec", context_settings={"allow_interspersed_args": True})
    def launch_spec(
        migrated: Path = typer.Argument(..., metavar="MIGRATED", help="The migrated TF2 program (a .py file)."),
        program_args: Optional[List[str]] = typer.Argument(None, metavar="ARGS", help="After --: arguments for the program."),
        engine: str = typer.Option(..., "--engine", metavar="ENGINE", help="tfjob (Kubeflow TFJob YAML) | shell (one command per task)."),
        workers: int = typer.Option(2, "--workers", metavar="N", help="Trainers in total: chief + N-1 workers."),
        ps: Optional[int] = typer.Option(None, "--ps", metavar="M", help="Parameter servers.  \\[default: 1 for a ParameterServerStrategy program, else 0]"),
        evaluator: bool = typer.Option(False, "--evaluator", help="Add an evaluator task."),
        image: Optional[str] = typer.Option(None, "--image", metavar="IMG", help="tfjob (required): the container image holding the program."),
        name: Optional[str] = typer.Option(None, "--name", metavar="NAME", help="tfjob: the job name (default: from the file name)."),
        namespace: Optional[str] = typer.Option(None, "--namespace", metavar="NS", help="tfjob: metadata.namespace."),
        restart_policy: str = typer.Option("OnFailure", "--restart-policy", metavar="POLICY", help="tfjob: OnFailure | Never | Always | ExitCode."),
        program_path: Optional[str] = typer.Option(None, "--program-path", metavar="PATH", help="The program's path where it runs (in the image; default: the path as given)."),
        workdir: Optional[str] = typer.Option(None, "--workdir", metavar="DIR", help="tfjob: the container's working directory."),
        python: str = typer.Option("python", "--python", metavar="EXE", help="The interpreter to run the program with."),
        hosts: Optional[str] = typer.Option(None, "--hosts", metavar="H1,H2,...", help="shell: one host[:port] per cluster member (chief, workers, ps); default localhost ports."),
        port: int = typer.Option(2222, "--port", metavar="P", help="The task port (tfjob: containerPort; shell: first/default port)."),
        output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write to FILE instead of stdout."),
    ) -> None:
        """Write how to run MIGRATED on a cluster engine: a Kubeflow TFJob manifest or per-task shell commands.

        TFJob pods get TF_CONFIG from the training-operator (cluster: the chief, worker and ps service addresses; task: the pod's type and index): what the migrated program's strategy reads.
        """
        from . import launch

        program = program_path or migrated.as_posix()
        args = list(program_args or [])
        try:
            if not migrated.is_file():
                raise launch.LaunchSpecError(f"{migrated}: no such program file")
            if engine not in ("tfjob", "shell"):
                raise launch.LaunchSpecError(f"--engine {engine!r}: choose tfjob or shell")
            ps, notes = launch.check_layout(migrated, launch.program_kind(migrated), ps)
            if engine == "tfjob" and not image:
                raise launch.LaunchSpecError("--engine tfjob needs --image IMG: the container image that holds the "
                                             "program and its dependencies")
            if engine == "tfjob" and program_path is None and migrated.is_absolute():
                raise launch.LaunchSpecError(f"{migrated} is a path on this machine, not in the image: give "
                                             "--program-path PATH (where the program is in the image), or a "
                                             "relative MIGRATED with --workdir")
            for note in notes:
                typer.echo(note, err=True)
            if engine == "tfjob":
                text = launch.to_yaml(launch.tfjob(
                    name or launch.job_name(program), program, args, workers, ps, evaluator, image=image,
                    namespace=namespace, restart_policy=restart_policy, workdir=workdir, python=python, port=port))
            elif engine == "shell":
                text = launch.shell(program, args, workers, ps, evaluator,
                                    hosts=[h for h in (hosts or "").split(",") if h] or None, port=port, python=python)
        except launch.LaunchSpecError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2)
        if output:
            output.write_text(text)
            typer.echo(f"wrote {output}", err=True)
        else:
            typer.echo(text, nl=False)


def _checkpoint(app: typer.Typer) -> None:
    checkpoint_app = typer.Typer(help="Carry an Estimator's checkpoints over to the migrated program.",
                                 no_args_is_help=True)

    @checkpoint_app.command("convert", context_settings={"allow_interspersed_args": True})
    def convert_cmd(
        model_dir: Path = typer.Argument(..., metavar="MODEL_DIR", help="The Estimator's model_dir (its latest checkpoint is read)."),
        program_args: Optional[List[str]] = typer.Argument(None, metavar="ARGS", help="After --: arguments for the program (as it is run for training)."),
        program: Path = typer.Option(..., "--program", metavar="MIGRATED.py", help="The migrated TF2 program whose model the checkpoint is for."),
        out: Path = typer.Option(..., "--out", metavar="DIR", help="A new directory for the TF2 checkpoint (the migrated program's model_dir)."),
        checkpoint: Optional[Path] = typer.Option(None, "--checkpoint", metavar="PREFIX", help="This TF1 checkpoint (model_dir/model.ckpt-N) instead of the latest."),
        output_format: str = typer.Option("text", "--output-format", metavar="FORMAT", help="text | json."),
        timeout: float = typer.Option(600.0, "--timeout", metavar="S", help="Seconds the program may take to build its model."),
    ) -> None:
        """Write a TF2 checkpoint of the migrated model from an Estimator model_dir, so training goes on from its step.

        The migrated program runs in the target env up to where its model and optimizer exist (nothing trains);
        every weight takes the TF1 checkpoint's value of its TF1 name, the optimizer slots theirs (Adagrad, Adam
        with beta powers, Momentum, Ftrl, RMSProp, Adadelta), global_step becomes optimizer.iterations; a
        partitioned variable (saved whole by TF1) fills the full variable, and restores into the shards of a
        parameter-server run. Prints what mapped; a missing, extra or reshaped variable is listed and nothing is
        written. Exit code 0 written, 1 mismatch, 2 error.
        """
        import json

        from . import checkpoint as ckpt
        from . import envs

        if output_format not in ("text", "json"):
            typer.echo(f"error: --output-format {output_format!r}: choose text or json", err=True)
            raise typer.Exit(ckpt.EXIT_ERROR)
        try:
            doc = ckpt.convert(model_dir, program, out, checkpoint=checkpoint, args=list(program_args or []),
                               timeout=timeout)
        except (ckpt.ConvertError, envs.EnvError) as exc:
            if output_format == "json":
                typer.echo(json.dumps({"error": str(exc), "exit": ckpt.EXIT_ERROR}, indent=1))
            else:
                typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(ckpt.EXIT_ERROR)
        typer.echo(json.dumps(doc, indent=1) if output_format == "json" else ckpt.table(doc), nl=output_format == "json")
        raise typer.Exit(doc["exit"])

    app.add_typer(checkpoint_app, name="checkpoint")


def _interrupted(console: Console, signum: int) -> None:
    """One line, and the shell's exit code for a signal (130 Ctrl-C, 143 SIGTERM)."""
    console.print(f"interrupted ({signal.Signals(signum).name}): every task stopped, no verdict", highlight=False)
    raise typer.Exit(128 + signum)


def _run_all(cfg, console: Console, only, jobs, run_dir, junit_xml) -> None:
    """`verify --all`: build the environments once, run the cases, print one table, exit with one code."""
    from . import cluster, envs, suite

    try:
        cases = suite.load_cases(cfg)
        if cases:
            envs.ensure_all(progress=lambda m: console.print(f"env {m}", highlight=False), live=live_status(console))
        with cluster.stop_on_signals():
            code, results = suite.run_suite(cfg, lambda m: console.print(m, highlight=False), jobs=jobs, only=only,
                                            run_dir=run_dir, junit_xml=junit_xml)
    except KeyboardInterrupt as exc:
        _interrupted(console, getattr(exc, "signum", signal.SIGINT))
    except (suite.SuiteError, envs.EnvError) as exc:
        console.print("[bold red]error:[/] " + _escape(str(exc)), highlight=False)
        raise typer.Exit(suite.EXIT_ERROR)
    console.print(suite.table(results, wide=console.width > 120))
    console.print(suite.summary_line(results), highlight=False)
    if junit_xml:
        console.print(f"junit: {junit_xml}", highlight=False)
    raise typer.Exit(code)


def live_status(console: Console):
    """On a terminal, a spinner line showing the current build step (pip's); None elsewhere (CI: plain lines)."""
    if not console.is_terminal:
        return None

    @contextlib.contextmanager
    def live(title: str):
        with console.status(_escape(title)) as status:
            yield lambda text: status.update(_escape(text))

    return live


def _escape(s: str) -> str:
    from rich.markup import escape

    return escape(s)
