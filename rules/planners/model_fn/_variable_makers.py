"""TF calls that create variables when called in a graph, and whether a def builds layers or variables."""
from __future__ import annotations

from ...facts.tfnames import TFNames
from .. import layers
from ._names import calls_in

_VARIABLE_MAKERS = frozenset({"Variable", "get_local_variable", "make_template", "nn.static_rnn", "nn.dynamic_rnn",
                              "nn.bidirectional_dynamic_rnn", "nn.static_bidirectional_rnn", "nn.raw_rnn",
                              "feature_column.input_layer", "feature_column.linear_model"})


def makes_variables(path: str) -> bool:
    """TF APIs that create variables when called in a graph, beyond the layers and get_variable the rules convert."""
    return (path in _VARIABLE_MAKERS or path.startswith(("contrib.", "nn.rnn_cell.", "compat.v1.nn.rnn_cell."))
            or path.endswith(".Variable"))


def builds_layers(ref, program) -> bool:
    """The def `ref` (a FunctionRef) calls a TF1 / Keras layer, get_variable or another variable-making API."""
    there = TFNames(program=program, file=ref.file)
    for inner in calls_in(ref.node):
        path = there.of(inner)
        if path and (layers.kind_of(path) or path == "get_variable" or makes_variables(path)):
            return True
    return False
