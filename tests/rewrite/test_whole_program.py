"""The program across files: a builder handed as a value to a run loop, an Estimator subclass of one module built
in another, a run loop called from several mains; each converts, or says what is true at its line."""
from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover
from tfmigrate.model import FileIndex, Program

MODEL_FN = '''
def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1).repeat()


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)
'''


def _run(tmp_path: Path, files: dict[str, str]) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip())
    return {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}


def _errors(results: dict) -> list[str]:
    return [d.format() for r in results.values() for d in r.diagnostics if d.severity == "error"]


def test_a_function_called_through_a_parameter_has_that_call_site():
    source = textwrap.dedent('''
        def build(model_dir):
            return model_dir

        def run(make):
            return make("/tmp/x")

        run(build)
        ''')
    index = FileIndex(cst.parse_module(source), "m.py", "m")
    program = Program([index])
    build = index.top_level("build").node
    [(call, _)] = program.call_sites(build)
    assert cst.Module(body=[]).code_for_node(call) == 'make("/tmp/x")'


BUILDER_MODEL = "import tensorflow as tf\n" + MODEL_FN + '''

def build_estimator(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=7)
    return tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1})
'''
BUILDER_MAIN = '''
import model


def run(make_estimator, input_fn, steps):
    est = make_estimator("/tmp/tfm-wp")
    est.train(input_fn, max_steps=steps)


if __name__ == "__main__":
    run(model.build_estimator, model.train_input_fn, 10)
'''


def test_builder_handed_as_a_value_to_a_run_loop_converts(tmp_path):
    results = _run(tmp_path, {"model.py": BUILDER_MODEL, "main.py": BUILDER_MAIN})
    assert {n: r.status for n, r in results.items()} == {"model.py": "changed", "main.py": "changed"}, _errors(results)
    main = results["main.py"].output.decode()
    assert 'est.restore_model_dir("/tmp/tfm-wp", est.optimizer)' in main
    assert 'model.EstimatorCheckpoints("/tmp/tfm-wp")' in main
    assert "return build_model({\"lr\": 0.1})" in results["model.py"].output.decode()


SUBCLASS = "import tensorflow as tf\n" + MODEL_FN + '''

class RegressionEstimator(tf.estimator.Estimator):
    def __init__(self, config, hparams):
        super(RegressionEstimator, self).__init__(model_fn=model_fn, config=config, params=hparams)
'''
SUBCLASS_MAIN = '''
import tensorflow as tf

from estimator import RegressionEstimator, train_input_fn


def main():
    config = tf.estimator.RunConfig(model_dir="/tmp/tfm-wp2", tf_random_seed=7)
    est = RegressionEstimator(config, {"lr": 0.1})
    est.train(train_input_fn, max_steps=10)


if __name__ == "__main__":
    main()
'''


def test_estimator_subclass_of_another_module_converts_where_it_is_built(tmp_path):
    results = _run(tmp_path, {"estimator.py": SUBCLASS, "main.py": SUBCLASS_MAIN})
    assert {n: r.status for n, r in results.items()} == {"estimator.py": "changed", "main.py": "changed"}, \
        _errors(results)
    main = results["main.py"].output.decode()
    assert "from estimator import build_model, EstimatorCheckpoints, train_input_fn" in main
    assert 'est = build_model({"lr": 0.1})' in main and "RegressionEstimator" not in main
    assert "class RegressionEstimator" not in results["estimator.py"].output.decode()


RUN_LOOP = '''
import tensorflow as tf


def run(flags, model_fn, input_fn):
    config = tf.estimator.RunConfig(model_dir=flags["model_dir"], tf_random_seed=7)
    est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1})
    est.train(input_fn, max_steps=10)
'''


def _main(model_dir: str) -> str:
    return "import tensorflow as tf\n\nimport run_loop\n" + MODEL_FN + f'''

if __name__ == "__main__":
    run_loop.run({{"model_dir": "{model_dir}"}}, model_fn, train_input_fn)
'''


def test_run_loop_called_from_two_mains_names_both_callers(tmp_path):
    results = _run(tmp_path, {"run_loop.py": RUN_LOOP, "linear_main.py": _main("/tmp/a"),
                              "deep_main.py": _main("/tmp/b")})
    assert {r.status for r in results.values()} == {"blocked"}
    errors = _errors(results)
    assert any("run_loop.py:6:" in e and "called from 2 places (deep_main.py:22, linear_main.py:22)" in e
               for e in errors), errors
    assert not any("never called" in e or "builds no Estimator" in e or "outside the migrated" in e for e in errors)


def test_run_loop_handed_the_model_fn_gets_its_builder(tmp_path):
    # (was blocked at the argument: the builder is now handed through the parameter; tests/rewrite/test_handed_run_loop.py)
    results = _run(tmp_path, {"run_loop.py": RUN_LOOP, "linear_main.py": _main("/tmp/a")})
    assert {r.status for r in results.values()} == {"changed"}, _errors(results)
    assert 'est = model_fn({"lr": 0.1})' in results["run_loop.py"].output.decode()
    assert "run_loop.run({\"model_dir\": \"/tmp/a\"}, build_model, train_input_fn)" in \
        results["linear_main.py"].output.decode()
