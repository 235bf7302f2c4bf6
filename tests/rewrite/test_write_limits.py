"""A documented size limit (issue 31 item 10) and files that are not Python text (item 11): said, never silent."""
from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.engine import MAX_SOURCE_BYTES, max_source_bytes

SINGLE = Path(__file__).resolve().parents[2] / "fixtures" / "regression_adagrad"


def run(*args, env=None):
    result = CliRunner().invoke(app, ["rewrite", *map(str, args)], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_a_file_over_the_limit_fails_clearly_and_is_left_as_it_was(tmp_path):
    shutil.copy(SINGLE / "original.py", tmp_path / "train.py")
    size = (tmp_path / "train.py").stat().st_size
    result = run("--no-cache", tmp_path / "train.py", env={"TFMIGRATE_MAX_FILE_BYTES": str(size - 1)})
    assert result.exit_code == 2
    assert f"too large to migrate: {size:,} bytes, the limit is {size - 1:,}" in result.stderr
    assert (tmp_path / "train.py").read_bytes() == (SINGLE / "original.py").read_bytes()
    result = run("-q", "--no-cache", tmp_path / "train.py", env={"TFMIGRATE_MAX_FILE_BYTES": str(size)})
    assert result.exit_code == 0


def test_the_default_limit_is_one_mebibyte(monkeypatch):
    monkeypatch.delenv("TFMIGRATE_MAX_FILE_BYTES", raising=False)
    assert max_source_bytes() == MAX_SOURCE_BYTES == 1 << 20


def test_a_utf16_file_is_named_not_skipped_silently(tmp_path):
    text = (SINGLE / "original.py").read_text()
    (tmp_path / "train.py").write_bytes(text.encode("utf-16"))
    result = run("--no-cache", tmp_path / "train.py")
    assert f"note: {tmp_path / 'train.py'} is not Python source text (it holds NUL bytes: UTF-16 or binary)" \
        in result.stderr
