"""Finding, reading and atomically writing source files."""
from __future__ import annotations

import fnmatch
import io
import os
import tempfile
import tokenize
from pathlib import Path, PurePosixPath

DEFAULT_EXCLUDES = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", "build", "dist", ".tox", ".eggs"}


def discover(paths: list[str], extend_exclude: tuple[str, ...] = (), exclude: tuple[str, ...] | None = None,
             root: Path | None = None, force_exclude: bool = False) -> list[Path]:
    """Expand files and directories (recursing into *.py) into a sorted, de-duplicated list.

    `exclude` (default: DEFAULT_EXCLUDES) and `extend_exclude` are names or globs, matched against a file's or
    directory's name and against its path relative to `root` (the configuration's directory). Files named
    explicitly are always taken unless `force_exclude` (pre-commit passes every staged file by name)."""
    patterns = (*(DEFAULT_EXCLUDES if exclude is None else exclude), *extend_exclude)

    def excluded(path: Path) -> bool:
        return any(glob_match(path, pattern, root) for pattern in patterns)

    found: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for walk_root, dirs, files in os.walk(p):
                base = Path(walk_root)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not excluded(base / d))
                for name in files:
                    if name.endswith(".py") and not excluded(base / name):
                        found.add(base / name)
        elif not (force_exclude and excluded(p)):
            found.add(p)
    return sorted(found)


def glob_match(path: Path, pattern: str, root: Path | None) -> bool:
    """`pattern` (a name or a glob, `dir/` allowed) against the path's name, the path as given, and the path
    relative to `root`; a pattern matching a directory also matches what is inside it."""
    pattern = pattern.rstrip("/")
    candidates = [path.name, path.as_posix()]
    if root is not None:
        try:
            candidates.append(path.resolve().relative_to(root.resolve()).as_posix())
        except (ValueError, OSError):
            pass
    if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
        return True
    return any(fnmatch.fnmatchcase(parent.as_posix(), pattern) for c in candidates[1:]
               for parent in PurePosixPath(c).parents if parent.as_posix() not in (".", "/"))


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
