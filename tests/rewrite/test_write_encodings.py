"""Files in a PEP 263 encoding other than UTF-8 (issue 31 item 6): what a template adds must be encodable in the
file's encoding, and --diff must be a patch of the file's own bytes."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.files import Unencodable, encode

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "fixtures" / "hook_order"  # its migration adds the TensorLogger template (a `→` in a comment)
COOKIE = b"# -*- coding: latin-1 -*-\n"
NOTE = "# r\u00e9seau de neurones\n".encode("latin-1")


def latin1_program() -> bytes:
    """hook_order in latin-1: a cookie, and a non-ASCII comment next to the imports the migration changes."""
    return COOKIE + (HOOKS / "original.py").read_bytes().replace(b"\nimport tensorflow", b"\n" + NOTE + b"import tensorflow", 1)


def run(*args):
    result = CliRunner().invoke(app, ["rewrite", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_a_latin1_file_is_migrated_in_its_encoding(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes(latin1_program())
    result = run("-q", "--no-cache", path)
    assert result.exit_code == 0, result.stderr
    out = path.read_bytes()
    assert out.startswith(COOKIE) and NOTE in out  # the user's own latin-1 bytes, as they were
    text = out.decode("latin-1")
    # the same text as the UTF-8 golden; the template with the mark went to the support module, in UTF-8
    golden = (HOOKS / "migrated.py").read_text("utf-8")
    assert text.replace(NOTE.decode("latin-1"), "") == COOKIE.decode("latin-1") + golden
    assert (tmp_path / "estimator_compat.py").read_bytes() == (HOOKS / "estimator_compat.py").read_bytes()


def test_a_latin1_file_keeping_its_support_code_spells_out_the_mark(tmp_path):
    """--support-module '': the TensorLogger template (its `→`) lands in the latin-1 file itself."""
    path, utf8 = tmp_path / "train.py", tmp_path / "utf8" / "train.py"
    path.write_bytes(latin1_program())
    utf8.parent.mkdir()
    utf8.write_bytes((HOOKS / "original.py").read_bytes())
    for p in (path, utf8):
        assert run("-q", "--no-cache", "--support-module", "", p).exit_code == 0
    text = path.read_bytes().decode("latin-1")
    assert "# key -> the last training step's value" in text
    expected = utf8.read_text("utf-8").replace("key \u2192 the last", "key -> the last")
    assert text.replace(NOTE.decode("latin-1"), "") == COOKIE.decode("latin-1") + expected


def test_utf8_output_keeps_the_template_mark():
    assert encode("x = 1  # key \u2192 value\n", "utf-8") == "x = 1  # key \u2192 value\n".encode()


def test_a_mark_outside_a_comment_is_a_clear_error():
    with pytest.raises(Unencodable, match=r"needs '\u2192' \(U\+2192\) at line 2, .*\(iso-8859-1\) cannot encode"):
        encode("x = 1\ny = '\u2192'  # \u2192\n", "iso-8859-1")


@pytest.mark.skipif(not shutil.which("patch"), reason="no patch(1)")
def test_diff_of_a_latin1_file_applies_to_it(tmp_path, monkeypatch):
    path = tmp_path / "train.py"
    path.write_bytes(latin1_program())
    monkeypatch.chdir(tmp_path)
    patch = run("--no-cache", "--diff", "train.py").stdout_bytes
    assert NOTE in patch  # a context line, in latin-1
    (tmp_path / "expected").mkdir()
    expected = tmp_path / "expected" / "train.py"
    expected.write_bytes(path.read_bytes())
    assert run("-q", "--no-cache", expected).exit_code == 0
    # the patch of the file and the support module it creates
    subprocess.run(["patch", "-s", "-p1"], input=patch, check=True, timeout=60, cwd=tmp_path)
    assert path.read_bytes() == expected.read_bytes()
    assert (tmp_path / "estimator_compat.py").read_bytes() == (expected.parent / "estimator_compat.py").read_bytes()


def test_a_crlf_file_gets_crlf_in_generated_lines_too(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes((HOOKS / "original.py").read_bytes().replace(b"\n", b"\r\n"))
    assert run("-q", "--no-cache", path).exit_code == 0
    out = path.read_bytes()
    assert out.count(b"\n") == out.count(b"\r\n")  # generated docstrings included
    assert out.replace(b"\r\n", b"\n") == (HOOKS / "migrated.py").read_bytes()
