"""Statistical (async PS) comparator: the rule of runtime/compare_stat.py on synthetic curves."""
import math
import random

import pytest

from tfmigrate.runtime import compare_stat


def _curve(seed, n=1500, scale=1.0, noise=0.3, lr=1.0):
    """Decaying loss with multiplicative per-step batch noise (like a real run)."""
    rnd = random.Random(seed)
    return [scale * (1.0 * math.exp(-i * lr / 200) + 0.002) * (1 + noise * rnd.uniform(-1, 1)) for i in range(n)]


def test_one_more_draw_of_the_original_passes():
    originals = [_curve(s) for s in range(3)]
    for seed in range(10, 20):
        r = compare_stat.compare_statistical(originals, [_curve(seed)])
        assert r["equivalent"], r["problems"]
        assert r["repeats"] == 3 and len(r["bins"]) == 10 and r["final"]["bin"] == "final"


@pytest.mark.parametrize("wrong", [dict(lr=10.0), dict(scale=1.6), dict(noise=0.3, scale=0.5)])
def test_clearly_wrong_runs_fail(wrong):
    originals = [_curve(s) for s in range(3)]
    r = compare_stat.compare_statistical(originals, [_curve(42, **wrong)])
    assert not r["equivalent"] and r["problems"]
    assert any("outside the original band" in p for p in r["problems"])


def test_reversed_curve_fails():
    originals = [_curve(s) for s in range(3)]
    assert not compare_stat.compare_statistical(originals, [_curve(5)[::-1]])["equivalent"]


def test_identical_originals_fall_back_to_the_noise_floor():
    """A deterministic stretch (only the chief trained): no spread, the band is the bin mean's own noise."""
    run = _curve(1)
    r = compare_stat.compare_statistical([run, list(run), list(run)], [list(run)])
    assert r["equivalent"]
    assert all(row["sd"] < 1e-12 and row["by"] == "noise" and row["margin"] > 0 for row in r["bins"])
    shifted = [x * 1.2 for x in run]  # 20% off: far beyond a 1500-step bin's noise
    assert not compare_stat.compare_statistical([run, list(run), list(run)], [shifted])["equivalent"]


def test_band_numbers_follow_the_stated_rule():
    q = 1 - 0.01 / 22  # 1% over 10 bins + final, two-sided
    t, z = compare_stat.t_quantile(q, 2), compare_stat.z_quantile(q)
    # three constant runs 1, 2, 3: mean 2, s 1, no step noise -> margin sqrt(4/3) * t(2) * 1
    b = compare_stat.band([[1.0] * 10, [2.0] * 10, [3.0] * 10], q)
    assert b["mean"] == 2 and b["sd"] == pytest.approx(1.0) and b["se"] == 0 and b["by"] == "spread"
    assert b["margin"] == pytest.approx(math.sqrt(4 / 3) * t)
    # no spread, alternating ±1 step noise: se^2 = MSSD/2/n = 4/2/n
    chunk = [1.0 + (-1) ** i for i in range(100)]
    b = compare_stat.band([chunk, chunk, chunk], q)
    assert b["sd"] == 0 and b["by"] == "noise"
    assert b["se"] == pytest.approx(math.sqrt(4 / 2 / 100))
    assert b["margin"] == pytest.approx(math.sqrt(4 / 3) * z * b["se"])
    assert b["lo"] == pytest.approx(b["mean"] - b["margin"]) and b["hi"] == pytest.approx(b["mean"] + b["margin"])


def test_quantiles_match_tables():
    assert compare_stat.t_quantile(0.995, 2) == pytest.approx(9.925, abs=1e-3)
    assert compare_stat.t_quantile(0.975, 1) == pytest.approx(12.706, abs=1e-3)
    assert compare_stat.t_quantile(0.975, 30) == pytest.approx(2.042, abs=1e-3)
    assert compare_stat.z_quantile(0.995) == pytest.approx(2.5758, abs=1e-4)
    q = 1 - 0.01 / 22
    assert compare_stat.t_quantile(q, 2) > compare_stat.t_quantile(q, 4) > compare_stat.t_quantile(q, 30) > \
        compare_stat.z_quantile(q)


def test_false_alarm_rate_of_correct_runs_is_small():
    """Many draws of the same process: the whole comparison (11 checks) fails about 1% of the time or less."""
    fails = 0
    for trial in range(100):
        runs = [_curve(1000 * trial + k, n=600) for k in range(4)]
        fails += not compare_stat.compare_statistical(runs[:3], runs[3:])["equivalent"]
    assert fails <= 4


def test_needs_three_runs_and_steps():
    runs = [_curve(s) for s in range(3)]
    with pytest.raises(ValueError, match=">= 3 runs"):
        compare_stat.compare_statistical(runs[:2], [runs[2]])
    with pytest.raises(ValueError):
        compare_stat.compare_statistical(runs, [[]])
    with pytest.raises(ValueError):
        compare_stat.compare_statistical(runs, [])


def test_bins_cover_the_run_and_report_step_ranges():
    r = compare_stat.compare_statistical([_curve(s, n=1003) for s in range(3)], [_curve(9, n=1000)])
    steps = [row["steps"] for row in r["bins"]]
    assert steps[0] == (0, 100) and steps[-1] == (900, 1000)
    assert all(a[1] == b[0] for a, b in zip(steps, steps[1:]))
    assert r["steps_original"] == [1003] * 3 and r["steps_migrated"] == [1000]
    assert "t_q(R-1)" in r["rule"] and r["alpha"] == 0.01 and r["quantile"] == pytest.approx(1 - 0.01 / 22)


def test_binned_means_final_and_se():
    assert compare_stat.binned_means([1, 1, 3, 3], 2) == [1, 3]
    assert compare_stat.binned_means([1, 2, 3], 5)[0] == 1
    assert compare_stat.final_loss(list(range(100)), 0.05) == pytest.approx(97.0)
    assert compare_stat.mean_se([5.0] * 50) == 0 and compare_stat.mean_se([1.0]) == 0
    # a pure trend has small successive differences: se stays small
    assert compare_stat.mean_se([i / 100 for i in range(100)]) < 1e-3
