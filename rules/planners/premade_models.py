"""TFM001 `tf.keras.experimental.LinearModel` / `WideDeepModel` (also under tf.compat.v1): Keras 2's premade
models, which the TF guide migrate/canned_estimators.ipynb offers for canned LinearEstimator / DNNLinearCombined.

Blocked with why, not renamed: Keras 3 (TF 2.21's tf.keras) has no `keras.experimental`; `tf_keras` (Keras 2 for
TF 2.16+) still has both, but a tf_keras model cannot take Keras 3 models, layers or optimizers (a WideDeepModel
is built from a linear and a DNN model, and these programs compile them with Keras optimizers), so moving these
names alone to tf_keras gives a program that fails where the two Kerases meet. Where the program's own code names
them, rules/planners/keras2_program.py moves ALL of that code to tf_keras instead; this blocker stands for a
reference that move leaves (one of the conversion's own code).
"""
from __future__ import annotations

CODE = "TFM001"
_NAMES = ("keras.experimental.LinearModel", "keras.experimental.WideDeepModel")


def why(path: str) -> str | None:
    """The blocker's message for a premade-model name (normalised path), or None for another name."""
    if path not in _NAMES:
        return None
    return (f"tf.{path} (a Keras 2 premade model) has no Keras 3 counterpart: TF 2.21's tf.keras has no "
            f"keras.experimental. tf_keras (pip install tf_keras) still has tf_keras.experimental."
            f"{path.rsplit('.', 1)[-1]}, but a tf_keras model cannot be mixed with the Keras 3 models, layers and "
            "optimizers it is built and compiled with, so tfmigrate does not move it alone: move this program's "
            "Keras code to tf_keras by hand (import tf_keras, TF_USE_LEGACY_KERAS=1), or build the linear part as "
            "keras.layers.Dense(1) on the concatenated features (a wide & deep model: the sum of its and the DNN's "
            "logits, each part with its own optimizer)")
