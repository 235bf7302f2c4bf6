"""The command line behaves like the tools it sits next to (black, ruff): help and version flags, black's
`--check --diff`, a plain usage line, every option in --help, a quiet end when the reader of a pipe leaves."""
from __future__ import annotations

import subprocess

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app

from test_cli import ORIGINAL, TFMIGRATE, run, run_process


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_short_and_long_help(flag):
    for args in ([flag], ["rewrite", flag], ["verify", flag]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "120"}, prog_name="tfmigrate")
        assert result.exit_code == 0, (args, result.output)
        assert "Usage: tfmigrate" in result.output


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flags(flag):
    result = subprocess.run([*TFMIGRATE, flag], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("tfmigrate ")


def test_usage_line_names_paths_plainly():
    out = CliRunner().invoke(app, ["rewrite", "--help"], env={"COLUMNS": "120"}, prog_name="tfmigrate").output
    assert "Usage: tfmigrate rewrite [OPTIONS] PATH..." in out and "{" not in out.split("Usage:")[1].split("\n")[0]


def test_every_rewrite_option_is_in_the_help():
    out = CliRunner().invoke(app, ["rewrite", "--help"], env={"COLUMNS": "200"}).output
    assert "--no-prefilter" in out and "syntax error" in out  # what the prefilter skips is said


@pytest.mark.parametrize("how", ["typer", "fast"])
def test_check_with_diff_prints_the_diff_and_fails(tmp_path, how):
    """black's CI idiom `--check --diff`: the diff on stdout, exit 1, the file untouched (in both parsers)."""
    src = tmp_path / "train.py"
    src.write_bytes(ORIGINAL)
    result = (run if how == "typer" else run_process)("--check", "--diff", src)
    assert result.returncode == 1, result.stderr
    assert b"+++ " in result.stdout and b"--- " in result.stdout
    assert src.read_bytes() == ORIGINAL
    clean = tmp_path / "clean.py"
    clean.write_bytes(b"x = 1\n")
    assert (run if how == "typer" else run_process)("--diff", "--check", clean).returncode == 0


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`tfmigrate rewrite --diff . | head -1`: no BrokenPipeError traceback."""
    for i in range(30):
        (tmp_path / f"t{i}.py").write_bytes(ORIGINAL)
    proc = subprocess.Popen([*TFMIGRATE, "rewrite", "--diff", "-q", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_force_exclude_on_an_excluded_file_says_it_is_excluded(tmp_path):
    # it said "no Python files found" of a file that is there (pre-commit names each file, --force-exclude)
    (tmp_path / "gen").mkdir()
    target = tmp_path / "gen" / "x.py"
    target.write_bytes(ORIGINAL)
    proc = run("--check", "--force-exclude", "--exclude", "gen", target)
    assert proc.returncode == 0 and target.read_bytes() == ORIGINAL
    err = (proc.stdout + proc.stderr).decode()
    assert "is excluded" in err and "no Python files found" not in err, err
