"""Issue #28: the program followed across the files of the run — `tf`, a model_fn and its generated builder reached
through star imports of the run's own modules; a model_fn returned by a factory named with the call that uses it."""
from __future__ import annotations

import shutil
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _run(root: Path) -> dict:
    return {Path(r.path).name: r for r in migrate_paths(discover([str(root)]), Options(), jobs=1)}


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def test_tf_and_the_model_fn_through_star_imports_of_the_run_convert(tmp_path):
    # a public DeepFM trainer: `from deepfm import *` gave train.py its `tf` and model_fn; it was told `tf` came
    # from "modules outside the migrated files" (TFM604) although deepfm.py was passed
    root = tmp_path / "shop"
    shutil.copytree(FIXTURES / "star_import_package" / "original" / "shop", root)
    results = _run(root)
    assert {n: r.status for n, r in results.items() if n != "__init__.py"} == {
        "main.py": "changed", "net.py": "changed", "feeds.py": "skipped"}
    main = results["main.py"].output.decode()
    # the builder generated in net.py comes with the star import; TF2's `tf` is imported too
    assert "est = build_demand_model(" in main and "from shop.net import *" in main
    assert "\nimport tensorflow as tf\n" in main  # (the same module object as net.py's `tf`)
    assert "def build_demand_model(" in results["net.py"].output.decode()


def test_a_later_star_import_outside_the_run_keeps_the_model_fn_unreached(tmp_path):
    # a star import after the model_fn's may rebind the generated builder's name: never assumed reached
    root = tmp_path / "shop"
    shutil.copytree(FIXTURES / "star_import_package" / "original" / "shop", root)
    main = root / "main.py"
    main.write_text(main.read_text().replace("from shop.feeds import *  # noqa: F401,F403\n",
                                             "from shop.feeds import *  # noqa: F401,F403\nfrom os.path import *\n"))
    results = _run(root)
    assert results["main.py"].status == "blocked"
    assert b"build_demand_model" not in results["main.py"].output


BUILDER = '''\
import tensorflow as tf


def make_model_fn(rate):
    def model_fn(features, labels, mode, params):
        out = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, out)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(rate).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn
'''

MAIN = '''\
import sys

import tensorflow as tf

from trainer import builder


def feed():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0]]}, [[1.0], [0.0]])).batch(2)


def main(fast):
    fn = builder.make_model_fn(0.1)
    if fast:
        fn = builder.make_model_fn(0.5)
    est = tf.estimator.Estimator(model_fn=fn)
    est.train(feed, max_steps=2)


main(len(sys.argv) > 1)
'''


def test_a_model_fn_a_factory_returns_in_the_unit_is_left_with_the_blocker_named(tmp_path):
    # the factory's file joins the Estimator's unit: left unchanged naming the construct that blocks and its line
    results = _run(_write(tmp_path / "trainer", {"builder.py": BUILDER, "main.py": MAIN}))
    (own,) = [d for d in results["main.py"].diagnostics if d.severity == "error"]
    assert (own.code, own.line) == ("TFM601", 16)
    (left,) = results["builder.py"].diagnostics
    assert left.code == "TFM600" and f"main.py:16 TFM601 {own.message}" in left.message


VENDORED = '''\
class FastEstimator(object):
    """A repository's own copy of an Estimator class (not tf.estimator's)."""

    def __init__(self, model_fn):
        self.model_fn = model_fn

    def train(self, input_fn, max_steps):
        return self
'''


def test_a_model_fn_a_factory_returns_names_the_call_that_uses_it(tmp_path):
    # a public XLNet layout: get_model_fn() returns the model_fn, train.py passes it to the repository's own
    # TPUEstimator copy; the model_fn was said to be one "no Estimator in the migrated files is built with"
    main = MAIN.replace("from trainer import builder\n", "from trainer import builder, vendored\n").replace(
        "tf.estimator.Estimator(model_fn=fn)", "vendored.FastEstimator(model_fn=fn)")
    results = _run(_write(tmp_path / "trainer", {"builder.py": BUILDER, "main.py": main, "vendored.py": VENDORED}))
    (found,) = [d for d in results["builder.py"].diagnostics if d.severity == "error"]
    assert (found.code, found.line) == ("TFM601", 5)
    assert found.message == ("`model_fn(features, labels, mode, params)` is the model_fn `make_model_fn` returns, "
                             f"called at {tmp_path}/trainer/main.py:13, whose value reaches no tf.estimator Estimator "
                             f"tfmigrate converts (see the findings of {tmp_path}/trainer/main.py): it converts with "
                             "that Estimator once it does")
