"""A model_dir holding two checkpoints saved at different steps: a Keras run's BackupAndRestore backup
(latest.weights.h5, what migrated canned programs' fit wrote before they wrote EstimatorCheckpoints) and a NEWER
Estimator checkpoint (model.ckpt-N). The migrated program must read the one saved at
the later global step, as a user going back and forth between the two programs expects: the backup used to win
whatever its step, so predict read older weights and a resumed run silently went on from the older state (and
trained more steps than the Estimator).

The story (fixtures/canned_model_dir, DNNClassifier): the migrated model's Keras fit with BackupAndRestore trains
STALE steps into a model_dir; the Estimator, which does not read that backup, then trains there from scratch to
NEWER. Then, on copies of that directory, the original and the migrated program (Keras target, and the custom loop
for predict) predict, and continue training to FINAL; the continuations are compared step by step within verify's
tolerance, and the resumed migrated run removed the stale backup (fit's BackupAndRestore would have loaded it).
Finally a backup saved at a later step than the Estimator's checkpoint beside it wins (newest_checkpoint).

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

# the migrated DNN's fit with BackupAndRestore, as migrated canned programs trained before EstimatorCheckpoints
BACKUP = """
import runpy, sys
import keras
import tensorflow as tf
g = runpy.run_path(sys.argv[1], run_name="not_main")
keras.utils.set_random_seed(3)
with tf.distribute.get_strategy().scope():
    model = g["build_dnn_classifier"]({})
    model(next(iter(g["train_input"]("dnn")))[0])
model.fit(g["train_input"]("dnn"), epochs=1, steps_per_epoch=int(sys.argv[3]), verbose=0,
          callbacks=[keras.callbacks.BackupAndRestore(sys.argv[2], save_freq="epoch", delete_checkpoint=False)])
"""
NEWEST = """
import runpy, sys
g = runpy.run_path(sys.argv[1], run_name="not_main")
print("newest:", g["DNNClassifierModel"].newest_checkpoint(sys.argv[2]))
"""


def _predict(env: str, program: Path, model_dir: Path, work: Path) -> list[dict]:
    return _predictions(_run(env, [str(program), "--model", "dnn", "--mode", "predict", "--model_dir",
                                   str(model_dir)], work).stdout)


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_a_newer_estimator_checkpoint_wins_over_a_stale_keras_backup(tmp_path):
    original = CASE / "original.py"
    programs = {"keras": migrate_case(CASE, tmp_path, "keras"), "ctl": migrate_case(CASE, tmp_path, "ctl")}
    both = tmp_path / "both"
    (tmp_path / "backup.py").write_text(BACKUP)
    _run("target", [str(tmp_path / "backup.py"), str(programs["keras"]), str(both), str(STALE)], tmp_path)
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

    # the resumed run removed the stale backup (fit's BackupAndRestore would load it) and saved its own checkpoints
    assert not (dirs["migrated"] / "latest.weights.h5").exists()
    assert (dirs["migrated"] / f"model.ckpt-{FINAL}.index").exists()
    after = {"original": _predict("legacy", original, dirs["original"], tmp_path),
             "keras": _predict("target", programs["keras"], dirs["migrated"], tmp_path)}
    print(f"after the resume: max |Δ| {_max_delta(after['original'], after['keras']):.3g} over 64 predictions")

    # a backup saved at a later step than the Estimator's checkpoint beside it wins; an earlier one does not
    later = tmp_path / "later"
    _run("target", [str(tmp_path / "backup.py"), str(programs["keras"]), str(later / "fit"), str(NEWER + 10)],
         tmp_path)
    shutil.copytree(both, later / "model")
    shutil.copy(later / "fit" / "latest.weights.h5", later / "model" / "latest.weights.h5")
    (tmp_path / "newest.py").write_text(NEWEST)
    newest = {name: _run("target", [str(tmp_path / "newest.py"), str(programs["keras"]), str(model_dir)],
                         tmp_path).stdout.split("newest:")[1].strip() for name, model_dir in (("stale", both),
                                                                                               ("later", later / "model"))}
    assert newest == {"stale": str(both / f"model.ckpt-{NEWER}"), "later": str(later / "model" / "latest.weights.h5")}
