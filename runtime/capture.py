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


def read_legacy_gs(capture_dir: Path) -> list[float]:
    """All tasks' losses merged in global-step order (async PS: one curve for the whole cluster)."""
    rows = []
    for f in sorted(Path(capture_dir).glob("*.jsonl")):
        for line in f.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            rows.append((r.get("gs") or 0, r.get("t") or 0, float(r["loss"])))
    rows.sort()
    return [r[2] for r in rows]


def parse_loss_line(line: str) -> tuple[float, int | None] | None:
    parts = line.split()
    if not parts:
        return None
    try:
        loss = decode_bits(int(parts[0]))
        batch = int(parts[1]) if len(parts) > 1 else None
    except (ValueError, struct.error):
        return None
    return loss, batch


def read_target(capture_dir: Path) -> dict[str, list[tuple]]:
    """{task: [(loss, batch), ...]} from <task>.loss written in-graph by target_boot.py."""
    out: dict[str, list[tuple]] = {}
    for f in sorted(Path(capture_dir).glob("*.loss")):
        rows = [r for r in (parse_loss_line(l) for l in f.read_text().splitlines()) if r is not None]
        out[f.stem] = rows
    return out


def has_data(capture_dir: Path) -> bool:
    d = Path(capture_dir)
    if not d.is_dir():
        return False
    return any(f.stat().st_size > 0 for f in list(d.glob("*.jsonl")) + list(d.glob("*.loss")))


def find_ckpt0(model_dir: Path) -> Path | None:
    """Prefix of the Estimator's model.ckpt-0 (the chief writes it before the first step)."""
    idx = Path(model_dir) / "model.ckpt-0.index"
    return idx.with_suffix("") if idx.exists() else None
