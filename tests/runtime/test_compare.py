import math
import struct

import pytest

from tfmigrate.runtime import capture, compare


def _steps(vals, batch=32):
    return [(v, batch) for v in vals]


def test_equal_runs_are_equivalent():
    a = {"chief0": _steps([3.0, 2.0, 1.0]), "worker0": _steps([4.0, 2.5, 1.5])}
    r = compare.compare_sync(a, a)
    assert r["equivalent"] and r["max_abs"] == 0 and r["max_rel"] == 0 and r["first_break"] is None
    assert r["workers"]["chief0"]["bit_equal"] == 3


def test_divergent_at_step_k_names_first_step_and_worker():
    a = {"chief0": _steps([3.0, 2.0, 1.0, 0.5]), "worker0": _steps([3.0, 2.0, 1.0, 0.5])}
    b = {"chief0": _steps([3.0, 2.0, 1.0, 0.6]), "worker0": _steps([3.0, 2.0, 1.1, 0.7])}
    r = compare.compare_sync(a, b)
    assert not r["equivalent"]
    assert r["first_break"]["worker"] == "worker0" and r["first_break"]["step"] == 2
    assert r["workers"]["chief0"]["first_break"]["step"] == 3
    assert any("first step breaking tolerance is 2" in p for p in r["problems"])


def test_tolerance_edges():
    rtol, atol = 1e-5, 1e-6
    a = 10.0
    edge = atol + rtol * a
    assert compare.within(a, a + edge * 0.999, rtol, atol)
    assert not compare.within(a, a + edge * 1.001, rtol, atol)
    assert compare.within(0.0, 0.9e-6, rtol, atol)  # atol covers a zero loss
    assert not compare.within(0.0, 1.1e-6, rtol, atol)
    assert compare.within(a, a - edge * 0.999, rtol, atol)
    r = compare.compare_sync({"c": _steps([a])}, {"c": _steps([a + edge * 2])}, rtol, atol)
    assert not r["equivalent"]
    r = compare.compare_sync({"c": _steps([a])}, {"c": _steps([a + edge * 2])}, rtol=1e-4, atol=atol)
    assert r["equivalent"]
    assert not compare.within(math.nan, 1.0, rtol, atol)


def test_step_count_mismatch():
    r = compare.compare_sync({"chief0": _steps([1.0, 1.0, 1.0])}, {"chief0": _steps([1.0, 1.0])})
    assert not r["equivalent"] and r["workers"]["chief0"]["step_count_mismatch"]
    assert any("step count differs (3 original vs 2 migrated)" in p for p in r["problems"])
    # --steps K truncates both sides
    assert compare.compare_sync({"chief0": _steps([1.0, 1.0, 1.0])}, {"chief0": _steps([1.0, 1.0])},
                                max_steps=2)["equivalent"]


def test_batch_mismatch_says_data_differs():
    a = {"chief0": [(1.0, 32), (1.0, 32)]}
    b = {"chief0": [(1.0, 32), (1.0, 64)]}
    r = compare.compare_sync(a, b)
    assert not r["equivalent"]
    assert any("data differs at step 1" in p for p in r["problems"])


def test_missing_worker_is_not_equivalent():
    r = compare.compare_sync({"chief0": _steps([1.0]), "worker0": _steps([1.0])}, {"chief0": _steps([1.0])})
    assert not r["equivalent"] and any("worker0" in p for p in r["problems"])


@pytest.mark.parametrize("x", [0.0, -0.0, 1.0, 12.901063919067383, 1e-30, -3.5, float("inf")])
def test_loss_bits_roundtrip_exact(x):
    bits = capture.encode_bits(x)
    assert -(2**31) <= bits < 2**31
    assert capture.decode_bits(bits) == struct.unpack("<f", struct.pack("<f", x))[0]


def test_parse_tf_print_line():
    # what tf.print(tf.bitcast(loss, tf.int32), batch) writes: "1095658178 32"
    loss, batch, when = capture.parse_loss_record("1095658178 32")
    assert batch == 32 and when is None and loss == pytest.approx(12.901063919067383, rel=0, abs=0)
    assert capture.parse_loss_record("") is None and capture.parse_loss_record("garbage") is None
    assert capture.decode_bits(-1082130432) == -1.0


def test_read_captures(tmp_path):
    (tmp_path / "chief0.jsonl").write_text('{"i":0,"gs":0,"loss":1.5,"batch":32}\n{"i":1,"gs":1,"loss":1.25,"batch":32}\n{"i":2')
    (tmp_path / "chief0.loss").write_text(f"{capture.encode_bits(1.5)} 32\n{capture.encode_bits(1.25)} 32\n")
    assert capture.read_legacy(tmp_path) == {"chief0": [(1.5, 32), (1.25, 32)]}
    assert capture.read_target(tmp_path) == {"chief0": [(1.5, 32), (1.25, 32)]}


def _pred(**values):
    return {k: {"dtype": "float32" if isinstance(v, float) else "int64", "shape": [], "values": [v]}
            for k, v in values.items()}


def test_predictions_equal_within_tolerance_and_reported():
    a = {"chief0": [_pred(p=0.5, c=1), _pred(p=0.25, c=2)]}
    b = {"chief0": [_pred(p=0.5, c=1), _pred(p=0.25 + 1e-7, c=2)]}
    r = compare.compare_predictions(a, b)
    assert r["equivalent"] and r["tasks"]["chief0"]["values"] == 4 and r["tasks"]["chief0"]["bit_equal"] == 3
    assert r["max_abs"] == pytest.approx(1e-7)


@pytest.mark.parametrize("b, words", [
    ({"chief0": [_pred(p=0.5, c=1)]}, "2 predictions from the original, 1 from the migrated"),
    ({"chief0": [_pred(p=0.5, c=1), _pred(p=0.26, c=2)]}, "prediction 1 differs: 'p'"),
    ({"chief0": [_pred(p=0.5, c=1), _pred(p=0.25, c=3)]}, "prediction 1 differs: 'c' 2 vs 3"),
    ({"chief0": [_pred(p=0.5, c=1), _pred(p=0.25)]}, "prediction 1 has keys"),
    ({}, "0 from the migrated"),
])
def test_predictions_that_differ_are_not_equivalent(b, words):
    a = {"chief0": [_pred(p=0.5, c=1), _pred(p=0.25, c=2)]}
    r = compare.compare_predictions(a, b)
    assert not r["equivalent"] and any(words in p for p in r["problems"]), r["problems"]


def test_no_predictions_on_either_side_is_none():
    assert compare.compare_predictions({}, {}) is None
