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
    assert "# key -> the last training step's value" in text
    # the same text as the UTF-8 golden, but for the spelled-out mark
    golden = (HOOKS / "migrated.py").read_text("utf-8").replace("key \u2192 the last", "key -> the last")
    assert text.replace(NOTE.decode("latin-1"), "") == COOKIE.decode("latin-1") + golden


def test_utf8_output_keeps_the_template_mark():
    assert encode("x = 1  # key \u2192 value\n", "utf-8") == "x = 1  # key \u2192 value\n".encode()


def test_a_mark_outside_a_comment_is_a_clear_error():
    with pytest.raises(Unencodable, match=r"needs '\u2192' \(U\+2192\) at line 2, .*\(iso-8859-1\) cannot encode"):
        encode("x = 1\ny = '\u2192'  # \u2192\n", "iso-8859-1")


@pytest.mark.skipif(not shutil.which("patch"), reason="no patch(1)")
def test_diff_of_a_latin1_file_applies_to_it(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes(latin1_program())
    patch = run("--no-cache", "--diff", path).stdout_bytes
    assert NOTE in patch  # a context line, in latin-1
    expected = tmp_path / "expected.py"
    expected.write_bytes(path.read_bytes())
    assert run("-q", "--no-cache", expected).exit_code == 0
    subprocess.run(["patch", "-s", str(path)], input=patch, check=True, timeout=60)
    assert path.read_bytes() == expected.read_bytes()


def test_a_crlf_file_gets_crlf_in_generated_lines_too(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes((HOOKS / "original.py").read_bytes().replace(b"\n", b"\r\n"))
    assert run("-q", "--no-cache", path).exit_code == 0
    out = path.read_bytes()
    assert out.count(b"\n") == out.count(b"\r\n")  # generated docstrings included
    assert out.replace(b"\r\n", b"\n") == (HOOKS / "migrated.py").read_bytes()
