"""Record what a program's predict generator yields, for `tfmigrate verify` (imported by both boot scripts).

Each yielded item (a dict of arrays, or an array) goes to <capture dir>/<task>.pred as one JSON line:
{"key": {"dtype": ..., "shape": [...], "values": [...]}} (or {"": {...}} for a bare array). Floats go as
Python floats: float32/float64 values round-trip exactly through repr. Items are recorded as the program
consumes them, so a generator the program never exhausts records what it read.
This file must not import tfmigrate or TensorFlow: it runs in both TF environments.
"""
import functools
import json
import os


def encode(value):
    import numpy as np

    array = np.asarray(value)
    if array.dtype.kind in "SO":
        values = [v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in array.reshape(-1).tolist()]
    else:
        values = array.reshape(-1).tolist()
    return {"dtype": str(array.dtype), "shape": list(array.shape), "values": values}


def _record(path, item):
    row = {k: encode(v) for k, v in item.items()} if isinstance(item, dict) else {"": encode(item)}
    with open(path, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def recording(generator_method, capture_dir, task):
    """Wrap a method returning a generator so every item it yields is recorded first."""
    path = os.path.join(capture_dir, task + ".pred")

    @functools.wraps(generator_method)
    def wrapper(*args, **kwargs):
        for item in generator_method(*args, **kwargs):
            _record(path, item)
            yield item

    return wrapper
