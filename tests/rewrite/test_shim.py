"""TFM502: model_fn forward passes the native interpreter blocks on, kept as written under TF's model-mapping shim
(rules/planners/shim.py): which path is chosen, the note, the blockers."""
from __future__ import annotations

from _helpers import TRAIN_AND_EVALUATE, blocked, codes, converted, program, rewrite, section

NO_MODEL_DIR = 'config = tf.estimator.RunConfig(tf_random_seed=7)'

FC = '''
def fc(inputs, units, name):
    with tf.compat.v1.variable_scope(name):
        w = tf.compat.v1.get_variable("weights", [inputs.shape[-1], units])
        b = tf.compat.v1.get_variable("biases", [units], initializer=tf.compat.v1.zeros_initializer())
        return tf.matmul(inputs, w) + b
'''

def shim_note(result, line=None) -> str:
    """The one TFM502 note of a blocked result (why the shim could not convert the model_fn either), next to the
    native TFM501 error."""
    errors = [d for d in result.diagnostics if d.severity == "error"]
    notes = [d for d in result.diagnostics if d.code == "TFM502"]
    assert errors and all(d.code != "TFM502" for d in errors), [d.format() for d in result.diagnostics]
    assert len(notes) == 1 and notes[0].severity == "note", [d.format() for d in result.diagnostics]
    assert notes[0].message.startswith("the model-mapping shim cannot convert this model_fn either: ")
    assert line is None or notes[0].line == line, notes[0].format()
    return notes[0].message


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
    assert "the native conversion stopped at: fc() builds layers and is called inside an expression" in notes[0]


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
    # with each example's loss: the step's loss is TF1's (and what verify records), 1/replicas of it per replica
    assert "loss = tf.nn.compute_average_loss(losses + tf.add_n(model.losses) if model.losses else losses)" in out
    assert "scale_regularization_loss" not in out
    assert "mean_loss.update_state(loss + tf.add_n(self.model.losses) if self.model.losses else loss)" in out


def test_regularizers_without_a_regularization_loss_block():
    forward = '''
    net = tf.compat.v1.layers.dense(features["x"], 8, kernel_regularizer=tf.keras.regularizers.l2(0.01))
    for i in range(2):
        net = tf.nn.relu(fc(net, 8, "block%d" % i))
    logits = fc(net, 1, "out")
    '''
    result = blocked(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert "TFM101" in codes(result)  # the native blocker (a regularizer), and the shim's reason as a note
    assert "the loss adds no regularization loss: TF1 did not train on it" in shim_note(result)


def test_random_ops_in_the_forward_pass_block_precisely():
    forward = LOOP_FORWARD.replace('    logits = fc(net, 1, "out")',
                                   '    net = tf.nn.dropout(net, rate=0.5)\n    logits = fc(net, 1, "out")')
    result = blocked(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert "tf.nn.dropout draws random numbers" in shim_note(result, line=25)


def test_tf_contrib_in_the_forward_pass_blocks_precisely():
    forward = LOOP_FORWARD.replace('    logits = fc(net, 1, "out")',
                                   '    logits = tf.contrib.layers.fully_connected(net, 1)')
    result = blocked(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert "tf.contrib.layers.fully_connected is not run under the model-mapping shim" in shim_note(result, line=25)


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
    assert "warm_start_from is not converted for it yet" in shim_note(result)


def test_target_keras_blocks_a_shim_model():
    result = blocked(program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR), target="keras")
    assert "use --target ctl (what --target auto picks for it)" in shim_note(result)


def test_a_forward_pass_with_two_outputs_keeps_the_native_blocker():
    forward = LOOP_FORWARD + "hidden = net\n"
    loss = "loss = tf.compat.v1.losses.mean_squared_error(labels, logits) + tf.reduce_sum(hidden) * 0.0"
    result = blocked(program(forward=forward, loss=loss, extra=FC, run_config=NO_MODEL_DIR))
    assert "the forward pass hands `logits`, `net` to the rest of the model_fn" in shim_note(result)


def test_evaluation_updates_the_metrics_of_a_shim_model():
    # the shim's evaluation step adds model.losses to the loss; it updated no metric before (mae = 0 at evaluation)
    spec = ('return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, '
            'eval_metric_ops={"mae": tf.compat.v1.metrics.mean_absolute_error(labels, logits)})')
    out = converted(program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR, spec=spec))
    step = section(out, "        def eval_step(features, labels):", "        for features, labels in dataset:")
    assert "mean_loss.update_state(loss + tf.add_n(self.model.losses) if self.model.losses else loss)" in step
    assert "for metric in self.metrics:\n                metric.update_state(labels, outputs)" in step


BN_HELPER = '''
def dense_bn(x, units, training, name):
    with tf.compat.v1.variable_scope(name):
        x = tf.compat.v1.layers.dense(x, units, use_bias=False)
        return tf.nn.relu(tf.compat.v1.layers.batch_normalization(x, training=training))
'''
BN_FORWARD = '''
is_training = mode == tf.estimator.ModeKeys.TRAIN
net = features["x"]
for i in range(2):
    net = dense_bn(net, 8, is_training, "hidden%d" % i)
logits = tf.compat.v1.layers.dense(net, 1)
'''
UPDATE_OPS_MINIMIZE = '''
update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
'''


def test_batch_norm_with_update_ops_runs_under_the_shim_with_training_from_mode():
    out = converted(program(forward=BN_FORWARD, extra=BN_HELPER, minimize=UPDATE_OPS_MINIMIZE,
                            run_config=NO_MODEL_DIR))
    call = section(out, "    @tf.compat.v1.keras.utils.track_tf1_style_variables", "        return logits")
    assert "is_training = training" in call
    # the helper and the forward pass keep tf.compat.v1.layers as written (tf_keras runs them under the shim)
    assert "tf.compat.v1.layers.batch_normalization(x, training=training)" in out
    assert "logits = tf.compat.v1.layers.dense(net, 1)" in call
    assert "UPDATE_OPS" not in out


def test_batch_norm_without_update_ops_blocks_the_shim():
    # TF1 never updated the moving averages; tf_keras would in every training call
    result = blocked(program(forward=BN_FORWARD, extra=BN_HELPER, run_config=NO_MODEL_DIR))
    assert "and the train op does not run UPDATE_OPS" in shim_note(result, line=7)


def test_a_keras_batch_norm_layer_blocks_the_shim():
    helper = BN_HELPER.replace("tf.compat.v1.layers.batch_normalization(x, training=training)",
                               "tf.keras.layers.BatchNormalization()(x, training=training)")
    result = blocked(program(forward=BN_FORWARD, extra=helper, minimize=UPDATE_OPS_MINIMIZE, run_config=NO_MODEL_DIR))
    assert "Keras layers and RNN cells built inside the shim's call are not checked" in shim_note(result, line=7)


def test_tf1_namespace_layers_in_the_shim_become_compat_v1_and_stay_blocked_elsewhere():
    src = program(forward=LOOP_FORWARD.replace('logits = fc(net, 1, "out")', 'logits = tf.layers.dense(net, 1)'),
                  extra=FC + '''
def unrelated(x):
    return tf.compat.v1.layers.dense(x, 3)
''', run_config=NO_MODEL_DIR, drive="print(unrelated)\n" + TRAIN_AND_EVALUATE)
    result = blocked(src)  # outside the shim's code, tf.compat.v1.layers has no TF2 meaning
    assert [(d.code, d.line) for d in result.diagnostics if d.severity == "error"] == [("TFM001", 11)]
    out = converted(src.replace("    return tf.compat.v1.layers.dense(x, 3)\n", "    return x\n"))
    assert "logits = tf.compat.v1.layers.dense(net, 1)" in out  # tf.layers (TF 1.x namespace) as compat.v1


def test_a_file_that_imports_os_gets_only_the_environment_line():
    out = converted("import os\n" + program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR))
    assert out.startswith('import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"  # Keras 2 (tf_keras): the '
                          'model-mapping shim is not in Keras 3\nimport tensorflow as tf\nimport tf_keras as keras\n')


def test_a_variable_making_helper_inside_an_expression_is_not_converted_natively():
    # natively `tf.nn.relu(fc(...))` kept fc() as a plain call: in TF2 its get_variable makes new, untrained
    # variables on every call. The native path now stops there and the shim runs it as written
    forward = 'net = tf.nn.relu(fc(features["x"], 4, "layer0"))\nlogits = tf.compat.v1.layers.dense(net, 1)\n'
    result = rewrite(program(forward=forward, extra=FC, run_config=NO_MODEL_DIR))
    assert result.status == "changed"
    notes = [d.message for d in result.diagnostics if d.code == "TFM502"]
    assert notes and "fc() builds layers and is called inside an expression" in notes[0]
    assert "@tf.compat.v1.keras.utils.track_tf1_style_variables" in result.output.decode()


def test_the_whole_forward_pass_is_inside_the_re_entered_scope_when_the_model_stays_text():
    # a model whose code needs no TF name rewritten is kept as text: the forward pass was spliced in at the
    # native placeholder's depth, its second statement outside the `with` (no TF1 names, wrong variables)
    extra = '''
def tower(inputs):
    for _ in range(2):
        inputs = tf.compat.v1.layers.dense(inputs, 4)
    return inputs
'''
    out = converted(program(forward='x = features["x"]\nlogits = tower(x) * 2.0\n', extra=extra,
                            run_config=NO_MODEL_DIR))
    call = section(out, "    @tf.compat.v1.keras.utils.track_tf1_style_variables", "        return logits")
    assert call.endswith('            x = features["x"]\n            logits = tower(x) * 2.0\n'), call


def test_explain_says_native_or_shim_per_model_and_why(tmp_path):
    from pathlib import Path

    from tfmigrate.engine import Options, explain_paths

    shimmed, native = tmp_path / "shimmed.py", tmp_path / "native.py"
    shimmed.write_text(program(forward=LOOP_FORWARD, extra=FC, run_config=NO_MODEL_DIR))
    native.write_text(program(run_config=NO_MODEL_DIR))
    plans = {Path(p["model_fn"].rpartition(" at ")[2]).name.split(":")[0]: p
             for p in explain_paths([shimmed, native], Options()) if "model_fn" in p}
    assert plans["shimmed.py"]["forward_pass"] == {
        "style": "shim", "helpers kept as written": ["fc"],
        "why": "fc() builds layers and is called inside an expression: not converted; assign its result first "
               "(`x = fc(...)`)"}
    assert plans["shimmed.py"]["target"] == "ctl"
    assert plans["native.py"]["forward_pass"] == {"style": "native"}
