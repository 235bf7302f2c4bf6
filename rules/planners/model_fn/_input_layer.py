"""`tf.compat.v1.feature_column.input_layer(features, columns)` over numeric_columns → the generated
`numeric_columns_input(features, columns)` (rules/program.py reads the columns)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.edits import shared

from ...emit.wrap import generated
from ...facts.calls import bind, code
from .. import variables
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
        if _NUMERIC_COLUMNS_SUPPORT not in self.support:
            self.support.append(_NUMERIC_COLUMNS_SUPPORT)
        return cst.parse_expression(f"{NUMERIC_COLUMNS_INPUT}({code(args['features'])}, "
                                    f"{code(args['feature_columns'])})")
