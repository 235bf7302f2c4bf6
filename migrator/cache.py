"""The rewrite result cache (like ruff's and black's): a second run over an unchanged tree parses nothing.

One entry per migration unit (a single file, or the files migrated together as one program — a file's result
depends on every file of its unit), keyed by a hash of:
  - the tool fingerprint: tfmigrate's version and the bytes of its own sources and templates (an edited checkout
    invalidates everything), the libcst version, the Python version;
  - the options that change results (`Options`: target, strategy);
  - for every file of the unit: its path, its module name (from the `__init__.py` files around it: relative
    imports and package links depend on it) and its bytes.
An entry stores, per file, the status, the output bytes when changed, the diagnostics (so `--check` still
reports findings), the error text and the linked files.

Safe under parallel runs: entries are written to a temp file and renamed into place (os.replace), so a reader
sees a whole entry or none; a concurrent prune that removes an entry only costs a miss. Bounded: when a run has
written entries and the cache holds more than `max_entries`, the least recently used (mtime; a hit touches its
entry) are removed down to 90%. Corrupt or foreign entries are ignored and rewritten. Internal errors (a rule
defect) are never cached; stdin is never cached (the CLI does not ask).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from .diagnostics import Diagnostic, FileResult
from .files import module_name_for

FORMAT = 2
MAX_ENTRIES = 20_000
_PACKAGES = ("tfmigrate", "tfmigrate.rules")  # whose sources decide results (runtime/ does not)


def default_dir() -> Path:
    """$TFMIGRATE_CACHE_DIR, else `rewrite-cache` under tfmigrate's home (TFMIGRATE_HOME, else the user cache dir:
    $XDG_CACHE_HOME/tfmigrate, ~/.cache/tfmigrate) — the same home the runtime keeps its environments in."""
    env = os.environ.get("TFMIGRATE_CACHE_DIR")
    if env:
        return Path(env)
    from tfmigrate.runtime.envs import home

    return home() / "rewrite-cache"


def fingerprint() -> str:
    """What, besides the inputs, decides a result: this tool's code and templates (bytes, so an edited checkout
    misses and a fresh checkout of the same commit hits), the parser's version, Python's version."""
    import importlib.util

    h = hashlib.blake2b(digest_size=16)
    h.update(f"format {FORMAT}\n{sys.version}\n".encode())
    libcst = importlib.util.find_spec("libcst")  # located, not imported (a warm run never imports LibCST)
    if libcst is not None and libcst.origin:
        try:
            h.update(Path(libcst.origin).with_name("_version.py").read_bytes())
        except OSError:
            h.update(b"libcst ?")
    for package in _PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in spec.submodule_search_locations or ():
            for where, dirs, files in os.walk(root):  # os.walk, not Path.rglob: a warm run pays for this
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                rel = os.path.relpath(where, root)
                for name in sorted(files):
                    if name.endswith((".py", ".j2")):
                        with open(os.path.join(where, name), "rb") as fh:
                            h.update(f"{package}/{name if rel == '.' else rel + '/' + name}\0".encode())
                            h.update(fh.read())
    return h.hexdigest()


class ResultCache:
    def __init__(self, directory: Path | str, max_entries: int = MAX_ENTRIES, tool: str | None = None):
        self.directory = Path(directory) / f"v{FORMAT}"
        self.max_entries = max_entries
        self._tool = tool
        self.hits = self.misses = self.written = 0
        self.broken = False  # the directory cannot be written: stop trying for this run

    @property
    def tool(self) -> str:
        if self._tool is None:
            self._tool = fingerprint()
        return self._tool

    # ---- keys ---------------------------------------------------------------------------------------------------
    def key(self, options, unit: dict[str, bytes]) -> str:
        h = hashlib.blake2b(digest_size=20)
        h.update(self.tool.encode())
        h.update(repr(options).encode())
        for path in sorted(unit):
            data = unit[path]
            name, is_package = module_name_for(Path(path)) if path != "<stdin>" else ("", False)
            h.update(b"\0file\0" + os.fsencode(path) + b"\0" + name.encode() + (b"\0pkg" if is_package else b"\0mod"))
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    # ---- read ---------------------------------------------------------------------------------------------------
    def get(self, key: str, unit: dict[str, bytes]) -> list[FileResult] | None:
        entry = self._entry(key)
        try:
            raw = entry.read_bytes()
        except OSError:
            self.misses += 1
            return None
        try:
            results = _decode(raw, key, unit)
        except Exception:  # a corrupt, truncated or foreign entry: a miss; the run rewrites it
            results = None
        if results is None:
            self.misses += 1
            return None
        self.hits += 1
        try:
            os.utime(entry)  # recently used: pruning removes the least recently used first
        except OSError:
            pass
        return results

    # ---- write --------------------------------------------------------------------------------------------------
    def put(self, key: str, results: list[FileResult]) -> None:
        if self.broken or any(r.status == "failed" and r.error.startswith(("internal error", "cannot read"))
                              for r in results):
            return
        entry = self._entry(key)
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            import tempfile

            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=entry.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(_encode(key, results))
                os.replace(tmp, entry)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            self.broken = True
            return
        self.written += 1

    def prune(self) -> int:
        """Remove the least recently used entries beyond max_entries (down to 90%); returns how many went."""
        if self.broken or not self.written:
            return 0
        entries = []
        try:
            with os.scandir(self.directory) as subdirs:
                for sub in subdirs:
                    if not sub.is_dir():
                        continue
                    with os.scandir(sub.path) as files:
                        for f in files:
                            try:
                                st = f.stat()
                            except OSError:
                                continue
                            if f.name.endswith(".tmp"):
                                if st.st_mtime < time.time() - 3600:  # left by a killed run
                                    _unlink(f.path)
                                continue
                            entries.append((st.st_mtime, f.path))
        except OSError:
            return 0
        if len(entries) <= self.max_entries:
            return 0
        entries.sort()
        excess = len(entries) - int(self.max_entries * 0.9)
        for _, path in entries[:excess]:
            _unlink(path)
        return excess


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _encode(key: str, results: list[FileResult]) -> bytes:
    rows = []
    for r in results:
        rows.append({
            "path": r.path,
            "status": r.status,
            "output": base64.b64encode(r.output).decode() if r.status == "changed" else None,
            "diagnostics": [[d.code, d.message, d.line, d.col, d.severity, d.path] for d in r.diagnostics],
            "error": r.error,
            "error_at": list(r.error_at) if r.error_at else None,
            "linked": sorted(r.linked),
        })
    return json.dumps({"format": FORMAT, "key": key, "results": rows}, separators=(",", ":")).encode()


def _decode(raw: bytes, key: str, unit: dict[str, bytes]) -> list[FileResult] | None:
    doc = json.loads(raw)
    if doc.get("format") != FORMAT or doc.get("key") != key:
        return None
    rows = doc["results"]
    if sorted(row["path"] for row in rows) != sorted(unit):
        return None
    out = []
    for row in rows:
        source = unit[row["path"]]
        output = base64.b64decode(row["output"], validate=True) if row["output"] is not None else source
        diags = [Diagnostic(str(c), str(m), int(line), int(col), str(sev), str(p))
                 for c, m, line, col, sev, p in row["diagnostics"]]
        at = row.get("error_at")
        out.append(FileResult(row["path"], str(row["status"]), source, output, diags, str(row["error"]),
                              set(row["linked"]), (int(at[0]), int(at[1])) if at else None))
    return out
