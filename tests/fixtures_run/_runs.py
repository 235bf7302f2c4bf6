"""What the TF run tests share: a program run in a TF environment, and a fixture migrated the way the rewrite does."""
from __future__ import annotations

import json
import os
import subprocess
import atexit
import shutil
import tempfile
from pathlib import Path

from tfmigrate.runtime import envs


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
    return _server(env, environ).run([str(a) for a in argv], work, environ, timeout)


# The per-run keys: read by the programs and boots at run time, so one server (started without them) serves them all
RUN_KEYS = ("TF_CONFIG", "TFMIGRATE_MODEL_DIR", "TFMIGRATE_CAPTURE_DIR", "TFMIGRATE_INIT_CKPT")
# What TensorFlow or the interpreter may read while importing (before the fork): a server is kept per value of these.
# Everything else (e.g. each test's own TFMIGRATE_CACHE_DIR) only reaches the program through the child's environ.
IMPORT_TIME = ("TF_", "CUDA_", "PYTHON", "OMP_", "KMP_", "MKL_", "LD_", "TFMIGRATE_")
_SERVERS: dict = {}


def _import_env(environ: dict) -> dict:
    return {k: v for k, v in environ.items()
            if k.startswith(IMPORT_TIME) and k not in RUN_KEYS and k != "TFMIGRATE_CACHE_DIR"}


class _ForkServer:
    """One `_forkserver.py` per environment (and base environment variables) per pytest process: a program runs
    in a fork of a Python that has already imported TensorFlow, instead of paying the import again."""

    def __init__(self, env: str, environ: dict):
        base = {k: v for k, v in environ.items() if k not in RUN_KEYS and k != "TFMIGRATE_CACHE_DIR"}
        self.proc = subprocess.Popen([str(envs.ensure(env)), str(Path(__file__).with_name("_forkserver.py"))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=base, text=True)
        self.out = Path(tempfile.mkdtemp(prefix="tfmigrate-forkserver-"))
        atexit.register(shutil.rmtree, self.out, True)
        self.count = 0

    def run(self, argv: list[str], work: Path, environ: dict, timeout: float) -> subprocess.CompletedProcess:
        self.count += 1
        stdout, stderr = self.out / f"{self.count}.out", self.out / f"{self.count}.err"
        request = {"argv": argv, "cwd": str(work), "env": environ, "timeout": timeout,
                   "stdout": str(stdout), "stderr": str(stderr)}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError(f"the fork server of {argv[0]} died (exit {self.proc.wait()})")
        code = json.loads(reply)["returncode"]
        out, err = (p.read_text(errors="replace") for p in (stdout, stderr))
        stdout.unlink()
        stderr.unlink()
        if code is None:
            raise subprocess.TimeoutExpired(argv, timeout, out, err)
        return subprocess.CompletedProcess(argv, code, out, err)


def _server(env: str, environ: dict) -> _ForkServer:
    key = (env, tuple(sorted(_import_env(environ).items())))
    if key not in _SERVERS or _SERVERS[key].proc.poll() is not None:
        _SERVERS[key] = _ForkServer(env, environ)
    return _SERVERS[key]


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
