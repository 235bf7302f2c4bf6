"""Helpers a model_fn calls with its mode or a training flag (issue 12: one precise diagnostic with file:line and
what to do). A model_fn is what an Estimator is built with, never a def read by its parameter names; each message
says which helper, which argument, and a form that converts, and the forms it names are checked to convert."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, rewrite
from tfmigrate.engine import Options, migrate_paths

MODEL = '''\
import tensorflow as tf

from trainer import nets


def model_fn(features, labels, mode, params):
    FORWARD
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=logits)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.AdamOptimizer(params["lr"]).minimize(loss, global_step=step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8))
    return ds.repeat().batch(4)


def main():
    est = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m", params={"lr": 0.1})
    est.train(input_fn=input_fn, max_steps=3)


if __name__ == "__main__":
    main()
'''

# a network helper taking the model_fn's mode, written with the model_fn's parameter names
KERAS_HELPER = '''\
def build_layers(features, mode):
    net = tf.keras.layers.Dense(8, activation="relu")(features["x"])
    net = tf.keras.layers.Dropout(0.5)(net, training=mode == tf.estimator.ModeKeys.TRAIN)
    return tf.keras.layers.Dense(1)(net)
'''
# the issue's `build_layers(inputs, mode)` with tf.compat.v1 layers
V1_HELPER = '''\
def build_layers(inputs, mode):
    net = tf.compat.v1.layers.dense(inputs, 8, activation=tf.nn.relu)
    return tf.compat.v1.layers.dense(net, 1)
'''
FLAG_HELPER = '''\
def net(x, is_training):
    h = tf.keras.layers.Dense(8, activation="relu")(x)
    h = tf.keras.layers.Dropout(0.5)(h, training=is_training)
    return tf.keras.layers.Dense(1)(h)
'''
NO_LAYER_HELPER = '''\
def net(x, is_training):
    return tf.nn.dropout(x, rate=0.5) if is_training else x
'''
FLAG = "    is_training = mode == tf.estimator.ModeKeys.TRAIN\n"


def _package(tmp_path, forward: str, helper: str) -> dict:
    package = tmp_path / "trainer"
    package.mkdir(exist_ok=True)
    files = {"__init__.py": "", "model.py": MODEL.replace("    FORWARD\n", forward),
             "nets.py": "import tensorflow as tf\n\n\n" + helper}
    for name, text in files.items():
        (package / name).write_text(text)
    return {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths([str(p) for p in sorted(package.iterdir())],
                                                                  Options(), jobs=1)}


def _single(forward: str, helper: str) -> str:
    """The same program with the helper moved into the model_fn's module."""
    return (MODEL.replace("from trainer import nets\n\n\n", "\n" + helper + "\n\n")
            .replace("    FORWARD\n", forward.replace("nets.", "")))


@pytest.mark.parametrize("helper, forward", [
    (KERAS_HELPER, "    logits = nets.build_layers(features, mode)\n"),
    (V1_HELPER, '    logits = nets.build_layers(features["x"], mode)\n'),
])
def test_a_helper_taking_mode_in_another_module_is_not_read_as_a_model_fn(tmp_path, helper, forward):
    results = _package(tmp_path, forward, helper)
    found = {name: [(d.code, d.line, d.message) for d in r.diagnostics] for name, r in results.items()}
    assert all(code != "TFM601" for diags in found.values() for code, _, _ in diags), found
    [(code, line, message)] = found["nets.py"]  # one finding, at the def, naming the call and what to do
    assert (code, line) == ("TFM501", 4)
    assert "`build_layers` is a helper of the model_fn `model_fn` (" in message
    assert "/trainer/model.py:7 calls it, passing it `mode` as its parameter `mode`), not a model_fn" in message
    assert "move `build_layers` into " in message and "call it there as `y = build_layers(...)`" in message
    [(code, line, message)] = found["model.py"]
    assert (code, line) == ("TFM501", 7) and "it is given `mode` as its parameter `mode`" in message
    # what the messages promise: the helper in the model_fn's module converts
    converted(_single(forward, helper))


def test_a_helper_given_a_flag_in_another_module_of_the_run_names_the_argument(tmp_path):
    forward = FLAG + '    logits = nets.net(features["x"], is_training)\n'
    results = _package(tmp_path, forward, FLAG_HELPER)
    [nets] = results["nets.py"].diagnostics
    assert (nets.code, nets.line) == ("TFM501", 4)
    assert "passing it `is_training` (computed from mode) as its parameter `is_training`" in nets.message
    [model] = results["model.py"].diagnostics
    assert "`is_training` (computed from mode) as its parameter `is_training`" in model.message
    assert "passing `training=` to the Keras layers" in model.message
    converted(_single(forward, FLAG_HELPER))


def test_a_flag_given_to_a_helper_that_builds_no_layers_does_not_promise_a_move(tmp_path):
    forward = FLAG + '    logits = tf.compat.v1.layers.dense(nets.net(features["x"], is_training), 1)\n'
    results = _package(tmp_path, forward, NO_LAYER_HELPER)
    [model] = results["model.py"].diagnostics
    assert (model.code, model.line) == ("TFM501", 8)
    assert ("`logits = ...` passes the training flag `is_training` (mode == ModeKeys.TRAIN) to `nets.net()` as its "
            "argument 2 (parameter `is_training`); `nets.net` is defined in ") in model.message
    assert "a function that computes with the flag without layers is not converted, wherever it is" in model.message
    assert "move" not in model.message
    [nets] = results["nets.py"].diagnostics
    assert "it builds no layers" in nets.message and "move" not in nets.message
    # and indeed: moved into the model_fn's module it still does not convert, with the same advice
    found = blocked(_single(forward, NO_LAYER_HELPER)).diagnostics
    assert [d.code for d in found] == ["TFM501"]
    assert "`net` is a function of this module that builds no layers" in found[0].message


@pytest.mark.parametrize("imports, call, module, argument", [
    ("from somelib import nets", 'nets.net(features["x"], is_training)', "somelib.nets", "its argument 2"),
    ("from somelib import net", 'net(features["x"], is_training)', "somelib", "its argument 2"),
    ("from somelib import nets", 'nets.net(features["x"], training=is_training)', "somelib.nets", "`training=`"),
])
def test_a_flag_given_to_a_helper_outside_the_run_says_which_helper_and_what_converts(imports, call, module,
                                                                                       argument):
    src = MODEL.replace("from trainer import nets", imports).replace("    FORWARD\n", FLAG + f"    logits = {call}\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM501", 8)]
    message = found[0].message
    fn = call.split("(")[0]
    assert (f"`logits = ...` passes the training flag `is_training` (mode == ModeKeys.TRAIN) to `{fn}()` as "
            f"{argument}; `{fn}` is imported from `{module}`, which is not among the migrated files") in message
    assert "called as `y = net(...)`" in message and "`training=is_training` passed to the Keras layers" in message
    # the second form it names converts: the layers in the model_fn, given the flag
    layers = FLAG + ('    h = tf.keras.layers.Dense(8, activation="relu")(features["x"])\n'
                     "    h = tf.keras.layers.Dropout(0.5)(h, training=is_training)\n"
                     "    logits = tf.keras.layers.Dense(1)(h)\n")
    converted(MODEL.replace("from trainer import nets\n", "").replace("    FORWARD\n", layers))


def test_a_module_holding_only_an_input_fn_taking_mode_is_not_called_a_model_fn():
    # `input_fn(features, mode)` alone: nothing builds an Estimator with it and it returns no EstimatorSpec; no
    # Estimator of the run reaches its mode key, which is the string it always was (planners/mode_keys)
    src = ("import tensorflow as tf\n\n\ndef input_fn(features, mode):\n"
           "    ds = tf.data.Dataset.from_tensor_slices((features, [[1.0]] * 8))\n"
           "    if mode == tf.estimator.ModeKeys.TRAIN:\n        ds = ds.repeat()\n    return ds.batch(4)\n")
    result = rewrite(src)
    assert result.status == "changed"
    assert 'if mode == "train":' in result.output.decode()
    assert not any("is a model_fn" in d.message for d in result.diagnostics)


def test_a_model_fn_alone_is_known_by_the_spec_it_returns_and_named_with_its_signature():
    src = ("import tensorflow as tf\n\n\ndef my_fn(features, labels, mode):\n"
           "    logits = tf.compat.v1.layers.dense(features['x'], 1)\n"
           "    spec = tf.estimator.EstimatorSpec(mode, predictions=logits)\n    return spec\n")
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 4)]
    assert found[0].message.startswith("`my_fn(features, labels, mode)` is a model_fn no Estimator in the migrated")
    # the same def called by a wrapper of the file is that wrapper's helper, not a model_fn
    wrapped = src + ("\n\ndef wrapper(features, labels, mode, params):\n"
                     "    return my_fn(features, labels, mode)\n")
    assert "`my_fn(" not in "\n".join(d.message for d in rewrite(wrapped).diagnostics)


CLOSURE = '''\
import tensorflow as tf


def input_fn():
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[1.0]] * 8))
    return ds.repeat().batch(4)


def build_model_fn(units):
    def model_fn(features, labels, mode):
        DOC
        logits = tf.compat.v1.layers.dense(features["x"], units)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=logits)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def main():
    est = tf.estimator.Estimator(model_fn=build_model_fn(1), model_dir="/tmp/m")
    est.train(input_fn=input_fn, max_steps=3)
'''
USER_DOC = '"""A linear model.\n\n        Its continuation lines are the user\'s, kept as written.\n        """'


@pytest.mark.parametrize("target", ["keras", "ctl"])
@pytest.mark.parametrize("doc", ["", USER_DOC])
def test_generated_docstrings_in_a_closure_model_fn_are_indented_like_their_block(target, doc):
    import ast

    src = CLOSURE.replace("        DOC\n", f"        {doc}\n" if doc else "")
    out = converted(src, target=target)
    lines = out.split("\n")
    tree = ast.parse(out)
    docstrings = [n.body[0] for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)
                  and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str)
                  and n.body[0].end_lineno > n.body[0].lineno]
    nested = [d for d in docstrings if d.col_offset > 4]  # in the factory's methods (4: its own functions)
    assert nested, out
    for d in nested:
        for line in lines[d.lineno:d.end_lineno]:  # the continuation lines
            assert not line.strip() or len(line) - len(line.lstrip()) >= d.col_offset, (d.lineno, line)
    if doc:  # the user's docstring, the converted model's, stays as written
        assert USER_DOC in out


def test_estimator_api_outside_the_helper_is_reported_beside_it(tmp_path):
    helper = KERAS_HELPER + '\n\nCONFIG = tf.estimator.RunConfig(model_dir="/tmp/x")\n'
    results = _package(tmp_path, "    logits = nets.build_layers(features, mode)\n", helper)
    found = [(d.code, d.line) for d in results["nets.py"].diagnostics]
    assert found == [("TFM501", 4), ("TFM601", 10)], [d.format() for d in results["nets.py"].diagnostics]


def test_a_helper_in_the_module_holding_the_input_fn_gets_the_helper_finding(tmp_path):
    # nets.py holds the Estimator's input_fn too, so it is in the unit (linked): its helper still gets its own
    # finding at the def, not only "left unchanged: migrated as one unit with model.py" (TFM600)
    input_fn = MODEL[MODEL.index("def input_fn():"):MODEL.index("def main():")]
    package = tmp_path / "trainer"
    package.mkdir()
    files = {"__init__.py": "",
             "model.py": MODEL.replace(input_fn, "").replace("    FORWARD\n",
                                                             "    logits = nets.build_layers(features, mode)\n")
             .replace("input_fn=input_fn", "input_fn=nets.input_fn"),
             "nets.py": "import tensorflow as tf\n\n\n" + KERAS_HELPER + "\n\n" + input_fn.rstrip() + "\n"}
    for name, text in files.items():
        (package / name).write_text(text)
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths([str(p) for p in sorted(package.iterdir())],
                                                                     Options(), jobs=1)}
    [nets] = results["nets.py"].diagnostics
    assert (nets.code, nets.line) == ("TFM501", 4), nets.format()
    assert "`build_layers` is a helper of the model_fn `model_fn` (" in nets.message
    assert "move `build_layers` into " in nets.message
    [model] = results["model.py"].diagnostics
    assert (model.code, model.line) == ("TFM501", 7)
    assert results["nets.py"].status == results["model.py"].status == "blocked"
