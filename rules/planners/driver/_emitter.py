"""The driver's edits of one file, composed of the mixins that write each part (the Estimator expression, how
this file reaches generated code, input functions, callbacks, the calls that drive it)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, code, operand

from .. import hooks as hook_rules
from .. import receivers as receiver_rules
from .. import strategy as strategies
from ...facts.sites import Site
from ...facts.estimator import CODE
from ._add_metrics import wrapper_edits
from ._analysis import Analysis
from ._build import BuildMixin
from ._callbacks import CallbacksMixin
from ._chosen import emit_chosen
from ._drive import DriveMixin
from ._handed import handed_edits, local_support_edits
from ._inputs import InputsMixin
from ._reach import ReachMixin
from ._training import keras_resumes, training_calls
from ._values import MODE_KEYS, Choice, Least, Relative


class Emitter(ReachMixin, BuildMixin, InputsMixin, CallbacksMixin, DriveMixin):
    """The edits of one file: Estimator expressions, their uses, strategy assignments, removed statements."""

    def __init__(self, analysis: Analysis, file: FileIndex, builders: dict[int, str], plans: dict[int, object]):
        self.analysis, self.program, self.file = analysis, analysis.program, file
        self.builders, self.plans = builders, plans  # by id(model_fn def)
        self.notes = analysis.notes
        # `from model import model_fn` of the Estimator's model_fn: the names this file imports instead, by id(alias)
        self.by_name: dict[int, tuple[cst.ImportFrom, cst.ImportAlias, list[str]]] = {}
        self.local_support: list = []  # (support class, where used) this file writes itself (_handed.py)

    def render(self, value, at: cst.CSTNode, what: str, called_at: bool = False) -> str:
        if isinstance(value, Choice):
            # the arms as operands: `(a if p else b) if q else c` must not become `a if p else (b if q else c)`
            return (f"{operand(self.render(value.body, at, what))} if {operand(self.render(value.test, at, what))} "
                    f"else {self.render(value.orelse, at, what)}")
        if isinstance(value, Least):
            return f"min({self.render(value.first, at, what)}, {self.render(value.second, at, what)})"
        if isinstance(value, Relative):
            text = self.render(value.value, at, what)
            return f"{self.start} + {operand(text)}" if getattr(self, "start", None) else text
        why: list = []
        text = self.program.render(value, at, self.file, why, rewrite=self.mode_key, called_at=called_at)
        if text is None:
            name = why[0].value if why else code(value.node)
            here = self.program.lookup(name, why[0], value.file) if why else []
            rebound = list(value.file.top.bindings.get(name, ())) if all(b.scope is value.file.top
                                                                          for b in here) else []
            reason = (f"it is bound at lines {', '.join(str(self.analysis.line(b.statement, value.file)) for b in rebound)}"
                      " of this module; give each its own name" if len(rebound) > 1 else
                      "it is local to another function; pass the value explicitly or build it where the Estimator "
                      "is used")
            node, where = value.node, ""
            if value.file is not self.file and self.program.file_of(at) is self.file:
                # needed by this file's converted code (main.py's train of helpers' Estimator): reported here, where
                # this file blocks, naming where the value is written
                node, where = at, f" (written at {value.file.path}:{self.analysis.line(value.node, value.file)})"
            raise Blocked(CODE, f"{what} `{code(value.node)[:60]}`{where} uses `{name}`, which does not mean the same "
                                f"where the converted code needs it ({reason})", node)
        return text

    def mode_key(self, attribute: cst.Attribute, file: FileIndex) -> str | None:
        """`tf.estimator.ModeKeys.X` in code the conversion moves → the string it always was."""
        if attribute.attr.value in ("TRAIN", "EVAL", "PREDICT"):
            return MODE_KEYS.get(self.analysis.tf(attribute, file))
        return None

    def edits(self, edits) -> None:
        self.keras_support(edits)
        self.nan_support(edits)
        handed_edits(self, edits)
        for site in self.analysis.sites:
            if site.file is self.file:
                self.site(site, edits)
            for use in site.uses:
                if use.file is self.file and not emit_chosen(self, site, use, edits):
                    self.use(site, use, edits)
            if site.strategy_binding is not None and site.strategy_binding.scope.file is self.file:
                edits.replace(site.strategy_binding.value, self.strategy_expression(site))
            for binding, plan in site.strategy_arms:  # each branch's strategy, converted where it is assigned
                if binding.scope.file is self.file:
                    edits.replace(binding.value, self.strategy_expression(site, plan))
        self.early_stopping_edits(edits)
        wrapper_edits(self.analysis, self.file, edits)  # add_metrics calls (_add_metrics.py)
        callback_plans = {key: plan for site in self.analysis.sites for key, plan in site.callback_plans.items()}
        for plan in callback_plans.values():
            if plan.file is self.file:
                hook_rules.callback_edits(plan, edits)
        receivers = {key: plan for site in self.analysis.sites for key, plan in site.receivers.items()}
        for plan in receivers.values():
            if plan.file is self.file:
                receiver_rules.edits(plan, edits)
        for attribute, file, value in getattr(self.analysis, "config_reads", ()):  # `config.model_dir` → its value
            if file is self.file:
                edits.replace(attribute, self.render(value, attribute, "model_dir"))
        # an import of a class that goes may take the builder's name in its place (import_by_name): kept
        renamed = {id(statement) for statement, _, _ in self.by_name.values()}
        for stmt, file in self.analysis.deleted:
            if file is self.file and not (isinstance(stmt, cst.SimpleStatementLine)
                                           and any(id(s) in renamed for s in stmt.body)):
                edits.delete(stmt)
        for site in self.analysis.sites:  # `if use_tpu ...: resolver = TPUClusterResolver(...)` never ran
            for stmt, file in (site.tpu.dead if site.tpu is not None else ()):
                if file is self.file:
                    edits.delete(stmt)
        dropped: dict[int, set[int]] = {}  # the other aliases that go from such an import
        for node, file, gone in self.analysis.dropped_imports:
            if file is self.file and id(node) in renamed:
                dropped[id(node)] = gone
            elif file is self.file:
                edits.transform(node, lambda imp, gone=gone, names=node.names: _without_aliases(imp, names, gone))
        for fn, file, param in {(id(f), p): (f, fl, p) for f, fl, p in self.analysis.dropped_params}.values():
            if file is self.file:
                edits.transform(fn.params, lambda params, p=param: _drop_param(params, p))
        for call, file, value in self.analysis.dropped_args:
            if file is self.file:
                edits.transform(call, lambda c, v=code(value): _drop_arg(c, v))
        for statement, alias, names in self.by_name.values():
            gone = dropped.get(id(statement), set()) - {id(alias)}
            edits.transform(statement, lambda imp, a=alias, n=tuple(names), old=statement.names, g=gone:
                            _import_instead(imp, old, a, n, g))
        local_support_edits(self, edits)

    def strategy_expression(self, site: Site, strategy=None) -> str:
        strategy = strategy or site.strategy
        plan = self.plans[id(site.model_fn.node)]
        if plan.partitioner is not None and strategy.parameter_server:
            call = strategies.PS_EXPRESSION
            return strategy.expression.replace(call, call[:-1] + "VARIABLE_PARTITIONER)")
        return strategy.expression

    def support_anchor(self, nodes: list[cst.CSTNode], after_imports: bool = True) -> cst.CSTNode:
        """The module-level statement generated support code goes above: the first one holding any of `nodes`, or,
        when that is not a def or class (code at module level) and after_imports, the first statement after the
        imports."""
        anchors = []
        for node in nodes:
            while not isinstance(self.file.parent(node), cst.Module):
                node = self.file.parent(node)
            anchors.append(node)
        anchor = min(anchors, key=lambda a: self.file.orders.get(id(a), 0))
        if after_imports and not isinstance(anchor, (cst.FunctionDef, cst.ClassDef)):  # right after the imports
            anchor = next((stmt for stmt in self.file.module.body if not _import_or_docstring(stmt)), anchor)
        return anchor

    def keras_support(self, edits) -> None:
        """model_to_estimator: the generated optimizer class and global_step metric above the module-level statement
        that compiles the model, whose optimizer becomes the one that runs the legacy update; the input adapter
        above the first statement that trains or evaluates such an Estimator (the model may live in another file)."""
        from .. import keras_estimator

        sites = [s for s in self.analysis.sites if keras_estimator.is_keras(s)]
        compiled = [s for s in sites if s.model_fn.compile_file is self.file]
        fed = [s for s in sites if any(u.file is self.file for u in s.uses)]
        if not compiled and not fed:
            return
        nodes = [s.model_fn.compile_call for s in compiled] + [u.call for s in fed for u in s.uses
                                                                 if u.file is self.file]
        checkpoints = []
        if any(keras_resumes(s) for s in fed):  # the Estimator's checkpoints, written and read back by the fit
            from ...emit.assembly import support

            checkpoints = [support(name) for name in ("estimator_checkpoints.py.j2", "restore_model_dir.py.j2")]
        statements = [edits.module_statement(text, [cst.EmptyLine(), cst.EmptyLine()])
                      for text in keras_estimator.support(compiled, fed, checkpoints)]
        edits.insert_statements_above(self.support_anchor(nodes), statements)
        for s in compiled:
            edits.replace(s.model_fn.compile_call, keras_estimator.compile_text(s.model_fn))

    def nan_support(self, edits) -> None:
        """Keras target: the NanLossCheck callback class (templates/nan_loss_check.py.j2), once, above the first
        module-level statement of this file that trains an Estimator: every Estimator's training raised
        NanLossDuringTrainingError after the first step whose loss was NaN (rules/planners/hooks.py)."""
        from ...emit.assembly import support

        nodes = training_calls(self.analysis, self.file)
        if not nodes:
            return
        text = support("nan_loss_check.py.j2")
        # right above the statement that trains: the class needs nothing the module binds before it (after the
        # imports could be above a `tf = tf.compat.v1` the conversion rewrites)
        edits.insert_statements_above(self.support_anchor(nodes, after_imports=False), [
            edits.module_statement(text, [cst.EmptyLine(), cst.EmptyLine()])])

    def free_name(self, base: str, at: cst.CSTNode) -> str:
        name, n = base, 1
        while self.program.lookup(name, at, self.file) or name in self.file.loads:
            n += 1
            name = f"{base}_{n}"
        return name


def _import_or_docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) or isinstance(s, cst.Expr) and isinstance(s.value, cst.SimpleString)
        for s in stmt.body)


def _drop_param(params: cst.Parameters, name: str) -> cst.Parameters:
    kept = [p for p in params.params if p.name.value != name]
    if kept and kept[-1].comma is not cst.MaybeSentinel.DEFAULT and len(kept) < len(params.params) \
            and params.params[-1].name.value == name and params.star_arg is cst.MaybeSentinel.DEFAULT \
            and not params.kwonly_params and params.star_kwarg is None:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return params.with_changes(params=kept, kwonly_params=[p for p in params.kwonly_params if p.name.value != name])


def _drop_arg(call: cst.Call, value_code: str) -> cst.Call:
    args = list(call.args)
    for i, a in enumerate(args):
        if code(a.value) == value_code:
            del args[i]
            if args and i == len(args):
                args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            break
    return call.with_changes(args=args)


def _without_aliases(imp: cst.ImportFrom, original: tuple, gone: set[int]) -> cst.ImportFrom:
    """The import without the aliases whose original node is in `gone` (positions match the original's)."""
    kept = [new for old, new in zip(original, imp.names) if id(old) not in gone]
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return imp.with_changes(names=kept)


def _import_instead(imp: cst.ImportFrom, original: tuple, alias: cst.ImportAlias, names: tuple,
                    gone: set[int] = frozenset()) -> cst.ImportFrom:
    """`from m import a, model_fn, b` with `names` in the place of the alias (positions match the original's), the
    aliases in `gone` dropped."""
    kept = []
    for old, new in zip(original, imp.names):
        if id(old) in gone:
            continue
        if old is alias:
            kept += [cst.ImportAlias(name=cst.Name(n), comma=new.comma) for n in names]
        else:
            kept.append(new)
    kept = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in kept[:-1]] + \
        [kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return imp.with_changes(names=kept)
