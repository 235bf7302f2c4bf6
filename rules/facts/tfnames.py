"""TensorFlow name normalisation shared by the rules.

`tf.compat.v1.layers.dense`, `tf.layers.dense` (TF1 namespace), `tensorflow.compat.v1.compat.v1.layers.dense`
all normalise to `layers.dense`; `tensorflow_estimator.python.estimator.api._v1.estimator.X` to `estimator.X`.
"""
from __future__ import annotations

from functools import lru_cache

import libcst as cst

from tfmigrate.names import ImportTable

from . import contrib_learn, estimator_internal, tf1_calls, tf1_keras

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
            path = "estimator" + dotted[len(prefix):]
            return estimator_internal.public(path) or path
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
    # (tf.contrib.learn.ModeKeys.INFER is estimator's PREDICT; TF 1.x's tensorflow.python.keras.X is tf.keras.X)
    return (contrib_learn.MODE_KEYS.get(path) or estimator_internal.public(path) or tf1_keras.public(path)
            or path)


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


# --- TF 1.x → TF2 names, from TensorFlow's own API metadata (rules/facts/data/tf_v1_names.json, made by
# tools/tf_v1_names.py from TF 2.15's v1/v2 exports and tf_upgrade_v2's tables; TF is never imported here) ---

class V1Names:
    """The table: `rename(path)` → the TF2 path of a TF 1.x path (both without `tf.`), None when TF2 keeps it."""

    def __init__(self, doc: dict):
        self.renames: dict[str, str] = doc["renames"]
        self.modules = frozenset(doc["modules"])
        self.in_v2 = frozenset(doc["in_v2"])  # TF2 has the name too, for another object (changed meaning)
        self.same = frozenset(doc["same"])  # TF2 has the name, for the same object
        self.gone = frozenset(doc["gone"])  # TF 2.21 dropped even tf.compat.v1.<path>
        self.keywords: dict[str, dict] = doc["keywords"]
        self.reorders: dict[str, list] = doc["reorders"]
        self.warnings: dict[str, str] = doc["warnings"]
        self.module_warnings: dict[str, str] = doc["module_warnings"]
        self.casts = frozenset(doc["casts"])
        self.transformed = frozenset(doc["transformed"])  # tf_upgrade_v2 rewrites these calls by hand-written code

    @lru_cache(maxsize=4096)
    def rename(self, path: str) -> str | None:
        new = self.renames.get(path)
        if new is not None:
            return new
        head, _, rest = path.rpartition(".")
        while head:  # a name under a module TF2 keeps only in compat.v1 (tf.logging.info, tf.app.flags.FLAGS)
            if head in self.modules:
                return f"{self.renames[head]}.{path[len(head) + 1:]}"
            head, _, rest = head.rpartition(".")
        return None

    def known(self, path: str) -> bool:
        """A TF 1.x name TF2 spells differently (or lacks): what a TF1 program's `tf.<path>` must become."""
        return self.rename(path) is not None and path not in self.in_v2

    def why_not(self, path: str) -> str | None:
        """Why a TF 1.x name has no TF2 name at all (tf.contrib, dropped by TF 2.21), or None."""
        if path in self.gone:
            return f"tf.{path} has no TF2 name: TF 2.21 no longer has even tf.compat.v1.{path}"
        if path.split(".")[0] != "contrib":
            return None
        said = next((m for k, m in self.module_warnings.items() if ("tf." + path).startswith(k.rstrip("*"))), None)
        if path.startswith(("contrib.slim", "contrib.layers", "contrib.framework.arg_scope")):
            where = ("tf_slim (pip install tf-slim; `import tf_slim as slim`) keeps tf.contrib.slim and most of "
                     "tf.contrib.layers for TF2; tfmigrate does not rewrite to it, so change this call by hand")
        else:
            where = ("tf.contrib was removed in TF 2.0 and TensorFlow Addons, where parts of it went, is archived "
                     "(no releases after May 2024)")
        text = f"tf.{path} has no TF2 name: {where}"
        return text if said is None else f"{text} (tf_upgrade_v2: {said.replace('<function name>', 'tf.' + path)})"


@lru_cache(maxsize=1)
def v1_names() -> V1Names:
    """Read once, on the first TF1 reference a converted file needs renamed (a run that converts nothing never
    reads it)."""
    import json
    from pathlib import Path

    return V1Names(json.loads((Path(__file__).parent / "data" / "tf_v1_names.json").read_text()))


_CAST_DTYPES = {"float": "float32", "double": "float64"}  # tf.to_<x>: its dtype (tf_upgrade_v2's _cast_transformer)


def upgrade_call(call: cst.Call, path: str, alias: str) -> tuple[cst.Call, list[str]]:
    """tf_upgrade_v2's argument changes for a call of TF 1.x `path` (whose name is already renamed): positional
    arguments the TF2 function reorders become keywords, renamed keywords renamed, removed ones dropped
    (`to_float(x)` → `cast(x, dtype=float32)`), and its warnings returned as notes."""
    done = tf1_calls.transform(call, path, alias)  # (ValueError: the arguments cannot be carried; the caller blocks)
    if done is not None:
        return done
    table = v1_names()
    notes = []
    warning = table.warnings.get(path)
    if warning is not None and not (table.rename(path) or "").startswith("compat.v1."):  # (compat.v1: TF1's own)
        notes.append(f"tf.{path}: {warning.replace('<function name>', 'tf.' + path)}")
    args = list(call.args)
    if path in table.casts:
        if len(args) < 1 or args[0].keyword is not None or any(a.star for a in args):
            return call, notes
        rest = [a.with_changes(keyword=cst.Name("name"), equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
                if a.keyword is None else a for a in args[1:]]
        dtype = path[len("to_"):]
        dtype = _CAST_DTYPES.get(dtype, dtype)
        first = args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args = [first, *rest, _keyword("dtype", cst.Attribute(cst.Name(alias), cst.Name(dtype)), False)]
        return call.with_changes(func=cst.Attribute(cst.Name(alias), cst.Name("cast")), args=args), notes
    if (table.rename(path) or "").startswith("compat.v1."):
        return call, notes  # the very TF1 function: its TF1 arguments stay (the tables describe the TF2 one)
    order = table.reorders.get(path)
    if order is not None and not any(a.star for a in args):
        positional = [a for a in args if a.keyword is None]
        moved = [(a, order[i] if i < len(order) else None) for i, a in enumerate(positional)]
        if any(keyword for _, keyword in moved):
            keep = [a for a, keyword in moved if not keyword]
            named = [a.with_changes(keyword=cst.Name(keyword), equal=_EQUAL) for a, keyword in moved if keyword]
            args = _commas([*keep, *named, *(a for a in args if a.keyword is not None)], call.args)
    renamed = table.keywords.get(path)
    if renamed and not any(a.star == "**" for a in args):
        out = []
        for a in args:
            if a.keyword is not None and a.keyword.value in renamed:
                new = renamed[a.keyword.value]
                if new is None:
                    notes.append(f"tf.{path}: argument {a.keyword.value} removed (TF2 has no such argument)")
                    continue
                a = a.with_changes(keyword=cst.Name(new))
            out.append(a)
        if len(out) != len(args) or any(x is not y for x, y in zip(out, args)):
            args = _commas(out, call.args)
    if args == list(call.args):
        return call, notes
    return call.with_changes(args=args), notes


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _keyword(name: str, value: cst.BaseExpression, comma: bool) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name), equal=_EQUAL,
                   comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if comma else cst.MaybeSentinel.DEFAULT)


def _commas(args: list[cst.Arg], before) -> list[cst.Arg]:
    """Arguments in a new order: each but the last followed by a comma (the last keeps the call's trailing one)."""
    last = before[-1].comma if before else cst.MaybeSentinel.DEFAULT
    out = []
    for i, a in enumerate(args):
        if i < len(args) - 1:
            comma = a.comma if isinstance(a.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        else:
            comma = last
        out.append(a.with_changes(comma=comma))
    return out
