"""tf.compat.v1.train.ProximalAdagradOptimizer → the generated TF1ProximalAdagrad (TFM301/TFM620): the ApplyProximalAdagrad
kernel's ops in its order; l1/l2 over sparse columns block (the dense Keras update would shrink untouched rows).
Fixture: canned_proximal_adagrad (verify: 100/100 steps bit-equal)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.rewrite._helpers import blocked, converted, program
from tests.rewrite.test_canned import program as canned_program

from tfmigrate.rules.planners.proximal_adagrad import TF1_PROXIMAL_ADAGRAD_CLASS
from tfmigrate.runtime.envs import env_python


def _flat(text: str) -> str:
    """The code without whitespace and the formatter's trailing commas."""
    return "".join(text.split()).replace(",)", ")")


def _v1_dnn(optimizer: str, columns: str = 'tf.feature_column.numeric_column("a")') -> str:
    return canned_program(f'''
columns = [{columns}]
estimator = tf.compat.v1.estimator.DNNRegressor(
    hidden_units=[4],
    feature_columns=columns,
    optimizer={optimizer},
    model_dir="/tmp/canned",
)
estimator.train(input_fn=train_input_fn, max_steps=10)
''')


@pytest.mark.parametrize("optimizer, expect", [
    ("tf.compat.v1.train.ProximalAdagradOptimizer(0.05, l1_regularization_strength=0.01, "
     "l2_regularization_strength=0.02)",
     "TF1ProximalAdagrad(learning_rate=0.05, initial_accumulator_value=0.1, l1_regularization_strength=0.01, "
     "l2_regularization_strength=0.02)"),
    ("tf.compat.v1.train.ProximalAdagradOptimizer(0.1, 0.3, 0.001)",  # positional: initial value, l1
     "TF1ProximalAdagrad(learning_rate=0.1, initial_accumulator_value=0.3, l1_regularization_strength=0.001)"),
])
def test_canned_v1_proximal_adagrad_becomes_the_generated_update(optimizer, expect):
    text = converted(_v1_dnn(optimizer))
    assert _flat(expect) in _flat(text)
    assert "class TF1ProximalAdagrad(keras.optimizers.Optimizer):" in text
    assert "rate = lr * tf.math.rsqrt(accum)" in text


def test_model_fn_proximal_adagrad_converts():
    text = converted(program(optimizer="optimizer = tf.compat.v1.train.ProximalAdagradOptimizer("
                                       "params['lr'], l2_regularization_strength=0.5)"))
    assert _flat("TF1ProximalAdagrad(learning_rate=params['lr'], initial_accumulator_value=0.1, "
                 "l2_regularization_strength=0.5)") in _flat(text)
    assert "class TF1ProximalAdagrad(" in text


EMBEDDING = ('tf.feature_column.embedding_column('
             'tf.feature_column.categorical_column_with_hash_bucket("city", 16), 3)')


def test_l1_over_an_embedding_blocks_precisely():
    result = blocked(_v1_dnn("tf.compat.v1.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01)",
                             EMBEDDING))
    assert any(d.code == "TFM622" and "TF1ProximalAdagrad" in d.message and "city" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_without_l1_l2_an_embedding_converts():
    # zero-gradient rows stay bit-identical (prox = var, var / 1), as TF1's sparse kernel left them
    text = converted(_v1_dnn("tf.compat.v1.train.ProximalAdagradOptimizer(0.001)", EMBEDDING))
    assert _flat("TF1ProximalAdagrad(learning_rate=0.001, initial_accumulator_value=0.1)") in _flat(text)


def test_non_literal_strength_blocks():
    src = _v1_dnn("tf.compat.v1.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=L1)").replace(
        "columns = [", "L1 = 0.01\ncolumns = [")
    result = blocked(src)
    assert any("l1_regularization_strength" in d.message and "literal" in d.message for d in result.diagnostics)


def test_v2_canned_estimator_with_the_tf1_optimizer_still_names_the_v1_spelling():
    src = _v1_dnn("tf.compat.v1.train.ProximalAdagradOptimizer(0.1)").replace(
        "tf.compat.v1.estimator.DNNRegressor", "tf.estimator.DNNRegressor")
    assert any("tf.compat.v1.estimator.DNNRegressor" in d.message for d in blocked(src).diagnostics)


# ---- numerics: the generated class (TF 2.21, Keras 3) against TF 2.15's ApplyProximalAdagrad kernel -------------
_KERNEL = """
import json, sys, numpy as np, tensorflow as tf
l1, l2, steps = float(sys.argv[1]), float(sys.argv[2]), 20
rng = np.random.RandomState(0)
var = tf.Variable(rng.normal(size=(64, 33)).astype(np.float32))
acc = tf.Variable(np.full((64, 33), 0.1, np.float32))
for step in range(steps):
    g = (rng.normal(size=(64, 33)) * 10.0 ** rng.uniform(-3, 1.5, size=(64, 33))).astype(np.float32)
    tf.raw_ops.ResourceApplyProximalAdagrad(var=var.handle, accum=acc.handle, lr=tf.constant(0.05), l1=tf.constant(l1),
                                            l2=tf.constant(l2), grad=g)
print(json.dumps(var.numpy().view(np.uint32).tolist()))
"""

_GENERATED = """
import json, sys, numpy as np, tensorflow as tf, keras
{cls}
l1, l2, steps = float(sys.argv[1]), float(sys.argv[2]), 20
rng = np.random.RandomState(0)
var = tf.Variable(rng.normal(size=(64, 33)).astype(np.float32))
opt = TF1ProximalAdagrad(0.05, 0.1, l1, l2)
step_fn = tf.function(lambda g: opt.apply([g], [var]))
for step in range(steps):
    g = (rng.normal(size=(64, 33)) * 10.0 ** rng.uniform(-3, 1.5, size=(64, 33))).astype(np.float32)
    step_fn(tf.constant(g))
print(json.dumps(var.numpy().view(np.uint32).tolist()))
"""


@pytest.mark.tfenv
@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (0.01, 0.0), (0.02, 0.3), (0.0, 0.1)])
def test_generated_update_is_tf215_kernel_bit_for_bit(l1, l2):
    pythons = {e: Path(env_python(e)) for e in ("legacy", "target")}
    if not all(p.exists() for p in pythons.values()):
        pytest.skip("TF environments absent: run `tfmigrate env setup`")
    env = {"TF_CPP_MIN_LOG_LEVEL": "3", "KERAS_BACKEND": "tensorflow", "PATH": "/usr/bin:/bin"}
    runs = []
    for name, script in (("legacy", _KERNEL), ("target", _GENERATED.format(cls=TF1_PROXIMAL_ADAGRAD_CLASS))):
        done = subprocess.run([str(pythons[name]), "-c", script, str(l1), str(l2)], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        runs.append(np.array(json.loads(done.stdout.strip().splitlines()[-1]), np.uint32))
    assert (runs[0] == runs[1]).all(), f"{(runs[0] != runs[1]).sum()} of {runs[0].size} values differ"


def test_resume_from_a_tf1_model_dir_maps_the_proximal_adagrad_slot():
    # TF1 saved the accumulator as "<variable>/ProximalAdagrad"; without the mapping resuming raised ValueError
    text = converted(_v1_dnn("tf.compat.v1.train.ProximalAdagradOptimizer(0.05)"))
    slots = text[text.index("def _estimator_slots(optimizer):"):]
    assert 'if type(optimizer).__name__ == "TF1ProximalAdagrad":' in slots
    assert 'return [("_accumulators", "ProximalAdagrad", None)]' in slots


def test_other_optimizers_do_not_get_the_proximal_adagrad_slot_branch():
    text = converted(_v1_dnn("tf.compat.v1.train.AdagradOptimizer(0.05)"))
    assert "TF1ProximalAdagrad" not in text
