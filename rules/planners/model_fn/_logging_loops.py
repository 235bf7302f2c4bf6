"""Loops that only log: BERT's `for name in sorted(features.keys()): tf.compat.v1.logging.info(...)` and its loop
over `tvars` with `init_string`. TF1 ran them in Python once per graph build (names and static shapes), so they
never changed training: dropped with a note, as a single tf.logging statement is."""
from __future__ import annotations

import libcst as cst

from ...facts.calls import code
from ...facts.nodes import subtree_nodes
from ._constants import CODE
from ._names import all_name_nodes, names_read_anywhere

# tf.logging's functions (as _summaries drops them one by one)
_LOGGING = frozenset({"info", "warning", "warn", "debug", "error", "fatal", "log", "vlog"})
# calls an iterable may make: they read, never build or change anything
_PURE_ITERABLE_CALLS = frozenset({"sorted", "list", "tuple", "enumerate", "zip", "reversed", "range", "len"})
_PURE_METHODS = frozenset({"keys", "values", "items"})
_VARIABLE_LISTS = frozenset({"trainable_variables", "global_variables"})


class LoggingLoopsMixin:
    """`for` loops whose body only logs."""

    def logging_loop(self, stmt: cst.For) -> bool:
        """True (and a note) when `stmt` only logs: its iterable calls nothing but reading builtins/methods, its
        body holds only tf.logging calls, assignments of loop-local names and `if`s over them, and no name it
        binds is read outside it."""
        if stmt.orelse is not None or stmt.asynchronous is not None or not self._pure_iterable(stmt.iter):
            return False
        bound: set[str] = {n.value for n in all_name_nodes(stmt.target)}
        logs: list[cst.Call] = []
        if not self._logs_only(stmt.body.body, bound, logs) or not logs:
            return False
        written = self.written.get(id(stmt), stmt)  # (a copy when static locals were substituted)
        rest = self.fn.deep_replace(written, cst.SimpleStatementLine([cst.Pass()]))
        if rest is self.fn or names_read_anywhere(rest) & bound:
            return False  # a name the loop binds is read elsewhere: the loop may be part of the computation
        self.notes.append((CODE, f"the loop `for {code(stmt.target)} in ...` only logs (tf.logging): "
                                 "dropped; TF1 ran it once, while the graph was built (names and static shapes), so it did not change training",
                           stmt))
        return True

    def _pure_iterable(self, node) -> bool:
        for call in (n for n in subtree_nodes(node) if isinstance(n, cst.Call)):
            func = call.func
            if isinstance(func, cst.Name) and func.value in _PURE_ITERABLE_CALLS:
                continue
            if isinstance(func, cst.Attribute) and func.attr.value in _PURE_METHODS and not call.args:
                continue
            if self.tf(call) in _VARIABLE_LISTS and not call.args:
                continue
            return False
        return True

    def _logs_only(self, body, bound: set[str], logs: list) -> bool:
        """Each statement logs, binds a loop-local name from a value that calls nothing, or is an `if` of such."""
        for stmt in body:
            if isinstance(stmt, cst.If):
                if any(isinstance(n, cst.Call) for n in subtree_nodes(stmt.test)):
                    return False
                orelse = stmt.orelse
                arms = [stmt.body.body] + ([orelse.body.body] if isinstance(orelse, cst.Else) else
                                           [[orelse]] if isinstance(orelse, cst.If) else [])
                if not all(self._logs_only(arm, bound, logs) for arm in arms):
                    return False
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                return False
            for small in stmt.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    path = self.tf(small.value) or ""
                    module, _, name = path.rpartition(".")
                    if module != "logging" or name not in _LOGGING:
                        return False
                    logs.append(small.value)
                elif isinstance(small, (cst.Assign, cst.AugAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    if not all(isinstance(t, cst.Name) for t in targets) or any(
                            isinstance(n, cst.Call) for n in subtree_nodes(small.value)):
                        return False
                    bound.update(t.value for t in targets)
                elif not isinstance(small, cst.Pass):
                    return False
        return True
