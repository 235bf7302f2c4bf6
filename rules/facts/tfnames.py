"""TensorFlow name normalisation shared by the rules.

`tf.compat.v1.layers.dense`, `tf.layers.dense` (TF1 namespace), `tensorflow.compat.v1.compat.v1.layers.dense`
all normalise to `layers.dense`; `tensorflow_estimator.python.estimator.api._v1.estimator.X` to `estimator.X`.
"""
from __future__ import annotations

from functools import lru_cache

import libcst as cst

from tfmigrate.names import ImportTable

_ESTIMATOR_PREFIXES = (
    "tensorflow_estimator.python.estimator.api._v1.estimator",
    "tensorflow_estimator.python.estimator.api._v2.estimator",
    "tensorflow_estimator.estimator",
    "tensorflow_estimator",
)
# TF 1.x modules whose public names tf.contrib.tpu re-exports (the same objects): tpu_estimator.TPUEstimator is
# tf.contrib.tpu.TPUEstimator, tpu_config.RunConfig tf.contrib.tpu.RunConfig, tpu_optimizer.CrossShardOptimizer ...
_MODULE_ALIASES = {
    "contrib.tpu.python.tpu.tpu_estimator": "contrib.tpu",
    "contrib.tpu.python.tpu.tpu_config": "contrib.tpu",
    "contrib.tpu.python.tpu.tpu_optimizer": "contrib.tpu",
}


@lru_cache(maxsize=4096)  # (the rules ask about the same few dotted names tens of thousands of times a run)
def normalise(dotted: str | None) -> str | None:
    """The TF path without `tensorflow.` and `compat.v1.`/`compat.v2.` prefixes; None if not TensorFlow."""
    if dotted is None:
        return None
    for prefix in _ESTIMATOR_PREFIXES:
        if dotted == prefix or dotted.startswith(prefix + "."):
            return "estimator" + dotted[len(prefix):]
    if dotted == "tensorflow":
        return ""
    if not dotted.startswith("tensorflow."):
        return None
    path = dotted[len("tensorflow."):]
    while path.startswith(("compat.v1", "compat.v2")):
        path = path[len("compat.v1"):].lstrip(".")
    for module, alias in _MODULE_ALIASES.items():
        if path.startswith(module + "."):
            return alias + path[len(module):]
    return path


class TFNames:
    """Resolves expressions to normalised TF paths: through the program model (scope-aware: a local `tf` shadows
    the import, `import tensorflow` inside a function counts), or a module's import table."""

    def __init__(self, table: ImportTable | None = None, program=None, file=None):
        self.program, self.file = program, file
        self.table = table if program is None else _ModelTable(program, file)

    def of(self, node: cst.CSTNode, local_names: frozenset[str] = frozenset()) -> str | None:
        if isinstance(node, cst.Call):
            node = node.func
        if self.program is not None:
            return normalise(self.program.qualified(node, self.file))
        return normalise(self.table.resolve(node, local_names))

    def is_(self, node: cst.CSTNode, *paths: str, local_names: frozenset[str] = frozenset()) -> bool:
        return self.of(node, local_names) in paths


class _ModelTable:
    """The ImportTable.resolve interface, answered by the program model."""

    def __init__(self, program, file):
        self.program, self.file = program, file

    def resolve(self, node: cst.CSTNode, local_names: frozenset[str] = frozenset()) -> str | None:
        return self.program.qualified(node, self.file)
