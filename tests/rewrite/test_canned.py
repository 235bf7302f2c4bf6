"""Canned estimators (TFM620) over feature columns (TFM622) → Keras models; what blocks (TFM623, TFM9xx).

Programs are written the way people write them: the estimator at module level, under `__main__`, returned by a
helper; feature columns in a list, built in a loop over names, a comprehension, a dict of columns, a helper;
arguments positional or by keyword; v2 (`tf.estimator.*`) and v1 (`tf.compat.v1.estimator.*`) classes.
"""
from __future__ import annotations

import textwrap

import pytest

from tests.rewrite._helpers import blocked, codes, converted, dotted_names, rewrite, section

INPUT = '''\
import tensorflow as tf


def train_input_fn():
    features = {"b": [[1.0, 2.0]], "a": [0.5], "c": [3.0]}
    return tf.data.Dataset.from_tensor_slices((features, [1])).batch(1).repeat()


def eval_input_fn():
    features = {"b": [[1.0, 2.0]], "a": [0.5], "c": [3.0]}
    return tf.data.Dataset.from_tensor_slices((features, [1])).batch(1)
'''


def program(body: str, header: str = INPUT) -> str:
    return header + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


MODULE_LEVEL = program('''
feature_columns = [
    tf.feature_column.numeric_column("b", shape=(2,)),
    tf.feature_column.numeric_column("a"),
]
estimator = tf.estimator.DNNClassifier(
    hidden_units=[16, 8],
    feature_columns=feature_columns,
    n_classes=3,
    model_dir="/tmp/canned",
)
estimator.train(input_fn=train_input_fn, max_steps=10)
estimator.evaluate(input_fn=eval_input_fn, steps=2)
''')


def test_dnn_classifier_module_level_becomes_a_keras_model():
    text = converted(MODULE_LEVEL)
    model = section(text, "class DNNClassifierModel(keras.Model):", "def build_dnn_classifier")
    # the Estimator's layer names (dnn/hiddenlayer_<i>, dnn/logits) so verify and model_dir loading map by name
    assert 'name=f"hiddenlayer_{index}"' in model
    assert "for index, units in enumerate([16, 8])" in model
    assert 'keras.layers.Dense(3, name="logits")' in model
    assert "activation=tf.nn.relu" in model
    # input_layer concatenated the columns sorted by name: a before b
    assert model.index('numeric_input(features, "a", 1)') < model.index('numeric_input(features, "b", 2)')
    build = section(text, "def build_dnn_classifier", "estimator = ")
    assert "keras.losses.SparseCategoricalCrossentropy(from_logits=True)" in build
    # v2 classes: the string 'Adagrad' is tf_keras' legacy Adagrad with its own default rate (0.001)
    assert "LegacyAdagrad(" in build and "learning_rate=0.001" in build and "epsilon=1e-07" in build
    assert 'HeadMetric(keras.metrics.Accuracy(name="accuracy"), "multi_class", "class_ids")' in build
    assert not any(".estimator" in d or "feature_column" in d for d in dotted_names(text))
    assert "estimator = build_dnn_classifier({})" in text
    assert "estimator.fit(" in text and "estimator.evaluate(" in text


def test_binary_classifier_is_a_logistic_head():
    src = MODULE_LEVEL.replace("    n_classes=3,\n", "")
    build = section(converted(src), "def build_dnn_classifier", "estimator = ")
    assert "keras.losses.BinaryCrossentropy(from_logits=True)" in build
    assert 'HeadMetric(keras.metrics.Accuracy(name="accuracy"), "binary", "class_ids")' in build
    assert 'keras.layers.Dense(1, name="logits")' in converted(src)


def test_v1_classifier_sums_the_loss_and_uses_tf1_adagrad():
    src = MODULE_LEVEL.replace("tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier")
    text = converted(src)
    build = section(text, "def build_dnn_classifier", "estimator = ")
    assert 'SparseCategoricalCrossentropy(from_logits=True, reduction="sum")' in build
    # v1: the string 'Adagrad' is tf.compat.v1.train.AdagradOptimizer(0.05)
    assert "keras.optimizers.Adagrad(" in build and "learning_rate=0.05" in build and "epsilon=0.0" in build


@pytest.mark.parametrize("reduction, expect", [
    ("tf.compat.v1.losses.Reduction.SUM", 'reduction="sum"'),
    ("tf.keras.losses.Reduction.SUM", 'reduction="sum"'),
    ("tf.losses.Reduction.SUM_OVER_BATCH_SIZE", "from_logits=True)"),
])
def test_loss_reduction_argument(reduction, expect):
    src = MODULE_LEVEL.replace("    n_classes=3,\n", f"    n_classes=3,\n    loss_reduction={reduction},\n")
    build = section(converted(src), "def build_dnn_classifier", "estimator = ")
    assert "SparseCategoricalCrossentropy(" + expect.split("SparseCategoricalCrossentropy(")[-1] in build or expect in build


LOOP = program('''
NUMERIC = ["c", "a"]


def main():
    columns = []
    for name in NUMERIC:
        columns.append(tf.feature_column.numeric_column(name))
    columns.append(tf.feature_column.numeric_column("b", shape=[2]))
    est = tf.estimator.DNNRegressor([4], columns)
    est.train(train_input_fn, max_steps=5)


if __name__ == "__main__":
    main()
''')
LOOP_BODY = """    columns = []
    for name in NUMERIC:
        columns.append(tf.feature_column.numeric_column(name))
    columns.append(tf.feature_column.numeric_column("b", shape=[2]))
"""


@pytest.mark.parametrize("columns", [
    LOOP_BODY,
    "    columns = [tf.feature_column.numeric_column(k) for k in NUMERIC] + [\n"
    "        tf.feature_column.numeric_column(\"b\", shape=[2])]\n",
    "    by_name = {k: tf.feature_column.numeric_column(k) for k in NUMERIC}\n"
    "    columns = list(by_name.values()) + [tf.feature_column.numeric_column(\"b\", shape=(2,))]\n",
    "    columns = [*map_columns(NUMERIC), tf.feature_column.numeric_column(\"b\", shape=2)]\n",
    # the items appended to `list()` / a copy of a list are the copy's columns too (not dropped)
    LOOP_BODY.replace("columns = []", "columns = list()"),
    ("    numeric = [tf.feature_column.numeric_column(k) for k in NUMERIC]\n    columns = list(numeric)\n"
     "    columns.append(tf.feature_column.numeric_column(\"b\", shape=[2]))\n"),
])
def test_feature_columns_from_a_loop_a_comprehension_a_dict_a_helper(columns):
    src = LOOP.replace(LOOP_BODY, columns).replace(
        "def main():", "def map_columns(names):\n    return [tf.feature_column.numeric_column(n) for n in names]\n\n\n"
                       "def main():")
    text = converted(src)
    call = section(text, "    def call(", "def build_dnn_regressor")
    assert call.index('"a", 1)') < call.index('"b", 2)') < call.index('"c", 1)')
    assert "keras.losses.MeanSquaredError()" in text
    if "append" not in columns:  # the column code only fed the estimator (code that appends stays, unused)
        assert "columns" not in section(text, "def main():", "if __name__")
        assert "NUMERIC" not in text


def test_helper_returning_the_estimator_with_positional_arguments():
    src = program('''
    def feature_columns():
        return [tf.feature_column.numeric_column(key) for key in ("a", "c")]


    def build_estimator(model_dir):
        return tf.estimator.LinearRegressor(feature_columns(), model_dir)


    def main():
        estimator = build_estimator("/tmp/linear")
        estimator.train(input_fn=train_input_fn, max_steps=10)
        print(estimator.evaluate(input_fn=eval_input_fn))


    if __name__ == "__main__":
        main()
    ''')
    text = converted(src)
    assert "return build_linear_regressor({})" in text
    model = section(text, "class LinearRegressorModel(keras.Model):", "def build_linear_regressor")
    assert 'LinearModel({"a": 1, "c": 1}, units=1)' in model
    build = section(text, "def build_linear_regressor", "def build_estimator")
    # v2 LinearRegressor: the string 'Ftrl' is legacy Ftrl at the linear learning rate 0.2, run with TF1's kernel
    assert "TF1Ftrl(" in build and "learning_rate=0.2" in build
    assert "class TF1Ftrl(keras.optimizers.Ftrl):" in text
    assert "def feature_columns" not in text  # the column helper only fed the estimator


def test_linear_optimizer_none_uses_the_column_count_rate():
    names = [f"f{i:02d}" for i in range(30)]
    src = MODULE_LEVEL.replace(
        "estimator = tf.estimator.DNNClassifier(\n    hidden_units=[16, 8],\n",
        "estimator = tf.compat.v1.estimator.LinearClassifier(\n    optimizer=None,\n").replace(
        "feature_columns = [", f"feature_columns = [tf.feature_column.numeric_column(k) for k in {names}] + [")
    build = section(converted(src), "def build_linear_classifier", "estimator = ")
    assert f"TF1Ftrl(learning_rate={1 / 32 ** 0.5!r})" in build  # min(0.2, 1/sqrt(32 columns))
    assert 'reduction="sum"' in build  # v1 default
    src = src.replace("    optimizer=None,\n", "")
    assert "TF1Ftrl(learning_rate=0.2)" in converted(src)  # the default 'Ftrl' string: the linear rate 0.2


@pytest.mark.parametrize("optimizer, expect", [
    ("'SGD'", "keras.optimizers.SGD(learning_rate=0.01"),  # v2 string: legacy SGD default rate
    ("tf.keras.optimizers.legacy.Adagrad(learning_rate=0.1)", "LegacyAdagrad(learning_rate=0.1"),
    ("tf.keras.optimizers.legacy.SGD(0.05, momentum=0.9)", "keras.optimizers.SGD(learning_rate=0.05, momentum=0.9"),
    ("tf.keras.optimizers.legacy.Ftrl(learning_rate=0.1, l1_regularization_strength=0.01)",
     "TF1Ftrl(learning_rate=0.1, l1_regularization_strength=0.01"),
])
def test_v2_optimizer_forms(optimizer, expect):
    src = MODULE_LEVEL.replace("    n_classes=3,\n", f"    n_classes=3,\n    optimizer={optimizer},\n")
    build = section(converted(src), "def build_dnn_classifier", "estimator = ")
    assert expect in build.replace("\n", " ").replace("  ", "").replace("( ", "(").replace(", )", ")")


def test_v1_optimizer_instance_and_string():
    src = MODULE_LEVEL.replace("tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier").replace(
        "    n_classes=3,\n", "    n_classes=3,\n    optimizer=tf.compat.v1.train.GradientDescentOptimizer(0.1),\n")
    assert "keras.optimizers.SGD(learning_rate=0.1)" in converted(src)
    src = src.replace("tf.compat.v1.train.GradientDescentOptimizer(0.1)", "'SGD'")
    assert "keras.optimizers.SGD(learning_rate=0.05)" in converted(src)  # v1 strings: the DNN rate 0.05


def test_optimizer_argument_local_to_main_goes_through_params():
    src = "import os\n" + program('''
    def main():
        learning_rate = float(os.environ.get("LR", "0.1"))
        columns = [tf.feature_column.numeric_column("a")]
        hidden = [8, 4]
        est = tf.compat.v1.estimator.DNNRegressor(
            hidden, columns, optimizer=tf.compat.v1.train.AdagradOptimizer(learning_rate))
        est.train(train_input_fn, max_steps=5)


    main()
    ''')
    text = converted(src)
    assert 'params["hidden_units"]' in text and 'params["optimizer_learning_rate"]' in text
    assert 'est = build_dnn_regressor({"hidden_units": hidden, "optimizer_learning_rate": learning_rate})' in text


def test_activation_and_dropout_are_carried():
    src = MODULE_LEVEL.replace("    n_classes=3,\n", "    n_classes=3,\n    activation_fn=tf.nn.tanh,\n    dropout=0.2,\n")
    result = rewrite(src)
    text = result.output.decode()
    assert "activation=tf.nn.tanh" in text
    assert "keras.layers.Dropout(0.2)" in text
    assert any(d.code == "TFM620" and "dropout" in d.message for d in result.diagnostics)


def test_normalizer_lambda_is_carried():
    src = MODULE_LEVEL.replace('tf.feature_column.numeric_column("a")',
                               'tf.feature_column.numeric_column("a", normalizer_fn=lambda x: (x - 3.0) / 2.0)')
    text = converted(src)
    assert 'numeric_input(features, "a", 1, normalizer_fn=lambda x: (x - 3.0) / 2.0)' in text


def test_multi_worker_strategy_uses_the_custom_loop():
    src = MODULE_LEVEL.replace(
        'model_dir="/tmp/canned",\n',
        'model_dir="/tmp/canned",\n    config=tf.estimator.RunConfig(\n'
        '        train_distribute=tf.distribute.experimental.MultiWorkerMirroredStrategy()),\n')
    src = src.replace("estimator.train(input_fn=train_input_fn, max_steps=10)\n"
                      "estimator.evaluate(input_fn=eval_input_fn, steps=2)\n",
                      "tf.estimator.train_and_evaluate(estimator, tf.estimator.TrainSpec(train_input_fn, max_steps=10),\n"
                      "                                tf.estimator.EvalSpec(eval_input_fn, steps=2))\n")
    text = converted(src)
    assert "class DNNClassifierTrainer:" in text
    assert "self.model = DNNClassifierModel(params)" in text
    assert 'keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")' in text


def test_canned_and_model_fn_estimators_in_one_file():
    src = MODULE_LEVEL + textwrap.dedent('''

    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["a"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    custom = tf.estimator.Estimator(model_fn=model_fn)
    custom.train(train_input_fn, max_steps=3)
    ''')
    text = converted(src)
    assert "class DNNClassifierModel(keras.Model):" in text and "class Model(keras.Model):" in text


# ---- blockers ---------------------------------------------------------------------------------------------------

def _only(result, code):
    assert code in codes(result), [d.format() for d in result.diagnostics]
    return [d for d in result.diagnostics if d.code == code]


def test_boosted_trees_is_blocked_with_advice():
    src = program('''
    columns = [tf.feature_column.bucketized_column(tf.feature_column.numeric_column("a"), [0.0, 1.0])]
    est = tf.estimator.BoostedTreesClassifier(columns, n_batches_per_layer=1)
    est.train(train_input_fn, max_steps=3)
    ''')
    (diag,) = _only(blocked(src), "TFM623")
    assert diag.line == src.splitlines().index("est = tf.estimator.BoostedTreesClassifier(columns, n_batches_per_layer=1)") + 1
    assert "decision_forests" in diag.message or "Decision Forests" in diag.message


@pytest.mark.parametrize("column", [
    'tf.feature_column.categorical_column_with_hash_bucket("a", 10)',
    'tf.feature_column.crossed_column(["a", "c"], 10)',
])
def test_unconverted_column_kinds_block_at_their_line(column):
    src = MODULE_LEVEL.replace('tf.feature_column.numeric_column("a")', column)
    (diag, *_) = _only(blocked(src), "TFM622")
    assert column.split("(")[0] in src.splitlines()[diag.line - 1]


TUTORIAL = program('''
def main(train_x):
    my_feature_columns = []
    for key in train_x.keys():
        my_feature_columns.append(tf.feature_column.numeric_column(key=key))
    classifier = tf.estimator.DNNClassifier(feature_columns=my_feature_columns, hidden_units=[10, 10], n_classes=3)
    classifier.train(input_fn=train_input_fn, max_steps=3)


main({"b": [1.0], "a": [2.0]})
main({"c": [1.0]})
''')


def test_columns_from_run_time_keys_are_sorted_at_run_time():
    """The premade-estimators tutorial: one numeric column per key of a DataFrame, known only at run time."""
    text = converted(TUTORIAL)
    assert 'classifier = build_dnn_classifier({"feature_keys": list(train_x.keys())})' in text
    call = section(text, "    def call(", "def build_dnn_classifier")
    assert '**{key: numeric_input(features, key, 1) for key in self.params["feature_keys"]},' in call
    assert "tf.concat([dnn_columns[name] for name in sorted(dnn_columns)], axis=-1)" in call
    assert call.index("sorted(dnn_columns)") < call.index("for layer in self.hidden_layers:") < call.index(
        "return self.logits(net)")


def test_linear_model_over_run_time_keys():
    src = TUTORIAL.replace("tf.estimator.DNNClassifier(feature_columns=my_feature_columns, hidden_units=[10, 10], "
                           "n_classes=3)", "tf.estimator.LinearClassifier(my_feature_columns, n_classes=3)")
    text = converted(src)
    assert 'LinearModel(dict(sorted({**{key: 1 for key in self.params["feature_keys"]}}.items())), units=3)' in text
    assert "self.linear_model([linear_columns[name] for name in sorted(linear_columns)])" in text
    blocked_src = src.replace("LinearClassifier(my_feature_columns, n_classes=3)",
                              "LinearClassifier(my_feature_columns, n_classes=3, optimizer=None)")
    (diag,) = _only(blocked(blocked_src), "TFM620")
    assert "run time" in diag.message


def test_normalizer_reading_the_run_time_key_blocks():
    src = TUTORIAL.replace("tf.feature_column.numeric_column(key=key)",
                           "tf.feature_column.numeric_column(key=key, normalizer_fn=lambda x: x / len(key))")
    _only(blocked(src), "TFM622")


@pytest.mark.parametrize("extra", [
    "weight_column=tf.feature_column.numeric_column('w', shape=(2,)),",
    "label_vocabulary=['x', 'y'],",
    "batch_norm=bool(N_CLASSES),",
    "warm_start_from='/tmp/old',",
    "optimizer=tf.keras.optimizers.legacy.Adam(amsgrad=True),",
    "optimizer=lambda *args: tf.keras.optimizers.legacy.Adagrad(0.1),",
    "n_classes=N_CLASSES,",
])
def test_arguments_not_converted_exactly_block(extra):
    src = MODULE_LEVEL.replace("    n_classes=3,\n", f"    {extra}\n" if "n_classes" in extra else f"    n_classes=3,\n    {extra}\n")
    src = src.replace("feature_columns = [", "N_CLASSES = int(open('n_classes.txt').read())\nfeature_columns = [")
    result = blocked(src)
    assert codes(result) & {"TFM620", "TFM601"}, [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("form, same_as", [
    ("lambda: tf.keras.optimizers.legacy.Adagrad(0.1)", "tf.keras.optimizers.legacy.Adagrad(0.1)"),
    ("tf.keras.optimizers.legacy.Adagrad", "tf.keras.optimizers.legacy.Adagrad()"),
])
def test_callable_optimizer_is_the_object_it_builds(form, same_as):
    """get_optimizer_instance_v2 calls a callable (a lambda, a class) once without arguments: the same optimizer as
    the object written out."""
    def build(optimizer):
        text = converted(MODULE_LEVEL.replace("    n_classes=3,\n", f"    n_classes=3,\n    optimizer={optimizer},\n"))
        return section(text, "def build_dnn_classifier", "estimator = ")

    got = build(form)
    assert got == build(same_as) and "LegacyAdagrad(" in got


def test_v1_optimizer_class_blocks():
    """TF1's get_optimizer_instance would call tf.compat.v1.train.AdagradOptimizer() without its learning_rate."""
    src = MODULE_LEVEL.replace("tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier").replace(
        "    n_classes=3,\n", "    n_classes=3,\n    optimizer=tf.compat.v1.train.AdagradOptimizer,\n")
    assert "TFM620" in codes(blocked(src))


def test_normalizer_local_to_another_function_blocks():
    src = program('''
    def main(scale):
        columns = [tf.feature_column.numeric_column("a", normalizer_fn=lambda x: x / scale)]
        est = tf.estimator.LinearRegressor(columns)
        est.train(train_input_fn, max_steps=3)
    ''')
    _only(blocked(src), "TFM622")


def test_v1_sum_loss_under_multi_worker_sums_per_replica():
    src = MODULE_LEVEL.replace("tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier").replace(
        'model_dir="/tmp/canned",\n',
        'config=tf.estimator.RunConfig(train_distribute=tf.distribute.MultiWorkerMirroredStrategy()),\n').replace(
        "estimator.train(input_fn=train_input_fn, max_steps=10)\nestimator.evaluate(input_fn=eval_input_fn, steps=2)",
        "tf.estimator.train_and_evaluate(estimator, tf.estimator.TrainSpec(train_input_fn, max_steps=10),\n"
        "                                tf.estimator.EvalSpec(eval_input_fn, steps=2))")  # est.train: blocked (TFM701)
    assert "train_and_evaluate" in src
    text = converted(src)
    assert 'self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")' in text
    step = section(text, "        def step_fn(", "        @tf.function")
    assert "loss = loss_fn(labels, outputs)" in step and "compute_average_loss" not in step


def test_explain_names_the_canned_class():
    import json
    import subprocess
    import sys
    from pathlib import Path

    path = Path("/tmp") / "tfm_canned_explain.py"
    path.write_text(MODULE_LEVEL)
    out = subprocess.run([sys.executable, "-m", "tfmigrate", "rewrite", "--explain", str(path)],
                         capture_output=True, text=True, timeout=120)
    plan = json.loads(out.stdout)
    assert "tf.estimator.DNNClassifier" in json.dumps(plan)


def test_use_inside_a_comprehension_is_rewritten():
    """An Estimator call inside a comprehension's iterable (`sorted(est.evaluate(...).items())`) is edited too."""
    src = MODULE_LEVEL.replace("estimator.evaluate(input_fn=eval_input_fn, steps=2)\n",
                               "print({k: float(v) for k, v in sorted(estimator.evaluate(eval_input_fn).items())})\n")
    text = converted(src)
    assert "sorted(estimator.evaluate(eval_input_fn(), steps=None, return_dict=True).items())" in text


def test_bucketized_column_in_a_dnn_is_one_hot_and_sorted_by_its_name():
    src = MODULE_LEVEL.replace(
        'tf.feature_column.numeric_column("a"),\n',
        'tf.feature_column.numeric_column("a"),\n'
        '    tf.feature_column.bucketized_column(tf.feature_column.numeric_column("a"), boundaries=[0, 1.5]),\n')
    text = converted(src)
    call = section(text, "    def call(", "def build_dnn_classifier")
    # "a" < "a_bucketized" < "b"
    assert call.index('numeric_input(features, "a", 1)') < call.index(
        'bucketized_input(features, "a", 1, [0.0, 1.5])') < call.index('numeric_input(features, "b", 2)')
    assert "tf.raw_ops.Bucketize(" in text and "def bucketized_input(" in text


def test_bucketized_column_in_a_linear_model_is_a_categorical_column():
    src = program('''
    age = tf.feature_column.numeric_column("a")
    est = tf.estimator.LinearRegressor([tf.feature_column.bucketized_column(age, [0.0, 1.0])])
    est.train(train_input_fn, max_steps=3)
    ''')
    text = converted(src)  # one weight row per bucket (tests/rewrite/test_canned_columns.py has the details)
    assert 'CategoricalWeights(3, 1, "sum", name="a_bucketized")' in text
    assert 'bucketized_ids(features, "a", 1, [0.0, 1.0])' in text


WIDE_DEEP = program('''
def main():
    wide = [tf.feature_column.numeric_column("c")]
    deep = [tf.feature_column.numeric_column("b", shape=(2,)), tf.feature_column.numeric_column("a")]
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[8],
        n_classes=3,
    )
    est.train(train_input_fn, max_steps=5)
''')


def test_wide_and_deep_sums_both_logits_and_keeps_two_optimizers():
    text = converted(WIDE_DEEP)
    model = section(text, "class DNNLinearCombinedClassifierModel(keras.Model):", "def build_dnn_linear")
    assert 'self.linear_model = LinearModel({"c": 1}, units=3)' in model
    assert "return self.logits(net) + linear_logits" in model
    build = section(text, "def build_dnn_linear_combined_classifier", "def main")
    # DNN: legacy Adagrad at the combined estimator's 0.001; linear: Ftrl at min(0.005, 1/sqrt(1 column))
    assert "WideDeepOptimizer(" in build and "LegacyAdagrad(" in build and "TF1Ftrl(learning_rate=0.005)" in build
    assert "lambda: model.linear_model.trainable_variables" in build
    assert "class WideDeepOptimizer(keras.optimizers.Optimizer):" in text


def test_wide_and_deep_in_the_custom_loop_refers_to_the_trainers_model():
    src = WIDE_DEEP.replace("n_classes=3,\n", "n_classes=3,\n        config=tf.estimator.RunConfig("
                            "train_distribute=tf.distribute.MultiWorkerMirroredStrategy()),\n").replace(
        "est.train(train_input_fn, max_steps=5)",
        "tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train_input_fn, 5), "
        "tf.estimator.EvalSpec(eval_input_fn))")
    assert "lambda: self.model.linear_model.trainable_variables" in converted(src)


def test_wide_and_deep_with_adam_blocks():
    # v1: TF1's Adam (beta powers of its own); the v2 legacy Adam converts (test_canned_legacy_optimizers.py)
    src = WIDE_DEEP.replace("dnn_hidden_units=[8],", "dnn_hidden_units=[8],\n        dnn_optimizer='Adam',").replace(
        "tf.estimator.DNNLinearCombinedClassifier", "tf.compat.v1.estimator.DNNLinearCombinedClassifier")
    _only(blocked(src), "TFM620")


def test_imported_class_names_and_a_class_method():
    src = program('''
    from tensorflow.compat.v1.estimator import DNNRegressor
    from tensorflow.feature_column import numeric_column


    def build():
        return DNNRegressor(hidden_units=[4], feature_columns=[numeric_column("a")])


    class Job:
        def run(self):
            est = build()
            est.train(input_fn=train_input_fn, max_steps=3)


    Job().run()
    ''')
    text = converted(src)
    assert "class DNNRegressorModel(keras.Model):" in text
    assert 'loss=keras.losses.MeanSquaredError(reduction="sum")' in text  # the v1 class, imported by name
    assert "return build_dnn_regressor({})" in text


@pytest.mark.parametrize("body, code", [
    ("est = tf.estimator.experimental.RNNClassifier(sequence_feature_columns=[], units=[4])", "TFM603"),
    ("est = tf.estimator.DNNClassifier([4], [tf.feature_column.numeric_column('a')], "
     "optimizer=tf.compat.v1.train.AdagradOptimizer(0.1))", "TFM620"),  # v2 takes Keras optimizers only
    ("est = tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.numeric_column('a')], "
     "optimizer=tf.keras.optimizers.legacy.Adagrad(0.1))", "TFM620"),  # v1 takes tf.compat.v1.train ones only
])
def test_other_kinds_and_mismatched_optimizers_block(body, code):
    src = program(body + "\nest.train(train_input_fn, max_steps=3)\n")
    _only(blocked(src), code)


V1_PS = MODULE_LEVEL.replace("tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier")


def test_v1_dnn_under_parameter_servers_carries_its_implicit_partitioner():
    """TF1's v1 canned DNN partitioned its hidden layers and logits by min_max_variable_partitioner(max_partitions=
    num_ps_replicas): the PS target gets MinSizePartitioner(256 KiB, max_shards=<ps tasks>) on its strategy."""
    text = converted(V1_PS, strategy="parameter-server")
    result = rewrite(V1_PS, strategy="parameter-server")
    assert "import tf_keras as keras" in text and "\nimport keras\n" not in text
    partitioner = section(text, "VARIABLE_PARTITIONER = ", "class DNNClassifierTrainer")
    assert "tf.distribute.experimental.partitioners.MinSizePartitioner(" in partitioner
    assert "min_shard_bytes=256 << 10" in partitioner and "max_shards=max(1, ps_task_count())" in partitioner
    assert '.cluster_spec().as_dict().get("ps", ())' in section(text, "def ps_task_count", "VARIABLE_PARTITIONER")
    assert "parameter_server_strategy(VARIABLE_PARTITIONER)" in text
    assert "self.coordinator.schedule(train_step, args=(iterator,))" in text
    trainer = section(text, "class DNNClassifierTrainer", "def parameter_server_strategy")
    # v1: tf.train.AdagradOptimizer at the DNN rate 0.05, the head's SUM reduction
    assert "keras.optimizers.Adagrad(" in trainer and "learning_rate=0.05" in trainer
    assert 'reduction="sum"' in trainer and "self.optimizer.build(" in trainer
    assert any(d.code == "TFM620" and "statistically" in d.message for d in result.diagnostics)


def test_v1_dnn_under_a_v1_parameter_server_strategy_in_run_config():
    src = V1_PS.replace(
        '    model_dir="/tmp/canned",\n',
        '    model_dir="/tmp/canned",\n    config=tf.estimator.RunConfig(train_distribute='
        'tf.compat.v1.distribute.experimental.ParameterServerStrategy()),\n')
    # TF 2.15's Estimator.train refused a PS train_distribute under a multi-worker TF_CONFIG (TFM701): the job trains
    # through train_and_evaluate, as TF1 required
    src = src.replace("estimator.train(input_fn=train_input_fn, max_steps=10)\n"
                      "estimator.evaluate(input_fn=eval_input_fn, steps=2)\n",
                      "tf.estimator.train_and_evaluate(estimator, tf.estimator.TrainSpec(train_input_fn, max_steps=10),\n"
                      "                                tf.estimator.EvalSpec(eval_input_fn, steps=2))\n")
    assert "train_and_evaluate" in src
    text = converted(src)
    assert "parameter_server_strategy(VARIABLE_PARTITIONER)" in text and "ParameterServerStrategy()" not in text


def test_v2_dnn_under_parameter_servers_keeps_its_legacy_optimizer_and_no_partitioner():
    """dnn_model_fn_v2 partitions nothing; the v2 Estimator ran tf_keras' legacy Adagrad, which tf_keras still has."""
    text = converted(MODULE_LEVEL, strategy="parameter-server")
    assert "VARIABLE_PARTITIONER" not in text and "ps_task_count" not in text
    assert "strategy = parameter_server_strategy()" in text or "parameter_server_strategy()," in text
    trainer = section(text, "class DNNClassifierTrainer", "def parameter_server_strategy")
    assert "keras.optimizers.legacy.Adagrad(" in trainer and "LegacyAdagrad" not in text
    assert "self.optimizer._create_all_weights(self.model.trainable_variables)" in trainer
    assert "self.optimizer.build(" not in trainer


@pytest.mark.parametrize("head, reshaped", [("DNNClassifier", True), ("DNNRegressor", True),
                                             ("DNNClassifier-3", False)])
def test_logistic_and_regression_labels_are_reshaped_on_tf_keras(head, reshaped):
    """TF1's heads reshaped [batch] labels to [batch, 1]; tf_keras' losses would squeeze the [batch, 1] logits
    instead and average over the batch before the SUM reduction: the PS target reshapes the labels itself."""
    src = V1_PS.replace("    n_classes=3,\n", "    n_classes=3,\n" if head.endswith("-3") else "")
    src = src.replace("DNNClassifier", head.split("-")[0])
    text = converted(src, strategy="parameter-server")
    assert ("return tf.reshape(labels, [-1, 1]), None" in text) == reshaped
    assert ("labels, weights = model.head_targets(features, labels)" in text) == reshaped
    assert "return tf.reshape(labels, [-1, 1])" not in converted(src)  # Keras 3 (no parameter servers)


@pytest.mark.parametrize("body, code, words", [
    ("est = tf.compat.v1.estimator.LinearClassifier([tf.feature_column.numeric_column('a')])",
     "TFM620", "64 MiB"),
    ("est = tf.compat.v1.estimator.DNNLinearCombinedClassifier(linear_feature_columns=["
     "tf.feature_column.numeric_column('a')], dnn_feature_columns=[tf.feature_column.numeric_column('c')], "
     "dnn_hidden_units=[4])", "TFM620", "one partitioner"),
    ("est = tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.embedding_column("
     "tf.feature_column.categorical_column_with_identity('k', 10), 3)])", "TFM622", "64 MiB"),
    ("est = tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.numeric_column('a')], dropout=0.2)",
     "TFM620", "dropout"),
    ("est = tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.numeric_column('a')], "
     "optimizer='RMSProp')", "TFM301", "tf_keras"),
    ("est = tf.compat.v1.estimator.DNNClassifier([4], [tf.feature_column.numeric_column('a')], "
     "weight_column='w')", "TFM620", "weight_column"),
])
def test_what_stays_blocked_under_parameter_servers(body, code, words):
    result = blocked(program(body + "\nest.train(train_input_fn, max_steps=3)\n"), strategy="parameter-server")
    _only(result, code)
    assert any(words in d.message for d in result.diagnostics), [d.message for d in result.diagnostics]


def test_a_taken_generated_name_blocks_under_parameter_servers():
    src = V1_PS.replace("feature_columns = [", "VARIABLE_PARTITIONER = None\nfeature_columns = [", 1)
    result = blocked(src, strategy="parameter-server")
    assert any("VARIABLE_PARTITIONER" in d.message for d in result.diagnostics)


def test_indicator_over_a_vocabulary_list_in_a_dnn():
    src = MODULE_LEVEL.replace(
        'tf.feature_column.numeric_column("a"),\n',
        'tf.feature_column.numeric_column("a"),\n'
        '    tf.feature_column.indicator_column(tf.feature_column.categorical_column_with_vocabulary_list(\n'
        '        "color", ["red", "green"], num_oov_buckets=1)),\n')
    text = converted(src)
    call = section(text, "    def call(", "def build_dnn_classifier")
    assert call.index('"b", 2)') < call.index('indicator_input(features, "color", [\'red\', \'green\'], num_oov_buckets=1)')
    assert "tf.strings.to_hash_bucket_fast(" in text


def test_indicator_column_in_a_linear_model_blocks():
    vocab = 'tf.feature_column.categorical_column_with_vocabulary_list("color", ["red", "green"])'
    linear = MODULE_LEVEL.replace("tf.estimator.DNNClassifier(\n    hidden_units=[16, 8],\n",
                                  "tf.estimator.LinearClassifier(\n").replace(
        'tf.feature_column.numeric_column("a")', f"tf.feature_column.indicator_column({vocab})")
    (diag, *_) = _only(blocked(linear), "TFM622")
    assert "linear model" in diag.message


def test_a_canned_keras_fit_resumes_from_the_estimators_model_dir():
    """An Estimator went on to max_steps from model_dir's latest checkpoint: the canned model restores it (its own
    backup, else the Estimator's TF1 checkpoint by the canned names) and fit trains only the steps left."""
    from pathlib import Path

    from tfmigrate.engine import Options, migrate_source

    src = (Path(__file__).resolve().parents[2] / "fixtures" / "canned_linear_regressor" / "original.py").read_bytes()
    result = migrate_source(src, "x.py", Options(target="keras"))
    assert result.status == "changed"
    assert not any("second run" in d.message for d in result.diagnostics)
    text = result.output.decode()
    assert "initial_step = regressor.restore_model_dir(args.model_dir, regressor.optimizer)" in text
    assert "steps_per_epoch=args.steps - initial_step," in text
    names = section(text, "    def tf1_variables(self):", "    def restore_model_dir(")
    assert 'names.update({f"linear/linear_model/{layer.name}/{weight.name}": weight' in names
    assert 'names["linear/linear_model/bias_weights"] = self.linear_model.bias' in names
    # v1: tf.compat.v1.train slots of partitioned variables, named as TF1's slot_creator cut them
    restore = section(text, "    def restore_estimator_checkpoint(", "def build_")
    assert 'f"{name}/" + f"linear/{part_name}/{slot}"[len(part_name) + 1:]' in restore
    assert "def _estimator_slots(optimizer):" in text and "_legacy_slots" not in text


def test_canned_v2_slots_and_settings_are_read_by_their_legacy_names():
    src = program('''
    def main():
        est = tf.estimator.DNNClassifier([4], [tf.feature_column.numeric_column("a")], model_dir="/tmp/m")
        est.train(train_input_fn, max_steps=3)
    ''')
    text = converted(src)
    restore = section(text, "    def restore_estimator_checkpoint(", "def build_")
    assert 'load(getattr(part, attribute)[index], f"training/{scope}/{names[id(weight)]}/{slot}")' in restore
    assert 'problems.append(f"not in this model: {\', \'.join(extra)}")' in restore
    assert 'return "Adagrad", [("_accumulators", "accumulator")]' in text
    assert 'names.update({f"dnn/{layer.name}/{weight.name}": weight for weight in layer.weights})' in text


_TWO_DEEP = 'deep = [tf.feature_column.numeric_column("b", shape=(2,)), tf.feature_column.numeric_column("a")]'


@pytest.mark.parametrize("lines, reads_both", [
    # appended before the copy: the copy holds both (TF1 took them)
    ('d0 = [tf.feature_column.numeric_column("b")]\n    d0.append(tf.feature_column.numeric_column("a"))\n'
     '    deep = list(d0)', True),
    # appended after the copy: TF1's copy held only b; reading both would silently train another model
    ('d0 = [tf.feature_column.numeric_column("b")]\n    deep = list(d0)\n'
     '    d0.append(tf.feature_column.numeric_column("a"))', False),
])
def test_an_append_after_the_list_is_copied_is_not_read_as_before(lines, reads_both):
    result = rewrite(WIDE_DEEP.replace(_TWO_DEEP, lines))
    if reads_both:
        out = result.output.decode()
        assert result.status == "changed" and 'numeric_input(features, "a"' in out and 'numeric_input(features, "b"' in out
    else:
        assert result.status == "blocked"
        [d] = [d for d in result.diagnostics if d.severity == "error"]
        assert d.code == "TFM622" and "`d0.append(...)` runs after the list is read" in d.message
        assert WIDE_DEEP.replace(_TWO_DEEP, lines).splitlines()[d.line - 1].strip().startswith("d0.append(")
