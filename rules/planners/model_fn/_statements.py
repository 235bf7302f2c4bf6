"""The statement walk: each statement of the model_fn in order, every blocker reported at its own line, with
static locals (`units = params["units"]`) read as their values."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ._assigned_training import check as check_assigned_training
from ._constants import CODE
from ._names import names_read_anywhere, parenthesized, substitute
from ._syntax import counterpart, docstring_of, has_return, statement_targets, static_condition, walk_statements

_RETURNED = "<return>"  # (in a walk's blocked names: it stopped at a blocked statement holding a return)


class StatementsMixin:
    """The walk over the model_fn's statements."""

    def run(self) -> None:
        body = list(self.fn.body.body)
        if body and docstring_of(body[0]) is not None:
            self.docstring = docstring_of(body[0])
            body = body[1:]
        check_assigned_training(self.fn, self.is_spec, self.tf)
        errors = self.each(self.static_locals(body))
        if self.signature_blocked is not None:
            raise Blocked.many([self.signature_blocked, *errors])
        if errors:
            raise Blocked.many(errors)
        if self.pending_spec is not None:
            self.unreturned_spec()
        if self.live:
            raise Blocked(CODE, "model_fn has no final `return EstimatorSpec(...)`", self.fn)

    def each(self, stmts, handle=None, tainted: set[str] | None = None) -> list[Blocked]:
        """Interpret `stmts` in order (each with `handle`, by default `statement`) and return every blocker found,
        each at its own line, not only the first: after a blocked statement the walk goes on with the state from
        before it, past the statements that read what it bound (whatever they report would follow from that
        blocker). A block of a branch, loop or `with` is walked so too; `tainted` (names bound by a blocked
        statement) may be shared by the arms of one `if`."""
        handle = handle or self.statement
        errors: list[Blocked] = []
        tainted = set() if tainted is None else tainted
        for stmt in stmts:
            if tainted and names_read_anywhere(stmt) & tainted:
                tainted |= statement_targets(stmt)
                continue
            saved = dict(self.__dict__)
            try:
                handle(stmt)
            except Blocked as blocked:
                errors.extend(self.as_written(e, stmt) for e in blocked.errors)
                kept = getattr(blocked, "kept", None)
                if kept is not None:  # a block whose other statements were interpreted: their state stays
                    tainted |= kept
                    continue
                self.__dict__.update(saved)
                tainted |= statement_targets(stmt)
                if not isinstance(stmt, cst.FunctionDef) and has_return([stmt]):  # which branches return: unknown
                    tainted.add(_RETURNED)
                    break
            except Exception:
                if not errors:
                    raise
                tainted.add(_RETURNED)
                break  # a state the blocked statement left half-made: what was found is reported
        return errors

    @staticmethod
    def blocked_inside(errors: list[Blocked], tainted: set[str]) -> Blocked:
        """The blockers of statements inside a block (a branch, a `with`) whose other statements were interpreted:
        the walk around it goes on with their state, past what the blocked ones bound (`tainted`), unless one of
        them held a return (which branches return is then unknown)."""
        out = Blocked.many(errors)
        if _RETURNED not in tainted:
            out.kept = frozenset(tainted)
        return out

    def as_written(self, error: Blocked, stmt) -> Blocked:
        """A blocker of a statement the static locals were substituted in, at the statement as written when its node
        is one of the copy's (which has no position in the file)."""
        original = self.written.get(id(stmt))
        if original is None or error.node is None or any(n is error.node for n in walk_statements(original)):
            return error
        moved = Blocked(error.code, error.message, counterpart(stmt, original, error.node) or original)
        return moved

    def static_locals(self, body: list) -> list:
        """`units = params["units"]` (assigned once, at the top level of the body, from a value `__init__` can
        compute too): its reads take the value itself, so layer and optimizer arguments built from it stay
        constructor arguments; the assignment goes (its comments move to the next statement)."""
        self.statics: dict[str, cst.BaseExpression] = {}
        self.written: dict[int, cst.CSTNode] = {}  # id(substituted copy) → the statement as written
        out, leading = [], []
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if self.statics:
                original, stmt = stmt, substitute(stmt, {k: parenthesized(v) for k, v in self.statics.items()})
                self.written[id(stmt)] = original
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and self.assign_counts.get(small.targets[0].target.value) == 1
                    and small.targets[0].target.value not in self.locals
                    and static_condition(stmt.body[0].value, set(self.module_names | {self.params} | set(self.statics)))):
                self.statics[small.targets[0].target.value] = stmt.body[0].value
                leading.extend(line for line in stmt.leading_lines if line.comment is not None)
                continue
            if leading:
                stmt = stmt.with_changes(leading_lines=[*leading, *stmt.leading_lines])
                leading = []
            out.append(stmt)
        if self.statics and any(names_read_anywhere(stmt) & set(self.statics) for stmt in out):
            self.statics = {}  # still read where substitution does not reach (a lambda, a nested def): keep as is
            return body
        return out

    def statement(self, stmt: cst.BaseStatement) -> None:
        if self.pending_spec is not None:  # `spec = EstimatorSpec(...)`: this statement must be `return spec`
            target, value, _, active = self.pending_spec
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if not (isinstance(small, cst.Return) and isinstance(small.value, cst.Name)
                    and small.value.value == target and self.active == active):
                self.unreturned_spec()
            self.pending_spec = None
            self.returns(small.with_changes(value=value))
            return
        if not self.live:
            raise Blocked(CODE, "code after the final return is not converted", stmt)
        if not self.active:
            raise Blocked(CODE, "code after a return in the same branch is not converted", stmt)
        if isinstance(stmt, cst.SimpleStatementLine) and self.tpu is not None:
            stmt = self.use_tpu_choice(stmt)
            self.no_tpu_ops(stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            self.simple(stmt)
        elif isinstance(stmt, cst.If) and self.tpu is not None and self.use_tpu_test(stmt.test) is not None:
            self.use_tpu_branch(stmt)
        elif isinstance(stmt, cst.If):
            self.checkpoint_init(stmt)  # (raises for `if init_checkpoint: ... init_from_checkpoint(...)`)
            self.mode_branch(stmt)
        elif isinstance(stmt, cst.FunctionDef) and self.tpu is not None and not stmt.decorators:
            self.tpu_fns[stmt.name.value] = stmt  # a metric_fn: inlined where eval_metrics names it
        elif isinstance(stmt, cst.With):
            self.with_block(stmt)
        elif isinstance(stmt, cst.For):
            self.for_loop(stmt)
        elif isinstance(stmt, cst.FunctionDef):
            self.nested_def(stmt)
        elif isinstance(stmt, cst.While):
            raise Blocked(CODE, "a while loop in model_fn is not converted: only `for` loops over Python values "
                                "(params, module constants, range(...)) are", stmt)
        else:
            raise Blocked(CODE, f"{type(stmt).__name__.lower()} statement in model_fn is not converted", stmt)
