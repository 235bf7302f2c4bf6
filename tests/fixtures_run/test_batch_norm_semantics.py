"""The generated TF1BatchNormalization checked against TF 2.15's tf.compat.v1.layers.batch_normalization.

The legacy env runs the TF1 layer in a graph, as an Estimator did (UPDATE_OPS after every training batch); the
target env runs the class exactly as the rewrite generates it (rendered from its template) on the same batches.
Moving mean, moving variance, every training output, an inference output and the training gradients (input,
gamma, beta) must be bit-equal: fused 4-D/5-D inputs (channels last and first), fused=False on 4-D, 2-D and 3-D
non-fused ones, and other arguments. Control: keras.layers.BatchNormalization does not give TF1's moving
variance on a fused input (the cnn fixture's evaluate() difference), so the comparison can fail.
"""
from __future__ import annotations

import json
import subprocess

import pytest

from tfmigrate.rules import program
from tfmigrate.rules.planners import layers
from tfmigrate.rules.facts.calls import TF
from tfmigrate.runtime import envs

CASES = [
    ([16, 8, 8, 4], {}),  # fused NHWC (fixtures/cnn)
    ([16, 4, 8, 8], {"axis": 1}),  # fused NCHW
    ([4, 3, 4, 4, 2], {"momentum": 0.9}),  # fused NDHWC
    ([16, 8, 8, 4], {"fused": False, "epsilon": 1e-2}),  # 4-D, not fused
    ([16, 5], {}),  # 2-D: tf.nn.moments
    ([16, 6, 3], {"axis": 1, "center": False}),  # channels not last: broadcast parameters
    ([16, 6, 3], {"scale": False, "momentum": 0.5}),
]

LEGACY = r'''
import json, sys
import numpy as np
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
out = []
for index, (shape, kwargs) in enumerate(json.load(sys.stdin)):
    rng = np.random.RandomState(index)
    data = [rng.randn(*shape).astype(np.float32) * 3 + 1 for _ in range(20)]
    test = rng.randn(*shape).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape)
        y = tf.compat.v1.layers.batch_normalization(x, training=True, name="bn", **kwargs)
        infer = tf.compat.v1.layers.batch_normalization(x, training=False, name="bn", reuse=True, **kwargs)
        updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        stats = {v.op.name: v for v in tf.compat.v1.global_variables()}
        weights = sorted(tf.compat.v1.trainable_variables(), key=lambda v: v.op.name)
        cotangent = rng.randn(*shape).astype(np.float32)
        grads = tf.gradients(tf.reduce_sum(y * tf.constant(cotangent)), [x, *weights])
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            grad = [g.tolist() for g in session.run(grads, {x: data[0]})]  # before any update
            train = [session.run([y, updates], {x: batch})[0] for batch in data]
            mean, variance = session.run([stats["bn/moving_mean"], stats["bn/moving_variance"]])
            inferred = session.run(infer, {x: test})
    out.append({"data": [d.tolist() for d in data], "test": test.tolist(), "train": [t.tolist() for t in train],
                "cotangent": cotangent.tolist(), "grad": grad,
                "mean": mean.tolist(), "variance": variance.tolist(), "infer": inferred.tolist()})
print(json.dumps(out))
'''

TARGET = r'''
import json, sys
import numpy as np
import tensorflow as tf
import keras
cases, results, source = json.loads(sys.stdin.read())
exec(source)
out = []
for (shape, kwargs), want in zip(cases, results):
    row = {}
    for kind in ("generated", "keras"):
        if kind == "generated":
            layer = TF1BatchNormalization(name="bn", **kwargs)
        else:
            layer = keras.layers.BatchNormalization(name="bn", **{k: v for k, v in kwargs.items() if k != "fused"})
        first = tf.constant(np.array(want["data"][0], np.float32))
        layer.build(first.shape)
        weights = sorted(layer.trainable_weights, key=lambda w: w.path)

        @tf.function
        def gradients(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                value = tf.reduce_sum(layer(x, training=True) * tf.constant(np.array(want["cotangent"], np.float32)))
            return tape.gradient(value, [x, *weights])

        start = [w.numpy() for w in layer.weights]
        grad = [g.numpy() for g in gradients(first)]
        for w, value in zip(layer.weights, start):  # the gradient step moved the averages: undo it
            w.assign(value)
        step = tf.function(lambda x: layer(x, training=True))
        train = np.stack([step(tf.constant(np.array(d, np.float32))).numpy() for d in want["data"]])
        infer = layer(tf.constant(np.array(want["test"], np.float32)), training=False).numpy()
        same = lambda a, b: bool((np.asarray(a, np.float32) == np.asarray(b, np.float32)).all())
        row[kind] = {"mean": same(layer.moving_mean.numpy(), want["mean"]),
                     "variance": same(layer.moving_variance.numpy(), want["variance"]),
                     "train": same(train, want["train"]), "infer": same(infer, want["infer"]),
                     "grad": len(grad) == len(want["grad"]) and all(same(a, b) for a, b in zip(grad, want["grad"])),
                     "paths": sorted(w.path for w in layer.weights)}
    out.append(row)
print(json.dumps(out))
'''


def _run(env: str, script: str, payload) -> list:
    python = envs.ensure(env)
    proc = subprocess.run([str(python), "-c", script], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=600, env={"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.tfenv
def test_generated_batch_norm_is_bit_equal_to_tf1():
    source = program.template_env().get_template("canned_head.py.j2").render(part=layers.TF1_BATCH_NORM)
    results = _run("legacy", LEGACY, CASES)
    rows = _run("target", TARGET, [CASES, results, source.replace(TF, "tf")])
    for (shape, kwargs), row in zip(CASES, rows):
        generated = row["generated"]
        assert all(generated[k] for k in ("mean", "variance", "train", "infer", "grad")), (shape, kwargs, generated)
        expected = {f"bn/{name}" for name in ("moving_mean", "moving_variance")}
        expected |= {"bn/gamma"} if kwargs.get("scale", True) else set()
        expected |= {"bn/beta"} if kwargs.get("center", True) else set()
        assert set(generated["paths"]) == expected  # TF1's variable names: checkpoints and verify map by them
    # the control: Keras 3's own layer moves the variance otherwise on the fused input (Bessel, arithmetic)
    assert not rows[0]["keras"]["variance"]
