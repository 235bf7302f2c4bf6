"""CI equivalence: `tfmigrate verify` on every fixture pair, on the cluster size its case.toml names.

The expected verdict is part of the fixture (`verify = "equivalent"` unless a case records a known, explained
difference), so a change in numerics either way fails here.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PAIRS = sorted(p.name for p in FIXTURES.iterdir() if (p / "migrated.py").exists() or (p / "migrated").is_dir())


def _programs(case: str) -> tuple[Path, Path]:
    """original.py / migrated.py, or for a package the case's `program` inside original/ and migrated/."""
    if (FIXTURES / case / "original").is_dir():
        program = tomllib.loads((FIXTURES / case / "case.toml").read_text())["program"]
        return FIXTURES / case / "original" / program, FIXTURES / case / "migrated" / program
    return FIXTURES / case / "original.py", FIXTURES / case / "migrated.py"


def _workers(case: str) -> int:
    return tomllib.loads((FIXTURES / case / "case.toml").read_text()).get("workers", 1)


@pytest.mark.equivalence
@pytest.mark.tfenv
@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.cluster) if _workers(c) > 1 else c for c in PAIRS])
def test_fixture_verifies(case, tmp_path):
    meta = tomllib.loads((FIXTURES / case / "case.toml").read_text())
    # a recorded, explained difference in evaluate() only (`evaluate_difference = "why"`): the verdict is NOT
    # equivalent, and everything else (every training step, predictions) must still agree; fixing it fails here
    known_evaluate = meta.get("evaluate_difference")
    expected = meta.get("verify", "not-equivalent" if known_evaluate else "equivalent")
    statistical = meta.get("statistical", False)  # the original's own runs differ (numpy_input_fn(shuffle=True))
    if meta.get("unstable"):  # measured, not hidden: the reason is in case.toml and the README
        pytest.skip(f"{case}: verdict measured unstable: {meta['unstable']}")
    report = tmp_path / "verify.json"
    original, migrated = _programs(case)
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(original),
         str(migrated), "--workers", str(meta.get("workers", 1)), *(["--statistical"] if statistical else []),
         "--run-dir", str(tmp_path / "run"), "--json", str(report), "--timeout", "300",
         "--", "--steps", str(meta.get("steps", 200))],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode in (0, 1), proc.stdout[-4000:] + proc.stderr[-4000:]
    result = json.loads(report.read_text())
    comparison = result["comparison"]
    verdict = "equivalent" if comparison["equivalent"] else "not-equivalent"
    assert verdict == expected, proc.stdout[-4000:]
    assert proc.returncode == (0 if verdict == "equivalent" else 1)
    if known_evaluate:
        assert comparison["problems"] and all(p.startswith("evaluate:") for p in comparison["problems"]), \
            comparison["problems"]
    # every worker compared at least the steps the fixture trains (`trained_steps` when a hook stops it earlier)
    steps = meta.get("trained_steps", meta.get("steps", 200))
    if statistical:
        assert comparison["mode"] == "statistical" and comparison["repeats"] >= 10, comparison
        assert all(len(run) == steps for run in result["losses"]["original_runs"] + result["losses"]["migrated_runs"])
        return
    for worker in comparison["workers"].values():
        assert worker["compared"] >= steps, worker
        if meta.get("bit_equal"):  # measured bit-identical: a last-bit change (below the tolerance) fails here
            assert worker["bit_equal"] == worker["compared"], worker


@pytest.mark.equivalence
@pytest.mark.tfenv
def test_statistical_verify_catches_a_learning_rate_ten_times_lower(tmp_path):
    """--statistical must not wave everything through: the shuffled fixture with lr 0.2 -> 0.02 is NOT equivalent."""
    case = FIXTURES / "numpy_shuffle"
    migrated = (case / "migrated.py").read_text()
    assert migrated.count('"lr": 0.2') == 1
    broken = tmp_path / "migrated_slow.py"
    broken.write_text(migrated.replace('"lr": 0.2', '"lr": 0.02'))
    report = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(case / "original.py"), str(broken), "--workers", "1",
         "--statistical", "--run-dir", str(tmp_path / "run"), "--json", str(report), "--timeout", "300",
         "--", "--steps", "150"],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-4000:]
    comparison = json.loads(report.read_text())["comparison"]
    assert comparison["mode"] == "statistical" and not comparison["equivalent"]


PS_CASES = [c for c in PAIRS if "ps" in tomllib.loads((FIXTURES / c / "case.toml").read_text())]


@pytest.mark.equivalence
@pytest.mark.tfenv
@pytest.mark.cluster
@pytest.mark.parametrize("case", PS_CASES)
def test_fixture_verifies_on_parameter_servers(case, tmp_path):
    """The async job (chief + workers + ps): the migrated loss curve must lie in the band of repeated originals."""
    ps = tomllib.loads((FIXTURES / case / "case.toml").read_text())["ps"]
    report = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(FIXTURES / case / "original.py"),
         str(FIXTURES / case / "migrated.py"), "--workers", str(ps["workers"]), "--ps", str(ps["ps"]),
         "--repeats", str(ps["repeats"]), "--run-dir", str(tmp_path / "run"), "--json", str(report),
         "--timeout", "300", "--", "--steps", str(ps["steps"])],
        capture_output=True, text=True, timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    result = json.loads(report.read_text())
    assert result["comparison"]["equivalent"], proc.stdout[-4000:]
    _check_shards(ps.get("shards", {}), tmp_path / "run")


def _check_shards(expected: dict, run: Path) -> None:
    """`[ps] shards = {"<layer>/<weight>" = n}`: both sides really partitioned it in n (the original's graph has
    <scope>/<layer>/<weight>/part_0 … part_<n-1>; the migrated chief's weight map records n ShardedVariable parts),
    so an equivalent verdict is about the partitioned job, not an unpartitioned one."""
    if not expected:
        return
    graph = (run / "original-1" / "model_dir" / "graph.pbtxt").read_text()
    mapped = json.loads((run / "migrated" / "capture" / "chief0.weights.json").read_text())["mapped"]
    shards = {m["weight"]: m.get("shards", 1) for m in mapped}
    for weight, n in expected.items():
        parts = {int(p) for p in re.findall(rf'name: "(?:[\w/]*/)?{re.escape(weight)}/part_(\d+)"', graph)}
        assert parts == set(range(n)), (weight, sorted(parts))
        assert shards.get(weight) == n, (weight, shards)


@pytest.mark.equivalence
@pytest.mark.tfenv
def test_lookup_without_mod_mapping_is_caught(tmp_path):
    """The TFM801 id mapping matters: without it the single-process run of ps_embedding diverges at step 0."""
    case = FIXTURES / "ps_embedding"
    migrated = (case / "migrated.py").read_text()
    mapped = 'tf1_mod_rows(features["ids"], self.table, VARIABLE_PARTITIONER)'
    assert mapped in migrated
    broken = tmp_path / "migrated_without_mapping.py"
    broken.write_text(migrated.replace(mapped, 'features["ids"]'))
    report = tmp_path / "verify.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "verify", str(case / "original.py"), str(broken), "--workers", "1",
         "--run-dir", str(tmp_path / "run"), "--json", str(report), "--", "--steps", "50"],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-4000:]
    (worker,) = json.loads(report.read_text())["comparison"]["workers"].values()
    assert worker["first_break"]["step"] == 0
