"""Finding, reading and atomically writing source files."""
from __future__ import annotations

import io
import os
import tempfile
import tokenize
from pathlib import Path

DEFAULT_EXCLUDES = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", "build", "dist", ".tox", ".eggs"}


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> list[Path]:
    """Expand files and directories (recursing into *.py) into a sorted, de-duplicated list."""
    excluded = DEFAULT_EXCLUDES | set(exclude)
    found: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in excluded and not d.startswith("."))
                for name in files:
                    if name.endswith(".py") and name not in excluded:
                        found.add(Path(root) / name)
        else:
            found.add(p)
    return sorted(found)


def decode(data: bytes) -> tuple[str, str]:
    """Decode Python source honouring a PEP 263 coding cookie or a BOM; returns (text, encoding)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def encode(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temp file in the same directory and rename, keeping the file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tfmigrate", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def module_name_for(path: Path) -> tuple[str, bool]:
    """Dotted module name of a file from the packages (directories with __init__.py) around it."""
    path = path.resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    is_package = path.stem == "__init__"
    parent = path.parent
    while (parent / "__init__.py").exists():
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts), is_package
