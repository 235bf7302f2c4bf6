"""The two TensorFlow environments `verify` runs programs in (venvs under the tfmigrate cache).

legacy  tensorflow-cpu==2.15.1 + tensorflow-estimator==2.15.0   (needs Python <= 3.11)
target  tensorflow-cpu==2.21.*  + tf-keras==2.21.*

Each venv holds a marker ``tfmigrate-env.json`` (spec + python version + installed versions); a
mismatch rebuilds the venv, a match reuses it. A venv made by hand whose packages already match the
spec is adopted (marker written) instead of rebuilt. Never imports TensorFlow in this process.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tfmigrate.home import home  # noqa: F401  (one definition, light enough for `rewrite`'s result cache)


SPECS: dict[str, list[str]] = {
    "legacy": ["tensorflow-cpu==2.15.1", "tensorflow-estimator==2.15.0"],
    "target": ["tensorflow-cpu==2.21.*", "tf-keras==2.21.*"],
}
# What a build costs, measured (2 cores, Linux x86-64, Python 3.11): disk in GB, and build seconds from a local
# package mirror / from PyPI over the network (`tfmigrate env setup` prints them before it starts)
BUILD_COST = {"legacy": (1.3, 55, 90), "target": (2.2, 100, 125)}


def estimate(names: list[str]) -> str:
    gb = sum(BUILD_COST[n][0] for n in names)
    fast, slow = (sum(BUILD_COST[n][i] for n in names) for i in (1, 2))
    return (f"~{gb:.1f} GB on disk, ~{round(fast / 60 * 2) / 2:g}-{round(slow / 60 * 2) / 2:g} min to build "
            f"({', '.join(names)}; once, then cached)")


# Python versions TF can be installed on (from the wheels published on PyPI)
MAX_PYTHON = {"legacy": (3, 11), "target": (3, 13)}
MIN_PYTHON = {"legacy": (3, 9), "target": (3, 10)}
PYTHON_OVERRIDE = {"legacy": "TFMIGRATE_LEGACY_PYTHON", "target": "TFMIGRATE_TARGET_PYTHON"}
MARKER = "tfmigrate-env.json"
MARKER_VERSION = 1

Progress = Callable[[str], None]


class EnvError(RuntimeError):
    pass


def envs_dir() -> Path:
    return home() / "envs"


def env_path(name: str) -> Path:
    return envs_dir() / name


def env_python(name: str) -> Path:
    return env_path(name) / "bin" / "python"


def _py_version(python: str | os.PathLike) -> tuple[int, int, int] | None:
    try:
        out = subprocess.run([str(python), "-c", "import sys; print(*sys.version_info[:3])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return tuple(int(x) for x in out.stdout.split())  # type: ignore[return-value]


def _ok_version(name: str, v: tuple) -> bool:
    return MIN_PYTHON[name] <= tuple(v[:2]) <= MAX_PYTHON[name]


def base_python(name: str) -> tuple[str, tuple]:
    """The interpreter to build env `name` with (override by env var, else this one, else python3.X on PATH)."""
    var = PYTHON_OVERRIDE[name]
    override = os.environ.get(var)
    if override:
        v = _py_version(override)
        if v is None:
            raise EnvError(f"{var}={override} is not a runnable Python interpreter")
        if not _ok_version(name, v):
            raise EnvError(f"{var}={override} is Python {'.'.join(map(str, v))}; the {name} env needs "
                           f"Python {'.'.join(map(str, MIN_PYTHON[name]))}–{'.'.join(map(str, MAX_PYTHON[name]))}")
        return override, v
    here = tuple(sys.version_info[:3])
    if _ok_version(name, here):
        return sys.executable, here
    hi = MAX_PYTHON[name]
    for minor in range(hi[1], MIN_PYTHON[name][1] - 1, -1):
        exe = shutil.which(f"python{hi[0]}.{minor}")
        if exe:
            v = _py_version(exe)
            if v and _ok_version(name, v):
                return exe, v
    specs = " + ".join(SPECS[name])
    raise EnvError(
        f"the {name} environment ({specs}) needs Python "
        f"{'.'.join(map(str, MIN_PYTHON[name]))}–{'.'.join(map(str, MAX_PYTHON[name]))}, "
        f"but this is Python {'.'.join(map(str, here[:2]))} and no python{hi[0]}.{hi[1]} was found on PATH. "
        f"Install python{hi[0]}.{hi[1]} (e.g. `apt-get install python{hi[0]}.{hi[1]} python{hi[0]}.{hi[1]}-venv`, "
        f"pyenv or uv) or set {var}=/path/to/python{hi[0]}.{hi[1]}."
    )


def version_matches(spec: str, installed: str | None) -> bool:
    """`pkg==X.Y.*` / `pkg==X.Y.Z` against an installed version string."""
    if installed is None:
        return False
    _, _, want = spec.partition("==")
    if want.endswith(".*"):
        return installed == want[:-2] or installed.startswith(want[:-1])
    return installed == want


def _pkg(spec: str) -> str:
    return spec.split("==")[0]


def installed_versions(python: Path, packages: list[str]) -> dict[str, str | None]:
    code = (
        "import json, sys, importlib.metadata as m\n"
        "out = {}\n"
        "for p in sys.argv[1:]:\n"
        "    try: out[p] = m.version(p)\n"
        "    except m.PackageNotFoundError: out[p] = None\n"
        "print(json.dumps(out))\n"
    )
    try:
        r = subprocess.run([str(python), "-c", code, *packages], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {p: None for p in packages}
    if r.returncode != 0:
        return {p: None for p in packages}
    return json.loads(r.stdout)


def _extra_pkgs(name: str) -> list[str]:
    return [_pkg(s) for s in SPECS[name]] + ["tensorflow", "keras", "numpy"]


def read_marker(name: str) -> dict | None:
    try:
        return json.loads((env_path(name) / MARKER).read_text())
    except (OSError, ValueError):
        return None


@dataclass
class EnvStatus:
    name: str
    path: Path
    state: str  # ready | missing | stale | unmarked
    detail: str
    marker: dict | None


def status(name: str) -> EnvStatus:
    path = env_path(name)
    marker = read_marker(name)
    py = env_python(name)
    if not py.exists():
        return EnvStatus(name, path, "missing", "not built", None)
    if marker is None:
        return EnvStatus(name, path, "unmarked", "venv exists without a tfmigrate marker (setup adopts or rebuilds it)", None)
    if marker.get("spec") != SPECS[name] or marker.get("marker_version") != MARKER_VERSION:
        return EnvStatus(name, path, "stale", f"built for {marker.get('spec')}, want {SPECS[name]}", marker)
    v = _py_version(py)
    if v is None or ".".join(map(str, v)) != marker.get("python"):
        return EnvStatus(name, path, "stale", f"python changed ({marker.get('python')} -> {v})", marker)
    return EnvStatus(name, path, "ready", ", ".join(f"{k} {v}" for k, v in (marker.get("versions") or {}).items() if v), marker)


def _write_marker(name: str, python_version: tuple, versions: dict) -> dict:
    doc = {"marker_version": MARKER_VERSION, "name": name, "spec": SPECS[name],
           "python": ".".join(map(str, python_version)), "versions": versions}
    (env_path(name) / MARKER).write_text(json.dumps(doc, indent=1))
    return doc


@contextlib.contextmanager
def _lock(name: str):
    envs_dir().mkdir(parents=True, exist_ok=True)
    with open(envs_dir() / f".{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _adoptable(name: str) -> tuple | None:
    py = env_python(name)
    if not py.exists():
        return None
    v = _py_version(py)
    if v is None or not _ok_version(name, v):
        return None
    got = installed_versions(py, [_pkg(s) for s in SPECS[name]])
    if all(version_matches(s, got.get(_pkg(s))) for s in SPECS[name]):
        return v
    return None


Live = Callable[[str], "contextlib.AbstractContextManager[Callable[[str], None]]"]
"""A live display for one build step on a terminal: `with live(title) as update: update("current step")`."""

_PIP_STEP = re.compile(r"^\s*(Collecting|Downloading|Using cached|Installing collected packages|"
                       r"Successfully installed|Building wheel|Processing)\b")


def pip_step(line: str) -> str | None:
    """The lines of pip's output worth showing (what it fetches and installs), shortened; None for the rest."""
    line = line.strip()
    if not _PIP_STEP.match(line):
        return None
    line = re.sub(r"https?://\S+/", "", line)
    return line if len(line) <= 110 else line[:107] + "..."


def _run_logged(cmd: list[str], log: Path, progress: Progress, what: str,
                on_line: Callable[[str], None] | None = None) -> None:
    """Run `cmd`, everything into `log`; each output line also goes to `on_line` as it comes."""
    with open(log, "a") as fh:
        fh.write("$ " + " ".join(cmd) + "\n")
        fh.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                text=True, errors="replace", bufsize=1)
        try:
            for line in proc.stdout:
                fh.write(line)
                if on_line is not None:
                    on_line(line.rstrip("\n"))
        except BaseException:  # Ctrl-C / SIGTERM: stop pip now rather than wait for its build to finish
            proc.terminate()
            raise
        finally:
            proc.stdout.close()
            rc = proc.wait()
    if rc != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise EnvError(f"{what} failed (exit {rc}); log: {log}\n{tail}")


def _step(name: str, what: str, cmd: list[str], log: Path, progress: Progress, live: Live | None) -> None:
    """One build step. On a terminal (`live`): a status line showing pip's current step. Elsewhere (CI, pipes):
    plain lines, one per package pip fetches or installs, with the time since the step began."""
    t0 = time.monotonic()
    if live is not None:
        with live(f"{name}: {what}") as update:
            def on_line(line: str) -> None:
                step = pip_step(line)
                if step:
                    update(f"{name}: {what} — {step} ({time.monotonic() - t0:.0f}s)")

            _run_logged(cmd, log, progress, what, on_line)
        progress(f"{name}: {what}: done in {time.monotonic() - t0:.0f}s")
        return
    progress(f"{name}: {what}")

    def plain(line: str) -> None:
        step = pip_step(line)
        if step:
            progress(f"{name}: [{time.monotonic() - t0:4.0f}s] {step}")

    _run_logged(cmd, log, progress, what, plain)
    progress(f"{name}: {what}: done in {time.monotonic() - t0:.0f}s")


def ensure(name: str, progress: Progress = lambda s: None, force: bool = False, live: Live | None = None) -> Path:
    """Make env `name` ready (reuse / adopt / build). Returns the env's python. `progress` gets plain lines;
    `live`, when given (a terminal), shows pip's current step in place instead of one line per package."""
    if name not in SPECS:
        raise EnvError(f"unknown environment {name!r}")
    with _lock(name):
        st = status(name)
        if st.state == "ready" and not force:
            return env_python(name)
        if st.state in ("unmarked", "stale") and not force:
            v = _adoptable(name)
            if v is not None:
                versions = installed_versions(env_python(name), _extra_pkgs(name))
                _write_marker(name, v, versions)
                progress(f"{name}: adopted existing venv at {env_path(name)}")
                return env_python(name)
        base, v = base_python(name)
        path = env_path(name)
        log = envs_dir() / f"{name}.log"
        progress(f"{name}: building venv at {path} with Python {'.'.join(map(str, v))} "
                 f"({' '.join(SPECS[name])}; {estimate([name])}; log {log})")
        if path.exists():
            shutil.rmtree(path)
        log.write_text("")
        _step(name, "creating the venv", [base, "-m", "venv", str(path)], log, progress, live)
        py = env_python(name)
        _step(name, f"installing {' '.join(SPECS[name])}",
              [str(py), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", *SPECS[name]],
              log, progress, live)
        versions = installed_versions(py, _extra_pkgs(name))
        pv = _py_version(py) or v
        _write_marker(name, pv, versions)
        progress(f"{name}: ready ({', '.join(f'{k} {x}' for k, x in versions.items() if x)})")
        return py


def cache_key() -> str:
    """What the cached environments depend on, as one short string for a CI cache key: the package specs, the
    marker format, the platform and the exact Python each env is built with (a venv links to its base
    interpreter). A restored env whose marker does not match is rebuilt anyway: a wrong key costs time, never
    correctness."""
    import hashlib
    import platform

    parts = [f"marker={MARKER_VERSION}", f"platform={sys.platform}-{platform.machine()}"]
    for name in SPECS:
        try:
            exe, v = base_python(name)
            python = ".".join(map(str, v))
        except EnvError:
            exe, python = "-", "none"
        parts.append(f"{name}={' '.join(SPECS[name])} python={python} at {exe}")
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    py = "-".join(sorted({p.split("python=")[1].split(" ")[0] for p in parts if "python=" in p}))
    return f"py{py}-{digest}"


def ensure_all(progress: Progress = lambda s: None, force: bool = False, live: Live | None = None) -> dict[str, Path]:
    return {n: ensure(n, progress, force, live) for n in SPECS}
