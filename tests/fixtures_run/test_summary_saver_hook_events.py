"""summary_saver_hook: the model_fn's SummarySaverHooks write the same events on both sides. The Estimator (TF 2.15)
and the migrated program (TF 2.21, Keras fit and the custom loop) run under `tfmigrate verify` (one worker, the
original's initial weights handed over, losses equivalent); then every directory's events are compared: the same
(tag, step) pairs and the same values (within verify's loss tolerance), as TensorBoard scalars.

What TF 2.15 wrote (measured): each hook at the run's first global step and every save_steps after it, never the
last step unless it falls on one (`all`: merge_all of the three summaries built before the hook, steps 1, 5, 9, ...;
`chief`: the list of two ops, steps 1, 8, 15, ...), to its own output_dir, not including the Estimator's `loss`;
the Estimator's own saver still wrote all three and `loss` to model_dir every save_summary_steps (1, 11, 21, ...);
the TrainSpec's hook with a fresh Scaffold wrote no summary at all. With its default thread pool TF 1 sometimes
wrote a hook's summaries one step early (2 of 5 runs of 60 steps, each with one early write in 15): the stale
global-step read the hook fetches raced with the optimizer's increment; the fixture pins TF 1 to one inter-op thread
(0 early writes in 5 runs), and this test says so if TF 1 still drifted.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tfmigrate.runtime import compare, verify

from test_summary_events import _events

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "summary_saver_hook"
SCHEDULES = {"all": 4, "chief": 7, "model_dir": 10}  # params["every"], the chief hook's 7, save_summary_steps
TAGS = {"all": {"confidence", "logits/mean", "logits/spread"}, "chief": {"confidence", "logits/spread"},
        "model_dir": {"confidence", "logits/mean", "logits/spread", "loss"}}


def _events_in(directory: Path) -> dict:
    files = sorted(directory.glob("events.out.tfevents.*"))  # this directory's own (not eval/, not the hooks')
    return _events(files) if files else {}


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_summary_saver_hooks_write_the_estimators_events(tmp_path, target):
    """keras: the golden (Model.fit, compute_loss writes while EstimatorSummaries holds the writers); ctl: the program
    rewritten with --target ctl (the trainer's loop writes)."""
    steps = tomllib.loads((FIXTURE / "case.toml").read_text())["steps"]
    migrated_program = FIXTURE / "migrated.py"
    if target == "ctl":
        from tfmigrate.engine import Options, migrate_source

        migrated_program = tmp_path / "migrated_ctl.py"
        result = migrate_source((FIXTURE / "original.py").read_bytes(), str(migrated_program), Options(target="ctl"))
        assert result.status == "changed", [d.format() for d in result.diagnostics]
        assert "def summary_hooks(self)" in result.output.decode()
        migrated_program.write_bytes(result.output)
    summary_dir = tmp_path / "events"  # the same argument on both sides; verify moves the migrated side's writes
    settings = verify.Settings(original=FIXTURE / "original.py", migrated=migrated_program, workers=1,
                               run_dir=tmp_path / "run", keep=True,
                               args=["--steps", str(steps), "--summary_dir", str(summary_dir)])
    result = verify.run(settings, say=lambda *_: None)
    assert result["comparison"]["equivalent"], result["comparison"]["problems"]
    # the migrated side's tf.summary.create_file_writer(d) wrote to the directory target_boot moved d to
    moved = json.loads((tmp_path / "run" / "migrated" / "capture" / "chief0.redirects.json").read_text())
    model_dir = [new for old, new in moved.items() if not old.startswith(str(summary_dir))]
    assert len(model_dir) == 1, moved
    original = {"all": _events_in(summary_dir / "all"), "chief": _events_in(summary_dir / "chief"),
                "model_dir": _events_in(tmp_path / "run" / "original" / "model_dir")}
    migrated = {"all": _events_in(Path(moved[str(summary_dir / "all")])),
                "chief": _events_in(Path(moved[str(summary_dir / "chief")])),
                "model_dir": _events_in(Path(model_dir[0]))}
    for name, every in SCHEDULES.items():
        expected = {(tag, step) for tag in TAGS[name] for step in range(1, steps + 1, every)}
        assert set(original[name]) == expected, (
            f"TF 2.15 wrote {name} at other steps than measured (its racy stale global-step read?)",
            sorted(set(original[name]) ^ expected))
        assert sorted(migrated[name]) == sorted(original[name]), name
        for key, (value, _) in original[name].items():
            other, plugin = migrated[name][key]
            assert plugin == "scalars", (name, key)
            assert compare.within(value, other, compare.LOSS_RTOL, compare.LOSS_ATOL), (name, key, value, other)
    # the TrainSpec's SummarySaverHook(scaffold=Scaffold()): TF 2.15 wrote an events file with no summary in it
    assert _events_in(summary_dir) == {}
    assert str(summary_dir) not in moved  # the migrated program opens no writer there
