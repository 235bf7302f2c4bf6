"""A model_fn that trains by assignment (rules/planners/assign_step.py): a tf.Module holding its variables under their
TF1 names and a trainer whose step runs the same assignments; get_variable_value / get_variable_names /
latest_checkpoint answered by TF1 name. Each blocker names what is not covered."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted
from test_guide_constructs import EXPORT_ONLY

# running sums: get_variable in a variable_scope, tf.Variable, a mode branch, the train_op bound to a name
SUMS = '''\
import tensorflow as tf
import tensorflow.compat.v1 as tf1


def model_fn(features, labels, mode, params):
    step = tf1.train.get_or_create_global_step()
    with tf1.variable_scope("sums"):
        total = tf1.get_variable("labels", shape=[], initializer=tf1.zeros_initializer())
        seen = tf1.get_variable("count", shape=[], initializer=tf1.constant_initializer(params["start"]))
    offset = tf.Variable(0.5, name="offset")
    mean = total / tf.maximum(seen, 1.0) + offset
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(tf.square(labels - mean)))
    train_op = tf.group(total.assign_add(tf.reduce_sum(labels)), tf1.assign_add(seen, 16.0), step.assign_add(1))
    return tf.estimator.EstimatorSpec(mode, loss=tf.constant(1.0), train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [1.0] * 32}, [2.0] * 32)).batch(16)


est = tf.estimator.Estimator(model_fn, "/tmp/tfm-sums", params={"start": 0.0})
est.train(input_fn, max_steps=2)
print(est.get_variable_names(), est.get_variable_value("sums/labels"), est.latest_checkpoint())
print(est.evaluate(input_fn))
'''


def _errors(src, **options):
    return [d for d in blocked(src, **options).diagnostics if d.severity == "error"]


def test_variables_keep_their_tf1_names_and_the_step_runs_the_same_assignments():
    out = converted(SUMS)
    assert "class ModelFnModule(tf.Module):" in out and "class ModelFnTrainer:" in out
    assert 'self.sums_labels = tf.Variable(tf.zeros([], dtype=tf.float32), name="sums/labels")' in out
    assert ('self.sums_count = tf.Variable(tf.constant(params["start"], dtype=tf.float32, shape=[]), '
            'name="sums/count")') in out
    assert 'self.offset = tf.Variable(0.5, name="offset")' in out
    assert 'self.global_step = tf.Variable(0, dtype=tf.int64, trainable=False, name="global_step")' in out
    # the scopes go into the names; the model_fn reads the module's variables
    assert "variable_scope" not in out and "total = self.sums_labels" in out and "step = self.global_step" in out
    # the train_op runs in train() only, after the loss; tf1.assign_add(v, x) is v.assign_add(x)
    assert ("def train_op():\n            return tf.group(total.assign_add(tf.reduce_sum(labels)), "
            "seen.assign_add(16.0), step.assign_add(1))") in out
    assert 'if mode == "eval":' in out and "tf1." not in out and "import tensorflow.compat" not in out
    # the driver: the custom loop's calls; the checkpoint reads stay, answered by the trainer
    assert 'est = ModelFnTrainer(strategy, {"start": 0.0}, model_dir="/tmp/tfm-sums")' in out
    assert 'est.get_variable_names(), est.get_variable_value("sums/labels"), est.latest_checkpoint()' in out
    assert "def get_variable_value(self, name):" in out and "def latest_checkpoint(self):" in out


def test_an_export_only_model_fn_converts_with_its_export():
    out = converted(EXPORT_ONLY)
    assert "train_op=lambda: step.assign_add(1)" in out
    assert 'export_outputs={"serving_default": {"output": output}}' in out
    assert 'path = est.model.export_raw_saved_model("/tmp/tfm-export-only-out", {"input": tf.constant(1.0)})' in out


@pytest.mark.parametrize("old, new, message", [
    ('initializer=tf1.zeros_initializer())', ')', "a random initializer draws other numbers in TF2"),
    ('mean = total', 'mean = tf1.layers.dense(tf.reshape(total, [1, 1]), 1) + total',
     "`tf1.layers.dense` makes variables"),
    ('    offset = tf.Variable(0.5, name="offset")\n', '    if params["start"]:\n        offset = tf.Variable(0.5)\n',
     "a variable made inside an if / for / while / try is not converted"),
    ('loss=tf.reduce_mean(tf.square(labels - mean)))', 'loss=tf.reduce_mean(tf.square(labels - mean)), '
     'eval_metric_ops={"m": tf1.metrics.mean(mean)})', "EstimatorSpec(eval_metric_ops=...) is not converted yet"),
    ('shape=[], initializer=tf1.zeros', 'shape=[features["x"].shape[0]], initializer=tf1.zeros',
     "its shape or initial value reads features, computed in the model_fn"),
])
def test_what_the_conversion_does_not_cover_blocks_naming_it(old, new, message):
    assert old in SUMS
    found = _errors(SUMS.replace(old, new, 1))
    assert found and all(d.code == "TFM501" for d in found), [d.format() for d in found]
    assert any(message in d.message for d in found), [d.format() for d in found]


def test_a_helper_that_makes_variables_blocks():
    src = SUMS.replace("def model_fn(", "def make(x):\n    return tf1.get_variable('w', [1]) * x\n\n\ndef model_fn(")
    src = src.replace("mean = total /", "mean = make(total) /")
    found = _errors(src)
    assert any("`make` makes variables" in d.message for d in found), [d.format() for d in found]


def test_target_keras_blocks_and_auto_picks_the_custom_loop():
    found = _errors(SUMS, target="keras")
    assert any("has no Model.fit form" in d.message for d in found), [d.format() for d in found]
    assert "class ModelFnTrainer:" in converted(SUMS, target="auto")


def test_checkpoint_reads_of_a_gradient_trained_model_fn_still_block():
    from _helpers import TRAIN_AND_EVALUATE, program

    found = _errors(program(drive=TRAIN_AND_EVALUATE + "print(est.get_variable_value('dense/kernel'))\n"))
    assert [d.code for d in found] == ["TFM601"], [d.format() for d in found]
    assert "get_variable_value() is not converted yet" in found[0].message


def test_a_strategy_over_several_devices_blocks():
    found = _errors(SUMS, strategy="mirrored")
    assert any("not under a distribution strategy over several devices or workers" in d.message for d in found), \
        [d.format() for d in found]


# the migrating_checkpoints guide's second shape: a Scaffold saving through a tf.train.Checkpoint, warm-started
SCAFFOLD = '''\
import tensorflow as tf
import tensorflow.compat.v1 as tf1


def model_fn(features, labels, mode):
    step = tf1.train.get_or_create_global_step()
    v = tf1.get_variable("var", shape=[], initializer=tf1.constant_initializer(0), trainable=True)
    ckpt = tf.train.Checkpoint(var_list={"var": v}, step=step)
    return tf.estimator.EstimatorSpec(mode, predictions=v, loss=tf.constant(1.),
                                      train_op=tf.group(v.assign_add(2), step.assign_add(1)),
                                      scaffold=tf1.train.Scaffold(saver=ckpt))


est = tf.estimator.Estimator(model_fn, "/tmp/tfm-b", warm_start_from="/tmp/tfm-a")
est.train(lambda: tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])), steps=1)
assert est.get_variable_value("var_list/var/.ATTRIBUTES/VARIABLE_VALUE") == 4
'''


def test_a_scaffold_checkpoint_is_the_trainers_and_warm_start_reads_tf1_names():
    out = converted(SCAFFOLD)
    assert 'return tf.train.Checkpoint(var_list={"var": self.var}, step=self.global_step)' in out
    assert "ckpt =" not in out and "train.Scaffold" not in out
    assert 'warm_start=lambda model: model.warm_start_from_tf1("/tmp/tfm-b".replace' not in out
    assert 'warm_start=lambda model: model.warm_start_from_tf1("/tmp/tfm-a")' in out
    assert "def warm_start_from_tf1(self, checkpoint, vars_to_warm_start=\".*\", var_name_to_prev_var_name=None):" \
        in out
    assert 'assert est.get_variable_value("var_list/var/.ATTRIBUTES/VARIABLE_VALUE") == 4' in out


@pytest.mark.parametrize("old, new", [
    ("scaffold=tf1.train.Scaffold(saver=ckpt)", "scaffold=tf1.train.Scaffold(saver=tf1.train.Saver())"),
    ("scaffold=tf1.train.Scaffold(saver=ckpt)", "scaffold=tf1.train.Scaffold(saver=ckpt, init_op=None)"),
])
def test_other_scaffolds_block(old, new):
    found = _errors(SCAFFOLD.replace(old, new))
    assert any("is not converted for a model_fn that trains by assignment (a Scaffold(saver=" in d.message
               for d in found), [d.format() for d in found]


def test_a_name_scope_names_tf_variables_only():
    src = SUMS.replace('    offset = tf.Variable(0.5, name="offset")\n', '''\
    with tf.name_scope("extra"):
        offset = tf.Variable(0.5, name="offset")
        bias = tf1.get_variable("bias", shape=[], initializer=tf1.zeros_initializer())
''').replace("+ offset", "+ offset + bias")
    out = converted(src)
    assert 'name="extra/offset")' in out and 'name="bias")' in out


def test_an_optimizer_beside_the_assignments_blocks():
    src = SUMS.replace("    train_op = tf.group(", "    tf1.train.GradientDescentOptimizer(0.1)\n    train_op = tf.group(")
    found = _errors(src)
    assert any("a model_fn that both assigns and trains by gradient is not converted" in d.message for d in found), \
        [d.format() for d in found]



def test_explain_names_the_plan_kind(tmp_path):
    from tfmigrate.engine import Options, explain_paths

    (tmp_path / "sums.py").write_text(SUMS)
    found = explain_paths([tmp_path / "sums.py"], Options())
    passes = [e["forward_pass"] for e in found if "forward_pass" in e]
    assert passes and passes[0]["style"] == "assign_step", found
    assert "a tf.Module holding 4 variables by TF1 name" in passes[0]["why"]
