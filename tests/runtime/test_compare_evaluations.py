"""verify's evaluate() comparison: capture format, key/value rules, verdict, text/JSON/HTML report (no TF)."""
from __future__ import annotations

import io
import json
import sys

import pytest
from rich.console import Console

from tfmigrate.runtime import capture, compare, report
from tfmigrate.runtime.capture import BOOT_DIR


def _enc(v, dtype="float32"):
    return {"dtype": dtype, "shape": [], "values": [v]}


def _result(**metrics):
    out = {k: (_enc(v, "int64") if k == "global_step" else _enc(v)) for k, v in metrics.items()}
    return out


BASE = dict(accuracy=0.75, auc=0.8125, average_loss=0.53125, loss=0.53125, global_step=100)


def test_equal_last_evaluations_are_equivalent_and_earlier_ones_do_not_count():
    early = _result(**dict(BASE, accuracy=0.5, global_step=50))
    a = {"chief0": [early, _result(**BASE)]}
    b = {"chief0": [_result(**dict(BASE, accuracy=0.25)), _result(**BASE)]}
    r = compare.compare_evaluations(a, b)
    assert r["equivalent"] and not r["problems"]
    rows = r["tasks"]["chief0"]["metrics"]
    assert [m["key"] for m in rows] == sorted(BASE)
    assert all(m["ok"] and m["abs"] == 0 for m in rows)
    assert r["max_abs"]["accuracy"] == 0


def test_value_beyond_tolerance_fails_and_names_key():
    rtol, atol = compare.METRIC_RTOL, compare.METRIC_ATOL
    edge = atol + rtol * BASE["auc"]
    inside = compare.compare_evaluations({"chief0": [_result(**BASE)]},
                                         {"chief0": [_result(**dict(BASE, auc=BASE["auc"] + edge * 0.99))]})
    assert inside["equivalent"]
    assert inside["max_abs"]["auc"] == pytest.approx(edge * 0.99)
    outside = compare.compare_evaluations({"chief0": [_result(**BASE)]},
                                          {"chief0": [_result(**dict(BASE, auc=BASE["auc"] + edge * 1.5))]})
    assert not outside["equivalent"]
    (p,) = outside["problems"]
    assert p.startswith("chief0: evaluate() key 'auc': |Δ|=") and "0.8125" in p
    bad = [m for m in outside["tasks"]["chief0"]["metrics"] if not m["ok"]]
    assert [m["key"] for m in bad] == ["auc"]


def test_integer_results_must_be_equal():
    r = compare.compare_evaluations({"chief0": [_result(**BASE)]},
                                    {"chief0": [_result(**dict(BASE, global_step=99))]})
    assert not r["equivalent"]
    assert r["problems"] == ["chief0: evaluate() key 'global_step': must be equal (100 vs 99)"]


def test_missing_and_extra_keys_are_named():
    migrated = dict(BASE)
    del migrated["auc"]
    migrated["mean_absolute_error"] = 0.1
    r = compare.compare_evaluations({"chief0": [_result(**BASE)]}, {"chief0": [_result(**migrated)]})
    assert not r["equivalent"]
    assert "chief0: evaluate() key 'auc': missing in the migrated result" in r["problems"]
    assert "chief0: evaluate() key 'mean_absolute_error': missing in the original result" in r["problems"]
    assert len(r["problems"]) == 2


def test_nan_equal_only_to_nan():
    nan = float("nan")
    same = compare.compare_evaluations({"c0": [_result(loss=nan)]}, {"c0": [_result(loss=nan)]})
    assert same["equivalent"]
    diff = compare.compare_evaluations({"c0": [_result(loss=nan)]}, {"c0": [_result(loss=0.5)]})
    assert not diff["equivalent"]


def test_no_evaluate_on_either_side_is_said_and_does_not_fail():
    r = compare.compare_evaluations({}, {})
    assert r["equivalent"] and r["notes"] == ["no evaluate() on either side"] and not r["tasks"]


def test_evaluation_on_one_side_only():
    one = {"chief0": [_result(**BASE)]}
    r = compare.compare_evaluations(one, {})
    assert not r["equivalent"]
    assert r["problems"] == ["chief0: the original evaluated (1x), the migrated program did not"]
    # the Estimator evaluated nowhere (MWMS without an evaluator task), the migrated program did: said, not failed
    r = compare.compare_evaluations({}, one)
    assert r["equivalent"] and not r["tasks"]
    assert r["notes"][0].startswith("the original ran no evaluate(); the migrated program evaluated on chief0")
    # a worker evaluating only in the migrated program (the Estimator evaluated on its chief): noted
    r = compare.compare_evaluations(one, dict(one, worker1=[_result(**BASE)]))
    assert r["equivalent"] and list(r["tasks"]) == ["chief0"]
    assert r["notes"] == ["worker1: evaluated only in the migrated program (1x); not compared"]


def test_unnamed_keras_result_fails_on_keys():
    """Keras evaluate without return_dict=True returns a list: the capture keeps it under "<unnamed>"."""
    r = compare.compare_evaluations({"chief0": [_result(loss=0.5)]},
                                    {"chief0": [{"<unnamed>": {"dtype": "float64", "shape": [2],
                                                               "values": [0.5, 0.75]}}]})
    assert not r["equivalent"]
    assert any("'<unnamed>': missing in the original result" in p for p in r["problems"])


def test_capture_roundtrip_through_boot_module(tmp_path, monkeypatch):
    """The boot scripts' recorder (as run inside the TF envs) writes what capture.read_evaluations reads."""
    np = pytest.importorskip("numpy")
    monkeypatch.syspath_prepend(str(BOOT_DIR))
    sys.modules.pop("evaluations_capture", None)
    import evaluations_capture

    class Est:
        def evaluate(self, inner=False):
            if not inner:
                self.evaluate(inner=True)  # nested (a subclass calling its base): recorded once
            return {"accuracy": np.float32(0.1), "global_step": np.int64(7), "label/mean": np.float32(0.5)}

    Est.evaluate = evaluations_capture.recording(Est.evaluate, str(tmp_path), "chief0")
    assert evaluations_capture.recording(Est.evaluate, str(tmp_path), "chief0") is Est.evaluate
    Est().evaluate()
    Est().evaluate()
    got = capture.read_evaluations(tmp_path)
    assert list(got) == ["chief0"] and len(got["chief0"]) == 2
    row = got["chief0"][-1]
    assert row["accuracy"]["values"] == [float(np.float32(0.1))]  # float32 exactly
    assert row["global_step"] == {"dtype": "int64", "shape": [], "values": [7]}
    assert compare.compare_evaluations(got, got)["equivalent"]


def _verify_result(ev: dict) -> dict:
    cmp = compare.compare_sync({"chief0": [(1.0, 8)]}, {"chief0": [(1.0, 8)]})
    cmp["evaluations"] = ev
    cmp["problems"] += [f"evaluate: {p}" for p in ev["problems"]]
    cmp["equivalent"] = cmp["equivalent"] and ev["equivalent"]
    return {"settings": {"original": "o.py", "migrated": "m.py", "workers": 1, "ps": 0, "steps": None, "args": []},
            "versions": {}, "run_dir": "/tmp/x", "timings": {},
            "verdict": "equivalent" if cmp["equivalent"] else "NOT equivalent",
            "losses": {"original": {"chief0": [1.0]}, "migrated": {"chief0": [1.0]}}, "comparison": cmp}


def test_reports_show_metric_table_and_verdict(tmp_path):
    ev = compare.compare_evaluations({"chief0": [_result(**BASE)]},
                                     {"chief0": [_result(**dict(BASE, accuracy=0.5))]})
    res = _verify_result(ev)
    buf = io.StringIO()
    report.print_verdict(res, Console(file=buf, width=200))
    text = buf.getvalue()
    assert "evaluate() chief0" in text and "accuracy" in text and "NO: |Δ|=0.25" in text
    assert "verdict: NOT equivalent" in text and "evaluate: chief0: evaluate() key 'accuracy'" in text
    report.write_json(res, tmp_path / "r.json")
    rows = json.loads((tmp_path / "r.json").read_text())["comparison"]["evaluations"]["tasks"]["chief0"]["metrics"]
    assert {m["key"]: (m["original"], m["migrated"], m["abs"], m["ok"]) for m in rows}["accuracy"] == \
        (0.75, 0.5, 0.25, False)
    pytest.importorskip("matplotlib")
    report.write_html(res, tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    assert 'id="evaluations"' in html and "<td class=\"l\">accuracy</td><td>0.75</td>" in html
    assert "NO: |Δ|=0.25" in html


def test_reports_say_when_nothing_was_evaluated(tmp_path):
    res = _verify_result(compare.compare_evaluations({}, {}))
    buf = io.StringIO()
    report.print_verdict(res, Console(file=buf, width=200))
    assert "evaluate: no evaluate() on either side" in buf.getvalue()
    assert "verdict: equivalent" in buf.getvalue()
    pytest.importorskip("matplotlib")
    report.write_html(res, tmp_path / "r.html")
    assert "no evaluate() on either side" in (tmp_path / "r.html").read_text()
