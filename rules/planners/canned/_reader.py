"""Reads a canned estimator's arguments through the program model: the mixins for values, columns and
optimizers composed."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import Binding, FileIndex, Value

from ._columns import ColumnsMixin
from ._optimizers import OptimizersMixin
from ._values import SourceValuesMixin


def _anchor(file: FileIndex, node: cst.CSTNode) -> cst.CSTNode:
    """The module-level statement that contains `node`."""
    while True:
        parent = file.parent(node)
        if parent is None or isinstance(parent, cst.Module):
            return node
        node = parent


class Reader(SourceValuesMixin, ColumnsMixin, OptimizersMixin):
    """Values of the canned estimator's arguments, read from the source through the program model."""

    def __init__(self, analysis, call: cst.Call, file: FileIndex):
        self.analysis, self.program, self.call, self.file = analysis, analysis.program, call, file
        self.anchor = _anchor(file, call)
        self.params: dict[str, str] = {}
        self.trail: list[Binding] = []
        self.runtime: dict[int, Value] = {}  # id(placeholder key) → the run-time iterable its loop went over
        self.column_notes: list = []
        self.profile = "keras3"  # the Keras the program runs on: "tf_keras" under parameter servers
