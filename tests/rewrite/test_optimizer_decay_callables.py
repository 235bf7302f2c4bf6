"""Canned estimators given their optimizer as a callable whose learning rate is a tf.compat.v1.train decay on the
global step (issue #29): the canned model_fn calls it in the Estimator's graph, so the decay reads the global step
(the optimizer's iterations) at every step → the Keras schedule on the Keras optimizer's iterations (fixture
canned_callable_decay). An optimizer object built with a decay outside the model_fn still blocks, saying why."""
from __future__ import annotations

import pytest

from tests.rewrite._helpers import blocked, converted, section
from tests.rewrite.test_canned import MODULE_LEVEL, WIDE_DEEP

STEP = "tf.compat.v1.train.get_global_step()"


def _with(optimizer: str, src: str = MODULE_LEVEL) -> str:
    return src.replace("    n_classes=3,\n", f"    n_classes=3,\n    optimizer={optimizer},\n")


def _build(src: str) -> str:
    text = converted(src)
    build = " ".join(section(text, "def build_dnn_classifier", "estimator = ").split())
    return build.replace("( ", "(").replace(", )", ")")  # the formatter's trailing commas


@pytest.mark.parametrize("decay, schedule", [
    (f"tf.compat.v1.train.exponential_decay(learning_rate=0.1, global_step={STEP}, decay_steps=10, decay_rate=0.9)",
     "keras.optimizers.schedules.ExponentialDecay(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.9)"),
    (f"tf.compat.v1.train.exponential_decay(0.1, {STEP}, 10, 0.9, staircase=True)",
     "keras.optimizers.schedules.ExponentialDecay(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.9, "
     "staircase=True)"),
    ("tf.compat.v1.train.polynomial_decay(0.1, tf.compat.v1.train.get_or_create_global_step(), 100)",
     # TF1's end_learning_rate default (0.0001) spelled out: Keras' differs
     "keras.optimizers.schedules.PolynomialDecay(end_learning_rate=0.0001, initial_learning_rate=0.1, "
     "decay_steps=100)"),
    (f"tf.compat.v1.train.piecewise_constant({STEP}, [10, 20], [0.1, 0.05, 0.01])",
     "keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=[10, 20], values=[0.1, 0.05, 0.01])"),
])
def test_a_callable_optimizer_with_a_decay_gets_the_keras_schedule(decay, schedule):
    build = _build(_with(f"lambda: tf.keras.optimizers.legacy.Ftrl(l1_regularization_strength=0.001, "
                         f"learning_rate={decay})"))
    assert f"TF1Ftrl(learning_rate={schedule}, l1_regularization_strength=0.001)" in build, build


def test_a_positional_rate_and_a_helper_def_with_module_constants():
    src = _with("make_optimizer").replace("feature_columns = [", (
        "RATE, STEPS = 0.2, 5\n\n\ndef make_optimizer():\n"
        f"    return tf.keras.optimizers.legacy.Adagrad(tf.compat.v1.train.exponential_decay(RATE, {STEP}, STEPS, "
        "0.5))\n\n\nfeature_columns = ["), 1)
    build = _build(src)
    assert "LegacyAdagrad(learning_rate=keras.optimizers.schedules.ExponentialDecay(initial_learning_rate=RATE, " \
           "decay_steps=STEPS, decay_rate=0.5)" in build, build


def test_a_v1_canned_estimator_callable_gets_the_schedule():
    src = _with(f"lambda: tf.compat.v1.train.GradientDescentOptimizer(tf.compat.v1.train.exponential_decay(0.1, "
                f"{STEP}, 10, 0.9))", MODULE_LEVEL.replace("tf.estimator.DNNClassifier",
                                                           "tf.compat.v1.estimator.DNNClassifier"))
    build = _build(src)
    assert "keras.optimizers.SGD(learning_rate=keras.optimizers.schedules.ExponentialDecay(" \
           "initial_learning_rate=0.1, decay_steps=10, decay_rate=0.9))" in build, build


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def test_an_optimizer_object_built_with_a_decay_still_blocks_saying_why():
    # outside the Estimator's graph TF2's exponential_decay returns a function of the step it was given (None here)
    src = _with(f"tf.keras.optimizers.legacy.Ftrl(learning_rate=tf.compat.v1.train.exponential_decay(0.1, {STEP}, "
                "10, 0.9))")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "built outside the model_fn" in d.message and "pass the optimizer as a callable" in d.message, d.message
    assert d.line == _line(src, "exponential_decay")


@pytest.mark.parametrize("decay, words", [
    ("tf.compat.v1.train.exponential_decay(0.1, 5, 10, 0.9)", "only when it decays on the global step"),
    (f"tf.compat.v1.train.polynomial_decay(0.1, {STEP}, 100, cycle=True)", "cycle=True"),
])
def test_a_callable_decay_not_on_the_global_step_blocks(decay, words):
    src = _with(f"lambda: tf.keras.optimizers.legacy.SGD(learning_rate={decay})")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert words in d.message and "optimizer callable's learning rate" in d.message, d.message


def test_a_decay_in_another_argument_of_a_callable_blocks():
    src = _with(f"lambda: tf.keras.optimizers.legacy.SGD(0.1, momentum=tf.compat.v1.train.exponential_decay(0.9, "
                f"{STEP}, 10, 0.9))")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "built outside the model_fn" in d.message, d.message


@pytest.mark.parametrize("part", ["dnn", "linear"])
def test_a_decay_in_a_wide_and_deep_optimizer_reads_the_shared_step(part):
    # TF1: both parts' decays read the one global step (once per training step) → WideDeepGlobalStep gives both
    # parts' schedules the combined optimizer's iterations (fixture canned_wide_deep_decay)
    decay = f"tf.compat.v1.train.exponential_decay(0.1, {STEP}, 10, 0.9)"
    src = WIDE_DEEP.replace("dnn_hidden_units=[8],", f"dnn_hidden_units=[8],\n        {part}_optimizer=lambda: "
                                                     f"tf.keras.optimizers.legacy.SGD(learning_rate={decay}),")
    text = converted(src)
    build = " ".join(section(text, "def build_dnn_linear_combined_classifier", "def main").split())
    build = build.replace("( ", "(").replace(", )", ")")  # the formatter's trailing commas
    assert "optimizer=WideDeepGlobalStep(" in build, build
    assert "keras.optimizers.schedules.ExponentialDecay(initial_learning_rate=0.1, decay_steps=10, " \
           "decay_rate=0.9" in build, build
    step = section(text, "class WideDeepGlobalStep(WideDeepOptimizer):", "    return super().apply")
    assert "self.dnn_optimizer.iterations.assign(self.iterations)" in step
    assert "self.linear_optimizer.iterations.assign(self.iterations)" in step


def test_a_v1_wide_and_deep_with_tf1_optimizer_decays_reads_the_shared_step():
    # the v1 model_fn adds 1 to the global step after both parts' minimize(): both decays read the step before it
    src = WIDE_DEEP.replace("tf.estimator.DNNLinearCombinedClassifier",
                            "tf.compat.v1.estimator.DNNLinearCombinedClassifier").replace(
        "dnn_hidden_units=[8],", "dnn_hidden_units=[8],\n        dnn_optimizer=lambda: tf.compat.v1.train."
        f"GradientDescentOptimizer(tf.compat.v1.train.polynomial_decay(0.1, {STEP}, 10)),\n        linear_optimizer="
        f"lambda: tf.compat.v1.train.FtrlOptimizer(tf.compat.v1.train.exponential_decay(0.1, {STEP}, 10, 0.5)),")
    build = " ".join(section(converted(src), "def build_dnn_linear_combined_classifier", "def main").split())
    build = build.replace("( ", "(").replace(", )", ")")  # the formatter's trailing commas
    assert "optimizer=WideDeepGlobalStep(keras.optimizers.SGD(learning_rate=keras.optimizers.schedules." \
           "PolynomialDecay(" in build, build
    assert "TF1Ftrl(learning_rate=keras.optimizers.schedules.ExponentialDecay(initial_learning_rate=0.1, " \
           "decay_steps=10, decay_rate=0.5))" in build, build


def test_a_wide_and_deep_without_a_decay_keeps_its_optimizer():
    text = converted(WIDE_DEEP)
    assert "WideDeepGlobalStep" not in text and "optimizer=WideDeepOptimizer(" in text


def test_a_wide_and_deep_with_a_decay_in_an_optimizer_object_still_blocks():
    # built outside the model_fn: not bound to the Estimator's global step (as for one optimizer)
    src = WIDE_DEEP.replace("dnn_hidden_units=[8],", "dnn_hidden_units=[8],\n        linear_optimizer="
                            "tf.keras.optimizers.legacy.Ftrl(learning_rate=tf.compat.v1.train.exponential_decay("
                            f"0.1, {STEP}, 10, 0.9)),")
    [d] = [d for d in blocked(src).diagnostics if d.code == "TFM620"]
    assert "built outside the model_fn" in d.message, d.message
