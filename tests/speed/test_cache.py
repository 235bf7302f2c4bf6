"""The rewrite result cache: a warm run gives the cold run's results (findings included) without parsing; keys
cover the options, the tool and every file of a unit; corrupt entries are rebuilt; parallel runs are safe; the
cache stays bounded; stdin and --no-cache never touch it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

import tfmigrate.engine as engine
from tfmigrate.cache import ResultCache, default_dir
from tfmigrate.cli import app
from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
_SCRIPT = Path(sys.executable).parent / "tfmigrate"
TFMIGRATE = str(_SCRIPT) if _SCRIPT.exists() else (shutil.which("tfmigrate") or "tfmigrate")


def _tree(root: Path) -> list[Path]:
    """Converting, blocked (with findings), noted, failing, skipped files and the two-file package."""
    for name in ("regression_adagrad", "unsupported_hook", "momentum_decay", "cnn"):
        shutil.copy(FIXTURES / name / "original.py", root / f"{name}.py")
    (root / "bad.py").write_bytes(b"import tensorflow as tf\nest = tf.estimator\ndef f(:\n")
    (root / "plain.py").write_bytes(b"import tensorflow as tf\nx = tf.constant(1)\n")
    shutil.copytree(FIXTURES / "trainer_package" / "original", root / "pkg")
    return discover([str(root)])


def _view(results) -> list[tuple]:
    return [(r.path, r.status, r.output, r.source, [d.format() for d in r.diagnostics], r.error, sorted(r.linked))
            for r in results]


def test_warm_run_same_results_without_parsing(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    files = _tree(tmp_path / "src")
    plain = migrate_paths(files, Options(), jobs=1)
    cache = ResultCache(tmp_path / "cache")
    cold = migrate_paths(files, Options(), jobs=1, cache=cache)
    assert cache.hits == 0 and cache.written == cache.misses > 0
    monkeypatch.setattr(engine, "parse_source", lambda *a, **k: (_ for _ in ()).throw(AssertionError("parsed")))
    warm_cache = ResultCache(tmp_path / "cache")
    warm = migrate_paths(files, Options(), jobs=1, cache=warm_cache)
    assert warm_cache.misses == 0 and warm_cache.hits == cache.written
    assert _view(plain) == _view(cold) == _view(warm)
    statuses = {r.status for r in warm}
    assert {"changed", "blocked", "failed", "skipped"} <= statuses
    assert any(d.severity == "note" for r in warm for d in r.diagnostics)


def test_key_covers_options_and_every_file_of_a_unit(tmp_path):
    (tmp_path / "src").mkdir()
    files = _tree(tmp_path / "src")
    cache = ResultCache(tmp_path / "cache")
    migrate_paths(files, Options(), jobs=1, cache=cache)
    # other options: nothing is reused
    again = ResultCache(tmp_path / "cache")
    ctl = migrate_paths(files, Options(target="ctl"), jobs=1, cache=again)
    assert again.hits == 0
    assert _view(ctl) == _view(migrate_paths(files, Options(target="ctl"), jobs=1))
    # one file of the package changes: the package's other file is not read from the cache either
    model = tmp_path / "src" / "pkg" / "trainer" / "model.py"
    model.write_text(model.read_text() + "\n# edited\n")
    third = ResultCache(tmp_path / "cache")
    after = migrate_paths(files, Options(), jobs=1, cache=third)
    assert _view(after) == _view(migrate_paths(files, Options(), jobs=1))
    units = len([f for f in files if "pkg" not in f.parts and f.name != "plain.py"]) + 1
    assert third.hits == units - 1 and third.misses == 1
    # a file's module name (the __init__.py around it) is part of its key
    key = third.key(Options(), {str(files[0]): files[0].read_bytes()})
    (files[0].parent / "__init__.py").write_bytes(b"")
    assert third.key(Options(), {str(files[0]): files[0].read_bytes()}) != key
    # and so is the tool itself
    assert ResultCache(tmp_path / "cache", tool="other").key(Options(), {"a.py": b"x"}) != \
        third.key(Options(), {"a.py": b"x"})


def test_corrupt_entries_are_ignored_and_rebuilt(tmp_path):
    (tmp_path / "src").mkdir()
    files = _tree(tmp_path / "src")
    expected = _view(migrate_paths(files, Options(), jobs=1))
    migrate_paths(files, Options(), jobs=1, cache=ResultCache(tmp_path / "cache"))
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    garbage = [b"", b"{", b"\x00\xff", b'{"format": 1, "key": "x", "results": []}', entries[0].read_bytes()[:-40]]
    for i, entry in enumerate(entries):
        entry.write_bytes(garbage[i % len(garbage)])
    cache = ResultCache(tmp_path / "cache")
    assert _view(migrate_paths(files, Options(), jobs=1, cache=cache)) == expected
    assert cache.hits == 0 and cache.written == len(entries)
    cache = ResultCache(tmp_path / "cache")
    assert _view(migrate_paths(files, Options(), jobs=1, cache=cache)) == expected
    assert cache.misses == 0


def test_internal_errors_are_not_cached(tmp_path, monkeypatch):
    f = tmp_path / "prog.py"
    shutil.copy(FIXTURES / "cnn" / "original.py", f)
    monkeypatch.setattr(engine, "migrate_source", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("defect")))
    cache = ResultCache(tmp_path / "cache")
    [result] = migrate_paths([f], Options(), jobs=1, cache=cache)
    assert result.status == "failed" and "internal error" in result.error
    assert cache.written == 0 and not list((tmp_path / "cache").rglob("*.json"))


def test_bounded(tmp_path):
    srcs = []
    for i in range(12):
        p = tmp_path / "src" / f"m{i}.py"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes((FIXTURES / "cnn" / "original.py").read_bytes() + f"\nX = {i}\n".encode())
        srcs.append(p)
    cache = ResultCache(tmp_path / "cache", max_entries=5)
    first = migrate_paths(srcs, Options(), jobs=1, cache=cache)
    assert len(list((tmp_path / "cache").rglob("*.json"))) <= 5
    again = ResultCache(tmp_path / "cache", max_entries=5)
    assert _view(migrate_paths(srcs, Options(), jobs=1, cache=again)) == _view(first)
    assert 0 < again.hits <= 5 and len(list((tmp_path / "cache").rglob("*.json"))) <= 5


def test_parallel_runs_share_a_cache_safely(tmp_path):
    (tmp_path / "src").mkdir()
    _tree(tmp_path / "src")
    for i in range(4):  # enough files for worker pools in every run
        shutil.copy(FIXTURES / "adam_mae" / "original.py", tmp_path / "src" / f"copy{i}.py")
    env = {**os.environ, "TFMIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    cmd = [TFMIGRATE, "rewrite", "--check", str(tmp_path / "src")]
    runs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outs = [(p.wait(timeout=300), p.stderr.read()) for p in runs]
    reference = subprocess.run([*cmd, "--no-cache"], env=env, capture_output=True)
    warm = subprocess.run(cmd, env=env, capture_output=True)
    assert reference.returncode == 2  # bad.py
    for code, err in [*outs, (warm.returncode, warm.stderr)]:
        assert (code, err) == (reference.returncode, reference.stderr)
    assert not list((tmp_path / "cache").rglob("*.tmp"))


def _invoke(*args, stdin=None):
    result = CliRunner().invoke(app, ["rewrite", *map(str, args)], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_cli_options(tmp_path, monkeypatch):
    f = tmp_path / "prog.py"
    shutil.copy(FIXTURES / "regression_adagrad" / "original.py", f)
    env_dir, opt_dir = tmp_path / "env-cache", tmp_path / "opt-cache"
    monkeypatch.setenv("TFMIGRATE_CACHE_DIR", str(env_dir))
    _invoke("--check", "--no-cache", f)
    assert not env_dir.exists()
    first = _invoke("--check", f)
    assert list(env_dir.rglob("*.json"))
    second = _invoke("--check", f)
    assert (first.exit_code, first.stderr_bytes) == (second.exit_code, second.stderr_bytes) and first.exit_code == 1
    assert b"TFM601" in second.stderr_bytes  # findings come back from the cache
    _invoke("--check", "--cache-dir", opt_dir, f)
    assert list(opt_dir.rglob("*.json"))
    out = _invoke("-", stdin=f.read_bytes()).stdout_bytes  # stdin: never cached
    assert out == (FIXTURES / "regression_adagrad" / "migrated.py").read_bytes()
    assert len(list(env_dir.rglob("*.json"))) == 1


def test_default_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TFMIGRATE_CACHE_DIR")
    monkeypatch.setenv("TFMIGRATE_HOME", str(tmp_path / "home"))
    assert default_dir() == tmp_path / "home" / "rewrite-cache"
    monkeypatch.delenv("TFMIGRATE_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_dir() == tmp_path / "xdg" / "tfmigrate" / "rewrite-cache"
    monkeypatch.setenv("TFMIGRATE_CACHE_DIR", str(tmp_path / "x"))
    assert default_dir() == tmp_path / "x"


def test_small_runs_start_no_pool(tmp_path, monkeypatch):
    """-j defaults to the cores, but fewer than POOL_MIN_FILES files to parse stay in this process: skipped and
    cached files do not count."""
    used = []
    real = engine.ProcessPoolExecutor

    class Spy(real):
        def __init__(self, *a, **kw):
            used.append(kw.get("max_workers"))
            super().__init__(*a, **kw)

    monkeypatch.setattr(engine, "ProcessPoolExecutor", Spy)
    files = []
    for i in range(30):
        p = tmp_path / f"plain{i}.py"
        p.write_bytes(b"import tensorflow as tf\nx = tf.constant(1)\n")
        files.append(p)
    for i in range(engine.POOL_MIN_FILES - 1):
        p = tmp_path / f"prog{i}.py"
        p.write_bytes((FIXTURES / "cnn" / "original.py").read_bytes() + f"\nX = {i}\n".encode())
        files.append(p)
    migrate_paths(files, Options(), jobs=4)
    assert used == []


def test_tool_fingerprint_memo(tmp_path, monkeypatch):
    """The fingerprint kept with the stat data of the files it hashed: read back while they are unchanged (a warm
    run stats ~60 files instead of hashing ~1 MB), recomputed when any differs or the memo is corrupt."""
    from tfmigrate import cache as cache_mod

    monkeypatch.setattr(cache_mod, "RACY_NS", -10**12)  # this checkout may have been edited a moment ago
    plain = cache_mod.fingerprint()
    assert cache_mod.fingerprint(tmp_path) == plain
    [memo] = tmp_path.glob("*.tool")
    doc = json.loads(memo.read_text())
    memo.write_text(json.dumps({**doc, "tool": "from-the-memo"}))
    assert cache_mod.fingerprint(tmp_path) == "from-the-memo"  # unchanged stat data: no file read
    doc["stats"][-1][2] += 1  # a source's size differs: hashed again (and the memo rewritten)
    memo.write_text(json.dumps({**doc, "tool": "stale"}))
    assert cache_mod.fingerprint(tmp_path) == plain
    memo.write_text("{corrupt")
    assert cache_mod.fingerprint(tmp_path) == plain and json.loads(memo.read_text())["tool"] == plain
    assert ResultCache(tmp_path).tool == plain
