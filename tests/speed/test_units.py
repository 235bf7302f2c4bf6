"""How a run groups files into units (engine.migrate_paths): which files are parsed together as one program.

A file whose Estimator words are only in strings and comments (a docstring about Estimators, an error message
naming model_to_estimator) builds and uses no Estimator: it links like a file without the word, so a package
whose modules mention Estimators in prose (tf_keras: 10 such files, importing one another) is not one big unit
parsed by LibCST. A file that joins a unit (imported by its program files) and itself imports program files of
another unit ties them in: a package `__init__` re-exporting the model_fn its importer uses."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tfmigrate import engine
from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TRAINER = FIXTURES / "trainer_package"


def _run(root: Path, **kw):
    return {str(Path(r.path).relative_to(root)): r for r in migrate_paths(discover([str(root)]), Options(), jobs=1, **kw)}


def _view(results):
    return {rel: ("unchanged" if r.status == "skipped" else r.status, r.output or r.source,
                  [(d.code, d.line, d.col, d.severity, d.message) for d in r.diagnostics]) for rel, r in results.items()}


@pytest.fixture
def parsed(monkeypatch):
    """The paths LibCST parsed during a run (in-process: jobs=1)."""
    seen: list[str] = []
    real = engine.parse_source

    def spy(data, path):
        seen.append(Path(path).name)
        return real(data, path)

    monkeypatch.setattr(engine, "parse_source", spy)
    return seen


def _prose_package(root: Path, prose: bool) -> None:
    """A library package whose modules import one another and mention Estimators only in prose, next to a
    script that builds one (a fixture's original)."""
    lib = root / "lib"
    lib.mkdir(parents=True)
    word = "Estimator" if prose else "model"
    (lib / "__init__.py").write_text(f'"""Layers, losses and the {word} bridge."""\nfrom lib import bridge, layers, losses\n')
    (lib / "layers.py").write_text(
        f'"""Layers; used by the {word} bridge too."""\nimport tensorflow as tf\n\nfrom lib import losses\n\n\n'
        f'def dense(x, units):\n    # kept for {word} checkpoints\n    return tf.keras.layers.Dense(units)(x)\n')
    (lib / "losses.py").write_text(
        f'import tensorflow as tf\n\nfrom lib import layers\n\n\ndef mse(y, p):\n'
        f'    """Mean squared error (as the canned {word}s reduce it)."""\n    return tf.reduce_mean(tf.square(y - p))\n')
    (lib / "bridge.py").write_text(
        "import tensorflow as tf\n\n\ndef to_estimator(model):\n    raise NotImplementedError(model)\n")
    shutil.copy(FIXTURES / "regression_adagrad" / "original.py", root / "train.py")


def test_prose_files_are_not_parsed_with_a_program_and_results_agree(tmp_path, parsed):
    _prose_package(tmp_path / "a", prose=True)
    results = _run(tmp_path / "a")
    # the script and the one module with an Estimator word in an identifier; not the prose-only modules
    assert sorted(parsed) == ["bridge.py", "train.py"]
    assert results["train.py"].status == "changed"
    assert {rel: r.status for rel, r in results.items() if rel != "train.py"} == {
        "lib/__init__.py": "skipped", "lib/layers.py": "skipped", "lib/losses.py": "skipped",
        "lib/bridge.py": "unchanged"}
    # the same with every file parsed (no prefilter, no cache) and with the prose words gone
    assert _view(_run(tmp_path / "a", prefilter=False)) == _view(results)
    _prose_package(tmp_path / "b", prose=False)
    assert _view(_run(tmp_path / "b"))["train.py"] == _view(results)["train.py"]


@pytest.mark.parametrize("docstring", ["", '"""The Estimator trainer: model_fn and input functions."""\n'])
def test_a_package_init_reexporting_the_model_fn_ties_it_in(tmp_path, docstring):
    """task.py imports the package, whose __init__ re-exports model.py's functions: the three are one program
    (with or without the word in the __init__'s docstring) and convert as the package fixture does."""
    root = tmp_path / "t"
    shutil.copytree(TRAINER / "original", root)
    task = root / "trainer" / "task.py"
    src = task.read_text()
    assert "from trainer import model\n" in src
    task.write_text(src.replace("from trainer import model\n", "import trainer as model\n"))
    (root / "trainer" / "__init__.py").write_text(
        docstring + "from trainer.model import eval_input_fn, model_fn, train_input_fn\n")
    results = _run(root)
    assert {rel: v[0] for rel, v in _view(results).items()} == {
        "trainer/__init__.py": "unchanged", "trainer/model.py": "changed", "trainer/task.py": "changed"}, \
        [d.format() for r in results.values() for d in r.diagnostics]
    golden = TRAINER / "migrated" / "trainer"
    assert results["trainer/model.py"].output == (golden / "model.py").read_bytes()
    assert results["trainer/task.py"].output.decode() == (golden / "task.py").read_text().replace(
        "from trainer import model\n", "import trainer as model\n")
    assert _view(_run(root, prefilter=False)) == _view(results)


def test_a_warm_run_reads_the_prose_verdict_from_the_cache(tmp_path, monkeypatch):
    """Whether a file's words are only in prose is one `ast` parse: a cached run reads the answer instead, and a
    changed file is asked again."""
    from tfmigrate.cache import ResultCache

    _prose_package(tmp_path / "a", prose=True)
    asked: list[str] = []
    real = engine.identifier_facts

    def spy(data, path, *args):
        asked.append(Path(path).name)
        return real(data, path, *args)

    monkeypatch.setattr(engine, "identifier_facts", spy)
    cold = _run(tmp_path / "a", cache=ResultCache(tmp_path / "cache"))
    assert sorted(asked) == ["__init__.py", "bridge.py", "layers.py", "losses.py", "train.py"]
    asked.clear()
    assert _view(_run(tmp_path / "a", cache=ResultCache(tmp_path / "cache"))) == _view(cold)
    assert asked == []
    layers = tmp_path / "a" / "lib" / "layers.py"
    layers.write_text(layers.read_text().replace("# kept for Estimator checkpoints", "# Estimator = None"))
    again = _run(tmp_path / "a", cache=ResultCache(tmp_path / "cache"))
    assert {rel: r.status for rel, r in again.items()} == {rel: r.status for rel, r in cold.items()}
    assert asked == ["layers.py"]
