"""Mode tests (`mode == ModeKeys.TRAIN`, `in (...)`, `not`, aliases), the Keras training flag, what a name holds
in each mode, and `if` on mode: each arm runs for its modes."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import code, is_literal
from .. import layers
from ._constants import ALL_MODES, CODE, MODES

_MODE_STRINGS = {"train": "TRAIN", "eval": "EVAL", "infer": "PREDICT"}  # ModeKeys values


class ModesMixin:
    """Tests on mode and the per-mode bindings."""

    def mode_key(self, node) -> str | None:
        if isinstance(node, cst.Attribute):
            path = self.tf(node) or ""
            if path.startswith("estimator.ModeKeys.") and path.split(".")[-1] in MODES:
                return path.split(".")[-1]
        if isinstance(node, cst.SimpleString):
            return _MODE_STRINGS.get(node.evaluated_value)
        return None

    def mode_set(self, node) -> frozenset[str] | None:
        """The modes for which a test on `mode` is true (None: not a test on mode alone)."""
        if isinstance(node, cst.Name) and node.value in self.training_aliases:
            return frozenset({"TRAIN"})
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.mode_set(node.expression)
            return None if inner is None else ALL_MODES - inner
        if isinstance(node, cst.BooleanOperation):
            left, right = self.mode_set(node.left), self.mode_set(node.right)
            if left is None or right is None:
                return None
            return left & right if isinstance(node.operator, cst.And) else left | right
        if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
            return None
        comp = node.comparisons[0]
        is_mode = lambda n: isinstance(n, cst.Name) and n.value == self.mode  # noqa: E731
        if isinstance(comp.operator, (cst.Equal, cst.NotEqual)):
            if is_mode(node.left):
                key = self.mode_key(comp.comparator)
            elif is_mode(comp.comparator):
                key = self.mode_key(node.left)
            else:
                return None
            if key is None:
                return None
            return frozenset({key}) if isinstance(comp.operator, cst.Equal) else ALL_MODES - {key}
        if isinstance(comp.operator, (cst.In, cst.NotIn)) and is_mode(node.left):
            if not isinstance(comp.comparator, (cst.Tuple, cst.List, cst.Set)):
                return None
            keys = [self.mode_key(e.value) for e in comp.comparator.elements]
            if None in keys or any(isinstance(e, cst.StarredElement) for e in comp.comparator.elements):
                return None
            return frozenset(keys) if isinstance(comp.operator, cst.In) else ALL_MODES - set(keys)
        return None

    def is_mode(self, node, key: str) -> bool:
        """`mode == ModeKeys.KEY` (or an equivalent test) — true exactly in that mode."""
        return self.mode_set(node) == frozenset({key})

    def training_flag(self, node: cst.BaseExpression | None) -> str:
        if node is None:
            return "False"  # TF1 dropout/batch_normalization default to inference behaviour
        if self.is_mode(node, "TRAIN"):
            return "training"
        if is_literal(node, True, False):
            return code(node)
        raise Blocked(layers.CODE, f"training={code(node)} is not `mode == ModeKeys.TRAIN` or a literal", node)

    def bind_name(self, target: str, kind: str, payload=None) -> None:
        per_mode = self.bindings.setdefault(target, {})
        for mode in self.active:
            per_mode[mode] = (kind, payload)

    def bound(self, name: str, kind: str) -> bool:
        """`name` holds `kind` in every mode running the current statement."""
        per_mode = self.bindings.get(name, {})
        return all(per_mode.get(m, (None,))[0] == kind for m in self.active)

    def mode_branch(self, stmt: cst.If) -> None:
        """`if mode == ...:` / `!=` / `in (...)` / elif / else: each arm runs for its modes; returns end them."""
        if self.mode_set(stmt.test) is None and self.static_test(stmt):
            self.static_branch(stmt)
            return
        if self.forward_mode_branch(stmt):  # _mode_forward.py: the forward pass itself differs by mode
            return
        arms, remaining, node = [], self.active, stmt
        while True:
            modes = self.mode_set(node.test)
            if modes is None:
                raise Blocked(CODE, f"`if {code(node.test)}:` is not converted: only tests on mode (==, !=, in) or on "
                                    "static configuration alone (params, flags, module constants) branch the "
                                    "model_fn", node)
            arms.append((remaining & modes, node.body.body))
            remaining = remaining - modes
            if node.orelse is None:
                break
            if isinstance(node.orelse, cst.If):
                node = node.orelse
                continue
            arms.append((remaining, node.orelse.body.body))
            break
        outer, errors, tainted = self.active, [], set()
        for modes, body in arms:
            if not modes:
                continue  # the arm never runs (those modes returned or were tested before)
            self.active = modes
            errors += self.each(body, tainted=tainted)
        self.active = outer & self.live
        if errors:
            raise self.blocked_inside(errors, tainted)

    def resolve(self, node, mode: str) -> tuple[str, object]:
        if node is None or is_literal(node, None):
            return "none", None
        if isinstance(node, cst.Dict):
            return "dict", node
        if isinstance(node, cst.Name):
            kind = self.bindings.get(node.value, {}).get(mode)
            if kind is None:
                raise Blocked(CODE, f"`{node.value}` is not assigned above in {mode} mode", node)
            return kind
        return "expression", node
