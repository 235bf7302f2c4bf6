"""The console script's fast path (tfmigrate.main): `rewrite` parsed without typer reads its arguments as click
does, gives the same output and exit code, and a warm `rewrite --check` imports neither typer nor LibCST."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from tfmigrate.cli import app
from tfmigrate.main import _OPTIONS, defaults, parse_rewrite

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
COMMAND = typer.main.get_command(app).commands["rewrite"]
HEAVY = ("libcst", "typer", "click", "jinja2", "rich", "pydantic", "tfmigrate.rules.program", "tfmigrate.runtime")


def test_option_table_matches_the_typer_command():
    options = [p for p in COMMAND.params if p.param_type_name == "option" and p.name != "help"]
    names = {o for p in options for o in (*p.opts, *p.secondary_opts)}
    assert names == set(_OPTIONS)
    for p in options:
        for o in p.opts:
            key, kind = _OPTIONS[o]
            assert key == p.name
            expected = "flag" if p.is_flag else "many" if p.multiple else "int" if p.type_descriptor.annotation is int else "value"
            assert kind == expected, o
    assert defaults() == {p.name: (list(p.default) if p.multiple else p.default) for p in options}


def _click(args: list[str]):
    ctx = COMMAND.make_context("rewrite", list(args))
    values = dict(ctx.params)
    return values.pop("paths"), {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()}


@pytest.mark.parametrize("args", [
    ["a.py"], ["-"], ["--check", "src", "b.py"], ["-j1", "--check", "x"], ["-j", "3", "x"], ["--jobs=2", "x"],
    ["x", "--select", "TFM6", "--select=TFM7,TFM8", "--ignore", "TFM1"], ["-o", "out.json", "--output-format", "json", "x"],
    ["-q", "--diff", "--target=keras", "--strategy", "mirrored", "x", "y"], ["--config", "target=ctl", "--isolated", "x"],
    ["--exclude", "gen_*.py", "--force-exclude", "--report-unused-suppressions", "--statistics", "x"],
    ["--no-cache", "--cache-dir", "d", "--no-prefilter", "--explain", "x"], ["--out", "o", "--target", "", "x"],
    ["--target=a=b", "x"], ["--check", "--check", "x", "--target", "ctl", "--target", "keras"],
])
def test_fast_parse_reads_what_click_reads(args):
    assert parse_rewrite(args) == _click(args)


@pytest.mark.parametrize("args", [
    [], ["--help"], ["--check"], ["--bogus", "x"], ["-qj1", "x"], ["-j", "-1", "x"], ["--jobs", "x"], ["-j=2", "x"],
    ["--check=1", "x"], ["--target"], ["--", "-weird.py"], ["-jx", "x"], ["--jobs", "²", "x"], ["--out", "-", "x"],
])
def test_anything_else_is_left_to_typer(args):
    assert parse_rewrite(args) is None


def _run(*args, cache: Path):
    cmd = [sys.executable, "-X", "importtime", "-m", "tfmigrate", "rewrite", *map(str, args), "--cache-dir", str(cache)]
    proc = subprocess.run(cmd, capture_output=True, timeout=300)
    lines = proc.stderr.decode().splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    output = "\n".join(line for line in lines if not line.startswith("import time:"))
    return proc.returncode, proc.stdout, output, imported


def test_warm_check_imports_no_parser_and_matches_typer(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "cnn" / "original.py", src / "prog.py")
    shutil.copy(FIXTURES / "unsupported_hook" / "original.py", src / "hook.py")
    (src / "layers.py").write_text("import tensorflow as tf\n\nx = tf.keras.layers.Dense(3)\n")
    (src / "notes.py").write_text('"""Unlike tf.estimator.Estimator, this runs eagerly."""\nimport tensorflow as tf\n')
    cold = _run("--check", "-j1", src, cache=tmp_path / "cache")
    warm = _run("--check", "-j1", src, cache=tmp_path / "cache")
    assert "libcst" in cold[3]  # the cold run parsed the Estimator programs
    assert not {m for m in warm[3] if m.split(".")[0] in HEAVY or m.startswith(HEAVY)}, sorted(warm[3])
    assert warm[:3] == cold[:3] and cold[0] == 1 and "would rewrite" in cold[2]
    from typer.testing import CliRunner

    typer_run = CliRunner().invoke(app, ["rewrite", "--check", "-j1", str(src), "--cache-dir", str(tmp_path / "c2")])
    assert (typer_run.exit_code, typer_run.stderr_bytes.decode().rstrip("\n")) == (cold[0], cold[2])


def test_usage_errors_go_through_typer(tmp_path):
    code, _, err, imported = _run("--diff", "--out", tmp_path / "o", tmp_path, cache=tmp_path / "cache")
    assert code == 2 and "cannot be combined with --diff" in err and "Usage:" in err and "typer" in imported
    code, _, err, _ = _run("--output-format", "json", "-", cache=tmp_path / "cache")
    assert code == 2 and "add --output-file FILE" in err
    code, _, err, _ = _run("--config", "target=nope", tmp_path, cache=tmp_path / "cache")
    assert code == 2 and err.startswith("error: ") and "Usage:" not in err


# what a run whose every file is a cache hit (or skipped by the stat index) must not load: the parser, the rules'
# modules, templates, the CLI framework, the runtime (its TF environments), the pool, nor the stdlib modules only
# parsing or dataclasses need
NOT_WARM = (*HEAVY, "tfmigrate.model", "tfmigrate.visitors", "tfmigrate.edits", "tfmigrate.names", "platformdirs",
            "dataclasses", "inspect", "ast", "tokenize", "concurrent", "subprocess", "hashlib")
_SHOW_MODULES = ("import sys\nfrom tfmigrate.main import main\ntry:\n    main(sys.argv[1:])\nfinally:\n"
                 "    print('MODULES', sorted(sys.modules))\n")


def _modules_of(*args, env) -> tuple[int, str, set[str]]:
    import ast

    proc = subprocess.run([sys.executable, "-c", _SHOW_MODULES, *map(str, args)], capture_output=True, env=env,
                          timeout=300)
    out = proc.stdout.decode()
    before, _, listed = out.rpartition("MODULES ")
    return proc.returncode, before + proc.stderr.decode(), set(ast.literal_eval(listed))


def test_warm_all_cached_run_imports_no_parser_rules_or_runtime(tmp_path):
    """sys.modules after a warm `rewrite --check` (the default cache dir under TFMIGRATE_HOME, as a user runs it),
    less what the bare interpreter of this environment imports (site and .pth files), holds none of NOT_WARM."""
    import os

    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    shutil.copy(FIXTURES / "cnn" / "original.py", src / "prog.py")
    shutil.copy(FIXTURES / "unsupported_hook" / "original.py", src / "hook.py")
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "layers.py").write_text("import tensorflow as tf\nfrom . import util\nx = tf.keras.layers.Dense(3)\n")
    (src / "pkg" / "util.py").write_text('"""Unlike tf.estimator.Estimator, this runs eagerly."""\nimport tensorflow as tf\n')
    env = {k: v for k, v in os.environ.items() if k not in ("TFMIGRATE_CACHE_DIR",)}
    env["TFMIGRATE_HOME"] = str(tmp_path / "home")
    bare = subprocess.run([sys.executable, "-c", "import sys; print(sorted(sys.modules))"], capture_output=True,
                          env=env, timeout=60)
    import ast

    baseline = set(ast.literal_eval(bare.stdout.decode()))
    cold = _modules_of("rewrite", "--check", "-j1", src, env=env)
    warm = _modules_of("rewrite", "--check", "-j1", src, env=env)
    assert (tmp_path / "home" / "rewrite-cache").is_dir()
    assert cold[0] == 1 and "would rewrite" in cold[1] and "libcst" in cold[2]  # the cold run parsed
    assert warm[:2] == cold[:2]
    loaded = warm[2] - baseline
    assert not {m for m in loaded if m.split(".")[0] in NOT_WARM or m.startswith(NOT_WARM)}, sorted(loaded)
    assert "tfmigrate.cache" in loaded  # (the results came from the cache)
