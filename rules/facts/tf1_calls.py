"""TF 1.x calls whose TF2 spelling needs more than a rename: tf_upgrade_v2's hand-written transformers, rewritten here
from what TF 1.15's own functions did (never by a heuristic), and the tf.contrib names TF2 keeps elsewhere.

- `tf.nn.dropout(x, keep_prob)` → `tf.nn.dropout(x, rate=1 - (keep_prob))`: TF 1.15's dropout computed that rate
  and called the TF2 function (dropout_v2) with it, the same op with the same seed;
- `tf.nn.softmax_cross_entropy_with_logits(labels=l, ..., dim=d)` → `...(labels=tf.stop_gradient(l), ..., axis=d)`:
  TF 1.15 stopped the labels' gradient, then called the v2 function (keyword-only in TF1: a positional call keeps
  the TF1 function, tf.compat.v1, which raised the same error);
- `tf.contrib.summary.flush` / `always_record_summaries()` / `never_record_summaries()` → `tf.summary.flush` /
  `tf.summary.record_if(True)` / `record_if(False)`: TF 1.15's contrib.summary re-exported summary_ops_v2, whose
  always/never functions returned record_if(True/False);
"""
from __future__ import annotations

import libcst as cst

# contrib names TF 1.15 re-exported from core: tf.contrib.<k> was the very object TF2 names tf.<v>
CONTRIB_RENAMES = {
    "contrib.lookup.KeyValueTensorInitializer": "lookup.KeyValueTensorInitializer",
    "contrib.lookup.TextFileInitializer": "lookup.TextFileInitializer",
    "contrib.lookup.TextFileIndex": "lookup.TextFileIndex",
    "contrib.lookup.MutableHashTable": "lookup.experimental.MutableHashTable",
    "contrib.lookup.MutableDenseHashTable": "lookup.experimental.DenseHashTable",
    "contrib.summary.flush": "summary.flush",
    "contrib.summary.always_record_summaries": "summary.record_if",
    "contrib.summary.never_record_summaries": "summary.record_if",
}
# renamed only where they are called with no argument: the call becomes record_if(<flag>)
_RECORD_IF = {"contrib.summary.always_record_summaries": "True", "contrib.summary.never_record_summaries": "False"}
# TF 1.15's contrib.lookup table builders (lookup_ops.index_table_from_tensor / index_to_string_table_from_tensor):
# a StaticHashTable over KeyValueTensorInitializer(keys, int64 range), or with num_oov_buckets > 0 the same keys
# hashed into buckets by string_to_hash_bucket_fast (FastHashSpec), which TF2's StaticVocabularyTable does
_LOOKUPS = {"contrib.lookup.index_table_from_tensor": "lookup.StaticHashTable",
            "contrib.lookup.index_to_string_table_from_tensor": "lookup.StaticHashTable"}
CALL_ONLY = frozenset({*_RECORD_IF, *_LOOKUPS})  # converted where called, blocked as a bare reference

_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def tf2_path(path: str) -> str | None:
    """The TF2 name (without `tf.`) of a TF 1.x path handled here, else None."""
    if path in _TRANSFORMS:
        return path
    return _LOOKUPS.get(path) or ("summary.record_if" if path in _RECORD_IF else CONTRIB_RENAMES.get(path))


def transform(call: cst.Call, path: str, alias: str) -> tuple[cst.Call, list[str]] | None:
    """The TF2 call of TF 1.x `path` (its name already renamed), with notes; None when `path` has no transform here.
    Raises ValueError (the caller blocks) when the arguments cannot be carried exactly."""
    if path in _RECORD_IF:
        if call.args:
            raise ValueError(f"tf.{path} takes no arguments (TF1 raised TypeError): not converted")
        return call.with_changes(args=[cst.Arg(cst.Name(_RECORD_IF[path]))]), []
    if path in _LOOKUPS:
        return _lookup(call, path, alias)
    fix = _TRANSFORMS.get(path)
    return None if fix is None else fix(call, alias)


def _keep_prob(value: cst.BaseExpression) -> cst.BaseExpression:
    """`1 - (keep_prob)`: TF 1.15's dropout computed the rate so, from whatever keep_prob was."""
    return cst.BinaryOperation(cst.Integer("1"), cst.Subtract(), value.with_changes(
        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))


def _dropout(call: cst.Call, alias: str) -> tuple[cst.Call, list[str]]:
    # TF 1.15: dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None); TF2's dropout takes
    # (x, rate, noise_shape, seed, name): the same places but the second
    if any(a.star for a in call.args):
        raise ValueError("tf.nn.dropout called with *args/**kwargs: which argument is keep_prob is not known, so "
                         "its rate = 1 - keep_prob cannot be written; pass keep_prob by name")
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    positional = [a for a in call.args if a.keyword is None]
    has_keep = "keep_prob" in keywords or len(positional) >= 2
    if has_keep and "rate" in keywords:
        raise ValueError("tf.nn.dropout given both keep_prob and rate (TF1 raised ValueError): keep one")
    if not has_keep:
        return call, []  # rate= (or nothing): TF1 passed it on as it is
    args = []
    for i, a in enumerate(call.args):
        if a.keyword is None and i == 1:
            a = a.with_changes(value=_keep_prob(a.value))
        elif a.keyword is not None and a.keyword.value == "keep_prob":
            a = a.with_changes(keyword=cst.Name("rate"), value=_keep_prob(a.value))
        args.append(a)
    return call.with_changes(args=args), ["tf.nn.dropout: keep_prob → rate=1 - (keep_prob), as TF 1.x computed it; in a "
                                      "converted model_fn its masks come from TF2's random stream, not the Estimator "
                                      "graph's seeds, so training numbers differ from TF1's where it runs"]


def _softmax_xent(call: cst.Call, alias: str) -> tuple[cst.Call, list[str]]:
    # TF 1.15: softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None,
    # axis=None) = v2(labels=stop_gradient(labels), logits, axis=dim or axis, name)
    named = [a for a in call.args if a.keyword is not None and not a.star]
    if {"dim", "axis"} <= {a.keyword.value for a in named}:
        raise ValueError("tf.nn.softmax_cross_entropy_with_logits given both dim and axis (TF1 raised ValueError): "
                         "keep one")
    if len(named) != len(call.args) or not any(a.keyword.value == "labels" for a in named):
        # positional or *args, or no labels: TF1's own function, unchanged (it raised on positional arguments)
        return call.with_changes(func=_dotted(f"{alias}.compat.v1.nn.softmax_cross_entropy_with_logits")), []
    args = []
    for a in named:
        word = a.keyword.value
        if word == "_sentinel":
            continue
        if word == "labels":
            a = a.with_changes(value=cst.Call(_dotted(f"{alias}.stop_gradient"), [cst.Arg(a.value)]))
        elif word == "dim":
            a = a.with_changes(keyword=cst.Name("axis"))
        args.append(a)
    if args:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    return call.with_changes(args=args), ["tf.nn.softmax_cross_entropy_with_logits: labels wrapped in "
                                          "tf.stop_gradient, as TF 1.x's function did (TF2's lets gradients into them)"]


_PURE = (cst.Name, cst.Attribute, cst.List, cst.Tuple, cst.SimpleString, cst.Subscript)


def _lookup(call: cst.Call, path: str, alias: str) -> tuple[cst.Call, list[str]]:
    """index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1, hasher_spec, dtype, name) /
    index_to_string_table_from_tensor(mapping, default_value="UNK", name) as TF2 tables built the same way."""
    to_string = path.endswith("index_to_string_table_from_tensor")
    order = ["mapping", "default_value", "name"] if to_string else \
        ["mapping", "num_oov_buckets", "default_value", "hasher_spec", "dtype", "name"]
    args: dict[str, cst.BaseExpression] = {}
    for i, a in enumerate(call.args):
        if a.star or (a.keyword is None and i >= len(order)):
            raise ValueError(f"tf.{path} called with *args/**kwargs or too many arguments: not converted")
        args[a.keyword.value if a.keyword is not None else order[i]] = a.value
    unknown = set(args) - set(order)
    if unknown or "mapping" not in args:
        raise ValueError(f"tf.{path} called without mapping or with {sorted(unknown)}: not converted")
    for word in ("hasher_spec", "dtype"):  # (other hashers and integer keys: not rewritten)
        if word in args:
            raise ValueError(f"tf.{path}({word}=...) is not converted (only the default string keys, FastHashSpec)")
    keys = args["mapping"]
    if not isinstance(keys, _PURE) and not (isinstance(keys, cst.Call) and _code(keys.func).endswith(".constant")):
        raise ValueError(f"tf.{path}'s mapping is an expression the TF2 table reads twice (keys and their count): "
                         "bind it to a name first")
    size = f"{alias}.range({alias}.size({_code(keys)}), dtype={alias}.int64)"
    pair = f"{size}, {_code(keys)}" if to_string else f"{_code(keys)}, {size}"
    init = f"{alias}.lookup.KeyValueTensorInitializer({pair})"
    buckets = args.get("num_oov_buckets")
    if buckets is not None and not (isinstance(buckets, cst.Integer) and buckets.evaluated_value >= 0):
        raise ValueError(f"tf.{path}(num_oov_buckets=...) is not a literal count: which TF2 table it needs "
                         "(StaticHashTable for 0, StaticVocabularyTable otherwise) is not known")
    default = args.get("default_value")
    if buckets is not None and buckets.evaluated_value > 0:
        if default is not None and not (isinstance(default, cst.UnaryOperation) and _code(default) == "-1"):
            raise ValueError(f"tf.{path}(default_value=...) with num_oov_buckets > 0 is not converted (TF1's bucketed "
                             "table also sent ids equal to default_value to the buckets)")
        text = f"{alias}.lookup.StaticVocabularyTable({init}, {_code(buckets)})"
    else:
        value = _code(default) if default is not None else ('"UNK"' if to_string else "-1")  # (TF1's defaults)
        text = f"{alias}.lookup.StaticHashTable({init}, {value})"
    if "name" in args:
        text = text[:-1] + f", name={_code(args['name'])})"
    return cst.parse_expression(text), [f"tf.{path} → {text.split('(')[0]}: the table TF 1.x built the same way"]


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _dotted(text: str) -> cst.BaseExpression:
    parts = text.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(node, cst.Name(part))
    return node


_TRANSFORMS = {"nn.dropout": _dropout, "nn.softmax_cross_entropy_with_logits": _softmax_xent}

# tf.contrib calls that make no variables, each with the tf.compat.v1 call that is the same op given only `inputs`
# (TF 1.15's contrib flatten is core_layers.flatten in a name scope): natively still blocked (TF 2 has no tf.contrib)
# but never said to create variables; the model-mapping shim runs the tf.compat.v1 call (planners/shim.py)
NO_VARIABLES = {"contrib.layers.flatten": "layers.flatten"}
