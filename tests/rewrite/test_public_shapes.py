"""Shapes met in a sweep over public Estimator programs (issue 12) that exited 0 unflagged or were flagged with a
message that misread them. Each program here is written for the test; none is copied from the public code."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, model_fn, rewrite


def codes(src: str) -> set[str]:
    return {d.code for d in blocked(src).diagnostics}


def messages(src: str) -> str:
    return "\n".join(d.message for d in blocked(src).diagnostics)


TPU_MODULES = '''\
import tensorflow as tf
from tensorflow.contrib.tpu.python.tpu import tpu_config
from tensorflow.contrib.tpu.python.tpu import tpu_estimator
from tensorflow.contrib.tpu.python.tpu import tpu_optimizer


def train_input_fn(params):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[0.5]] * 8))
    return ds.batch(params["batch_size"]).repeat()


def model_fn(features, labels, mode, params):
    prediction = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    if params["use_tpu"]:
        optimizer = tpu_optimizer.CrossShardOptimizer(optimizer)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tpu_estimator.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def main(_):
    config = tpu_config.RunConfig(model_dir="/tmp/m", tpu_config=tpu_config.TPUConfig(iterations_per_loop=4))
    est = tpu_estimator.TPUEstimator(model_fn=model_fn, config=config, use_tpu=USE_TPU, train_batch_size=8)
    est.train(input_fn=train_input_fn, max_steps=3)
'''


def test_contrib_tpu_estimator_on_cpu_converts_as_the_tf2_15_class_it_became():
    # TF 1.x's tf.contrib.tpu.TPUEstimator (here through its own modules) is the class tf_upgrade_v2 renames to
    # tf.compat.v1.estimator.tpu.TPUEstimator: use_tpu=False converts as that one does (rules/planners/tpu.py), the
    # CrossShardOptimizer branch that never ran on CPU dropped, the input_fn given its batch size
    from _helpers import converted, dotted_names

    out = converted(TPU_MODULES.replace("USE_TPU", "False"))
    assert 'build_model({"batch_size": 8, "use_tpu": False})' in out
    assert 'train_input_fn(params={"batch_size": 8})' in out
    assert not any("tpu" in name.lower() or "contrib" in name for name in dotted_names(out))
    # through tf.contrib.tpu itself too
    short = (TPU_MODULES.replace("USE_TPU", "False").replace("tpu_estimator.", "tf.contrib.tpu.")
             .replace("tpu_config.", "tf.contrib.tpu.").replace("tpu_optimizer.", "tf.contrib.tpu."))
    assert 'build_model({"batch_size": 8, "use_tpu": False})' in converted(short)
    # use_tpu=True converts as for the TF 2.15 class: the TPU path under TPUStrategy (rules/planners/tpu_strategy.py)
    assert "tf.distribute.TPUStrategy(" in converted(TPU_MODULES.replace("USE_TPU", "True"))


@pytest.mark.parametrize("src, line", [
    ("import tensorflow as tf\n\nclf = tf.contrib.learn.DNNClassifier(hidden_units=[3], feature_columns=[])\n"
     "clf.fit(x=[[1.0]], y=[0], steps=2)\n", 3),
    ("import tensorflow as tf\nfrom tensorflow.contrib import learn\n\n"
     "est = learn.Estimator(model_fn=lambda features, targets, mode: None)\nest.fit(x=[[1.0]], y=[0])\n", 4),
    ("from tensorflow.contrib.learn import LinearRegressor\n\n\ndef run(columns):\n"
     "    reg = LinearRegressor(feature_columns=columns)\n    return reg.fit(x=[[1.0]], y=[2.0])\n", 5),
    # evaluate/predict on it are the same cause, reported once where it is built (not as an Estimator built
    # "outside the migrated files")
    ("import tensorflow as tf\n\nestimator = tf.contrib.learn.Estimator(model_fn=my_model)\n"
     "estimator.fit(input_fn=lambda: feed(), steps=5)\nprint(estimator.evaluate(input_fn=lambda: feed(), steps=1))\n"
     "estimator.predict(input_fn=lambda: feed())\n", 3),
])
def test_contrib_learn_estimators_are_reported_with_the_port_to_make(src, line):
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM603", line)]
    assert "contrib.learn Estimator API" in found[0].message and "port the program to tf.estimator" in found[0].message


def test_canned_class_under_an_unbound_root_is_reported():
    # a notebook cell: no import at all, TensorFlow came from an earlier cell
    src = "columns = make_columns()\nclf = tf.contrib.learn.DNNRegressor(hidden_units=[2], feature_columns=columns)\n"
    assert codes(src) == {"TFM604"}


@pytest.mark.parametrize("src, expected", [
    # the Estimator comes from an estimator-named helper in a module outside the run
    ("import tensorflow as tf\nfrom trainer_lib import build_estimator\n\nrunner = build_estimator('/tmp/m')\n"
     "runner.train(input_fn=lambda: None, max_steps=5)\n", [("`runner` is the result of `build_estimator(...)`", 5)]),
    ("import tensorflow as tf\nimport trainer_lib as lib\n\nout = lib.make_estimator().predict(lambda: None)\n",
     [("`lib.make_estimator(...).predict(...)`", 4)]),
    # a library function driving whatever Estimator its caller passes
    ("import tensorflow as tf\n\n\ndef fit_and_export(estimator, input_fn, export_dir, receiver_fn):\n"
     "    estimator.train(input_fn, steps=10)\n    estimator.export_saved_model(export_dir, receiver_fn)\n",
     [("`estimator` is a parameter", 5), ("`estimator` is a parameter", 6)]),
])
def test_an_estimator_driven_but_built_out_of_sight_is_reported(src, expected):
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM601"] * len(expected)
    for d, (text, line) in zip(found, expected):
        assert text in d.message and d.line == line and "pass the files that build it too" in d.message


def test_other_libraries_estimators_are_not_tf_estimators():
    src = ("import tensorflow as tf\nfrom sklearn.linear_model import Ridge\nfrom sklearn.base import clone as "
           "clone_estimator\n\n\ndef score(estimator, x, y):\n    return estimator.predict(x)\n\n\n"
           "estimator = Ridge().fit([[1.0]], [2.0])\ncopy = clone_estimator(estimator)\ncopy.predict([[1.0]])\n")
    result = rewrite(src)
    # a parameter named estimator is reported only for what TF Estimators alone have (train, evaluate, export), and
    # names assigned a scikit-learn object never
    assert result.status == "unchanged" and not result.diagnostics


SUBCLASS = '''\
import tensorflow as tf


def _forward(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=logits)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.AdamOptimizer(params["lr"]).minimize(loss, global_step=step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class Regressor(tf.estimator.Estimator):
    def __init__(self, model_dir=None, lr=0.01):
        super().__init__(model_fn=_forward, model_dir=model_dir, params={"lr": lr})
'''


def test_an_estimator_subclass_nothing_builds_is_reported_once_at_the_class():
    # every Estimator name its model_fn uses has this one cause: one finding, at the class, naming what to pass
    found = blocked(SUBCLASS).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 14)]
    assert "class Regressor(tf.estimator.Estimator) is an Estimator that nothing in the migrated files builds" \
        in found[0].message
    # other causes are still reported beside it
    found = blocked(SUBCLASS + "\n\nspec = other.estimator.TrainSpec(input_fn=None)\n").diagnostics
    assert [d.code for d in found] == ["TFM601", "TFM604"]


def test_a_name_from_a_star_import_is_a_module_global_the_model_reads():
    from _helpers import FORWARD, program

    forward = FORWARD.replace('x = features["x"]', 'x = tf.reshape(features["x"], [-1, WIDTH])')
    src = program(header="import tensorflow as tf\nfrom shapes_lib import *", forward=forward)
    result = rewrite(src)  # (the helpers' unbound-name check cannot see through a star import)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    compile(out, "snippet.py", "exec", dont_inherit=True)
    assert "from shapes_lib import *" in out and "tf.reshape(features[\"x\"], [-1, WIDTH])" in out
    # without the star import WIDTH is bound nowhere: still reported
    found = blocked(program(forward=forward)).diagnostics
    assert any("WIDTH" in d.message for d in found)


@pytest.mark.parametrize("imports, module, path", [
    ("from nets.conv import conv_model_fn as model_fn", "nets.conv", "nets/conv.py"),
    ("from .conv import model_fn", "conv", "conv.py"),
])
def test_a_model_fn_imported_from_a_module_outside_the_run_names_the_file_to_pass(imports, module, path):
    from _helpers import program

    src = program(body="", header=f"import tensorflow as tf\n{imports}")
    found = blocked(src).diagnostics
    assert found[0].code == "TFM601"
    assert f"is imported from `{module}`, which is not among the migrated files: pass {path}" in found[0].message


# the model_fn of SUBCLASS, for the multi-file programs below
FORWARD_DEF = SUBCLASS[SUBCLASS.index("def _forward"):SUBCLASS.index("\n\n\nclass Regressor")] + "\n"

TRAINER_MODEL_FN = """\
import numpy as np
import tensorflow as tf

from . import inputs


""" + FORWARD_DEF.replace("_forward", "model_fn") + '''

def main():
    xs, ys = np.ones((8, 2), np.float32), np.ones((8, 1), np.float32)
    est = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m", params={"lr": 0.1})
    est.train(input_fn=lambda: inputs.make_dataset(xs, ys, 4, tf.estimator.ModeKeys.TRAIN), max_steps=3)
    est.evaluate(input_fn=lambda: inputs.make_dataset(xs, ys, 4, tf.estimator.ModeKeys.EVAL))
'''

TRAINER_INPUTS = '''\
import tensorflow as tf


def make_dataset(xs, ys, batch_size, mode):
    ds = tf.data.Dataset.from_tensor_slices(({"x": xs}, ys))
    if mode == tf.estimator.ModeKeys.TRAIN:
        ds = ds.repeat()
    return ds.batch(batch_size)
'''


def _migrate_package(package, files: dict[str, str]) -> dict:
    """Write trainer/<name> files (with an empty __init__.py) and migrate them as one run: {file name: result}."""
    from tfmigrate.engine import Options, migrate_paths

    package.mkdir(exist_ok=True)
    for name, text in {"__init__.py": "", **files}.items():
        (package / name).write_text(text)
    return {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(
        [str(p) for p in sorted(package.iterdir())], Options(), jobs=1)}


def test_an_input_fn_lambda_calling_another_module_migrates_that_module_with_the_estimator(tmp_path):
    # trainer/task.py drives the Estimator with `lambda: inputs.make_dataset(...)`: inputs.py, whose ModeKeys the
    # converted call no longer passes, belongs to the Estimator's unit (converted with it, or left with it)
    package = tmp_path / "trainer"
    results = _migrate_package(package, {"task.py": TRAINER_MODEL_FN, "inputs.py": TRAINER_INPUTS})
    assert results["inputs.py"].status == "changed", [d.format() for d in results["inputs.py"].diagnostics]
    assert results["task.py"].status == "changed"
    assert 'if mode == "train":' in results["inputs.py"].output.decode()
    assert 'inputs.make_dataset(xs, ys, 4, "train")' in results["task.py"].output.decode()
    # a blocker in the input module leaves the driver unchanged too (one unit)
    results = _migrate_package(package, {"inputs.py": TRAINER_INPUTS.replace("ds.batch(batch_size)",
                                                                          "tf.contrib.data.batch(ds)")})
    assert results["inputs.py"].status == "blocked" and results["task.py"].status == "blocked"


SEQUENTIAL_BY_ADD = '''
def build_model():
    model = tf.keras.Sequential()
    model.add(tf.keras.layers.Dense(4, activation="relu", input_shape=(2,)))
    model.add(tf.keras.layers.Dense(3))
    model.compile(OPTIMIZER, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model
'''


def test_a_sequential_built_layer_by_layer_for_model_to_estimator_converts():
    # model.add(layer) builds the model model_to_estimator copied (the copy had the same layers): not a use of the
    # model's weights; anything else done with the model still blocks
    from _helpers import converted
    from test_model_to_estimator import HELPER_MAIN, prog

    out = converted(prog(HELPER_MAIN, build=SEQUENTIAL_BY_ADD))
    assert "    model.add(tf.keras.layers.Dense(3))\n" in out and "    est = model\n" in out
    used = SEQUENTIAL_BY_ADD.replace("    return model", "    print(model.add(tf.keras.layers.Dense(3)))\n    return model")
    assert "is used here" in blocked(prog(HELPER_MAIN, build=used)).diagnostics[0].message
    # tensorflow.python.keras in a program with no TF 1.x name: another Keras from TF 2.6 on (a TF 1.x program's
    # converts: test_private_keras.py); named, with the import to use instead
    private = prog(HELPER_MAIN, build=SEQUENTIAL_BY_ADD.replace("tf.keras.Sequential()", "models.Sequential()"),
                   extra="from tensorflow.python.keras import models")
    found = blocked(private).diagnostics
    assert [d.code for d in found] == ["TFM001"]
    assert "tensorflow.python.keras was tf.keras only up to TF 2.5" in found[0].message
    assert "import it from tensorflow.keras" in found[0].message


@pytest.mark.parametrize("imports, model_fn, expected", [
    # a method of an object of a class from outside the run
    ("from squeeze_net import Net", "Net({}).model_fn",
     "`Net` is imported from `squeeze_net`, which is not among the migrated files: pass squeeze_net.py"),
    # a factory of a module outside the run
    ("import builders", 'builders.make_model_fn("cnn")',
     "`builders` is the module `builders`, which is not among the migrated files: pass builders.py"),
])
def test_a_model_fn_made_by_a_module_outside_the_run_names_the_file_to_pass(imports, model_fn, expected):
    from _helpers import ESTIMATOR, program

    estimator = f"made = {model_fn}\n" + ESTIMATOR.replace("model_fn=model_fn", "model_fn=made")
    src = program(body="", header=f"import tensorflow as tf\n{imports}", estimator=estimator)
    found = blocked(src).diagnostics
    assert found[0].code == "TFM601" and expected in found[0].message, found[0].message


ENTRY_MODEL = "import tensorflow as tf\n\n\n" + FORWARD_DEF.replace("_forward", "model_fn") + '''

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8)).batch(4).repeat()


def run(model_dir, steps):
    est = tf.estimator.Estimator(model_fn=model_fn, model_dir=model_dir, params={"lr": 0.1})
    est.train(input_fn=input_fn, max_steps=steps)
'''

ENTRY_TASK = '''\
import tensorflow as tf

from . import model

tf.logging.set_verbosity(tf.logging.INFO)


def main(_):
    estimator_dir = "/tmp/m"
    model.run(estimator_dir, 3)


if __name__ == "__main__":
    tf.app.run(main)
'''


def test_the_entry_point_importing_the_estimator_module_runs_on_tf2_with_it(tmp_path):
    # task.py only calls model.run(): it runs on TF2 with the migrated model.py, so its TF1 names convert with it
    # (tf.logging, tf.app stayed TF1 and failed at import); when model.py is left for manual work, task.py is too
    package = tmp_path / "trainer"
    results = _migrate_package(package, {"model.py": ENTRY_MODEL, "task.py": ENTRY_TASK})
    assert results["model.py"].status == "changed"
    assert results["task.py"].status == "changed", [d.format() for d in results["task.py"].diagnostics]
    out = results["task.py"].output.decode()
    assert "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)" in out and "tf.compat.v1.app.run(main)" in out
    results = _migrate_package(package, {"model.py": ENTRY_MODEL.replace(
        'features["x"], 1)', 'features["x"], 1, kernel_initializer=tf.contrib.layers.xavier_initializer())')})
    assert results["model.py"].status == "blocked"
    assert [d.code for d in results["task.py"].diagnostics] == ["TFM600"]


REDEFINED_INPUT_FN = '''\
import tensorflow as tf


def input_fn(features, labels, training, batch_size=4):
    ds = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return (ds.shuffle(8).repeat() if training else ds).batch(batch_size)


columns = [tf.feature_column.numeric_column("a")]
clf = tf.estimator.DNNClassifier(feature_columns=columns, hidden_units=[4], n_classes=3)
clf.train(input_fn=lambda: input_fn({"a": [1.0, 2.0]}, [0, 2], training=True), steps=5)


def input_fn(features, batch_size=4):
    return tf.data.Dataset.from_tensor_slices(dict(features)).batch(batch_size)


predictions = clf.predict(input_fn=lambda: input_fn({"a": [1.0]}))
'''


def test_an_input_fn_name_defined_twice_converts_each_call_with_its_own_definition():
    # the tutorial shape: a second module-level `def input_fn` for prediction; each lambda written in its call ran
    # within that call, reading the definition reaching it (it was blocked as "bound at lines 4, 14")
    text = converted(REDEFINED_INPUT_FN)
    fit, second = text.index("clf.fit("), text.index("def input_fn(features, batch_size=4)")
    assert fit < second and 'input_fn({"a": [1.0, 2.0]}, [0, 2], training=True)' in text[fit:second]
    assert 'clf.predict_examples(input_fn({"a": [1.0]}))' in text[second:]


def test_a_tf1_optimizer_given_to_tf_estimator_canned_class_converts_as_the_v1_class():
    # TF 1.x programs pass tf.train optimizers to tf.estimator.DNNRegressor, which TF 1.x exported as the v1 class:
    # converted as the compat.v1 spelling is, with a note saying so (test_canned_tf1_names.py)
    src = ("import tensorflow as tf\n\ncolumns = [tf.feature_column.numeric_column('a')]\n"
           "reg = tf.estimator.DNNRegressor(feature_columns=columns, hidden_units=[4],\n"
           "                                optimizer=tf.train.AdagradOptimizer(learning_rate=0.1))\n"
           "reg.train(input_fn=lambda: tf.data.Dataset.from_tensor_slices(({'a': [1.0]}, [2.0])).batch(1), steps=2)\n")
    from _helpers import rewrite as plain

    result = plain(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert [(d.code, d.line) for d in result.diagnostics if "TF 1.x program" in d.message] == [("TFM620", 4)]
    spelled = src.replace("tf.estimator.DNNRegressor", "tf.compat.v1.estimator.DNNRegressor").replace(
        "tf.train.AdagradOptimizer", "tf.compat.v1.train.AdagradOptimizer")
    assert plain(spelled).status == "changed"


MODEL_FN_ONLY = '''\
import tensorflow as tf


def regression_fn(features, labels, mode, params):
    top = tf.compat.v1.layers.dense(features["x"], 2)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions={"y": top})
    loss = tf.compat.v1.losses.mean_squared_error(labels, top)
    if mode == tf.estimator.ModeKeys.TRAIN:
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss)
'''


def test_a_file_holding_only_a_model_fn_is_reported_once_at_the_model_fn():
    # the model_fn's module passed alone: one finding at the def naming the cause (was one per Estimator name in it)
    found = blocked(MODEL_FN_ONLY).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 4)]
    assert found[0].message.startswith("`regression_fn(features, labels, mode, params)` is a model_fn no Estimator in "
                                       "the migrated files is built with: run tfmigrate on this file together")
    # Estimator names outside it are still reported on their own
    found = blocked(MODEL_FN_ONLY + "\n\nconfig = tf.estimator.RunConfig(model_dir='/tmp/m')\n").diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 4), ("TFM601", 16)]


DOTTED_TASK = '''\
import argparse

import tensorflow as tf

import trainer.model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", default="/tmp/m")
    args = parser.parse_args()
    MODEL_FN
    est = tf.estimator.Estimator(model_fn=FN, model_dir=args.model_dir, params={"lr": 0.1})
    est.train(input_fn=lambda: trainer.model.input_fn(4, True), max_steps=3)
    est.evaluate(input_fn=trainer.model.eval_input_fn)


if __name__ == "__main__":
    main()
'''

DOTTED_MODEL = "import tensorflow as tf\n\n\n" + FORWARD_DEF.replace("_forward", "model_fn") + '''

def input_fn(batch_size, repeat):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8))
    return (ds.repeat() if repeat else ds).batch(batch_size)


def eval_input_fn():
    return input_fn(4, False)
'''


@pytest.mark.parametrize("model_fn, fn", [
    ("", "trainer.model.model_fn"),
    # an alias of the model_fn goes with it (it stayed, naming the def the conversion replaces: AttributeError)
    ("fn = trainer.model.model_fn", "fn"),
])
def test_a_driver_reaching_the_model_module_as_a_dotted_import_converts(tmp_path, model_fn, fn):
    # `import trainer.model` (no `as`) binds `trainer`; trainer.model.model_fn / .input_fn(...) resolve into model.py
    task = DOTTED_TASK.replace("    MODEL_FN\n", f"    {model_fn}\n" if model_fn else "").replace("FN,", f"{fn},")
    results = _migrate_package(tmp_path / "trainer", {"model.py": DOTTED_MODEL, "task.py": task})
    assert results["task.py"].status == "changed", [d.format() for d in results["task.py"].diagnostics]
    assert results["model.py"].status == "changed"
    out = results["task.py"].output.decode()
    compile(out, "task.py", "exec", dont_inherit=True)
    assert 'est = trainer.model.build_model({"lr": 0.1})' in out
    assert "trainer.model.EstimatorCheckpoints(args.model_dir)" in out
    assert "model_fn" not in out and "def model_fn" not in results["model.py"].output.decode()


def test_a_model_fn_alias_in_the_same_module_goes_with_it():
    from _helpers import ESTIMATOR, converted, program

    out = converted(program(estimator="fn = model_fn\n" + ESTIMATOR.replace("model_fn=model_fn", "model_fn=fn")))
    assert "fn = model_fn" not in out and 'est = build_model({"lr": 0.1})' in out


@pytest.mark.parametrize("extra, line", [
    ("print(model_fn)", 26),
    ("fn = model_fn", 26),  # an alias the Estimator does not use
])
def test_a_model_fn_read_besides_by_its_estimator_is_reported(extra, line):
    # the def becomes the model's builder: another read of its name would fail (it converted, leaving `print(model_fn)`)
    from _helpers import ESTIMATOR, program

    found = blocked(program(estimator=ESTIMATOR + "\n" + extra + "\n")).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", line)]
    assert "model_fn `model_fn` becomes the converted model's builder, but is also used here" in found[0].message


def test_a_model_fn_given_to_an_estimator_reported_otherwise_is_not_reported_again():
    # a second Estimator(model_fn=model_fn) blocked for its own reason: the model_fn read there is that Estimator's
    from _helpers import ESTIMATOR, program

    other = ("est2 = tf.estimator.Estimator(model_fn=model_fn, config=tf.estimator.RunConfig(\n"
             "    train_distribute=tf.contrib.distribute.MirroredStrategy()))\n")
    found = blocked(program(estimator=ESTIMATOR + "\n" + other)).diagnostics
    assert [d.code for d in found] == ["TFM701"], [d.format() for d in found]


def test_a_model_fn_read_through_its_module_in_another_file_is_reported(tmp_path):
    task = DOTTED_TASK.replace("MODEL_FN", "print(trainer.model.model_fn.__name__)").replace("FN,", "trainer.model.model_fn,")
    results = _migrate_package(tmp_path / "trainer", {"model.py": DOTTED_MODEL, "task.py": task})
    found = results["task.py"].diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 12)]
    assert "also used here" in found[0].message and results["model.py"].status == "blocked"


RUN_MODEL = "import tensorflow as tf\n\n\n" + FORWARD_DEF.replace("_forward", "model_fn") + '''

def input_fn(batch_size, repeat):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8))
    return (ds.repeat() if repeat else ds).batch(batch_size)


def train_and_evaluate(args):
    config = tf.estimator.RunConfig(model_dir=args.job_dir, save_checkpoints_steps=10)
    est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": args.lr})
    train_spec = tf.estimator.TrainSpec(input_fn=lambda: input_fn(args.batch, True), max_steps=args.steps)
    eval_spec = tf.estimator.EvalSpec(input_fn=lambda: input_fn(args.batch, False), steps=None)
    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
'''

# an entry point with no Estimator word in it: flags, then the model module's driver
PLAIN_TASK = '''\
import argparse
import os
TF_IMPORT
from trainer import model


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", default="/tmp/job")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    return parser.parse_args()


if __name__ == "__main__":
    args = parse()
    LOGGING
    os.makedirs(args.job_dir, exist_ok=True)
    model.train_and_evaluate(args)
'''


def _plain_task(tf: bool) -> str:
    return (PLAIN_TASK.replace("TF_IMPORT", "\nimport tensorflow as tf\n" if tf else "")
            .replace("    LOGGING\n", "    tf.logging.set_verbosity(tf.logging.INFO)\n" if tf else ""))


def test_an_entry_point_without_an_estimator_word_migrates_with_the_module_it_runs(tmp_path):
    # task.py has no "estimator" in it but runs model.py's driver on TF2: it is in model.py's unit, its TF1 names
    # convert with it (it was left unchanged alone, with tf.logging that TF2 lacks)
    package = tmp_path / "trainer"
    results = _migrate_package(package, {"model.py": RUN_MODEL, "task.py": _plain_task(tf=True)})
    assert results["model.py"].status == "changed"
    assert results["task.py"].status == "changed", [d.format() for d in results["task.py"].diagnostics]
    out = results["task.py"].output.decode()
    assert "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)" in out
    # the function it calls keeps its signature: the call is unchanged
    assert "    model.train_and_evaluate(args)\n" in out
    assert "\ndef train_and_evaluate(args):\n" in results["model.py"].output.decode()
    # model.py left for manual work: the entry point is left with it, saying why
    blocked_model = RUN_MODEL.replace('features["x"], 1)', 'features["x"], 1, kernel_initializer=tf.contrib.layers.xavier_initializer())')
    results = _migrate_package(package, {"model.py": blocked_model})
    assert results["model.py"].status == "blocked"
    assert [d.code for d in results["task.py"].diagnostics] == ["TFM600"]


def test_an_entry_point_with_no_tensorflow_name_is_left_as_it_is(tmp_path):
    # nothing of it changes: it calls model.train_and_evaluate(args), whose signature the conversion keeps, and
    # names no TensorFlow API; it is not tied to model.py's fate (no finding when model.py needs manual work)
    package = tmp_path / "trainer"
    results = _migrate_package(package, {"model.py": RUN_MODEL, "task.py": _plain_task(tf=False)})
    assert results["model.py"].status == "changed"
    assert "\ndef train_and_evaluate(args):\n" in results["model.py"].output.decode()
    assert results["task.py"].status in ("skipped", "unchanged") and not results["task.py"].diagnostics
    results = _migrate_package(package, {"model.py": RUN_MODEL.replace("tf.compat.v1.layers.dense", "tf.contrib.layers.fully_connected")})
    assert results["model.py"].status == "blocked"
    assert results["task.py"].status in ("skipped", "unchanged") and not results["task.py"].diagnostics


def test_a_model_fn_imported_by_name_from_another_file_converts_through_that_import(tmp_path):
    # `from model import model_fn` (a script directory, or a package): the import takes the builder and the support
    # class the driver uses in its place (it was reported, asking for `import module`)
    task = DOTTED_TASK.replace("import trainer.model\n", "from trainer.model import model_fn, input_fn, eval_input_fn\n")
    task = task.replace("    MODEL_FN\n", "").replace("FN,", "model_fn,").replace("trainer.model.", "")
    results = _migrate_package(tmp_path / "trainer", {"model.py": DOTTED_MODEL, "task.py": task})
    assert results["task.py"].status == "changed", [d.format() for d in results["task.py"].diagnostics]
    out = results["task.py"].output.decode()
    compile(out, "task.py", "exec", dont_inherit=True)
    assert "from trainer.model import build_model, EstimatorCheckpoints, input_fn, eval_input_fn\n" in out
    assert 'est = build_model({"lr": 0.1})' in out and "model_fn" not in out
    # the builder's name taken in the driver: reported as before
    taken = task.replace("def main():", "def build_model():\n    pass\n\n\ndef main():")
    results = _migrate_package(tmp_path / "trainer", {"model.py": DOTTED_MODEL, "task.py": taken})
    assert "is imported by name from" in results["task.py"].diagnostics[0].message


def test_a_tf1_name_with_a_compat_name_beside_a_converted_estimator_converts():
    # a TF 1.x name outside the listed v1-only roots stayed as written in the converted file (AttributeError on TF2),
    # then blocked; TF's own v1 table (rules/facts/data/tf_v1_names.json) now gives it its compat.v1 name (the TF1 object)
    from _helpers import program

    out = rewrite(program(extra="tf.get_seed(1)")).output.decode()
    assert "tf.compat.v1.get_seed(1)" in out


@pytest.mark.parametrize("call", ["graph = tf.reset_default_graph()", "sess = tf.Session()",
                                  "x = tf.placeholder(tf.float32)", "flag = tf.compat.v1.disable_eager_execution()"])
def test_graph_mode_machinery_beside_a_converted_estimator_is_reported(call):
    # tf.compat.v1 exports them, but a rename would put the eager migrated program back in graph mode, or fail
    from _helpers import program

    found = blocked(program(extra=call)).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM001", 4)]
    assert "graph-mode machinery and the migrated program runs eagerly" in found[0].message


def test_a_reset_default_graph_statement_is_dropped_with_a_note():
    # the trainer scripts' `tf.reset_default_graph()` before building the Estimator: each Estimator call built its
    # own graph, so the reset changed nothing the Estimator ran; the eager TF2 program has no default graph to reset
    from _helpers import program

    result = rewrite(program(extra="tf.reset_default_graph()"))
    assert result.status == "changed" and "reset_default_graph" not in result.output.decode()
    assert [(d.code, d.line, d.severity) for d in result.diagnostics] == [("TFM001", 4, "note")]


STAR_TASK = '''\
import tensorflow as tf

from trainer.model import *


def main(_):
    runner = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m", params={"lr": 0.1})
    runner.train(lambda: input_fn(4, True), max_steps=3)


if __name__ == "__main__":
    tf.compat.v1.app.run(main)
'''


def test_a_model_fn_reached_through_a_star_import_of_a_migrated_module_converts(tmp_path):
    # `from trainer.model import *`: model_fn and input_fn resolve into model.py (they were "a name from a module
    # outside the migrated files"); the builder and the support class come through the same star import
    results = _migrate_package(tmp_path / "trainer", {"model.py": DOTTED_MODEL, "task.py": STAR_TASK})
    assert results["task.py"].status == "changed", [d.format() for d in results["task.py"].diagnostics]
    out = results["task.py"].output.decode()
    compile(out, "task.py", "exec", dont_inherit=True)
    assert "from trainer.model import *\n" in out and 'runner = build_model({"lr": 0.1})' in out
    assert 'EstimatorCheckpoints("/tmp/m")' in out and "input_fn(4, True)" in out
    # a later star import of a module outside the run may rebind the names: reported, not guessed
    later = STAR_TASK.replace("from trainer.model import *\n", "from trainer.model import *\nfrom helpers import *\n")
    results = _migrate_package(tmp_path / "trainer", {"model.py": DOTTED_MODEL, "task.py": later})
    assert results["task.py"].status == "blocked"


def test_a_module_without_a_main_guard_importing_the_model_module_is_not_its_entry_point(tmp_path):
    # a library module (no `if __name__ == "__main__":`) is run by whatever imports it: not tied to model.py's unit
    library = _plain_task(tf=True).replace('if __name__ == "__main__":', "def run():")
    results = _migrate_package(tmp_path / "trainer", {"model.py": RUN_MODEL.replace(
        "tf.compat.v1.layers.dense", "tf.contrib.layers.fully_connected"), "task.py": library})
    assert results["model.py"].status == "blocked"
    assert results["task.py"].status in ("skipped", "unchanged") and not results["task.py"].diagnostics


MISPLACED_EXPORTER = '''\
import tensorflow as tf


def model_fn(features, labels, mode, params):
    out = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, out)
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions={"y": out})


def data():
    return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[2.0]])).repeat(4)


receiver = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 1])})
est = tf.estimator.Estimator(model_fn, "/tmp/m")
tf.estimator.train_and_evaluate(
    est, tf.estimator.TrainSpec(data, 10),
    tf.estimator.EvalSpec(data, None, None, tf.estimator.BestExporter("best", receiver)))
'''


def test_a_tensorflow_object_in_the_wrong_positional_place_is_named_as_such():
    """EvalSpec's 4th positional parameter is hooks, not exporters: the message says a TensorFlow object stands where
    the program's own hooks were expected, not that tensorflow.py should be passed to tfmigrate."""
    text = messages(MISPLACED_EXPORTER)
    assert "positional argument is in its parameter's place" in text
    assert "pass tensorflow" not in text


# ---- sweep 6: a RunConfig rebound to its own replace() ----------------------------------------------------------
CANNED_RUN = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0]]}, [[1.0]])).batch(1)


def build_estimator(config, hidden_units=None):
    cols = [tf.feature_column.numeric_column("x")]
    return tf.estimator.DNNRegressor(config=config, feature_columns=cols, hidden_units=hidden_units or [4])


def run(model_dir):
    run_config = tf.estimator.RunConfig(tf_random_seed=3)
    run_config = run_config.replace(model_dir=model_dir)
    estimator = build_estimator(config=run_config, hidden_units=[3])
    estimator.train(input_fn, max_steps=2)


if __name__ == "__main__":
    run("/tmp/m")
'''


def test_a_run_config_rebound_to_its_own_replace_converts():
    # `run_config = run_config.replace(model_dir=...)`: the name on the right is the RunConfig bound before (it was
    # resolved to the statement's own binding, and the analysis recursed until Python's limit: "internal error")
    out = converted(CANNED_RUN)
    assert "keras.utils.set_random_seed(3)" in out
    assert 'restore_model_dir(model_dir' in out or "model_dir" in out.split("def run(model_dir):", 1)[1]


def test_a_name_read_in_its_own_assignment_is_the_earlier_binding():
    import libcst as cst

    from tfmigrate.model import FileIndex, Program, Value

    module = cst.parse_module("def f(a):\n    x = make(a)\n    x = x.replace(b=1)\n    y = (x := x + 1)\n    return x\n")
    index = FileIndex(module, "m.py", "m")
    program = Program([index])
    second = index.calls[1]  # x.replace(b=1)
    assert program.resolve(Value(second.func.value, index)).node is index.calls[0]


def test_a_walrus_in_a_test_is_bound_for_the_block_after_it():
    import libcst as cst

    from tfmigrate.model import FileIndex, Program, Value

    module = cst.parse_module("def f(a):\n    if (m := make(a)):\n        z = m.get()\n    return z\n")
    index = FileIndex(module, "m.py", "m")
    program = Program([index])
    get = index.calls[1]  # m.get()
    assert program.resolve(Value(get.func.value, index)).node is index.calls[0]


# ---- sweep 6: a model_fn whose parameters are not in the positional order -------------------------------------------
# (features, labels, params, mode) and (features, mode, labels, params) convert, each parameter read by its name:
# tests/rewrite/test_model_fn_signature.py
def test_a_model_fn_taking_its_arguments_by_name_without_labels_is_reported_as_such():
    from _helpers import program

    # mode tests were reported as "only tests on mode are converted"
    [d] = blocked(program(signature="features, mode, params")).diagnostics
    assert (d.code, d.line) == ("TFM501", 13)
    assert "model_fn(features, mode, params) takes no `labels`" in d.message
    assert "add `labels` (any position: the Estimator passes each by name)" in d.message


def test_a_rebound_run_config_read_elsewhere_is_reported_once_where_it_is_read():
    # the read of the first binding inside `run_config = run_config.replace(...)` is the chain, not a stray use
    # (`run_config.model_dir` is written as its value: tests/rewrite/test_serving_functions.py; other reads block)
    src = CANNED_RUN.replace("    estimator = build_estimator", "    print(run_config.tf_random_seed)\n    estimator = build_estimator")
    [d] = blocked(src).diagnostics
    assert (d.code, d.line) == ("TFM601", 16)
    assert "`run_config` (a TF1 config/spec value) is also used here" in d.message
    assert "(line 15)" in d.message and "delete this use" in d.message


# ---- sweep 6: a helper returning one of several Estimators -------------------------------------------------------------
SEVERAL_RETURNED = '''\
import sys

import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0]]}, [1])).batch(1)


def build_estimator(model_type):
    cols = [tf.feature_column.numeric_column("x")]
    if model_type == "wide":
        return tf.estimator.LinearClassifier(model_dir="/tmp/m", feature_columns=cols)
    return tf.estimator.DNNClassifier(model_dir="/tmp/m", feature_columns=cols, hidden_units=[3])


def main(args):
    model = build_estimator(args[0])
    model.train(input_fn=input_fn, max_steps=2)
    for r in model.predict(input_fn=input_fn):
        print(r["class_ids"][0])


if __name__ == "__main__":
    main(sys.argv[1:])
'''


def test_a_helper_returning_one_of_several_estimators_converts_each_and_drives_the_one_returned():
    # was: "`model` (an Estimator) is used here in a way tfmigrate does not convert (only train / evaluate /
    # train_and_evaluate / predict are converted yet)" at the predict call, which is one of those; then (issue 28)
    # "`build_estimator` returns one of 2 Estimators (lines 13, 14), chosen at run time"; now each return is its own
    # converted model and main's train/predict, the same code for both, drive whichever is returned (_chosen.py)
    text = converted(SEVERAL_RETURNED)
    assert "return build_linear_classifier({})" in text and "return build_dnn_classifier({})" in text
    assert text.count("model.fit(") == 1 and text.count("model.predict_examples(input_fn())") == 1


def test_implicitly_concatenated_strings_are_one_literal():
    from tfmigrate.rules.facts.calls import literal
    import libcst as cst

    assert literal(cst.parse_expression("'A/5' 'PC'")) == "A/5PC"


def test_a_run_config_argument_tf2_15_lacks_says_so():
    from _helpers import program

    src = program(run_config='config = tf.estimator.RunConfig(model_dir="/tmp/m", distribute=None)')
    [d] = blocked(src).diagnostics
    assert d.code == "TFM601" and "RunConfig has no argument 'distribute'" in d.message
    assert "raises TypeError" in d.message and "train_distribute=" in d.message


def test_a_keras_optimizer_given_to_a_v2_canned_estimator_says_tf2_15_refused_it():
    src = CANNED_RUN.replace("hidden_units=hidden_units or [4])",
                             "hidden_units=hidden_units or [4], optimizer=tf.keras.optimizers.Adam(0.01))")
    [d] = blocked(src).diagnostics
    assert d.code == "TFM620" and "TF 2.15's v2 canned estimators raise ValueError" in d.message
    assert "tf.keras.optimizers.legacy.Adam(...)" in d.message and "Adagrad, SGD, Ftrl" in d.message


_TRAIN_HELPER = '''\
import tensorflow as tf


def model_fn(features, labels, mode):
    prediction = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[0.5]] * 8)).batch(4).repeat()


def fit_with(config, steps):
    est = tf.estimator.Estimator(model_fn=model_fn, config=config)
    est.train(input_fn=input_fn, max_steps=steps)
'''


def test_a_config_parameter_of_a_helper_nobody_calls_says_so_and_what_to_do():
    # issue 12: not "a parameter with several callers" when there is no caller at all
    message = messages(_TRAIN_HELPER)
    assert "several callers" not in message
    assert "`config` is a parameter of `fit_with`, which is never called in the files given" in message
    assert "pass the file or package that calls `fit_with` in the same run" in message


def test_a_config_parameter_of_a_helper_called_twice_names_the_calls():
    src = _TRAIN_HELPER + ("\n\ndef main():\n    fit_with(tf.estimator.RunConfig(tf_random_seed=1), 5)\n"
                           "    fit_with(tf.estimator.RunConfig(tf_random_seed=2), 9)\n")
    message = messages(src)
    assert "`fit_with`, which is called from 2 places (" in message and ":22, snippet.py:23)" in message, message
    assert "build the value inside `fit_with`" in message


def test_mode_passed_to_a_network_of_a_module_outside_the_run_says_what_to_do():
    # issue 12: `logits = network(features, mode)` with network() out of sight named no action
    src = (_TRAIN_HELPER.replace("import tensorflow as tf\n", "import tensorflow as tf\n\nfrom nets import network\n", 1)
           .replace('prediction = tf.compat.v1.layers.dense(features["x"], 1)', "prediction = network(features, mode)")) + "\n\nfit_with(tf.estimator.RunConfig(), 3)\n"
    message = messages(src)
    assert "`prediction = ...` passes mode to `network()`, a function tfmigrate does not inline here" in message
    assert "define `network` in the model_fn's module" in message
    # what the message promises: the same helper in the model_fn's module, given mode or a training bool, converts
    helper = ('\n\ndef network(features, mode):\n    hidden = tf.compat.v1.layers.dense(features["x"], 4)\n'
              "    hidden = tf.compat.v1.layers.dropout(hidden, 0.1, training=mode == tf.estimator.ModeKeys.TRAIN)\n"
              "    return tf.compat.v1.layers.dense(hidden, 1)\n")
    inline = src.replace("\nfrom nets import network\n", helper)
    assert "tf.estimator" not in converted(inline)
    flag = (inline.replace("def network(features, mode):", "def network(features, training):")
            .replace("training=mode == tf.estimator.ModeKeys.TRAIN", "training=training")
            .replace("network(features, mode)", "network(features, mode == tf.estimator.ModeKeys.TRAIN)"))
    assert "tf.estimator" not in converted(flag)


# _TRAIN_HELPER's model_fn, its input function named `feed`
_CHOSEN = _TRAIN_HELPER.split("\n\ndef fit_with")[0].replace("def input_fn():", "def feed():") + '''


PREMADE = False
if PREMADE:
    reg = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x", shape=[2])])
else:
    reg = tf.estimator.Estimator(model_fn=model_fn)
reg.train(input_fn=feed, steps=4)
scores = reg.evaluate(input_fn=feed, steps=1)
again = reg.evaluate(input_fn=feed, steps=2)
'''


def test_an_estimator_name_bound_in_both_branches_of_an_if_converts_each_branch():
    # a public tutorial picked a canned or a custom Estimator under `if flag:` and drove the name after it: the
    # message said the name was used "in a way tfmigrate does not convert", at its last evaluate(); then (issue 28)
    # "`reg` can hold different values here (assigned at lines 19, 21), chosen by `PREMADE` (line 18) ...: not for an
    # Estimator". Now each branch builds its converted model and the shared calls drive it (_chosen.py)
    text = converted(_CHOSEN)
    assert "if PREMADE:" in text and "reg = build_linear_regressor({})" in text and "reg = build_model({})" in text
    assert text.count("reg.fit(feed()") == 1 and text.count("reg.evaluate(feed()") == 2
    # moving the code that uses `reg` into each branch converts too
    uses = "reg.train(input_fn=feed, steps=4)\nscores = reg.evaluate(input_fn=feed, steps=1)\n" \
           "again = reg.evaluate(input_fn=feed, steps=2)\n"
    indented = "    " + uses.replace("\n", "\n    ").rstrip() + "\n"
    moved = _CHOSEN.replace(uses, "").replace("])])\nelse:\n", "])])\n" + indented + "else:\n").rstrip() + "\n" + indented
    from _helpers import dotted_names

    assert not any(n.startswith("tf.estimator") for n in dotted_names(converted(moved)))
    # either branch alone converts
    assert "tf.estimator" not in converted(_CHOSEN.replace("if PREMADE:\n    reg = tf.estimator.LinearRegressor("
                                                            "feature_columns=[tf.feature_column.numeric_column(\"x\", "
                                                            "shape=[2])])\nelse:\n    reg", "reg"))


@pytest.mark.parametrize("wrapper", ["tf.estimator.add_metrics", "tf.contrib.estimator.add_metrics"])
@pytest.mark.parametrize("drive", [
    "tf.estimator.train_and_evaluate(reg, tf.estimator.TrainSpec(feed, max_steps=3), tf.estimator.EvalSpec(feed))",
    "reg.train(feed, max_steps=3)\nprint(reg.evaluate(feed, steps=1))",
])
def test_an_estimator_wrapped_by_add_metrics_is_reported_at_the_metric_fn(wrapper, drive):
    # a public trainer package rebound its Estimator to `tf.contrib.estimator.add_metrics(estimator, metric)`: the
    # message blamed a positional argument out of place ("a TensorFlow object stands where the program's own was
    # expected") and said the name was used in a way not converted. The wrapper converts now (test_add_metrics.py);
    # this model_fn returns no predictions in EVAL mode, which the metric_fn reads
    src = (_CHOSEN.split("PREMADE = False")[0] + "\ndef extra(labels, predictions):\n"
           "    return {\"mae\": tf.compat.v1.metrics.mean_absolute_error(labels, predictions)}\n\n\n"
           f"reg = tf.estimator.Estimator(model_fn=model_fn)\nreg = {wrapper}(reg, extra)\n{drive}\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM401", 18)], found
    assert found[0].message.startswith("add_metrics' metric_fn `extra` reads the predictions, and the model_fn's "
                                       "EVAL EstimatorSpec returns none")


def test_files_left_unchanged_name_only_the_files_that_need_manual_work(tmp_path):
    # a public trainer package (columns.py -> builder.py -> run.py): columns.py was said to be left unchanged for
    # builder.py "which needs manual work", though builder.py was itself only left unchanged for run.py
    files = {
        "columns.py": "import tensorflow as tf\n\nCOLUMNS = [tf.feature_column.numeric_column(\"v\", shape=[2])]\n",
        "builder.py": ("import tensorflow as tf\n\nfrom trainer import columns\n\n\ndef make(config):\n"
                       "    return tf.estimator.LinearRegressor(feature_columns=columns.COLUMNS, config=config)\n"),
        "run.py": ("import tensorflow as tf\n\nfrom trainer import builder\n\n\ndef feed():\n"
                   "    return tf.data.Dataset.from_tensor_slices(({\"v\": [[0.5, 1.5]]}, [[2.0]])).batch(1)\n\n\n"
                   "def main():\n    config = tf.estimator.RunConfig(tf_random_seed=3)\n    reg = builder.make(config)\n"
                   "    reg.train(feed, max_steps=2)\n    print(config.model_dir)\n\n\nmain()\n"),
    }
    results = _migrate_package(tmp_path / "trainer", files)
    assert results["run.py"].status == "blocked"
    assert {d.code for d in results["run.py"].diagnostics} != {"TFM600"}
    for name in ("columns.py", "builder.py"):
        assert [(d.code, d.message.replace(f"{tmp_path}/trainer/", "")) for d in results[name].diagnostics] == [
            ("TFM600", "left unchanged: migrated as one unit with run.py, which needs manual work: run.py:14 TFM601 "
                       "`config` (a TF1 config/spec value) is also used here, in a way tfmigrate does not convert: the "
                       "conversion replaces the statement that builds it (line 11); keep what this code needs in a "
                       "variable of its own, or delete this use")], name


def test_canned_column_arguments_written_as_expressions_over_constants_convert():
    # a public trainer wrote its vocabularies `list(range(24))` and its crossed buckets `int(1e4)`: the canned
    # DNN's indicator columns and the crossed column refused them (TFM622), the linear model's columns did not
    src = '''\
import tensorflow as tf

HOURS = tf.feature_column.categorical_column_with_vocabulary_list("h", list(range(4)))


def feed():
    return tf.data.Dataset.from_tensor_slices(({"h": [[1]], "d": [[2]], "v": [[0.5]]}, [[2.0]])).batch(1)


reg = tf.estimator.DNNLinearCombinedRegressor(
    linear_feature_columns=[tf.feature_column.crossed_column(["h", "d"], hash_bucket_size=int(1e2)), HOURS],
    dnn_feature_columns=[tf.feature_column.indicator_column(HOURS), tf.feature_column.numeric_column("v")],
    dnn_hidden_units=[3])
reg.train(feed, max_steps=2)
'''
    out = converted(src)
    assert 'indicator_input(features, "h", [0, 1, 2, 3])' in out
    assert "crossed_ids([dense_input(features, \"h\"), dense_input(features, \"d\")], 100)" in out
    # a size computed at run time is computed where the Estimator was built and handed to the model, checked as
    # TF 2.15 checked it (tests/rewrite/test_runtime_columns.py)
    runtime = converted("import os\n" + src.replace("int(1e2)", 'int(os.environ.get("BUCKETS", "100"))'))
    assert """({"hash_bucket_size": column_count(int(os.environ.get("BUCKETS", "100")), 'hash_bucket_size must be > 1.""" \
        in runtime
    assert 'self.params["hash_bucket_size"]' in runtime


_SAGEMAKER = '''\
import tensorflow as tf


def estimator_fn(run_config, params):
    columns = [tf.feature_column.numeric_column("x", shape=[3])]
    return tf.estimator.LinearClassifier(feature_columns=columns, n_classes=3CONFIG)


def train_input_fn(training_dir, params):
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0, 3.0]]}, [1])).batch(1)
'''


@pytest.mark.parametrize("config", ["", ", config=run_config"])
def test_a_sagemaker_legacy_estimator_fn_is_reported_as_the_container_s_entry_point(config):
    # SageMaker's legacy container calls estimator_fn(run_config, params) and drives what it returns: the helper was
    # rewritten to return a Keras model (breaking the container), or its run_config was said to need "the file that
    # calls estimator_fn"
    found = blocked(_SAGEMAKER.replace("CONFIG", config)).diagnostics
    assert [d.code for d in found] == ["TFM601"], found
    assert "`estimator_fn(run_config, params)` is the entry point of SageMaker's legacy TensorFlow container" \
        in found[0].message
    assert "script-mode training script" in found[0].message
    # the same helper called by the program is an Estimator builder like any other
    called = _SAGEMAKER.replace("CONFIG", config) + (
        f"\n\nest = estimator_fn({'tf.estimator.RunConfig(tf_random_seed=1)' if config else None}, {{}})\n"
        "est.train(lambda: train_input_fn("
        "'.', {}), max_steps=2)\n")
    from _helpers import dotted_names

    assert not any(name.startswith("tf.estimator") for name in dotted_names(converted(called)))


@pytest.mark.parametrize("maker", ["tf.estimator.experimental.stop_if_no_decrease_hook(reg, 'loss', 100)",
                                   "tf.estimator.experimental.stop_if_no_increase_hook(reg, 'auc', 50)"])
def test_an_early_stopping_hook_made_by_tensorflow_says_what_made_it(maker):
    # a public trainer attached `tf.estimator.experimental.stop_if_no_decrease_hook(est, ...)` through
    # TrainSpec(hooks=...): the message said a SessionRunHook subclass of the program converts only when attached
    # through TrainSpec(hooks=...), which it was
    src = _CHOSEN.split("PREMADE = False")[0] + (
        f"\nreg = tf.estimator.Estimator(model_fn=model_fn)\nstopper = {maker}\n"
        "tf.estimator.train_and_evaluate(reg, tf.estimator.TrainSpec(feed, max_steps=3, hooks=[stopper]), "
        "tf.estimator.EvalSpec(feed, steps=1))\n")
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM611"], found  # one finding: its read of `reg` is the hook's
    # early-stopping hooks convert now (rules/planners/driver/_hooks.py): this one blocks for its own reason
    assert found[0].message.startswith("early-stopping hook not converted: the Estimator has no model_dir"), \
        found[0].message
    assert "SessionRunHook subclass" not in found[0].message


def test_a_strategy_or_warm_start_set_to_none_then_under_an_if_converts_as_the_conditional_expression():
    # `strategy = None` / `if flag: strategy = tf.distribute.MirroredStrategy()` was asked to be "assigned once";
    # it now reads as `tf.distribute.MirroredStrategy() if flag else None` (issue 28, migrator/choices.py)
    body = ("def main(flag, path):\n    strategy = None\n    if flag:\n        strategy = tf.distribute.MirroredStrategy()\n"
            "    start = None\n    if path:\n        start = tf.estimator.WarmStartSettings(ckpt_to_initialize_from=path, "
            "vars_to_warm_start='.*dense.*')\n"
            "    config = tf.estimator.RunConfig(train_distribute=strategy)\n"
            "    reg = tf.estimator.Estimator(model_fn=model_fn, config=config, warm_start_from=start)\n"
            "    reg.train(feed, max_steps=3)\n\n\nmain(True, None)\n")
    src = _CHOSEN.split("PREMADE = False")[0] + body
    text = converted(src)
    # each branch's strategy converted where it is assigned, the warm start under the same condition
    assert "    strategy = tf.distribute.get_strategy()\n    if flag:\n        strategy = tf.distribute.MirroredStrategy()\n" \
        in text, text
    assert "        if path:\n            reg.warm_start_from_tf1(path, vars_to_warm_start='.*dense.*')" in text
    assert "tf.estimator" not in text


@pytest.mark.parametrize("stars, said", [
    ("from settings import *\n", "(`from settings import *` may bind it, a star import of a module outside the "
                                 "migrated files)"),
    ("from settings import *\nfrom .helpers import *\n", "(one of the star imports `from settings import *`, "
                                                         "`from .helpers import *` may bind it"),
    ("", "(imported through code tfmigrate cannot see)"),
])
def test_an_unbound_tf_names_the_star_imports_that_may_bind_it(stars, said):
    # a public driver took `tf` from `from config import *` / `from utils import *`: the message spoke of "code
    # tfmigrate cannot see" without naming it
    src = f"import argparse\n{stars}\n\ndef main():\n    spec = tf.estimator.TrainSpec(lambda: None, max_steps=2)\n"
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM604"], found
    assert said in found[0].message


def test_a_canned_argument_from_a_parameter_of_a_helper_nobody_calls_says_so():
    # a public helper `def deep_learning_dnn(df, target, classes)` built DNNClassifier(n_classes=classes) and was
    # called from nowhere in the run: the message only said `classes` was "not a value tfmigrate can read"
    src = ("import tensorflow as tf\n\n\ndef fit(frame, classes):\n    feed = lambda: tf.data.Dataset.from_tensor_slices("
           "(dict(frame), [0])).batch(1)\n    clf = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=["
           "tf.feature_column.numeric_column('a')], n_classes=classes)\n    clf.train(feed, steps=3)\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM620", 6)], found
    assert "`classes` is a parameter of `fit`, which is never called in the files given" in found[0].message
    # called once with a literal, it converts
    assert "tf.estimator" not in converted(src + "\n\nfit({'a': [1.0]}, 3)\n").split("def fit")[1]


def test_a_global_step_advanced_by_hand_is_named_with_what_to_write():
    # a public tutorial wrote `tf.group(optimizer.minimize(loss), tf.assign_add(global_step, 1))`: the message said
    # minimize() "does not advance training", which the program's assign_add did
    src = _CHOSEN.split("PREMADE = False")[0].replace(
        "train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(\n"
        "        loss, global_step=tf.compat.v1.train.get_global_step())",
        "train_op = tf.group(tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss),\n"
        "                        tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1))") + (
        "\nreg = tf.estimator.Estimator(model_fn=model_fn)\nreg.train(feed, steps=4)\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM301", 7)], found
    assert "does not advance training" not in found[0].message
    assert found[0].message.endswith("pass global_step=tf.compat.v1.train.get_global_step() to minimize()")


def test_a_notebook_using_the_estimator_api_is_reported_not_passed_over(tmp_path):
    # public Estimator tutorials are often notebooks: a directory of them exited 0 ("no Python files found"), and a
    # notebook named on the command line was read as Python (a JSON dict parses) and found "unchanged"
    import json

    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover_files

    def notebook(name, *cells):
        path = tmp_path / name
        path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": list(c)} for c in cells],
                                    "nbformat": 4, "nbformat_minor": 4}))
        return path

    notebook("train.ipynb", ["import tensorflow as tf\n"],
             ["reg = tf.estimator.LinearRegressor(feature_columns=[])\n", "reg.train(feed, steps=2)\n"])
    notebook("plot.ipynb", ["import matplotlib\n", "print('estimator' )\n".replace("estimator", "plot")])
    found = discover_files([str(tmp_path)])
    assert sorted(p.rsplit("/", 1)[-1] for p in found) == ["plot.ipynb", "train.ipynb"]
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(found, Options(), jobs=1)}
    assert results["plot.ipynb"].status == "skipped"
    train = results["train.ipynb"]
    # its code cells are converted as one program (tfmigrate.notebooks): this one's finding, placed in its cell
    assert train.status == "blocked" and [(d.code, d.line, d.col) for d in train.diagnostics] == [("TFM622", 1, 51)]
    assert train.diagnostics[0].message == "code cell 2: feature_columns is empty"


def test_an_estimator_class_stored_in_an_attribute_is_named_as_such():
    # a public trainer set `self.model_cls = tf.estimator.LinearClassifier` and built `self.model_cls(...)` in
    # another method: the message said the file "builds no Estimator" and that its builder was in another file
    src = ("import tensorflow as tf\n\n\nclass Trainer:\n    def __init__(self):\n"
           "        self.kind = tf.estimator.LinearClassifier\n\n    def run(self, feed):\n"
           "        clf = self.kind(feature_columns=[tf.feature_column.numeric_column('a')], n_classes=2)\n"
           "        clf.train(feed, steps=2)\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 6)], found
    assert found[0].message.startswith("tf.estimator.LinearClassifier (the class) is stored in the attribute "
                                       "`self.kind` in `__init__`")
    assert "builds no Estimator" not in found[0].message
    # through a local name, as the message says, it converts
    local = ("import tensorflow as tf\n\n\ndef feed():\n    return tf.data.Dataset.from_tensor_slices(({'a': [[1.0]]}, "
             "[1])).batch(1)\n\n\nkind = tf.estimator.LinearClassifier\nclf = kind(feature_columns=["
             "tf.feature_column.numeric_column('a')], n_classes=2)\nclf.train(feed, steps=2)\n")
    assert "clf.fit(" in converted(local)


@pytest.mark.parametrize("canned", ["DNNClassifier(hidden_units=[2], ", "LinearClassifier("])
def test_a_numeric_column_of_shape_empty_tuple_is_a_scalar_column(canned):
    # a public TFX trainer wrote numeric_column(key, shape=()): TF1 read it as one value per example; the canned
    # DNN refused it ("shape [] is not a positive integer or a list of them")
    src = ("import tensorflow as tf\n\nKEYS = ['a', 'b']\n\n\ndef feed():\n    return tf.data.Dataset.from_tensor_slices(("
           "{'a': [1.0], 'b': [2.0]}, [1])).batch(1)\n\n\n"
           f"clf = tf.estimator.{canned}feature_columns=[tf.feature_column.numeric_column(k, shape=()) for k in KEYS])\n"
           "clf.train(feed, steps=2)\n")
    out = converted(src)
    assert 'numeric_input(features, "a", 1)' in out and 'numeric_input(features, "b", 1)' in out


def test_an_estimator_builder_looked_up_at_run_time_says_so():
    # a public driver picked its builder with getattr(importlib.import_module("model." + name), "build_estimator"):
    # the message asked for "the files that build it", which tfmigrate could not follow even when given
    src = ("import importlib\n\nimport tensorflow as tf\n\n\ndef main(name, feed):\n"
           "    make = getattr(importlib.import_module('nets.' + name), 'make_estimator')\n"
           "    estimator = make('/tmp/m')\n    print(list(estimator.predict(input_fn=feed)))\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 9)], found
    assert "`make_estimator`" not in found[0].message  # the name the program calls it by
    assert "`make` is looked up at run time (`getattr(importlib.import_module('nets.' + name), " in found[0].message
    assert found[0].message.endswith("import the builder by name (`from <module> import make`), pass its file too, "
                                     "and re-run")
    # a builder imported by name keeps the message about the files to pass
    plain = src.replace("    make = getattr(importlib.import_module('nets.' + name), 'make_estimator')\n", "").replace(
        "import importlib\n", "from nets import make_estimator as make\n")
    assert "pass the files that build it too" in messages(plain)


PANDAS_INPUTS = '''\
import tensorflow as tf


def make_input_fn(df, labels, batch_size=32, epochs=1, shuffle=True):
    return tf.compat.v1.estimator.inputs.pandas_input_fn(
        x=df, y=labels, batch_size=batch_size, num_epochs=epochs, shuffle=shuffle)
'''

PANDAS_TASK = '''\
import pandas as pd
import tensorflow as tf

from . import inputs

df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
est = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x")])
est.train(input_fn=inputs.make_input_fn(df, pd.Series([0.0, 1.0, 0.0, 1.0]), 2, 1, False), steps=2)
'''


def test_pandas_input_fn_in_a_helper_module_says_it_is_not_converted_and_what_to_write(tmp_path):
    # a public package's __init__ held `make_input_fn` returning pandas_input_fn(...): the message said the
    # helper was "converted with the Estimator", which pandas_input_fn never is
    package = tmp_path / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text(PANDAS_INPUTS)
    from tfmigrate.engine import Options, migrate_paths

    for results in ([r for r in migrate_paths([str(package / "__init__.py")], Options(), jobs=1)],
                    list(_migrate_package(tmp_path / "other", {"inputs.py": PANDAS_INPUTS, "task.py": PANDAS_TASK})
                         .values())):
        found = [d for r in results for d in r.diagnostics if d.code != "TFM600"]
        # once, though the driver's unit reaches it too
        assert [(d.code, d.line) for d in found] == [("TFM601", 5)], [d.format() for d in found]
        for d in found:
            assert "converted with the Estimator" not in d.message
            assert d.message.startswith("tf.estimator.inputs.pandas_input_fn is not converted")
            # what TF 2.15's pandas_io fed: x's columns as features, y as labels, num_epochs=1 and a batch of 128
            # by default, the last batch short
            assert "tf.data.Dataset.from_tensor_slices((dict(x), y))" in d.message
            assert ".repeat(num_epochs) (none for 1, the default; .repeat() for None)" in d.message
            assert ".batch(batch_size) (128 by default; the last batch short" in d.message


BUILDER_MODULE = f"""\
import tensorflow as tf


{model_fn()}

def build_estimator(model_dir):
    return tf.estimator.Estimator(model_fn=model_fn, model_dir=model_dir, params={{"lr": 0.1}})
"""

BUILDER_TASK = '''\
import tensorflow as tf

from . import model


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[0.5]] * 8)).batch(2)


def main():
    est = model.build_estimator("/tmp/m")
    est.train(input_fn=input_fn, max_steps=3)
    print(est.evaluate(input_fn=input_fn))
'''


@pytest.mark.parametrize("target, words", [
    ("keras", ["now returns the compiled Keras model that `build_model(...)` builds",
               "`model.fit(dataset, epochs=1, steps_per_epoch=max_steps - initial_step, "
               "callbacks=[EstimatorCheckpoints(model_dir)])` after `initial_step = "
               "model.restore_model_dir(model_dir, model.optimizer)`",
               "`model.evaluate(dataset, steps=steps, return_dict=True)`"]),
    ("ctl", ["now returns the custom-training-loop trainer `ModelTrainer(...)`",
             "`trainer.train(lambda input_context: dataset, max_steps=max_steps)`",
             "`trainer.evaluate(lambda input_context: dataset, steps=steps)`"]),
])
def test_an_estimator_builder_nothing_in_the_run_calls_is_converted_with_a_note(tmp_path, target, words):
    # a public model module's `build_estimator(...)` returning tf.estimator.Estimator, migrated without its
    # caller: it now returns the converted model, on which the caller's .train(input_fn=...) breaks
    result = rewrite(BUILDER_MODULE, target=target)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert ("return build_model({\"lr\": 0.1})" if target == "keras" else "return ModelTrainer(") in out
    # what the note tells callers to use is in the migrated module
    assert all(name in out for name in (["class EstimatorCheckpoints", "def restore_model_dir"] if target == "keras"
                                        else ["class ModelTrainer", "def train(", "def evaluate("]))
    notes = [d for d in result.diagnostics if "returned an Estimator" in d.message]
    line = BUILDER_MODULE.splitlines().index("def build_estimator(model_dir):") + 1
    assert [(d.code, d.line, d.severity) for d in notes] == [("TFM601", line, "note")], [d.format() for d in notes]
    assert notes[0].message.startswith("`build_estimator` returned an Estimator and now returns ")
    assert "nothing in this run calls it: callers elsewhere must train it with " in notes[0].message
    for w in words:
        assert w in notes[0].message
    # the same module with the driver that calls it: the conversion rewrites the calls, no note
    results = _migrate_package(tmp_path / "trainer", {"model.py": BUILDER_MODULE, "task.py": BUILDER_TASK})
    assert results["model.py"].status == "changed" and results["task.py"].status == "changed"
    assert "est.fit(" in results["task.py"].output.decode()
    assert not any("returned an Estimator" in d.message for r in results.values() for d in r.diagnostics)


def test_a_canned_estimator_builder_nothing_calls_names_only_what_its_file_holds():
    # a canned model's module holds no EstimatorCheckpoints / restore_model_dir without a training call to
    # convert: the note asks for the callers rather than naming classes the file does not define
    src = ("import tensorflow as tf\n\n\ndef build_estimator(model_dir):\n"
           "    cols = [tf.feature_column.numeric_column(\"x\")]\n"
           "    return tf.estimator.LinearRegressor(feature_columns=cols, model_dir=model_dir)\n")
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    notes = [d.message for d in result.diagnostics if "returned an Estimator" in d.message]
    assert len(notes) == 1 and "`build_linear_regressor(...)`" in notes[0], notes
    assert "EstimatorCheckpoints(model_dir)" not in notes[0] and "class EstimatorCheckpoints" not in out
    assert "`model.fit(dataset, epochs=1, steps_per_epoch=max_steps)`" in notes[0]
    assert notes[0].endswith("run tfmigrate on the callers together with this file (it generates "
                             "EstimatorCheckpoints and restore_model_dir only for training calls it converts)")


def test_a_model_to_estimator_builder_nothing_calls_names_only_what_its_file_holds():
    # no training call in the run: the file holds no fit, EstimatorCheckpoints or restore_model_dir, so the
    # model_dir note does not say "the migrated fit writes" them (c6e4ccf words the builder note the same way)
    src = ("import tensorflow as tf\n\n\ndef build_estimator(model_dir):\n"
           "    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])\n"
           "    model.compile(optimizer=\"sgd\", loss=\"mse\")\n"
           "    return tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=model_dir)\n")
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert "EstimatorCheckpoints" not in out and "restore_model_dir" not in out and ".fit(" not in out
    [note] = [d for d in result.diagnostics if d.code == "TFM603"]
    assert note.line == 7 and not note.message.startswith("the migrated fit writes")
    assert note.message.startswith("model_dir: nothing in this run trains this model, so this file writes and reads "
                                   "no checkpoints; a fit tfmigrate converts together with this file writes")
    assert "a checkpoint the Estimator itself wrote there is not read" in note.message
    # called in the run: the fit is generated here, and the note says so
    called = rewrite(src + "\n\ndef main():\n    est = build_estimator('/tmp/m')\n"
                           "    est.train(lambda: tf.data.Dataset.from_tensors(({'x': [[1.0, 2.0]]}, [[1.0]])), "
                           "max_steps=2)\n")
    assert called.status == "changed", [d.format() for d in called.diagnostics]
    assert "callbacks=[EstimatorCheckpoints(" in called.output.decode()
    assert [d.message[:40] for d in called.diagnostics if d.code == "TFM603"] == [
        "the migrated fit writes the Estimator's "]
