"""TF 1's private feature-column classes (tensorflow/python/feature_column/feature_column.py: `_NumericColumn`,
`_DenseColumn`, ...) that programs test columns with (`filter(lambda c: isinstance(c, feature_column._NumericColumn),
columns)`, the GoogleCloudPlatform estimator tutorials), and which of them each column tf.feature_column builds is
an instance of on TF 2.15.

Measured on TF 2.15.1: tf.feature_column.* (and tf.compat.v1.feature_column.*) build feature_column_v2 classes,
which subclass only the ABSTRACT v1 classes (_FeatureColumn, _DenseColumn, _CategoricalColumn,
_SequenceDenseColumn); no column is an instance of a concrete one (_NumericColumn, _BucketizedColumn,
_VocabularyListCategoricalColumn, ...), which TF 1.x's columns were. A test of an abstract class means the same on
both; a test of a concrete class keeps nothing on TF 2.
"""
from __future__ import annotations

MODULE = "tensorflow.python.feature_column.feature_column"

ABSTRACT = ("_FeatureColumn", "_DenseColumn", "_CategoricalColumn", "_SequenceDenseColumn")
CONCRETE = ("_BucketizedColumn", "_CrossedColumn", "_EmbeddingColumn", "_HashedCategoricalColumn",
            "_IdentityCategoricalColumn", "_IndicatorColumn", "_NumericColumn", "_SequenceCategoricalColumn",
            "_SharedEmbeddingColumn", "_VocabularyFileCategoricalColumn", "_VocabularyListCategoricalColumn",
            "_WeightedCategoricalColumn")

# tf.feature_column.<kind> → the v1 classes its column is an instance of on TF 2.15.1
_F, _D, _C, _S = ABSTRACT
INSTANCE_OF = {
    "numeric_column": (_F, _D),
    "bucketized_column": (_F, _D, _C),
    "categorical_column_with_vocabulary_list": (_F, _C),
    "categorical_column_with_vocabulary_file": (_F, _C),
    "categorical_column_with_hash_bucket": (_F, _C),
    "categorical_column_with_identity": (_F, _C),
    "crossed_column": (_F, _C),
    "weighted_categorical_column": (_F, _C),
    "indicator_column": (_F, _D, _S),
    "embedding_column": (_F, _D, _S),
}

# the TF 2 classes of the same kinds (feature_column_v2, measured on TF 2.15.1 and 2.21): what tf.feature_column
# builds there, so a test of one keeps what TF 1.x's test of the concrete v1 class kept
MODULE_V2 = "tensorflow.python.feature_column.feature_column_v2"
V2_OF = {"_NumericColumn": "NumericColumn", "_BucketizedColumn": "BucketizedColumn",
         "_VocabularyListCategoricalColumn": "VocabularyListCategoricalColumn",
         "_VocabularyFileCategoricalColumn": "VocabularyFileCategoricalColumn",
         "_HashedCategoricalColumn": "HashedCategoricalColumn",
         "_IdentityCategoricalColumn": "IdentityCategoricalColumn",
         "_CrossedColumn": "CrossedColumn", "_WeightedCategoricalColumn": "WeightedCategoricalColumn",
         "_IndicatorColumn": "IndicatorColumn", "_EmbeddingColumn": "EmbeddingColumn"}
_V2_INSTANCE_OF = {
    "numeric_column": ("NumericColumn", "DenseColumn"),
    "bucketized_column": ("BucketizedColumn", "DenseColumn", "CategoricalColumn"),
    "categorical_column_with_vocabulary_list": ("VocabularyListCategoricalColumn", "CategoricalColumn"),
    "categorical_column_with_vocabulary_file": ("VocabularyFileCategoricalColumn", "CategoricalColumn"),
    "categorical_column_with_hash_bucket": ("HashedCategoricalColumn", "CategoricalColumn"),
    "categorical_column_with_identity": ("IdentityCategoricalColumn", "CategoricalColumn"),
    "crossed_column": ("CrossedColumn", "CategoricalColumn"),
    "weighted_categorical_column": ("WeightedCategoricalColumn", "CategoricalColumn"),
    "indicator_column": ("IndicatorColumn", "DenseColumn", "SequenceDenseColumn"),
    "embedding_column": ("EmbeddingColumn", "DenseColumn", "SequenceDenseColumn"),
}
V2_CLASSES = {name for names in _V2_INSTANCE_OF.values() for name in names}
INSTANCE_OF = {kind: (*v1, *_V2_INSTANCE_OF[kind]) for kind, v1 in INSTANCE_OF.items()}


def class_name(qualified: str | None) -> str | None:
    """`_NumericColumn` for `tensorflow.python.feature_column.feature_column._NumericColumn` (`NumericColumn` for
    feature_column_v2's), else None."""
    module, _, name = (qualified or "").rpartition(".")
    if module == MODULE_V2 and name in V2_CLASSES:
        return name
    return name if module == MODULE and name in ABSTRACT + CONCRETE else None
