"""Where the boot scripts are, and how to read what they captured (no TensorFlow, no numpy)."""
from __future__ import annotations

import json
import struct
from pathlib import Path

BOOT_DIR = Path(__file__).resolve().parent / "boot"
LEGACY_BOOT = BOOT_DIR / "legacy_boot.py"
TARGET_BOOT = BOOT_DIR / "target_boot.py"


class CaptureError(RuntimeError):
    pass


def decode_bits(bits: int) -> float:
    """float32 whose IEEE-754 bit pattern is the (signed) int32 `bits`, exactly, as a Python float."""
    return struct.unpack("<f", struct.pack("<i", int(bits)))[0]


def encode_bits(x: float) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0]


def read_legacy(capture_dir: Path) -> dict[str, list[tuple]]:
    """{task: [(loss, batch), ...]} from <task>.jsonl written by legacy_boot.py."""
    out: dict[str, list[tuple]] = {}
    for f in sorted(Path(capture_dir).glob("*.jsonl")):
        rows = []
        for line in f.read_text().splitlines():
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:  # torn last line of a killed task
                continue
            rows.append((float(r["loss"]), r.get("batch"), r.get("gs")))
        out[f.stem] = [(loss, batch) for loss, batch, _ in rows]
    return out


def read_legacy_ordered(capture_dir: Path) -> list[tuple]:
    """Async PS: every task's steps as (global_step, wall time, task, loss), in global-step order.

    The global step is fetched in the same session.run as the update, so two workers can report the
    same value; wall time breaks the tie (same machine, same clock).
    """
    rows = []
    for f in sorted(Path(capture_dir).glob("*.jsonl")):
        for line in f.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:  # torn last line of a killed task
                continue
            rows.append((r.get("gs") or 0, r.get("t") or 0.0, f.stem, float(r["loss"])))
    rows.sort()
    return rows


def decode_time(bits: int) -> float:
    """float64 whose IEEE-754 bit pattern is the (signed) int64 `bits` (tf.timestamp bitcast)."""
    return struct.unpack("<d", struct.pack("<q", int(bits)))[0]


def parse_loss_record(line: str) -> tuple[float, int | None, float | None] | None:
    """'<loss int32 bits> <batch> [<time int64 bits>]' -> (loss, batch, time); None for a bad line."""
    parts = line.split()
    if not parts:
        return None
    try:
        loss = decode_bits(int(parts[0]))
        batch = int(parts[1]) if len(parts) > 1 else None
        when = decode_time(int(parts[2])) if len(parts) > 2 else None
    except (ValueError, struct.error):
        return None
    return loss, batch, when


def _target_records(capture_dir: Path) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for f in sorted(Path(capture_dir).glob("*.loss")):
        rows = [r for r in (parse_loss_record(l) for l in f.read_text().splitlines()) if r is not None]
        if rows:  # every task opens its file at start; ps / coordinator files stay empty
            out[f.stem] = rows
    return out


def read_target(capture_dir: Path) -> dict[str, list[tuple]]:
    """{task: [(loss, batch), ...]} from <task>.loss written in-graph by target_boot.py."""
    return {task: [r[:2] for r in rows] for task, rows in _target_records(capture_dir).items()}


def read_target_ordered(capture_dir: Path) -> list[tuple]:
    """Async PS: every executed step as (wall time, task, loss), in execution order.

    Each task's file is in its own execution order (one append per step); tasks are merged by the
    step's wall clock, taken in-graph by the executing task (same machine, same clock).
    """
    rows = []
    for task, recs in _target_records(capture_dir).items():
        for i, (loss, _batch, when) in enumerate(recs):
            rows.append((when if when is not None else float(i), task, i, loss))
    rows.sort()
    return [(t, task, loss) for t, task, _i, loss in rows]


def read_predictions(capture_dir: Path) -> dict[str, list[dict]]:
    """{task: [item, ...]} from <task>.pred written by boot/predictions_capture.py (both sides)."""
    out: dict[str, list[dict]] = {}
    for f in sorted(Path(capture_dir).glob("*.pred")):
        rows = []
        for line in f.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:  # torn last line of a killed task
                continue
        out[f.stem] = rows
    return out


def read_evaluations(capture_dir: Path) -> dict[str, list[dict]]:
    """{task: [result, ...]} in call order, from <task>.eval written by boot/evaluations_capture.py (both sides)."""
    out: dict[str, list[dict]] = {}
    for f in sorted(Path(capture_dir).glob("*.eval")):
        rows = []
        for line in f.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:  # torn last line of a killed task
                continue
        if rows:
            out[f.stem] = rows
    return out


def has_data(capture_dir: Path) -> bool:
    d = Path(capture_dir)
    if not d.is_dir():
        return False
    return any(f.stat().st_size > 0 for f in list(d.glob("*.jsonl")) + list(d.glob("*.loss")))


def step_counts(capture_dir: Path) -> dict[str, int]:
    """{task: steps recorded so far}, for progress while a side runs: one line per step in <task>.jsonl
    (legacy) / <task>.loss (target); tasks that recorded nothing (ps, coordinator) are left out."""
    out: dict[str, int] = {}
    d = Path(capture_dir)
    for f in [*d.glob("*.jsonl"), *d.glob("*.loss")]:
        try:
            n = f.read_bytes().count(b"\n")
        except OSError:
            continue
        if n:
            out[f.stem] = n
    return out


def find_ckpt0(model_dir: Path) -> Path | None:
    """Prefix of the Estimator's model.ckpt-0 (the chief writes it before the first step)."""
    idx = Path(model_dir) / "model.ckpt-0.index"
    return idx.with_suffix("") if idx.exists() else None
