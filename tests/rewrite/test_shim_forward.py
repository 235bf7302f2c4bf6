"""TFM502: forward-pass shapes the native interpreter refuses and the model-mapping shim keeps as written
(rules/planners/shim.py): mode-dependent statements, input_layer over indicator / embedding columns; and what
still blocks, with where and why."""
from __future__ import annotations

from _helpers import blocked, converted, program, rewrite, section

NO_MODEL_DIR = 'config = tf.estimator.RunConfig(tf_random_seed=7)'
UPDATE_OPS_MINIMIZE = '''\
update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())'''
PARAMS = 'est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"bn": True})'

FLAG_IN_A_MODE_BRANCH = '''
if mode == tf.estimator.ModeKeys.TRAIN:
    train_phase = True
else:
    train_phase = False
net = features["x"]
for i, units in enumerate([8, 4]):
    net = tf.compat.v1.layers.dense(net, units, name="fc%d" % i)
    if params["bn"]:
        net = tf.compat.v1.layers.batch_normalization(net, training=train_phase, name="bn%d" % i)
logits = tf.compat.v1.layers.dense(net, 1, name="out")
'''


def _program(forward: str, **kw) -> str:
    return program(forward=forward, minimize=UPDATE_OPS_MINIMIZE, run_config=NO_MODEL_DIR, estimator=PARAMS, **kw)


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def _call(out: str) -> str:
    return section(out, "    @tf.compat.v1.keras.utils.track_tf1_style_variables", "class ModelTrainer")


def test_a_training_flag_set_in_a_mode_branch_and_a_static_if_in_a_loop_run_in_the_shims_call():
    result = rewrite(_program(FLAG_IN_A_MODE_BRANCH))
    call = _call(result.output.decode())
    # `mode == TRAIN` is the Keras training flag; the static `if` on params is kept as written
    assert "if training:\n                train_phase = True\n            else:\n                train_phase = False" in call
    assert 'if params["bn"]:' in call and "training=train_phase" in call and "ModeKeys" not in call
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert note.severity == "note" and "the native conversion stopped at: if statement inside a forward loop" in note.message


def test_a_forward_statement_under_if_mode_train_runs_in_training_calls_only():
    forward = '''
net = tf.compat.v1.layers.dense(features["x"], 8, name="fc0")
if mode == tf.estimator.ModeKeys.TRAIN:
    net = tf.compat.v1.layers.batch_normalization(net, training=True, name="bn")
else:
    net = tf.compat.v1.layers.batch_normalization(net, training=False, name="bn")
logits = tf.compat.v1.layers.dense(net, 1, name="out")
'''
    call = _call(converted(_program(forward)))
    assert "if training:" in call and "ModeKeys" not in call


def test_a_forward_test_on_eval_or_predict_blocks_the_shim_too():
    # the shim's call knows `training` only: EVAL and PREDICT are one case for it
    forward = '''
net = tf.compat.v1.layers.dense(features["x"], 8, name="fc0")
if mode != tf.estimator.ModeKeys.PREDICT:
    net = net * 2.0
logits = tf.compat.v1.layers.dense(net, 1, name="out")
'''
    src = _program(forward)
    result = blocked(src)
    [error] = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "TFM501" and "changes the forward pass between EVAL and PREDICT" in error.message
    assert error.line == _line(src, "if mode != tf.estimator.ModeKeys.PREDICT:")


def test_a_mode_branch_that_returns_ends_the_forward_pass():
    forward = FLAG_IN_A_MODE_BRANCH.replace("    train_phase = False", "    train_phase = False\n    logits = None")
    forward = forward.replace("else:\n", "elif mode == tf.estimator.ModeKeys.PREDICT:\n    return None\nelse:\n", 1)
    result = blocked(_program(forward))
    assert any(d.severity == "error" for d in result.diagnostics)
    assert "track_tf1_style_variables" not in (result.output or b"").decode()


COLUMNS = '''
color = tf.feature_column.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
user = tf.feature_column.categorical_column_with_identity("user", 4)
columns = [tf.feature_column.numeric_column("x", shape=[2]), tf.feature_column.indicator_column(color),
           tf.feature_column.embedding_column(user, 3)]
'''


def test_input_layer_over_indicator_and_embedding_columns_runs_under_the_shim():
    forward = COLUMNS + '''
net = tf.compat.v1.feature_column.input_layer(features, columns)
for units in [8, 4]:
    net = tf.compat.v1.layers.dense(net, units, activation=tf.nn.relu)
logits = tf.compat.v1.layers.dense(net, 1)
'''
    # auto converts it natively since issue 27 (the generated TF1InputLayer); --style shim keeps it as written
    assert "TF1InputLayer()" in converted(program(forward=forward, run_config=NO_MODEL_DIR))
    result = rewrite(program(forward=forward, run_config=NO_MODEL_DIR), style="shim")
    call = _call(result.output.decode())
    assert "net = tf.compat.v1.feature_column.input_layer(features, columns)" in call
    assert "tf.feature_column.embedding_column(user, 3)" in call


def test_input_layer_over_a_column_the_shims_fixtures_do_not_run_blocks_with_where():
    forward = '''
bucket = tf.feature_column.bucketized_column(tf.feature_column.numeric_column("x"), [0.0, 1.0])
net = tf.compat.v1.feature_column.input_layer(features, [tf.feature_column.indicator_column(
    tf.feature_column.categorical_column_with_identity("user", 4)), bucket])
logits = tf.compat.v1.layers.dense(net, 1)
'''
    src = program(forward=forward, run_config=NO_MODEL_DIR)
    result = blocked(src, style="shim")  # (auto converts it natively since issue 27)
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "tf.feature_column.bucketized_column in the forward pass is not verified" in note.message
    assert note.line == _line(src, "bucket = ")


def test_keras_layers_built_in_a_loop_in_the_model_fn_block_with_the_shims_reason():
    forward = '''
net = features["x"]
for units in [8, 4]:
    net = tf.keras.layers.Dense(units, activation="relu")(net)
logits = tf.keras.layers.Dense(1)(net)
'''
    src = program(forward=forward, run_config=NO_MODEL_DIR)
    result = blocked(src, style="shim")
    [error] = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "TFM502" and "tf.keras.layers.Dense in the forward pass" in error.message
    assert error.line == _line(src, "net = tf.keras.layers.Dense(units")


def test_hyperparameters_read_in_the_forward_pass_and_by_the_optimizer_are_computed_for_both():
    helper = '''
def fc(inputs, units, name):
    with tf.compat.v1.variable_scope(name):
        w = tf.compat.v1.get_variable("weights", [inputs.shape[-1], units])
        return tf.matmul(inputs, w)
'''
    forward = '''
learning_rate = params["lr"]
units = params["units"]
net = features["x"]
for i in range(2):
    net = tf.nn.relu(fc(net, units, "layer%d" % i))
logits = fc(net, 1, "out")
'''
    src = program(forward=forward, extra=helper, run_config=NO_MODEL_DIR,
                  optimizer="optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)",
                  estimator='est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1, "units": 4})')
    out = converted(src)
    call = _call(out)
    assert 'learning_rate = params["lr"]' in call and 'units = params["units"]' in call
    assert 'keras.optimizers.SGD(learning_rate=params["lr"])' in out


def test_a_weight_the_rest_of_the_model_fn_reads_still_blocks_with_the_names():
    forward = '''
w = tf.compat.v1.get_variable("w", [2, 1])
net = features["x"]
for i in range(2):
    net = tf.compat.v1.layers.dense(net, 4, name="fc%d" % i)
logits = tf.matmul(net, tf.ones([4, 2])) @ w
'''
    src = program(forward=forward, run_config=NO_MODEL_DIR, loss="loss = tf.compat.v1.losses.mean_squared_error("
                  "labels, logits) + 0.01 * tf.nn.l2_loss(w)")
    result = blocked(src, style="shim")
    [error] = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "TFM502" and "the forward pass hands `net`, `w` to the rest" in error.message


def test_del_of_unused_model_fn_arguments_is_not_forward_code():
    """`del config` above a forward pass the shim keeps: dropped as the native interpreter drops it (the shim's
    call never sees the RunConfig), not 'the forward pass reads config'."""
    src = _program("del config\n" + FLAG_IN_A_MODE_BRANCH, signature="features, labels, mode, params, config")
    out = converted(src)
    assert "del config" not in out
    assert "batch_normalization(net, training=train_phase" in _call(out)
