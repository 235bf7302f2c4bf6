"""Network helpers: a function of the module that builds layers, called from the model_fn (`logits = net(features)`).

TF1 ran its body inside the model_fn's graph, each call building its own layers in call order; the converted model
runs its statements in `call()` (inlined, locals renamed where the model_fn uses the same name) and the helper goes
with the model_fn. Whatever else would need the helper's TF1 layers blocks, named.
"""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite, section


def prog(helpers: str, forward: str, **kw) -> str:
    return program(extra=textwrap.dedent(helpers), forward=textwrap.dedent(forward), **kw)


NET = '''
# the shared tower
def tower(inputs, units, activation=tf.nn.relu):
    """Two dense layers."""
    hidden = tf.compat.v1.layers.dense(inputs, units, activation=activation)
    return tf.compat.v1.layers.dense(hidden, 1)
'''


def test_positional_keyword_and_default_arguments_inline_in_call_order():
    out = converted(prog(NET, '''
        x = features["x"]
        logits = tower(x, units=params["units"])
        '''))
    model = section(out, "class Model", "def build_model")
    # values __init__ can see are written where the parameter was read: the layers keep constructor arguments
    assert 'self.dense = keras.layers.Dense(units=params["units"], activation=tf.nn.relu, name="dense")' in model
    assert 'self.dense_1 = keras.layers.Dense(units=1, name="dense_1")' in model
    call = section(model, "    def call", "    def predictions") if "def predictions" in model else model
    # the helper's leading comment, the marker, each parameter bound, the result assigned
    assert "# the shared tower" in call and "# tower(...), inlined" in call
    assert "inputs = x" in call and "units =" not in call and "activation =" not in call
    assert "logits = self.dense_1(hidden)" in call
    assert "def tower" not in out  # it went with the model_fn


def test_two_calls_build_two_towers_and_colliding_locals_are_renamed():
    out = converted(prog(NET, '''
        x = features["x"]
        hidden = x * 2.0
        a = tower(x, 4)
        b = tower(hidden, 4)
        logits = a + b
        '''))
    model = section(out, "class Model", "def build_model")
    for i in ("", "_1", "_2", "_3"):
        assert f'name="dense{i}"' in model  # four layers: TF1's dense, dense_1 (first call), dense_2, dense_3
    # the model_fn's own `hidden` is not overwritten by the helper's local of that name
    assert "tower_hidden = self.dense(tower_inputs)" in model or "tower_hidden = self.dense(" in model
    assert "logits = a + b" in model


def test_nested_helpers_and_the_training_flag():
    helpers = '''
    def block(x, rate, training):
        x = tf.compat.v1.layers.dense(x, 4, activation=tf.nn.relu)
        return tf.compat.v1.layers.dropout(x, rate, training=training)


    def network(features, is_training):
        net = block(features["x"], 0.0, is_training)
        return tf.compat.v1.layers.dense(net, 1)
    '''
    out = converted(prog(helpers, '''
        logits = network(features, mode == tf.estimator.ModeKeys.TRAIN)
        '''))
    assert "def block" not in out and "def network" not in out
    call = section(out, "    def call", "def build_model")
    assert "# network(...), inlined" in call and "# block(...), inlined" in call
    assert "training" in call


@pytest.mark.parametrize("forward, extra_use, words", [
    ('x = features["x"]\nlogits = tower(x, 4)\n', "print(tower)", "also used here"),
    ('x = features["x"]\nlogits = tower(x)\n', "", "does not match its parameters"),
])
def test_what_stays_blocked(forward, extra_use, words):
    src = prog(NET + "\n\n" + extra_use + "\n", forward)
    result = blocked(src)
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_a_helper_called_in_a_loop_runs_under_the_model_mapping_shim():
    # the native conversion stops there (TF1 built new layers on every call); the shim keeps it as written
    src = prog(NET, 'x = features["x"]\nfor _ in range(2):\n    x = tower(x, 4)\nlogits = x\n')
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert any(d.code == "TFM502" and "called in a loop" in d.message for d in result.diagnostics)
    assert "@tf.compat.v1.keras.utils.track_tf1_style_variables" in result.output.decode()


def test_a_blocker_inside_the_helper_points_at_the_helpers_line():
    helpers = '''
    def tower(inputs):
        while True:
            inputs = tf.compat.v1.layers.dense(inputs, 4) + tf.random.normal([4])
        return inputs
    '''
    # (random numbers: the model-mapping shim refuses it too, so the native blocker is what the user reads)
    src = prog(helpers, 'x = features["x"]\nlogits = tower(x)\n')
    result = blocked(src)
    line = src.splitlines().index("    while True:") + 1
    hits = [d for d in result.diagnostics if "while loop" in d.message]
    assert hits and hits[0].line == line and "in tower()" in hits[0].message, [d.format() for d in result.diagnostics]


def test_a_helper_without_layers_stays_a_function():
    out = converted(prog('''
    def scale(x):
        return x / 255.0
    ''', '''
        x = scale(features["x"])
        net = tf.compat.v1.layers.dense(x, 8, activation=tf.nn.relu)
        logits = tf.compat.v1.layers.dense(net, 1)
        '''))
    assert "def scale(x):" in out and 'x = scale(features["x"])' in out


def test_hyperparameters_read_into_locals_stay_constructor_arguments():
    """`units = params["units"]` then `dense(x, units)`: the layer is built in __init__, where the local does not
    exist; its value is written where it is read (assigned once, from params/module names/literals only)."""
    out = converted(program(forward='''
        # sizes
        units = params["units"]
        rate = float(params.get("lr", 0.1)) * SCALE
        x = features["x"]
        net = tf.keras.layers.Dense(units=units, activation=tf.nn.relu)(x)
        logits = tf.keras.layers.Dense(1)(net)
        ''', optimizer="optimizer = tf.compat.v1.train.GradientDescentOptimizer(rate)", extra="SCALE = 2.0\n"))
    assert 'keras.layers.Dense(units=params["units"], activation=tf.nn.relu' in out
    assert 'SGD(learning_rate=(float(params.get("lr", 0.1)) * SCALE))' in out
    assert "units = " not in section(out, "    def call", "def build_model") and "# sizes" in out


@pytest.mark.parametrize("forward", [
    # a tensor value, assigned twice, or read inside a lambda: kept as a statement (and blocked if a layer needs it)
    'units = tf.shape(features["x"])[1]\nx = features["x"]\nlogits = tf.compat.v1.layers.dense(x, units)\n',
    'units = 4\nunits = units * 2\nx = features["x"]\nlogits = tf.compat.v1.layers.dense(x, units)\n',
])
def test_values_that_are_not_static_are_not_substituted(forward):
    # the native conversion stops there (blocked, or named in the note of the model-mapping shim that runs it)
    result = rewrite(program(forward=forward))
    assert any("`units`" in d.message and (d.severity == "error" or d.code == "TFM502") for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_tuple_features_and_tuple_results_unpack_in_call():
    out = converted(program(forward='''
        words, lengths = features
        mean, variance = tf.nn.moments(words, axes=[1], keepdims=True)
        net = tf.compat.v1.layers.dense((words - mean) * tf.math.rsqrt(variance + 1e-6), 8)
        logits = tf.compat.v1.layers.dense(net, 1)
        '''))
    call = section(out, "    def call", "    def restore_model_dir")
    assert "words, lengths = features" in call and "mean, variance = tf.nn.moments(words" in call


@pytest.mark.parametrize("helpers, forward, api", [
    ("", 'x = features["x"]\nw = tf.Variable(tf.zeros([2, 1]))\nlogits = tf.matmul(x, w)\n', "tf.Variable"),
    ("", 'x = features["x"]\ncell = tf.compat.v1.nn.rnn_cell.BasicLSTMCell(3)\n'
         'outputs, _ = tf.compat.v1.nn.static_rnn(cell, [x], dtype=tf.float32)\n'
         'logits = tf.compat.v1.layers.dense(outputs[-1], 1)\n', "BasicLSTMCell"),
    ("def linear(x):\n    w = tf.compat.v1.Variable(tf.ones([2, 1]))\n    return tf.matmul(x, w)\n",
     'logits = linear(features["x"])\n', "tf.Variable"),
])
def test_variables_the_keras_model_would_not_own_block(helpers, forward, api):
    """A tf.Variable or an RNN cell created in call() would be a new, untrained variable on every call: never a
    silent conversion (the helper's own line is named when it sits in a network helper)."""
    src = prog(helpers, forward)
    result = blocked(src)
    hits = [d for d in result.diagnostics if api in d.message and "would not own" in d.message]
    assert hits and hits[0].code == "TFM811", [d.format() for d in result.diagnostics]
    if helpers:
        assert src.splitlines()[hits[0].line - 1].strip().startswith("w = tf.compat.v1.Variable")


@pytest.mark.parametrize("how", ["from trainer.nets import tower", "from trainer import nets"])
def test_a_network_helper_in_another_module_blocks_named(tmp_path, how):
    """Its TF1 layers would run inside call(), untracked: never converted silently (before, task.py converted)."""
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "nets.py").write_text("import tensorflow as tf\n\n\ndef tower(x, units):\n"
                                 "    return tf.compat.v1.layers.dense(x, units)\n")
    call = "tower" if how.endswith("tower") else "nets.tower"
    (pkg / "task.py").write_text(program(extra=how + "\n", forward=f'logits = {call}(features["x"], 1)\n'))
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    task = results["task.py"]
    assert task.status == "blocked", task.status
    assert any("in another module" in d.message and "nets.py" in d.message for d in task.diagnostics), \
        [d.format() for d in task.diagnostics]
