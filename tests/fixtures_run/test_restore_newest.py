"""A model_dir holding two checkpoints saved at different steps: a Keras run's BackupAndRestore backup
(latest.weights.h5) and a NEWER Estimator checkpoint (model.ckpt-N). The migrated program must read the one saved at
the later global step, as a user going back and forth between the two programs expects: the backup used to win
whatever its step, so predict read older weights and a resumed run silently went on from the older state (and
trained more steps than the Estimator).

The story (fixtures/canned_model_dir, DNNClassifier; its Keras fit writes BackupAndRestore's backup): the migrated
program trains STALE steps into a model_dir; the Estimator, which does not read that backup, then trains there from
scratch to NEWER. Then, on copies of that directory, the original and the migrated program (Keras target, and the
custom loop for predict) predict, and continue training to FINAL; the continuations are compared step by step
within verify's tolerance. Finally the migrated program's own backup (now at FINAL, newer than the Estimator's
model.ckpt-NEWER beside it) must win.

Marked `tfenv` and `equivalence`.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from _runs import migrate_case
from tests.fixtures_run.test_canned_model_dir import _max_delta, _predictions
from tests.fixtures_run.test_resume_runs import _run
from tfmigrate.runtime import capture, compare

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "canned_model_dir"
STALE, NEWER, FINAL = 20, 40, 60


def _predict(env: str, program: Path, model_dir: Path, work: Path) -> list[dict]:
    return _predictions(_run(env, [str(program), "--model", "dnn", "--mode", "predict", "--model_dir",
                                   str(model_dir)], work).stdout)


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_a_newer_estimator_checkpoint_wins_over_a_stale_keras_backup(tmp_path):
    original = CASE / "original.py"
    programs = {"keras": migrate_case(CASE, tmp_path, "keras"), "ctl": migrate_case(CASE, tmp_path, "ctl")}
    both = tmp_path / "both"
    _run("target", [str(programs["keras"]), "--model", "dnn", "--mode", "train", "--steps", str(STALE),
                    "--model_dir", str(both)], tmp_path)
    assert (both / "latest.weights.h5").exists() and not list(both.glob("model.ckpt-*"))
    _run("legacy", [str(original), "--model", "dnn", "--mode", "train", "--steps", str(NEWER), "--model_dir",
                    str(both)], tmp_path)
    assert (both / f"model.ckpt-{NEWER}.index").exists() and (both / "latest.weights.h5").exists()

    # predict: the Estimator's model.ckpt-NEWER, not the backup of step STALE
    predictions = {}
    for side, env in (("original", "legacy"), ("keras", "target"), ("ctl", "target")):
        model_dir = tmp_path / "predict" / side
        shutil.copytree(both, model_dir)
        predictions[side] = _predict(env, original if side == "original" else programs[side], model_dir, tmp_path)
        assert sorted(p.name for p in model_dir.iterdir()) == sorted(p.name for p in both.iterdir())  # read only
    for side in ("keras", "ctl"):
        print(f"{side}: max |Δ| {_max_delta(predictions['original'], predictions[side]):.3g} over 64 predictions")

    # resume: from the Estimator's step NEWER, FINAL - NEWER steps, step for step as the Estimator
    caps, dirs = {}, {}
    for side in ("original", "migrated"):
        dirs[side] = tmp_path / "resume" / side / "model"
        shutil.copytree(both, dirs[side])
        caps[side] = tmp_path / "resume" / side / "capture"
        if side == "original":
            _run("legacy", [str(capture.LEGACY_BOOT), str(original), "--model", "dnn", "--mode", "train", "--steps",
                            str(FINAL)], tmp_path, caps[side], dirs[side])
        else:
            _run("target", [str(capture.TARGET_BOOT), str(programs["keras"]), "--model", "dnn", "--mode", "train",
                            "--steps", str(FINAL), "--model_dir", str(dirs[side])], tmp_path, caps[side])
    a, b = capture.read_legacy(caps["original"]), capture.read_target(caps["migrated"])
    assert len(a["chief0"]) == FINAL - NEWER
    assert len(b["chief0"]) == FINAL - NEWER  # not FINAL - STALE: it did not go on from the backup
    result = compare.compare_sync(a, b)
    assert result["equivalent"], result["problems"]
    assert result["workers"]["chief0"]["compared"] == FINAL - NEWER

    # the migrated program's own backup, now at step FINAL, wins over the Estimator's model.ckpt-NEWER beside it
    assert (dirs["migrated"] / "latest.weights.h5").exists()
    assert (dirs["migrated"] / f"model.ckpt-{NEWER}.index").exists()
    after = {"original": _predict("legacy", original, dirs["original"], tmp_path),
             "keras": _predict("target", programs["keras"], dirs["migrated"], tmp_path)}
    print(f"after the resume: max |Δ| {_max_delta(after['original'], after['keras']):.3g} over 64 predictions")
    assert any(abs(p["logits"][0] - q["logits"][0]) > 1e-4 for p, q in zip(after["keras"], predictions["keras"]))
