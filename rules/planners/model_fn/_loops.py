"""`for` loops over Python values and static `if`s (on params, flags, module constants) around forward statements:
`__init__` runs the same loop or test to build the layers, `call()` runs it to call them."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import operand

from ...emit.wrap import wrap_call
from ...facts.calls import code
from .. import layers
from ._constants import BUILTINS, CODE, MODES
from ._names import all_name_nodes, calls_in
from ._syntax import static_condition


@dataclass
class Loop:
    node: cst.For
    targets: frozenset[str]
    sites: list[tuple[str, str, str]] = field(default_factory=list)  # (list attribute, loop-local name, ctor)
    body: list[cst.BaseStatement] = field(default_factory=list)
    branch: bool = False  # an arm of a static `if` (runs once or not at all): plain attributes, no lists


class LoopsMixin:
    """Forward loops and static `if`s."""

    def for_loop(self, stmt: cst.For) -> None:
        """`for units in params["hidden_units"]:` in the forward pass: a list of layers built by the same loop."""
        if self.logging_loop(stmt):
            return
        if isinstance(stmt.iter, cst.Name) and stmt.iter.value in self.layer_lists and self.loop is None:
            self.layer_list_loop(stmt)
            return
        if self.loop is not None:
            raise Blocked(CODE, "nested loops in the forward pass are not converted", stmt)
        if stmt.orelse is not None or stmt.asynchronous is not None:
            raise Blocked(CODE, "for/else and async for are not converted", stmt)
        self.whole_model("a loop", stmt)
        if self.loss is not None:
            raise Blocked(CODE, "a loop after the loss is not converted", stmt)
        targets = {n.value for n in all_name_nodes(stmt.target)}
        if not isinstance(stmt.target, (cst.Name, cst.Tuple)) or not all(
                isinstance(e.value, cst.Name) for e in getattr(stmt.target, "elements", [])):
            raise Blocked(CODE, "a loop target must be a name or a tuple of names", stmt.target)
        bad = self.free_names(stmt.iter) - {self.params} - self.module_names - BUILTINS
        if bad:
            raise Blocked(CODE, f"the loop runs over `{sorted(bad)[0]}`: only loops over Python values (params, "
                                "module constants, range(...)) are converted; a loop over tensors is not", stmt.iter)
        clash = targets & (self.forward | {self.params, self.features, self.labels, self.mode, "self", "training"})
        if clash:
            raise Blocked(CODE, f"the loop variable `{sorted(clash)[0]}` reuses a name of the model_fn", stmt.target)
        self.loop = Loop(stmt, frozenset(targets))

        def inner_statement(inner) -> None:
            if isinstance(inner, cst.For):
                raise Blocked(CODE, "nested loops in the forward pass are not converted", inner)
            if isinstance(inner, cst.If) and self.forward_mode_branch(inner):  # _mode_forward.py
                return
            if not isinstance(inner, cst.SimpleStatementLine):
                raise Blocked(CODE, f"{type(inner).__name__.lower()} statement inside a forward loop is not converted", inner)
            self.forward_only(inner, "a forward loop", "a loop")

        tainted: set[str] = set()
        errors = self.each(stmt.body.body, inner_statement, tainted)
        loop, self.loop = self.loop, None
        if errors and not loop.body:
            raise Blocked.many(errors)
        if not loop.body:
            raise Blocked(CODE, "a loop without forward statements is not converted", stmt)
        new_target, new_iter = stmt.target, stmt.iter
        if loop.sites:
            self.runtime_names = True
            for name in ("tf1_name", "tf1_names"):
                if name in self.module_names or name in targets or name == self.params:
                    errors.append(Blocked(CODE, f"`{name}` is taken; the generated layer naming needs it", stmt))
            header = f"for {code(stmt.target)} in {code(stmt.iter)}:"
            init = [f"self.{attr} = []" for attr, _, _ in loop.sites]
            init += [header] + ["    " + wrap_call(f"self.{attr}.append({ctor})", "    ", 92)
                                for attr, _, ctor in loop.sites]
            self.layers.append((None, "\n".join(init)))
            self.list_attrs |= {attr for attr, _, _ in loop.sites}
            self.held_in_lists |= {attr for attr, _, _ in loop.sites}
            first = code(stmt.target)
            if isinstance(stmt.target, cst.Tuple) and not stmt.target.lpar:
                first = f"({first})"
            new_target = cst.parse_expression(f"{first}, {', '.join(local for _, local, _ in loop.sites)}")
            new_iter = cst.parse_expression(f"zip({code(stmt.iter)}, {', '.join(f'self.{a}' for a, _, _ in loop.sites)})")
        self.call_body.append(stmt.with_changes(target=new_target, iter=new_iter,
                                                body=stmt.body.with_changes(body=loop.body)))
        if errors:  # the loop's other statements are converted as they would be without the blocked ones
            raise self.blocked_inside(errors, tainted)

    def forward_only(self, inner: cst.SimpleStatementLine, where: str, what: str, branch: bool = False) -> None:
        """A statement of a forward loop or of a static `if` (`where`), which may only compute forward values:
        dropped (a summary), or interpreted; else Blocked. An `if` arm may not call a layer helper or build the spec."""
        small = inner.body[0] if len(inner.body) == 1 else None
        value = getattr(small, "value", None)
        path = self.tf(value) if isinstance(value, cst.Call) else None
        if isinstance(small, (cst.Expr, cst.Assign)) and self.drop(path, value):
            return
        found = layers.kind_of(path)
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)) or path == "get_variable" \
                or (found and found[0] != "functional") or branch and (self.layer_helper(value) is not None or (
                    isinstance(value, cst.Call) and self.tf(value) == "estimator.EstimatorSpec")):
            raise Blocked(CODE, f"`{code(inner).strip()}` inside {where} is not converted: {what} may only compute "
                                "forward values (functional tf.compat.v1.layers calls and tensor ops)", inner)
        self.simple(inner)

    def static_test(self, stmt: cst.If) -> bool:
        """Every test of the if/elif chain reads only values `__init__` and `call()` see too, the same each time
        (params, module names such as FLAGS, literals): TF1 evaluated it once per graph, as Python."""
        node, allowed = stmt, set(self.module_names | {self.params} | set(self.statics))
        while isinstance(node, cst.If):
            if not static_condition(node.test, allowed):
                return False
            node = node.orelse
        return True

    def chooses_optimizer(self, stmt: cst.If) -> bool:
        """An `if` that builds no layers and constructs an optimizer (`tf.compat.v1.train.AdamOptimizer(...)`,
        `CrossShardOptimizer(optimizer)`) in one of its arms."""
        paths = [self.tf(c) or "" for c in calls_in(stmt)]
        return not self.builds_layers(stmt) and any(p.rsplit(".", 1)[-1].endswith("Optimizer") for p in paths)

    def static_branch(self, stmt: cst.If) -> None:
        """`if params["dropout"]:` / `if FLAGS.use_bn:` around forward statements: a Python condition on the
        program's configuration, which TF1 evaluated while building each graph. `__init__` builds the arm's layers
        under the same test and `call()` runs the arm under it; layer names are counted at run time (tf1_name), as
        TF1 counted them whichever arm ran."""
        if self.active != self.live and (self.loss is not None or self.chooses_optimizer(stmt)):
            # (the optimizer or loss chosen by configuration inside a mode branch: not a forward pass to move)
            modes = "/".join(m for m in MODES if m in self.active)
            after = ", after the loss," if self.loss is not None else ""
            raise Blocked(CODE, f"`if {code(stmt.test)}:` in the {modes} branch{after} is not converted: a static `if` "
                                "is converted around forward statements (choosing the loss or optimizer by "
                                "configuration is not converted yet; build them without the `if`)", stmt)
        self.whole_model("a static `if`", stmt)
        if self.loss is not None or self.loop is not None:
            where = "after the loss" if self.loss is not None else "inside a loop"
            raise Blocked(CODE, f"`if {code(stmt.test)}:` {where} is not converted: a static `if` is converted "
                                "around forward statements (choosing the loss or optimizer by configuration is not "
                                "converted yet; build them without the `if`)", stmt)
        arms, node, errors, tainted = [], stmt, [], set()
        while node is not None:
            test = node.test if isinstance(node, cst.If) else None
            body = node.body.body
            self.loop = Loop(stmt, frozenset(), branch=True)

            def inner_statement(inner, node=node, test=test) -> None:
                if isinstance(inner, cst.For) and inner.orelse is None and node is stmt:
                    # the same layers, TF1 names and forward pass, in a form that converts (a list of layers)
                    iterable = f"{operand(code(inner.iter))} if {operand(code(test))} else []"
                    raise Blocked(CODE, f"a loop inside `if {code(test)}:` is not converted: a static `if` may "
                                        "only compute forward values; write the loop outside the `if`, over an "
                                        f"empty list when the condition is false: `for {code(inner.target)} in "
                                        f"{iterable}:` where the loop was (the same layers and TF1 names)", inner)
                if not isinstance(inner, cst.SimpleStatementLine):
                    raise Blocked(CODE, f"{type(inner).__name__.lower()} statement inside `if {code(stmt.test)}:` "
                                        "is not converted: a static `if` may only compute forward values", inner)
                self.forward_only(inner, f"`if {code(stmt.test)}:`", "a static `if`", branch=True)

            try:
                errors += self.each(body, inner_statement, tainted)
            finally:
                arm, self.loop = self.loop, None
            self.list_attrs |= {attr for attr, _, _ in arm.sites}
            arms.append((node, test, arm))
            node = node.orelse if isinstance(node, cst.If) else None
        if any(arm.sites for _, _, arm in arms):
            self.runtime_names = True
            for name in ("tf1_name", "tf1_names"):
                if name in self.module_names or name == self.params:
                    errors.append(Blocked(CODE, f"`{name}` is taken; the generated layer naming needs it", stmt))
            init, built = [], list(arms)
            while not built[-1][2].sites:  # trailing arms that build nothing need no branch in __init__
                built.pop()
            for i, (_, test, arm) in enumerate(built):
                init.append(f"if {code(test)}:" if i == 0 else f"elif {code(test)}:" if test is not None else "else:")
                init += ["    " + wrap_call(f"self.{attr} = {ctor}", "    ", 92) for attr, _, ctor in arm.sites]
                if not arm.sites:
                    init.append("    pass")
            self.layers.append((None, "\n".join(init)))

        def rebuilt(node, index):
            if node is None:
                return None
            arm = arms[index][2]
            body = node.body.with_changes(body=arm.body or [cst.SimpleStatementLine([cst.Pass()])])
            if isinstance(node, cst.Else):
                return node.with_changes(body=body)
            return node.with_changes(body=body, orelse=rebuilt(node.orelse, index + 1))

        self.call_body.append(rebuilt(stmt, 0))
        if errors:  # the arms' other statements are converted as they would be without the blocked ones
            raise self.blocked_inside(errors, tainted)
