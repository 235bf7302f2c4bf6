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


# ---- units whose program files import no TensorFlow (rules.ROOTS) -------------------------------------------------

def _sklearn_package(root: Path, wrapper_extra: str = "") -> None:
    """A Keras-like library whose scikit-learn wrappers name `BaseEstimator` / `estimator` in identifiers (program
    files by their words) and import the library's modules, some of which import TensorFlow."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg import layers, models\n")
    (pkg / "layers.py").write_text(
        "import tensorflow as tf\n\n\ndef dense(x, units):\n    return tf.keras.layers.Dense(units)(x)\n")
    (pkg / "models.py").write_text(
        "import tensorflow as tf\n\nfrom pkg import layers\n\n\nclass Model(tf.keras.Model):\n"
        "    def call(self, x):\n        return layers.dense(x, 1)\n")
    (pkg / "fixes.py").write_text(
        "def validate_data(estimator, *args, **kwargs):\n"
        '    """Calls BaseEstimator._validate_data or sklearn.utils.validation.validate_data."""\n'
        "    return estimator._validate_data(*args, **kwargs)\n")
    (pkg / "wrappers.py").write_text(
        "try:\n    from sklearn.base import BaseEstimator\nexcept ImportError:\n    class BaseEstimator:\n"
        "        pass\n\nfrom pkg import models\nfrom pkg.fixes import validate_data\n\n\n"
        "class KerasRegressor(BaseEstimator):\n    def fit(self, X, y):\n        X = validate_data(self, X)\n"
        "        self.model_ = models.Model()\n        return self\n" + wrapper_extra)
    (pkg / "wrappers_test.py").write_text(
        "from sklearn.utils.estimator_checks import parametrize_with_checks\n\nfrom pkg.wrappers import "
        "KerasRegressor\n\n\n@parametrize_with_checks([KerasRegressor()])\ndef test_estimator(estimator, check):\n"
        "    check(estimator)\n")


def test_sklearn_estimators_are_not_a_program(tmp_path, parsed):
    """The wrappers are program files by their words but import no TensorFlow: their unit holds no Estimator, so
    the modules they import are not parsed with them, and the wrappers themselves (no attribute TFM604 reads) are
    skipped after the `ast` parse. The same results as parsing every file."""
    _sklearn_package(tmp_path / "a")
    results = _run(tmp_path / "a")
    assert parsed == []
    assert {r.status for r in results.values()} == {"skipped"}
    assert _view(_run(tmp_path / "a", prefilter=False)) == _view(results)


@pytest.mark.parametrize("extra, alone", [
    # an attribute TFM604 reads (under a bound root): parsed alone, unchanged
    ("\n\ndef inner(wrapper):\n    return wrapper.estimator\n", "unchanged"),
    # TFM604 under an unbound root: reported alone as in the unit
    ("\n\nCONFIG = contrib.RunConfig(model_dir='/tmp/m')\n", "blocked"),
])
def test_a_wrapper_with_estimator_names_is_migrated_alone(tmp_path, parsed, extra, alone):
    _sklearn_package(tmp_path / "a", extra)
    results = _run(tmp_path / "a")
    assert parsed == ["wrappers.py"]
    assert results["pkg/wrappers.py"].status == alone
    assert {r.status for rel, r in results.items() if rel != "pkg/wrappers.py"} == {"skipped"}
    assert _view(_run(tmp_path / "a", prefilter=False)) == _view(results)


def test_a_star_import_keeps_the_unit(tmp_path, parsed):
    """A star import may bring TensorFlow's names in (the rules then analyse the whole unit): not split."""
    _sklearn_package(tmp_path / "a")
    wrappers = tmp_path / "a" / "pkg" / "wrappers.py"
    wrappers.write_text(wrappers.read_text().replace("from pkg import models\n", "from pkg.models import *\n"))
    results = _run(tmp_path / "a")
    assert "models.py" in parsed and "wrappers.py" in parsed
    assert _view(_run(tmp_path / "a", prefilter=False)) == _view(results)


def _helper_program(root: Path, driver_imports_tf: bool) -> None:
    """regression_adagrad split in two: helpers.py (model_fn, input functions and `make_estimator`, which builds
    the Estimator) and main.py, which only reaches it through the helper module."""
    root.mkdir(parents=True)
    head, _ = (FIXTURES / "regression_adagrad" / "original.py").read_text().split("def main():")
    (root / "helpers.py").write_text(
        head + "def make_estimator(model_dir):\n    config = tf.estimator.RunConfig(model_dir=model_dir, "
        "tf_random_seed=42)\n    return tf.estimator.Estimator(model_fn=model_fn, config=config, "
        'params={"learning_rate": 0.05, "hidden_units": 8})\n')
    tf = "import tensorflow as tf\n\n" if driver_imports_tf else ""
    log = "    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)\n" if driver_imports_tf else ""
    (root / "main.py").write_text(
        f'"""Trains the helpers\' Estimator."""\n{tf}import helpers\n\n\ndef main():\n{log}'
        '    estimator = helpers.make_estimator("/tmp/tfmigrate-units/m")\n'
        "    estimator.train(input_fn=helpers.train_input_fn, max_steps=20)\n"
        "    print(estimator.evaluate(input_fn=helpers.eval_input_fn))\n\n\n"
        'if __name__ == "__main__":\n    main()\n')


@pytest.mark.parametrize("driver_imports_tf", [True, False])
def test_an_estimator_built_in_a_helper_module_keeps_its_unit(tmp_path, parsed, driver_imports_tf):
    """main.py names the Estimator only through `helpers.make_estimator` (and may import no TensorFlow itself):
    helpers.py imports TensorFlow, so the two stay one program, parsed together, as without the prefilter."""
    _helper_program(tmp_path / "p", driver_imports_tf)
    results = _run(tmp_path / "p")
    assert sorted(parsed) == ["helpers.py", "main.py"]
    assert _view(_run(tmp_path / "p", prefilter=False)) == _view(results)
    assert results["helpers.py"].status != "skipped"
    # and the unit converts as one: main.py's train/evaluate too, TensorFlow import or not (issue #12)
    assert {rel: r.status for rel, r in results.items()} == {"helpers.py": "changed", "main.py": "changed"}
    if driver_imports_tf:  # alone, main.py is reported for an Estimator it cannot follow: the unit is what counts
        alone = migrate_paths([tmp_path / "p" / "main.py"], Options(), jobs=1)[0]
        assert _view({"main.py": alone}) != _view({"main.py": results["main.py"]})


def test_a_relative_import_inside_a_tensorflow_package_keeps_the_unit(tmp_path, monkeypatch):
    """A joined module inside a package named for TensorFlow resolves its relative imports to TF paths
    (`tensorflow_estimator.X` is `tf.estimator.X`): its unit is not split, although its program file (a script
    importing it by its short name) imports no TensorFlow."""
    root = tmp_path / "r"
    pkg = root / "tensorflow_estimator"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("from . import util\n\n\ndef run():\n    return util.train()\n")
    (root / "script.py").write_text(
        "from sklearn.base import BaseEstimator\n\nimport helpers\n\n\nclass Other(BaseEstimator):\n"
        "    def fit(self, X, y):\n        return helpers.run()\n")
    units: list[list[str]] = []
    real = engine._migrate_unit

    def spy(item):
        units.append(sorted(Path(p).name for p in item[0]))
        return real(item)

    monkeypatch.setattr(engine, "_migrate_unit", spy)
    results = _run(root)
    assert units == [["helpers.py", "script.py"]]
    assert _view(_run(root, prefilter=False)) == _view(results)
