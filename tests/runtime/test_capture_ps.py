"""Reading what the boot scripts captured in async PS runs (no TensorFlow)."""
import json
import struct

from tfmigrate.runtime import capture


def _tbits(t):
    return struct.unpack("<q", struct.pack("<d", t))[0]


def _line(loss, t, batch=32):
    return f"{capture.encode_bits(loss)} {batch} {_tbits(t)}\n"


def test_parse_record_with_time_is_exact():
    loss, batch, when = capture.parse_loss_record(_line(0.25, 1795293514.990333))
    assert (loss, batch, when) == (0.25, 32, 1795293514.990333)
    assert capture.parse_loss_record("1 2") == (capture.decode_bits(1), 2, None)
    assert capture.parse_loss_record("x y z") is None


def test_target_ordered_merges_workers_by_execution_time(tmp_path):
    (tmp_path / "worker0.loss").write_text(_line(1.0, 10.0) + _line(0.5, 12.0) + _line(0.25, 14.0))
    (tmp_path / "worker1.loss").write_text(_line(0.75, 11.0) + _line(0.375, 13.0))
    (tmp_path / "chief0.loss").write_text("")  # the coordinator opens its file but runs no step
    (tmp_path / "ps0.loss").write_text("")
    rows = capture.read_target_ordered(tmp_path)
    assert [r[2] for r in rows] == [1.0, 0.75, 0.5, 0.375, 0.25]
    assert [r[1] for r in rows] == ["worker0", "worker1", "worker0", "worker1", "worker0"]
    assert set(capture.read_target(tmp_path)) == {"worker0", "worker1"}  # empty files are no task


def test_legacy_ordered_by_global_step_then_time(tmp_path):
    def rec(gs, t, loss):
        return json.dumps({"gs": gs, "t": t, "loss": loss, "batch": 32}) + "\n"

    (tmp_path / "chief0.jsonl").write_text(rec(0, 1.0, 3.0) + rec(1, 1.1, 2.0) + rec(3, 1.4, 0.5))
    (tmp_path / "worker0.jsonl").write_text(rec(1, 1.2, 1.5) + rec(2, 1.3, 1.0) + '{"gs": 4, "lo')
    rows = capture.read_legacy_ordered(tmp_path)
    assert [(r[0], r[2]) for r in rows] == [(0, "chief0"), (1, "chief0"), (1, "worker0"), (2, "worker0"),
                                          (3, "chief0")]
    assert [r[3] for r in rows] == [3.0, 2.0, 1.5, 1.0, 0.5]
