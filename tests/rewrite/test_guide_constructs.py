"""Constructs of TF's own migration-guide notebooks (site/en/guide/migrate): what converts, and what stays blocked
with the true reason and the nearest TF2 form."""
from __future__ import annotations

from _helpers import blocked, converted

# a model_fn that is a method, called by hand and its train_op run in a Session (migration_debugging's shape)
BY_HAND = '''\
import numpy as np
import tensorflow as tf


class Wrapper:
    def model_fn(self, features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features, params["units"])
        loss = tf.compat.v1.losses.softmax_cross_entropy(labels, logits)
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


graph = tf.Graph()
with graph.as_default(), tf.compat.v1.Session(graph=graph) as sess:
    wrapper = Wrapper()
    x = tf.compat.v1.placeholder(tf.float32, shape=(None, 3))
    y = tf.compat.v1.placeholder(tf.float32, shape=(None, 2))
    spec = wrapper.model_fn(x, y, tf.estimator.ModeKeys.TRAIN, {"units": 2})
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(spec.train_op, feed_dict={x: np.ones((2, 3)), y: np.eye(2)})
'''


def test_a_model_fn_the_program_calls_itself_in_a_session_is_said_to_be_graph_code():
    found = [d for d in blocked(BY_HAND).diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in found] == [("TFM601", 6)]
    message = found[0].message
    assert message.startswith("`model_fn(self, features, labels, mode, params)` is never given to an Estimator: "
                              "the program calls it itself, `wrapper.model_fn(x, y, tf.estimator.ModeKeys.TRAIN, "
                              '{"units": 2})` inside `with tf.compat.v1.Session(...)`')
    assert "not in the migrated files" not in message and "tf.GradientTape" in message


def test_a_method_model_fn_nothing_calls_still_asks_for_the_files_that_build_the_estimator():
    src = BY_HAND.split("\n\ngraph = ")[0] + "\n"
    found = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert len(found) == 1 and "no Estimator in the migrated files is built with" in found[0].message


# a model_fn made only to export a SavedModel: no weights, a constant loss, train() only advances the step
EXPORT_ONLY = '''\
import tensorflow as tf


def model_fn(features, labels, mode):
    output = features["input"] * 3.0
    step = tf.compat.v1.train.get_global_step()
    return tf.estimator.EstimatorSpec(
        mode, predictions=output, train_op=step.assign_add(1), loss=tf.constant(0.),
        export_outputs={"serving_default": tf.estimator.export.PredictOutput({"output": output})})


est = tf.estimator.Estimator(model_fn, "/tmp/tfm-export-only")
est.train(lambda: tf.data.Dataset.from_tensors({"input": 1.0}), steps=1)
receiver = tf.estimator.export.build_raw_serving_input_receiver_fn({"input": tf.constant(1.0)})
path = est.export_saved_model("/tmp/tfm-export-only-out", receiver)
'''

# a variable changed by assignment in train_op, a Checkpoint of it for the Scaffold (migrating_checkpoints' shape)
ASSIGNED = '''\
import tensorflow as tf


def model_fn(features, labels, mode):
    step = tf.compat.v1.train.get_or_create_global_step()
    v = tf.compat.v1.get_variable("var", shape=[], initializer=tf.compat.v1.constant_initializer(0))
    ckpt = tf.train.Checkpoint(var_list={"var": v}, step=step)
    return tf.estimator.EstimatorSpec(mode, predictions=v, loss=tf.constant(1.),
                                      train_op=tf.group(v.assign_add(3), step.assign_add(1)),
                                      scaffold=tf.compat.v1.train.Scaffold(saver=ckpt))


est = tf.estimator.Estimator(model_fn, "/tmp/tfm-assigned")
est.train(lambda: tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])), steps=1)
'''


def _errors(src):
    return [d for d in blocked(src).diagnostics if d.severity == "error"]


def test_an_export_only_model_fn_converts_to_a_module_and_its_export():
    # it trains by assignment (planners/assign_step.py; tests/rewrite/test_assign_step.py): its TF2 form
    out = converted(EXPORT_ONLY)
    assert "class ModelFnModule(tf.Module):" in out and "train_op=lambda: step.assign_add(1)" in out
    assert "est.model.export_raw_saved_model(" in out


def test_a_train_op_of_assignments_beside_a_scaffold_checkpoint_saves_with_that_checkpoint():
    out = converted(ASSIGNED)
    assert "train_op=lambda: tf.group(v.assign_add(3), step.assign_add(1))" in out
    assert 'return tf.train.Checkpoint(var_list={"var": self.var}, step=self.global_step)' in out
    assert "ckpt = " not in out and "train.Scaffold" not in out


def test_a_constant_loss_beside_an_optimizer_is_still_not_the_loss_computed_above():
    src = EXPORT_ONLY.replace('    step = tf.compat.v1.train.get_global_step()\n', '''\
    output = tf.compat.v1.layers.dense(tf.reshape(output, [-1, 1]), 1)
    step = tf.compat.v1.train.get_global_step()
    loss = tf.compat.v1.losses.mean_squared_error(labels, output)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
''').replace("train_op=step.assign_add(1)", "train_op=train_op")
    found = _errors(src)
    assert any("is not the loss computed above" in d.message for d in found)
    assert not any("trains nothing" in d.message for d in found)


# a helper that evaluates whichever Estimator it is handed, called after each of two trainings (a course notebook's
# `print_rmse(model, df)` after a LinearRegressor, then after a DNNRegressor, both held by `model`)
HELPER = '''\
import numpy as np
import tensorflow as tf


def input_fn():
    x = {"x": np.ones((8, 1), np.float32)}
    return tf.data.Dataset.from_tensor_slices((x, np.ones((8,), np.float32))).batch(4)


def print_rmse(model):
    metrics = model.evaluate(input_fn=input_fn)
    print("RMSE", np.sqrt(metrics["average_loss"]))


columns = [tf.feature_column.numeric_column("x")]
model = tf.estimator.LinearRegressor(feature_columns=columns, model_dir="/tmp/tfm-helper-1")
model.train(input_fn=input_fn, steps=2)
print_rmse(model)
'''
SECOND = '''\
model = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=columns, model_dir="/tmp/tfm-helper-2")
model.train(input_fn=input_fn, steps=2)
print_rmse(model)
'''


def test_a_helper_handed_two_estimators_names_its_callers_and_what_to_do():
    found = _errors(HELPER + SECOND)
    assert [(d.code, d.line) for d in found] == [("TFM601", 11)]
    assert found[0].message.startswith("`model` is a parameter of `print_rmse`, whose callers (lines 18, 21) pass it "
                                       "2 different Estimators (built at lines 16, 19): tfmigrate converts a use of "
                                       "an Estimator for the one Estimator it reaches, so this evaluate() is not "
                                       "converted")


def test_the_same_helper_handed_one_estimator_twice_converts():
    text = converted(HELPER + "print_rmse(model)\n")
    helper = text.split("def print_rmse(model):")[1].split("\n\n\n")[0]
    assert "model.evaluate(input_fn(), " in helper


# an old input function nothing calls, its mode keys in its defaults and body (a public trainer's model.py)
DEAD_INPUT_FN = '''\
import numpy as np
import tensorflow as tf


def old_input_fn(mode=tf.estimator.ModeKeys.TRAIN):
    ds = tf.data.Dataset.from_tensor_slices(({"x": np.ones((8, 1), np.float32)}, np.ones((8,), np.float32)))
    if mode == tf.estimator.ModeKeys.TRAIN:
        ds = ds.repeat()
    return ds.batch(4)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": np.ones((8, 1), np.float32)}, np.ones((8, 1), np.float32))).batch(4)


def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


est = tf.estimator.Estimator(model_fn, "/tmp/tfm-dead-input")
est.train(input_fn=input_fn, steps=2)
'''


def test_mode_keys_of_a_def_nothing_calls_are_their_strings_once_the_file_converts():
    text = converted(DEAD_INPUT_FN)
    assert 'def old_input_fn(mode="train"):' in text and 'if mode == "train":' in text


def test_a_blocked_file_does_not_report_them_as_leftovers():
    src = DEAD_INPUT_FN.replace("    loss = tf.compat", "    tf.compat.v1.keras.backend.set_learning_phase(1)\n"
                                                       "    loss = tf.compat")
    found = _errors(src)
    assert found and all(d.line > 10 for d in found), [d.format() for d in found]


def test_checkpoint_reads_by_tf1_name_say_what_the_migrated_program_reads_instead():
    value = _errors(DEAD_INPUT_FN + 'print(est.get_variable_value("dense/kernel"))\n')
    assert [(d.code, d.line) for d in value] == [("TFM601", 26)]
    assert value[0].message.startswith("estimator.get_variable_value() is not converted yet: it read model_dir's "
                                       "latest checkpoint by the Estimator's TF1 variable names")
    assert "model.optimizer.iterations" in value[0].message
    latest = _errors(DEAD_INPUT_FN + "print(est.latest_checkpoint())\n")
    assert "`tf.train.latest_checkpoint(model_dir)` names the migrated program's newest checkpoint" in latest[0].message


METHOD = '''\
import numpy as np
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": np.ones((8, 1), np.float32)}, np.ones((8, 1), np.float32))).batch(4)


class Wrapper:
    def model_fn(self, features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


wrapper = Wrapper()
est = tf.estimator.Estimator(model_fn=wrapper.model_fn, model_dir="/tmp/tfm-method", params={})
est.train(input_fn=input_fn, steps=2)
'''


def test_a_bound_method_as_model_fn_says_which_and_whether_it_reads_the_object():
    found = _errors(METHOD)
    assert [(d.code, d.line) for d in found] == [("TFM601", 19)]
    assert found[0].message == ("model_fn=`wrapper.model_fn` is the method `Wrapper.model_fn` of the object `wrapper` "
                                "(`Wrapper()`): tfmigrate converts a model_fn that is a function (module level, or "
                                "returned by a factory); it reads nothing of `self`: make it a module-level function "
                                "without `self` and re-run")
    reads = _errors(METHOD.replace('dense(features["x"], 1)', 'dense(features["x"], self.units)'))
    assert "uses the object's state (`self.units`)" in reads[0].message
    # what the message asks for converts
    function = (METHOD.replace("class Wrapper:\n", "").replace("    def model_fn(self, ", "def model_fn(")
                .replace("\n        ", "\n    ").replace("wrapper = Wrapper()\n", "")
                .replace("model_fn=wrapper.model_fn", "model_fn=model_fn"))
    assert "def build_model(" in converted(function)
