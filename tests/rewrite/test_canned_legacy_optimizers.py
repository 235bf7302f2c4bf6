"""Canned v2 estimators given the tf.keras.optimizers.legacy optimizers TF 2.11-2.15 required (TFM620): legacy Adam
→ the generated LegacyKerasAdam, legacy RMSprop (no momentum, not centered) → LegacyRMSprop, each the legacy
arithmetic bit for bit (fixtures canned_legacy_adam, canned_legacy_rmsprop); what is not exact yet blocks at its
argument."""
from __future__ import annotations

import pytest

from tests.rewrite._helpers import blocked, converted, section
from tests.rewrite.test_canned import MODULE_LEVEL, WIDE_DEEP


def _with(optimizer: str) -> str:
    return MODULE_LEVEL.replace("    n_classes=3,\n", f"    n_classes=3,\n    optimizer={optimizer},\n")


def _build(optimizer: str) -> str:
    text = converted(_with(optimizer))
    return " ".join(section(text, "def build_dnn_classifier", "estimator = ").split()).replace("( ", "(")


@pytest.mark.parametrize("optimizer, expect", [
    ("tf.keras.optimizers.legacy.Adam(learning_rate=0.01, beta_2=0.99)",
     "LegacyKerasAdam(learning_rate=0.01, beta_2=0.99, epsilon=1e-07)"),
    ("tf.keras.optimizers.legacy.Adam(0.02, 0.8, 0.9, 1e-5)",
     "LegacyKerasAdam(learning_rate=0.02, beta_1=0.8, beta_2=0.9, epsilon=1e-5)"),
    ("'Adam'", "LegacyKerasAdam(learning_rate=0.001, epsilon=1e-07)"),  # v2 string: the legacy class's defaults
    ("lambda: tf.keras.optimizers.legacy.Adam(0.1)", "LegacyKerasAdam(learning_rate=0.1, epsilon=1e-07)"),
    ("tf.keras.optimizers.legacy.Adam(epsilon=0)", "LegacyKerasAdam(learning_rate=0.001, epsilon=1e-07)"),  # `or`
    ("tf.keras.optimizers.legacy.RMSprop(learning_rate=0.002, rho=0.95)",
     "LegacyRMSprop(learning_rate=0.002, rho=0.95, epsilon=1e-07)"),
    ("'RMSProp'", "LegacyRMSprop(learning_rate=0.001, epsilon=1e-07)"),
    ("tf.keras.optimizers.legacy.RMSprop(momentum=0.0, centered=False)",
     "LegacyRMSprop(learning_rate=0.001, epsilon=1e-07)"),
])
def test_legacy_adam_and_rmsprop_convert_to_the_legacy_arithmetic(optimizer, expect):
    build = _build(optimizer)
    assert expect in build, build
    text = converted(_with(optimizer))
    name = expect.split("(")[0]
    assert f"class {name}(keras.optimizers." in text
    assert "tf.pow(beta_1, step)" in text if name == "LegacyKerasAdam" else "(tf.sqrt(ms) + epsilon)" in text


def test_epsilon_from_a_variable_keeps_the_legacy_fallback():
    src = _with("tf.keras.optimizers.legacy.Adam(epsilon=EPS)").replace("feature_columns = [", "EPS = 0.0\nfeature_columns = [")
    assert "epsilon=EPS or 1e-07" in _build_text(src)


def _build_text(src: str) -> str:
    return " ".join(section(converted(src), "def build_dnn_classifier", "estimator = ").split())


@pytest.mark.parametrize("optimizer, argument, words", [
    ("tf.keras.optimizers.legacy.RMSprop(0.01, momentum=0.9)", "momentum=0.9", "RMSprop(momentum=...)"),
    ("tf.keras.optimizers.legacy.RMSprop(0.01, centered=True)", "centered=True", "RMSprop(centered=...)"),
    ("tf.keras.optimizers.legacy.Adam(0.01, amsgrad=True)", "amsgrad=True", "Adam(amsgrad=True)"),
    ("tf.keras.optimizers.legacy.Adamax(0.01)", "tf.keras.optimizers.legacy.Adamax(0.01)", "legacy.Adamax"),
])
def test_legacy_variants_not_yet_exact_block_at_their_argument(optimizer, argument, words):
    src = _with(optimizer)
    result = blocked(src)
    [d] = [d for d in result.diagnostics if d.code == "TFM620"]
    assert words in d.message, d.message
    line = next(i for i, text in enumerate(src.splitlines(), 1) if argument in text)
    assert d.line == line, (d.line, line, d.message)


def test_keras_3_adam_still_blocks_as_tf_2_15_refused_it():
    [d] = [d for d in blocked(_with("tf.keras.optimizers.Adam(0.01)")).diagnostics if d.code == "TFM620"]
    assert "raise ValueError" in d.message and "tf.keras.optimizers.legacy.Adam(...)" in d.message


@pytest.mark.parametrize("optimizer, expect, wrapper", [
    ("tf.keras.optimizers.legacy.Adam(0.01)", "LegacyKerasAdam(learning_rate=0.01, epsilon=1e-07)", "WideDeepSteps("),
    ("tf.keras.optimizers.legacy.RMSprop(0.01)", "LegacyRMSprop(learning_rate=0.01, epsilon=1e-07)",
     "WideDeepOptimizer("),
    ("'Adam'", "LegacyKerasAdam(learning_rate=0.001, epsilon=1e-07)", "WideDeepSteps("),  # the combined DNN rate
])
def test_wide_and_deep_with_legacy_adam_or_rmsprop_as_dnn_optimizer(optimizer, expect, wrapper):
    src = WIDE_DEEP.replace("dnn_hidden_units=[8],", f"dnn_hidden_units=[8],\n        dnn_optimizer={optimizer},")
    text = converted(src)
    build = " ".join(section(text, "def build_dnn_linear_combined_classifier", "def main").split()).replace("( ", "(")
    assert f"{wrapper}{expect}, TF1Ftrl(learning_rate=0.005)" in build, build
    # the Estimator gave the DNN's legacy Adam the global step as its iterations: its bias correction reads it
    assert ("self.dnn_optimizer.iterations.assign(self.iterations)" in text) == (wrapper == "WideDeepSteps(")


def test_wide_and_deep_with_legacy_adam_as_linear_optimizer_blocks():
    src = WIDE_DEEP.replace("dnn_hidden_units=[8],",
                            "dnn_hidden_units=[8],\n        linear_optimizer=tf.keras.optimizers.legacy.Adam(0.01),")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "linear_optimizer" in d.message and "Adagrad, Ftrl, SGD" in d.message


def test_restoring_an_estimator_model_dir_reads_the_legacy_adam_slots():
    text = converted(_with("tf.keras.optimizers.legacy.Adam(0.01)"))
    slots = section(text, "def _legacy_slots(optimizer):", "def _legacy_settings")
    assert 'return "Adam", [("_momentums", "m"), ("_velocities", "v")]' in slots
    assert "settings.update(beta_1=optimizer.beta_1, beta_2=optimizer.beta_2)" in text


def _helper(body: str) -> str:
    """MODULE_LEVEL with a helper def before the columns (the optimizer built by a function)."""
    return MODULE_LEVEL.replace("feature_columns = [", f"{body}\n\n\nfeature_columns = [", 1)


MAKE = '''def make_optimizer(rate=0.01):
    return tf.keras.optimizers.legacy.Adam(learning_rate=rate, beta_1=0.8)'''


@pytest.mark.parametrize("optimizer", ["lambda: make_optimizer(0.01)", "make_optimizer",
                                       "lambda: make_optimizer(rate=0.01)"])
def test_a_callable_through_a_helper_is_the_object_the_helper_returns(optimizer):
    # get_optimizer_instance_v2 calls a callable once without arguments: a def or a lambda calling a helper
    build = _build_text(_helper(MAKE).replace("    n_classes=3,\n", f"    n_classes=3,\n    optimizer={optimizer},\n"))
    assert "LegacyKerasAdam(learning_rate=0.01, beta_1=0.8, epsilon=1e-07)" in build, build


def test_a_def_with_a_required_parameter_blocks_as_the_estimator_would_call_it_bare():
    src = _helper(MAKE.replace("rate=0.01", "rate")).replace("    n_classes=3,\n",
                                                              "    n_classes=3,\n    optimizer=make_optimizer,\n")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "takes no arguments" in d.message, d.message
    assert d.line == next(i for i, t in enumerate(src.splitlines(), 1) if "optimizer=make_optimizer" in t)


def test_a_helper_returning_a_tf1_optimizer_says_so_at_the_argument():
    helper = "def make_optimizer():\n    return tf.compat.v1.train.AdamOptimizer(0.01)"
    src = _helper(helper).replace("    n_classes=3,\n", "    n_classes=3,\n    optimizer=lambda: make_optimizer(),\n")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "TF 1.x's" in d.message and "tf.compat.v1.estimator.DNNClassifier" in d.message, d.message
    assert d.line == next(i for i, t in enumerate(src.splitlines(), 1) if "optimizer=lambda" in t)


@pytest.mark.parametrize("canned", ["tf.estimator.DNNClassifier", "tf.compat.v1.estimator.DNNClassifier"])
def test_a_tf1_optimizer_without_a_tf2_form_names_itself(canned):
    # (ProximalAdagrad is converted now: rules/planners/proximal_adagrad.py)
    src = _with("tf.compat.v1.train.ProximalGradientDescentOptimizer(learning_rate=0.01)").replace(
        "tf.estimator.DNNClassifier", canned)
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "TF1's tf.train.ProximalGradientDescentOptimizer is not converted" in d.message, d.message
    assert "AdagradOptimizer" in d.message
    assert d.line == next(i for i, t in enumerate(src.splitlines(), 1) if "ProximalGradientDescent" in t)


def test_a_helper_with_several_returns_blocks_at_the_callable():
    helper = '''def make_optimizer(name):
    if name == "adam":
        return tf.keras.optimizers.legacy.Adam(0.01)
    return tf.keras.optimizers.legacy.SGD(0.01)'''
    src = _helper(helper).replace("    n_classes=3,\n", "    n_classes=3,\n    optimizer=lambda: make_optimizer(NAME),\n")
    src = src.replace("feature_columns = [", "NAME = 'adam'\nfeature_columns = [", 1)
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "make_optimizer() returns from more than one place" in d.message, d.message
    assert d.line == next(i for i, t in enumerate(src.splitlines(), 1) if "optimizer=lambda" in t)


@pytest.mark.parametrize("optimizer", ["tf.keras.optimizers.legacy.Adam", "lambda: tf.keras.optimizers.legacy.Adam()"])
def test_wide_and_deep_dnn_legacy_adam_class_or_lambda(optimizer):
    src = WIDE_DEEP.replace("dnn_hidden_units=[8],", f"dnn_hidden_units=[8],\n        dnn_optimizer={optimizer},")
    build = " ".join(section(converted(src), "def build_dnn_linear_combined_classifier", "def main").split())
    assert "WideDeepSteps(LegacyKerasAdam(learning_rate=0.001, epsilon=1e-07)" in build.replace("( ", "("), build
