"""`tf.compat.v1.feature_column.input_layer(features, columns)` over numeric_columns → the generated
`numeric_columns_input(features, columns)` (rules/program.py reads the columns)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared

from ...emit.wrap import generated
from ...facts.calls import bind, code
from .. import feature_columns as fcols, variables
from ._input_layer_columns import ATTRIBUTE, LAYER_CLASS, layer_support
from ._names import calls_in

INPUT_LAYER = "feature_column.input_layer"
INPUT_LAYER_ARGS = ["features", "feature_columns", "weight_collections", "trainable",
                    "cols_to_vars", "cols_to_output_tensors"]
NUMERIC_COLUMNS_INPUT = "numeric_columns_input"
_NUMERIC_COLUMNS_SUPPORT = shared(generated('''\
def numeric_columns_input(features, columns):
    """tf.compat.v1.feature_column.input_layer(features, columns) over numeric_columns, as TF1 computed it: the
    columns in name order, each value (a last axis added at rank 1, then normalizer_fn, then float32) flattened to
    [batch, prod(shape)], all concatenated on the last axis. No variables (tfmigrate checked every column)."""
    parts = []
    for column in sorted(columns, key=lambda c: c.name):
        if type(column).__name__ not in ("NumericColumn", "_NumericColumn"):
            raise TypeError(f"{column.name} is not a numeric_column; this conversion reads numeric columns only")
        value = tf.convert_to_tensor(features[column.key])
        if value.shape.rank == 1:
            value = tf.expand_dims(value, -1)
        if column.normalizer_fn is not None:
            value = column.normalizer_fn(value)
        size = 1
        for dim in column.shape:
            size *= dim
        parts.append(tf.reshape(tf.cast(value, tf.float32), [-1, size]))
    return tf.concat(parts, axis=1)
''').rstrip("\n"))


def input_layer_calls(fn: cst.FunctionDef, names) -> list[cst.Call]:
    """The model_fn's tf.compat.v1.feature_column.input_layer calls."""
    return [c for c in calls_in(fn) if names.of(c) == INPUT_LAYER]


class InputLayerMixin:
    """input_layer over numeric columns."""

    def input_layer(self, call: cst.Call) -> cst.Call:
        """input_layer(features, columns) over numeric_columns (the program model read them, rules/program.py):
        the generated numeric_columns_input reads the same column objects at run time, as TF1's input layer did."""
        args = bind(call, INPUT_LAYER_ARGS, "input_layer", variables.CODE)
        if self.input_layers is not True:  # embedding / indicator / bucketized columns (_input_layer_columns.py)
            return self.columns_input_layer(args, call)
        if _NUMERIC_COLUMNS_SUPPORT not in self.support:
            self.support.append(_NUMERIC_COLUMNS_SUPPORT)
        return cst.parse_expression(f"{NUMERIC_COLUMNS_INPUT}({code(args['features'])}, "
                                    f"{code(args['feature_columns'])})")

    def columns_input_layer(self, args: dict, call: cst.Call) -> cst.Call:
        """input_layer over columns with embeddings or one-hots (the program model read them: self.input_layers) →
        the generated TF1InputLayer attribute `input_layer`, read on the same column objects at run time. TF1 named
        the variables of one call `input_layer/...`; a second call (`input_layer_1`), one inside a variable_scope or
        a loop would be named otherwise: blocked."""
        naming = " (TF1 named its variables otherwise than input_layer/<column>/...)"
        why = ("a second input_layer call" + naming if ATTRIBUTE in self.attrs() else
               "an input_layer call inside a variable_scope" + naming if self.scope_depth else
               "an input_layer call inside a loop or a static `if`" + naming if self.loop is not None else None)
        if "trainable" in args and not (isinstance(args["trainable"], cst.Name) and args["trainable"].value == "True"):
            why = why or "input_layer(trainable=...) other than True (TF1 then froze the embedding tables)"
        taken = sorted({LAYER_CLASS, "EmbeddingColumn", "indicator_of", "sparse_input"} & set(self.module_names))
        if taken:
            raise Blocked(variables.CODE, f"`{taken[0]}` is taken in this module; the converted input_layer needs the "
                                          "name", call)
        if why is not None:
            raise Blocked(variables.CODE, f"{why} over embedding / indicator columns is not converted", call)
        self.layers.append((ATTRIBUTE, f"{LAYER_CLASS}()"))
        for part in layer_support():
            if part not in self.support:
                self.support.append(part)
        return cst.parse_expression(f"self.{ATTRIBUTE}.read({code(args['features'])}, "
                                    f"{code(args['feature_columns'])})")

    def input_layer_optimizer(self, ctor: str, at: cst.CSTNode) -> list:
        """Notes (or Blocked) for the optimizer over the input layer's embedding tables: TF1 updated only the rows
        looked up (sparse kernels); the dense Keras update is the same for some optimizers only
        (feature_columns.check_optimizer, measured for the canned conversion)."""
        if self.input_layers is True or not isinstance(self.input_layers, list) or ATTRIBUTE not in self.attrs():
            return []
        return fcols.check_optimizer(ctor, "the model_fn's", self.input_layers, at)
