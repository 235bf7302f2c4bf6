"""End-to-end `tfmigrate verify` on local clusters (needs `tfmigrate env setup`). Slow: -m equivalence."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.equivalence, pytest.mark.tfenv]

DATA = Path(__file__).parent / "data"
ORIGINAL = DATA / "regression_original.py"
TFMIGRATE = [sys.executable, "-m", "tfmigrate.cli"]


def _verify(*args, timeout=240):
    cmd = [sys.executable, "-c", "from tfmigrate.cli import app; app()", "verify", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, COLUMNS="200"))


def _leftovers(run_dir: Path):
    """Processes whose environment points into this run dir (i.e. tasks of this verify)."""
    mine = str(run_dir).encode()
    left = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            if mine in (p / "environ").read_bytes():
                stat = (p / "stat").read_text().split()
                if stat[2] != "Z":
                    left.append(int(p.name))
        except OSError:
            pass
    return left


@pytest.mark.cluster
def test_two_workers_200_steps_equivalent(tmp_path):
    out = tmp_path / "r.json"
    r = _verify(ORIGINAL, DATA / "regression_ctl.py", "--workers", "2", "--json", out,
                "--html", tmp_path / "r.html", "--run-dir", tmp_path / "run", "--", "--steps", "200")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-3].endswith("verdict: equivalent") or "verdict: equivalent" in r.stdout
    res = json.loads(out.read_text())
    cmp = res["comparison"]
    assert cmp["equivalent"] and cmp["max_rel"] <= 1e-5
    assert set(cmp["workers"]) == {"chief0", "worker0"}
    assert all(w["compared"] == 200 for w in cmp["workers"].values())
    assert res["versions"]["legacy"]["tensorflow-cpu"] == "2.15.1"
    assert res["versions"]["target"]["tensorflow-cpu"].startswith("2.21.")
    assert "<svg" in (tmp_path / "r.html").read_text()
    # the user's hard-coded model dirs were never written
    assert not Path("/tmp/regression_original_model").exists()
    assert not Path("/tmp/regression_ctl_model").exists()
    assert not _leftovers(tmp_path / "run")


@pytest.mark.cluster
def test_wrong_learning_rate_is_not_equivalent(tmp_path):
    out = tmp_path / "r.json"
    r = _verify(ORIGINAL, DATA / "regression_ctl_badlr.py", "--workers", "2", "--json", out,
                "--run-dir", tmp_path / "run", "--", "--steps", "200")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "NOT equivalent" in r.stdout
    fb = json.loads(out.read_text())["comparison"]["first_break"]
    assert fb is not None and fb["step"] >= 1  # step 0 is before the first update
    assert f"first step breaking tolerance is {fb['step']}" in r.stdout.replace("\n", " ") or \
        f"step {fb['step']}" in r.stdout


def test_keras_fit_single_process_equivalent(tmp_path):
    out = tmp_path / "r.json"
    r = _verify(ORIGINAL, DATA / "regression_fit.py", "--workers", "1", "--json", out,
                "--run-dir", tmp_path / "run", "--", "--steps", "200", "--no_eval")
    assert r.returncode == 0, r.stdout + r.stderr
    cmp = json.loads(out.read_text())["comparison"]
    assert cmp["workers"]["chief0"]["compared"] == 200 and cmp["max_rel"] <= 1e-5


@pytest.mark.cluster
def test_killed_worker_is_an_error_and_leaves_nothing(tmp_path):
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-c", "from tfmigrate.cli import app; app()", "verify", str(ORIGINAL),
           str(DATA / "regression_ctl.py"), "--run-dir", str(run_dir), "--timeout", "120", "--", "--steps", "20000"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ, COLUMNS="200"))
    cap = run_dir / "original" / "capture" / "worker0.jsonl"
    pidf = run_dir / "original" / "logs" / "worker-0.pid"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (cap.exists() and cap.stat().st_size > 0):
        time.sleep(0.1)
    assert cap.exists(), "worker never started training"
    os.kill(int(pidf.read_text()), signal.SIGKILL)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 2, out
    assert "worker-0" in out and "signal 9" in out
    time.sleep(0.5)
    assert not _leftovers(run_dir)


def test_unmappable_weights_fail_clearly(tmp_path):
    r = _verify(ORIGINAL, DATA / "regression_ctl_wrongmodel.py", "--workers", "1",
                "--run-dir", tmp_path / "run", "--", "--steps", "20")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "cannot map initial weights" in r.stdout
    assert "hidden/kernel" in r.stdout and "dense/kernel [2, 1]" in r.stdout
