"""fixtures/hook_order run on both sides: the original on TF 2.15 (Estimator), the migrated program on TF 2.21, Keras
golden and custom loop. Its hooks log every step from the model_fn's training_chief_hooks ("chief step = N"), the
program's train(hooks=) ("mean = ...") and the model_fn's training_hooks ("gstep = N, xent = ..."), next to a
StepCounterHook there ("global_step/sec: ...").

- The order (measured on TF 2.15): the checkpoint saver, training_chief_hooks, the train hooks, the Estimator's
  NanTensorHook(loss), training_hooks. With NaN labels at global step K the chief's and the train hook's lines of
  step K are logged, then "Model diverged with loss = NaN." and NanLossDuringTrainingError; the training_hooks'
  line of step K is not. The migrated program must log the same lines in the same order, and print each once.
- A whole run under `tfmigrate verify` (same initial weights): the same lines with the same values, each printed
  once (TF 2.21's checkpoint writer logged through absl, whose logging.basicConfig doubled every tensorflow line
  from the first checkpoint on), and the StepCounter's lines and summaries at the hook's steps.

The global steps TF 2.15 logged are the step's or the next: it read the variable unordered with the train op's
increment (same_steps); the migrated program logs the value before the update.

Marked `tfenv` and `equivalence` (it runs TensorFlow); run it alone.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from _runs import migrate_case, run_program, verified_logs
from test_logging_hook_runs import same_line

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "hook_order"
COUNT_EVERY = 4  # COUNT_EVERY in fixtures/hook_order/original.py
HOOK = re.compile(r"(?:INFO|ERROR):tensorflow:(chief step = \d+|mean = \S+|gstep = \d+, xent = \S+"
                  r"|global_step/sec: \S+|Model diverged with loss = NaN\.)(?: \(\d+\.\d{3} sec\))?$")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def hook_lines(text: str) -> list[str]:
    """The hooks' lines of a run's output in order, without the elapsed seconds, every printed line counted."""
    lines = []
    for raw in text.splitlines():
        at = max(raw.find("INFO:tensorflow:"), raw.find("ERROR:tensorflow:"))  # Keras' progress bar may share it
        match = HOOK.match(raw[at:]) if at >= 0 else None
        if match:
            lines.append(match.group(1))
    return lines


def shape(line: str) -> str:
    """The line with its numbers masked: what must match without the same initial weights."""
    return NUMBER.sub("#", line)


def global_steps(lines: list[str], tag: str) -> list[int]:
    """The global steps the lines starting with `tag` logged ("chief step = N", "gstep = N, ...")."""
    return [int(NUMBER.findall(line)[0]) for line in lines if line.startswith(tag)]


def same_steps(original: list[str], migrated: list[str]) -> None:
    """The migrated program logged the global step before each step's update (0, 1, 2, ...); TF 2.15 read the
    variable in the step's session.run unordered with its increment, so it logged that value or the next one
    (measured: both occur, more often under load)."""
    for tag in ("chief step", "gstep"):
        ours, theirs = global_steps(migrated, tag), global_steps(original, tag)
        assert ours == list(range(len(ours))) and len(theirs) == len(ours), (tag, ours, theirs)
        assert all(step in (k, k + 1) for k, step in enumerate(theirs)), (tag, theirs)


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("nan_at", [6, 10])  # between two checkpoints and on one (save_checkpoints_steps=10)
def test_at_a_nan_step_the_same_hooks_log_before_the_error(tmp_path, nan_at):
    original = run_program("legacy", [str(CASE / "original.py"), "--nan_at_step", str(nan_at), "--model_dir",
                                      str(tmp_path / "original")], tmp_path)
    assert original.returncode != 0 and "NanLossDuringTrainingError" in original.stderr, original.stderr[-3000:]
    lines = hook_lines(original.stdout + original.stderr)
    expected = [shape(line) for line in lines]
    # measured on TF 2.15: step K logged the chief's and the train hook's lines, then the error; the training_hooks'
    # line of step K never (K chief lines, K - 1 training_hooks lines)
    assert expected[-3:] == ["chief step = #", "mean = #", "Model diverged with loss = NaN."], expected
    assert len(global_steps(lines, "chief step")) == nan_at and len(global_steps(lines, "gstep")) == nan_at - 1
    for target in ("keras", "ctl"):
        migrated = migrate_case(CASE, tmp_path, target)
        run = run_program("target", [str(migrated), "--nan_at_step", str(nan_at), "--model_dir",
                                     str(tmp_path / target)], tmp_path)
        assert run.returncode != 0 and "NanLossDuringTrainingError" in run.stderr, (target, run.stderr[-3000:])
        ours = hook_lines(run.stdout + run.stderr)
        assert [shape(line) for line in ours] == expected, target
        same_steps(lines, ours)


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_a_whole_run_logs_the_same_lines_once_each(tmp_path, target):
    steps = tomllib.loads((CASE / "case.toml").read_text())["steps"]
    original, migrated_lines = map(hook_lines, verified_logs(CASE, tmp_path, target))
    # TF 2.15: every hook every step (4 checkpoints in between: 0, 10, 20, 30, then 40), the counter's line at global
    # steps 1 + 4k after its silent first trigger
    assert sum(line.startswith("chief step") for line in original) == steps
    assert sum(line.startswith("global_step/sec") for line in original) == len(range(1 + COUNT_EVERY, steps + 1,
                                                                                      COUNT_EVERY))
    assert [shape(line) for line in migrated_lines] == [shape(line) for line in original]
    same_steps(original, migrated_lines)
    for a, b in zip(original, migrated_lines):  # the values (not the rate: wall time; the steps: above)
        if a.startswith(("mean", "gstep")):
            assert same_line(a.split(", ")[-1], b.split(", ")[-1]), (a, b)


@pytest.mark.tfenv
@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_the_training_hooks_step_counter_writes_the_hooks_steps(tmp_path, target):
    """StepCounterHook(output_dir=--counter_dir) in training_hooks: TF 2.15 wrote "global_step/sec" there at global
    steps 5, 9, ..., 37 (every 4 after the silent first trigger at step 1); without output_dir it wrote nothing (not
    to model_dir either: measured, model_dir's events file held only the Estimator's own summaries)."""
    from test_summary_events import _events

    steps = tomllib.loads((CASE / "case.toml").read_text())["steps"]
    migrated = CASE / "migrated.py" if target == "keras" else migrate_case(CASE, tmp_path, target)
    events = {}
    for side, env, program in (("original", "legacy", CASE / "original.py"), ("migrated", "target", migrated)):
        out = run_program(env, [str(program), "--steps", str(steps), "--model_dir", str(tmp_path / side / "model"),
                                "--counter_dir", str(tmp_path / side / "counter")], tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        events[side] = _events(sorted((tmp_path / side / "counter").glob("events.out.tfevents.*")))
    expected = list(range(1 + COUNT_EVERY, steps + 1, COUNT_EVERY))
    assert sorted(step for tag, step in events["original"]) == expected
    assert sorted(events["migrated"]) == sorted(events["original"])
