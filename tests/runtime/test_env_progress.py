"""The ~90 s environment build is not silent: pip's steps as plain lines in CI, a live status line on a terminal."""
from __future__ import annotations

import contextlib
import sys

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.runtime import envs
from tfmigrate.runtime.commands import live_status

FAKE_PIP = [sys.executable, "-c", "\n".join([
    "import sys, time",
    "for line in ['Collecting tensorflow-cpu==2.15.1',",
    "             '  Downloading https://files.example/tensorflow_cpu-2.15.1-cp311-manylinux_2_17_x86_64.whl (207.4 MB)',",
    "             '     ---------------------------------------- 207.4/207.4 MB 50.0 MB/s eta 0:00:00',",
    "             'Requirement already satisfied: six in ./lib',",
    "             'Installing collected packages: six, tensorflow-cpu',",
    "             'Successfully installed tensorflow-cpu-2.15.1']:",
    "    print(line, flush=True)",
])]


def test_pip_step_keeps_what_pip_fetches_and_installs():
    assert envs.pip_step("Collecting numpy<2") == "Collecting numpy<2"
    assert envs.pip_step("  Downloading https://x.org/a/b/numpy-1.26.whl (18 MB)") == "Downloading numpy-1.26.whl (18 MB)"
    assert envs.pip_step("     ---- 18.2/18.2 MB 40 MB/s eta 0:00:00") is None
    assert envs.pip_step("Requirement already satisfied: six") is None
    assert envs.pip_step("Successfully installed a-1 b-2").startswith("Successfully installed")


def test_plain_lines_in_ci(tmp_path):
    lines = []
    envs._step("legacy", "installing tensorflow-cpu==2.15.1", FAKE_PIP, tmp_path / "b.log", lines.append, None)
    assert lines[0] == "legacy: installing tensorflow-cpu==2.15.1"
    shown = [ln.split("] ", 1)[1] for ln in lines if "] " in ln]
    assert shown == ["Collecting tensorflow-cpu==2.15.1",
                     "Downloading tensorflow_cpu-2.15.1-cp311-manylinux_2_17_x86_64.whl (207.4 MB)",
                     "Installing collected packages: six, tensorflow-cpu",
                     "Successfully installed tensorflow-cpu-2.15.1"]
    assert lines[-1].startswith("legacy: installing tensorflow-cpu==2.15.1: done in ")
    log = (tmp_path / "b.log").read_text()
    assert "Requirement already satisfied: six" in log and "207.4/207.4 MB" in log  # the log keeps everything


def test_live_status_on_a_terminal(tmp_path):
    updates, titles, lines = [], [], []

    @contextlib.contextmanager
    def live(title):
        titles.append(title)
        yield updates.append

    envs._step("target", "installing tf-keras", FAKE_PIP, tmp_path / "b.log", lines.append, live)
    assert titles == ["target: installing tf-keras"]
    assert any("Downloading tensorflow_cpu" in u for u in updates) and all("eta" not in u for u in updates)
    assert len(lines) == 1 and "done in" in lines[0]  # one line once the step is over


def test_failed_step_shows_the_log_tail(tmp_path):
    bad = [sys.executable, "-c", "print('ERROR: No matching distribution found for tensorflow-cpu==9'); raise SystemExit(1)"]
    with pytest.raises(envs.EnvError) as ei:
        envs._step("legacy", "installing", bad, tmp_path / "b.log", lambda m: None, None)
    assert "exit 1" in str(ei.value) and "No matching distribution" in str(ei.value)


def test_live_only_on_a_terminal():
    assert live_status(Console(force_terminal=False)) is None
    console = Console(force_terminal=True, record=True, width=100)
    with live_status(console)("legacy: installing [x]") as update:
        update("legacy: installing — Collecting numpy")


def test_env_setup_uses_plain_lines_off_a_terminal(monkeypatch):
    seen = {}

    def fake_ensure(name, progress=None, force=False, live=None):
        seen[name] = live
        progress(f"{name}: Collecting something")
        return envs.env_python(name)

    monkeypatch.setattr(envs, "ensure", fake_ensure)
    result = CliRunner().invoke(app, ["env", "setup", "--only", "target"])
    assert seen == {"target": None}
    assert "target: Collecting something" in result.stdout
