"""`input_layer(features, columns)` in a model_fn over embedding / indicator / bucketized columns (issue 27) →
the generated `TF1InputLayer`, a layer attribute of the converted model, read with `self.input_layer.read(features,
columns)` on the same column objects at run time. It computes what TF1's input_layer did with the feature-column
support code of the canned conversion (templates/feature_columns.py.j2, canned_support.py.j2: the same ops TF1's
columns ran, checked bit-equal there): columns in name order, numeric / bucketized dense values, indicator one-hots
summed per example, embedding_column lookups through `EmbeddingColumn` (truncated-normal 1/sqrt(dimension) init,
`tf.nn.safe_embedding_lookup_sparse` with the column's combiner and max_norm). Its weights are named
`input_layer/<column>_embedding/embedding_weights`, TF1's names, so an Estimator checkpoint restores by name and
verify copies the initial weights. The program model checks every column first (rules/program.py); the layer
refuses at run time any column kind it does not compute rather than guess."""
from __future__ import annotations

from tfmigrate.edits import shared

from ...emit.wrap import generated

LAYER_CLASS = "TF1InputLayer"
ATTRIBUTE = "input_layer"
# the support functions the layer calls (feature_columns.py.j2, then canned_support.py.j2)
COLUMN_PARTS = ("sparse_input", "dense_input", "vocabulary_ids", "hash_bucket_ids", "identity_ids", "bucketized_ids",
                "crossed_ids", "indicator_of", "EmbeddingColumn")
CANNED_PARTS = ("numeric_input", "bucketized_input")

_LAYER = '''\
class TF1InputLayer(keras.layers.Layer):
    """tf.compat.v1.feature_column.input_layer(features, columns) inside the model_fn, as TF1 computed it: the
    columns in name order, numeric and bucketized values dense, indicator columns one-hot summed per example,
    embedding columns looked up in `<column>_embedding/embedding_weights` (TF1's variable names under
    `input_layer`), all flattened per example and concatenated. The columns are the program's own objects; the
    embedding tables are made on the first read, under this layer's name."""

    def __init__(self, name="input_layer"):
        super().__init__(name=name)
        self.column_names = None
        self.embeddings = {}

    def read(self, features, columns):
        columns = sorted(columns, key=lambda c: c.name)
        names = [c.name for c in columns]
        if self.column_names is None:
            with keras.name_scope(self.name, caller=self):
                for column in columns:
                    if type(column).__name__ == "EmbeddingColumn":
                        self.embeddings[column.name] = self.embedding_layer(column)
                        setattr(self, f"embeddings__{column.name}", self.embeddings[column.name])
            self.column_names = names
        elif names != self.column_names:
            raise ValueError(f"input_layer read columns {names}, built for {self.column_names}")
        return tf.concat([self.dense(features, column) for column in columns], axis=1)

    def embedding_layer(self, column):
        import math  # imported here: the module may bind the name otherwise

        init = column.initializer  # embedding_column's default: TruncatedNormal(0, 1/sqrt(dimension)), no seed
        default = type(init).__name__ == "TruncatedNormal" and init.get_config() == {
            "mean": 0.0, "stddev": 1 / math.sqrt(column.dimension), "seed": None, "dtype": "float32"}
        if not default or column.ckpt_to_load_from is not None or not column.use_safe_embedding_lookup:
            raise TypeError(f"{column.name}: an embedding initializer, ckpt_to_load_from or "
                            "use_safe_embedding_lookup=False is not converted")
        return EmbeddingColumn(column.categorical_column.num_buckets, column.dimension, column.combiner,
                               column.max_norm, column.trainable, name=column.name)

    def dense(self, features, column):
        kind = type(column).__name__
        if kind == "NumericColumn":
            return numeric_input(features, column.key, self.size(column), column.normalizer_fn)
        if kind == "BucketizedColumn":
            source = column.source_column
            return bucketized_input(features, source.key, self.size(source), list(column.boundaries),
                                    source.normalizer_fn)
        if kind == "IndicatorColumn":
            categorical = column.categorical_column
            return indicator_of(self.ids(features, categorical), categorical.num_buckets)
        if kind == "EmbeddingColumn":
            return self.embeddings[column.name](self.ids(features, column.categorical_column))
        raise TypeError(f"input_layer over {column.name} ({kind}) is not converted")

    @staticmethod
    def size(column):
        size = 1
        for dim in column.shape:
            size *= dim
        return size

    def ids(self, features, column):
        """A categorical column's ids (a SparseTensor), as TF1's column computed them."""
        kind = type(column).__name__
        if kind == "VocabularyListCategoricalColumn":
            return vocabulary_ids(sparse_input(features, column.key), list(column.vocabulary_list),
                                  column.num_oov_buckets, column.default_value)
        if kind == "HashedCategoricalColumn":
            return hash_bucket_ids(sparse_input(features, column.key), column.hash_bucket_size)
        if kind == "IdentityCategoricalColumn":
            return identity_ids(sparse_input(features, column.key), column.number_buckets, column.default_value)
        if kind == "BucketizedColumn":
            source = column.source_column
            return bucketized_ids(features, source.key, self.size(source), list(column.boundaries),
                                  source.normalizer_fn)
        if kind == "CrossedColumn":
            return crossed_ids([dense_input(features, key) if isinstance(key, str) else self.ids(features, key)
                                for key in self.leaves(column)], column.hash_bucket_size, column.hash_key)
        raise TypeError(f"input_layer over the categorical column {column.name} ({kind}) is not converted")

    def leaves(self, column):
        """A crossed column's keys, nested crosses flattened (TF1's _collect_leaf_level_keys)."""
        out = []
        for key in column.keys:
            out.extend(self.leaves(key) if type(key).__name__ == "CrossedColumn" else [key])
        return out
'''


def layer_support() -> list[str]:
    """The module-level code TF1InputLayer needs: the column support functions, then the layer."""
    from ...emit.assembly import support

    return ([support("feature_columns.py.j2", part=p).strip("\n") for p in COLUMN_PARTS]
            + [support("canned_support.py.j2", part=p).strip("\n") for p in CANNED_PARTS]
            + [shared(generated(_LAYER).rstrip("\n"))])
