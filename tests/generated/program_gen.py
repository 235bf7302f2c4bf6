"""Compose whole TF1 Estimator programs from independent dimensions, for the generated rewrite tests.

A program is a `Shape`: one value per dimension in DIMENSIONS (where the Estimator is built, argument style,
config, specs, input functions, where values come from, import style, model_fn body, strategy, file layout).
Half the drawn programs use a canned estimator instead of a model_fn (CANNED_DIMENSIONS: the class, v1 or v2, the
feature-column mix, how the optimizer is given); their feature columns are module-level lists (in `trainer/model.py`
for a package) and their data has named float, string and integer features.
`render(shape)` turns it into source text: {relative path: text}, one file or a `trainer/` package.
`migrate(shape)` runs tfmigrate on it and returns an `Outcome` with everything the properties and report need.

`render(shape, runnable=True)` / `migrate(shape, runnable=True)` make a program meant to be *run* (by
test_generated_run.py through `tfmigrate verify`): it also seeds Python's `random` (TF 2.15's compat.v1 layer
initializers draw their seeds from it) and prints `final eval: ...` after training. Its data is the same small
synthetic tf.data dataset built in the program, and `--steps` / `--model_dir` reach it when `values` is argparse
or absl_flags. `runnable_problem(shape)` says why a shape cannot be run that way. The default (runnable=False)
renders exactly what the property tests have always used. `draw_shape(rng)` draws a shape with a plain
`random.Random`, under the same rules as `shapes()`, for fixed seeded samples.

Every program also holds an unrelated module constant and helper (`UNRELATED_*`) that a rewrite must leave
byte-identical; `unrelated_blocks(shape)` returns them per file.
"""
from __future__ import annotations

import ast
import dataclasses
import random
import re
import tempfile
import textwrap
from dataclasses import dataclass, field, fields
from pathlib import Path

from hypothesis import strategies as st

from tfmigrate.engine import FileResult, Options, migrate_paths, migrate_source
from tfmigrate.records import replace

# ---- dimensions ------------------------------------------------------------------------------------------------

DIMENSIONS: dict[str, tuple[str, ...]] = {
    # where the Estimator is built
    "site": ("module", "if_main", "main", "main_argv_tf1_app", "main_argv_absl_app", "build_estimator_helper",
             "trainer_method", "with_block", "try_block", "if_block"),
    "args": ("keyword", "positional"),
    "config": ("none", "assigned", "inline", "helper", "replace"),
    "specs": ("named", "inline", "helper_tuple", "train_then_evaluate"),
    # numpy: module-level tf.compat.v1.estimator.inputs.numpy_input_fn(shuffle=False) objects (drawn only without a
    # strategy: TF1 refused queue-based input under one)
    "input_fn": ("plain", "params", "mode_params", "input_context", "lambda", "partial", "closure", "numpy"),
    "values": ("argparse", "absl_flags", "constants"),
    "params": ("mapping", "dict_literal"),  # vars(args) / FLAGS.flag_values_dict() / HPARAMS, or a {...} literal
    "imports": ("tf_compat_v1", "compat_v1_module", "rebind", "from_tensorflow_import_estimator"),
    "loss": ("mse", "sparse_softmax_ce"),
    "optimizer": ("GradientDescent", "Adagrad", "Adam"),
    "metrics": ("no", "yes"),
    "early_returns": ("no", "yes"),
    "strategy": ("none", "mirrored", "mwms_if_tf_config"),  # only drawn when there is a RunConfig to carry it
    "layout": ("single_file", "package"),
    "unrelated": ("plain", "decorated", "odd_format"),
    # predict after training (drawn only with early_returns=yes: the PREDICT branch must not build the loss,
    # which needs labels the Estimator does not pass in PREDICT mode)
    "predict": ("no", "per_example", "batches"),
    # how the model_fn builds its layers: inline; from hyperparameters read into locals first (`units =
    # params["hidden_units"]`); or through a module-level network helper it calls (`logits = network(x, ...)`); a
    # helper defined inside the model_fn; a Python `if` on params around a layer (static configuration)
    "forward": ("inline", "hparam_locals", "network_helper", "nested_helper", "static_if",
                # forward passes only the model-mapping shim converts (rules/planners/shim.py): a get_variable layer
                # helper with its own variable_scope called in a loop; a training flag set in a mode branch feeding
                # batch normalization (train op under UPDATE_OPS)
                "shim_helper_loop", "shim_mode_flag"),
    # the model_fn's signature: the Estimator passes features, labels, mode, params and config by name, so any
    # order converts (by_name: `model_fn(mode, features, params, labels)`), and `config` may be taken unused
    "signature": ("canonical", "by_name", "with_config", "del_config"),
    # which metric eval_metric_ops holds (metrics=yes): a named TF1 metric on the output, or tf.metrics.mean over a
    # value computed from the labels and the output (the generated TF1Mean)
    "metric_kind": ("named", "mean"),
    # canned estimators instead of a model_fn (then loss/optimizer/metrics/early_returns/params keep their baseline
    # values: a canned program has no model_fn). "none" marks a model_fn program in the canned dimensions.
    "estimator": (),  # "model_fn" or a canned class: filled below from CANNED_CLASSES
    "canned_version": ("none", "v2", "v1"),  # v1 = tf.compat.v1.estimator.* (also tf.estimator.* under compat.v1)
    # the feature columns: two numeric columns plus, per value, one more kind (DNN part: indicator/embedding of the
    # categorical column; linear part: the categorical column itself; crossed only in linear parts)
    "columns": ("none", "numeric", "bucketized", "indicator_vocab", "indicator_hash", "indicator_identity",
                "embedding_vocab", "embedding_hash", "embedding_identity", "crossed"),
    # how the optimizer is given (the DNN part's for wide & deep): "class" only for v2 (TF1's get_optimizer_instance
    # calls a callable without arguments, which a v1 tf.compat.v1.train class rejects)
    "canned_optimizer": ("none", "default", "string", "class", "instance", "callable"),
}

APP_RUN_SITES = ("main_argv_tf1_app", "main_argv_absl_app")
CANNED_CLASSES = ("DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor", "DNNLinearCombinedClassifier",
                  "DNNLinearCombinedRegressor", "BaselineClassifier", "BaselineRegressor")
DIMENSIONS["estimator"] = ("model_fn",) + CANNED_CLASSES
CANNED_DIMENSIONS = ("estimator", "canned_version", "columns", "canned_optimizer")
# what a canned program keeps of the model_fn dimensions
MODEL_FN_BASELINE = dict(params="dict_literal", loss="mse", optimizer="GradientDescent", metrics="no",
                         early_returns="no")


@dataclass(frozen=True)
class Shape:
    site: str
    args: str
    config: str
    specs: str
    input_fn: str
    values: str
    params: str
    imports: str
    loss: str
    optimizer: str
    metrics: str
    early_returns: str
    strategy: str
    layout: str
    unrelated: str
    predict: str = "no"
    forward: str = "inline"
    signature: str = "canonical"
    metric_kind: str = "named"
    estimator: str = "model_fn"
    canned_version: str = "none"
    columns: str = "none"
    canned_optimizer: str = "none"

    @property
    def canned(self) -> bool:
        return self.estimator != "model_fn"

    def describe(self) -> str:
        return ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))


def _pick(choose, choose_after=None) -> Shape:
    """A shape under the drawing rules, `choose(name, values)` picking each value. The strategy is drawn only when
    a RunConfig exists (config=none has nowhere to put it). Half the programs are canned: the estimator class,
    then the canned dimensions the class can take."""
    picked = {name: choose(name, values) for name, values in DIMENSIONS.items()
              if name not in ("strategy", "predict", "forward", "signature", "metric_kind", *CANNED_DIMENSIONS)}
    # est.train under a multi-worker TF_CONFIG raised in TF 2.15 itself ("Only `STANDALONE_CLIENT` mode is
    # supported"), so train-then-evaluate programs are drawn only with the strategies TF1 could run them under
    # (tests/rewrite/test_estimator_train_strategy.py: the rewrite blocks the other kind, TFM701)
    strategies = DIMENSIONS["strategy"] if picked["specs"] != "train_then_evaluate" \
        else tuple(s for s in DIMENSIONS["strategy"] if not s.startswith("mwms"))
    picked["strategy"] = "none" if picked["config"] == "none" or picked["input_fn"] == "numpy" \
        else choose("strategy", strategies)
    if choose("model", ("model_fn", "canned")) == "model_fn":
        picked["predict"] = "no" if picked["early_returns"] == "no" else choose("predict", DIMENSIONS["predict"])
        picked["forward"] = choose("forward", DIMENSIONS["forward"])
        picked["signature"] = (choose_after or choose)("signature", DIMENSIONS["signature"])
        if picked["metrics"] == "yes":  # (drawn after the others: a seed keeps its earlier programs)
            picked["metric_kind"] = (choose_after or choose)("metric_kind", DIMENSIONS["metric_kind"])
        return Shape(**picked)
    picked.update(MODEL_FN_BASELINE)
    cls = picked["estimator"] = choose("estimator", CANNED_CLASSES)
    picked["predict"] = choose("predict", DIMENSIONS["predict"])
    # tf.estimator under `import tensorflow.compat.v1 as tf` (or tf = tf.compat.v1) is the v1 namespace
    v1_only = picked["imports"] in ("compat_v1_module", "rebind")
    version = picked["canned_version"] = "v1" if v1_only else choose("canned_version", ("v2", "v1"))
    if cls.startswith("Baseline"):
        picked["columns"] = "none"
    else:
        kinds = DIMENSIONS["columns"][1:]
        if not (cls.startswith("Linear") or cls.startswith("DNNLinear")):
            kinds = tuple(k for k in kinds if k != "crossed")
        picked["columns"] = choose("columns", kinds)
    forms = DIMENSIONS["canned_optimizer"][1:]
    if version == "v1":
        forms = tuple(f for f in forms if f != "class")
    picked["canned_optimizer"] = choose("canned_optimizer", forms)
    return Shape(**picked)


@st.composite
def shapes(draw) -> Shape:
    """One program shape (see `_pick`)."""
    return _pick(lambda name, values: draw(st.sampled_from(values)))


def draw_shape(rng: random.Random) -> Shape:
    """One shape drawn with `rng`, under the rules of `shapes()`; deterministic for a seeded `random.Random`. The
    signature (a later dimension) is drawn from the shape's other values, not from `rng`: a seed keeps drawing the
    programs it drew before it was added."""
    state = rng.getstate()
    return _pick(lambda name, values: rng.choice(values),
                 lambda name, values: random.Random(hash((name, state))).choice(values))


def runnable_problem(shape: Shape) -> str | None:
    """Why `render(shape, runnable=True)` cannot be run as one single-process program with `--steps N
    --model_dir D`, or None when it can."""
    if shape.layout != "single_file":
        return "layout=package: verify runs one file"
    if shape.strategy != "none":
        return f"strategy={shape.strategy}: not a single-process run"
    if shape.values == "constants":
        return "values=constants: --steps / --model_dir do not reach the program (TRAIN_STEPS, MODEL_DIR are fixed)"
    if shape.values == "argparse" and shape.site == "main_argv_absl_app":
        return "values=argparse under absl.app.run: absl rejects the argparse flags (--steps) before main runs"
    return None


# ---- rendering -------------------------------------------------------------------------------------------------

def _dedent(code: str) -> str:
    return textwrap.dedent(code).strip("\n") + "\n"


def _indent(code: str, n: int = 1) -> str:
    return textwrap.indent(code, "    " * n, lambda line: line.strip() != "")


def _names(shape: Shape) -> dict[str, str]:
    """The spelling of the TF1 namespaces under the shape's import style."""
    return {
        "tf_compat_v1": {"header": "import tensorflow as tf\n", "EST": "tf.estimator", "V1": "tf.compat.v1"},
        "compat_v1_module": {"header": "import tensorflow.compat.v1 as tf\n", "EST": "tf.estimator", "V1": "tf"},
        "rebind": {"header": "import tensorflow as tf\n\ntf = tf.compat.v1\n", "EST": "tf.estimator", "V1": "tf"},
        "from_tensorflow_import_estimator": {"header": "import tensorflow as tf\nfrom tensorflow import estimator\n",
                                             "EST": "estimator", "V1": "tf.compat.v1"},
    }[shape.imports]


def unrelated_blocks(shape: Shape, tag: str = "") -> tuple[str, str]:
    """(constant, helper) texts that have nothing to do with TensorFlow; `tag` keeps two files' names apart."""
    constant = f'UNRELATED_TABLE{tag} = {{"alpha": 1, "beta": (2, 3),  "gamma": [4, 5, 6]}}  # keep  me\n'
    if shape.unrelated == "plain":
        helper = f'''\
def unrelated_checksum{tag}(values, *, seed=7):
    """A rolling checksum; nothing to do with TensorFlow."""
    total = seed
    for v in values:
        total = (total * 31 + v) % 1000003
    return total
'''
    elif shape.unrelated == "decorated":
        helper = f'''\
@functools.lru_cache(maxsize=None)
def unrelated_checksum{tag}(n: int = 3) -> int:
    # cached on purpose
    return sum(i * i for i in range(n))
'''
    else:
        helper = f'''\
def unrelated_checksum{tag}( values ,seed = 7 ) :
    total=seed # odd spacing stays
    for v in values :   total = ( total*31 + v )%1000003
    return  total
'''
    return constant, helper


def _make_canned_data(shape: Shape, V1: str) -> str:
    """Named features of every kind the column mixes read: floats a, b, c, a string color, an integer slot."""
    if shape.estimator.endswith("Regressor"):
        labels = "y = (0.8 * x[:, 0] - 1.2 * x[:, 1] + 0.5 * slots + 0.3).reshape(n, 1).astype(np.float32)"
    else:
        labels = "y = (x[:, 0] - x[:, 1] + 0.5 * (slots % 2) > 0.2).astype(np.int32).reshape(n, 1)"
    return _dedent(f'''
    def make_data(salt, n):
        rng = np.random.RandomState(salt)
        x = rng.uniform(-1.0, 1.0, size=(n, 3)).astype(np.float32)
        colors = np.array(["red", "green", "blue"])[rng.randint(0, 3, size=n)]
        slots = rng.randint(0, 4, size=n).astype(np.int64)
        {labels}
        return {{"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "color": colors, "slot": slots}}, y


    def make_dataset(salt, batch_size, training):
        features, labels = make_data(salt, 2048 if training else 256)
        ds = {V1}.data.Dataset.from_tensor_slices((features, labels))
        ds = ds.batch(batch_size, drop_remainder=True)
        return ds.repeat() if training else ds
    ''')


def _canned_columns(shape: Shape) -> str:
    """Module-level feature columns: DNN_COLUMNS and/or LINEAR_COLUMNS, as the estimator class takes them."""
    kind = shape.columns
    if kind == "none":
        return ""
    fc = "tf.feature_column"
    lines = [f'NUMERIC = [{fc}.numeric_column("a"), {fc}.numeric_column("b")]']
    dnn, linear = "NUMERIC", "NUMERIC"
    categorical = {
        "vocab": f'{fc}.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])',
        "hash": f'{fc}.categorical_column_with_hash_bucket("color", 8)',
        "identity": f'{fc}.categorical_column_with_identity("slot", 4)',
    }
    if kind == "bucketized":
        lines.append(f'C_BUCKETS = {fc}.bucketized_column({fc}.numeric_column("c"), [-0.5, 0.0, 0.5])')
        dnn = linear = "NUMERIC + [C_BUCKETS]"
    elif kind == "crossed":
        lines.append(f'C_BUCKETS = {fc}.bucketized_column({fc}.numeric_column("c"), [-0.5, 0.0, 0.5])')
        lines.append(f'CROSSED = {fc}.crossed_column([C_BUCKETS, "color"], hash_bucket_size=16)')
        linear = "NUMERIC + [C_BUCKETS, CROSSED]"
        dnn = "NUMERIC + [C_BUCKETS]"
    elif kind != "numeric":
        how, source = kind.split("_")
        lines.append(f"CATEGORICAL = {categorical[source]}")
        wrapped = (f"{fc}.indicator_column(CATEGORICAL)" if how == "indicator"
                   else f'{fc}.embedding_column(CATEGORICAL, dimension=3, combiner="mean")')
        dnn = f"NUMERIC + [{wrapped}]"
        linear = "NUMERIC + [CATEGORICAL]"
    cls = shape.estimator
    if cls.startswith("DNNLinear"):
        lines += [f"DNN_COLUMNS = {dnn}", f"LINEAR_COLUMNS = {linear}"]
    elif cls.startswith("DNN"):
        lines.append(f"DNN_COLUMNS = {dnn}")
    else:
        lines.append(f"LINEAR_COLUMNS = {linear}")
    return "\n".join(lines) + "\n"


def _canned_optimizer(shape: Shape, V1: str) -> str | None:
    """The optimizer argument's text (None: left out, the class's default)."""
    v1 = shape.canned_version == "v1"
    ctor = f"{V1}.train.AdagradOptimizer" if v1 else "tf.keras.optimizers.legacy.Adagrad"
    return {
        "none": None,  # a shape built for a model_fn program (the report's minimizer may switch it to canned)
        "default": None,
        "string": '"Adagrad"',
        "class": ctor,
        "instance": f"{ctor}(learning_rate=0.05)",
        "callable": f"lambda: {ctor}(learning_rate=0.05)",
    }[shape.canned_optimizer]


def _canned_call(shape: Shape, EST: str, V1: str, model_dir: str, cfg_arg: str | None, m: str) -> str:
    """The canned estimator's constructor call: the leading arguments positional when args=positional."""
    cls = shape.estimator
    prefix = f"{V1}.estimator" if shape.canned_version == "v1" else EST
    args: list[tuple[str, str]] = []  # (keyword, value) in the class's parameter order
    optimizer = _canned_optimizer(shape, V1)
    if cls.startswith("DNNLinear"):
        args += [("model_dir", model_dir), ("linear_feature_columns", f"{m}LINEAR_COLUMNS"),
                 ("dnn_feature_columns", f"{m}DNN_COLUMNS"), ("dnn_hidden_units", "[8, 4]")]
        if optimizer:
            args.append(("dnn_optimizer", optimizer))
        positional = 2
    elif cls.startswith("DNN"):
        args += [("hidden_units", "[8, 4]"), ("feature_columns", f"{m}DNN_COLUMNS"), ("model_dir", model_dir)]
        positional = 3
    elif cls.startswith("Linear"):
        args += [("feature_columns", f"{m}LINEAR_COLUMNS"), ("model_dir", model_dir)]
        positional = 2
    else:
        args.append(("model_dir", model_dir))
        positional = 1
    if optimizer and not cls.startswith("DNNLinear"):
        args.append(("optimizer", optimizer))
    if cfg_arg:
        args.append(("config", cfg_arg))
    parts = [value if shape.args == "positional" and i < positional else f"{key}={value}"
             for i, (key, value) in enumerate(args)]
    return f"{prefix}.{cls}({', '.join(parts)})"


def _make_data(shape: Shape, V1: str) -> str:
    if shape.canned:
        return _make_canned_data(shape, V1)
    if shape.loss == "mse":
        labels = "y = (0.8 * x[:, 0] - 1.2 * x[:, 1] + 2.0 * x[:, 2] + 0.3).reshape(n, 1).astype(np.float32)"
    else:
        labels = "y = np.digitize(x[:, 0] + x[:, 1] - x[:, 2], [-0.5, 0.5]).astype(np.int32)"
    return _dedent(f'''
    def make_data(salt, n):
        rng = np.random.RandomState(salt)
        x = rng.uniform(-1.0, 1.0, size=(n, 3)).astype(np.float32)
        {labels}
        return {{"x": x}}, y


    def make_dataset(salt, batch_size, training):
        features, labels = make_data(salt, 2048 if training else 256)
        ds = {V1}.data.Dataset.from_tensor_slices((features, labels))
        ds = ds.batch(batch_size, drop_remainder=True)
        return ds.repeat() if training else ds
    ''')


def _input_fns(shape: Shape, EST: str, V1: str = "tf.compat.v1") -> str:
    kind = shape.input_fn
    if kind == "numpy":  # rows in order, forever for training (positional), one epoch for evaluation (keywords)
        return _dedent(f'''
        TRAIN_X, TRAIN_Y = make_data(TRAIN_SALT, 2048)
        EVAL_X, EVAL_Y = make_data(EVAL_SALT, 256)
        TRAIN_INPUT_FN = {V1}.estimator.inputs.numpy_input_fn(TRAIN_X, TRAIN_Y, BATCH_SIZE, None, False)
        EVAL_INPUT_FN = {V1}.estimator.inputs.numpy_input_fn(
            x=EVAL_X, y=EVAL_Y, batch_size=BATCH_SIZE, num_epochs=1, shuffle=False)
        ''')
    if kind == "plain":
        return _dedent('''
        def train_input_fn():
            return make_dataset(TRAIN_SALT, BATCH_SIZE, training=True)


        def eval_input_fn():
            return make_dataset(EVAL_SALT, BATCH_SIZE, training=False)
        ''')
    if kind in ("params", "mode_params") and shape.canned:  # a canned Estimator's params are {}
        fns = _input_fns(dataclasses.replace(shape, estimator="model_fn"), EST, V1)
        return fns.replace('params["batch_size"]', 'params.get("batch_size", BATCH_SIZE)')
    if kind == "params":
        return _dedent('''
        def train_input_fn(params):
            return make_dataset(TRAIN_SALT, params["batch_size"], training=True)


        def eval_input_fn(params):
            return make_dataset(EVAL_SALT, params["batch_size"], training=False)
        ''')
    if kind == "mode_params":
        return _dedent(f'''
        def input_fn(mode, params):
            training = mode == {EST}.ModeKeys.TRAIN
            return make_dataset(TRAIN_SALT if training else EVAL_SALT, params["batch_size"], training=training)
        ''')
    if kind == "input_context":
        return _dedent('''
        def train_input_fn(input_context=None):
            ds = make_dataset(TRAIN_SALT, BATCH_SIZE, training=True)
            if input_context is not None and input_context.num_input_pipelines > 1:
                ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            return ds


        def eval_input_fn():
            return make_dataset(EVAL_SALT, BATCH_SIZE, training=False)
        ''')
    if kind == "lambda":
        return _dedent('''
        def input_fn(salt, batch_size):
            return make_dataset(salt, batch_size, training=salt == TRAIN_SALT)
        ''')
    if kind == "partial":
        return _dedent('''
        def input_fn(salt, batch_size=BATCH_SIZE):
            return make_dataset(salt, batch_size, training=salt == TRAIN_SALT)
        ''')
    assert kind == "closure"
    return _dedent('''
    def make_input_fn(salt, batch):
        def _input_fn():
            return make_dataset(salt, batch, training=salt == TRAIN_SALT)

        return _input_fn
    ''')


def _input_exprs(shape: Shape, batch: str, m: str) -> tuple[str, str]:
    """(train, eval) input_fn expressions; `batch` is the batch-size expression in scope, `m` the model prefix."""
    kind = shape.input_fn
    if kind in ("plain", "params", "input_context"):
        return f"{m}train_input_fn", f"{m}eval_input_fn"
    if kind == "numpy":
        return f"{m}TRAIN_INPUT_FN", f"{m}EVAL_INPUT_FN"
    if kind == "mode_params":
        return f"{m}input_fn", f"{m}input_fn"
    if kind == "lambda":
        return (f"lambda: {m}input_fn({m}TRAIN_SALT, {batch})", f"lambda: {m}input_fn({m}EVAL_SALT, {batch})")
    if kind == "partial":
        return (f"functools.partial({m}input_fn, salt={m}TRAIN_SALT)", f"functools.partial({m}input_fn, salt={m}EVAL_SALT)")
    return f"{m}make_input_fn({m}TRAIN_SALT, {batch})", f"{m}make_input_fn({m}EVAL_SALT, {batch})"


def _model_fn(shape: Shape, EST: str, V1: str) -> str:
    units = "1" if shape.loss == "mse" else "N_CLASSES"
    helper, rate = "", 'params["learning_rate"]'
    if shape.forward == "network_helper":
        helper = ("# the network, built where the model_fn calls it\n"
                  "def network(inputs, units, outputs, activation=tf.nn.relu):\n"
                  "    hidden = {V1}.layers.dense(inputs, units, activation=activation)\n"
                  "    return {V1}.layers.dense(hidden, outputs)\n\n\n")
        lines = [f'logits = network(features["x"], params["hidden_units"], outputs={units})']
    elif shape.forward == "nested_helper":
        lines = ["def block(inputs, units, activation=None):",
                 "    return {V1}.layers.dense(inputs, units, activation=activation)",
                 'net = block(features["x"], params["hidden_units"], activation=tf.nn.relu)',
                 f"logits = block(net, {units})"]
    elif shape.forward == "shim_helper_loop":
        helper = ("# a TF1 layer: raw variables under its own scope\n"
                  "def fc(inputs, units, name):\n"
                  "    with {V1}.variable_scope(name):\n"
                  '        w = {V1}.get_variable("weights", [inputs.shape[-1], units])\n'
                  '        b = {V1}.get_variable("biases", [units], initializer={V1}.zeros_initializer())\n'
                  "        return tf.matmul(inputs, w) + b\n\n\n")
        lines = ['net = features["x"]',
                 'with {V1}.variable_scope("tower"):',
                 '    for i in range(2):',
                 '        net = tf.nn.relu(fc(net, params["hidden_units"], "layer%d" % i))',
                 f'    logits = {{V1}}.layers.dense(net, {units}, name="out")']
    elif shape.forward == "shim_mode_flag":
        lines = ["if mode == {EST}.ModeKeys.TRAIN:",
                 "    train_phase = True",
                 "else:",
                 "    train_phase = False",
                 'net = {V1}.layers.dense(features["x"], params["hidden_units"], activation=tf.nn.relu)',
                 "net = {V1}.layers.batch_normalization(net, training=train_phase)",
                 f"logits = {{V1}}.layers.dense(net, {units})"]
    elif shape.forward == "static_if":
        lines = ['net = {V1}.layers.dense(features["x"], params["hidden_units"], activation=tf.nn.relu)',
                 'if params["hidden_units"] > 2:',
                 '    net = {V1}.layers.dense(net, params["hidden_units"], activation=tf.nn.relu)',
                 f"logits = {{V1}}.layers.dense(net, {units})"]
    elif shape.forward == "hparam_locals":
        rate = "learning_rate"
        lines = ['hidden_units = params["hidden_units"]', 'learning_rate = params["learning_rate"]',
                 'net = {V1}.layers.dense(features["x"], hidden_units, activation=tf.nn.relu)',
                 f"logits = {{V1}}.layers.dense(net, {units})"]
    else:
        lines = [
            'net = {V1}.layers.dense(features["x"], params["hidden_units"], activation=tf.nn.relu)',
            f"logits = {{V1}}.layers.dense(net, {units})",
        ]
    early = shape.early_returns == "yes"
    metrics = shape.metrics == "yes"
    if early:
        pred = '{"predictions": logits}' if shape.loss == "mse" else '{"class_ids": tf.argmax(logits, 1)}'
        lines += ["if mode == {EST}.ModeKeys.PREDICT:",
                  f"    return {{EST}}.EstimatorSpec(mode, predictions={pred})"]
    if shape.loss == "mse":
        lines.append("loss = {V1}.losses.mean_squared_error(labels, logits)")
    else:
        lines.append("loss = {V1}.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)")
    if metrics and shape.metric_kind == "mean":
        if shape.loss == "mse":
            lines.append('metrics = {"gap": {V1}.metrics.mean(tf.abs(logits - labels))}')
        else:
            lines.append('metrics = {"top": {V1}.metrics.mean(tf.reduce_max(tf.nn.softmax(logits), axis=1))}')
    elif metrics:
        if shape.loss == "mse":
            lines.append('metrics = {"rmse": {V1}.metrics.root_mean_squared_error(labels, logits)}')
        else:
            lines.append('metrics = {"accuracy": {V1}.metrics.accuracy(labels, tf.argmax(logits, 1))}')
    if early:
        extra = ", eval_metric_ops=metrics" if metrics else ""
        lines += ["if mode == {EST}.ModeKeys.EVAL:", f"    return {{EST}}.EstimatorSpec(mode, loss=loss{extra})"]
    lines += [f'optimizer = {{V1}}.train.{shape.optimizer}Optimizer({rate})']
    if shape.forward == "shim_mode_flag":  # TF1 updated batch norm's moving averages only through UPDATE_OPS
        lines += ["with tf.control_dependencies({V1}.get_collection({V1}.GraphKeys.UPDATE_OPS)):",
                  "    train_op = optimizer.minimize(loss, global_step={V1}.train.get_global_step())"]
    else:
        lines.append("train_op = optimizer.minimize(loss, global_step={V1}.train.get_global_step())")
    extra = ", eval_metric_ops=metrics" if metrics and not early else ""
    lines.append(f"return {{EST}}.EstimatorSpec(mode, loss=loss, train_op=train_op{extra})")
    body = "\n".join(lines).replace("{EST}", EST).replace("{V1}", V1) + "\n"
    signature = {"canonical": "features, labels, mode, params", "by_name": "mode, features, params, labels",
                 "with_config": "features, labels, mode, params, config",
                 "del_config": "features, labels, mode, params, config"}[shape.signature]
    if shape.signature == "del_config":  # the model_fn says it does not use its config
        body = "del config\n" + body
    return helper.replace("{V1}", V1) + f"def model_fn({signature}):\n" + _indent(body)


def _model(shape: Shape, EST: str, V1: str) -> str:
    """The model section: the model_fn, or a canned estimator's feature columns."""
    return _canned_columns(shape) if shape.canned else _model_fn(shape, EST, V1)


def _values(shape: Shape) -> dict[str, str]:
    """Expressions for the driver's values, and the module-level code that provides them."""
    if shape.values == "argparse":
        return {
            "module": _dedent('''
            def parse_args():
                parser = argparse.ArgumentParser()
                parser.add_argument("--model_dir", default="/tmp/tfm-generated")
                parser.add_argument("--steps", type=int, default=100)
                parser.add_argument("--batch_size", type=int, default=32)
                parser.add_argument("--learning_rate", type=float, default=0.05)
                parser.add_argument("--hidden_units", type=int, default=8)
                return parser.parse_args()
            '''),
            "prologue": "args = parse_args()\n",
            "model_dir": "args.model_dir", "steps": "args.steps", "batch": "args.batch_size",
            "lr": "args.learning_rate", "hidden": "args.hidden_units", "mapping": "vars(args)",
        }
    if shape.values == "absl_flags":
        return {
            "module": _dedent('''
            flags.DEFINE_string("model_dir", "/tmp/tfm-generated", "Where checkpoints go.")
            flags.DEFINE_integer("steps", 100, "Training steps.")
            flags.DEFINE_integer("batch_size", 32, "Batch size.")
            flags.DEFINE_float("learning_rate", 0.05, "Learning rate.")
            flags.DEFINE_integer("hidden_units", 8, "Hidden units.")
            FLAGS = flags.FLAGS
            '''),
            # absl parses the command line itself only under absl.app.run / tf.compat.v1.app.run
            "prologue": "" if shape.site in APP_RUN_SITES else "FLAGS(sys.argv)\n",
            "model_dir": "FLAGS.model_dir", "steps": "FLAGS.steps", "batch": "FLAGS.batch_size",
            "lr": "FLAGS.learning_rate", "hidden": "FLAGS.hidden_units", "mapping": "FLAGS.flag_values_dict()",
        }
    return {
        "module": _dedent('''
        MODEL_DIR = "/tmp/tfm-generated"
        TRAIN_STEPS = 100
        BATCH = 32
        LEARNING_RATE = 0.05
        HIDDEN_UNITS = 8
        HPARAMS = {"learning_rate": LEARNING_RATE, "hidden_units": HIDDEN_UNITS, "batch_size": BATCH}
        '''),
        "prologue": "",
        "model_dir": "MODEL_DIR", "steps": "TRAIN_STEPS", "batch": "BATCH",
        "lr": "LEARNING_RATE", "hidden": "HIDDEN_UNITS", "mapping": "HPARAMS",
    }


def _strategy_line(shape: Shape) -> str:
    return {
        "none": "",
        "mirrored": "strategy = tf.distribute.MirroredStrategy()\n",
        "mwms_if_tf_config": ('strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy() '
                              'if "TF_CONFIG" in os.environ else None\n'),
    }[shape.strategy]


def _run_config_expr(shape: Shape, EST: str) -> str:
    kwargs = "tf_random_seed=42, save_checkpoints_steps=100"
    if shape.strategy != "none":
        kwargs += ", train_distribute=strategy"
    if shape.config == "replace":
        return f"{EST}.RunConfig().replace({kwargs})"
    return f"{EST}.RunConfig({kwargs})"


def _build(shape: Shape, EST: str, model_dir: str, params: str, m: str) -> tuple[str, str]:
    """(module-level helpers, statements ending with a `return`-less build of `est`) for the Estimator.
    The statements bind `est`, or, for build_estimator_helper, are the helper's body ending in `return`."""
    helpers = ""
    lines = ""
    cfg_arg = None
    if shape.config in ("assigned", "replace"):
        lines += _strategy_line(shape) + f"config = {_run_config_expr(shape, EST)}\n"
        cfg_arg = "config"
    elif shape.config == "inline":
        lines += _strategy_line(shape)
        cfg_arg = _run_config_expr(shape, EST)
    elif shape.config == "helper":
        helpers += ("def get_config():\n" + _indent(_strategy_line(shape) + f"return {_run_config_expr(shape, EST)}\n"))
        lines += "config = get_config()\n"
        cfg_arg = "config"
    if shape.canned:
        return helpers, lines + _canned_call(shape, EST, _names(shape)["V1"], model_dir, cfg_arg, m) + "\n"
    if shape.args == "keyword":
        parts = [f"model_fn={m}model_fn", f"model_dir={model_dir}"]
        if cfg_arg:
            parts.append(f"config={cfg_arg}")
        parts.append(f"params={params}")
    else:
        parts = [f"{m}model_fn", model_dir, cfg_arg or "None", params]
    call = f"{EST}.Estimator({', '.join(parts)})"
    return helpers, lines + call + "\n"


def _params_expr(shape: Shape, vals: dict[str, str]) -> str:
    if shape.params == "mapping":
        return vals["mapping"]
    return f'{{"learning_rate": {vals["lr"]}, "hidden_units": {vals["hidden"]}, "batch_size": {vals["batch"]}}}'


_PRINT_RESULT = ('if result is not None and result[0] is not None:\n'
                 '    print("final eval:", {k: float(v) for k, v in sorted(result[0].items())})\n')


def _specs(shape: Shape, EST: str, vals: dict[str, str], m: str, runnable: bool = False) -> tuple[str, str]:
    """(module-level helpers, driver statements that train and evaluate `est`). `runnable`: keep the result of
    train_and_evaluate and print its evaluation (train_then_evaluate prints it in every program)."""
    helper, run = _specs_plain(shape, EST, vals, m)
    _, evaluate = _input_exprs(shape, vals["batch"], m)
    if shape.predict == "per_example":
        run += (f"predictions = list(est.predict(input_fn={evaluate}))\n"
                'print("predicted", len(predictions), "examples")\n')
    elif shape.predict == "batches":
        run += (f"for batch in est.predict({evaluate}, yield_single_examples=False):\n"
                '    print("predicted a batch of", len(next(iter(batch.values()))))\n')
    if runnable and shape.specs != "train_then_evaluate":
        call = f"{EST}.train_and_evaluate("
        assert run.count(call) == 1, run
        run = run.replace(call, "result = " + call) + _PRINT_RESULT
    return helper, run


def _specs_plain(shape: Shape, EST: str, vals: dict[str, str], m: str) -> tuple[str, str]:
    if shape.specs == "helper_tuple":
        train, evaluate = _input_exprs(shape, "batch_size", m)
        helper = _dedent(f'''
        def get_specs(steps, batch_size):
            train_spec = {EST}.TrainSpec(input_fn={train}, max_steps=steps)
            eval_spec = {EST}.EvalSpec(input_fn={evaluate}, steps=None, throttle_secs=0)
            return train_spec, eval_spec
        ''')
        return helper, (f"train_spec, eval_spec = get_specs({vals['steps']}, {vals['batch']})\n"
                        f"{EST}.train_and_evaluate(est, train_spec, eval_spec)\n")
    train, evaluate = _input_exprs(shape, vals["batch"], m)
    steps = vals["steps"]
    if shape.specs == "named":
        return "", (f"train_spec = {EST}.TrainSpec(input_fn={train}, max_steps={steps})\n"
                    f"eval_spec = {EST}.EvalSpec(input_fn={evaluate}, steps=None, throttle_secs=0)\n"
                    f"{EST}.train_and_evaluate(est, train_spec, eval_spec)\n")
    if shape.specs == "inline":
        return "", (f"{EST}.train_and_evaluate(\n"
                    f"    est,\n"
                    f"    {EST}.TrainSpec(input_fn={train}, max_steps={steps}),\n"
                    f"    {EST}.EvalSpec(input_fn={evaluate}, steps=None, throttle_secs=0),\n"
                    f")\n")
    return "", (f"est.train(input_fn={train}, max_steps={steps})\n"
                f"results = est.evaluate(input_fn={evaluate})\n"
                f'print("final eval:", results)\n')


def _driver(shape: Shape, EST: str, V1: str, m: str, runnable: bool = False) -> tuple[str, str]:
    """(module-level helpers, the code that runs the program at its site, through `if __name__ == ...`)."""
    vals = _values(shape)
    params = _params_expr(shape, vals)
    helpers = [vals["module"]]
    if shape.site == "build_estimator_helper":
        cfg_helpers, body = _build(shape, EST, "model_dir", "params", m)
        if cfg_helpers:
            helpers.append(cfg_helpers)
        head, _, last = body.rstrip("\n").rpartition("\n")
        body = (head + "\n" if head else "") + f"return {last}\n"
        helpers.append("def build_estimator(model_dir, params):\n" + _indent(body))
        build = f"est = build_estimator({vals['model_dir']}, {params})\n"
    else:
        cfg_helpers, body = _build(shape, EST, vals["model_dir"], params, m)
        if cfg_helpers:
            helpers.append(cfg_helpers)
        head, _, last = body.rstrip("\n").rpartition("\n")
        build = (head + "\n" if head else "") + f"est = {last}\n"
    spec_helper, run = _specs(shape, EST, vals, m, runnable)
    if spec_helper:
        helpers.append(spec_helper)
    prologue = vals["prologue"] + f"{V1}.logging.set_verbosity({V1}.logging.INFO)\n"
    if runnable:
        # TF 2.15's compat.v1 layer initializers take their seeds from Python's `random` (see
        # fixtures/regression_adagrad/original.py); RunConfig(tf_random_seed=42) alone does not fix them
        prologue = vals["prologue"] + "random.seed(42)\n" + f"{V1}.logging.set_verbosity({V1}.logging.INFO)\n"
    work = build + run
    if shape.site == "with_block":
        work = "with contextlib.suppress(KeyboardInterrupt):\n" + _indent(work)
    elif shape.site == "try_block":
        work = "try:\n" + _indent(work) + 'except KeyboardInterrupt:\n    print("interrupted")\n'
    elif shape.site == "if_block":
        work = 'if not os.environ.get("TFM_SKIP_TRAINING"):\n' + _indent(work)
    body = prologue + work
    main_guard = 'if __name__ == "__main__":\n'
    site = shape.site
    if site == "module":
        driver = body
    elif site == "if_main":
        driver = main_guard + _indent(body)
    elif site == "main_argv_tf1_app":
        driver = "def main(argv):\n" + _indent("del argv  # unused\n" + body) + "\n\n" + main_guard + f"    {V1}.app.run(main)\n"
    elif site == "main_argv_absl_app":
        driver = "def main(argv):\n" + _indent("del argv  # unused\n" + body) + "\n\n" + main_guard + "    app.run(main)\n"
    elif site == "trainer_method":
        driver = (_dedent('''
        class Trainer:
            """Runs the whole job."""

            def run(self):
        ''') + _indent(body, 2) + "\n\n" + main_guard + "    Trainer().run()\n")
    else:  # main, build_estimator_helper, with_block, try_block, if_block
        driver = "def main():\n" + _indent(body) + "\n\n" + main_guard + "    main()\n"
    return "\n\n".join(h.strip("\n") + "\n" for h in helpers if h.strip()), driver


def _imports(shape: Shape, code: str, header: str, extra: str = "") -> str:
    """The import block the code needs: stdlib modules it uses, numpy, absl, then TensorFlow (and the package)."""
    std = [f"import {mod}\n" for mod in ("argparse", "contextlib", "functools", "os", "random", "sys")
           if re.search(rf"\b{mod}\.", code) and (mod != "random" or re.search(r"(?<![\w.])random\.seed\(", code))]
    third = ["import numpy as np\n"] if re.search(r"\bnp\.", code) else []
    absl = [n for n in ("app", "flags") if (n == "app" and shape.site == "main_argv_absl_app" and "    app.run(main)" in code)
            or (n == "flags" and re.search(r"\bflags\.", code))]
    if absl:
        third.append(f"from absl import {', '.join(absl)}\n")
    out = "".join(std)
    if out:
        out += "\n"
    return out + "".join(third) + header + extra


def _assemble(imports: str, sections: list[str]) -> str:
    return "\n\n".join([imports.rstrip("\n") + "\n"] + [s.strip("\n") + "\n" for s in sections if s.strip()])


def render(shape: Shape, runnable: bool = False) -> dict[str, str]:
    """{relative path: source}: `program.py`, or `trainer/__init__.py`, `trainer/model.py`, `trainer/task.py`.
    `runnable`: seed Python's `random` and print the final evaluation (see the module docstring)."""
    n = _names(shape)
    EST, V1 = n["EST"], n["V1"]
    model_consts = "TRAIN_SALT = 1201\nEVAL_SALT = 907\nBATCH_SIZE = 32\n"
    if shape.loss == "sparse_softmax_ce" and not shape.canned:
        model_consts += "N_CLASSES = 3\n"
    if shape.layout == "single_file":
        const, helper = unrelated_blocks(shape)
        helpers, driver = _driver(shape, EST, V1, "", runnable)
        sections = [model_consts, const, helper, _make_data(shape, V1), _input_fns(shape, EST, V1), _model(shape, EST, V1),
                    helpers, driver]
        code = "\n".join(sections)
        return {"program.py": _assemble(_imports(shape, code, n["header"]), sections)}
    const_m, helper_m = unrelated_blocks(shape, "_MODEL")
    const_t, helper_t = unrelated_blocks(shape, "_TASK")
    model_sections = [model_consts, const_m, helper_m, _make_data(shape, V1), _input_fns(shape, EST, V1),
                      _model(shape, EST, V1)]
    code = "\n".join(model_sections)
    model_src = _assemble(_imports(shape, code, n["header"]), model_sections)
    helpers, driver = _driver(shape, EST, V1, "model.", runnable)
    task_sections = [const_t, helper_t, helpers, driver]
    code = "\n".join(task_sections)
    task_src = _assemble(_imports(shape, code, n["header"], "\nfrom trainer import model\n"), task_sections)
    return {"trainer/__init__.py": "", "trainer/model.py": model_src, "trainer/task.py": task_src}


def unrelated_by_file(shape: Shape) -> dict[str, list[str]]:
    """{relative path: [constant, helper]} that must come out byte-identical."""
    if shape.layout == "single_file":
        return {"program.py": list(unrelated_blocks(shape))}
    return {"trainer/model.py": list(unrelated_blocks(shape, "_MODEL")),
            "trainer/task.py": list(unrelated_blocks(shape, "_TASK"))}


# ---- running tfmigrate -----------------------------------------------------------------------------------------

@dataclass
class Outcome:
    shape: Shape
    sources: dict[str, str]
    results: dict[str, FileResult] = field(default_factory=dict)  # by relative path (the .py files with content)
    crash: str | None = None

    @property
    def status(self) -> str:
        """changed | blocked | unchanged | failed | crash, for the program as a whole."""
        if self.crash:
            return "crash"
        statuses = {r.status for r in self.results.values()}
        for s in ("failed", "blocked", "changed"):
            if s in statuses:
                return s
        return "unchanged"

    def errors(self):
        return [d for r in self.results.values() for d in r.diagnostics if d.severity == "error"]


def _run(sources: dict[str, str]) -> dict[str, FileResult]:
    if list(sources) == ["program.py"]:
        return {"program.py": migrate_source(sources["program.py"].encode(), "program.py", Options())}
    with tempfile.TemporaryDirectory(prefix="tfm-gen-") as tmp:
        root = Path(tmp)
        paths = {}
        for rel, text in sources.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
            paths[rel] = p
        wanted = [rel for rel in sources if sources[rel]]
        results = migrate_paths([paths[rel] for rel in wanted], Options(), jobs=1)
        out = {}
        for rel, result in zip(wanted, results):
            # temp-dir paths mean nothing to a reader
            out[rel] = replace(result, path=rel, diagnostics=[replace(d, path=rel) for d in result.diagnostics])
        return out


def migrate(shape: Shape, runnable: bool = False) -> Outcome:
    sources = render(shape, runnable)
    outcome = Outcome(shape, sources)
    try:
        outcome.results = _run(sources)
    except Exception as exc:  # an engine defect: report it, do not hide it
        outcome.crash = f"{type(exc).__name__}: {exc}"
    return outcome


def remigrate(outcome: Outcome) -> Outcome:
    """Migrate the outputs of a migration again (the idempotency check)."""
    sources = dict(outcome.sources)
    for rel, result in outcome.results.items():
        sources[rel] = result.output.decode()
    again = Outcome(outcome.shape, sources)
    try:
        again.results = _run(sources)
    except Exception as exc:
        again.crash = f"{type(exc).__name__}: {exc}"
    return again


# ---- output checks ---------------------------------------------------------------------------------------------

FORBIDDEN = ("tensorflow.estimator", "tensorflow.compat.v1.estimator", "tensorflow.compat.v1.layers",
             "tensorflow.compat.v1.losses", "tensorflow_estimator")


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name → module path for TensorFlow imports, `from tensorflow import x` and `tf = tf.compat.v1`."""
    table: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in ("tensorflow", "tensorflow_estimator"):
                    table[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("tensorflow",
                                                                                                "tensorflow_estimator"):
            for a in node.names:
                table[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):  # rebinding: tf = tf.compat.v1
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Attribute)):
            dotted = _dotted(node.value)
            if dotted and dotted.split(".")[0] in table:
                head, _, rest = dotted.partition(".")
                table[node.targets[0].id] = table[head] + ("." + rest if rest else "")
    return table


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def leftover_v1(text: str) -> list[str]:
    """Dotted names in code that still reach tf.estimator, compat.v1.layers or compat.v1.losses."""
    tree = ast.parse(text)
    table = _aliases(tree)
    bad = set()
    # the model-mapping shim's call keeps the forward pass's TF1 layers as written, on purpose (planners/shim.py)
    shim = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
            and any("track_tf1_style_variables" in ast.unparse(d) for d in f.decorator_list) for n in ast.walk(f)}
    for node in ast.walk(tree):
        if id(node) in shim:
            continue
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if not dotted:
                continue
            head, _, rest = dotted.partition(".")
            full = table.get(head, head) + ("." + rest if rest else "")
            if any(full == f or full.startswith(f + ".") for f in FORBIDDEN):
                bad.add(dotted)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else None
            names = [f"{mod}.{a.name}" if mod else a.name for a in node.names]
            for n in names:
                if any(n == f or n.startswith(f + ".") for f in FORBIDDEN):
                    bad.add(f"import {n}")
    return sorted(b for b in bad if not any(o != b and o.startswith(b + ".") for o in bad))
