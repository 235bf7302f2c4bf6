"""The Estimator's own log lines (not a hook of the program's): fixtures/adam_mae (RunConfig(log_step_count_steps=50),
200 steps, train_and_evaluate with a checkpoint and an evaluation every 100 steps, INFO lines shown) under `tfmigrate
verify` (the original on TF 2.15, the migrated program on TF 2.21 from the original's initial weights), custom-loop
target. Measured on TF 2.15 (rules/planners/hooks.py, "The Estimator's own lines"): "loss = <the step's loss>, step = <the
global step before it>" at the run's first step and every N steps (step = 0, 50, 100, 150; " (T sec)" after the
first), "global_step/sec: <rate>" on the chief at global steps 1 + N, 1 + 2N, ... (51, 101, 151) after a silent first
trigger, and "Loss for final step: <loss>." once training ends. The migrated program must print the same lines in the
same order with the same losses (within 1e-6 relative, 1e-6 absolute) and steps; the seconds and rates are wall time.

Marked `tfenv` and `equivalence` (it runs TensorFlow); run it alone.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from _runs import verified_logs
from test_logging_hook_runs import same_line

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "adam_mae"
EVERY = 50  # RunConfig(log_step_count_steps=50) in fixtures/adam_mae/original.py
LINE = re.compile(r"INFO:tensorflow:(loss = \S+, step = \d+(?: \(\d+\.\d{3} sec\))?|global_step/sec: \S+"
                  r"|Loss for final step: \S+\.)$")


def estimator_lines(text: str) -> list[str]:
    """The Estimator's own lines of a task log in order, every printed line counted."""
    lines = []
    for raw in text.splitlines():
        at = raw.find("INFO:tensorflow:")
        match = LINE.match(raw[at:]) if at >= 0 else None
        if match:
            lines.append(match.group(1))
    return lines


def shape(line: str) -> str:
    """The line without its wall-time fields: the seconds of a loss line, the rate of a global_step/sec line."""
    return re.sub(r" \(\d+\.\d{3} sec\)$", " (# sec)", re.sub(r"^global_step/sec: \S+$", "global_step/sec: #", line))


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_custom_loop_prints_the_estimators_own_lines(tmp_path):
    steps = tomllib.loads((CASE / "case.toml").read_text())["steps"]
    original, migrated = map(estimator_lines, verified_logs(CASE, tmp_path, "ctl"))
    expected = [f"loss = #, step = {k}" + (" (# sec)" if k else "") for k in range(0, steps, EVERY)]
    counters = ["global_step/sec: #" for _ in range(1 + EVERY, steps + 1, EVERY)]
    schedule = [expected[0]] + [line for pair in zip(counters, expected[1:]) for line in pair] + \
        ["Loss for final step: #."]
    masked = [re.sub(r"loss = \S+,", "loss = #,", re.sub(r"step: \S+\.$", "step: #.", shape(line)))
              for line in migrated]
    assert masked == schedule, migrated
    # TF 2.15 read the global step unordered with its increment: it may show k + 1 (rules/planners/hooks.py, "Hook order")
    theirs = [re.sub(r"loss = \S+,", "loss = #,", re.sub(r"step: \S+\.$", "step: #.", shape(line)))
              for line in original]
    assert len(theirs) == len(schedule), original
    for a, b in zip(theirs, schedule):
        assert a == b or a == re.sub(r"step = (\d+)", lambda m: f"step = {int(m.group(1)) + 1}", b), (a, b)
    for a, b in zip(original, migrated):  # the same step's loss
        if not a.startswith("global_step/sec"):
            assert same_line(re.sub(r", step = \d+.*$", "", a), re.sub(r", step = \d+.*$", "", b)), (a, b)
