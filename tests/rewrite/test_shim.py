"""TFM502: model_fn forward passes the native interpreter blocks on, kept as written under TF's model-mapping shim
(rules/planners/shim.py): which path is chosen, the note, the blockers."""
from __future__ import annotations

import pytest
from _helpers import blocked, codes, converted, program, section

NO_MODEL_DIR = 'config = tf.estimator.RunConfig(tf_random_seed=7)'

FC = '''
def fc(inputs, units, name):
    with tf.compat.v1.variable_scope(name):
        w = tf.compat.v1.get_variable("weights", [inputs.shape[-1], units])
        b = tf.compat.v1.get_variable("biases", [units], initializer=tf.compat.v1.zeros_initializer())
        return tf.matmul(inputs, w) + b
'''

LOOP_FORWARD = '''
net = features["x"]
with tf.compat.v1.variable_scope("mlp"):
    for i, units in enumerate([8, 4]):
        net = tf.nn.relu(fc(net, units, "layer%d" % i))
    logits = fc(net, 1, "out")
'''


def test_a_helper_called_in_a_loop_runs_under_the_shim_with_a_note_naming_the_native_blocker():
    src = program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR)
    out = converted(src)
    assert 'os.environ["TF_USE_LEGACY_KERAS"] = "1"\nimport tensorflow as tf\nimport tf_keras as keras\n' in out
    call = out[out.index("    @tf.compat.v1.keras.utils.track_tf1_style_variables"):out.index("        return logits")]
    # the forward pass as written, in the re-entered root scope (TF1's own variable names)
    assert "with tf.compat.v1.variable_scope(tf.compat.v1.get_variable_scope(), auxiliary_name_scope=False):" in call
    assert 'net = tf.nn.relu(fc(net, units, "layer%d" % i))' in call
    assert "def fc(inputs, units, name):" in out  # the helper stays as written
    assert "class ModelTrainer" in out  # the custom loop: tf_keras, not the Keras 3 fit target


def test_the_note_says_what_the_native_path_stopped_at():
    from _helpers import rewrite

    result = rewrite(program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR))
    notes = [d.message for d in result.diagnostics if d.code == "TFM502"]
    assert len(notes) == 1 and "model-mapping shim" in notes[0]
    assert "the native conversion stopped at: fc() is converted when it ends with `return <tensor>`" in notes[0]


def test_a_model_the_native_path_converts_keeps_the_native_path():
    out = converted(program(run_config=NO_MODEL_DIR))
    assert "track_tf1_style_variables" not in out and "tf_keras" not in out


def test_regularization_loss_goes_to_the_model_losses_and_the_evaluation_loss():
    forward = '''
    net = tf.compat.v1.layers.dense(features["x"], 8, kernel_regularizer=tf.keras.regularizers.l2(0.01))
    for i in range(2):
        net = block(net, i)
    logits = tf.compat.v1.layers.dense(net, 1)
    '''
    extra = FC + '''
def block(x, i):
    return tf.nn.relu(fc(x, 8, "block%d" % i))
'''
    loss = ("loss = tf.compat.v1.losses.mean_squared_error(labels, logits)"
            " + tf.compat.v1.losses.get_regularization_loss()")
    out = converted(program(forward=forward, loss=loss, extra=extra, run_config=NO_MODEL_DIR))
    assert "get_regularization_loss" not in out  # the loop adds model.losses (the same terms)
    assert "loss += tf.nn.scale_regularization_loss(tf.add_n(model.losses))" in out
    assert "mean_loss.update_state(loss + tf.add_n(self.model.losses) if self.model.losses else loss)" in out


def test_regularizers_without_a_regularization_loss_block():
    forward = '''
    net = tf.compat.v1.layers.dense(features["x"], 8, kernel_regularizer=tf.keras.regularizers.l2(0.01))
    for i in range(2):
        net = tf.nn.relu(fc(net, 8, "block%d" % i))
    logits = fc(net, 1, "out")
    '''
    result = blocked(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert "TFM502" not in codes(result)  # (the shim refuses it: TF1 did not train on the regularization loss)


def test_random_ops_in_the_forward_pass_block_precisely():
    forward = LOOP_FORWARD.replace('    logits = fc(net, 1, "out")',
                                   '    net = tf.nn.dropout(net, rate=0.5)\n    logits = fc(net, 1, "out")')
    result = blocked(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert "TFM502" not in codes(result)  # (the shim refuses random ops: the native blocker is reported)


def test_tf_contrib_in_the_forward_pass_blocks_precisely():
    forward = LOOP_FORWARD.replace('    logits = fc(net, 1, "out")',
                                   '    logits = tf.contrib.layers.fully_connected(net, 1)')
    result = blocked(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert "TFM502" not in codes(result)


def test_resuming_from_model_dir_restores_by_tf1_name_on_tf_keras():
    out = converted(program(forward=LOOP_FORWARD, extra=FC))
    restore = section(out, "    def restore_model_dir(", "    @staticmethod")
    # tf_keras: optimizers have no `built`, variables no `path` (their name is the full TF1 name)
    assert "optimizer.built" not in out and "weight.path" not in out and "_get_variable_index" not in out
    assert 'not getattr(optimizer, "_built", False)' in restore
    assert 'load(weight, weight.name.removesuffix(":0"))' in out
    assert 'name, index = weight.name.removesuffix(":0"), optimizer._index_dict[optimizer._var_key(weight)]' in out
    assert "self.model.restore_model_dir(self.model_dir, self.optimizer)" in out


def test_warm_start_blocks_a_shim_model():
    config = 'config = tf.estimator.RunConfig(tf_random_seed=7)'
    estimator = ('est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1}, '
                 'warm_start_from="/tmp/tf1-ckpt")')
    result = blocked(program(forward=LOOP_FORWARD, extra=FC, run_config=config, estimator=estimator))
    assert "TFM501" in codes(result)  # the native blocker stands (the shim's own reason: see the note test)


def test_target_keras_blocks_a_shim_model():
    result = blocked(program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR), target="keras")
    assert "TFM502" not in codes(result)


def test_a_forward_pass_with_two_outputs_keeps_the_native_blocker():
    forward = LOOP_FORWARD + "hidden = net\n"
    loss = "loss = tf.compat.v1.losses.mean_squared_error(labels, logits) + tf.reduce_sum(hidden) * 0.0"
    result = blocked(program(forward=forward, loss=loss, extra=FC, run_config=NO_MODEL_DIR))
    assert "TFM502" not in codes(result)  # `hidden` and `logits` leave the forward pass: the native blocker stands


def test_evaluation_updates_the_metrics_of_a_shim_model():
    # the shim's evaluation step adds model.losses to the loss; it updated no metric before (mae = 0 at evaluation)
    spec = ('return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, '
            'eval_metric_ops={"mae": tf.compat.v1.metrics.mean_absolute_error(labels, logits)})')
    out = converted(program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR, spec=spec))
    step = section(out, "        def eval_step(features, labels):", "        for features, labels in dataset:")
    assert "mean_loss.update_state(loss + tf.add_n(self.model.losses) if self.model.losses else loss)" in step
    assert "for metric in self.metrics:\n                metric.update_state(labels, outputs)" in step
