"""The multi-worker tutorial shape (issue #12): a Keras model and a Keras loss object inside the model_fn, and
training without max_steps. The Sequential keeps the TF1 graph's names (`sequential/dense/kernel`), the loss keeps
the user's arithmetic and the Estimator's 1/replicas scaling, and training stops where the input ends."""
from __future__ import annotations

import pytest

from _helpers import blocked, codes, converted, program, section
from tfmigrate.engine import Options, migrate_source

MWMS = ('config = tf.estimator.RunConfig(model_dir="/tmp/x", '
        'train_distribute=tf.distribute.experimental.MultiWorkerMirroredStrategy())')
UNTIL_END = '''
train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn)
eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn)
tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
'''
SEQUENTIAL = '''
model = tf.keras.Sequential([
    tf.keras.layers.Flatten(input_shape=(2,)),
    tf.keras.layers.Dense(8, activation="relu"),
    tf.keras.layers.Dropout(0.0),
    tf.keras.layers.Dense(3),
])
logits = model(features["x"], training=False)
'''
NONE_LOSS = '''
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(
    from_logits=True, reduction=tf.keras.losses.Reduction.NONE)
loss = loss_object(labels, logits)
loss = tf.reduce_sum(loss) * (1. / 64)
'''
SPEC = "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, tf.compat.v1.train.get_or_create_global_step()))"


def tutorial(forward=SEQUENTIAL, loss=NONE_LOSS, run_config=MWMS, drive=UNTIL_END, extra="", **kw) -> str:
    return program(forward=forward, loss=loss, minimize="", spec=SPEC, run_config=run_config, drive=drive,
                   extra=extra, **kw)


def init(out: str) -> str:
    return section(out, "    def __init__(self, params=None):", "    def call(")


def test_sequential_keeps_the_tf1_graph_names_and_the_tutorial_loss_keeps_its_arithmetic():
    out = converted(tutorial())
    layers = init(out)
    # Keras' per-class counters in the TF1 graph: the variables were sequential/dense/kernel, sequential/dense_1/...
    assert 'self.sequential = keras.Sequential([' in layers and 'name="sequential")' in layers
    assert 'keras.layers.Flatten(name="flatten")' in layers  # input_shape only built the model early
    assert 'keras.layers.Dense(units=8, activation="relu", name="dense")' in layers
    assert 'keras.layers.Dropout(rate=0.0, name="dropout")' in layers
    assert 'keras.layers.Dense(units=3, name="dense_1")' in layers
    assert 'logits = self.sequential(features["x"], training=False)' in out
    loss = section(out, "class ModelLoss(", "\nclass Model(")
    assert 'loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")' in loss
    assert "loss = tf.reduce_sum(loss) * (1. / 64)" in loss
    # reduction NONE: the Estimator's v1 optimizer scaled the loss by 1/replicas (only SUM was left alone)
    assert "return loss * (1.0 / replicas) if replicas > 1 else loss" in loss
    assert "tf1_scalar_loss = True" in loss


def test_training_without_max_steps_runs_the_custom_loop_until_the_input_ends():
    out = converted(tutorial())
    assert "est.train(train_input_fn, max_steps=None)" in out.replace("\n", " ").replace("  ", " ") or \
        "max_steps=None" in section(out, "    est.train(", "    est.evaluate(")
    train = section(out, "    def train(self, dataset_fn, max_steps):", "    def evaluate(")
    assert "while max_steps is None or step < max_steps:" in train
    assert "except tf.errors.OutOfRangeError:" in train


def test_max_steps_keeps_the_plain_loop():
    drive = UNTIL_END.replace("TrainSpec(input_fn=train_input_fn)", "TrainSpec(input_fn=train_input_fn, max_steps=5)")
    train = section(converted(tutorial(drive=drive)), "    def train(self, dataset_fn, max_steps):", "    def evaluate(")
    assert "OutOfRangeError" not in train and "while step < max_steps:" in train


def test_training_without_max_steps_under_parameter_servers_blocks():
    result = blocked(tutorial(run_config='config = tf.estimator.RunConfig(model_dir="/tmp/x")'),
                     strategy="parameter-server")
    assert any(d.code == "TFM601" and "parameter servers" in d.message for d in result.diagnostics)


def test_helper_building_the_model_and_positional_layer_arguments():
    extra = '''
    def build_model():
        """The network."""
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, "relu"), tf.keras.layers.Dense(3, name="logits")])
        return model
    '''
    forward = 'model = build_model()\nlogits = model(features["x"], training=mode == tf.estimator.ModeKeys.TRAIN)'
    out = converted(tutorial(forward=forward, extra=extra))
    layers = init(out)
    assert 'keras.layers.Dense(units=8, activation="relu", name="dense")' in layers
    assert 'keras.layers.Dense(units=3, name="logits")' in layers
    assert 'logits = self.sequential(features["x"], training=training)' in out


def test_two_sequentials_count_like_keras():
    forward = '''
    body = tf.keras.Sequential([tf.keras.layers.Dense(8)])
    head = tf.keras.models.Sequential([tf.keras.layers.Dense(3)])
    logits = head(body(features["x"]))
    '''
    layers = init(converted(tutorial(forward=forward)))
    assert 'name="sequential")' in layers and 'name="sequential_1")' in layers
    assert 'name="dense"' in layers and 'name="dense_1"' in layers
    assert "self.sequential_1(self.sequential(" in converted(tutorial(forward=forward)).replace(
        'features["x"], training=False), training=False)', "")


@pytest.mark.parametrize("reduction", ["", ", reduction=tf.keras.losses.Reduction.AUTO",
                                       ", reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE"])
def test_default_reduction_under_a_strategy_blocks_because_the_original_raised(reduction):
    loss = f"loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True{reduction})(labels, logits)"
    result = blocked(tutorial(loss=loss))
    assert codes(result) == {"TFM201"}
    assert "raised a ValueError" in result.diagnostics[0].message


def test_default_reduction_without_a_strategy_is_the_batch_mean():
    loss = "loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)\nloss = loss_fn(labels, logits)"
    drive = UNTIL_END
    out = converted(tutorial(loss=loss, run_config='config = tf.estimator.RunConfig(model_dir="/tmp/x")', drive=drive))
    loss_class = section(out, "class ModelLoss(", "\nclass Model(")
    assert 'keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum_over_batch_size")' in loss_class
    assert "est.fit(" in out and "steps_per_epoch" not in section(out, "    est.fit(", "    est.evaluate(")


def test_sum_reduction_under_a_strategy_is_left_unscaled_and_summed_by_the_custom_loop():
    loss = ("loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, "
            "reduction=tf.keras.losses.Reduction.SUM)(labels, logits) * (1. / 64)")
    out = converted(tutorial(loss=loss))
    loss_class = section(out, "class ModelLoss(", "\nclass Model(")
    assert 'keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")(labels, logits)' in loss_class
    assert "replicas" not in loss_class.split('"""')[-1]  # TF1 did not scale a SUM-reduced loss by 1/replicas
    assert 'self.loss_fn = ModelLoss(reduction="sum")' in out
    assert "loss = loss_fn(labels, outputs)" in out


def test_sum_and_none_reductions_in_one_loss_block():
    loss = ('a = tf.keras.losses.MeanSquaredError(reduction="sum")\n'
            'b = tf.keras.losses.MeanAbsoluteError(reduction=tf.keras.losses.Reduction.NONE)\n'
            'loss = a(labels, logits) + tf.reduce_sum(b(labels, logits))')
    result = blocked(tutorial(loss=loss))
    assert codes(result) == {"TFM201"} and "SUM and another reduction" in result.diagnostics[0].message


@pytest.mark.parametrize("forward, words", [
    ('model = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.BatchNormalization()])\n'
     'logits = model(features["x"], training=mode == tf.estimator.ModeKeys.TRAIN)', "moving-average updates"),
    ('inputs = tf.keras.Input(shape=(2,))\nmodel = tf.keras.Model(inputs, tf.keras.layers.Dense(3)(inputs))\n'
     'logits = model(features["x"])', "one tf.keras.Input and one output"),
    ('inputs = tf.keras.Input(shape=(2,))\nx = tf.keras.layers.Lambda(lambda t: t)(inputs)\n'
     'logits = tf.keras.Model(inputs, x)(features["x"])', "on a Keras symbolic tensor is not converted"),
    ('model = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.LSTM(3)])\n'
     'logits = model(features["x"])', "in a Sequential is not converted"),
    ('model = tf.keras.Sequential()\nmodel.add(tf.keras.layers.Dense(3))\nlogits = model(features["x"])',
     "written as a list"),
    ('logits = MODEL(features["x"])', "built at module level"),
])
def test_keras_models_that_block(forward, words):
    extra = "MODEL = tf.keras.Sequential([tf.keras.layers.Dense(3)])"
    result = blocked(tutorial(forward=forward, extra=extra))
    assert codes(result) == {"TFM101"}, [d.format() for d in result.diagnostics]
    assert words in result.diagnostics[0].message


def test_batch_normalization_in_inference_mode_is_exact():
    forward = ('model = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.BatchNormalization()])\n'
               'logits = model(features["x"], training=False)')
    layers = init(converted(tutorial(forward=forward)))
    assert 'name="batch_normalization"' in layers


def test_estimator_spec_with_an_argument_it_does_not_have_is_said_precisely():
    """TF 2.15 raised the TypeError only when the PREDICT return ran: the tutorial only trains, so it converts with a
    note (tests/rewrite/test_predict_spec_typo.py: a program that predicts is blocked)."""
    forward = SEQUENTIAL + ('if mode == tf.estimator.ModeKeys.PREDICT:\n'
                            '    return tf.estimator.EstimatorSpec(labels=labels, predictions={"logits": logits})\n')
    result = migrate_source(tutorial(forward=forward).encode(), "x.py", Options())
    assert result.status == "changed"
    notes = [d for d in result.diagnostics if "EstimatorSpec has no argument 'labels'" in d.message]
    assert notes and notes[0].severity == "note" and notes[0].code == "TFM501"


def test_functional_model_is_built_the_same_way_in_init():
    forward = '''
    inputs = tf.keras.Input(shape=(2,))
    x = tf.keras.layers.Dense(8, activation="relu")(inputs)
    outputs = tf.keras.layers.Dense(3, name="logits")(x)
    net = tf.keras.Model(inputs=inputs, outputs=outputs)
    logits = net(features["x"], training=mode == tf.estimator.ModeKeys.TRAIN)
    '''
    out = converted(tutorial(forward=forward))
    layers = init(out)
    # TF1 built these layers before the model existed: dense/kernel, logits/kernel (no model scope), as Keras 3 does
    assert "inputs = keras.Input(shape=(2,))" in layers
    assert 'x = keras.layers.Dense(units=8, activation="relu", name="dense")(inputs)' in layers
    assert 'outputs = keras.layers.Dense(units=3, name="logits")(x)' in layers
    assert 'self.net = keras.Model(inputs=inputs, outputs=outputs, name="model")' in layers
    assert 'logits = self.net(features["x"], training=training)' in out


def test_the_tf_import_line_keeps_the_other_modules_it_imports():
    src = tutorial(run_config='config = tf.estimator.RunConfig(model_dir="/tmp/x")')
    src = src.replace("import tensorflow as tf", "import os; import numpy as np, tensorflow as tf", 1)
    out = converted(src)
    assert out.startswith("import os\nimport numpy as np\nimport tensorflow as tf\nimport keras\n")


def test_keras_layers_collected_in_a_list_and_called_in_a_loop():
    forward = '''
    hidden = [tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dropout(0.0), tf.keras.layers.Dense(3)]
    logits = features["x"]
    for layer in hidden:
        logits = layer(logits, training=mode == tf.estimator.ModeKeys.TRAIN)
    '''
    out = converted(tutorial(forward=forward))
    layers = init(out)
    # TF1 named them dense, dropout, dense_1 (Keras' per-class counters, no enclosing scope)
    assert 'keras.layers.Dense(units=8, activation="relu", name="dense")' in layers
    assert 'keras.layers.Dense(units=3, name="dense_1")' in layers
    assert "for layer in self.hidden:\n            logits = layer(logits, training=training)" in out
    assert 'for index, layer in enumerate(self.hidden):  # named for tf.train.Checkpoint' in layers
    assert 'setattr(self, f"hidden__{index}", layer)' in layers


def test_other_statements_in_a_loop_over_keras_layers_block():
    forward = '''
    hidden = [tf.keras.layers.Dense(8), tf.keras.layers.Dense(3)]
    logits = features["x"]
    for layer in hidden:
        logits = tf.nn.relu(layer(logits))
    '''
    result = blocked(tutorial(forward=forward))
    assert codes(result) == {"TFM501"} and "in a loop over Keras layers is not converted" in result.diagnostics[0].message
