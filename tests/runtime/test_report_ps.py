"""Verdict output of the statistical (async PS) mode: mode, repeats, canonical checkpoint, rule, bins table."""
import json

from rich.console import Console

from tfmigrate.runtime import compare_stat, report


def _result():
    orig = [[1.0 / (1 + i / 50) + 0.01 * ((i * 7 + k) % 5) for i in range(300)] for k in range(3)]
    mig = [[1.0 / (1 + i / 50) + 0.01 * ((i * 3) % 5) for i in range(300)]]
    return {
        "settings": {"original": "o.py", "migrated": "m.py", "workers": 2, "ps": 1},
        "versions": {}, "run_dir": "/tmp/x", "timings": {"init_total": 2.5, "migrated_total": 15.0},
        "init_checkpoint": "/tmp/x/init/model_dir/model.ckpt-0", "ready_poll_secs": 1.0,
        "runs": [{"side": "original#1", "steps_per_task": {"chief0": 200, "worker0": 100}},
                 {"side": "migrated", "steps_per_task": {"worker0": 300}}],
        "losses": {"original_runs": orig, "migrated_runs": mig},
        "comparison": compare_stat.compare_statistical(orig, mig),
    }


def test_console_names_mode_repeats_checkpoint_rule_and_bins(tmp_path):
    res = _result()
    res["verdict"] = "equivalent" if res["comparison"]["equivalent"] else "NOT equivalent"
    c = Console(record=True, width=240)
    report.print_verdict(res, c)
    out = c.export_text()
    assert "mode: statistical" in out and "3 runs of the original" in out
    assert "canonical initial checkpoint: /tmp/x/init/model_dir/model.ckpt-0" in out
    assert "readiness poll 1 s instead of 30 s (timing only)" in out
    assert "rule: margin = sqrt(1+1/R)" in out and "q = 0.99955" in out
    assert "orig #3" in out and "final" in out and "0–29" in out
    assert "original#1: steps per task {'chief0': 200, 'worker0': 100}" in out
    assert out.strip().splitlines()[-1].endswith("equivalent")
    report.write_json(res, tmp_path / "r.json")
    cmp = json.loads((tmp_path / "r.json").read_text())["comparison"]
    assert cmp["mode"] == "statistical" and len(cmp["bins"]) == 10 and cmp["final"]["margin"] > 0
    report.write_html(res, tmp_path / "r.html")
    assert "<svg" in (tmp_path / "r.html").read_text()


def test_console_says_why_a_synchronous_run_is_compared_statistically():
    res = _result()
    res["settings"]["ps"] = 0
    res.pop("ready_poll_secs")
    res["verdict"] = "equivalent"
    c = Console(record=True, width=240)
    report.print_verdict(res, c)
    out = c.export_text()
    assert "mode: statistical (--statistical: the original's own runs differ; the chief's losses" in out
    assert "the chief's steps in order" in out and "readiness poll" not in out


def test_a_run_where_one_task_made_every_step_is_flagged_as_one_async_worker():
    """On 2 cores one TF1 task can take every step of a 2-worker PS job: the comparison then says so."""
    from tfmigrate.runtime import cluster, ps_verify

    tasks = [cluster.Task("chief", 0), cluster.Task("worker", 0), cluster.Task("worker", 1), cluster.Task("ps", 0)]
    runs = [{"side": "original#1", "steps_per_task": {"chief0": 600, "worker0": 1}},
            {"side": "original#2", "steps_per_task": {"chief0": 310, "worker0": 290}},
            {"side": "migrated", "steps_per_task": {"worker0": 600}}]
    caveats = ps_verify.lone_worker_caveats(runs, tasks)
    assert len(caveats) == 2
    assert caveats[0].startswith("original#1: chief0 made 600 of 601 steps although 3 tasks train")
    assert caveats[1].startswith("migrated: worker0 made 600 of 600 steps although 2 tasks train")
    # one worker configured on the migrated side (a coordinator and one worker): nothing to say
    assert ps_verify.lone_worker_caveats(runs[2:], tasks[:2] + tasks[3:]) == []
    res = _result()
    res["verdict"] = "equivalent"
    res["caveats"] = caveats
    c = Console(record=True, width=240)
    report.print_verdict(res, c)
    assert "caveat: migrated: worker0 made 600 of 600 steps" in c.export_text()
