"""End-to-end `tfmigrate verify --workers 2 --ps 1` (async parameter servers, statistical). Slow: -m equivalence."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.equivalence, pytest.mark.tfenv, pytest.mark.cluster]

DATA = Path(__file__).parent / "data"
ORIGINAL = DATA / "ps_original.py"
STEPS = "1500"  # TF1 worker starts 5 s late: the chief trains alone, then both (the last ~15-45% of steps)


def _leftovers(run_dir: Path):
    """Live processes whose environment points into this run dir (tasks of this verify)."""
    mine, left = str(run_dir).encode(), []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and mine in (p / "environ").read_bytes() and (p / "stat").read_text().split()[2] != "Z":
                left.append(int(p.name))
        except OSError:
            pass
    return left


def _verify(migrated, tmp_path):
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-c", "from tfmigrate.cli import app; app()", "verify", str(ORIGINAL), str(migrated),
           "--workers", "2", "--ps", "1", "--json", str(out), "--run-dir", str(tmp_path / "run"), "--", "--steps", STEPS]
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=400, env=dict(os.environ, COLUMNS="240"))
    wall = time.monotonic() - t
    print(r.stdout[-6000:])
    res = json.loads(out.read_text()) if out.exists() else None
    totals = {k: round(v, 1) for k, v in (res or {}).get("timings", {}).items() if k.endswith("total")}
    print(f"verify wall time {wall:.1f} s; {totals}")
    return r, res


def test_ps_pair_is_equivalent(tmp_path):
    r, res = _verify(DATA / "ps_migrated.py", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    for text in ("mode: statistical", "3 runs of the original", "canonical initial checkpoint:",
                 "readiness poll 1 s instead of 30 s", "rule: margin", "verdict: equivalent"):
        assert text in r.stdout
    cmp = res["comparison"]
    assert cmp["mode"] == "statistical" and cmp["repeats"] == 3 and cmp["equivalent"]
    assert len(cmp["bins"]) == 10 and all(b["ok"] for b in cmp["bins"]) and cmp["final"]["ok"]
    # the canonical start: written by the init-only run, before any update
    ckpt = Path(res["init_checkpoint"])
    assert ckpt.name == "model.ckpt-0" and ckpt.parent.parent.name == "init"
    init_cap = ckpt.parent.parent / "capture"
    assert all(f.stat().st_size == 0 for f in init_cap.glob("*.jsonl"))
    # every original repeat: the chief checked its warm start, both trainers trained
    for k in (1, 2, 3):
        meta = json.loads((tmp_path / "run" / f"original-{k}" / "capture" / "chief0.meta.json").read_text())
        ws = meta["warm_start"]
        assert ws["checkpoint"] == str(ckpt) and ws["checked"] == 6 and not ws["mismatched"]
        assert meta["ready_poll_secs"] == 1.0
    orig_runs = [run for run in res["runs"] if run["side"].startswith("original")]
    assert len(orig_runs) == 3 and all(run["steps_per_task"]["chief0"] > 0 for run in orig_runs)
    # the migrated side: full table from the checkpoint, bit for bit, as 2 shards; one record per step
    mapped = {m["weight"]: m for m in res["weights"]["chief0"]["mapped"]}
    assert mapped["ps_model/embeddings"]["checkpoint_var"] == "embeddings"
    assert mapped["ps_model/embeddings"]["exact"] is True and mapped["ps_model/embeddings"]["shards"] == 2
    assert all(m["exact"] is True for m in mapped.values()) and not res["weights"]["chief0"]["unused_checkpoint_vars"]
    migrated = res["runs"][-1]
    assert migrated["steps_per_task"] == {"worker0": int(STEPS)}  # the coordinator's eval is not a step
    assert len(res["losses"]["migrated_runs"][0]) == int(STEPS)
    # until the TF1 worker joins only the chief trains: the migrated run is bit-identical there
    first = res["losses"]["original_runs"][0][:100]
    assert res["losses"]["migrated_runs"][0][:100] == first
    assert not Path("/tmp/ps_original_model").exists() and not Path("/tmp/ps_migrated_model").exists()
    assert not _leftovers(tmp_path / "run")


def test_ps_ten_times_the_learning_rate_is_not_equivalent(tmp_path):
    r, res = _verify(DATA / "ps_migrated_badlr.py", tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "verdict: NOT equivalent" in r.stdout
    cmp = res["comparison"]
    assert not cmp["equivalent"] and not cmp["bins"][0]["ok"]
    assert any(p.startswith("bin 0: migrated mean") for p in cmp["problems"])
    assert not _leftovers(tmp_path / "run")
