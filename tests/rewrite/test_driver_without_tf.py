"""Issue #12: a driver file that imports no TensorFlow (main.py: `import helpers`; the Estimator is built by
`helpers.make_estimator`) converts with the Estimator it uses, as one unit; or the unit is blocked as one, each file
reporting its own blocker at its own file:line."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _helper_program(root: Path, driver_header: str, make_estimator: str | None = None,
                    model_dir: str = "/tmp/tfmigrate-h9/m") -> None:
    """regression_adagrad split in two: helpers.py (model_fn, input functions, make_estimator) and main.py."""
    root.mkdir(parents=True)
    head, _ = (FIXTURES / "regression_adagrad" / "original.py").read_text().split("def main():")
    make_estimator = make_estimator or (
        "def make_estimator(model_dir):\n"
        "    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=42)\n"
        "    return tf.estimator.Estimator(model_fn=model_fn, config=config, "
        'params={"learning_rate": 0.05, "hidden_units": 8})\n')
    (root / "helpers.py").write_text(head + make_estimator)
    reach = "helpers." if "import helpers" in driver_header and "from helpers" not in driver_header else ""
    (root / "main.py").write_text(
        f'"""Trains the helpers\' Estimator."""\n{driver_header}\n\n\ndef main():\n'
        f'    estimator = {reach}make_estimator("{model_dir}")\n'
        f"    estimator.train(input_fn={reach}train_input_fn, max_steps=20)\n"
        f"    print(estimator.evaluate(input_fn={reach}eval_input_fn))\n\n\n"
        'if __name__ == "__main__":\n    main()\n')


def _run(root: Path):
    return {Path(r.path).name: r for r in migrate_paths(discover([str(root)]), Options(), jobs=1)}


@pytest.mark.parametrize("header", ["import helpers", "import helpers\nimport tensorflow as tf"],
                         ids=["no-tf-import", "unused-tf-import"])
def test_driver_file_converts_with_the_estimator_it_uses(tmp_path, header):
    _helper_program(tmp_path / "p", header)
    results = _run(tmp_path / "p")
    assert {name: r.status for name, r in results.items()} == {"helpers.py": "changed", "main.py": "changed"}
    main = results["main.py"].output.decode()
    helpers = results["helpers.py"].output.decode()
    assert ".train(" not in main and "input_fn=" not in main  # the Estimator calls are gone
    assert "estimator.fit(\n            helpers.train_input_fn()," in main
    # the Estimator's own NaN check is generated here, in the file that trains
    assert "callbacks=[helpers.EstimatorCheckpoints(\"/tmp/tfmigrate-h9/m\"), NanLossCheck()]" in main
    assert "class NanLossCheck(keras.callbacks.Callback):" in main
    assert "estimator.restore_model_dir(\"/tmp/tfmigrate-h9/m\", estimator.optimizer)" in main
    assert "estimator.evaluate(helpers.eval_input_fn(), steps=None, return_dict=True)" in main
    assert "class EstimatorCheckpoints(" in helpers and "def make_estimator(model_dir):" in helpers
    # a driver without TF imports gets the ones its generated code reads, below the docstring
    assert main.count("import tensorflow as tf\n") == 1 and "import keras\n" in main
    if "tensorflow" not in header:
        assert main.startswith('"""Trains the helpers\' Estimator."""\nimport tensorflow as tf\nimport keras\nimport helpers\n')
    compile(main, "main.py", "exec")
    assert not [d for r in results.values() for d in r.diagnostics if d.severity == "error"]


def _errors(results):
    return sorted((Path(d.path).name, d.line, d.code) for r in results.values() for d in r.diagnostics
                  if d.severity == "error")


@pytest.mark.parametrize("tf_import", ["", "import tensorflow as tf\n"], ids=["no-tf-import", "tf-import"])
def test_support_class_out_of_reach_blocks_the_unit_at_the_driver(tmp_path, tf_import):
    """`from helpers import make_estimator`: main.py cannot reach helpers' generated EstimatorCheckpoints, so it
    blocks at its own train() call, and helpers.py is left unchanged with it (TFM600)."""
    _helper_program(tmp_path / "p", tf_import + "from helpers import make_estimator, train_input_fn, eval_input_fn")
    results = _run(tmp_path / "p")
    assert {name: r.status for name, r in results.items()} == {"helpers.py": "blocked", "main.py": "blocked"}
    train_line = 7 + tf_import.count("\n")
    assert _errors(results) == [("helpers.py", 1, "TFM600"), ("main.py", train_line, "TFM601")]
    (message,) = [d.message for d in results["main.py"].diagnostics if d.code == "TFM601"]
    assert "add `import helpers` to this file" in message
    assert Path(results["main.py"].diagnostics[0].path).name == "main.py"


def test_a_value_of_the_helper_the_driver_cannot_write_blocks_at_the_driver(tmp_path):
    """model_dir computed locally in make_estimator: main.py's converted fit needs it and cannot name it. Reported at
    main.py's train() (where main.py blocks), naming where the value is written, not at a line of helpers.py."""
    _helper_program(tmp_path / "p", "import tensorflow as tf\nimport helpers", make_estimator=(
        "def make_estimator(name):\n"
        '    model_dir = "/tmp/tfmigrate-h9/" + name.upper()\n'
        "    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=42)\n"
        "    return tf.estimator.Estimator(model_fn=model_fn, config=config, "
        'params={"learning_rate": 0.05, "hidden_units": 8})\n'))
    results = _run(tmp_path / "p")
    assert {name: r.status for name, r in results.items()} == {"helpers.py": "blocked", "main.py": "blocked"}
    assert _errors(results) == [("helpers.py", 1, "TFM600"), ("main.py", 8, "TFM601")]
    (message,) = [d.message for d in results["main.py"].diagnostics if d.code == "TFM601"]
    assert "helpers.py:77" in message and "model_dir" in message
