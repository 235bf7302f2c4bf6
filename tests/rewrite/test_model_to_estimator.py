"""TFM603 `tf.keras.estimator.model_to_estimator`: the Estimator becomes the compiled Keras model itself, its
optimizer the Keras 3 one that runs the legacy update model_to_estimator trained with (rules/planners/keras_estimator.py);
everything not converted exactly is blocked, named."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, rewrite

INPUTS = '''
def train_input_fn():
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1]))
    return ds.batch(1).repeat()


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1])).batch(1)
'''

BUILD = '''
def build_model():
    inputs = tf.keras.Input(shape=(2,), name="x")
    logits = tf.keras.layers.Dense(3)(tf.keras.layers.Dense(4, activation="relu")(inputs))
    model = tf.keras.Model(inputs, logits)
    model.compile(OPTIMIZER, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model
'''


def prog(main: str, optimizer: str = "tf.keras.optimizers.SGD(0.1)", build: str = BUILD, extra: str = "") -> str:
    parts = ["import tensorflow as tf\n", textwrap.dedent(extra), INPUTS, build.replace("OPTIMIZER", optimizer),
             textwrap.dedent(main)]
    return "\n".join(p.strip("\n") + "\n\n" for p in parts if p.strip())


HELPER_MAIN = '''
def main():
    model = build_model()
    config = tf.estimator.RunConfig(model_dir="/tmp/m2e", save_checkpoints_steps=5)
    est = tf.keras.estimator.model_to_estimator(keras_model=model, config=config)
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None)
    result, _ = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    print(result)


if __name__ == "__main__":
    main()
'''


def test_model_from_a_helper_keyword_and_train_and_evaluate():
    out = converted(prog(HELPER_MAIN))
    assert "    est = model\n" in out
    assert "model.compile(keras.optimizers.SGD(learning_rate=0.1), loss=" in out
    assert "model_to_estimator_inputs(est, train_input_fn())" in out
    # the Estimator's checkpoints in model_dir, written by the fit and read back before it (resume)
    assert "    initial_step = restore_model_dir(est, \"/tmp/m2e\")  # resume where training stopped\n" \
           "    if initial_step < 10:\n" in out
    assert "steps_per_epoch=10 - initial_step" in out
    assert 'callbacks=[EstimatorCheckpoints("/tmp/m2e", save_steps=5), NanLossCheck()]' in out
    assert "keras.callbacks.BackupAndRestore(" not in out
    assert out.count("class EstimatorCheckpoints(keras.callbacks.Callback):") == 1
    assert out.count("def restore_model_dir(model, model_dir):") == 1
    # evaluate() returned global_step: a metric reading the optimizer's iterations joins the compiled metrics
    assert 'metrics=["accuracy", EstimatorGlobalStep(lambda: model.optimizer.iterations)])' in out
    assert "class EstimatorGlobalStep(keras.metrics.Metric):" in out
    assert "tf.estimator" not in out and "model_to_estimator(" not in out.replace("def model_to_estimator_inputs(", "")
    # the generated helpers come before the function that compiles the model
    assert out.index("def model_to_estimator_inputs(") < out.index("def build_model(")


def test_evaluate_notes_how_its_loss_is_averaged():
    src = prog(HELPER_MAIN)
    result = rewrite(src)
    notes = [d for d in result.diagnostics if d.code == "TFM603" and "averages over examples" in d.message]
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "train_and_evaluate(" in text)
    assert [n.line for n in notes] == [line], [d.format() for d in result.diagnostics]


def test_module_level_positional_sequential_train_then_evaluate():
    src = prog('''
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
        model.compile(optimizer="adagrad", loss="sparse_categorical_crossentropy")
        est = tf.keras.estimator.model_to_estimator(model)
        est.train(train_input_fn, max_steps=4)
        metrics = est.evaluate(eval_input_fn)
        ''', build="")
    out = converted(src)
    assert "est = model\n" in out
    assert 'optimizer=LegacyAdagrad(learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-07)' in out
    assert "class LegacyAdagrad(keras.optimizers.Adagrad):" in out
    assert "est.fit(\n    model_to_estimator_inputs(est, train_input_fn()),\n    epochs=1,\n    steps_per_epoch=4," \
        in out
    assert "metrics = est.evaluate(model_to_estimator_inputs(est, eval_input_fn()), steps=None" in out
    # no metrics compiled: the Estimator still returned global_step
    assert ('loss="sparse_categorical_crossentropy", '
            'metrics=[EstimatorGlobalStep(lambda: model.optimizer.iterations)])') in out
    # compiled at module level: the generated code goes after the imports, before the program's own code
    assert out.index("import keras\n") < out.index("def model_to_estimator_inputs(") < out.index("def train_input_fn(")


def test_estimator_from_a_function_and_compat_v1_path_and_adam():
    src = prog('''
        def make_estimator(model, model_dir):
            return tf.compat.v1.keras.estimator.model_to_estimator(keras_model=model, model_dir=model_dir)


        def main():
            est = make_estimator(build_model(), "/tmp/m2e")
            est.train(input_fn=train_input_fn, steps=3)
        ''', optimizer="tf.keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-6)")
    out = converted(src)
    assert "LegacyKerasAdam(learning_rate=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-6)" in out
    assert "class LegacyKerasAdam(keras.optimizers.Adam):" in out
    assert "return model\n" in out
    assert "model_to_estimator_inputs(est, train_input_fn()),\n        epochs=1,\n        steps_per_epoch=3," in out


def test_legacy_adam_is_what_model_to_estimator_ran_and_converts_the_same():
    out = converted(prog(HELPER_MAIN, optimizer="tf.keras.optimizers.legacy.Adam(0.02)"))
    assert "model.compile(LegacyKerasAdam(learning_rate=0.02, beta_1=0.9, beta_2=0.999, epsilon=1e-07), loss=" in out


def test_optimizer_through_a_name_and_integer_momentum():
    build = BUILD.replace("    model.compile(", "    opt = tf.keras.optimizers.SGD(0.1, 0)\n    model.compile(")
    out = converted(prog(HELPER_MAIN, optimizer="opt", build=build))
    assert "model.compile(keras.optimizers.SGD(learning_rate=0.1, momentum=0.0), loss=" in out
    momentum = BUILD.replace("    model.compile(",
                             "    m = 0\n    opt = tf.keras.optimizers.SGD(0.1, m)\n    model.compile(")
    out = converted(prog(HELPER_MAIN, optimizer="opt", build=momentum))
    assert "model.compile(keras.optimizers.SGD(learning_rate=0.1, momentum=float(m)), loss=" in out


@pytest.mark.parametrize("change, why", [
    (("keras_model=model, config=config", 'keras_model_path="m.h5", config=config'), "keras_model_path"),
    (("keras_model=model, config=config", "keras_model=model, config=config, custom_objects={}"), "custom_objects"),
    (("keras_model=model, config=config", "keras_model=model, config=config, export_outputs={}"), "export_outputs"),
    (('model_dir="/tmp/m2e",', 'model_dir="/tmp/m2e", train_distribute=tf.distribute.MirroredStrategy(),'),
     "distribution strategy"),
])
def test_blocked_arguments(change, why):
    result = blocked(prog(HELPER_MAIN.replace(*change)))
    assert any(d.code == "TFM603" and why in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("build, optimizer, code, why", [
    (BUILD, "tf.keras.optimizers.RMSprop(0.1)", "TFM301", "SGD, Adagrad and Adam"),
    (BUILD, '"rmsprop"', "TFM301", "sgd, adagrad and adam"),
    (BUILD, "tf.keras.optimizers.SGD(0.1, weight_decay=0.01)", "TFM301", "weight_decay"),
    (BUILD, "tf.keras.optimizers.SGD(tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9))", "TFM301",
     "schedule"),
    (BUILD, "tf.keras.optimizers.Adam(0.1, amsgrad=True)", "TFM301", "amsgrad"),
    (BUILD.replace("tf.keras.Model(inputs, logits)", "tf.keras.Model(inputs, [logits, logits])"),
     "tf.keras.optimizers.SGD(0.1)", "TFM603", "several outputs"),
    (BUILD.replace('loss="sparse_categorical_crossentropy"',
                   'loss=tf.keras.losses.SparseCategoricalCrossentropy(reduction="sum")'),
     "tf.keras.optimizers.SGD(0.1)", "TFM603", "reduction"),
    (BUILD.replace("    model.compile(", "    model.compile(run_eagerly=True, optimizer=").replace(
        "OPTIMIZER, loss", "OPTIMIZER, loss"), "tf.keras.optimizers.SGD(0.1)", "TFM603", "run_eagerly"),
    (BUILD.replace("    model.compile(", "    pass  # (").replace(', metrics=["accuracy"])', ', metrics=["accuracy"]'),
     "tf.keras.optimizers.SGD(0.1)", "TFM603", "compiled 0 times"),
    (BUILD.replace("model = tf.keras.Model(inputs, logits)", "model = MyModel()"),
     "tf.keras.optimizers.SGD(0.1)", "TFM603", "subclassed"),
])
def test_blocked_models_and_optimizers(build, optimizer, code, why):
    extra = "class MyModel(tf.keras.Model):\n    pass\n" if "MyModel" in build else ""
    result = blocked(prog(HELPER_MAIN, optimizer=optimizer, build=build, extra=extra))
    assert any(d.code == code and why in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_metrics_not_written_as_a_list_are_blocked():
    build = BUILD.replace('metrics=["accuracy"]', "metrics=METRICS")
    build = build.replace("def build_model():", 'METRICS = ["accuracy"]\n\n\ndef build_model():')
    result = blocked(prog(HELPER_MAIN, build=build))
    assert any(d.code == "TFM603" and "metrics" in d.message for d in result.diagnostics)


def test_predict_is_blocked():
    main = HELPER_MAIN.replace("    print(result)\n", "    print(list(est.predict(eval_input_fn)))\n")
    result = blocked(prog(main))
    assert any(d.code == "TFM603" and "predict" in d.message for d in result.diagnostics)


def test_custom_loop_target_is_blocked():
    result = blocked(prog(HELPER_MAIN), target="ctl")
    assert any(d.code == "TFM603" and "--target keras" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("how, call", [("from trainer import model as m", "m.build_model()"),
                                       ("from trainer.model import build_model", "build_model()")])
def test_model_built_and_compiled_in_another_file(tmp_path, how, call):
    """The two files migrate together: model.py's compile gets the optimizer class and the global_step metric,
    task.py's driver calls the input adapter it gets."""
    import ast

    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text("import tensorflow as tf\n\n\n" + BUILD.strip("\n").replace(
        "OPTIMIZER", 'optimizer="adam"') + "\n")
    (pkg / "task.py").write_text(prog(HELPER_MAIN.replace("build_model()", call), build="", extra=how))
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    model, task = results["model.py"], results["task.py"]
    assert (model.status, task.status) == ("changed", "changed"), [d.format() for d in task.diagnostics]
    model_out, task_out = model.output.decode(), task.output.decode()
    ast.parse(model_out), ast.parse(task_out)
    assert "class LegacyKerasAdam(keras.optimizers.Adam):" in model_out and "import keras\n" in model_out
    assert "optimizer=LegacyKerasAdam(learning_rate=0.001" in model_out
    assert "class EstimatorGlobalStep(" in model_out and "model_to_estimator_inputs" not in model_out
    assert "def model_to_estimator_inputs(" in task_out and "LegacyKerasAdam" not in task_out
    assert "est = model\n" in task_out and "model_to_estimator_inputs(est, train_input_fn())" in task_out
    # each note where its construct is: the resume note at the Estimator, the optimizer note at the compile
    assert [d.code for d in task.diagnostics] == ["TFM603", "TFM603"]  # resume, evaluate's loss
    assert [d.code for d in model.diagnostics] == ["TFM302"]


def test_model_compiled_in_another_file_blocks_both_files_when_one_blocks(tmp_path):
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text("import tensorflow as tf\n\n\n" + BUILD.strip("\n").replace(
        "OPTIMIZER", 'optimizer="rmsprop"') + "\n")
    (pkg / "task.py").write_text(prog(HELPER_MAIN.replace("build_model()", "m.build_model()"), build="",
                                      extra="from trainer import model as m"))
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert results["model.py"].status == "blocked" and results["task.py"].status == "blocked"
    assert any(d.code == "TFM301" for d in results["model.py"].diagnostics + results["task.py"].diagnostics)


def test_under_main_with_lambda_and_partial_input_fns_and_flags():
    src = prog('''
        import argparse
        import functools


        def input_fn(batch, repeat):
            ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1])).batch(batch)
            return ds.repeat() if repeat else ds


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--steps", type=int, default=10)
            args = parser.parse_args()
            model = build_model()
            est = tf.keras.estimator.model_to_estimator(model, model_dir=None)
            est.train(input_fn=lambda: input_fn(2, True), max_steps=args.steps)
            print(est.evaluate(input_fn=functools.partial(input_fn, 2, repeat=False), steps=1))
        ''')
    out = converted(src)
    assert "    est = model\n" in out
    assert "model_to_estimator_inputs(est, input_fn(2, True))" in out and "steps_per_epoch=args.steps" in out
    partial = "functools.partial(input_fn, 2, repeat=False)()"
    assert f"        model_to_estimator_inputs(est, {partial}),\n        steps=1," in out
    assert "BackupAndRestore" not in out  # model_dir=None: a temporary directory, no resume


@pytest.mark.parametrize("use", ["    model.save('m.keras')\n", "    print(model.predict(eval_input_fn()))\n",
                                 "    model.fit(train_input_fn(), steps_per_epoch=2)\n"])
def test_other_uses_of_the_keras_model_block(use):
    """The Estimator trained a clone: the model object kept its weights and optimizer state; after the migration it
    would be the trained model."""
    before = "fit" in use  # a fit before model_to_estimator would leave its optimizer state in the migrated one
    main = HELPER_MAIN.replace("    config = tf.estimator.RunConfig(", use + "    config = tf.estimator.RunConfig(") \
        if before else HELPER_MAIN.replace("    print(result)\n", use)
    result = blocked(prog(main))
    assert any(d.code == "TFM603" and "trained a copy" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_summary_of_the_keras_model_is_fine():
    out = converted(prog(HELPER_MAIN.replace("    print(result)\n", "    model.summary()\n")))
    assert "    model.summary()\n" in out
