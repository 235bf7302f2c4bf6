"""`tfmigrate verify` as a user meets it before any cluster runs: what it expects, said before envs are built."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.runtime import envs


@pytest.fixture(autouse=True)
def no_env_build(monkeypatch):
    """A bad path must be reported without building (or even checking) the TF environments."""
    def refuse(*a, **kw):
        raise AssertionError("environments touched before the paths were checked")

    monkeypatch.setattr(envs, "ensure_all", refuse)
    monkeypatch.setattr(envs, "ensure", refuse)


def _verify(*args):
    result = CliRunner().invoke(app, ["verify", *map(str, args)], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout


def test_directory_says_what_verify_expects(tmp_path):
    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "model.py").write_text("x = 1\n")
    (pkg / "task.py").write_text("if __name__ == '__main__':\n    pass\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    code, out = _verify(pkg, tmp_path / "m.py")
    assert code == 2
    flat = " ".join(out.split())
    assert "is a directory: verify expects the program file to run" in flat
    assert "task.py" in flat and "model.py" not in flat
    assert "no such program" not in flat


def test_missing_file(tmp_path):
    (tmp_path / "o.py").write_text("x = 1\n")
    code, out = _verify(tmp_path / "o.py", tmp_path / "nope.py")
    assert code == 2 and "MIGRATED" in out and "nope.py: no such file" in " ".join(out.split())
