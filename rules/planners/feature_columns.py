"""Categorical feature columns of canned estimators (TFM622): embedding columns in a DNN, categorical and crossed
columns in a linear model. A vocabulary_list may be any Python expression over the program's constants (a slice,
`+`, a comprehension, sorted/list/range, str methods, a helper returning one): it is evaluated as Python did when
TF1 built the column and the migrated code gets the list; a set's unordered iteration and what TF1 refused
(duplicate keys, a generator; crossed_column keys: see ColumnReader._crossed_args) block, and so does a list changed
in place after it is assigned (`VOCAB.append(x)`: which state the column saw depends on where that runs).
Values known only at run time (a vocabulary read from a file or computed from the data, `num_buckets=FLAGS.n`,
`dimension=params["d"]`, boundaries from quantiles) are computed by the migrated program where the Estimator is
built and passed to the model in params (`self.params["vocabulary_city"]`), through generated checks that raise what
TF 2.15 raised when it built the column (`vocabulary_list`, `column_count`, `column_boundaries`); the tables take
their sizes from them (`len(vocabulary) + num_oov_buckets`). Exact: the ids are the same ops over the same list,
and a checkpoint's shapes follow the same value (hash_bucket_size too, a crossed one included). Static only:
num_oov_buckets, default_value, hash_key, and a value not visible where the Estimator is built (a local of a helper
that builds the columns) blocks at its line; one assigned anew per pass of a loop building a column per pass goes
per column (canned/_per_pass.py). Not covered: a name re-bound between the column and the Estimator (the migrated model
sees the later value). categorical_column_with_vocabulary_file (string keys, text files) reads its keys at the same
place through TF's own text-file table initializer (ColumnReader.vocabulary_file); integer and tfrecord_gzip
vocabulary files block. Measured: fixture canned_runtime_vocab 72/100 steps bit-equal (max rel 1.9e-7, the binary
head's kernels); the same program over categorical_column_with_vocabulary_file the same.
Read by rules/planners/canned.py (see its doc for what converts); code emitted from
templates/feature_columns.py.j2.

Why the generated code trains the same (each checked against TF 2.15's input_layer / linear_model with the same
weights: bit-equal outputs for every combiner; and per optimizer with IndexedSlices gradients, see canned.py):
- ids: the functions TF1's columns ran on the same ops: "" / -1 dropped from the raw feature
  (`_to_sparse_input_and_drop_ignore_values`), vocabulary index / `to_hash_bucket_fast` OOV buckets / default,
  `to_hash_bucket_fast` of the value (integers `as_string`), identity with default_value, Bucketize ids offset per
  dimension, `tf.sparse.cross_hashed` (the SparseCrossHashed op TF1 called, same inputs in the key order).
- lookups: `tf.nn.safe_embedding_lookup_sparse` on the table variable, the call TF1 made (invalid ids pruned,
  empty rows zero, mean/sqrtn weights, max_norm); the linear model's `sparse_reshape` then the same lookup with
  `sparse_combiner`. The gradient is the same IndexedSlices TF1 produced.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from tfmigrate.visitors import Visitor

from ..facts.calls import is_literal, literal
from . import proximal_adagrad

CODE_COLUMNS = "TFM622"
COMBINERS = ("mean", "sqrtn", "sum")
SUPPORT_PARTS = ("sparse_input", "dense_input", "vocabulary_ids", "hash_bucket_ids", "identity_ids",
                 "bucketized_ids", "crossed_ids", "indicator_of", "EmbeddingColumn", "CategoricalWeights",
                 "vocabulary_list", "vocabulary_file", "column_count", "column_boundaries", "column_shape")
# the checks TF 2.15's feature_column functions made on a run-time value when the column was built, generated for
# the value the migrated program computes at the same place (passed in params): what raised there raises here
RUNTIME_PARTS = ("vocabulary_list", "vocabulary_file", "column_count", "column_boundaries", "column_shape")


class RunTime(Blocked):
    """A column argument known only at run time (a file read, a flag, a function of the program): the generated
    code can evaluate it where the original did, when the model's shapes may follow it."""

_BLOCKED = {  # feature_column functions not converted, with why and what to do
    "weighted_categorical_column": "its weights are a second sparse feature whose zero entries TF1 dropped "
                                   "separately from the ids (the two SparseTensors can disagree); not converted: "
                                   "drop the weights or keep this job on TF 2.15",
    "shared_embedding_columns": "one table shared by several columns under a name TF1 derived from all of them; "
                                "not converted yet: give each column its own embedding_column",
    "shared_embeddings": "one table shared by several columns under a name TF1 derived from all of them; not "
                         "converted yet: give each column its own embedding_column",
    "sequence_categorical_column_with_identity": "sequence columns feed RNN estimators, which are not converted",
    "sequence_categorical_column_with_hash_bucket": "sequence columns feed RNN estimators, which are not converted",
    "sequence_categorical_column_with_vocabulary_list": "sequence columns feed RNN estimators, which are not "
                                                        "converted",
    "sequence_categorical_column_with_vocabulary_file": "sequence columns feed RNN estimators, which are not "
                                                        "converted",
    "sequence_numeric_column": "sequence columns feed RNN estimators, which are not converted",
}


# what a vocabulary expression may call (a name the program rebinds is not these) and which str methods
_PURE = {"list": list, "tuple": tuple, "sorted": sorted, "range": range, "str": str, "int": int, "len": len,
         "reversed": reversed, "enumerate": enumerate, "zip": zip, "min": min, "max": max}
_STR_METHODS = {"lower", "upper", "strip", "lstrip", "rstrip", "title", "capitalize", "replace", "split", "join",
                "format", "zfill", "casefold"}
_NODES = (ast.Expression, ast.List, ast.Tuple, ast.Constant, ast.Name, ast.Load, ast.Store, ast.ListComp,
          ast.GeneratorExp, ast.comprehension, ast.Subscript, ast.Slice, ast.BinOp, ast.UnaryOp, ast.Compare,
          ast.BoolOp, ast.IfExp, ast.JoinedStr, ast.FormattedValue, ast.Call, ast.Attribute, ast.keyword, ast.Set,
          ast.SetComp, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.Starred)


def _unreadable(source: str, set_ok: bool = False) -> str | None:
    """Why a vocabulary expression is not plain Python over constants, or None (`set_ok`: the expression is a
    name's value, and a set there is checked where the name is used)."""
    try:
        tree = ast.parse(f"({source})", mode="eval")
    except SyntaxError:
        return "it is not one expression"
    if isinstance(tree.body, ast.GeneratorExp):
        return "a generator has no len(): TF 2.15 raises TypeError"
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            return f"it uses {type(node).__name__}, which is not evaluated here"
        if isinstance(node, ast.Attribute) and node.attr not in _STR_METHODS:
            return f"`.{node.attr}` is computed at run time"
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _PURE
                                               or isinstance(node.func, ast.Attribute)):
            return "it calls a function of the program, evaluated at run time"
        if isinstance(node, (ast.Set, ast.SetComp)) and not _sorted_arg(tree, node) and not (set_ok and node is tree.body):
            return "a set's order varies between runs (string hashing); use sorted(...)"
    return None


def _sorted_arg(tree, node) -> bool:
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "sorted"
               and c.args and c.args[0] is node for c in ast.walk(tree))


def _only_sorted(tree, name: str) -> bool:
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    return all(_sorted_arg(tree, n) for n in uses)


def _free_names(tree) -> list[str]:
    bound = {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension)
             for n in ast.walk(c.target) if isinstance(n, ast.Name)}
    return list(dict.fromkeys(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in bound))


def _first_name(node: cst.CSTNode, name: str) -> cst.Name:
    found = []

    class _V(Visitor):
        def visit_Name(self, n: cst.Name) -> None:
            if n.value == name and not found:
                found.append(n)

    node.visit(_V())
    return found[0]


# list, dict and set methods that change the object in place (ColumnReader.unchanged)
_MUTATORS = {"append", "extend", "insert", "remove", "pop", "sort", "reverse", "clear", "add", "update", "discard",
             "setdefault", "popitem", "difference_update", "intersection_update", "symmetric_difference_update"}


# feature_column functions whose column is not a CategoricalColumn: crossed_column refused them as keys
_NOT_CATEGORICAL = ("numeric_column", "embedding_column", "indicator_column", "shared_embedding_columns",
                    "shared_embeddings", "sequence_numeric_column")


@dataclass(frozen=True)
class Categorical:
    """A categorical column: its TF1 name, its bucket count and the code of its sparse ids in the model."""

    name: str
    num_buckets: int | str  # a number, or code evaluated in the model (`len(self.params["vocabulary_city"]) + 1`)
    ids: str  # code of the SparseTensor of ids, reading `features`
    parts: tuple  # support functions the code calls

    def indicator(self) -> str:
        return f"indicator_of({self.ids}, {self.num_buckets})"


@dataclass(frozen=True)
class Embedding:
    dimension: int | str  # a number, or code evaluated in the model (a run-time value in params)
    combiner: str
    max_norm: str | None
    trainable: bool
    parts: tuple = ()  # support code the dimension's run-time check calls


def layer_code(categorical: Categorical, embedding: Embedding) -> str:
    args = [str(categorical.num_buckets), str(embedding.dimension), f'"{embedding.combiner}"']
    if embedding.max_norm is not None:
        args.append(f"max_norm={embedding.max_norm}")
    if not embedding.trainable:
        args.append("trainable=False")
    return f'EmbeddingColumn({", ".join(args)}, name="{scope_name(categorical.name)}_embedding")'


def scope_name(name: str) -> str:
    """TF1's variable scope for a column (feature_column_v2._sanitize_column_name_for_variable_scope)."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


def _count_part(size) -> tuple:
    """The generated check a run-time size (code: its params entry) is computed through, for the support code."""
    return ("column_count",) if isinstance(size, str) else ()


def blocked_kind(path: str, node: cst.CSTNode) -> None:
    word = path.split(".")[-1]
    if word in _BLOCKED:
        raise Blocked(CODE_COLUMNS, f"tf.feature_column.{word}: {_BLOCKED[word]}", node)


class ColumnReader:
    """Reads categorical and embedding columns through canned.Reader (its resolve/literal helpers)."""

    def __init__(self, reader):
        self.reader = reader

    def _call(self, value: Value, what: str):
        r = self.reader.resolve(value, what)
        node = r.node
        path = self.reader.analysis.tf(node, r.value.file) if isinstance(node, cst.Call) else None
        return r, node, path

    def _args(self, node, names, what, r):
        from ..facts.sites import bind_values

        return bind_values(node, names, what, r.value.file, r.value.env, rule=CODE_COLUMNS)

    def _int(self, args, key, what, default=None, node=None, runtime: str | None = None):
        """An integer argument read from the source. `runtime` (TF1's error message for a value below 1): a value
        known only at run time is passed to the model in params, checked there as TF1 checked it (returns code)."""
        if key not in args:
            if default is None:
                raise Blocked(CODE_COLUMNS, f"{what} needs {key}", node)
            return default
        if runtime is not None:
            got = self.static_or_runtime(args[key], f"{what} {key}", key, "column_count", f", {runtime!r}")
            if isinstance(got, str):
                return got
        else:
            got = self.reader.literal(args[key], f"{what} {key}")
        if not isinstance(got, int) or isinstance(got, bool):
            raise Blocked(CODE_COLUMNS, f"{what} {key} must be an integer tfmigrate can read from the source",
                          args[key].node)
        return got

    def _key(self, args, what, node) -> str:
        if "key" not in args:
            raise Blocked(CODE_COLUMNS, f"{what} needs key", node)
        key = self.reader.literal(args["key"], f"{what} key")
        if not isinstance(key, str):
            raise Blocked(CODE_COLUMNS, f"{what} key must be a string", args["key"].node)
        return key

    # ---- categorical columns ------------------------------------------------------------------------------------
    def categorical(self, value: Value) -> Categorical:
        r, node, path = self._call(value, "categorical column")
        word = path.split(".")[-1] if path and path.startswith("feature_column.") else None
        if word is None:
            raise Blocked(CODE_COLUMNS, f"categorical column `{code(value.node)[:60]}`: not a tf.feature_column "
                                        "call tfmigrate can see", value.node)
        blocked_kind(path, node)
        if word == "categorical_column_with_vocabulary_list":
            args = self._args(node, ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"], word, r)
            key = self._key(args, word, node)
            if "vocabulary_list" not in args:
                raise Blocked(CODE_COLUMNS, f"{word} needs vocabulary_list", node)
            oov = self._int(args, "num_oov_buckets", word, 0)
            default = self._int(args, "default_value", word, -1)
            extra = "".join([f", num_oov_buckets={oov}" if oov else "",
                             f", default_value={default}" if default != -1 else ""])
            runtime = self.runtime_vocabulary(args["vocabulary_list"], key)
            if runtime is not None:  # the list the program computes, checked as TF1 checked it
                return Categorical(key, f"len({runtime}) + {oov}" if oov else f"len({runtime})",
                                   f'vocabulary_ids(sparse_input(features, "{key}"), {runtime}{extra})',
                                   ("sparse_input", "vocabulary_ids", "vocabulary_list"))
            vocabulary = self.vocabulary(args["vocabulary_list"])
            if not isinstance(vocabulary, list) or not vocabulary or not (
                    all(isinstance(v, str) for v in vocabulary)
                    or all(isinstance(v, int) and not isinstance(v, bool) for v in vocabulary)):
                raise Blocked(CODE_COLUMNS, "a vocabulary_list of strings or of integers is converted", node)
            return Categorical(key, len(vocabulary) + oov,
                               f'vocabulary_ids(sparse_input(features, "{key}"), {vocabulary!r}{extra})',
                               ("sparse_input", "vocabulary_ids"))
        if word == "categorical_column_with_vocabulary_file":
            return self.vocabulary_file(node, r, word)
        if word == "categorical_column_with_vocabulary_file":
            return self.vocabulary_file(node, r, word)
        if word == "categorical_column_with_hash_bucket":
            args = self._args(node, ["key", "hash_bucket_size", "dtype"], word, r)
            key = self._key(args, word, node)
            # a run-time size (a count the program read from a file) goes in params, checked as TF 2.15 checked it
            size = self._int(args, "hash_bucket_size", word, node=node,
                             runtime="hash_bucket_size must be at least 1. hash_bucket_size: {}, key: " + key)
            if isinstance(size, int) and size < 1:
                raise Blocked(CODE_COLUMNS, f"{word} hash_bucket_size must be at least 1", node)
            return Categorical(key, size, f'hash_bucket_ids(sparse_input(features, "{key}"), {size})',
                               ("sparse_input", "hash_bucket_ids", *_count_part(size)))
        if word == "categorical_column_with_identity":
            args = self._args(node, ["key", "num_buckets", "default_value"], word, r)
            key = self._key(args, word, node)
            size = self._int(args, "num_buckets", word, node=node,
                             runtime="num_buckets {} < 1, column_name " + key)
            default = None
            if "default_value" in args and not is_literal(args["default_value"].node, None):
                default = self._int(args, "default_value", word)
            extra = f", {default}" if default is not None else ""
            return Categorical(key, size, f'identity_ids(sparse_input(features, "{key}"), {size}{extra})',
                               ("sparse_input", "identity_ids", *_count_part(size)))
        if word == "bucketized_column":
            column = self.reader.column(value)  # a numeric source and its boundaries (canned.Column)
            runtime = isinstance(column.boundaries, str)  # code: the list the program computed
            buckets = (f"{column.size} * (len({column.boundaries}) + 1)" if runtime
                       else column.size * (len(column.boundaries) + 1))
            normalizer = f", normalizer_fn={column.normalizer}" if column.normalizer else ""
            return Categorical(f"{column.key}_bucketized", buckets,
                               f'bucketized_ids(features, "{column.key}", {column.size}, '
                               f'{column.boundaries_code}{normalizer})',
                               ("bucketized_ids", "column_boundaries") if runtime else ("bucketized_ids",))
        if word == "crossed_column":
            return self.crossed(node, r)
        raise Blocked(CODE_COLUMNS, f"tf.{path} is not a categorical column tfmigrate converts here", node)

    def vocabulary_file(self, node: cst.Call, r, word: str) -> Categorical:
        """categorical_column_with_vocabulary_file: the generated `vocabulary_file` reads the keys where the
        Estimator is built, as TF 2.15 read them (vocabulary_size counted as the file's lines when absent; the first
        vocabulary_size lines through TF's own text-file table initializer, so lines split the same), then the ids
        are vocabulary_list's (OOV buckets from to_hash_bucket_fast, as index_table_from_file hashed them)."""
        args = self._args(node, ["key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "default_value",
                                 "dtype", "file_format"], word, r)
        key = self._key(args, word, node)
        if "vocabulary_file" not in args or is_literal(args["vocabulary_file"].node, None):
            raise Blocked(CODE_COLUMNS, f"{word} needs vocabulary_file (TF 2.15 raises \"Missing vocabulary_file\")",
                          node)
        for name, why in (("dtype", "string keys are converted (integer vocabulary files are parsed by TF1's table "
                                    "as numbers, not reproduced yet)"),
                          ("file_format", "text files are converted (tfrecord_gzip vocabularies are not yet)")):
            if name in args and not is_literal(args[name].node, None):
                path = self.reader.analysis.tf(args[name].node, r.value.file) or ""
                if name == "dtype" and path in ("dtypes.string", "string"):
                    continue
                raise Blocked(CODE_COLUMNS, f"{word}({name}=...): {why}", args[name].node)
        oov = self._int(args, "num_oov_buckets", word, 0)
        default = None
        if "default_value" in args and not is_literal(args["default_value"].node, None):
            default = self._int(args, "default_value", word)
        if oov and default is not None:
            raise Blocked(CODE_COLUMNS, f"{word} with num_oov_buckets and default_value: TF 2.15 raises \"Can't "
                                        "specify both num_oov_buckets and default_value\", so the original never "
                                        "trained", node)
        size = "None"
        if "vocabulary_size" in args and not is_literal(args["vocabulary_size"].node, None):
            size = self.static_or_runtime(args["vocabulary_size"], f"{word} vocabulary_size", "vocabulary_size",
                                          "column_count", f", {f'Invalid vocabulary_size in {key}.'!r}")
            if isinstance(size, str):  # a run-time size: checked inside the file's params entry, not one of its own
                size = self.reader.params.pop(size.split('"')[1])
            elif not isinstance(size, int) or isinstance(size, bool) or size < 1:
                raise Blocked(CODE_COLUMNS, f"{word} vocabulary_size {size!r}: TF 2.15 raises \"Invalid "
                                            f"vocabulary_size in {key}.\", so the original never trained",
                              args["vocabulary_size"].node)
            size = str(size)
        trail = len(self.reader.trail)
        what = self.reader.runtime_value(f"vocabulary_{scope_name(key)}", args["vocabulary_file"],
                                         f"vocabulary_file({{}}, {size}, {key!r})")
        del self.reader.trail[trail:]
        extra = "".join([f", num_oov_buckets={oov}" if oov else "",
                         f", default_value={default}" if default not in (None, -1) else ""])
        return Categorical(key, f"len({what}) + {oov}" if oov else f"len({what})",
                           f'vocabulary_ids(sparse_input(features, "{key}"), {what}{extra})',
                           ("sparse_input", "vocabulary_ids", "vocabulary_file",
                            *(("column_count",) if "column_count(" in size else ())))

    def crossed(self, node: cst.Call, r) -> Categorical:
        args = self._crossed_args(node, r)
        size = self._int(args, "hash_bucket_size", "crossed_column", node=node,
                         runtime="hash_bucket_size must be > 1. hash_bucket_size: {}")  # TF 2.15's words
        if isinstance(size, int) and size < 1:
            raise Blocked(CODE_COLUMNS, "crossed_column hash_bucket_size must be at least 1 (TF 2.15 raises "
                                        "\"ValueError: hash_bucket_size must be > 1\")", node)
        hash_key = None
        if "hash_key" in args and not is_literal(args["hash_key"].node, None):
            hash_key = self._int(args, "hash_key", "crossed_column")
        names, inputs, parts = [], [], {"crossed_ids"}
        for item in self.leaves(args["keys"]):
            resolved = self.reader.resolve(item, "crossed_column key")
            if isinstance(resolved.node, cst.SimpleString):
                key = resolved.node.evaluated_value
                names.append(key)
                inputs.append(f'dense_input(features, "{key}")')  # TF1 crossed the raw value, nothing dropped
                parts.add("dense_input")
                continue
            inner = self.categorical(item)
            names.append(inner.name)
            inputs.append(inner.ids)
            parts.update(inner.parts)
        extra = f", hash_key={hash_key}" if hash_key is not None else ""
        return Categorical("_X_".join(sorted(names)), size, f"crossed_ids([{', '.join(inputs)}], {size}{extra})",
                           tuple(sorted(parts | set(_count_part(size)))))

    def leaves(self, keys: Value) -> list[Value]:
        """crossed_column's keys with nested crossed columns flattened (feature_column_v2._collect_leaf_level_keys)."""
        out = []
        for item in self.reader.items(keys, "crossed_column keys"):
            r, node, path = self._call(item, "crossed_column key")
            if path == "feature_column.crossed_column":
                out.extend(self.leaves(self._crossed_args(node, r)["keys"]))
            else:
                out.append(item)
        return out

    def _crossed_args(self, node: cst.Call, r) -> dict[str, Value]:
        """crossed_column's arguments, after the checks TF 2.15's crossed_column made when it was called: a program
        whose cross raised there never trained, so it must not be converted into one that does."""
        args = self._args(node, ["keys", "hash_bucket_size", "hash_key"], "crossed_column", r)
        if "keys" not in args:
            raise Blocked(CODE_COLUMNS, "crossed_column needs keys", node)
        items = self.reader.items(args["keys"], "crossed_column keys")
        if len(items) < 2:
            raise Blocked(CODE_COLUMNS, f"crossed_column with {len(items)} key: TF 2.15 raises \"ValueError: keys "
                                        "must be a list with length > 1\", so the original never trained; cross "
                                        "two or more keys, or use the column itself", node)
        for item in items:
            key = self.reader.resolve(item, "crossed_column key")
            path = self.reader.analysis.tf(key.node, key.value.file) if isinstance(key.node, cst.Call) else None
            word = path.split(".")[-1] if path and path.startswith("feature_column.") else None
            if word == "categorical_column_with_hash_bucket":
                raise Blocked(CODE_COLUMNS, "crossed_column over a categorical_column_with_hash_bucket: TF 2.15 raises "
                                            "\"ValueError: categorical_column_with_hash_bucket is not supported for "
                                            "crossing\" when the column is built, so the original never trained; "
                                            "cross the feature name as a string instead (TF1's advice: hashing "
                                            "before crossing adds collisions)", item.node)
            if word in _NOT_CATEGORICAL:
                raise Blocked(CODE_COLUMNS, f"crossed_column over a {word}: TF 2.15 raises \"ValueError: Unsupported "
                                            "key type. All keys must be either string, or categorical column except "
                                            "HashedCategoricalColumn\", so the original never trained; cross the "
                                            "feature name as a string or a categorical column", item.node)
        return args

    def static_or_runtime(self, value: Value, what: str, key: str, check: str, extra: str = ""):
        """The Python value of `value` read from the source (a literal or an expression over constants), else, when
        it is known only at run time, code for the model: the value computed where the Estimator is built (passed in
        params; the column was built before it, on the same value), through the generated `check`."""
        trail = len(self.reader.trail)
        try:
            return self.constant(value, what)
        except RunTime:
            del self.reader.trail[trail:]  # the statements computing it stay: the params read them
            try:
                return self.reader.runtime_value(key, value, f"{check}({{}}{extra})")
            except Blocked as blocked:  # (runtime.message speaks of vocabularies: this may be a size or a shape)
                raise blocked.wrapped(CODE_COLUMNS, f"{what} `{code(value.node)[:60]}` is computed at run time; "
                                                    "tfmigrate can pass a run-time value to the model when it is "
                                                    "visible where the Estimator is built, and ", "",
                                      value.node) from None

    # ---- vocabularies ---------------------------------------------------------------------------------------------
    def unchanged(self, r, what: str, value: Value) -> None:
        """Block a value whose name is changed in place after it is assigned (`VOCAB.append(x)`, `VOCAB[0] = x`):
        which state the column saw depends on where the change runs, and the assignment alone would give the wrong
        list (read statically) or a later one (passed at run time from where the Estimator is built)."""
        for b in r.trail:
            if b.kind != "assign":
                continue
            file = b.scope.file
            for load in file.loads_of(self.reader.program, b):
                parent = file.parent(load)
                changed = (isinstance(parent, cst.Attribute) and parent.value is load and parent.attr.value in _MUTATORS
                           and isinstance(file.parent(parent), cst.Call) and file.parent(parent).func is parent)
                changed = changed or (isinstance(parent, cst.Subscript) and parent.value is load
                                      and isinstance(file.parent(parent), (cst.AssignTarget, cst.Del)))
                changed = changed or (isinstance(parent, cst.AugAssign) and parent.target is load)
                if changed:
                    shown = file.parent(parent) if isinstance(parent, cst.Attribute) else parent  # the call
                    raise Blocked(CODE_COLUMNS, f"{what} `{code(value.node)[:60]}`: `{b.name}` is changed in place "
                                                f"(`{code(shown)[:50]}`), so which list the "
                                                "column saw depends on where that runs; build it in one expression "
                                                "(`BASE + [...]`, a comprehension, a function returning it)",
                                  value.node)

    def runtime_vocabulary(self, value: Value, key: str) -> str | None:
        """Code for a vocabulary_list known only at run time (read from a file, a flag, a function of the program),
        None when the source gives it. The migrated program computes it where the Estimator is built (params) and
        `vocabulary_list` checks it as TF 2.15 did (non-empty, no duplicates; a set's iteration order varies
        between runs, so it is refused); the ids are the same ops over the same list, the table's size len() of it."""
        trail = len(self.reader.trail)
        try:
            self.constant(value, "vocabulary_list")
        except RunTime as runtime:
            del self.reader.trail[trail:]  # the statements computing it stay: the params read them
            try:
                return self.reader.runtime_value(f"vocabulary_{scope_name(key)}", value,
                                                 f"vocabulary_list({{}}, {key!r})")
            except Blocked as blocked:
                if getattr(blocked, "loop", False):  # the whole story: a value per pass of a loop
                    raise blocked.wrapped(CODE_COLUMNS, f"vocabulary_list `{code(value.node)[:60]}` is computed at "
                                                        "run time and ", "", value.node) from None
                raise blocked.wrapped(CODE_COLUMNS, f"{runtime.message}; a run-time vocabulary is converted when it "
                                                    "is visible where the Estimator is built, and ", "",
                                      value.node) from None
        except Blocked:
            pass  # read statically below, with its own message
        del self.reader.trail[trail:]
        return None

    def vocabulary(self, value: Value) -> list:
        """vocabulary_list's Python value: a literal, or an expression over the source's constants (`VOCAB[:10]`,
        `BASE + ["x"]`, `[v.lower() for v in WORDS if v]`, `sorted(SET)`, `list(range(5))`) evaluated as Python
        evaluated it when TF1 built the column; the migrated code gets the resulting list. Anything computed at run
        time (files, environment, functions of the program) blocks: the table's size must be known here."""
        got = self.constant(value, "vocabulary_list")
        if isinstance(got, (list, tuple, range)):
            got = list(got)
        else:
            raise Blocked(CODE_COLUMNS, f"vocabulary_list `{code(value.node)[:60]}` is a {type(got).__name__}, not a "
                                        "list: TF1 took len() and the elements of what it was given", value.node)
        if len(set(got)) != len(got):
            raise Blocked(CODE_COLUMNS, f"vocabulary_list `{code(value.node)[:60]}` has duplicate keys: TF 2.15 raises "
                                        "\"ValueError: Duplicate keys in vocabulary_list\", so the original never "
                                        "trained", value.node)
        return got

    def constant(self, value: Value, what: str, depth: int = 0):
        r = self.reader.resolve(value, what)
        self.unchanged(r, what, value)
        node, file, env = r.node, r.value.file, r.value.env
        try:
            return literal(node)
        except ValueError:
            pass
        source = code(node)
        why = _unreadable(source, set_ok=depth > 0)
        if why is None and depth > 8:
            why = "it is built through too many names"
        if why is not None:
            kind = RunTime if why.startswith(("`.", "it calls a function")) or depth > 8 else Blocked
            raise kind(CODE_COLUMNS, f"{what} `{source[:60]}` is not converted: {why}. tfmigrate reads the "
                                        "vocabulary from the source to size the table: write it as a literal list, "
                                        "or an expression over constants of the program (slices, +, comprehensions, "
                                        "sorted, list, range, str methods)", value.node)
        tree = ast.parse(f"({source})", mode="eval")
        scope = {}
        for name in _free_names(tree):
            at = _first_name(node, name)
            if name in _PURE and not self.reader.program.lookup(name, at, file):
                scope[name] = _PURE[name]
                continue
            got = self.constant(Value(at, file, env), what, depth + 1)
            if isinstance(got, (set, frozenset)) and not _only_sorted(tree, name):
                raise Blocked(CODE_COLUMNS, f"{what} `{source[:60]}` iterates the set `{name}`, whose order varies "
                                            "between runs (string hashing): not converted; use sorted(...)", value.node)
            scope[name] = got
        try:
            return eval(compile(tree, "<vocabulary>", "eval"), {"__builtins__": {}}, scope)  # checked: _unreadable
        except Exception as error:  # the original raised too, when it built the column
            raise Blocked(CODE_COLUMNS, f"{what} `{source[:60]}` raises {type(error).__name__} ({error}) when Python "
                                        "evaluates it, as it did in the original", value.node) from None

    # ---- embedding columns --------------------------------------------------------------------------------------
    def embedding(self, node: cst.Call, r) -> tuple[Categorical, Embedding]:
        word = "embedding_column"
        args = self._args(node, ["categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                                 "tensor_name_in_ckpt", "max_norm", "trainable", "use_safe_embedding_lookup"],
                          word, r)
        if "categorical_column" not in args:
            raise Blocked(CODE_COLUMNS, "embedding_column needs categorical_column", node)
        dimension = self._int(args, "dimension", word, node=node, runtime="Invalid dimension {}.")
        if isinstance(dimension, int) and dimension < 1:
            raise Blocked(CODE_COLUMNS, "embedding_column dimension must be at least 1", node)
        combiner = self.reader.literal(args["combiner"], "combiner") if "combiner" in args else "mean"
        if combiner not in COMBINERS:
            raise Blocked(CODE_COLUMNS, f"embedding_column combiner {combiner!r}: one of {COMBINERS} is converted",
                          args["combiner"].node)
        for key, why in (("initializer", "the table is initialised like TF1's default (truncated normal, stddev "
                                         "1/sqrt(dimension)) only; drop initializer or load the table from a "
                                         "checkpoint by its name"),
                         ("ckpt_to_load_from", "load the table from the checkpoint by name "
                                               "(tf.train.load_checkpoint) after building the migrated model"),
                         ("tensor_name_in_ckpt", "load the table from the checkpoint by name after building the "
                                                 "migrated model")):
            if key in args and not is_literal(args[key].node, None):
                raise Blocked(CODE_COLUMNS, f"embedding_column({key}=...) is not converted: {why}", args[key].node)
        if "use_safe_embedding_lookup" in args and not is_literal(args["use_safe_embedding_lookup"].node, True):
            raise Blocked(CODE_COLUMNS, "embedding_column(use_safe_embedding_lookup=False) is not converted: TF1 then "
                                        "looked ids up without pruning invalid ones (embedding_lookup_sparse_v2); "
                                        "drop the argument", args["use_safe_embedding_lookup"].node)
        max_norm = None
        if "max_norm" in args and not is_literal(args["max_norm"].node, None):
            got = self.reader.literal(args["max_norm"], "max_norm")
            if not isinstance(got, (int, float)) or isinstance(got, bool):
                raise Blocked(CODE_COLUMNS, "embedding_column max_norm must be a number", args["max_norm"].node)
            max_norm = repr(float(got))
        trainable = True
        if "trainable" in args:
            trainable = self.reader.literal(args["trainable"], "trainable")
            if not isinstance(trainable, bool):
                raise Blocked(CODE_COLUMNS, "embedding_column trainable must be True or False", args["trainable"].node)
        categorical = self.categorical(args["categorical_column"])
        return categorical, Embedding(dimension, combiner, max_norm, trainable,
                                      ("column_count",) if isinstance(dimension, str) else ())


# ---- optimizers over sparse gradients --------------------------------------------------------------------------
def check_optimizer(ctor: str, part: str, columns, at: cst.CSTNode) -> list:
    """Block optimizers whose dense update differs from TF1's sparse one on an embedding table (DNN part) or a
    categorical column's weights (linear part); notes for last-bit differences. Measured with IndexedSlices
    gradients from safe_embedding_lookup_sparse (duplicates, pruned ids, all combiners), TF 2.15 vs the generated
    optimizers on TF 2.21: legacy Adagrad, SGD bit-equal (zero-gradient rows stay unchanged in a dense update);
    Ftrl bit-equal on zero-initialised weights only (a dense Ftrl step recomputes every row from its linear slot,
    which is zero for untouched rows: right for a linear model, wrong for an embedding table)."""
    embeddings = [c for c in columns if c.embedding is not None]
    categorical = [c for c in columns if c.categorical is not None and c.embedding is None]
    if not embeddings and not categorical:
        return []
    what = (f"the embedding column '{embeddings[0].name}'" if embeddings
            else f"the categorical column '{categorical[0].name}'")
    head = ctor.split("(", 1)[0]
    momentum = re.search(r"momentum=([^,)]+)", ctor)
    if head == "keras.optimizers.SGD" and not (momentum and momentum.group(1).strip() not in ("0", "0.0")):
        return []
    if head == "LegacyAdagrad":
        return []
    if head == "keras.optimizers.Adagrad":
        return [(CODE_COLUMNS, f"tf.compat.v1.train.AdagradOptimizer on {what}: TF1's sparse kernel multiplies by "
                               "rsqrt(accumulator), Keras divides by its sqrt: last-bit differences (measured 6e-8 "
                               "absolute on the table after 6 steps)", at)]
    if head == "TF1Ftrl" and not embeddings and "l2_shrinkage" not in ctor:
        return []
    if head == "TF1ProximalAdagrad" and not proximal_adagrad.regularized(ctor):
        # without l1/l2 a zero-gradient row stays bit-identical; one-value rows TF1 divided by sqrt (not rsqrt)
        return [(CODE_COLUMNS, f"tf.compat.v1.train.ProximalAdagradOptimizer on the categorical column "
                               f"'{categorical[0].name}': TF1's sparse kernel divides by sqrt(accumulator) for "
                               "one-value rows, the generated update multiplies by rsqrt: last-bit differences",
                 at)] if categorical else []
    raise Blocked(CODE_COLUMNS, f"{part} optimizer `{ctor[:50]}` over {what} is not converted: TF1 updated only the "
                                "rows looked up in the step (sparse kernels), and this optimizer's dense Keras update "
                                "changes the other rows too (slots, momentum, Ftrl's recomputed weights). Adagrad and "
                                "SGD are converted for embeddings; Adagrad, SGD and Ftrl (without l2 shrinkage) for "
                                "a linear model's categorical columns", at)
