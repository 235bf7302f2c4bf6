"""model_to_estimator's checkpoints (fixtures/model_to_estimator: RunConfig(save_checkpoints_steps=60), Adam): the
original on TF 2.15, the migrated golden (Keras fit with EstimatorCheckpoints, restore_model_dir before it) on TF 2.21.

- Measured on TF 2.15: the Estimator model_to_estimator made wrote model.ckpt-0, 60, 120 for max_steps 120 (the
  first step, every save_checkpoints_steps after the last save, the last step), all listed in "checkpoint"
  (keep_checkpoint_max 5), as a model_fn Estimator does; the migrated program writes and lists the same names.
- Resume: each program trains to MID in its own model_dir, then runs again there to FINAL. The Estimator resumed
  from its model.ckpt-MID, saved there, at MID + 60 and at FINAL (not at multiples of 60); the migrated program
  resumes from its own model.ckpt-MID (weights, Adam slots, step) and must save the same steps and train the
  remaining FINAL - MID steps equal to the Estimator's step for step (verify's tolerance; the first run starts from
  the original's model.ckpt-0, as verify hands it over, the second from nothing but its own checkpoint), and its
  evaluate() reports global_step FINAL as the Estimator's did.
- A model_dir holding the Estimator's own checkpoints is not read by the migrated program: it stops with an error
  naming the checkpoint instead of training from fresh weights. Under verify's target boot (TFMIGRATE_MODEL_DIR)
  restore_model_dir reads the moved model_dir, as the model_fn programs' restore_model_dir does.

Marked `tfenv` and `equivalence` (runs TensorFlow); run it alone.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from _runs import migrate_case, run_program
from tfmigrate.runtime import capture, compare

pytestmark = [pytest.mark.tfenv, pytest.mark.equivalence]

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "model_to_estimator"
MID, FINAL = 100, 180


def _ok(*args, **kwargs):
    result = run_program(*args, timeout=300, **kwargs)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def steps_on_disk(model_dir: Path) -> list[int]:
    return sorted(int(p.name[len("model.ckpt-"):-len(".index")]) for p in model_dir.glob("model.ckpt-*.index"))


def listed_steps(model_dir: Path) -> list[int]:
    state = (model_dir / "checkpoint").read_text()
    return [int(n.rsplit("-", 1)[1]) for n in re.findall(r'^all_model_checkpoint_paths: "(.*)"$', state, re.M)]


def _final_eval(stdout: str) -> dict:
    line = next(line for line in stdout.splitlines() if line.startswith("final eval:"))
    return json.loads(line.split(":", 1)[1].replace("'", '"'))


def test_the_migrated_fit_writes_the_estimators_checkpoints(tmp_path):
    migrated = migrate_case(CASE, tmp_path)
    listed = {}
    for side, env, program in (("original", "legacy", CASE / "original.py"), ("migrated", "target", migrated)):
        model_dir = tmp_path / side
        _ok(env, [str(program), "--model_dir", str(model_dir)], tmp_path)
        listed[side] = (listed_steps(model_dir), steps_on_disk(model_dir))
    assert listed["original"] == ([0, 60, 120], [0, 60, 120]), listed
    assert listed["migrated"] == listed["original"], listed
    assert not (tmp_path / "migrated" / "latest.weights.h5").exists()
    # under verify's boot the program's model_dir is moved: restore_model_dir reads the moved one too, never the
    # user's (here the original's, which it would refuse to read)
    moved = tmp_path / "moved"
    _ok("target", [str(capture.TARGET_BOOT), str(migrated), "--model_dir", str(tmp_path / "original")], tmp_path,
        capture_dir=tmp_path / "capture", model_dir=moved)
    assert sorted(int(p.name[len("model.ckpt-"):-len(".index")]) for p in moved.rglob("model.ckpt-*.index")) == \
        [0, 60, 120]


def test_the_migrated_program_resumes_its_own_checkpoints_step_for_step(tmp_path):
    migrated = migrate_case(CASE, tmp_path)
    dirs = {side: tmp_path / side / "model" for side in ("original", "migrated")}
    caps, evals = {}, {}
    for steps in (MID, FINAL):
        caps["original", steps] = cap = tmp_path / "original" / f"capture{steps}"
        result = _ok("legacy", [str(capture.LEGACY_BOOT), str(CASE / "original.py"), "--steps", str(steps)],
                     tmp_path, capture_dir=cap, model_dir=dirs["original"])
        evals["original", steps] = _final_eval(result.stdout)
        caps["migrated", steps] = cap = tmp_path / "migrated" / f"capture{steps}"
        init = dirs["original"] / "model.ckpt-0" if steps == MID else None  # the start verify hands over
        result = _ok("target", [str(capture.TARGET_BOOT), str(migrated), "--steps", str(steps), "--model_dir",
                                str(dirs["migrated"])], tmp_path, capture_dir=cap, init_ckpt=init)
        evals["migrated", steps] = _final_eval(result.stdout)
    # the Estimator's saves: 0, 60, MID; resumed: MID again, MID + 60, FINAL (120 and 180 would be multiples of 60)
    assert steps_on_disk(dirs["original"]) == [0, 60, MID, MID + 60, FINAL]
    assert steps_on_disk(dirs["migrated"]) == steps_on_disk(dirs["original"])
    assert listed_steps(dirs["migrated"]) == [0, 60, MID, MID + 60, FINAL]  # keep_checkpoint_max 5
    for steps, done in ((MID, 0), (FINAL, MID)):
        a, b = capture.read_legacy(caps["original", steps]), capture.read_target(caps["migrated", steps])
        assert len(a["chief0"]) == len(b["chief0"]) == steps - done
        result = compare.compare_sync(a, b)
        assert result["equivalent"], (steps, result["problems"])
        print(f"steps {done}..{steps}: max rel Δ {result.get('max_rel', 'n/a')}")
        assert evals["original", steps]["global_step"] == evals["migrated", steps]["global_step"] == steps

    # the Estimator's own checkpoints are not read: an error naming the checkpoint, not a fresh start
    estimators = tmp_path / "estimators"
    shutil.copytree(dirs["original"], estimators)
    bad = run_program("target", [str(migrated), "--steps", str(FINAL + 20), "--model_dir", str(estimators)], tmp_path,
                      timeout=300)
    assert bad.returncode != 0
    # (the Estimator's "checkpoint" file names its checkpoints by absolute path: the original directory's)
    assert f"model.ckpt-{FINAL} was not written by this program" in bad.stderr, bad.stderr[-2000:]
