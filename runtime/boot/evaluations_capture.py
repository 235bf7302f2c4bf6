"""Record what a program's evaluate() returned, for `tfmigrate verify` (imported by both boot scripts).

Every result dict goes to <capture dir>/<task>.eval as one JSON line, in call order:
{"key": {"dtype": ..., "shape": [...], "values": [...]}, ...} (the encoding of predictions_capture). float32
values become Python floats exactly. Only the outermost evaluate() of a nest records (a model's evaluate that
calls its base class's, an Estimator's evaluate reached from train_and_evaluate). A result that is not a dict
(Keras evaluate without return_dict=True: a list without keys) is recorded as {"<unnamed>": ...} so that verify
can say the keys are missing instead of finding no evaluation.
This file must not import tfmigrate or TensorFlow: it runs in both TF environments.
"""
import functools
import json
import os
import threading

from predictions_capture import encode

_STATE = threading.local()


def _record(path, result):
    if isinstance(result, dict):
        row = {str(k): encode(v) for k, v in result.items()}
    else:
        row = {"<unnamed>": encode(result)}
    with open(path, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def recording(evaluate_method, capture_dir, task):
    """Wrap an evaluate method so the value the outermost call returns is recorded."""
    path = os.path.join(capture_dir, task + ".eval")
    if getattr(evaluate_method, "_tfmigrate_eval", False):
        return evaluate_method

    @functools.wraps(evaluate_method)
    def wrapper(*args, **kwargs):
        depth = getattr(_STATE, "depth", 0)
        _STATE.depth = depth + 1
        try:
            result = evaluate_method(*args, **kwargs)
        finally:
            _STATE.depth = depth
        if depth == 0 and result is not None:
            _record(path, result)
        return result

    wrapper._tfmigrate_eval = True
    return wrapper
