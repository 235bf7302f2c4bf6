"""Feature columns (TFM622) → Columns, sorted as TF1's input layer and linear model read them."""
from __future__ import annotations

import math

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from .. import feature_columns as fcols
from ...facts.calls import is_literal
from ._model import CODE_COLUMNS, Column, scope_of_key


_NUMERIC = ["key", "shape", "default_value", "dtype", "normalizer_fn"]


class ColumnsMixin:
    """Reader: the feature columns of a canned estimator."""

    # ---- feature columns -----------------------------------------------------------------------------------------
    def columns(self, value: Value, linear: bool = False, empty: bool = False) -> list[Column]:
        """The columns of `value`, sorted as TF1 read them; none is an error unless `empty`."""
        out: dict[str, Column] = {}
        groups: list[Column] = []
        errors: list[Blocked] = []  # each column's blocker, at its own line
        for item in self.items(value, "feature_columns"):
            try:
                column = self.column(item, linear)
            except Blocked as blocked:
                errors.append(blocked)
                continue
            if column.runtime is not None:
                groups.append(column)
                continue
            if column.name in out:
                errors.append(Blocked(CODE_COLUMNS, f"feature column '{column.name}' is given twice (TF1 refused "
                                                    "duplicate column names)", item.node))
            out[column.name] = column
        if errors:
            raise Blocked.many(errors)
        if not out and not groups and not empty:
            raise Blocked(CODE_COLUMNS, "feature_columns is empty", value.node)
        return [*(out[k] for k in sorted(out)), *groups]  # input_layer and linear_model order: sorted by name

    def column(self, value: Value, linear: bool = False) -> Column:
        from ...facts.sites import bind_values

        r = self.resolve(value, "feature column")
        node, file, env = r.node, r.value.file, r.value.env
        path = self.analysis.tf(node, file) if isinstance(node, cst.Call) else None
        word = path.split(".")[-1] if path and path.startswith("feature_column.") else None
        if word is not None:
            fcols.blocked_kind(path, node)
        columns = fcols.ColumnReader(self)
        if word == "embedding_column":
            categorical, embedding = columns.embedding(node, r)
            return Column(categorical.name, 1, None, categorical=categorical, embedding=embedding)
        if word and (word.startswith("categorical_column_with_") or word == "crossed_column"
                     or word == "bucketized_column" and linear):
            if not linear:
                raise Blocked(CODE_COLUMNS, f"tf.{path} in a DNN: TF1's input layer takes dense columns only; wrap "
                                            "it in embedding_column or indicator_column", node)
            categorical = columns.categorical(value)
            return Column(categorical.name, 1, None, categorical=categorical)
        if path == "feature_column.indicator_column":
            args = bind_values(node, ["categorical_column"], "indicator_column", file, env, rule=CODE_COLUMNS)
            if "categorical_column" not in args:
                raise Blocked(CODE_COLUMNS, "indicator_column needs categorical_column", node)
            inner = self.resolve(args["categorical_column"], "categorical column")
            inner_path = self.analysis.tf(inner.node, inner.value.file) if isinstance(inner.node, cst.Call) else None
            if inner_path != "feature_column.categorical_column_with_vocabulary_list":
                categorical = columns.categorical(args["categorical_column"])
                return Column(categorical.name, 1, None, categorical=categorical, indicator=True)
            trail = len(self.trail)
            try:
                return self.vocabulary_column(args["categorical_column"])
            except Blocked as blocked:  # a vocabulary known only at run time: the categorical column's one-hot ids
                del self.trail[trail:]
                categorical = columns.categorical(args["categorical_column"])
                if not isinstance(categorical.num_buckets, str):
                    raise blocked from None
                return Column(categorical.name, 1, None, categorical=categorical, indicator=True)
        if path == "feature_column.bucketized_column":
            args = bind_values(node, ["source_column", "boundaries"], "bucketized_column", file, env, rule=CODE_COLUMNS)
            if "source_column" not in args or "boundaries" not in args:
                raise Blocked(CODE_COLUMNS, "bucketized_column needs source_column and boundaries", node)
            source = self.column(args["source_column"])
            if isinstance(source.size, str):
                raise Blocked(CODE_COLUMNS, "bucketized_column over a numeric_column whose shape is known only at "
                                            "run time is not converted yet: write the shape in the program", node)
            if source.boundaries is not None:
                raise Blocked(CODE_COLUMNS, "bucketized_column's source must be a numeric_column", node)
            trail = len(self.trail)
            try:
                boundaries = self.literal(args["boundaries"], "bucketized_column boundaries")
            except Blocked as blocked:  # an expression over constants, or a list computed at run time
                del self.trail[trail:]
                try:
                    boundaries = fcols.ColumnReader(self).static_or_runtime(
                        args["boundaries"], "bucketized_column boundaries", f"boundaries_{scope_of_key(source.key)}",
                        "column_boundaries")
                except Blocked as runtime:  # not visible where the Estimator is built, or not a plain value
                    raise (runtime if "run time" in runtime.message else blocked) from None
                if isinstance(boundaries, tuple):
                    boundaries = list(boundaries)
                if isinstance(boundaries, str):
                    return Column(source.key, source.size, source.normalizer, boundaries)
            if not isinstance(boundaries, list) or not all(isinstance(b, (int, float)) and not isinstance(b, bool)
                                                           for b in boundaries):
                raise Blocked(CODE_COLUMNS, "bucketized_column boundaries must be a list of numbers",
                              args["boundaries"].node)
            return Column(source.key, source.size, source.normalizer, tuple(float(b) for b in boundaries))
        if path != "feature_column.numeric_column":
            if path and path.startswith("feature_column."):
                raise Blocked(CODE_COLUMNS, f"tf.{path} is not converted yet (numeric_column and bucketized_column "
                                            "are); its Keras preprocessing equivalent must reproduce TF1's lookups "
                                            "and combiners exactly", node)
            hub = self.program.qualified(node.func, file) if isinstance(node, cst.Call) else None
            if hub and hub.startswith("tensorflow_hub."):  # hub.text_embedding_column: its table is the module's
                raise Blocked(CODE_COLUMNS, f"feature column `{code(value.node)[:60]}`: {hub.split('.', 1)[1]} is a "
                                            "tensorflow_hub column (its weights are the hub module's), not one of "
                                            "the tf.feature_column columns tfmigrate converts: keep this job on TF "
                                            "2.15, or build the column with tf.feature_column", value.node)
            raise Blocked(CODE_COLUMNS, f"feature column `{code(value.node)[:60]}`: not a tf.feature_column call "
                                        "tfmigrate can see", value.node)
        args = bind_values(node, _NUMERIC, "numeric_column", file, env, rule=CODE_COLUMNS)
        if "key" not in args:
            raise Blocked(CODE_COLUMNS, "numeric_column without a key", node)
        placeholder = self.resolve(args["key"], "numeric_column key").node
        runtime = self.runtime.get(id(placeholder))
        key = "" if runtime is not None else self.literal(args["key"], "numeric_column key")
        if not isinstance(key, str):
            raise Blocked(CODE_COLUMNS, "numeric_column key must be a string", args["key"].node)
        if "shape" in args and runtime is None:
            trail = len(self.trail)
            try:
                shape = self.literal(args["shape"], "numeric_column shape")
            except Blocked as blocked:  # a shape the program computed (`images.shape[1:]`): its size in params
                del self.trail[trail:]
                shape = self.runtime_shape(args["shape"], key, blocked)
                if isinstance(shape, str):
                    return Column(key, shape, self.normalizer(args, None))
        else:
            shape = self.literal(args["shape"], "numeric_column shape") if "shape" in args else 1
        dims = shape if isinstance(shape, list) else [shape]
        # shape=() (or []) is a scalar column, one value per example, as TF1 read it (math.prod(()) == 1)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
            raise Blocked(CODE_COLUMNS, f"numeric_column shape {shape!r} is not a positive integer or a list of "
                                        "them", args["shape"].node)
        normalizer = self.normalizer(args, runtime)
        if runtime is not None:
            return Column("", math.prod(dims), normalizer, runtime=self.runtime_keys(runtime))
        return Column(key, math.prod(dims), normalizer)

    def runtime_shape(self, value: Value, key: str, blocked: Blocked):
        """A numeric_column shape known only at run time: code for its size (prod of the dimensions) computed where
        the Estimator is built (params), through `column_shape`, TF 2.15's _check_shape; or the value of an
        expression over constants."""
        try:
            return fcols.ColumnReader(self).static_or_runtime(value, "numeric_column shape",
                                                               f"shape_{scope_of_key(key)}", "column_shape",
                                                               f", {key!r}")
        except Blocked as runtime:  # not visible where the Estimator is built, or not a plain value
            raise (runtime if "run time" in runtime.message else blocked) from None

    def normalizer(self, args, runtime) -> str | None:
        normalizer = None
        fn = args.get("normalizer_fn")
        if fn is not None and not is_literal(fn.node, None):
            if self.program.function_of(fn) is None:
                raise Blocked(CODE_COLUMNS, f"normalizer_fn=`{code(fn.node)[:60]}` is not a function tfmigrate can "
                                            "carry (a lambda or a def)", fn.node)
            normalizer = self.program.render(fn, self.anchor, self.file)
            if normalizer is None:
                raise Blocked(CODE_COLUMNS, f"normalizer_fn=`{code(fn.node)[:60]}` uses names local to a function; "
                                            "define it (and what it reads) at module level so the model can call it",
                              fn.node)
            if runtime is not None and "__tfmigrate_runtime_key__" in normalizer:
                raise Blocked(CODE_COLUMNS, "a normalizer_fn that depends on the key of a run-time loop is not "
                                            "converted: give each column its own normalizer_fn", fn.node)
        return normalizer

    def runtime_keys(self, iterable: Value) -> str:
        """The keys of a run-time loop over columns, for the model: written out where the model sees the same
        value, else in params from the Estimator's place (both programs iterate the same keys: the loop ran before
        the Estimator was built, on the same value)."""
        index = sum(1 for k in self.params if k.startswith("feature_keys"))
        key = "feature_keys" if not index else f"feature_keys_{index + 1}"
        try:
            text = self.carry(key, iterable)
        except Blocked as blocked:
            raise Blocked(CODE_COLUMNS, f"feature columns built over `{code(iterable.node)[:60]}`: {blocked.message}",
                          iterable.node) from None
        if text.startswith("params["):
            self.params[key] = f"list({self.params[key]})"  # iterated twice by the model (build and call)
            return f"self.{text}"
        return text

    def vocabulary_column(self, value: Value) -> Column:
        from ...facts.sites import bind_values

        r = self.resolve(value, "categorical column")
        node, file, env = r.node, r.value.file, r.value.env
        path = self.analysis.tf(node, file) if isinstance(node, cst.Call) else None
        if path != "feature_column.categorical_column_with_vocabulary_list":
            raise Blocked(CODE_COLUMNS, f"indicator_column over `{code(value.node)[:60]}` is not converted yet (over "
                                        "categorical_column_with_vocabulary_list it is)", value.node)
        args = bind_values(node, ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"],
                           "categorical_column_with_vocabulary_list", file, env, rule=CODE_COLUMNS)
        if "key" not in args or "vocabulary_list" not in args:
            raise Blocked(CODE_COLUMNS, "categorical_column_with_vocabulary_list needs key and vocabulary_list", node)
        key = self.literal(args["key"], "categorical column key")
        vocabulary = self.literal(args["vocabulary_list"], "vocabulary_list")
        if not isinstance(key, str) or not isinstance(vocabulary, list) or not vocabulary or not (
                all(isinstance(v, str) for v in vocabulary)
                or all(isinstance(v, int) and not isinstance(v, bool) for v in vocabulary)):
            raise Blocked(CODE_COLUMNS, "a vocabulary_list of strings or of integers, with a string key, is converted",
                          node)
        oov = self.literal(args["num_oov_buckets"], "num_oov_buckets") if "num_oov_buckets" in args else 0
        default = self.literal(args["default_value"], "default_value") if "default_value" in args else -1
        if not isinstance(oov, int) or not isinstance(default, int):
            raise Blocked(CODE_COLUMNS, "num_oov_buckets and default_value must be integers", node)
        return Column(key, 1, None, vocabulary=tuple(vocabulary), num_oov_buckets=oov, default_value=default)

    def sparse_combiner(self, value: Value | None) -> str:
        if value is None:
            return "sum"
        got = self.literal(value, "sparse_combiner")
        if got not in fcols.COMBINERS:
            raise Blocked(CODE_COLUMNS, f"sparse_combiner {got!r}: one of {fcols.COMBINERS} is converted", value.node)
        return got
