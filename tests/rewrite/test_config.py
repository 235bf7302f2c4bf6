"""`[tool.tfmigrate]` / tfmigrate.toml: found like ruff finds its config, flags override, mistakes exit 2."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmigrate import config as cfg
from tfmigrate.cli import app
from tfmigrate.engine import Options, migrate_source

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = (ROOT / "fixtures" / "regression_adagrad" / "original.py").read_bytes()
BLOCKED = (ROOT / "fixtures" / "unsupported_hook" / "original.py").read_bytes()
KERAS = migrate_source(ORIGINAL, "p.py", Options(target="keras")).output
CTL = migrate_source(ORIGINAL, "p.py", Options(target="ctl")).output


def rewrite(*args, cwd: Path | None = None, monkeypatch=None):
    if cwd is not None and monkeypatch is not None:
        monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, ["rewrite", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def project(tmp_path: Path, toml: str, name: str = "pyproject.toml") -> Path:
    (tmp_path / name).write_text(toml)
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "prog.py").write_bytes(ORIGINAL)
    return src / "prog.py"


def test_nearest_pyproject_with_a_tfmigrate_table_is_used(tmp_path):
    prog = project(tmp_path, '[tool.tfmigrate]\ntarget = "ctl"\n')
    (tmp_path / "src" / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.tfmigrate]: passed over
    assert cfg.find(prog) == tmp_path / "pyproject.toml"
    code, _, err = rewrite(prog)
    assert code == 0, err
    assert prog.read_bytes() == CTL != KERAS


def test_flags_override_the_configuration(tmp_path):
    prog = project(tmp_path, '[tool.tfmigrate]\ntarget = "ctl"\n')
    code, _, err = rewrite("--target", "keras", prog)
    assert code == 0, err
    assert prog.read_bytes() == KERAS


def test_isolated_ignores_configuration(tmp_path):
    prog = project(tmp_path, '[tool.tfmigrate]\ntarget = "ctl"\n')
    assert rewrite("--isolated", prog)[0] == 0
    assert prog.read_bytes() == KERAS


def test_tfmigrate_toml_wins_in_its_directory(tmp_path):
    prog = project(tmp_path, 'target = "ctl"\n', name="tfmigrate.toml")
    (tmp_path / "pyproject.toml").write_text('[tool.tfmigrate]\ntarget = "keras"\n')
    assert cfg.find(prog) == tmp_path / "tfmigrate.toml"
    rewrite(prog)
    assert prog.read_bytes() == CTL


def test_explicit_config_file_and_key_value_overrides(tmp_path):
    prog = project(tmp_path, "")
    other = tmp_path / "elsewhere.toml"
    other.write_text('target = "ctl"\n')
    rewrite("--config", other, prog)
    assert prog.read_bytes() == CTL
    prog.write_bytes(ORIGINAL)
    rewrite("--config", other, "--config", "target=keras", prog)
    assert prog.read_bytes() == KERAS
    prog.write_bytes(ORIGINAL)
    rewrite("--config", "target='ctl'", prog)
    assert prog.read_bytes() == CTL


@pytest.mark.parametrize("toml, message", [
    ('[tool.tfmigrate]\ntagret = "ctl"\n', r"unknown key 'tagret'; did you mean 'target'\?"),
    ('[tool.tfmigrate]\ntarget = "tpu"\n', r"'target' must be one of auto, keras, ctl, not 'tpu'"),
    ('[tool.tfmigrate]\nselect = "TFM6"\n', r"'select' must be a list of strings"),
    ('[tool.tfmigrate]\nselect = ["TFM9999"]\n', r"'TFM9999' matches no rule code"),
    ('[tool.tfmigrate.verify-defaults]\nworkerz = 2\n', r"verify-defaults: unknown key 'workerz'; did you mean 'workers'"),
    ('[tool.tfmigrate\n', r"invalid TOML"),
])
def test_configuration_mistakes_exit_2_with_a_clear_message(tmp_path, toml, message):
    prog = project(tmp_path, toml)
    code, _, err = rewrite(prog)
    assert code == 2
    assert re.search(message, " ".join(err.split())), err
    assert str(tmp_path / "pyproject.toml") in err
    assert prog.read_bytes() == ORIGINAL


def test_bad_key_value_override_exits_2(tmp_path):
    prog = project(tmp_path, "")
    code, _, err = rewrite("--config", "jobz=2", prog)
    assert code == 2 and "unknown key 'jobz'" in err


def test_exclude_and_extend_exclude_globs(tmp_path):
    prog = project(tmp_path, '[tool.tfmigrate]\nextend-exclude = ["src/pkg/gen_*.py", "vendored"]\n')
    pkg = prog.parent
    (pkg / "gen_model.py").write_bytes(ORIGINAL)
    (pkg / "vendored").mkdir()
    (pkg / "vendored" / "x.py").write_bytes(ORIGINAL)
    (pkg / "build").mkdir()
    (pkg / "build" / "y.py").write_bytes(ORIGINAL)  # a default exclude
    code, _, err = rewrite("--check", tmp_path / "src")
    assert code == 1 and err.count("would rewrite /") == 1 and f"would rewrite {prog}" in err
    # `exclude` replaces the defaults: build/ is searched again
    (tmp_path / "pyproject.toml").write_text('[tool.tfmigrate]\nexclude = ["gen_*"]\n')
    code, _, err = rewrite("--check", tmp_path / "src")
    assert f"would rewrite {pkg / 'build' / 'y.py'}" in err and "gen_model" not in err
    assert f"would rewrite {pkg / 'vendored' / 'x.py'}" in err


def test_force_exclude_applies_to_files_named_explicitly(tmp_path):
    prog = project(tmp_path, '[tool.tfmigrate]\nextend-exclude = ["pkg"]\n')
    assert rewrite("--check", prog)[0] == 1  # named explicitly: taken
    code, _, err = rewrite("--check", "--force-exclude", prog)
    assert code == 0 and "excluded" in err and "no Python files found" not in err  # (named: it is there)


def test_loader_is_generic():
    """A new setting is one line in SCHEMA; unknown keys are refused at the call site too."""
    assert set(cfg.SCHEMA) >= {"target", "strategy", "exclude", "extend-exclude", "select", "ignore",
                                "per-file-ignores", "verify-defaults", "verify"}
    c = cfg.Config(None, {"target": "ctl"})
    assert c.get("target") == "ctl" and c.pick(None, "target") == "ctl" and c.pick("keras", "target") == "keras"
    assert c.get("strategy", "keep") == "keep"
    with pytest.raises(KeyError):
        c.get("no-such-key")
    schema = dict(cfg.SCHEMA, **{"cache-dir": cfg.Key("str", "where caches go")})
    assert cfg.validate({"cache-dir": "/tmp/x"}, schema, "t") == {"cache-dir": "/tmp/x"}


def test_docs_document_every_key():
    """The configuration page of the docs site names every key a configuration file can hold."""
    page = (ROOT / "docs" / "configuration.md").read_text()
    for key in (*cfg.SCHEMA, *cfg.VERIFY_KEYS, *cfg.CASE_KEYS):
        assert f"`{key}`" in page or f"{key} =" in page, key


def test_verify_defaults_fill_unset_flags(tmp_path, monkeypatch):
    from tfmigrate.runtime import verify

    (tmp_path / "pyproject.toml").write_text(
        '[tool.tfmigrate.verify-defaults]\nworkers = 1\nsteps = 7\ntimeout = 30\nargs = ["--steps", "7"]\n')
    for name in ("o.py", "m.py"):
        (tmp_path / name).write_text("print(1)\n")
    seen = {}

    def fake_run(settings, say=print, **kw):
        seen["s"] = settings
        raise verify.VerifyError("stop here")

    monkeypatch.setattr(verify, "run", fake_run)
    result = CliRunner().invoke(app, ["verify", str(tmp_path / "o.py"), str(tmp_path / "m.py"), "--steps", "9"])
    assert result.exit_code == 2, result.stdout
    s = seen["s"]
    assert (s.workers, s.steps, s.timeout, s.args) == (1, 9, 30.0, ["--steps", "7"])
    result = CliRunner().invoke(app, ["verify", "--isolated", str(tmp_path / "o.py"), str(tmp_path / "m.py")])
    assert (seen["s"].workers, seen["s"].steps, seen["s"].args) == (2, None, [])


def test_a_searched_directory_inside_an_excluded_name_is_still_searched(tmp_path):
    """Excluded names apply below the directory given, not to the directories above it."""
    src = tmp_path / "build" / "src"
    src.mkdir(parents=True)
    (src / "prog.py").write_bytes(ORIGINAL)
    code, _, err = rewrite("--check", "--isolated", src)
    assert code == 1 and f"would rewrite {src / 'prog.py'}" in err
