"""What the TF run tests share: a program run in a TF environment, and a fixture migrated the way the rewrite does."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from tfmigrate.runtime import envs, forkserver


def run_program(env: str, argv: list[str], work: Path, capture_dir: Path | None = None,
                model_dir: Path | None = None, timeout: float = 600,
                init_ckpt: Path | None = None) -> subprocess.CompletedProcess:
    """`argv` under the `env` environment's Python ("legacy" TF 2.15 or "target"), none of verify's settings
    inherited; `capture_dir` / `model_dir` set the boot's capture and model_dir redirection, `init_ckpt` the target
    boot's initial weights (the original's model.ckpt-0, as verify hands it over)."""
    environ = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    for key in ("TF_CONFIG", "TFMIGRATE_MODEL_DIR", "TFMIGRATE_CAPTURE_DIR", "TFMIGRATE_INIT_CKPT"):
        environ.pop(key, None)
    if capture_dir is not None:
        environ["TFMIGRATE_CAPTURE_DIR"] = str(capture_dir)
    if model_dir is not None:  # the legacy boot writes every Estimator's model_dir here
        environ["TFMIGRATE_MODEL_DIR"] = str(model_dir)
    if init_ckpt is not None:
        environ["TFMIGRATE_INIT_CKPT"] = str(init_ckpt)
    return _run(str(envs.ensure(env)), [str(a) for a in argv], work, environ, timeout)


def _run(python: str, argv: list[str], work: Path, environ: dict, timeout: float) -> subprocess.CompletedProcess:
    """A fork of the environment's Python that imported TensorFlow once (runtime/forkserver.py, one server per
    environment and test process, as verify's tasks in the suite), behaving as `python PROGRAM ARGS` would."""
    out = Path(tempfile.mkdtemp(prefix="tfmigrate-run-"))
    try:
        stdout, stderr = out / "stdout", out / "stderr"
        task = forkserver.spawn([python, *argv], environ, str(stdout), cwd=str(work), stderr=str(stderr))
        if task is None:  # no server (outside the suite's conftest): a plain start
            proc = subprocess.run([python, *argv], cwd=work, env=environ, capture_output=True, text=True,
                                  timeout=timeout)
            return proc
        try:
            code = task.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(task.pid, signal.SIGKILL)
            task.wait()
            raise subprocess.TimeoutExpired(argv, timeout, stdout.read_text(errors="replace"),
                                            stderr.read_text(errors="replace")) from None
        return subprocess.CompletedProcess(argv, code, stdout.read_text(errors="replace"),
                                           stderr.read_text(errors="replace"))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def migrate_case(case: Path, tmp_path: Path, target: str = "keras") -> Path:
    """The fixture's original.py rewritten for `target` into tmp_path; for keras, it must equal the golden."""
    from tfmigrate.engine import Options, migrate_source

    out = tmp_path / f"migrated_{target}.py"
    result = migrate_source((case / "original.py").read_bytes(), str(out), Options(target=target))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    if target == "keras":
        assert result.output == (case / "migrated.py").read_bytes()  # the golden is what the rewrite makes today
    out.write_bytes(result.output)
    return out


def verified_logs(case: Path, tmp_path: Path, target: str) -> tuple[str, str]:
    """The fixture `case` under `tfmigrate verify` (the original on TF 2.15, the migrated program on TF 2.21 from the
    original's initial weights; the Keras golden or the custom loop): the chief logs of both sides, once verify
    found them equivalent."""
    import tomllib

    from tfmigrate.runtime import verify

    steps = tomllib.loads((case / "case.toml").read_text())["steps"]
    migrated = case / "migrated.py" if target == "keras" else migrate_case(case, tmp_path, target)
    settings = verify.Settings(original=case / "original.py", migrated=migrated, workers=1,
                               run_dir=tmp_path / "run", keep=True, args=["--steps", str(steps)])
    result = verify.run(settings, say=lambda *_: None)
    assert result["comparison"]["equivalent"], result["comparison"]["problems"]
    return tuple((tmp_path / "run" / side / "logs" / "chief-0.log").read_text(errors="replace")
                 for side in ("original", "migrated"))
