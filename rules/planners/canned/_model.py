"""What a canned estimator call is read into: its feature columns (Column) and the model standing in for a
Site's model_fn (CannedModel); the rule codes."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.model import FileIndex

from .. import feature_columns as fcols
from .. import heads, optimizers, partitioners


CODE = "TFM620"


CODE_COLUMNS = "TFM622"


CODE_TREES = "TFM623"


LABEL_DIMENSION = "@label_dimension"  # in a file's support_done: a regressor there has label_dimension > 1


@dataclass(frozen=True)
class Column:
    key: str  # the feature key (numeric_column's name)
    size: int | str  # prod(shape) of the numeric source (str: code of a run-time shape's size, in params)
    normalizer: str | None  # code of the normalizer_fn, valid at module level
    boundaries: tuple | str | None = None  # bucketized_column over the numeric source (str: run-time code)
    vocabulary: tuple | None = None  # indicator_column(categorical_column_with_vocabulary_list)
    num_oov_buckets: int = 0
    default_value: int = -1
    runtime: str | None = None  # numeric columns, one per key of this run-time iterable (code valid in the model)
    categorical: fcols.Categorical | None = None  # a categorical column (linear), or under indicator/embedding
    embedding: fcols.Embedding | None = None  # embedding_column(categorical) (DNN)
    indicator: bool = False  # indicator_column(categorical) other than over a vocabulary list

    @property
    def name(self) -> str:  # what TF1 sorted the columns by
        if self.categorical is not None:
            suffix = "_embedding" if self.embedding is not None else "_indicator" if self.indicator else ""
            return self.categorical.name + suffix
        if self.vocabulary is not None:
            return f"{self.key}_indicator"
        return f"{self.key}_bucketized" if self.boundaries is not None else self.key

    @property
    def boundaries_code(self) -> str:
        return self.boundaries if isinstance(self.boundaries, str) else repr(list(self.boundaries))

    @property
    def dense_only(self) -> bool:  # a one-hot input: exact in a DNN, a sparse weight lookup in a linear model
        return self.boundaries is not None or self.vocabulary is not None

    def input_code(self, key: str | None = None) -> str:
        if self.embedding is not None:
            return f'self.embedding_columns["{fcols.scope_name(self.name)}"]({self.categorical.ids})'
        if self.categorical is not None:
            return self.categorical.indicator() if self.indicator else self.categorical.ids
        if self.runtime is not None:
            return (f"numeric_input(features, {key}, {self.size}"
                    + (f", normalizer_fn={self.normalizer})" if self.normalizer else ")"))
        if self.vocabulary is not None:
            extra = "".join([f", num_oov_buckets={self.num_oov_buckets}" if self.num_oov_buckets else "",
                             f", default_value={self.default_value}" if self.default_value != -1 else ""])
            return f'indicator_input(features, "{self.key}", {list(self.vocabulary)!r}{extra})'
        head = (f'numeric_input(features, "{self.key}", {self.size}' if self.boundaries is None else
                f'bucketized_input(features, "{self.key}", {self.size}, {self.boundaries_code}')
        return head + (f", normalizer_fn={self.normalizer})" if self.normalizer else ")")


@dataclass(eq=False)
class CannedModel:
    """Stands in for a Site's model_fn: the canned estimator call whose network this module generates."""

    node: cst.Call
    file: FileIndex
    name: str  # DNNClassifier, …
    v1: bool
    family: str  # dnn | linear | combined
    head: str  # multi_class | binary | regression
    units: int
    dnn_columns: list[Column]
    linear_columns: list[Column]
    hidden_units: str = ""
    activation: str = ""
    dropout: str | None = None
    optimizer: optimizers.OptimizerPlan | None = None
    support: list[str] = field(default_factory=list)  # the optimizer classes the plan needs
    reduction: str = "sum_over_batch_size"  # or "sum"
    anchor: cst.CSTNode | None = None  # the module-level statement the generated code goes above
    notes: list = field(default_factory=list)
    bound: tuple = ()
    sparse_combiner: str = "sum"  # the linear model's, for categorical columns
    head_plan: heads.Head | None = None  # weights, label vocabulary, evaluate() metrics (rules/planners/heads.py)
    batch_norm: bool = False  # TF1BatchNormalization after each hidden layer (rules/planners/heads.py)
    parameter_server: bool = False  # trained by an async parameter-server job (tf_keras, ClusterCoordinator)
    partitioner: partitioners.PartitionerPlan | None = None  # what TF1 partitioned implicitly there (v1 DNN)
    added_metrics: list[str] = field(default_factory=list)  # tf.estimator.add_metrics' metrics (_added_metrics.py)
    forwarded: tuple = ()  # forward_features' keys, added to the 'predict' signature (driver/_forward_features.py)

    @property
    def tf_name(self) -> str:
        return f"tf.{'compat.v1.' if self.v1 else ''}estimator.{self.name}"


def is_canned(site) -> bool:
    return isinstance(site.model_fn, CannedModel)


def scope_of_key(key: str) -> str:
    """TF1's variable scope for a column (feature_column_v2._sanitize_column_name_for_variable_scope)."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", key)
