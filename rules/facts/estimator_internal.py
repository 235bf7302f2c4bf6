"""tf.estimator.ModeKeys imported from TensorFlow's internal modules, read as tf.estimator.ModeKeys.

TF 2.15 (checked in its site-packages): tensorflow/python/estimator/model_fn.py star-imports
tensorflow_estimator.python.estimator.model_fn, which imports ModeKeys from ...estimator.mode_keys, the class
exported as tf.estimator.ModeKeys: one object under every path below. TF <= 1.12 defined ModeKeys in
tensorflow/python/estimator/model_fn.py itself, with the same TRAIN/EVAL/PREDICT strings.
"""
from __future__ import annotations

# normalised paths (tfnames.normalise: `tensorflow.` dropped, `tensorflow_estimator` read as `estimator`)
_CLASSES = ("python.estimator.model_fn.ModeKeys", "estimator.python.estimator.model_fn.ModeKeys",
            "estimator.python.estimator.mode_keys.ModeKeys")


def public(path: str) -> str | None:
    """`estimator.ModeKeys[.KEY]` for an internal ModeKeys path (or one of its attributes), else None."""
    for cls in _CLASSES:
        if path == cls or path.startswith(cls + "."):
            return "estimator.ModeKeys" + path[len(cls):]
    return None
