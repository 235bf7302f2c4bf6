"""Canned estimators' heads (rules/planners/heads.py): weight_column, label_vocabulary, evaluate()'s keys per head.

Program shapes as users write them: module level, main(), a helper returning the estimator, positional arguments,
v1 and v2 classes, Keras fit and the custom loop (MultiWorkerMirroredStrategy).
"""
from __future__ import annotations

import textwrap

import pytest

from tests.rewrite._helpers import blocked, codes, converted, section

HEADER = '''\
import tensorflow as tf

LABELS = ["no", "yes"]


def input_fn():
    features = {"a": [0.5, 1.5], "w": [1.0, 2.0]}
    return tf.data.Dataset.from_tensor_slices((features, ["no", "yes"])).batch(2)
'''


def program(body: str) -> str:
    return HEADER + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


HELPER = program('''
def build(model_dir):
    columns = [tf.feature_column.numeric_column("a")]
    return tf.estimator.DNNClassifier([4], columns, model_dir, weight_column="w", label_vocabulary=LABELS)


def main():
    est = build("/tmp/head")
    est.train(input_fn, max_steps=5)
    print(est.evaluate(input_fn))


main()
''')

BINARY_KEYS = ["accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss", "label/mean",
               "precision", "prediction/mean", "recall"]


def _names(build: str) -> list[str]:
    import re

    return re.findall(r'name="([^"]+)"\)', build)


def test_weights_and_vocabulary_in_the_loss_and_the_metrics_under_fit():
    text = converted(HELPER)
    model = section(text, "class DNNClassifierModel(keras.Model):", "def build_dnn_classifier")
    # the head's labels are vocabulary ids, its weights the weight column read as a numeric column of shape 1
    assert "return label_ids(labels, ['no', 'yes']), numeric_input(features, \"w\", 1)" in model
    # Keras fit cannot take weights from a features dict: the model hands them to the loss and the metrics
    assert "def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):" in model
    assert "def compute_metrics(self, x, y, y_pred, sample_weight=None):" in model
    build = section(text, "def build_dnn_classifier", "def build(")
    # v2: SUM_OVER_BATCH_SIZE (Keras' default divides sum(w * loss) by the number of examples, as TF 2.15 did)
    assert "loss=keras.losses.BinaryCrossentropy(from_logits=True)," in build
    # only compile(weighted_metrics=...) gets the sample weights in Keras 3
    assert "weighted_metrics=[" in build and "\n        metrics=[" not in build
    assert sorted(_names(build)) == BINARY_KEYS
    assert 'keras.metrics.AUC(name="auc")' in build and 'keras.metrics.AUC(curve="PR"' in build
    assert "GlobalStep(lambda: model.optimizer.iterations)" in build
    assert "def label_ids(labels, vocabulary):" in text and "class AccuracyBaseline(keras.metrics.Mean):" in text
    assert "TF1AUC" not in text  # v2 heads used keras AUC


def test_v1_binary_head_uses_tf1_auc_and_sums_the_weighted_loss():
    src = HELPER.replace("tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier")
    text = converted(src)
    build = section(text, "def build_dnn_classifier", "def build(")
    assert 'TF1AUC(name="auc")' in build and 'TF1AUC(curve="PR", name="auc_precision_recall")' in build
    assert 'reduction="sum"' in build
    assert "class TF1AUC(keras.metrics.AUC):" in text


def test_multi_class_and_regression_keys():
    src = program('''
    columns = [tf.feature_column.numeric_column("a")]
    classifier = tf.estimator.LinearClassifier(columns, n_classes=3, weight_column=tf.feature_column.numeric_column("w"))
    classifier.train(input_fn, max_steps=2)
    regressor = tf.estimator.DNNRegressor(hidden_units=[3], feature_columns=columns)
    regressor.train(input_fn, max_steps=2)
    ''')
    text = converted(src)
    linear = section(text, "def build_linear_classifier", "class DNNRegressorModel")
    assert sorted(_names(linear)) == ["accuracy", "average_loss"]
    assert '"multi_class", "class_ids"' in linear and "weighted_metrics=[" in linear
    model = section(text, "class LinearClassifierModel(keras.Model):", "def build_linear_classifier")
    assert 'return labels, numeric_input(features, "w", 1)' in model  # no vocabulary: labels as given
    regressor = section(text, "def build_dnn_regressor", "classifier = ")
    assert sorted(_names(regressor)) == ["average_loss", "label/mean", "prediction/mean"]
    assert "\n        metrics=[" in regressor  # no weights: the plain metrics list
    assert "def head_targets" not in section(text, "class DNNRegressorModel(keras.Model):", "def build_dnn_regressor")


def test_custom_loop_passes_weights_to_loss_and_metrics():
    src = program('''
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    est = tf.estimator.DNNClassifier(
        hidden_units=[4],
        feature_columns=[tf.feature_column.numeric_column("a")],
        weight_column="w",
        label_vocabulary=["no", "yes"],
        config=tf.estimator.RunConfig(train_distribute=strategy),
    )
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=4),
                                    tf.estimator.EvalSpec(input_fn))
    ''')
    text = converted(src)
    step = section(text, "        def step_fn(", "        @tf.function")
    assert "labels, weights = model.head_targets(features, labels)" in step
    assert "tf.nn.compute_average_loss(loss_fn(labels, outputs, sample_weight=weights))" in step
    evaluate = section(text, "        def eval_step(", "        for features, labels in dataset:")
    assert "metric.update_state(labels, outputs, sample_weight=weights)" in evaluate
    assert "GlobalStep" not in text  # the loop reports global_step itself
    assert "def compute_loss" not in text


@pytest.mark.parametrize("argument, words", [
    ("weight_column=tf.feature_column.numeric_column('w', shape=(2,))", "shape 1"),
    ("weight_column=tf.feature_column.bucketized_column(tf.feature_column.numeric_column('w'), [1.0])",
     "numeric_column"),
    ("label_vocabulary=['no', 'yes', 'maybe']", "n_classes=2"),
    ("label_vocabulary=['no', 'no']", "repeats"),
    ("label_vocabulary=[0, 1]", "strings"),
])
def test_head_arguments_not_converted_exactly_block_at_their_line(argument, words):
    src = program(f'''
    est = tf.estimator.DNNClassifier(
        hidden_units=[4],
        feature_columns=[tf.feature_column.numeric_column("a")],
        {argument},
    )
    est.train(input_fn, max_steps=2)
    ''')
    result = blocked(src)
    assert "TFM620" in codes(result), [d.format() for d in result.diagnostics]
    (diag,) = [d for d in result.diagnostics if d.code == "TFM620"]
    assert words in diag.message
    assert argument.split("=")[0] in src.splitlines()[diag.line - 1]


def test_batch_norm_after_each_hidden_layer_and_its_dropout():
    src = program('''
    est = tf.estimator.DNNRegressor([4, 2], [tf.feature_column.numeric_column("a")], dropout=0.1, batch_norm=True)
    est.train(input_fn, max_steps=2)
    ''')
    text = converted(src)
    model = section(text, "class DNNRegressorModel(keras.Model):", "def build_dnn_regressor")
    # named batchnorm_<i>: verify and model_dir loading map dnn/hiddenlayer_<i>/batchnorm_<i>/gamma by scoped name
    assert 'TF1BatchNormalization(momentum=0.999, name=f"batchnorm_{index}")' in model
    loop = section(model, "        for index, layer in enumerate(self.hidden_layers):", "        return")
    assert loop.index("self.dropout_layers[index]") < loop.index("self.batch_norm_layers[index](net, training=training)")
    support = section(text, "class TF1BatchNormalization(keras.layers.Layer):", "class DNNRegressorModel")
    assert "tf.nn.moments(inputs, self.reduction)" in support
    assert "assign_sub((self.moving_mean - mean) * decay)" in support


def test_batch_norm_under_a_strategy_blocks():
    src = program('''
    est = tf.estimator.DNNRegressor(
        [4], [tf.feature_column.numeric_column("a")], batch_norm=True,
        config=tf.estimator.RunConfig(train_distribute=tf.distribute.MirroredStrategy()))
    est.train(input_fn, max_steps=2)
    ''')
    (diag,) = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "distribution strategy" in diag.message
    assert "batch_norm=True" in src.splitlines()[diag.line - 1]


def test_head_values_local_to_main_travel_in_params():
    src = program('''
    def main(argv):
        labels, weight_key = argv[1].split(","), argv[2]
        est = tf.estimator.LinearClassifier(
            [tf.feature_column.numeric_column("a")], weight_column=weight_key, label_vocabulary=labels)
        est.train(input_fn, max_steps=2)


    main(sys.argv)
    ''').replace("import tensorflow as tf", "import sys\n\nimport tensorflow as tf")
    text = converted(src)
    model = section(text, "class LinearClassifierModel(keras.Model):", "def build_linear_classifier")
    # the model's methods read the builder's params as self.params
    assert ('return label_ids(labels, self.params["label_vocabulary"]), '
            'numeric_input(features, self.params["weight_column"], 1)') in model
    assert '"weight_column": weight_key' in text and '"label_vocabulary": labels' in text


def test_predict_yields_the_binary_head_keys():
    src = HELPER.replace("    print(est.evaluate(input_fn))\n",
                         "    print(est.evaluate(input_fn))\n    for p in est.predict(input_fn):\n"
                         "        print(p[\"classes\"])\n")
    text = converted(src)
    predictions = section(text, "    def predictions(self, logits):", "    def predict_examples(")
    keys = ["logits", "logistic", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes"]
    assert all(f'"{key}": ' in predictions for key in keys)
    # class ids over [0, logit] (a logit of 0 is class 0); classes are the vocabulary strings
    assert "tf.argmax(two_class_logits, axis=-1)" in predictions
    assert "\"classes\": tf.gather(tf.constant(['no', 'yes']), class_ids)" in predictions
    assert "est.predict_examples(input_fn())" in text


def test_predict_without_vocabulary_gives_class_ids_as_strings_and_regression_predictions():
    src = program('''
    columns = [tf.feature_column.numeric_column("a")]
    classifier = tf.estimator.LinearClassifier(columns, n_classes=4)
    classifier.train(input_fn, max_steps=2)
    print(list(classifier.predict(input_fn)))
    regressor = tf.estimator.DNNRegressor([3], columns)
    regressor.train(input_fn, max_steps=2)
    print(list(regressor.predict(input_fn)))
    ''')
    text = converted(src)
    linear = section(text, "class LinearClassifierModel(keras.Model):", "def build_linear_classifier")
    assert '"classes": tf.strings.as_string(class_ids)' in linear
    assert "tf.tile(tf.strings.as_string(tf.expand_dims(tf.range(4), 0)), [batch_size, 1])" in linear
    assert '"logistic"' not in linear
    regressor = section(text, "class DNNRegressorModel(keras.Model):", "def build_dnn_regressor")
    assert 'return {"predictions": logits}' in regressor


def test_predict_and_export_in_the_custom_loop():
    src = program('''
    est = tf.estimator.DNNClassifier(
        hidden_units=[4], feature_columns=[tf.feature_column.numeric_column("a")],
        config=tf.estimator.RunConfig(train_distribute=tf.distribute.MultiWorkerMirroredStrategy()))
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=2),
                                    tf.estimator.EvalSpec(input_fn, steps=1))  # est.train under MWMS: TFM701
    predictions = list(est.predict(input_fn))
    ''')
    text = converted(src)
    assert "def predict(self, dataset, predict_keys=None, yield_single_examples=True):" in text
    assert "def predict_examples(" in section(text, "class DNNClassifierModel(keras.Model):", "class DNNClassifierTrainer")
    exporting = src + ('est.export_saved_model("/tmp/export", tf.estimator.export.build_parsing_serving_input_receiver_fn('
                       '{"a": tf.io.FixedLenFeature([1], tf.float32)}))\n')
    text = converted(exporting)
    model = section(text, "class DNNClassifierModel(keras.Model):", "class DNNClassifierTrainer")
    # the binary head's four signatures, written by the same methods as a model_fn's export_outputs
    assert '"serving_default": "classify",' in model and '"regression": "regress",' in model
    assert '"regression": {"outputs": predictions["logistic"]},' in model
    assert "def write_signatures(self, export_dir_base, input_signature, to_features):" in model
    assert "est.model.export_parsing_saved_model(" in text


def test_export_writes_the_heads_signatures_under_fit():
    src = program('''
    def build(columns):
        return tf.compat.v1.estimator.LinearClassifier(columns, "/tmp/lin", 3, label_vocabulary=["x", "y", "z"])


    def main():
        columns = [tf.feature_column.numeric_column("a")]
        est = build(columns)
        est.train(input_fn, max_steps=2)
        spec = tf.feature_column.make_parse_example_spec(columns)
        path = est.export_saved_model("/tmp/export", tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
        regressor = tf.estimator.BaselineRegressor()
        regressor.train(input_fn, max_steps=2)
        regressor.export_saved_model("/tmp/base", tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
        return path
    ''')
    text = converted(src)
    linear = section(text, "class LinearClassifierModel(keras.Model):", "def build_linear_classifier")
    # multi-class: classify (the vocabulary per example, the probabilities) and predict; no regression signature
    assert ('EXPORT_OUTPUTS = {"serving_default": "classify", "classification": "classify", "predict": "predict"}'
            in linear)
    assert 'classification = {"classes": predictions["all_classes"], "scores": predictions["probabilities"]}' in linear
    assert "tf.tile(tf.constant([['x', 'y', 'z']]), [batch_size, 1])" in linear
    assert "def export_parsing_saved_model(" in linear and "def predict_examples(" not in linear
    baseline = section(text, "class BaselineRegressorModel(keras.Model):", "def build_baseline_regressor")
    assert 'EXPORT_OUTPUTS = {"serving_default": "regress", "regression": "regress", "predict": "predict"}' in baseline
    assert 'regression = {"outputs": predictions["predictions"]}' in baseline
    # the columns stay: the parsing spec the export reads is made from them
    assert 'columns = [tf.feature_column.numeric_column("a")]' in text
    assert 'est.export_parsing_saved_model("/tmp/export", spec)' in text


@pytest.mark.parametrize("receiver, method", [
    ('tf.estimator.export.build_raw_serving_input_receiver_fn({"a": tf.zeros([1, 1])})', "export_raw_saved_model"),
    ("serving", "export_receiver_saved_model"),
])
def test_export_with_a_raw_or_handwritten_receiver(receiver, method):
    src = program(f'''
    est = tf.estimator.DNNRegressor([4], [tf.feature_column.numeric_column("a")])
    est.train(input_fn, max_steps=2)
    est.export_saved_model("/tmp/export", {receiver})
    ''')
    if receiver == "serving":  # a hand-written receiver of one string tensor: every signature, serving_default too
        src = src.replace("\n\nest = ", '''

def serving():
    examples = tf.compat.v1.placeholder(tf.string, [None])
    features = tf.io.parse_example(examples, {"a": tf.io.FixedLenFeature([1], tf.float32)})
    return tf.estimator.export.ServingInputReceiver(features, {"examples": examples})


est = ''', 1)
    text = converted(src)
    model = section(text, "class DNNRegressorModel(keras.Model):", "def build_dnn_regressor")
    assert f"def {method}(" in model and f"est.{method}(" in text
    # the regression signatures need one string input; without it the Estimator wrote "predict" alone, and so
    # does write_signatures: no serving_default added (tf.saved_model.save with the signatures as they are)
    assert 'if method != "predict" and not examples:' in model
    assert "tf.saved_model.save(module, temp_dir, signatures={" in model


def test_export_with_nothing_trained_before_it_restores_the_estimators_checkpoint():
    src = program('''
    def main():
        est = tf.estimator.DNNClassifier([4], [tf.feature_column.numeric_column("a")], model_dir="/tmp/m")
        est.export_saved_model("/tmp/e", tf.estimator.export.build_parsing_serving_input_receiver_fn(
            {"a": tf.io.FixedLenFeature([1], tf.float32)}))
    ''')
    text = converted(src)
    main = text[text.index("def main():"):]
    assert main.index("est.restore_checkpoint(") < main.index("est.export_parsing_saved_model(")
    assert "required=True" in main  # no checkpoint: the Estimator's export raised
    assert "    def tf1_variables(self):" in text and "    def restore_model_dir(" not in text


def test_baseline_estimators_are_a_bias_per_output():
    src = program('''
    def main():
        classifier = tf.compat.v1.estimator.BaselineClassifier("/tmp/base", 2, label_vocabulary=LABELS)
        classifier.train(input_fn, max_steps=2)
        regressor = tf.estimator.BaselineRegressor(weight_column="w")
        regressor.train(input_fn, max_steps=2)
    ''')
    text = converted(src)
    classifier = section(text, "class BaselineClassifierModel(keras.Model):", "def build_baseline_classifier")
    # baseline/bias by name; the batch size from the features, as baseline.py read it
    assert 'self.baseline = BaselineBias(1, name="baseline")' in classifier
    assert "tf.math.multiply(self.bias, tf.ones([tf.shape(feature)[0], self.bias.shape[0]]))" in text
    build = section(text, "def build_baseline_classifier", "class BaselineRegressorModel")
    # v1: the string 'Ftrl' at baseline.py's 0.3, the loss summed; TF1AUC for the v1 binary head
    assert "learning_rate=0.3" in build and 'reduction="sum"' in build and 'TF1AUC(name="auc")' in build
    regressor = section(text, "def build_baseline_regressor", "def main")
    assert "TF1Ftrl(learning_rate=0.3)" in regressor and "weighted_metrics=[" in regressor
    assert "tf.feature_column" not in text


def test_baseline_without_an_optimizer_blocks():
    src = program('''
    est = tf.estimator.BaselineRegressor(optimizer=None)
    est.train(input_fn, max_steps=2)
    ''')
    assert "TFM620" in codes(blocked(src))


@pytest.mark.parametrize("case", ["canned_baseline", "canned_v1_head_metrics"])
def test_head_code_follows_the_files_tensorflow_alias(case):
    """heads.py writes Python strings: their `tf.` must become the file's own alias like the templates' (it was a
    literal `tf` that `import tensorflow.compat.v1 as tf1` never bound: a NameError at run time)."""
    import re as _re
    from pathlib import Path as _Path

    from _helpers import converted

    src = (_Path(__file__).resolve().parents[2] / "fixtures" / case / "original.py").read_text()
    src = _re.sub(r"^import tensorflow as tf$", "import tensorflow.compat.v1 as tf1", src, flags=_re.M)
    src = _re.sub(r"\btf\.", "tf1.", src)
    out = converted(src)  # asserts every name the output uses is bound
    assert "import tensorflow as tf1" in out
