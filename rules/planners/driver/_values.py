"""Values of the Estimator's settings the analysis reads and the emitter writes: a setting chosen at
run time, the first of two last steps, a step count relative to the step training starts from; mode keys."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.model import Value


MODE_KEYS = {"estimator.ModeKeys.TRAIN": '"train"', "estimator.ModeKeys.EVAL": '"eval"',
             "estimator.ModeKeys.PREDICT": '"infer"'}


@dataclass(frozen=True, eq=False)
class Choice:
    """A RunConfig setting that depends on a run-time condition: `a if test else b` (each a Value)."""

    test: Value
    body: Value
    orelse: Value
    node: cst.CSTNode  # the conditional expression, for diagnostics


@dataclass(frozen=True, eq=False)
class Least:
    """The smaller of two step counts: max_steps and a StopAtStepHook's last step (`min(a, b)`)."""

    first: Value
    second: Value
    node: cst.CSTNode


@dataclass(frozen=True, eq=False)
class Relative:
    """A step count relative to the global step training starts from (`train(steps=N)`,
    `StopAtStepHook(num_steps=N)`): `initial_step + N` where the migrated program resumes from model_dir."""

    value: Value

    @property
    def node(self):
        return self.value.node


def is_empty(node) -> bool:
    return isinstance(node, (cst.List, cst.Tuple)) and not node.elements
