"""Issue #28: a builder FUNCTION handed to a generic run loop (the official wide & deep layout:
`run_loop(..., model_column_fn=..., build_estimator_fn=build_estimator)` calling
`model = build_estimator_fn(model_dir=..., model_column_fn=model_column_fn)`), the builder unpacking its
feature-column lists from the column helper handed with it (fixtures/builder_fn_run_loop)."""
from __future__ import annotations

import shutil
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

HERD = '''"""A second program through the same run loop: a linear regressor, its own builder and column helper."""
import numpy as np
import tensorflow as tf

from farm import loop


def input_fn(seed, n, repeat):
    rng = np.random.RandomState(seed)
    weight = rng.uniform(2.0, 6.0, size=n).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(({"weight": weight}, 0.7 * weight)).batch(16, drop_remainder=True)
    return ds.repeat() if repeat else ds


def build_model_columns():
    columns = [tf.feature_column.numeric_column("weight")]
    return columns, columns


def build_estimator(model_dir, model_column_fn):
    wide_columns, _ = model_column_fn()
    return tf.estimator.LinearRegressor(
        model_dir=model_dir, feature_columns=wide_columns,
        config=tf.estimator.RunConfig(tf_random_seed=5, save_checkpoints_steps=50))


def main(flags_obj):
    loop.run_loop("herd", lambda: input_fn(3, 1024, True), lambda: input_fn(4, 128, False),
                  model_column_fn=build_model_columns, build_estimator_fn=build_estimator, flags_obj=flags_obj)
'''


CUSTOM = '''import numpy as np
import tensorflow as tf


def make_data(n, seed):
    rng = np.random.RandomState(seed)
    weight = rng.uniform(2.0, 6.0, size=n).astype(np.float32)
    age = rng.uniform(1.0, 12.0, size=n).astype(np.float32)
    y = (0.7 * weight - 0.2 * age + 0.2 * rng.normal(size=n)).astype(np.float32)
    return {"weight": weight, "age": age}, y


def input_fn(seed, n, repeat):
    ds = tf.data.Dataset.from_tensor_slices(make_data(n, seed)).batch(16, drop_remainder=True)
    return ds.repeat() if repeat else ds


def build_model_columns():
    columns = [tf.feature_column.numeric_column(k) for k in ("weight", "age")]
    return columns, columns


def model_fn(features, labels, mode, params):
    net = tf.compat.v1.feature_column.input_layer(features, params["columns"])
    pred = tf.squeeze(tf.compat.v1.layers.dense(net, 1), 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
    opt = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    return tf.estimator.EstimatorSpec(mode, loss=loss,
                                      train_op=opt.minimize(loss, global_step=tf.compat.v1.train.get_global_step()))
'''

CUSTOM_MAIN = '''import argparse
import random

import tensorflow as tf

from farm import herd, loop


def build_estimator(model_dir, model_column_fn):
    _, deep_columns = model_column_fn()
    return tf.estimator.Estimator(model_fn=herd.model_fn, params={"columns": deep_columns},
                                  config=tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=5))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--model_dir", default="/tmp/herd")
    flags_obj = parser.parse_args()
    random.seed(3)
    loop.run_loop("herd", lambda: herd.input_fn(3, 1024, True), lambda: herd.input_fn(4, 128, False),
                  model_column_fn=herd.build_model_columns, build_estimator_fn=build_estimator, flags_obj=flags_obj)


if __name__ == "__main__":
    main()
'''


def _run(root: Path) -> dict:
    return {Path(r.path).name: r for r in migrate_paths(discover([str(root)]), Options(), jobs=1)}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "farm"
    shutil.copytree(FIXTURES / "builder_fn_run_loop" / "original" / "farm", root)
    return root


def test_the_loop_drives_the_model_its_caller_builds_and_writes_its_own_checkpoints(tmp_path):
    results = _run(_copy(tmp_path))
    assert {n: r.status for n, r in results.items() if n != "__init__.py"} == {
        "crops_main.py": "changed", "loop.py": "changed", "crops.py": "skipped"}
    loop = results["loop.py"].output.decode()
    # the loop never imports crops_main (which imports it): the generic callback class is its own
    assert "class EstimatorCheckpoints(" in loop and "import crops_main" not in loop
    assert "callbacks=[EstimatorCheckpoints(flags_obj.model_dir), NanLossCheck()]" in loop
    assert "results = model.evaluate(eval_input_fn(), steps=None, return_dict=True)" in loop
    main = results["crops_main.py"].output.decode()
    # the columns came through `wide_columns, deep_columns = model_column_fn()` (the helper handed with the builder)
    assert "return build_dnn_linear_combined_classifier({})" in main
    assert '"rain"' in main and '"soil"' in main


def test_a_second_caller_handing_its_own_builder_blocks_at_each_builder_naming_the_callers(tmp_path):
    root = _copy(tmp_path)
    (root / "herd_main.py").write_text(HERD)
    results = _run(root)
    assert {n: r.status for n, r in results.items() if n != "__init__.py"} == {
        "crops_main.py": "blocked", "herd_main.py": "blocked", "loop.py": "blocked", "crops.py": "blocked"}
    for name, line in (("crops_main.py", 15), ("herd_main.py", 20)):
        findings = results[name].diagnostics
        # the column lists were followed through each caller's own helper: no "not a list" finding remains
        assert [f.code for f in findings] == ["TFM601"], findings
        assert findings[0].line == line
        assert findings[0].message.startswith(
            "`build_estimator` is handed to the run loop `run_loop` through its parameter `build_estimator_fn`, and "
            "`run_loop` is called from 2 places (crops_main.py:30, herd_main.py:28), each handing its own builder")


def test_a_custom_model_fn_estimator_built_by_the_handed_builder_converts_too(tmp_path):
    root = _copy(tmp_path)
    (root / "crops_main.py").unlink()
    (root / "crops.py").unlink()
    (root / "herd.py").write_text(CUSTOM)
    (root / "herd_main.py").write_text(CUSTOM_MAIN)
    results = _run(root)
    assert {n: r.status for n, r in results.items() if n != "__init__.py"} == {
        "herd_main.py": "changed", "herd.py": "changed", "loop.py": "changed"}
    # params={"columns": deep_columns}: the columns unpacked from the handed helper reach the model's input layer
    assert 'return herd.build_model({"columns": deep_columns})' in results["herd_main.py"].output.decode()
    assert "callbacks=[EstimatorCheckpoints(flags_obj.model_dir), NanLossCheck()]" in results["loop.py"].output.decode()
