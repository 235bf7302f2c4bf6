"""`if mode == ModeKeys.TRAIN:` (elif/else, `!=`, `in`) around forward statements before the loss: TF1 built a
different graph per mode; the Keras model's `call()` runs the same `if` on its `training` flag, true exactly when
the Estimator was in TRAIN (fit), false in evaluate and predict. Inside a forward loop the `if` stays in the loop."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import code
from ._constants import CODE
from ._loops import Loop
from ._names import all_name_nodes


class ModeForwardMixin:
    """Mode tests in the forward pass → tests on `training`."""

    def forward_mode_branch(self, stmt: cst.If) -> bool:
        """Converts `stmt` when an arm assigns a forward tensor (the model's own pass differs by mode); False
        leaves it to mode_branch (optimizer, metrics, predictions, returns)."""
        arms, node, remaining = [], stmt, self.active
        while node is not None:
            modes = self.mode_set(node.test) if isinstance(node, cst.If) else remaining
            if modes is None:
                return False
            arms.append((node, remaining & modes))
            remaining = remaining - modes
            node = node.orelse if isinstance(node, cst.If) else None
        bodies = [n.body.body for n, _ in arms]
        targets = [self.arm_targets(body) for body in bodies]
        outer = self.loop  # a forward loop (`for units in ...: net = dense(net); if mode == TRAIN: net = dropout(net)`)
        if not any(t & (self.forward | self.loop_names()) for t in targets) or self.loss is not None \
                or outer is not None and outer.branch or self.active != self.live \
                or not all(self.plain_forward(s) for body in bodies for s in body):
            return False  # (layers built in one mode, loops, helpers: the shim's shapes; shim.py)
        where = f"`if {code(stmt.test)}:`"
        for _, modes in arms:
            if not modes:
                raise Blocked(CODE, f"{where} has an arm that never runs (its modes returned or were tested above); "
                                    "delete that arm", stmt)
            if modes != {"TRAIN"} and modes != self.active - {"TRAIN"}:
                raise Blocked(CODE, f"{where} changes the forward pass between EVAL and PREDICT: the Keras model "
                                    "has one flag, `training` (true in fit, false in evaluate and predict); test "
                                    "`mode == ModeKeys.TRAIN` only, or compute the PREDICT-only values after the "
                                    "model's output", stmt)
        new = set().union(*targets) - self.forward - self.loop_names()
        if new:  # (a tensor the forward pass did not have before: kept simple, it must exist before the `if`)
            raise Blocked(CODE, f"{where} assigns `{sorted(new)[0]}`, which the forward pass has not computed "
                                "before: the converted `call()` would not define it in every mode; assign it before "
                                "the `if` too", stmt)
        built, errors, tainted = [], [], set()
        for (node, modes), body in zip(arms, bodies):
            self.loop = Loop(stmt, outer.targets if outer else frozenset(), branch=True)  # collects the arm
            try:
                errors += self.each(body, lambda inner: self.forward_only(
                    inner, where, "a test on mode in the forward pass", branch=True), tainted)
            finally:
                arm, self.loop = self.loop, outer
            built.append((node, modes, arm.body))
        (outer.body if outer else self.call_body).append(self.training_if(built, 0))
        if errors:
            raise self.blocked_inside(errors, tainted)
        return True

    def loop_names(self) -> set[str]:
        return set(self.loop.targets) if self.loop is not None else set()

    def plain_forward(self, stmt) -> bool:
        """`name = <tensor ops>`: builds no layer and calls no network helper."""
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        return isinstance(small, cst.Assign) and not self.builds_layers(small.value) \
            and self.layer_helper(small.value) is None

    @staticmethod
    def arm_targets(body) -> set[str]:
        return {n.value for s in body if isinstance(s, cst.SimpleStatementLine) for small in s.body
                if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign))
                for t in getattr(small, "targets", None) or [small] for n in all_name_nodes(t.target)}

    def training_if(self, arms, index):
        """The arms again, each test now on `training` (an `else:` stays)."""
        if index == len(arms):
            return None
        node, modes, body = arms[index]
        block = node.body.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])
        if isinstance(node, cst.Else):
            return node.with_changes(body=block)
        test = cst.parse_expression("training" if modes == {"TRAIN"} else "not training")
        return node.with_changes(test=test, body=block, orelse=self.training_if(arms, index + 1))
