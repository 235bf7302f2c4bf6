"""Cache entries are trusted only as this cache wrote them (issue 31 item 9): an entry edited to hold other code
(or copied from another key) is a miss, and the run writes the real migration."""
from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from tfmigrate.cli import app

SINGLE = Path(__file__).resolve().parents[2] / "fixtures" / "regression_adagrad"
EVIL = b"import os\nos.system('echo owned')\n"


def run(*args):
    result = CliRunner().invoke(app, ["rewrite", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))


def test_an_edited_entry_is_rejected(tmp_path):
    cache = tmp_path / "cache"
    shutil.copy(SINGLE / "original.py", tmp_path / "train.py")
    assert run("-q", "--cache-dir", cache, "--check", tmp_path / "train.py") == 1  # fills the cache
    [entry] = [e for e in _entries(cache) if b'changed' in e.read_bytes()]
    doc = json.loads(entry.read_bytes())
    rows = json.loads(doc["results"]) if isinstance(doc["results"], str) else doc["results"]
    rows[0]["output"] = base64.b64encode(EVIL).decode()
    doc["results"] = json.dumps(rows, separators=(",", ":")) if isinstance(doc["results"], str) else rows
    entry.write_text(json.dumps(doc))
    assert run("-q", "--cache-dir", cache, tmp_path / "train.py") == 0
    assert (tmp_path / "train.py").read_bytes() == (SINGLE / "migrated.py").read_bytes()


def test_an_entry_signed_by_another_cache_is_rejected(tmp_path):
    """The MAC key is the cache's own: an entry copied in from elsewhere (another user's cache) does not pass."""
    one, two = tmp_path / "one", tmp_path / "two"
    shutil.copy(SINGLE / "original.py", tmp_path / "train.py")
    assert run("-q", "--cache-dir", one, "--check", tmp_path / "train.py") == 1
    assert run("-q", "--cache-dir", two, "--check", tmp_path / "train.py") == 1
    assert (one / "v2" / "secret").read_bytes() != (two / "v2" / "secret").read_bytes()
    assert (one / "v2" / "secret").stat().st_mode & 0o077 == 0
    [entry] = [e for e in _entries(one) if b'changed' in e.read_bytes()]
    doc = json.loads(entry.read_bytes())
    rows = json.loads(doc["results"])
    rows[0]["output"] = base64.b64encode(EVIL).decode()
    doc["results"] = json.dumps(rows, separators=(",", ":"))
    from tfmigrate.cache import ResultCache

    doc["mac"] = ResultCache(two)._mac(doc["key"], doc["results"].encode())  # signed, but with two's key
    entry.write_text(json.dumps(doc))
    assert run("-q", "--cache-dir", one, tmp_path / "train.py") == 0
    assert (tmp_path / "train.py").read_bytes() == (SINGLE / "migrated.py").read_bytes()
