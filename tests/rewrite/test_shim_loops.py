"""TFM502: forward loops the native interpreter refuses (nested loops, a loop over a list the model_fn builds in
Python) run as written in the model-mapping shim's call (rules/planners/shim.py); a loop over a tensor blocks."""
from __future__ import annotations

from _helpers import blocked, program, rewrite, section

NO_MODEL_DIR = 'config = tf.estimator.RunConfig(tf_random_seed=7)'
ESTIMATOR = 'est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"sizes": "8,4", "k": 2})'

NESTED = '''
rows = tf.compat.v1.get_variable("rows", [2, 3])
parts = []
for i in range(2):
    for j in range(i, 2):
        parts.append(features["x"][:, i:i + 1] * features["x"][:, j:j + 1])
net = tf.concat(parts, 1)
logits = tf.compat.v1.layers.dense(tf.matmul(net, rows), 1, name="out")
'''
OVER_A_SETTING = '''
sizes = [int(s) for s in params["sizes"].split(",")]
net = features["x"]
for n in range(len(sizes)):
    net = tf.compat.v1.layers.dense(net, sizes[n], activation=tf.nn.relu, name="fc%d" % n)
logits = tf.compat.v1.layers.dense(net, 1, name="out")
'''


def _program(forward: str) -> str:
    return program(forward=forward, run_config=NO_MODEL_DIR, estimator=ESTIMATOR)


def _call(out: str) -> str:
    return section(out, "    @tf.compat.v1.keras.utils.track_tf1_style_variables", "class ModelTrainer")


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def test_nested_loops_in_the_forward_pass_run_in_the_shims_call():
    result = rewrite(_program(NESTED))
    assert result.status == "changed", [d.message for d in result.diagnostics]
    call = _call(result.output.decode())
    assert "for i in range(2):\n                for j in range(i, 2):\n                    parts.append(" in call
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "the native conversion stopped at: nested loops in the forward pass are not converted" in note.message


def test_a_loop_over_a_list_the_model_fn_parses_from_params_runs_in_the_shims_call():
    result = rewrite(_program(OVER_A_SETTING))
    assert result.status == "changed", [d.message for d in result.diagnostics]
    call = _call(result.output.decode())
    assert 'sizes = [int(s) for s in params["sizes"].split(",")]' in call
    assert "for n in range(len(sizes)):" in call
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "the loop runs over `sizes`" in note.message


def test_a_loop_over_a_tensor_blocks_with_the_shims_reason_at_the_loop():
    # TF1's graph could not iterate a tensor (it raised); the shim's call would loop over it: not converted
    forward = OVER_A_SETTING.replace('[int(s) for s in params["sizes"].split(",")]', 'tf.constant([8, 4])')
    src = _program(forward)
    result = blocked(src)
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "runs over `tf.constant([8, 4])`" not in note.message  # (the name, not its value)
    assert "`for n in range(len(sizes)):` in the forward pass runs over `sizes`, a tensor" in note.message
    assert note.line == _line(src, "for n in range(len(sizes)):")


def test_a_loop_over_the_features_blocks_with_the_shims_reason():
    forward = NESTED.replace("for i in range(2):", 'for i in features["x"]:')
    result = blocked(_program(forward))
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "runs over `features`, a tensor" in note.message


def test_a_loop_over_a_python_list_of_tensors_runs_in_the_shims_call():
    forward = '''
towers = [tf.compat.v1.layers.dense(features["x"], 4) for _ in range(2)]
net = towers[0]
for tower in towers[1:]:
    net = net + tower
logits = tf.compat.v1.layers.dense(net, 1, name="out")
'''
    result = rewrite(_program(forward))
    assert result.status == "changed", [d.message for d in result.diagnostics]
    assert "for tower in towers[1:]:" in _call(result.output.decode())


BLOCK_IN_A_LOOP = '''
net = {first}
for i in range(2):
    net = block(net, 4, "b%d" % i)
logits = tf.compat.v1.layers.dense(net, 1, name="out")
'''
BLOCK = '''
def block(x, units, name):
    with tf.compat.v1.variable_scope(name):
        w = tf.compat.v1.get_variable("w", [x.shape[-1], units])
        return tf.matmul(x, w)
'''


def test_a_function_of_another_module_in_the_forward_pass_blocks_the_shim_naming_it():
    # the shim checks the TF calls of the forward pass and of this module's functions it calls; an imported
    # function's body is not read (it may draw random numbers or build Keras layers): not run unchecked
    src = program(forward=BLOCK_IN_A_LOOP.format(first='towers.prep(features["x"])'), run_config=NO_MODEL_DIR,
                  estimator=ESTIMATOR, header="import tensorflow as tf\nimport towers", extra=BLOCK)
    result = blocked(src)
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "`towers.prep()` in the forward pass is defined in `towers`" in note.message
    assert note.line == _line(src, "net = towers.prep(")


def test_numpy_and_math_in_the_forward_pass_are_python_values_and_convert():
    first = 'features["x"] * float(np.sqrt(4.0)) * math.sqrt(1.0)'
    src = program(forward=BLOCK_IN_A_LOOP.format(first=first), run_config=NO_MODEL_DIR, estimator=ESTIMATOR,
                  header="import math\n\nimport numpy as np\nimport tensorflow as tf", extra=BLOCK)
    result = rewrite(src)
    assert result.status == "changed", [d.message for d in result.diagnostics]
