"""`tfmigrate checkpoint convert MODEL_DIR --program MIGRATED.py --out DIR`: an Estimator's TF1 checkpoint as a TF2
checkpoint of the migrated model, so the migrated program (model_dir=DIR) continues from the Estimator's step.

The work runs in the target env (boot/checkpoint_boot.py): the migrated program runs unchanged up to where it has
built its model and optimizer, the TF1 checkpoint is read by TF1 name into them, and `tf.train.Checkpoint(model=,
optimizer=)` is written with a CheckpointManager, which is what the program's own restore reads. This process
never imports TensorFlow: it finds the checkpoint, runs the boot, prints its report.
Exit codes: 0 written; 1 a mismatch (missing / shape / extra names: nothing written); 2 an error.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from . import capture

EXIT_WRITTEN, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2
CHECKPOINT_BOOT = capture.BOOT_DIR / "checkpoint_boot.py"
_BOOT_MISMATCH = 3  # checkpoint_boot's exit code when it reported a mismatch


class ConvertError(RuntimeError):
    pass


def latest_checkpoint(model_dir: Path) -> Path:
    """The prefix the `checkpoint` state file of model_dir names (what tf.train.latest_checkpoint returns)."""
    state = model_dir / "checkpoint"
    if not model_dir.is_dir():
        raise ConvertError(f"{model_dir}: no such directory (give the Estimator's model_dir)")
    if not state.is_file():
        raise ConvertError(f"{model_dir} holds no `checkpoint` file: the Estimator wrote no checkpoint there "
                           "(give its model_dir, or --checkpoint PREFIX)")
    match = re.search(r'^model_checkpoint_path:\s*"((?:[^"\\]|\\.)*)"', state.read_text(), re.M)
    if match is None:
        raise ConvertError(f"{state} names no model_checkpoint_path")
    name = match.group(1).encode().decode("unicode_escape")
    prefix = Path(name) if os.path.isabs(name) else model_dir / name
    return check_prefix(prefix)


def check_prefix(prefix: Path) -> Path:
    if not Path(f"{prefix}.index").is_file():
        raise ConvertError(f"{prefix}: not a checkpoint (no {prefix}.index)")
    return prefix


def check_out(out: Path) -> None:
    """DIR gets a fresh checkpoint: refuse one that already holds files (a checkpoint there would be mixed up)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConvertError(f"--out {out} exists and is not an empty directory: give a new directory")


def run_boot(python: Path, program: Path, args: list[str], prefix: Path, out: Path, report: Path,
             timeout: float = 600.0, dump: Path | None = None) -> tuple[int, str]:
    """Run checkpoint_boot on `program` in the target env; (exit code, the end of its output)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFMIGRATE_") and k != "TF_CONFIG"}
    # one process: without TF_CONFIG the program builds its model as it does on one machine (parameter-server
    # programs fall back to the default strategy; their ShardedVariables restore from full tensors)
    env.update({"TFMIGRATE_CONVERT_FROM": str(prefix), "TFMIGRATE_CONVERT_OUT": str(out),
                "TFMIGRATE_CONVERT_REPORT": str(report), "TF_CPP_MIN_LOG_LEVEL": env.get("TF_CPP_MIN_LOG_LEVEL", "2"),
                "CUDA_VISIBLE_DEVICES": env.get("CUDA_VISIBLE_DEVICES", "")})
    if dump is not None:
        env["TFMIGRATE_CONVERT_DUMP"] = str(dump)
    try:
        proc = subprocess.run([str(python), str(CHECKPOINT_BOOT), str(program), *args], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ConvertError(f"{program} did not build its model within {timeout:.0f} s") from None
    return proc.returncode, (proc.stdout[-2000:] + proc.stderr[-4000:])


def convert(model_dir: Path, program: Path, out: Path, checkpoint: Path | None = None, args: list[str] = (),
            python: Path | None = None, timeout: float = 600.0) -> dict:
    """The boot's report (see checkpoint_boot.convert) plus "exit"; raises ConvertError on bad inputs / failures."""
    if not program.is_file():
        raise ConvertError(f"--program {program}: no such program file")
    prefix = check_prefix(checkpoint) if checkpoint is not None else latest_checkpoint(model_dir)
    check_out(out)
    if python is None:
        from . import envs

        python = envs.ensure("target")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tfmigrate-convert-") as tmp:
        report = Path(tmp) / "report.json"
        code, tail = run_boot(python, program.resolve(), list(args), prefix.resolve(), out.resolve(), report, timeout)
        doc = json.loads(report.read_text()) if report.is_file() else {}
    if created and not any(out.iterdir()):
        out.rmdir()  # nothing written: leave no empty directory behind
    if "error" in doc or code not in (0, _BOOT_MISMATCH) or "mapped" not in doc:
        why = doc.get("error") or f"the program exited with code {code} before its model was built"
        raise ConvertError(f"{why}\n{tail.strip()}" if tail.strip() else why)
    doc["exit"] = EXIT_WRITTEN if doc.get("written") else EXIT_MISMATCH
    return doc


def _shape(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def table(doc: dict) -> str:
    """The report as text: what mapped (TF1 name → TF2 variable, shape), then every mismatch, then the verdict."""
    lines = [f"TF1 checkpoint: {doc['checkpoint']} (global_step {doc.get('step')})",
             f"migrated model: {doc.get('model')}, optimizer {doc.get('optimizer')}"]
    rows = [(m["tf1"], m["tf2"] + (f" ({m['shards']} shards)" if m.get("shards") else ""), _shape(m["shape"]))
            for m in doc["mapped"]]
    if rows:
        widths = [max(len(r[i]) for r in rows + [("TF1 name", "TF2 variable", "shape")]) for i in range(3)]
        lines.append("")
        lines.append(f"  {'TF1 name':<{widths[0]}}  {'TF2 variable':<{widths[1]}}  shape")
        lines += [f"  {a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in rows]
    not_exact = [m["tf1"] for m in doc["mapped"] if not m.get("exact", True)]
    sections = [
        ("missing from the checkpoint (the migrated model has them)",
         [f"{m['tf1']}  ({m['tf2']}, {_shape(m['shape'])})" for m in doc.get("missing", [])]),
        ("shape mismatch",
         [f"{m['tf1']}: {_shape(m['saved_shape'])} in the checkpoint, {_shape(m['shape'])} for {m['tf2']}"
          for m in doc.get("shape_mismatch", [])]),
        ("extra in the checkpoint (no variable of the migrated model takes them)",
         [f"{m['tf1']}  {_shape(m['saved_shape'])}" for m in doc.get("extra", [])]),
        ("not equal after assignment", not_exact),
    ]
    for title, items in sections:
        if items:
            lines += ["", f"{title}:"] + [f"  {item}" for item in items]
    lines.append("")
    if doc.get("written"):
        lines.append(f"wrote {doc['written']}: run the migrated program with its model_dir set to {doc['out']} "
                     f"to continue from step {doc.get('step')}")
    else:
        lines.append("nothing written: the migrated model and the checkpoint differ (nothing is guessed)")
    return "\n".join(lines) + "\n"
