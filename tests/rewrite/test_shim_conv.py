"""TFM502: conv nets under the model-mapping shim (rules/planners/shim.py, fixtures/shim_conv_net):
tf.compat.v1.layers conv2d / max_pooling2d / flatten under variable scopes built again with reuse=True or
AUTO_REUSE, tf.contrib.layers.flatten (no variables: the same op as tf.compat.v1.layers.flatten), and what still
blocks, naming the call."""
from __future__ import annotations

from _helpers import blocked, converted, program, rewrite, section

NO_MODEL_DIR = 'config = tf.estimator.RunConfig(tf_random_seed=7)'

REUSED_TOWER = '''
def tower(images, reuse):
    with tf.compat.v1.variable_scope("tower", reuse=reuse):
        x = tf.reshape(images, [-1, 4, 4, 1])
        x = tf.compat.v1.layers.conv2d(x, 2, 3, activation=tf.nn.relu)
        x = tf.compat.v1.layers.max_pooling2d(x, 2, 1)
        x = FLATTEN(x)
        out = tf.compat.v1.layers.dense(x, 4)
    return out
'''
FORWARD = '''
left = tower(features["x"], reuse=False)
right = tower(features["x"] * 2.0, reuse=True)
with tf.compat.v1.variable_scope("head", reuse=tf.compat.v1.AUTO_REUSE):
    logits = tf.compat.v1.layers.dense(tf.concat([left, right], axis=1), 1)
'''


def _program(flatten: str = "tf.compat.v1.layers.flatten", forward: str = FORWARD) -> str:
    return program(forward=forward, run_config=NO_MODEL_DIR, extra=REUSED_TOWER.replace("FLATTEN", flatten))


def _call(out: str) -> str:
    return section(out, "    @tf.compat.v1.keras.utils.track_tf1_style_variables", "class ModelTrainer")


def test_a_conv_tower_built_twice_under_a_reused_variable_scope_runs_under_the_shim():
    out = converted(_program())
    call = _call(out)
    # as written: TF1's reuse is what the shim's variable store gives (the same variables, by TF1 name)
    assert 'right = tower(features["x"] * 2.0, reuse=True)' in call
    assert 'with tf.compat.v1.variable_scope("head", reuse=tf.compat.v1.AUTO_REUSE):' in call
    assert "x = tf.compat.v1.layers.conv2d(x, 2, 3, activation=tf.nn.relu)" in out
    assert "x = tf.compat.v1.layers.max_pooling2d(x, 2, 1)" in out


def test_a_reused_variable_scope_in_the_model_fn_itself_is_a_native_blocker_the_shim_converts():
    forward = '''
with tf.compat.v1.variable_scope("net"):
    a = tf.compat.v1.layers.dense(features["x"], 4, name="fc")
with tf.compat.v1.variable_scope("net", reuse=True):
    b = tf.compat.v1.layers.dense(features["x"] * 2.0, 4, name="fc")
logits = tf.compat.v1.layers.dense(a + b, 1, name="out")
'''
    result = rewrite(program(forward=forward, run_config=NO_MODEL_DIR))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "the native conversion stopped at: variable_scope(reuse=...) is not converted" in note.message


def test_contrib_flatten_is_not_said_to_create_variables_and_runs_as_compat_v1_flatten_under_the_shim():
    src = _program("tf.contrib.layers.flatten")
    native = blocked(src, style="native")
    [error] = [d for d in native.diagnostics if "contrib.layers.flatten" in d.message]
    assert "creates variables" not in error.message
    assert "TF 2 has no tf.contrib (it creates no variables; tf.compat.v1.layers.flatten is the same op)" in error.message
    out = converted(src)
    assert "x = tf.compat.v1.layers.flatten(x)" in out and "contrib" not in out


def test_contrib_flatten_with_more_than_its_input_blocks_naming_the_call():
    src = program(forward='''
x = tf.reshape(features["x"], [-1, 4, 4, 1])
with tf.compat.v1.variable_scope("net", reuse=tf.compat.v1.AUTO_REUSE):
    x = tf.contrib.layers.flatten(x, scope="flat")
    logits = tf.compat.v1.layers.dense(x, 1)
''', run_config=NO_MODEL_DIR)
    result = blocked(src)
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "tf.contrib.layers.flatten with arguments besides its input is not converted under the shim" in note.message


def test_dropout_in_a_reused_conv_tower_runs_under_the_shim_with_a_note_to_compare_statistically():
    src = _program(forward=FORWARD.replace(
        'right = tower', 'left = tf.compat.v1.layers.dropout(left, rate=0.5, training=mode == '
                         'tf.estimator.ModeKeys.TRAIN)\nright = tower'))
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert "left = tf.compat.v1.layers.dropout(left, rate=0.5, training=training)" in _call(result.output.decode())
    [note] = [d for d in result.diagnostics if d.code == "TFM502" and "random stream" in d.message]
    assert "tf.layers.dropout under the shim draws its masks from TF2's random stream" in note.message
    assert "not stepwise-comparable" in note.message and "tfmigrate verify --statistical" in note.message


def test_other_random_ops_in_the_forward_pass_still_block_naming_the_call():
    src = _program(forward=FORWARD.replace('right = tower', 'left = left + tf.random.normal([4])\nright = tower'))
    result = blocked(src)
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "tf.random.normal draws random numbers" in note.message


def test_a_model_helper_given_the_mode_says_why_the_shim_cannot_hold_it():
    helper = '''
def net(x, mode):
    with tf.compat.v1.variable_scope("net"):
        w = tf.compat.v1.get_variable("w", [1, 1])
        out = tf.matmul(x, w)
        if mode == tf.estimator.ModeKeys.TRAIN:
            out = out * 1.0
        return out
'''
    src = program(forward='logits = net(features["x"], mode)\n', run_config=NO_MODEL_DIR, extra=helper)
    result = blocked(src)
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert ('`logits = net(features["x"], mode)` builds the model but reads `mode` (the shim' "'s call knows only "
            "the training flag") in note.message


SIZES = '''
def sizes(columns):
    if len(columns) < 2:
        raise ValueError("two columns at least")
    return len(columns), 4
'''


def test_static_settings_from_a_pure_module_function_stay_in_the_shims_forward_pass():
    forward = '''
n, dim = sizes(params["columns"])
with tf.compat.v1.variable_scope("net", reuse=tf.compat.v1.AUTO_REUSE):
    logits = tf.compat.v1.layers.dense(features["x"], dim * n)
    logits = tf.compat.v1.layers.dense(logits, 1)
'''
    src = program(forward=forward, run_config=NO_MODEL_DIR, extra=SIZES,
                  estimator='est = tf.estimator.Estimator(model_fn=model_fn, config=config, '
                            'params={"columns": ["a", "b"]})')
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert 'n, dim = sizes(params["columns"])' in _call(result.output.decode())


def test_a_setting_from_a_module_function_calling_tensorflow_is_not_a_setting():
    forward = '''
n, dim = sizes(params["columns"])
logits = tf.compat.v1.layers.dense(features["x"], dim * n)
'''
    src = program(forward=forward, run_config=NO_MODEL_DIR, extra=SIZES.replace("return len(columns), 4",
                                                                              "return len(columns), tf.constant(4)"),
                  estimator='est = tf.estimator.Estimator(model_fn=model_fn, config=config, '
                            'params={"columns": ["a", "b"]})')
    result = blocked(src)
    assert not [d for d in result.diagnostics if d.code == "TFM502"]  # the shim is not tried for it
    assert any('statement `n, dim = sizes(params["columns"])` in model_fn is not converted' in d.message
               for d in result.diagnostics)


def test_dropout_left_at_training_false_draws_nothing_and_gets_no_note():
    src = _program(forward=FORWARD.replace('right = tower', 'left = tf.compat.v1.layers.dropout(left, 0.5)\nright = tower'))
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert not [d for d in result.diagnostics if "random stream" in d.message]


def test_a_network_built_twice_for_training_and_evaluation_blocks_naming_the_function():
    forward = '''
logits_train = tower(features["x"], reuse=False)
logits_test = tower(features["x"], reuse=True)
'''
    src = program(forward=forward, run_config=NO_MODEL_DIR, extra=REUSED_TOWER.replace("FLATTEN", "tf.compat.v1.layers.flatten"),
                  loss="loss = tf.compat.v1.losses.mean_squared_error(labels, logits_train + 0.0 * logits_test)")
    result = blocked(src, style="shim")
    [error] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "hands `logits_test`, `logits_train` to the rest" in error.message
    assert "here tower() builds the network once per output" in error.message
