"""Import-alias permutations of one Estimator program must migrate to the same code, modulo the alias names."""
from __future__ import annotations

import ast
import re

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from _helpers import dotted_names, rewrite, section, unbound_names

TEMPLATE = '''\
HEADER


def train_input_fn():
    ds = TF2.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1]))
    ds = ds.batch(1)
    return ds.repeat()


def eval_input_fn():
    ds = TF2.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1]))
    return ds.batch(1)


def model_fn(features, labels, mode, params):
    x = features["x"]
    net = LAYERS.dense(x, params["units"], activation=TF2.nn.relu)
    net = LAYERS.dropout(net, rate=0.1, training=mode == EST.ModeKeys.TRAIN)
    logits = LAYERS.dense(net, 3, kernel_initializer=V1.zeros_initializer())
    predictions = {"classes": TF2.argmax(logits, 1)}
    if mode == EST.ModeKeys.PREDICT:
        return EST.EstimatorSpec(mode, predictions=predictions)
    loss = V1.losses.sparse_softmax_cross_entropy(labels, logits)
    metrics = {"accuracy": V1.metrics.accuracy(labels, predictions["classes"])}
    if mode == EST.ModeKeys.EVAL:
        return EST.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    rate = V1.train.exponential_decay(params["lr"], V1.train.get_global_step(), 100, 0.5)
    optimizer = V1.train.AdamOptimizer(rate)
    train_op = optimizer.minimize(loss, global_step=V1.train.get_global_step())
    return EST.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    V1.logging.set_verbosity(V1.logging.INFO)
    config = EST.RunConfig(model_dir="/tmp/m", tf_random_seed=1, save_checkpoints_steps=5)
    est = EST.Estimator(model_fn=model_fn, config=config, params={"units": 8, "lr": 0.01})
    train_spec = EST.TrainSpec(input_fn=train_input_fn, max_steps=10)
    eval_spec = EST.EvalSpec(input_fn=eval_input_fn, steps=1)
    EST.train_and_evaluate(est, train_spec, eval_spec)


if __name__ == "__main__":
    main()
'''

NAMES = ["tf", "tf1", "tfv1", "T", "v1", "compat", "tfc", "lyr", "estimator", "layers", "E", "L", "tf_est"]


@st.composite
def variants(draw):
    """(program, alias names that refer to TensorFlow modules, alias names that must disappear)."""
    v1_mode = draw(st.sampled_from(["full", "import", "only_v1", "module_alias"]))
    est_from = draw(st.booleans())
    layers_from = draw(st.booleans())
    a = draw(st.sampled_from(["tf", "tensorflow", *NAMES]))
    b, v, y, z = draw(st.lists(st.sampled_from([n for n in NAMES if n != a]), min_size=4, max_size=4, unique=True))
    header = []
    tf_aliases = set()
    if v1_mode != "only_v1":
        header.append("import tensorflow" if a == "tensorflow" else f"import tensorflow as {a}")
        tf_aliases.add(a)
        tf2 = a
    if v1_mode == "full":
        v1 = f"{a}.compat.v1"
    elif v1_mode in ("import", "only_v1"):
        header.append(f"import tensorflow.compat.v1 as {b}")
        tf_aliases.add(b)
        v1 = b
        if v1_mode == "only_v1":
            tf2 = b
    else:
        header.append(f"{v} = {a}.compat.v1")
        tf_aliases.add(v)
        v1 = v
    gone = set()
    if est_from:
        header.append("from tensorflow import estimator" + ("" if y == "estimator" else f" as {y}"))
        est, gone = y, gone | {y}
    else:
        est = f"{tf2}.estimator"
    if layers_from:
        header.append("from tensorflow.compat.v1 import layers" + ("" if z == "layers" else f" as {z}"))
        lay, gone = z, gone | {z}
    else:
        lay = f"{v1}.layers"
    src = TEMPLATE.replace("HEADER", "\n".join(header))
    for token, value in (("TF2", tf2), ("V1", v1), ("EST", est), ("LAYERS", lay)):
        src = re.sub(rf"\b{token}\b", value, src)
    return src, tf_aliases - gone, gone


def normalise(text: str, aliases: set[str]) -> str:
    for alias in sorted(aliases, key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(alias)}\.", "tf.", text)
    return text


def migrated_code(text: str) -> str:
    """The generated model/training code, from `class Model` to the end of main(), layout-normalised."""
    return ast.unparse(ast.parse(section(text, "class Model(", 'if __name__ == "__main__"')))


REFERENCE_SRC = re.sub(r"\bLAYERS\b", "tf.compat.v1.layers", re.sub(r"\bV1\b", "tf.compat.v1", TEMPLATE.replace(
    "HEADER", "import tensorflow as tf").replace("TF2.", "tf.").replace("EST.", "tf.estimator.")))


def _reference() -> str:
    result = rewrite(REFERENCE_SRC)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    return migrated_code(result.output.decode())


REFERENCE = _reference()
# no shrinking: the variants are already small, and a failing rule would otherwise cost a minute of shrinking
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    phases=[Phase.explicit, Phase.generate], derandomize=True, database=None)


def header(src: str) -> str:
    return "import header:\n" + src.split("\n\n\n")[0]


def test_reference_is_sane():
    assert "class Model(keras.Model):" in REFERENCE and "def build_model(" in REFERENCE
    assert "keras.optimizers.schedules.ExponentialDecay(" in REFERENCE
    assert "kernel_initializer='zeros'" in REFERENCE


@SETTINGS
@given(variants())
def test_alias_permutations_migrate_the_same(variant):
    src, aliases, gone = variant
    result = rewrite(src)
    assert result.status == "changed", (header(src), result.error, [d.format() for d in result.diagnostics])
    out = result.output.decode()
    compile(out, "alias.py", "exec", dont_inherit=True)
    assert migrated_code(normalise(out, aliases)) == REFERENCE, header(src)
    roots = {name.split(".")[0] for name in dotted_names(out)}
    assert not (roots & gone), f"aliases {sorted(roots & gone)} should have been removed with their imports"
    assert "compat.v1.layers" not in out and "import keras" in out
    again = rewrite(out)
    assert again.status in ("unchanged", "skipped"), (header(src), again.error, [d.format() for d in again.diagnostics])


@SETTINGS
@given(variants())
def test_alias_permutations_bind_every_name_they_use(variant):
    src, _, _ = variant
    out = rewrite(src).output.decode()
    assert not unbound_names(out), f"uses unbound {sorted(unbound_names(out))}; {header(src)}"
