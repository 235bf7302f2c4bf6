"""verify shows steps done per task while a side runs: a status line on a terminal, plain lines in CI logs."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from types import SimpleNamespace

from tfmigrate.runtime import capture, cluster
from tfmigrate.runtime.sides import Progress, run_side


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def _steps(cap: Path, task: str, n: int, suffix: str = ".jsonl") -> None:
    (cap / f"{task}{suffix}").write_text("".join('{"loss": 1.0}\n' for _ in range(n)))


def test_step_counts_reads_both_sides_files_and_skips_silent_tasks(tmp_path):
    _steps(tmp_path, "chief0", 3)
    _steps(tmp_path, "worker0", 2, ".loss")
    (tmp_path / "ps0.loss").write_text("")
    assert capture.step_counts(tmp_path) == {"chief0": 3, "worker0": 2}


def test_plain_lines_come_at_most_every_interval_and_only_when_steps_moved(tmp_path):
    clock, said = Clock(), []
    p = Progress("original", tmp_path, said.append, every=15.0, clock=clock)
    for _ in range(10):  # 10 s of polls before any step: silent (the launch line was printed already)
        clock.t += 1.0
        p.poll()
    assert said == []
    _steps(tmp_path, "chief0", 40)
    _steps(tmp_path, "worker0", 38)
    clock.t += 6.0
    p.poll()
    assert said == ["  original: steps done chief0 40 · worker0 38 (16 s)"]
    clock.t += 20.0
    p.poll()  # nothing moved: no repeat
    assert len(said) == 1
    _steps(tmp_path, "chief0", 90)
    clock.t += 1.0
    p.poll()
    assert said[-1] == "  original: steps done chief0 90 · worker0 38 (37 s)"


def test_a_terminal_status_line_follows_every_read(tmp_path):
    clock, shown = Clock(), []
    p = Progress("migrated", tmp_path, lambda m: None, update=shown.append, clock=clock)
    clock.t += 1.0
    p.poll()
    _steps(tmp_path, "chief0", 5, ".loss")
    clock.t += 0.5
    p.poll()  # polled too soon after the last read: the files are not read again
    clock.t += 0.5
    p.poll()
    assert shown == ["migrated: starting the cluster (1 s)", "migrated: steps done chief0 5 (2 s)"]


def test_run_side_reports_live_and_final_steps(tmp_path):
    """A real (TF-free) task writes steps for ~2 s: the status line shows them as they come, and a final plain
    line says what each task did."""
    boot = tmp_path / "boot.py"
    boot.write_text(
        "import os, sys, time\n"
        "open(os.path.join(os.environ['TFMIGRATE_CAPTURE_DIR'], 'env'), 'w').write(os.environ['KERAS_HOME'])\n"
        "path = os.path.join(os.environ['TFMIGRATE_CAPTURE_DIR'], 'chief0.jsonl')\n"
        "for i in range(8):\n"
        "    with open(path, 'a') as fh:\n"
        "        fh.write('{\"loss\": 1.0}\\n')\n"
        "    time.sleep(0.3)\n")
    program = tmp_path / "program.py"
    program.write_text("")
    shown, said = [], []

    @contextlib.contextmanager
    def live(title):
        shown.append(title)
        yield shown.append

    s = SimpleNamespace(args=[], timeout=60.0)
    run = run_side("original", Path(sys.executable), boot, program, s, tmp_path / "run",
                   [cluster.Task("chief", 0)], {}, said.append, live=live)
    assert run.tasks[0]["exit"] == 0
    assert shown[0] == "original: starting the cluster"
    assert any(m.startswith("original: steps done chief0 ") for m in shown[1:]), shown
    assert said[-1].startswith("  original: steps done chief0 8 ("), said
    # Keras' keras.json goes into the run dir, not the user's ~/.keras
    assert (run.capture_dir / "env").read_text() == str(tmp_path / "run" / "tmp" / "keras")
