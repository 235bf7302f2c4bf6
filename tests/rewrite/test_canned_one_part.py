"""A DNNLinearCombined estimator with one part's column list empty (or None): TF 2.15 builds that part's logits as
None and trains the other part alone with its own optimizer (`_dnn_linear_combined_model_fn_v2`); both empty is
TF's ValueError. Fixture: canned_wide_only."""
from __future__ import annotations

import pytest

from tests.rewrite._helpers import blocked, converted, rewrite, section
from tests.rewrite.test_canned import WIDE_DEEP

MODEL = "class DNNLinearCombinedClassifierModel(keras.Model):"
BUILD = "def build_dnn_linear_combined_classifier"


def notes(src: str) -> list[str]:
    return [d.message for d in rewrite(src).diagnostics if d.code == "TFM620"]


@pytest.mark.parametrize("dnn", ["dnn_feature_columns=[]", "dnn_feature_columns=None", "dnn_feature_columns=()", "",
                                 "dnn_feature_columns=list()", "dnn_feature_columns=tuple()"])
def test_empty_dnn_columns_train_the_linear_part_alone_with_the_linear_optimizer(dnn):
    src = WIDE_DEEP.replace("dnn_feature_columns=deep,", f"{dnn}," if dnn else "")
    text = converted(src)
    model = section(text, MODEL, BUILD)
    assert 'self.linear_model = LinearModel({"c": 1}, units=3)' in model
    assert "hidden_layers" not in model and "self.logits" not in model and "return linear_logits" in model
    build = section(text, BUILD, "def main")
    # the combined estimator's linear default (Ftrl at min(0.005, 1/sqrt(1))), not LinearClassifier's 0.2, alone
    assert "optimizer=TF1Ftrl(learning_rate=0.005)" in build
    assert "WideDeepOptimizer" not in text and "Adagrad" not in build
    [note] = notes(src)
    assert note.startswith("DNNLinearCombinedClassifier: dnn_feature_columns is empty, so TF 2.15 built no DNN part "
                           "and trained the linear part alone with linear_optimizer (dnn_hidden_units unused")


def test_the_linear_only_model_is_the_model_without_dnn_columns():
    # `[]` and None build the same model, and the same as TF1's linear part of the full wide & deep
    empty = converted(WIDE_DEEP.replace("dnn_feature_columns=deep", "dnn_feature_columns=[]"))
    assert empty == converted(WIDE_DEEP.replace("dnn_feature_columns=deep", "dnn_feature_columns=None"))
    full = section(converted(WIDE_DEEP), MODEL, BUILD)
    assert 'self.linear_model = LinearModel({"c": 1}, units=3)' in full  # the same layer, under the same name


def test_empty_dnn_columns_need_no_hidden_units():
    # TF1 checked dnn_hidden_units only when it built the DNN
    src = WIDE_DEEP.replace("dnn_feature_columns=deep", "dnn_feature_columns=[]").replace("dnn_hidden_units=[8],", "")
    assert "return linear_logits" in converted(src)
    assert "unused" not in notes(src)[0]
    assert any(d.code == "TFM620" for d in blocked(WIDE_DEEP.replace("dnn_hidden_units=[8],", "")).diagnostics)


@pytest.mark.parametrize("empty", ["[]", "list()"])
def test_empty_linear_columns_train_the_dnn_part_alone_with_the_dnn_optimizer(empty):
    src = WIDE_DEEP.replace("linear_feature_columns=wide", f"linear_feature_columns={empty}").replace(
        "n_classes=3,", "n_classes=3,\n        linear_optimizer='Adam',")  # unused: TF1 never built it
    text = converted(src)
    model = section(text, MODEL, BUILD)
    assert "linear_model" not in model and "return self.logits(net)" in model
    build = section(text, BUILD, "def main")
    assert "LegacyAdagrad(" in build and "learning_rate=0.001" in build  # the combined DNN default, not DNN's 0.05
    assert "Ftrl" not in build and "Adam" not in build and "WideDeepOptimizer" not in text
    [note] = notes(src)
    assert "linear_feature_columns is empty" in note and "(linear_optimizer unused, dropped)" in note


def test_v1_linear_only_converts():
    src = WIDE_DEEP.replace("tf.estimator.DNNLinearCombinedClassifier", "tf.compat.v1.estimator.DNNLinearCombinedClassifier"
                            ).replace("dnn_feature_columns=deep", "dnn_feature_columns=[]")
    text = converted(src)
    assert "return linear_logits" in section(text, MODEL, BUILD)


@pytest.mark.parametrize("linear, dnn", [("[]", "[]"), ("[]", "None"), ("None", "[]"), ("list()", "tuple()")])
def test_both_parts_empty_is_reported_as_tf_raised(linear, dnn):
    src = WIDE_DEEP.replace("linear_feature_columns=wide", f"linear_feature_columns={linear}").replace(
        "dnn_feature_columns=deep", f"dnn_feature_columns={dnn}")
    [d] = blocked(src).diagnostics
    assert (d.code, d.line) == ("TFM620", 17)
    assert "Either linear_feature_columns or dnn_feature_columns must be defined." in d.message
    assert "the original never trained" in d.message


def test_a_dnn_only_model_keeps_an_empty_list_an_error():
    # outside the combined estimators an empty list is still TF1's error
    src = WIDE_DEEP.replace("tf.estimator.DNNLinearCombinedClassifier(", "tf.estimator.DNNClassifier(").replace(
        "linear_feature_columns=wide,", "").replace("dnn_feature_columns=deep", "feature_columns=[]").replace(
        "dnn_hidden_units", "hidden_units")
    assert "feature_columns is empty" in [d.message for d in blocked(src).diagnostics][0]


def test_a_list_builtin_shadowed_in_the_program_is_not_read_as_empty():
    src = WIDE_DEEP.replace("dnn_feature_columns=deep", "dnn_feature_columns=list()").replace(
        "def main():", "def list():\n    return [tf.feature_column.numeric_column('a')]\n\n\ndef main():")
    assert not notes(src)  # not the linear part alone: `list` is the program's own function
