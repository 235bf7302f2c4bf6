"""Issue #28: a run loop handed the model_fn through a parameter (`run_loop(flags, model_fn, ...)`), in a module that
neither imports the model_fn's module nor is imported by it, called from an entry point without an Estimator word."""
from __future__ import annotations

import shutil
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _run(root: Path) -> dict:
    return {Path(r.path).name: r for r in migrate_paths(discover([str(root)]), Options(), jobs=1)}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "zoo"
    shutil.copytree(FIXTURES / "handed_run_loop" / "original" / "zoo", root)
    return root


def test_the_loop_keeps_its_parameter_and_the_caller_passes_the_builder(tmp_path):
    results = _run(_copy(tmp_path))
    assert {n: r.status for n, r in results.items() if n != "__init__.py"} == {
        "main.py": "changed", "run_loop.py": "changed", "nets.py": "changed", "feeds.py": "skipped"}
    loop = results["run_loop.py"].output.decode()
    assert 'classifier = model_fn({"learning_rate": flags.learning_rate})' in loop
    # the loop's checkpoints callback is its own: it never imports the caller's model module
    assert "class EstimatorCheckpoints(" in loop and "callbacks=[EstimatorCheckpoints(flags.model_dir" in loop
    assert "run_loop.run_loop(flags, nets.build_ring_model, feeds.train_input_fn" in results["main.py"].output.decode()
    assert "def build_ring_model(" in results["nets.py"].output.decode()


def test_a_second_caller_blocks_at_the_estimator_naming_both(tmp_path):
    root = _copy(tmp_path)
    shutil.copy(root / "main.py", root / "other_main.py")
    results = _run(root)
    assert results["run_loop.py"].status == "blocked" and results["nets.py"].status == "blocked"
    finding = next(f for f in results["run_loop.py"].diagnostics if f.code == "TFM601")
    assert finding.line == 8
    assert "`model_fn` is a parameter of `run_loop`, which is called from 2 places (main.py:24, other_main.py:24)" \
        in finding.message


def test_a_loop_reading_its_model_fn_otherwise_is_not_handed_the_builder(tmp_path):
    # `model_fn.__name__` would read the builder's name: the old blocker at the caller's argument stands
    root = _copy(tmp_path)
    loop = root / "run_loop.py"
    loop.write_text(loop.read_text().replace("    classifier.train(", "    print(model_fn.__name__)\n    classifier.train("))
    results = _run(root)
    assert results["run_loop.py"].status == "blocked" and results["nets.py"].status == "blocked"
    finding = next(f for f in results["run_loop.py"].diagnostics if f.code == "TFM601")
    assert finding.line == 8
    assert finding.message == ("model_fn `model_fn` is a parameter of the run loop `run_loop`: `run_loop` also reads "
                               "its parameter `model_fn` at line 9, which would get the converted model's builder; "
                               "use the parameter only to build the Estimator")
