"""The heads of canned estimators (part of TFM620): example weights, label vocabularies, evaluate()'s metrics.

rules/planners/canned.py builds the network; this module reads the head arguments of the canned class and says what the
generated model computes for loss and metrics, as tensorflow_estimator 2.15's heads did (head/*.py for v2
classes, canned/head.py for v1):
- `weight_column` (a key, or `numeric_column(key)` with its normalizer_fn, shape 1): the per-example weights,
  read from the features as a numeric column of shape 1 ([batch, 1], float32). The loss is
  `sum(weight * loss)` reduced as the class did: SUM_OVER_BATCH_SIZE divides by the number of examples (not by
  the weight sum: keras' compute_weighted_loss, checked with TF 2.15), SUM does not divide. Every metric is
  weighted by them.
- `label_vocabulary` (a list or tuple of strings): labels become their index in the vocabulary before the loss
  and the metrics; a label outside it fails the step, as TF1's label range check did (`label_ids`).
- evaluate() returns the keys of the head (TF 2.15 runs): binary: accuracy, accuracy_baseline, auc,
  auc_precision_recall, average_loss, label/mean, loss, precision, prediction/mean, recall, global_step;
  multi-class: accuracy, average_loss, loss, global_step; regression: average_loss, label/mean, loss,
  prediction/mean, global_step. Each metric gets what the head's update_metrics gave it (`HeadMetric`): class
  ids (binary: argmax over [0, logit], so a logit of 0 is class 0), the logistic, the processed labels, the
  unreduced loss. auc and auc_precision_recall: v2 heads used keras AUC (200 thresholds, "interpolation"),
  generated as keras.metrics.AUC; v1 heads used tf.compat.v1.metrics.auc (trapezoidal, 1e-7 in the rates'
  denominators), generated as `TF1AUC`. `loss` is TF1's mean of the per-batch training loss: Keras' loss tracker
  weighs batches by their size, so the generated `test_step` (rules/emit/templates/test_step.py.j2, also in model_fn
  models) adds each batch's loss once, and so does the custom loop's evaluation. global_step: the
  optimizer's iterations (`GlobalStep` under Keras fit; the custom loop adds it itself).
- `batch_norm=True` (DNN and the DNN part of wide & deep): tensorflow_estimator's dnn.py put
  tf.keras.layers.BatchNormalization(momentum=0.999) named `hiddenlayer_<i>/batchnorm_<i>` after each hidden layer
  (after its dropout), its moving averages updated by the train op. Generated: `TF1BatchNormalization` named
  `batchnorm_<i>` (its gamma, beta, moving_mean, moving_variance map by scoped name), with tf_keras 2.15's
  arithmetic for 2-D inputs (tf.nn.moments, tf.nn.batch_normalization, var - (var - value) * (1 - momentum));
  keras.layers.BatchNormalization computes the variance as E[x^2] - E[x]^2. The same class serves
  tf.compat.v1.layers.batch_normalization in a model_fn (rules/planners/layers.py: its fused 4-D arithmetic). One process only: under a strategy
  TFM620 blocks (TF1 kept the moving averages per replica and saved their mean across workers).
  fixtures/canned_batch_norm: equivalent within tolerance (max rel Δ 3e-6 over 100 steps; step 0 bit-equal,
  later steps differ in the last bits from the first gradient on).
- `predict()` after training (the driver's predict_examples, rules/emit/templates/predict_examples.py.j2): the head's
  PREDICT outputs from `predictions(logits)`: binary logits, logistic, probabilities (softmax over [0, logit]),
  class_ids (int64, [batch, 1]), classes (vocabulary strings, else the id as a string), all_class_ids (int32),
  all_classes; multi-class the same without logistic; regression {"predictions": logits}.
  fixtures/canned_predict: 64 predictions, every key, dtype and shape equal, 861/896 values bit-equal, max |Δ| 6e-8.
- `export_saved_model` / exporters after training: the head's export outputs
  (`export_outputs_method`: EXPORT_OUTPUTS and export_outputs(logits), written by the model's
  write_signatures as a model_fn's export_outputs are, rules/planners/export_outputs.py), the same in v1 canned/head.py and v2
  head/*.py: multi-class and binary `serving_default` and `classification` = ClassificationOutput(scores=
  probabilities, classes=all_classes: the vocabulary, else the ids as strings, tiled per example), binary also
  `regression` = RegressionOutput(logistic), regression `serving_default` and `regression` =
  RegressionOutput(predictions), every head `predict` = PredictOutput(all PREDICT outputs). fixtures canned_export
  (3 classes, vocabulary), canned_export_binary, canned_export_regressor (v1): signatures, names, dtypes, shapes and
  values and SignatureDef method names equal (tests/fixtures_run/test_export_signatures.py); canned_export_raw: a raw
  receiver, `predict` alone and no serving_default, as the Estimator wrote it (its classify/regress signatures take
  one string tensor).
Keras target: the generated model overrides `compute_loss` and `compute_metrics` to map labels and read weights
from the features (a features dict cannot carry Keras sample weights); the custom loop calls `head_targets`.

Blocked (TFM620, at the argument): batch_norm that is not a literal True/False or is True under a strategy, a
weight_column that is not a key or a numeric_column of shape 1, a
label_vocabulary that is not a list of strings or whose length is not n_classes, weights or a vocabulary on a
head whose class does not take them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

CODE = "TFM620"
HEAD_PARTS = ("label_ids", "HeadMetric", "AccuracyBaseline", "TF1AUC", "GlobalStep", "TF1BatchNormalization",
              "BaselineBias")


@dataclass
class Head:
    kind: str  # binary | multi_class | regression
    v1: bool
    weight: str | None = None  # code of the weight input: numeric_input(features, "w", 1, ...)
    vocabulary: str | None = None  # code of the label vocabulary (a list literal, a module name, params[...])
    parts: list[str] = field(default_factory=list)
    n_classes: int = 2
    # labels reshaped to [batch, 1] as TF1's logistic and regression heads did, for tf_keras (parameter servers):
    # its losses squeeze [batch, 1] logits against [batch] labels and average over the batch before any reduction
    reshape_labels: bool = False

    @property
    def targets(self) -> bool:
        """Whether the labels or weights come from more than the labels the input_fn gave."""
        return self.weight is not None or self.vocabulary is not None or self.reshape_labels

    def metrics(self, target: str) -> list[str]:
        """The metric objects evaluate() reports (the loss and, for the custom loop, global_step come apart)."""
        kind = f'"{self.kind}"'
        one = lambda metric, feed, name=None: (  # noqa: E731
            f'HeadMetric({metric}, {kind}, "{feed}"' + (f', name="{name}")' if name else ")"))
        out = []
        if self.kind == "binary":
            auc = "TF1AUC" if self.v1 else "keras.metrics.AUC"
            out = [one('keras.metrics.Accuracy(name="accuracy")', "class_ids"),
                   one('AccuracyBaseline(name="accuracy_baseline")', "labels"),
                   one(f'{auc}(name="auc")', "logistic"),
                   one(f'{auc}(curve="PR", name="auc_precision_recall")', "logistic"),
                   one('keras.metrics.Mean(name="average_loss")', "loss"),
                   one('keras.metrics.Mean(name="label/mean")', "labels"),
                   one('keras.metrics.Precision(name="precision")', "class_ids"),
                   one('keras.metrics.Mean(name="prediction/mean")', "prediction"),
                   one('keras.metrics.Recall(name="recall")', "class_ids")]
        elif self.kind == "multi_class":
            out = [one('keras.metrics.Accuracy(name="accuracy")', "class_ids"),
                   one('keras.metrics.Mean(name="average_loss")', "loss")]
        else:
            out = [one('keras.metrics.Mean(name="average_loss")', "loss"),
                   one('keras.metrics.Mean(name="label/mean")', "labels"),
                   one('keras.metrics.Mean(name="prediction/mean")', "prediction")]
        if target == "keras":
            out.append("GlobalStep(lambda: model.optimizer.iterations)")
        return out

    def support(self, target: str) -> list[str]:
        need = ["HeadMetric"]
        if self.vocabulary is not None:
            need.append("label_ids")
        if self.kind == "binary":
            need.append("AccuracyBaseline")
            if self.v1:
                need.append("TF1AUC")
        if target == "keras":
            need.append("GlobalStep")
        return need

    def methods(self, target: str) -> str:
        """The model's methods that give the head its labels and weights ("" when the input_fn's labels serve)."""
        if not self.targets:
            return ""
        labels = f"label_ids(labels, {self.vocabulary})" if self.vocabulary is not None else "labels"
        doc = "The labels (as label_vocabulary ids) and example weights the head used."
        if self.reshape_labels:
            labels = f"tf.reshape({labels}, [-1, 1])"
            if not self.vocabulary and not self.weight:
                doc = "The labels as the head used them: [batch, 1], like the logits."
        weights = self.weight if self.weight is not None else "None"
        text = (
            "\n    def head_targets(self, features, labels):\n"
            f'        """{doc}"""\n'
            f"        return {labels}, {weights}\n")
        if target == "keras":
            text += (
                "\n    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):\n"
                "        y, sample_weight = self.head_targets(x, y)\n"
                "        return super().compute_loss(x, y, y_pred, sample_weight, training)\n"
                "\n    def compute_metrics(self, x, y, y_pred, sample_weight=None):\n"
                "        y, sample_weight = self.head_targets(x, y)\n"
                "        return super().compute_metrics(x, y, y_pred, sample_weight)\n")
        return text

    def predictions_method(self) -> str:
        """The model's predictions(logits): what the head returned for ModeKeys.PREDICT (TF 2.15 heads)."""
        head = "\n    def predictions(self, logits):\n"
        head += f'        """What the {self.kind.replace("_", "-")} head returned for ModeKeys.PREDICT."""\n'
        if self.kind == "regression":
            return head + '        return {"predictions": logits}\n'
        n = self.n_classes
        if self.kind == "binary":
            lines = ["two_class_logits = tf.concat([tf.zeros_like(logits), logits], axis=-1)",
                     "class_ids = tf.expand_dims(tf.argmax(two_class_logits, axis=-1), -1)"]
            probabilities = "tf.nn.softmax(two_class_logits)"
        else:
            lines = ["class_ids = tf.expand_dims(tf.argmax(logits, axis=-1), -1)"]
            probabilities = "tf.nn.softmax(logits)"
        lines.append("batch_size = tf.shape(logits)[0]")
        if self.vocabulary is not None:
            classes = f"tf.gather(tf.constant({self.vocabulary}), class_ids)"
            all_classes = f"tf.tile(tf.constant([{self.vocabulary}]), [batch_size, 1])"
        else:
            classes = "tf.strings.as_string(class_ids)"
            all_classes = f"tf.tile(tf.strings.as_string(tf.expand_dims(tf.range({n}), 0)), [batch_size, 1])"
        entries = [("logits", "logits")]
        if self.kind == "binary":
            entries.append(("logistic", "tf.sigmoid(logits)"))
        entries += [("probabilities", probabilities), ("class_ids", "class_ids"), ("classes", classes),
                    ("all_class_ids", f"tf.tile(tf.expand_dims(tf.range({n}), 0), [batch_size, 1])"),
                    ("all_classes", all_classes)]
        body = "".join(f"        {line}\n" for line in lines)
        body += "        return {\n" + "".join(f'            "{k}": {v},\n' for k, v in entries) + "        }\n"
        return head + body

    def export_outputs_method(self) -> str:
        """EXPORT_OUTPUTS and export_outputs(logits): the signatures the head's PREDICT spec named (v1 canned/head.py
        and v2 head/*.py alike): classifiers serve a classification ("classes": all_classes, the vocabulary or the
        ids as strings, tiled per example; "scores": probabilities) as serving_default and "classification", the
        binary head adds "regression" (the logistic); regressors serve a regression of the predictions as
        serving_default and "regression"; every head adds "predict", all of its PREDICT outputs."""
        if self.kind == "regression":
            methods = {"serving_default": "regress", "regression": "regress", "predict": "predict"}
            entries = [("serving_default", "regression"), ("regression", "regression"), ("predict", "predictions")]
            first = '        regression = {"outputs": predictions["predictions"]}\n'
        else:
            methods = {"serving_default": "classify", "classification": "classify"}
            entries = [("serving_default", "classification"), ("classification", "classification")]
            if self.kind == "binary":
                methods["regression"] = "regress"
                entries.append(("regression", '{"outputs": predictions["logistic"]}'))
            methods["predict"] = "predict"
            entries.append(("predict", "predictions"))
            first = ('        classification = {"classes": predictions["all_classes"], '
                     '"scores": predictions["probabilities"]}\n')
        body = "\n    # the signatures the head exported (predict, classify, regress)\n"
        line = "    EXPORT_OUTPUTS = {" + ", ".join(f'"{k}": "{v}"' for k, v in methods.items()) + "}\n"
        if len(line) > 116:  # the binary head's four: one per line
            line = ("    EXPORT_OUTPUTS = {\n" + "".join(f'        "{k}": "{v}",\n' for k, v in methods.items())
                    + "    }\n")
        body += line
        body += "\n    def export_outputs(self, logits):\n"
        body += ('        """What the head returned as export_outputs for ModeKeys.PREDICT: each signature\'s '
                 'outputs by name."""\n')
        body += "        predictions = self.predictions(logits)\n" + first
        body += "        return {\n" + "".join(f'            "{k}": {v},\n' for k, v in entries) + "        }\n"
        return body


def read(reader, args: dict, name: str, kind: str, head: str, v1: bool, n_classes: int | None) -> Head:
    """The head of one canned estimator call from its bound arguments (`reader`: canned.Reader)."""
    out = Head(head, v1, n_classes=n_classes or 1)
    weight = args.get("weight_column")
    if weight is not None and not _is_none(weight.node):
        out.weight = _weight(reader, weight, name)
    vocabulary = args.get("label_vocabulary")
    if vocabulary is not None and not _is_none(vocabulary.node):
        out.vocabulary = _vocabulary(reader, vocabulary, name, n_classes)
    return out


def _is_none(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _weight(reader, value: Value, name: str) -> str:
    r = reader.resolve(value, "weight_column", CODE)
    if isinstance(r.node, cst.Call):
        path = reader.analysis.tf(r.node, r.value.file)
        if path != "feature_column.numeric_column":
            raise Blocked(CODE, f"{name}(weight_column=`{code(value.node)[:60]}`): a weight column is a feature key "
                                "or a numeric_column; this one is not converted", value.node)
        column = reader.column(value)
        if column.runtime is not None or column.size != 1:
            raise Blocked(CODE, f"{name}(weight_column=...): the weight column must have shape 1 (one weight per "
                                "example), as the head required", value.node)
        return column.input_code()  # numeric_input(features, key, 1[, normalizer_fn]): as TF1 read the column
    if isinstance(r.node, cst.SimpleString):
        key = r.node.evaluated_value
        if not isinstance(key, str):
            raise Blocked(CODE, f"{name}(weight_column=...) must be a string key", value.node)
        return f'numeric_input(features, "{key}", 1)'
    return f"numeric_input(features, {_in_model(reader.carry('weight_column', value))}, 1)"


def _vocabulary(reader, value: Value, name: str, n_classes: int | None) -> str:
    try:
        got = reader.literal(value, "label_vocabulary", CODE)
    except Blocked:
        # a value known only where the Estimator is built: its entries are checked when the labels are mapped
        return _in_model(reader.carry("label_vocabulary", value))
    if not isinstance(got, list) or not got or not all(isinstance(v, str) for v in got):
        raise Blocked(CODE, f"{name}(label_vocabulary=...) must be a list or tuple of strings", value.node)
    if n_classes is not None and len(got) != n_classes:
        raise Blocked(CODE, f"{name}(label_vocabulary=...) has {len(got)} entries for n_classes={n_classes}: give "
                            "one entry per class (TF1 refused such a multi-class head, and a binary head failed at run "
                            "time on labels past the second entry)", value.node)
    if len(set(got)) != len(got):
        raise Blocked(CODE, f"{name}(label_vocabulary=...) repeats an entry; TF1's lookup table refused it",
                      value.node)
    return repr(got)


def _in_model(text: str) -> str:
    """Carried code as the model's methods read it: the builder's params are the model's self.params."""
    return f"self.{text}" if text.startswith("params[") else text


def batch_norm(reader, value: Value | None, name: str) -> bool:
    """The DNN's `batch_norm` argument: True or False as the source gives it."""
    if value is None:
        return False
    got = reader.literal(value, "batch_norm", CODE)
    if not isinstance(got, bool):
        raise Blocked(CODE, f"{name}(batch_norm=`{code(value.node)[:60]}`): a True or False tfmigrate can read from "
                            "the source is converted", value.node)
    return got


def baseline_class(class_name: str, fn_name: str, units: int) -> str:
    """The model of BaselineClassifier/Regressor: no feature columns, one bias per output (`baseline/bias`),
    logits = bias * ones([batch, units]) as baseline.py computed them (the batch size from the features)."""
    return f'''class {class_name}(keras.Model):
    """The model {fn_name} built.

    A bias per output (baseline/bias): the same logits for every example, whatever its features.
    """

    def __init__(self, params=None):
        super().__init__()
        self.params = params
        self.baseline = BaselineBias({units}, name="baseline")

    def call(self, features, training=False):
        return self.baseline(tf.nest.flatten(features)[0])
'''
