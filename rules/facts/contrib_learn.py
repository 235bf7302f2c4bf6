"""tf.contrib.learn's ModeKeys, read as the tf.estimator.ModeKeys they equal.

TF 1.15's contrib/learn/python/learn/estimators/model_fn.py: `class ModeKeys: TRAIN = 'train'; EVAL = 'eval';
INFER = 'infer'` (re-exported as tf.contrib.learn.ModeKeys and ...learn.estimators.ModeKeys), and
tensorflow_estimator's `ModeKeys: TRAIN = 'train'; EVAL = 'eval'; PREDICT = 'infer'` (checked on TF 2.15): the
same strings, so each key is the tf.estimator one (INFER is PREDICT) wherever it is compared or passed. The class
itself is not mapped (`ModeKeys.INFER` on tf.estimator.ModeKeys would fail): it stays blocked (TFM603).
"""
from __future__ import annotations

import libcst as cst

_CLASSES = ("contrib.learn.ModeKeys", "contrib.learn.python.learn.estimators.ModeKeys",
            "contrib.learn.python.learn.estimators.model_fn.ModeKeys")
_KEYS = {"TRAIN": "TRAIN", "EVAL": "EVAL", "INFER": "PREDICT"}
# normalised TF path of a contrib.learn mode key → the tf.estimator.ModeKeys path of the same string
MODE_KEYS = {f"{c}.{k}": f"estimator.ModeKeys.{v}" for c in _CLASSES for k, v in _KEYS.items()}


def first_mode_key(file, program):
    """(the first tf.contrib.learn.ModeKeys.KEY reference of the file, the tf.estimator key it is read as), or
    None: for the rewrite's note."""
    from .tfnames import normalise

    found = []
    for key in _KEYS:
        for name in file.names.get(key, ()):
            attr = file.parents.get(id(name))
            if isinstance(attr, cst.Attribute) and attr.attr is name:
                dotted = program.qualified(attr, file) or ""
                if ".contrib.learn." in dotted and normalise(dotted) in MODE_KEYS.values():
                    found.append((file.orders.get(id(attr), 0), attr, f"tf.estimator.ModeKeys.{_KEYS[key]}"))
    return min(found, key=lambda f: f[0])[1:] if found else None
