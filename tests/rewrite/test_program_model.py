"""The program model (migrator/model.py) and what it lets the driver do: names resolved by meaning, every blocker
reported, no Estimator file passed over silently, the plan printed by --explain."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import libcst as cst
import pytest

from _helpers import blocked, converted, program, rewrite
from tfmigrate.model import FileIndex, Program, Value, code


def _index(src: str):
    module = cst.parse_module(textwrap.dedent(src))
    index = FileIndex(module, "m.py", "m")
    return Program([index]), index


def _call(index, text):
    return next(c for c in index.calls if code(c.func) == text)


def test_resolves_through_helpers_parameters_and_tuple_unpacking():
    program, index = _index('''
        import tensorflow as tf

        def get_config(model_dir):
            return tf.estimator.RunConfig(model_dir=model_dir)

        def specs(steps):
            return tf.estimator.TrainSpec(f, steps), 7

        def main(args):
            config = get_config(args.model_dir)
            train, _ = specs(args.steps)
            use(config, train)
        ''')
    use = _call(index, "use")
    config = program.resolve(Value(use.args[0].value, index))
    assert code(config.node) == "tf.estimator.RunConfig(model_dir=model_dir)"
    model_dir = Value(config.node.args[0].value, config.value.file, config.value.env)
    assert program.render(model_dir, use, index) == "args.model_dir"
    train = program.resolve(Value(use.args[1].value, index))
    assert code(train.node) == "tf.estimator.TrainSpec(f, steps)"
    assert program.qualified(train.node.func, index) == "tensorflow.estimator.TrainSpec"


def test_a_name_with_two_reaching_values_is_ambiguous_and_a_dominating_one_is_not():
    program, index = _index('''
        def main(flag):
            x = 1
            if flag:
                x = 2
            use(x)
            y = 1
            y = 2
            use2(y)
        ''')
    assert len(program.resolve(Value(_call(index, "use").args[0].value, index)).ambiguous) == 2
    assert code(program.resolve(Value(_call(index, "use2").args[0].value, index)).node) == "2"


def test_local_import_and_shadowing_follow_scopes():
    program, index = _index('''
        def main():
            import tensorflow as tf
            tf.estimator.Estimator(f)

        def other(tf):
            tf.estimator.Estimator(f)
        ''')
    first, second = [c for c in index.calls if code(c.func) == "tf.estimator.Estimator"]
    assert program.qualified(first.func, index) == "tensorflow.estimator.Estimator"
    assert program.qualified(second.func, index) is None


def test_partial_and_factory_closures_are_functions():
    program, index = _index('''
        import functools

        def input_fn(salt, params):
            pass

        def make(salt):
            def inner():
                return salt
            return inner

        use(functools.partial(input_fn, 3), make(1))
        ''')
    call = _call(index, "use")
    partial = program.function_of(Value(call.args[0].value, index))
    assert partial.node.name.value == "input_fn" and partial.bound == ("salt",)
    closure = program.function_of(Value(call.args[1].value, index))
    assert closure.node.name.value == "inner"


def test_every_blocker_is_reported_each_on_its_own_line():
    drive = """
    est.train(input_fn=train_input_fn, max_steps=5, hooks=[h])
    est.predict(input_fn=eval_input_fn)
    est.export_saved_model("/tmp/x", serving_fn)
    """
    result = blocked(program(drive=drive))
    lines = {d.line for d in result.diagnostics if d.severity == "error"}
    assert len(lines) >= 3, [d.format() for d in result.diagnostics]
    messages = " ".join(d.message for d in result.diagnostics)
    assert "hook" in messages and "predict" in messages and "serving_input_receiver_fn `serving_fn`" in messages


def test_estimator_built_at_module_level_positionally_converts():
    src = program()
    src = src[:src.index("def main():")] + (textwrap.dedent('''\
        if __name__ == "__main__":
            est = tf.estimator.Estimator(model_fn, "/tmp/m", tf.estimator.RunConfig(tf_random_seed=1), {"lr": 0.1})
            est.train(lambda: train_input_fn(), max_steps=10)
        '''))
    out = converted(src)
    assert "build_model(" in out and ".fit(" in out and "tf.estimator" not in out


def test_tpu_contrib_and_unbound_estimator_names_are_flagged_not_passed_over():
    tpu = "import tensorflow as tf\n\nest = tf.contrib.tpu.TPUEstimator(model_fn=f, use_tpu=False)\n"
    assert [d.message for d in blocked(tpu).diagnostics] == [
        "model_fn=`f`: tfmigrate cannot follow `f` to a function (a parameter with several callers, a global, or a "
        "name from a module outside the migrated files); pass the files that define it too",
        # its missing RunConfig, a blocker of its own (issue 12: every blocker), no longer hidden by the model_fn's
        "TPUEstimator without config: TF1 raised ValueError (`config` must be a tf.compat.v1.estimator.tpu.RunConfig)"]
    unbound = ("from tensorflow.keras import Sequential\n\nmodel = Sequential()\n"
               "est = tf.keras.estimator.model_to_estimator(model)\n")
    assert {d.code for d in blocked(unbound).diagnostics} == {"TFM604"}
    spec_only = "import tensorflow as tf\n\ndef model_fn(features, labels, mode):\n" \
                "    return tf.estimator.EstimatorSpec(mode)\n"
    assert rewrite(spec_only).status == "blocked"


def test_explain_prints_the_plan(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(program())
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "rewrite", "--explain", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    site = plan[0]
    assert site["model_fn"].startswith("model_fn at ") and site["target"] == "keras"
    assert site["run_config"]["model_dir"] == '"/tmp/tfm-test"'
    assert [u["kind"] for u in site["uses"]] == ["train_and_evaluate"]
    assert plan[-1] == {"blockers": []}
    assert path.read_text() == program()  # --explain writes nothing


def test_model_fn_defined_in_the_function_that_builds_the_estimator():
    src = textwrap.dedent('''\
        import tensorflow as tf


        def main(hidden, steps):
            def input_fn():
                return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1).repeat()

            def model_fn(features, labels, mode):
                logits = tf.compat.v1.layers.dense(features["x"], hidden)
                loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
                train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
                    loss, global_step=tf.compat.v1.train.get_global_step())
                return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

            est = tf.estimator.Estimator(model_fn)
            est.train(input_fn, max_steps=steps)
        ''')
    out = converted(src)
    assert "    class Model(keras.Model):" in out and "units=hidden" in out
    assert "        est = build_model({})" in out and "\n    \n" not in out


def test_script_importing_its_sibling_by_short_name(tmp_path):
    """`import model` next to the script (its directory is on sys.path), even inside a package directory."""
    from tfmigrate.engine import Options, migrate_paths

    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "model.py").write_text(program().split("def main():")[0])
    driver = program().split("def main():")[1].replace("model_fn=model_fn", "model_fn=model.model_fn")
    driver = driver.replace("input_fn=train_input_fn", "input_fn=model.train_input_fn")
    driver = driver.replace("input_fn=eval_input_fn", "input_fn=model.eval_input_fn")
    (tmp_path / "main.py").write_text("import tensorflow as tf\n\nimport model\n\n\ndef main():" + driver)
    results = migrate_paths([tmp_path / "main.py", tmp_path / "model.py"], Options(), jobs=1)
    assert [r.status for r in results] == ["changed", "changed"], [d.format() for r in results for d in r.diagnostics]
    assert "model.build_model(" in results[0].output.decode()
    assert "class Model(keras.Model)" in results[1].output.decode()


def test_keras_data_is_distributed_by_the_models_own_strategy():
    """Under a multi-replica strategy built in a helper, the fit in main() cannot see the helper's strategy
    variable: the data goes through the strategy the model was built under."""
    src = program(run_config="", estimator="est = build_estimator({\"lr\": 0.1})", extra='''
        def build_estimator(params):
            config = tf.estimator.RunConfig(train_distribute=tf.distribute.MirroredStrategy())
            return tf.estimator.Estimator(model_fn, config=config, params=params)
        ''')
    out = converted(src, target="keras")
    main = out[out.index("def main():"):]
    assert "est.distribute_strategy.distribute_datasets_from_function(" in main
    assert "strategy." not in main.replace("est.distribute_strategy.", "")


def _package_with_data_module(tmp_path, data_module: str):
    """trainer/task.py builds and drives the Estimator; trainer/data.py (no Estimator word) holds its arrays."""
    from tfmigrate.engine import Options, migrate_paths

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "data.py").write_text(textwrap.dedent(data_module))
    src = program().replace("import tensorflow as tf\n", "import tensorflow as tf\nfrom trainer import data\n", 1)
    src = src.replace('"x": [[1.0, 2.0]]}, [[1.0]]))\n    return ds', '"x": data.FEATURES}, data.LABELS))\n    return ds')
    assert "data.FEATURES" in src
    (pkg / "task.py").write_text(src)
    return migrate_paths([pkg / "task.py", pkg / "data.py"], Options(), jobs=1)


def test_a_data_module_the_program_imports_is_converted_with_it(tmp_path):
    """The migrated program imports trainer/data.py, so that module must run on TF2 too: its v1 names are
    converted with the unit."""
    task, data = _package_with_data_module(tmp_path, """\
        import tensorflow.compat.v1 as tf

        tf.logging.set_verbosity(tf.logging.INFO)
        FEATURES = [[1.0, 2.0]]
        LABELS = [[1.0]]
        """)
    assert (task.status, data.status) == ("changed", "changed"), [d.format() for r in (task, data) for d in r.diagnostics]
    out = data.output.decode()
    assert "import tensorflow as tf\n" in out and "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)" in out
    assert "keras" not in out


def test_a_data_module_with_a_name_tf2_lacks_blocks_the_unit(tmp_path):
    """tf.contrib is gone in TF2: converting the driver alone would hand back a program that fails at import."""
    task, data = _package_with_data_module(tmp_path, """\
        import tensorflow as tf

        mnist = tf.contrib.learn.datasets.load_dataset("mnist")
        FEATURES = [[1.0, 2.0]]
        LABELS = [[1.0]]
        """)
    assert (task.status, data.status) == ("blocked", "blocked")
    # (TFM603: tf.contrib.learn, with what to port it to; was TFM001 "no same-meaning TF2 name")
    assert [(d.code, d.line) for d in data.diagnostics] == [("TFM603", 3)]
    assert [d.code for d in task.diagnostics] == ["TFM600"]


def test_a_data_module_in_tf2_style_stays_byte_identical(tmp_path):
    task, data = _package_with_data_module(tmp_path, """\
        import tensorflow as tf

        FEATURES = tf.constant([[1.0, 2.0]]).numpy().tolist()
        LABELS = [[1.0]]
        """)
    assert task.status == "changed" and data.status in ("unchanged", "skipped") and data.output == data.source


def test_estimator_names_with_tensorflow_never_imported_are_reported(tmp_path):
    """A notebook cell: `tf` comes from an earlier cell. Nothing resolves it, so it is flagged, not passed over."""
    result = rewrite("model = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols)\n"
                     "model.train(input_fn=fn, steps=10)\n")
    assert result.status == "blocked" and [d.code for d in result.diagnostics] == ["TFM604"]


@pytest.mark.parametrize("call", [
    'make_estimator("/tmp/m", tf.estimator.RunConfig(tf_random_seed=3))',
    'make_estimator(config=tf.estimator.RunConfig(tf_random_seed=3), model_dir="/tmp/m")',
    'make_estimator("/tmp/m", tf.estimator.RunConfig().replace(tf_random_seed=3))',
])
def test_a_run_config_written_inline_as_a_helpers_argument(call):
    """The helper's `config` parameter is read only by the Estimator it builds: it and the inline RunConfig go."""
    src = program(run_config="", estimator=f"est = {call}", drive="est.train(input_fn=train_input_fn, max_steps=10)\n",
                  extra='''
        def make_estimator(model_dir, config):
            return tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
        ''')
    out = converted(src)
    assert "RunConfig" not in out and "def make_estimator(model_dir):" in out
    assert 'est = make_estimator("/tmp/m")' in out or 'est = make_estimator(model_dir="/tmp/m")' in out
    assert "keras.utils.set_random_seed(3)" in out
