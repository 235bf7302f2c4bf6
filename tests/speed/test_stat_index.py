"""The stat index (cache.StatIndex): a file the prefilter skipped is skipped unread while its stat data is what was
recorded. Results (status, findings, changed output, exit code, every printed line) are those of a run without
it; any stat change — an edit, an edit that keeps the size and restores mtime, a touch, a rename over the file —
makes the file read again; racily clean files are not trusted; a corrupt index is ignored; the index is bounded;
parallel runs are safe. Also: files.Resolver answers as module_name_for / os.path.realpath, and the indexed
import matching of the engine groups files as the pass over every file did."""
from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tfmigrate.engine as engine
from tfmigrate.cache import RACY_NS, ResultCache, StatIndex
from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import Resolver, discover, discover_files, glob_match, module_name_for, DEFAULT_EXCLUDES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
_SCRIPT = Path(sys.executable).parent / "tfmigrate"
TFMIGRATE = str(_SCRIPT) if _SCRIPT.exists() else (shutil.which("tfmigrate") or "tfmigrate")

PLAIN = b"import tensorflow as tf\nx = tf.constant(1)\n"
# the same size, now naming an Estimator (the prefilter no longer skips it; the pipeline flags it)
PLAIN_EDITED = b"import tensorflow as tf\nx = tf.estimator.E\n"
assert len(PLAIN) == len(PLAIN_EDITED)


def _tree(root: Path) -> list[Path]:
    """Converting, blocked and failing programs, skipped files (some with relative imports), the two-file package,
    and a program whose data module (no trigger word) joins its unit."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("regression_adagrad", "unsupported_hook", "cnn"):
        shutil.copy(FIXTURES / name / "original.py", root / f"{name}.py")
    (root / "bad.py").write_bytes(b"import tensorflow as tf\nest = tf.estimator\ndef f(:\n")
    for i in range(6):
        (root / f"plain{i}.py").write_bytes(PLAIN + f"y = {i}\n".encode())
    shutil.copytree(FIXTURES / "trainer_package" / "original", root / "pkg")
    (root / "pkg" / "trainer" / "layers.py").write_bytes(b"from . import model\nimport tensorflow as tf\nZ = 1\n")
    prog = root / "joined"
    prog.mkdir()
    (prog / "prog.py").write_bytes((FIXTURES / "cnn" / "original.py").read_bytes().replace(
        b"import tensorflow as tf\n", b"import tensorflow as tf\nfrom data import helper\n", 1))
    (prog / "data.py").write_bytes(b"import tensorflow as tf\n\n\ndef helper():\n    return tf.constant(1)\n")
    return discover([str(root)])


def _view(results) -> list[tuple]:
    """Everything a run reports (a skipped file's bytes are not reported: the index leaves them unread)."""
    return [(r.path, r.status, r.output if r.status == "changed" else None, [d.format() for d in r.diagnostics],
             r.error, sorted(r.linked)) for r in results]


def _index(tmp_path: Path, **kw) -> StatIndex:
    """An index for which every file of the test counts as old (now: far ahead of the files' times)."""
    return StatIndex(tmp_path / "cache", "k", now_ns=kw.pop("now_ns", time.time_ns() + 10 * RACY_NS), **kw)


@pytest.fixture
def reads(monkeypatch):
    seen: list[str] = []
    real = engine._read_stat

    def spy(path):
        seen.append(path)
        return real(path)

    monkeypatch.setattr(engine, "_read_stat", spy)
    return seen


def _run(files, tmp_path, index=None):
    return migrate_paths(files, Options(), jobs=1, cache=ResultCache(tmp_path / "cache"), stat_index=index)


def test_warm_run_reads_no_skipped_file_and_reports_the_same(tmp_path, reads):
    files = _tree(tmp_path / "src")
    plain = migrate_paths(files, Options(), jobs=1)
    cold_index = _index(tmp_path)
    cold = _run(files, tmp_path, cold_index)
    skipped = {r.path for r in plain if r.status == "skipped"}
    assert cold_index.recorded == len(skipped) > 6 and cold_index.hits == 0
    joined = str(tmp_path / "src" / "joined" / "data.py")  # skipped too, but it joins its program's unit: read
    assert joined in skipped
    reads.clear()
    warm_index = _index(tmp_path)
    warm = _run(files, tmp_path, warm_index)
    assert _view(plain) == _view(cold) == _view(warm)
    assert warm_index.hits == len(skipped) and warm_index.recorded == 0
    # read: the files not skipped, and the skipped ones a program imports (its unit's key needs their bytes)
    joins = {joined, str(tmp_path / "src" / "pkg" / "trainer" / "__init__.py")}
    assert skipped & set(reads) == joins and len(reads) == len(files) - len(skipped) + len(joins)
    statuses = {r.status for r in warm}
    assert {"changed", "blocked", "failed", "skipped"} <= statuses


@pytest.mark.parametrize("change", ["edit_same_size_mtime_restored", "edit", "touch", "replace", "chmod"])
def test_any_stat_change_reads_the_file_again(tmp_path, reads, change):
    files = _tree(tmp_path / "src")
    _run(files, tmp_path, _index(tmp_path))
    target = tmp_path / "src" / "plain0.py"
    before = target.stat()
    time.sleep(0.05)  # past the clock tick of the file's own ctime
    if change == "edit_same_size_mtime_restored":
        with open(target, "r+b") as fh:  # in place: same inode, same size
            fh.write(PLAIN_EDITED)
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = target.stat()
        assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    elif change == "edit":
        target.write_bytes(PLAIN_EDITED)
    elif change == "touch":
        os.utime(target)
    elif change == "replace":  # an editor's save, git checkout: a new inode
        tmp = target.with_suffix(".new")
        tmp.write_bytes(target.read_bytes())
        os.replace(tmp, target)
    else:
        target.chmod(0o600)
    reads.clear()
    index = _index(tmp_path)
    warm = _run(files, tmp_path, index)
    assert str(target) in reads
    assert _view(warm) == _view(migrate_paths(files, Options(), jobs=1))
    edited = next(r for r in warm if r.path == str(target))
    assert (edited.status == "skipped") == (change in ("touch", "replace", "chmod"))
    if change in ("touch", "replace", "chmod"):
        assert index.recorded == 1  # recorded again with its new stat data: the next run skips it unread
        reads.clear()
        _run(files, tmp_path, _index(tmp_path))
        assert str(target) not in reads


def test_racily_clean_files_are_not_trusted(tmp_path, reads):
    files = _tree(tmp_path / "src")
    index = _index(tmp_path, now_ns=time.time_ns())  # the files were written just now
    _run(files, tmp_path, index)
    assert index.recorded == 0
    reads.clear()
    again = _index(tmp_path, now_ns=time.time_ns())
    _run(files, tmp_path, again)
    assert again.hits == 0 and len(reads) == len(files)
    # the rule itself: trusted only when mtime and ctime are RACY_NS older than the run's start
    st = (tmp_path / "src" / "plain0.py").stat()
    for now, trusted in ((max(st.st_mtime_ns, st.st_ctime_ns) + RACY_NS, False),
                         (max(st.st_mtime_ns, st.st_ctime_ns) + RACY_NS + 1, True)):
        probe = _index(tmp_path / "probe", now_ns=now)
        probe.record("x.py", st)
        assert probe.recorded == trusted


def test_a_stale_entry_of_a_joined_file_is_caught(tmp_path, reads):
    """The accepted limit is a change that keeps all the stat data (not reproducible without setting the clock
    back): forged here. A joined file's bytes are read anyway; when they no longer pass the prefilter the run
    trusts no entry and scans again, so the results are a run's without the index."""
    files = _tree(tmp_path / "src")
    data = tmp_path / "src" / "joined" / "data.py"
    data.write_bytes(b"import tensorflow as tf\n\n\ndef helper():\n    return tf.constant(2)\n")  # still skipped
    index = _index(tmp_path)
    _run(files, tmp_path, index)
    index.save()
    assert str(data) in json.loads(index.path.read_bytes())["files"]
    data.write_bytes(b"import tensorflow as tf\n\n\ndef helper():\n    return tf.estimator\n")
    doc = json.loads(index.path.read_bytes())
    st = data.stat()
    doc["files"][str(data)][:5] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    index.path.write_text(json.dumps(doc))
    reads.clear()
    warm = _run(files, tmp_path, _index(tmp_path))
    assert _view(warm) == _view(migrate_paths(files, Options(), jobs=1))
    assert len(reads) > len(files) - 6  # the second scan read the skipped files


def test_corrupt_index_is_ignored_and_rewritten(tmp_path):
    files = _tree(tmp_path / "src")
    expected = _view(migrate_paths(files, Options(), jobs=1))
    index = _index(tmp_path)
    _run(files, tmp_path, index)
    good = index.path.read_bytes()
    doc = json.loads(good)
    doc["files"][next(iter(doc["files"]))][5] = "x"
    entries = len(doc["files"])
    for garbage, hits in ((b"", 0), (b"{", 0), (b"\x00\xff", 0), (good[:-20], 0), (b"[]", 0),
                          (json.dumps({**doc, "key": "other"}).encode(), 0), (json.dumps({**doc, "files": []}).encode(), 0),
                          (json.dumps({**json.loads(good), "format": 0}).encode(), 0),
                          (json.dumps(doc).encode(), entries - 1)):  # one bad entry: that file is read
        index.path.write_bytes(garbage)
        again = _index(tmp_path)
        assert _view(_run(files, tmp_path, again)) == expected
        assert again.hits == hits and json.loads(index.path.read_bytes()) == json.loads(good)


def test_bounded(tmp_path):
    files = _tree(tmp_path / "src")
    cache = ResultCache(tmp_path / "cache")
    for i in range(6):
        index = StatIndex.for_run(cache, Options(), [f"run{i}"], now_ns=time.time_ns() + 10 * RACY_NS, max_indexes=3)
        migrate_paths(files, Options(), jobs=1, cache=cache, stat_index=index)
        time.sleep(0.01)
    left = sorted(p.name for p in index.path.parent.iterdir())
    assert len(left) == 3 and index.path.name in left
    # an index holds the run's files only
    assert set(json.loads(index.path.read_bytes())["files"]) <= {str(f) for f in files}


def test_key_covers_tool_options_and_paths(tmp_path):
    cache = ResultCache(tmp_path / "cache", tool="one")
    keys = {StatIndex.for_run(cache, Options(), ["a"]).key, StatIndex.for_run(cache, Options(), ["b"]).key,
            StatIndex.for_run(cache, Options(target="ctl"), ["a"]).key,
            StatIndex.for_run(ResultCache(tmp_path / "cache", tool="two"), Options(), ["a"]).key}
    assert len(keys) == 4


def _cli(*args, cache: Path):
    env = {**os.environ, "TFMIGRATE_CACHE_DIR": str(cache)}
    return subprocess.run([TFMIGRATE, "rewrite", *map(str, args)], env=env, capture_output=True)


def test_cli_parallel_runs_and_options(tmp_path):
    src = tmp_path / "src"
    _tree(src)
    for i in range(4):  # enough files for worker pools
        shutil.copy(FIXTURES / "adam_mae" / "original.py", src / f"copy{i}.py")
    time.sleep(RACY_NS / 1e9 + 0.1)  # older than the racy window: the runs may record the files
    cache = tmp_path / "cache"
    reference = _cli("--check", "--no-cache", src, cache=cache)
    assert reference.returncode == 2 and not cache.exists()  # bad.py; --no-cache writes nothing
    env = {**os.environ, "TFMIGRATE_CACHE_DIR": str(cache)}
    runs = [subprocess.Popen([TFMIGRATE, "rewrite", "--check", str(src)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE) for _ in range(3)]
    outs = [(p.wait(timeout=300), p.stderr.read()) for p in runs]
    [index] = (cache / "stat-v1").iterdir()
    assert len(json.loads(index.read_bytes())["files"]) >= 7
    warm = _cli("--check", src, cache=cache)
    for code, err in [*outs, (warm.returncode, warm.stderr)]:
        assert (code, err) == (reference.returncode, reference.stderr)
    assert not list(cache.rglob("*.tmp"))
    # an edit that keeps the size and restores mtime, after the warm run: seen
    plain = src / "plain1.py"
    before = plain.stat()
    plain.write_bytes(PLAIN_EDITED + b"y = 1\n")
    os.utime(plain, ns=(before.st_atime_ns, before.st_mtime_ns))
    edited = _cli("--check", src, cache=cache)
    assert (edited.returncode, edited.stderr) == (lambda r: (r.returncode, r.stderr))(
        _cli("--check", "--no-cache", src, cache=cache))
    assert f"{plain}:".encode() in edited.stderr
    # runs that read skipped files' bytes use no index (and report as without the cache)
    out = tmp_path / "out"
    for args in (("--out", out), ("--check", "--report-unused-suppressions")):
        with_cache = _cli(*args, src, cache=tmp_path / "c2")
        assert not (tmp_path / "c2" / "stat-v1").exists()
        assert with_cache.stderr == _cli(*args, "--no-cache", src, cache=tmp_path / "c2").stderr
    assert (out / "plain0.py").read_bytes() == (src / "plain0.py").read_bytes()


# ---- Resolver and the indexed import matching ---------------------------------------------------------------------

def test_resolver_answers_as_module_name_for_and_realpath(tmp_path, monkeypatch):
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    for d in ("a", "a/b", "a/b/c"):
        (tmp_path / d / "__init__.py").write_text("")
    for name in ("m.py", "n.tar.py", ".py", "x..py", "y."):
        (tmp_path / "a" / "b" / "c" / name).write_text("")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "s.py").write_text("")
    os.symlink(tmp_path / "a" / "b", tmp_path / "link_dir")
    os.symlink(tmp_path / "a" / "b" / "c" / "m.py", tmp_path / "plain" / "link_file.py")
    monkeypatch.chdir(tmp_path)
    paths = [str(p) for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink()]
    paths += [os.path.relpath(p, tmp_path) for p in paths]
    paths += ["link_dir/c/m.py", "./link_dir/c/../c/m.py", "plain/../a/b/c/m.py", "a/b/c/missing.py", "m.py"]
    resolver = Resolver()
    for path in paths * 2:  # the second pass answers from the memo
        assert resolver.realpath(path) == os.path.realpath(path), path
        assert resolver.module_name(path) == module_name_for(Path(path)), path
        assert resolver.module_name(Path(path)) == module_name_for(Path(path)), path


def _reference_imported_by(importers, targets):
    """The pass over every file per import that _imported_by replaced."""
    names = {module_name_for(Path(path))[0]: path for path in targets}
    out: dict[str, set[str]] = {}
    for path, data in importers.items():
        for frm, what, plain in engine._IMPORT.findall(data):
            if plain:
                wanted = [t.split()[0] for t in plain.decode(errors="replace").split(",") if t.strip()]
            else:
                base = engine._absolute_base(frm.decode(errors="replace"), path)
                if base is None:
                    continue
                items = [w.strip(" ()\t").split()[0] for w in what.decode(errors="replace").split(",")
                         if w.strip(" ()\t")]
                wanted = [base, *(f"{base}.{w}" for w in items if w != "*")]
            for target in wanted:
                for name, other in names.items():
                    if name and (name == target or name.endswith("." + target)):
                        out.setdefault(other, set()).add(path)
    return out


def test_imported_by_matches_the_pass_over_every_file(tmp_path):
    for d in ("pkg", "pkg/sub", "other"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    targets = {}
    for rel in ("pkg/data.py", "pkg/sub/data.py", "pkg/sub/__init__.py", "other/data.py", "other/feat.py",
                "pkg/a.b.py", "pkg/x..py", "pkg/sub/util.py", "top.py"):
        (tmp_path / rel).write_text("")
        targets[str(tmp_path / rel)] = b""
    # packages' __init__.py (named by their real directory): imported, not imported, through a symlinked directory
    (tmp_path / "nomatch").mkdir()
    (tmp_path / "nomatch" / "__init__.py").write_text("")
    os.symlink(tmp_path / "pkg" / "sub", tmp_path / "alias")
    for rel in ("pkg/__init__.py", "nomatch/__init__.py", "alias/__init__.py"):
        targets[str(tmp_path / rel)] = b""
    importers = {
        "p1.py": b"import data\nfrom pkg.sub import data, util as u\nimport pkg.sub\nfrom . import top\n",
        "p2.py": b"from pkg import (\n  sub,\n  data)\nimport feat, other.feat\nfrom pkg.a import b\nimport a.b\n",
        "p3.py": b"from x. import y\nimport x.\nfrom pkg.x. import q\nimport top, sub.util\nfrom  import z\n",
    }
    assert engine._imported_by(importers, targets) == _reference_imported_by(importers, targets)
    got = engine._imported_by(importers, targets)
    assert list(got) == list(_reference_imported_by(importers, targets))  # same order (units form alike)
    assert got[str(tmp_path / "pkg" / "sub" / "data.py")] == {"p1.py"}


# the Path-per-file discover that discover_files replaced (its strings and their order must not change)
def _reference_discover(paths: list[str], extend_exclude: tuple[str, ...] = (), exclude: tuple[str, ...] | None = None,
             root: Path | None = None, force_exclude: bool = False) -> list[Path]:
    """Expand files and directories (recursing into *.py) into a sorted, de-duplicated list.

    `exclude` (default: DEFAULT_EXCLUDES) and `extend_exclude` are names or globs, matched against a file's or
    directory's name and against its path relative to `root` (the configuration's directory). Files named
    explicitly are always taken unless `force_exclude` (pre-commit passes every staged file by name)."""
    patterns = (*(DEFAULT_EXCLUDES if exclude is None else exclude), *extend_exclude)

    def excluded(path: Path, base: Path | None = None) -> bool:
        return any(glob_match(path, pattern, root, base) for pattern in patterns)

    # Under a directory walked, a pattern without `/` matches an entry's own name (glob_match with base = the
    # directory listed: the relative path is the name alone): one regex for all of them, no Path arithmetic.
    by_name = [p.rstrip("/") for p in patterns if "/" not in p.rstrip("/")]
    by_path = [p for p in patterns if "/" in p.rstrip("/")]
    name_match = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in by_name)).match if by_name else None

    def excluded_entry(base: Path, name: str) -> bool:
        if name_match is not None and name_match(name):
            return True
        return bool(by_path) and any(glob_match(base / name, p, root, base) for p in by_path)

    found: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for walk_root, dirs, files in os.walk(p):
                base = Path(walk_root)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not excluded_entry(base, d))
                for name in files:
                    if name.endswith(".py") and not excluded_entry(base, name):
                        found.add(base / name)
        elif not (force_exclude and excluded(p)):
            found.add(p)
    return sorted(found, key=lambda p: p.parts)  # the order of Path comparisons, without their Python-level __lt__


@pytest.mark.parametrize("args, exclude, extend", [
    (["."], None, ()), (["./"], None, ()), (["src"], None, ()), (["src/", "./src", "src/a.py"], None, ()),
    (["src", "other/../src/pkg"], None, ("gen_*.py",)), (["src"], ("build",), ("pkg/sub", "*_test.py")),
    (["ABS"], None, ()), (["ABS", "src/pkg/m.py", "src/.hidden/h.py"], None, ("src/pkg",)), ([".", "/"], "ROOTONLY", ()),
    (["src"], ("no[td]e_modules", "bui?d"), ("m", "a.py", "s.p[y]")),  # plain names and globs mixed
])
def test_discover_files_are_the_strings_of_discover(tmp_path, monkeypatch, args, exclude, extend):
    for rel in ("src/a.py", "src/gen_x.py", "src/pkg/m.py", "src/pkg/m_test.py", "src/pkg/sub/s.py", "src/build/b.py",
                "src/.hidden/h.py", "src/node_modules/n.py", "src/-dash.py", "src/pkg/notes.txt", "other/o.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    os.symlink(tmp_path / "src" / "pkg", tmp_path / "src" / "linked")  # a symlinked directory: not entered
    os.symlink(tmp_path / "src" / "a.py", tmp_path / "src" / "pkg" / "alias.py")  # a symlinked file: listed
    os.symlink(tmp_path / "nowhere.py", tmp_path / "src" / "broken.py")  # a broken symlink: listed (read fails)
    (tmp_path / "src" / "dir.py").mkdir()  # a directory named *.py: entered, not listed
    (tmp_path / "src" / "dir.py" / "inner.py").write_text("")
    monkeypatch.chdir(tmp_path)
    if exclude == "ROOTONLY":  # "/" itself: only the listing of the top (everything below excluded)
        exclude = ("*",)
    args = [str(tmp_path / "src") if a == "ABS" else a for a in args]
    for force in (False, True):
        want = [str(p) for p in _reference_discover(args, extend, exclude, tmp_path, force)]
        assert discover_files(args, extend, exclude, tmp_path, force) == want
        assert [str(p) for p in discover(args, extend, exclude, tmp_path, force)] == want
