"""verify picks one process for an original that trains under no multi-worker strategy (read by the rewrite's
program model, without TensorFlow): on a cluster such a program only runs copies of itself, or waits for ps tasks."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.runtime import verify

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.mark.parametrize("name, expected", [
    ("module_level", 1),        # RunConfig without train_distribute
    ("cnn", 1),
    ("classifier_mwms", None),  # MultiWorkerMirroredStrategy when TF_CONFIG is set: a cluster
    ("canned_weighted_mwms", None),
])
def test_trainers_for_reads_the_originals_strategy(name, expected):
    assert verify.trainers_for(FIXTURES / name / "original.py")[0] == expected


def test_a_strategy_chosen_at_run_time_is_not_taken_for_one_of_them():
    # `strategy = None; if TF_CONFIG: strategy = MultiWorkerMirroredStrategy()`: the rewrite converts the choice
    # (migrator/choices.py); the plan says the original ran under either, so verify picks neither for it
    original = Path(__file__).parent / "data" / "regression_original.py"
    assert verify.trainers_for(original) == (None, "")
    from tfmigrate.engine import Options, explain_paths
    [plan] = [p for p in explain_paths([original], Options()) if "estimator" in p]
    assert plan["strategy"]["tf1_ran_under"] == ["default", "multi-worker-mirrored"]
    assert plan["strategy"]["tf2"] == ('tf.distribute.MultiWorkerMirroredStrategy() if os.environ.get("TF_CONFIG") '
                                       'else tf.distribute.get_strategy()')


def test_trainers_for_says_nothing_about_what_it_cannot_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    assert verify.trainers_for(bad) == (None, "")
    assert verify.trainers_for(tmp_path / "missing.py") == (None, "")


def _verify(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tfmigrate.cli import app; app()", "verify", *args],
                          capture_output=True, text=True, timeout=120)


def test_the_default_becomes_one_process_with_a_note(tmp_path):
    # MIGRATED is missing, so verify stops before any environment or cluster: the note came first
    r = _verify(str(FIXTURES / "module_level" / "original.py"), str(tmp_path / "missing.py"), "--isolated")
    assert r.returncode == 2
    assert "note: original.py sets no multi-worker train_distribute: verify runs one process (--workers 1)" \
        in " ".join(r.stdout.split())


def test_an_explicit_cluster_is_kept_with_a_warning(tmp_path):
    r = _verify(str(FIXTURES / "module_level" / "original.py"), str(tmp_path / "missing.py"), "--isolated",
                "--workers", "2")
    out = " ".join(r.stdout.split())
    assert "on a 2-task cluster without parameter servers each task runs its own copy" in out


def test_a_multi_worker_original_keeps_the_default_silently(tmp_path):
    r = _verify(str(FIXTURES / "classifier_mwms" / "original.py"), str(tmp_path / "missing.py"), "--isolated")
    assert "note:" not in r.stdout
