"""The write path under faults (issue 31): a unit is written all or none, an edit made while `rewrite` runs is never
lost, Ctrl-C never leaves a unit half-written, --out refuses collisions and keeps modes, symlinks and hard links."""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmigrate import files as files_module
from tfmigrate import rewrite_command
from tfmigrate.cli import app

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "fixtures" / "trainer_package"
SINGLE = ROOT / "fixtures" / "regression_adagrad"
PY = sys.executable


def original_tree(where: Path) -> dict[str, tuple[bytes, bytes]]:
    """A multi-file package (one unit: trainer/model.py + trainer/task.py) and a second unit (alone.py) under
    `where`: {relative path: (original bytes, migrated bytes)}."""
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(PACKAGE / "original", where)
    shutil.copy(SINGLE / "original.py", where / "alone.py")
    expect = {}
    for rel in ("trainer/__init__.py", "trainer/model.py", "trainer/task.py"):
        expect[rel] = ((PACKAGE / "original" / rel).read_bytes(), (PACKAGE / "migrated" / rel).read_bytes())
    expect["alone.py"] = ((SINGLE / "original.py").read_bytes(), (SINGLE / "migrated.py").read_bytes())
    return expect


UNITS = [("trainer/model.py", "trainer/task.py"), ("alone.py",)]


def unit_states(where: Path, expect) -> list[str]:
    """Per unit: "original" or "migrated"; anything else (half-written, a third content) fails the test."""
    states = []
    for unit in UNITS:
        got = {(where / rel).read_bytes() for rel in unit}
        if all((where / rel).read_bytes() == expect[rel][0] for rel in unit):
            states.append("original")
        elif all((where / rel).read_bytes() == expect[rel][1] for rel in unit):
            states.append("migrated")
        else:
            pytest.fail(f"unit {unit} is half-written: {[len(g) for g in got]}")
    return states


def stray(where: Path) -> list[str]:
    """Files a run left besides the program's own (staged temp files, backups)."""
    return sorted(str(p.relative_to(where)) for p in where.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py")


def run(*args):
    result = CliRunner().invoke(app, ["rewrite", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stderr


class FaultyOS:
    """migrator.files' `os`, failing (or calling `action`) at the `fail_at`-th call that writes or syncs."""

    OPS = {"open", "write", "fsync", "fchmod", "fchown", "chmod", "link", "replace", "rename", "fdopen", "makedirs"}

    def __init__(self, fail_at: int | None, action=None):
        self.calls, self.fail_at, self.action, self.fired = 0, fail_at, action, False

    def __getattr__(self, name):
        real = getattr(os, name)
        if name not in self.OPS:
            return real

        def op(*args, **kwargs):
            if not self.fired and self.calls == self.fail_at:
                self.fired = True
                if self.action is None:
                    raise OSError(28, "No space left on device (injected)", str(args[0]) if args else None)
                self.action()
            self.calls += 1
            return real(*args, **kwargs)
        return op


def test_a_failure_at_every_write_position_leaves_every_unit_all_original_or_all_migrated(tmp_path, monkeypatch):
    where, cache = tmp_path / "tree", tmp_path / "cache"
    expect = original_tree(where)
    counter = FaultyOS(None)
    monkeypatch.setattr(files_module, "os", counter)
    code, _ = run("-q", "--cache-dir", cache, where)
    assert code == 0 and unit_states(where, expect) == ["migrated", "migrated"]
    total = counter.calls
    assert total >= 12  # 3 files staged (open, write, fchmod, fsync), linked and renamed in, directories synced
    seen = set()
    for fail_at in range(total):
        expect = original_tree(where)
        faulty = FaultyOS(fail_at)
        monkeypatch.setattr(files_module, "os", faulty)
        code, err = run("--cache-dir", cache, where)
        assert faulty.fired
        assert code == 2, (fail_at, err)
        assert "cannot write" in err and "Traceback" not in err
        states = unit_states(where, expect)
        assert "original" in states, (fail_at, states)
        seen.add(tuple(states))
        assert stray(where) == [], (fail_at, stray(where))
    assert seen == {("original", "migrated"), ("migrated", "original")}  # each unit failed somewhere, alone


def test_a_failed_unit_names_its_files_and_exits_2(tmp_path, monkeypatch):
    where = tmp_path / "tree"
    expect = original_tree(where)
    monkeypatch.setattr(files_module, "os", FaultyOS(12))  # inside the package's unit (alone.py comes first)
    code, err = run("--no-cache", where)
    assert code == 2
    assert unit_states(where, expect) == ["original", "migrated"]
    assert "every file of its unit" in err and "trainer/model.py" in err and "trainer/task.py" in err
    assert "rewrote 1 file" in err and "2 failed" in err


def test_a_full_disk_rlimit_fsize_leaves_the_package_as_it_was(tmp_path):
    where = tmp_path / "tree"
    expect = original_tree(where)
    (where / "alone.py").unlink()

    def limit():  # a file may not grow past 8 kB: trainer/model.py's migration (16 kB) cannot be written
        resource.setrlimit(resource.RLIMIT_FSIZE, (8000, 8000))
    proc = subprocess.run([PY, "-m", "tfmigrate", "rewrite", "--no-cache", str(where)], capture_output=True,
                          preexec_fn=limit, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "cannot write: File too large" in err and "Traceback" not in err
    for rel in UNITS[0]:
        assert (where / rel).read_bytes() == expect[rel][0]
    assert stray(where) == []


def _bound_by_permissions() -> list[str]:
    """A command prefix under which file permissions bind (root ignores a read-only directory): root without the
    capabilities that override them."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("root, and no setpriv to drop CAP_DAC_OVERRIDE")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--"]


def test_a_read_only_directory_of_the_unit_leaves_it_whole(tmp_path):
    # the unit spans two directories: run/task.py (written first) and trainer/model.py (read-only directory)
    where = tmp_path / "tree"
    expect = original_tree(where)
    (where / "alone.py").unlink()
    (where / "run").mkdir()
    task = (where / "trainer" / "task.py").read_bytes()
    (where / "trainer" / "task.py").unlink()
    (where / "run" / "task.py").write_bytes(task)
    os.chmod(where / "trainer", 0o555)
    try:
        proc = subprocess.run([*_bound_by_permissions(), PY, "-m", "tfmigrate", "rewrite", "--no-cache", "run",
                               "trainer"], cwd=where, capture_output=True, timeout=120)
    finally:
        os.chmod(where / "trainer", 0o755)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "cannot write: Permission denied" in err and "Traceback" not in err
    assert (where / "run" / "task.py").read_bytes() == task  # not migrated without its model.py
    assert (where / "trainer" / "model.py").read_bytes() == expect["trainer/model.py"][0]
    assert sorted(os.listdir(where / "run")) == ["task.py"]


# ---- an edit made while rewrite runs ---------------------------------------------------------------------------

def _editing(monkeypatch, edit):
    """rewrite_command.migrate_paths, then `edit` (the user's editor saving between the read and the write)."""
    real = rewrite_command.migrate_paths

    def migrate_then_edit(*args, **kwargs):
        results = real(*args, **kwargs)
        edit()
        return results
    monkeypatch.setattr(rewrite_command, "migrate_paths", migrate_then_edit)


def test_a_file_edited_after_it_was_read_keeps_the_edit_and_its_unit_is_skipped(tmp_path, monkeypatch):
    where = tmp_path / "tree"
    expect = original_tree(where)
    edited = expect["trainer/task.py"][0] + b"# saved by the user's editor\n"
    _editing(monkeypatch, lambda: (where / "trainer" / "task.py").write_bytes(edited))
    code, err = run("--no-cache", where)
    assert code == 2
    assert (where / "trainer" / "task.py").read_bytes() == edited
    assert (where / "trainer" / "model.py").read_bytes() == expect["trainer/model.py"][0]
    assert (where / "alone.py").read_bytes() == expect["alone.py"][1]  # another unit is still written
    assert "trainer/task.py changed after tfmigrate read it" in err and "run again" in err


def test_a_file_deleted_after_it_was_read_stays_deleted(tmp_path, monkeypatch):
    where = tmp_path / "tree"
    expect = original_tree(where)
    _editing(monkeypatch, lambda: (where / "trainer" / "task.py").unlink())
    code, err = run("--no-cache", where)
    assert code == 2
    assert not (where / "trainer" / "task.py").exists()
    assert (where / "trainer" / "model.py").read_bytes() == expect["trainer/model.py"][0]
    assert "trainer/task.py was deleted after tfmigrate read it" in err


# ---- Ctrl-C ------------------------------------------------------------------------------------------------------

_INTERRUPT = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from test_write_faults import FaultyOS
from tfmigrate import files, main
files.os = FaultyOS({at}, lambda: os.kill(os.getpid(), signal.SIGINT))
main.main(["rewrite", "--no-cache", {where!r}])
"""


@pytest.mark.parametrize("at", [0, 3, 7, 14])
def test_ctrl_c_while_writing_says_what_was_written_and_leaves_no_unit_half_done(tmp_path, at):
    where = tmp_path / "tree"
    expect = original_tree(where)
    script = _INTERRUPT.format(tests=str(Path(__file__).parent), at=at, where=str(where))
    proc = subprocess.run([PY, "-c", script], capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 130, err
    states = unit_states(where, expect)
    assert "Traceback" not in err and "interrupted:" in err and "no unit was left half-written" in err
    line = next(l for l in err.splitlines() if l.startswith("interrupted:"))
    for unit, state in zip(UNITS, states):
        for rel in unit:
            assert (str(where / rel) in line) == (state == "migrated"), line
    assert stray(where) == []


# ---- --out -------------------------------------------------------------------------------------------------------

def test_out_refuses_two_files_for_one_path(tmp_path):
    for d in ("a", "b"):
        shutil.copy(SINGLE / "original.py", tmp_path / f"{d}_train.py")
        (tmp_path / d).mkdir()
        shutil.move(tmp_path / f"{d}_train.py", tmp_path / d / "train.py")
    code, err = run("--no-cache", "--out", tmp_path / "o", tmp_path / "a" / "train.py", tmp_path / "b" / "train.py")
    assert code == 2
    assert "would both be written to" in err and "nothing was written" in err
    assert not (tmp_path / "o").exists()


def test_out_keeps_each_source_mode(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(SINGLE / "original.py", src / "train.py")
    (src / "plain.py").write_bytes(b"x = 1\n")
    os.chmod(src / "train.py", 0o755)
    os.chmod(src / "plain.py", 0o640)
    code, _ = run("-q", "--no-cache", "--out", tmp_path / "o", src)
    assert code == 0
    assert (tmp_path / "o" / "train.py").stat().st_mode & 0o7777 == 0o755
    assert (tmp_path / "o" / "plain.py").stat().st_mode & 0o7777 == 0o640
    os.chmod(src / "train.py", 0o700)  # again, over the first run's files: still the source's mode
    assert run("-q", "--no-cache", "--out", tmp_path / "o", src)[0] == 0
    assert (tmp_path / "o" / "train.py").stat().st_mode & 0o7777 == 0o700


def test_out_over_the_sources_leaves_unchanged_files_alone(tmp_path):
    shutil.copy(SINGLE / "original.py", tmp_path / "train.py")
    (tmp_path / "plain.py").write_bytes(b"x = 1\n")
    os.link(tmp_path / "plain.py", tmp_path / "plain_link")  # would refuse a write; nothing to write
    code, err = run("--no-cache", "--out", tmp_path, tmp_path)
    assert code == 0, err
    assert (tmp_path / "train.py").read_bytes() == (SINGLE / "migrated.py").read_bytes()


def test_out_copies_files_that_fail_so_the_tree_is_complete(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(SINGLE / "original.py", src / "train.py")
    (src / "broken.py").write_bytes(b"import tensorflow as tf\nest = tf.estimator.Estimator(\ndef f(:\n")
    code, _ = run("-q", "--no-cache", "--out", tmp_path / "o", src)
    assert code == 2
    assert (tmp_path / "o" / "broken.py").read_bytes() == (src / "broken.py").read_bytes()


# ---- symlinks, hard links, the same file twice -------------------------------------------------------------------

def test_a_symlink_stays_a_link_and_its_target_is_migrated_once(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    shutil.copy(SINGLE / "original.py", real / "train.py")
    work = tmp_path / "work"
    work.mkdir()
    (work / "train.py").symlink_to(real / "train.py")
    (work / "again.py").symlink_to(real / "train.py")
    code, err = run("--no-cache", work / "train.py", work / "again.py")
    assert code == 0, err
    assert (work / "train.py").is_symlink() and (work / "again.py").is_symlink()
    assert (real / "train.py").read_bytes() == (SINGLE / "migrated.py").read_bytes()
    assert "is the same file as" in err and "rewrote 1 file" in err


def test_a_hard_linked_file_is_left_whole_with_a_note(tmp_path):
    shutil.copy(SINGLE / "original.py", tmp_path / "train.py")
    os.link(tmp_path / "train.py", tmp_path / "other_name")
    code, err = run("--no-cache", tmp_path / "train.py")
    assert code == 2
    assert "has 2 hard links" in err
    assert (tmp_path / "train.py").read_bytes() == (SINGLE / "original.py").read_bytes()
    assert os.stat(tmp_path / "train.py").st_ino == os.stat(tmp_path / "other_name").st_ino


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_in_place_keeps_the_owner_and_mode(tmp_path):
    shutil.copy(SINGLE / "original.py", tmp_path / "train.py")
    os.chown(tmp_path / "train.py", 1234, 4321)
    os.chmod(tmp_path / "train.py", 0o751)
    code, _ = run("-q", "--no-cache", tmp_path / "train.py")
    assert code == 0
    st = os.stat(tmp_path / "train.py")
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (1234, 4321, 0o751)
    assert (tmp_path / "train.py").read_bytes() == (SINGLE / "migrated.py").read_bytes()
