"""The rewrite result cache (like ruff's and black's): a second run over an unchanged tree parses nothing.

One entry per migration unit (a single file, or the files migrated together as one program — a file's result
depends on every file of its unit), keyed by a hash of:
  - the tool fingerprint: tfmigrate's version and the bytes of its own sources and templates (an edited checkout
    invalidates everything), the libcst version, the Python version;
  - the options that change results (`Options`: target, strategy);
  - for every file of the unit: its path, its module name (from the `__init__.py` files around it: relative
    imports and package links depend on it) and its bytes.
An entry stores (with a MAC of its key and content under the cache's own random `secret`: an entry edited by hand or
by another user is a miss, never an output), per file, the status, the output bytes when changed, the diagnostics (so `--check` still
reports findings), the error text and the linked files. Beside the entries, `.flag` files keep one file's answer
(a bool or small int) to an engine question (engine.identifier_facts: are its Estimator words only in strings and
comments, does it import TensorFlow? — an `ast` parse, asked before units are formed), keyed by the tool, the question, the path and the bytes; pruned with the entries. The
tool fingerprint itself is kept in `<hash>.tool` beside them with the stat data of the files it hashed (see
`fingerprint`), so a warm run does not read and hash tfmigrate's sources.

Safe under parallel runs: entries are written to a temp file and renamed into place (os.replace), so a reader
sees a whole entry or none; a concurrent prune that removes an entry only costs a miss. Bounded: when a run has
written entries and the cache holds more than `max_entries`, the least recently used (mtime; a hit touches its
entry) are removed down to 90%. Corrupt or foreign entries are ignored and rewritten. Internal errors (a rule
defect) are never cached; stdin is never cached (the CLI does not ask).
"""
from __future__ import annotations

import base64
import json
import os
import sys
import time
from pathlib import Path

from .diagnostics import Diagnostic, FileResult

try:  # hashlib's own blake2b, without importing hashlib: that loads OpenSSL (~5 ms, a tenth of a warm run)
    from _blake2 import blake2b
except ImportError:  # a Python built without its own hashes
    from hashlib import blake2b
from .files import Resolver, module_name_for

FORMAT = 2
MAX_ENTRIES = 20_000
_PACKAGES = ("tfmigrate", "tfmigrate.rules")  # whose sources decide results (runtime/ does not)


def default_dir() -> Path:
    """$TFMIGRATE_CACHE_DIR, else `rewrite-cache` under tfmigrate's home (TFMIGRATE_HOME, else the user cache dir:
    $XDG_CACHE_HOME/tfmigrate, ~/.cache/tfmigrate) — the same home the runtime keeps its environments in."""
    env = os.environ.get("TFMIGRATE_CACHE_DIR")
    if env:
        return Path(env)
    from .home import home  # not tfmigrate.runtime.envs: a warm run would import the runtime for it

    return home() / "rewrite-cache"


def fingerprint(memo_dir: Path | None = None) -> str:
    """What, besides the inputs, decides a result: this tool's code and templates (bytes, so an edited checkout
    misses and a fresh checkout of the same commit hits), the parser's version, Python's version.

    With `memo_dir`, the answer is kept there with the stat data of every file it read (like the StatIndex: device,
    inode, size, mtime_ns, ctime_ns; racily clean files not trusted): while they are unchanged, the next run stats
    them instead of reading and hashing ~1 MB of sources (a millisecond of every warm run)."""
    import importlib.util

    parts: list[tuple[bytes, str]] = []  # (label hashed before the file's bytes, path), in the hash's order
    libcst = importlib.util.find_spec("libcst")  # located, not imported (a warm run never imports LibCST)
    if libcst is not None and libcst.origin:
        parts.append((b"", os.path.join(os.path.dirname(libcst.origin), "_version.py")))
    for package in _PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in spec.submodule_search_locations or ():
            for where, dirs, files in os.walk(root):  # os.walk, not Path.rglob: a warm run pays for this
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                rel = os.path.relpath(where, root)
                for name in sorted(files):
                    if name.endswith((".py", ".j2")):
                        parts.append((f"{package}/{name if rel == '.' else rel + '/' + name}\0".encode(),
                                      os.path.join(where, name)))
    memo = stats = None
    if memo_dir is not None:
        h = blake2b(digest_size=16)
        h.update(f"{FORMAT}\0{sys.version}\0{sys.executable}\0".encode())
        for _, path in parts:
            h.update(os.fsencode(path) + b"\0")
        memo = Path(memo_dir) / f"{h.hexdigest()}.tool"  # not *.json: no result entry
        stats = []
        for _, path in parts:
            try:
                st = os.stat(path)
            except OSError:
                stats = None
                break
            stats.append([st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
        if stats is not None:
            try:
                doc = json.loads(memo.read_bytes())
                if doc["stats"] == stats and isinstance(doc["tool"], str):
                    return doc["tool"]
            except Exception:  # missing, corrupt, foreign: hash the files
                pass
    h = blake2b(digest_size=16)
    h.update(f"format {FORMAT}\n{sys.version}\n".encode())
    for label, path in parts:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            if label:
                raise
            data = b"libcst ?"
        h.update(label)
        h.update(data)
    tool = h.hexdigest()
    if stats is not None and max(max(st[3], st[4]) for st in stats) < time.time_ns() - RACY_NS:
        _write_atomic(memo, json.dumps({"tool": tool, "stats": stats}, separators=(",", ":")).encode())
    return tool


def _write_atomic(path: Path, payload: bytes) -> bool:
    """Write to a temp file beside `path` and rename it into place (a reader sees all of it or nothing)."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.replace(tmp, path)
        except BaseException:
            _unlink(tmp)
            raise
    except OSError:
        return False
    return True


class ResultCache:
    def __init__(self, directory: Path | str, max_entries: int = MAX_ENTRIES, tool: str | None = None):
        self.directory = Path(directory) / f"v{FORMAT}"
        self.max_entries = max_entries
        self._tool = tool
        self.hits = self.misses = self.written = self.flags_written = 0
        self.broken = False  # the directory cannot be written: stop trying for this run
        self._secret: bytes | None = None

    @property
    def secret(self) -> bytes:
        """This cache's own random key (`secret`, mode 0600, made on first use): every entry carries a MAC of its
        key (tool fingerprint, options, input files) and content under it, and one that does not match (edited by
        hand, by another user, corrupted) is a miss, never an output."""
        if self._secret is None:
            path = self.directory / "secret"
            try:
                secret = path.read_bytes()
            except OSError:
                secret = b""
            if len(secret) != 32:
                secret = os.urandom(32)
                _write_atomic(path, secret)  # (mkstemp: 0600); a parallel run's may win: its entries then miss
            self._secret = secret
        return self._secret

    def _mac(self, key: str, payload: bytes) -> str:
        h = blake2b(digest_size=32, key=self.secret)
        h.update(key.encode() + b"\0")
        h.update(payload)
        return h.hexdigest()

    @property
    def tool(self) -> str:
        if self._tool is None:
            self._tool = fingerprint(self.directory.parent)
        return self._tool

    # ---- keys ---------------------------------------------------------------------------------------------------
    def key(self, options, unit: dict[str, bytes], resolver: Resolver | None = None) -> str:
        module_name = resolver.module_name if resolver is not None else module_name_for
        h = blake2b(digest_size=20)
        h.update(self.tool.encode())
        h.update(repr(options).encode())
        for path in sorted(unit):
            data = unit[path]
            name, is_package = module_name(Path(path)) if path != "<stdin>" else ("", False)
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
            results = _decode(raw, key, unit, self._mac)
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
        rows = _encode(results)
        self._write(key, json.dumps({"format": FORMAT, "key": key, "mac": self._mac(key, rows.encode()), "results": rows},
                                    separators=(",", ":")).encode())

    # ---- one file's yes/no answer (the engine's "are its words only in strings and comments?") -----------------
    def flag_key(self, question: str, path: str, data: bytes, extra: str = "") -> str:
        h = blake2b(digest_size=20)
        h.update(self.tool.encode())
        h.update(b"\0flag\0" + question.encode() + b"\0" + os.fsencode(path) + b"\0" + os.fsencode(extra) + b"\0")
        h.update(data)
        return h.hexdigest()

    def get_flag(self, key: str) -> int | None:
        try:
            doc = json.loads(self._entry(key).with_suffix(".flag").read_bytes())
            if doc.get("format") == FORMAT and doc.get("key") == key and isinstance(doc.get("flag"), int) \
                    and doc.get("mac") == self._mac(key, str(doc["flag"]).encode()):
                return doc["flag"]
        except Exception:  # missing, corrupt or foreign: asked again
            pass
        return None

    def put_flag(self, key: str, flag: int) -> None:
        if not self.broken:
            # beside the result entries (pruned with them), named apart: not a unit's results
            self._write(key, json.dumps({"format": FORMAT, "key": key, "flag": flag,
                                         "mac": self._mac(key, str(flag).encode())}, separators=(",", ":")).encode(),
                        ".flag")

    def _write(self, key: str, payload: bytes, suffix: str = ".json") -> None:
        if not _write_atomic(self._entry(key).with_suffix(suffix), payload):
            self.broken = True
            return
        if suffix == ".json":
            self.written += 1
        else:
            self.flags_written += 1

    def prune(self) -> int:
        """Remove the least recently used entries beyond max_entries (down to 90%); returns how many went."""
        if self.broken or not (self.written or self.flags_written):
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


def _encode(results: list[FileResult]) -> str:
    """The rows of an entry, as the JSON text its MAC covers."""
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
    return json.dumps(rows, separators=(",", ":"))


def _decode(raw: bytes, key: str, unit: dict[str, bytes], mac) -> list[FileResult] | None:
    doc = json.loads(raw)
    if doc.get("format") != FORMAT or doc.get("key") != key or not isinstance(doc.get("results"), str):
        return None
    # (a plain comparison: no one can time this check from outside; hmac would import hashlib, OpenSSL, ~5 ms)
    if doc.get("mac") != mac(key, doc["results"].encode()):
        return None  # not what this cache wrote for this key: a miss, rewritten
    rows = json.loads(doc["results"])
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


# ---- the stat index: files the prefilter skipped, trusted by their stat data ------------------------------------

STAT_FORMAT = 1
RACY_NS = 2_000_000_000  # a file changed this close to a run's start is not trusted (the coarsest common mtime
#                          granularity is FAT's 2 s; ext4/xfs/tmpfs stamp from a clock tick behind the real time)
MAX_INDEXES = 64


class StatIndex:
    """What ruff and black do for unchanged files, for the files the prefilter skips (nearly all of a TF code base):
    a file whose stat data — device, inode, size, mtime_ns, ctime_ns — is what this index recorded when the
    prefilter last skipped its bytes is skipped again without being opened. Anything else (a new file, any stat
    change: an edit, a touch, a chmod, a file replaced by a rename) is read and scanned as without the index, then
    its unit's result comes from the ResultCache by its bytes.

    One index file per run: keyed by the tool fingerprint, the options, the working directory and the paths given
    (`stat-v1/<key>.json` next to the result cache), holding this run's skipped files only (so it is bounded by the
    tree; at most MAX_INDEXES index files are kept, the least recently used go). Written to a temp file and
    renamed into place, only when it changed; a corrupt or foreign index is ignored and rewritten; parallel runs
    may each write theirs (the last one wins; every entry is checked against the file's stat data anyway).

    Racily clean files (git's problem): a file changed within the filesystem's timestamp granularity of the moment
    its bytes were read could change again keeping its mtime. So a file whose mtime or ctime is later than
    RACY_NS before the run started is not recorded: the next run reads it (and records it then).

    ctime is set by the kernel on every change (also when a program restores mtime with utime), so an edit that
    keeps the size and restores mtime is seen too. The accepted limit, as for ruff's and black's caches: a change
    that keeps device, inode, size, mtime and ctime alike (the clock set back, or a filesystem without a ctime)
    is not seen until the stat data changes; `--no-cache` reads every file."""

    def __init__(self, directory: Path | str, key: str, now_ns: int | None = None, max_indexes: int = MAX_INDEXES):
        self.path = Path(directory) / f"stat-v{STAT_FORMAT}" / f"{key}.json"
        self.key = key
        self.started = time.time_ns() if now_ns is None else now_ns
        self.max_indexes = max_indexes
        self.hits = self.recorded = 0
        self._old = self._load()
        self._new: dict[str, list[int]] = {}

    @classmethod
    def for_run(cls, cache: ResultCache, options, paths: list[str], **kw) -> StatIndex:
        h = blake2b(digest_size=16)
        h.update(f"stat {STAT_FORMAT}\0{cache.tool}\0{options!r}\0".encode())
        h.update(os.fsencode(os.getcwd()))
        for path in paths:
            h.update(b"\0" + os.fsencode(path))
        return cls(cache.directory.parent, h.hexdigest(), **kw)

    def _load(self) -> dict[str, list[int]]:
        try:
            doc = json.loads(self.path.read_bytes())
            if doc["format"] != STAT_FORMAT or doc["key"] != self.key:
                return {}
            entries = doc["files"]
            return entries if isinstance(entries, dict) else {}  # each entry is checked when looked up
        except Exception:  # missing, corrupt, truncated, foreign: start empty (save rewrites it)
            return {}

    def lookup(self, path: str) -> int | None:
        """The recorded flags when the file's stat data is what was recorded (skip it unread), else None.

        lstat, not stat: a symlink's own data never matches (what was recorded is the data of the file read), so a
        symlinked file is always read (and a hit is a path that is no symlink)."""
        entry = self._old.get(path)
        if type(entry) is not list or len(entry) != 6 or type(entry[5]) is not int:
            return None
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, entry[5]] != entry:
            return None
        self._new[path] = entry
        self.hits += 1
        return entry[5]

    def record(self, path: str, st: os.stat_result, flags: int = 0) -> None:
        """The prefilter skipped this file's bytes, read after `st` was taken (racily clean files are left out)."""
        if max(st.st_mtime_ns, st.st_ctime_ns) >= self.started - RACY_NS:
            return
        self._new[path] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, flags]
        self.recorded += 1

    def forget(self) -> None:
        """A file skipped by its stat data turned out to have changed: trust nothing recorded for this run."""
        self._old = {}
        self._new = {}

    def save(self) -> None:
        if self._new == self._old:
            if self._old:
                try:
                    os.utime(self.path)  # recently used: pruning removes the least recently used first
                except OSError:
                    pass
            return
        payload = json.dumps({"format": STAT_FORMAT, "key": self.key, "files": self._new}, separators=(",", ":"))
        if not _write_atomic(self.path, payload.encode()):
            return
        self._prune()

    def _prune(self) -> None:
        try:
            with os.scandir(self.path.parent) as it:
                found = []
                for f in it:
                    try:
                        mtime = f.stat().st_mtime
                    except OSError:
                        continue
                    if f.name.endswith(".tmp"):
                        if mtime < time.time() - 3600:  # left by a killed run
                            _unlink(f.path)
                    else:
                        found.append((mtime, f.path))
        except OSError:
            return
        found.sort()
        for _, path in found[:max(0, len(found) - self.max_indexes)]:
            _unlink(path)
