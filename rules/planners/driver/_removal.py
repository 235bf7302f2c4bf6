"""What goes away once every site is known: the config/spec statements and helpers nothing else reads, the
imports of them, and helper parameters left unread; what is still read is reported."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Binding, FileIndex, Value

from ...facts.sites import deletable, statement_bindings
from ...facts.estimator import CODE
from ._config_reads import model_dir_reads


class RemovalMixin:
    """Analysis: finish() decides what is deleted and runs the checks of rules/planners/driver/_reads.py."""

    # ---- what goes away --------------------------------------------------------------------------------------
    def finish(self) -> None:
        """Decide which config/spec statements and helpers go, and check nothing else reads an Estimator."""
        self.config_reads: list = []  # `config.model_dir` reads written as the value (_config_reads.py)
        for site in self.sites:
            self._guard(self._trains_once, site)
            for use in site.uses:
                for value in (use.train.get("input_fn"), use.evaluate.get("input_fn"), use.predict.get("input_fn")):
                    if value is not None:
                        self._guard(self._numpy_input, value, site)
        covered: set[int] = set()  # nodes whose subtree the conversion replaces or removes
        for site in self.sites:
            covered.add(id(site.call))
            for use in site.uses:
                covered.add(id(use.call))
        covered.update(self.wrappers)  # an add_metrics call stands for the Estimator it wraps (_add_metrics.py)
        covered.update(self.early_stops)  # an early-stopping hook's call becomes the callback (it reads the Estimator)
        for node in self.inline_args:  # the helper's parameter now unread: it and the argument go
            if not self.program.file_of(node).inside(node, covered):
                self._dead_argument(node, covered)
        candidates = [b for site in self.sites for b in (*site.consumed, *site.removable)]
        # another file of the run importing a candidate (`from trainer.hooks import hooks`) reads it through that
        # import: the import is a candidate too, and the definition goes only if every import of it goes
        importers = self._importers(candidates, covered)
        candidates += [i for found in importers.values() for i in found if i.kind == "from"]
        # a receiver's feature_spec / features are rendered into the export: what they read stays
        # (`make_parse_example_spec(columns())` keeps the columns helper of a canned estimator)
        exported = {id(v.node) for site in self.sites for use in site.uses
                    for receiver in [use.export, *(r for _, r in use.exporters)]
                    for key in ("feature_spec", "raw_features") if isinstance(receiver.get(key), Value)
                    for v in [receiver[key]]}
        for b in {id(b): b for site in self.sites for b in site.consumed}.values():  # `config.model_dir` → its value
            stray = [n for n in b.scope.file.loads_of(self.program, b) if not b.scope.file.inside(n, covered)]
            if stray and len(model_dir_reads(self, b, stray)) < len(stray):
                covered.update(id(a) for a, _, _ in self.config_reads)
        doomed: dict[int, Binding] = {}
        changed = True
        while changed:
            changed = False
            for b in candidates:
                if id(b) in doomed:
                    continue
                file = b.scope.file
                if b.kind == "def":
                    reads = [call for call, _ in self.program.call_sites(b.node)]
                    reads += [n for n in file.loads_of(self.program, b)
                              if not isinstance(file.parent(n), cst.Call) or file.parent(n).func is not n]
                else:
                    reads = file.loads_of(self.program, b)
                if b.kind == "class":  # `super(MyEstimator, self)` in its own body goes with it
                    reads = [n for n in reads if not file.inside(n, {id(b.node)})]
                reads = [n for n in reads if not self.program.file_of(n).inside(n, covered)
                         or self.program.file_of(n).inside(n, exported)]
                reads = [n for n in reads if not self._dead_argument(n, covered)]
                reads += [i.node for i in importers.get(id(b), ()) if id(i) not in doomed]
                if not reads:
                    doomed[id(b)] = b
                    covered.add(id(b.statement))
                    changed = True
        self.deleted: list[tuple[cst.CSTNode, FileIndex]] = []
        self.dropped_imports: list[tuple[cst.ImportFrom, FileIndex, set[int]]] = []
        seen: set[int] = set()
        dropped: set[int] = set()  # `from m import a, b` statements that lose only their doomed aliases
        for b in doomed.values():
            stmt, file = b.statement, b.scope.file
            if id(stmt) in seen:
                continue
            if b.kind == "from":
                seen.add(id(stmt))
                if self._drop_import(stmt, file, doomed):
                    dropped.update(id(x.statement) for x in doomed.values() if x.kind == "from" and x.statement is stmt)
                continue
            targets = statement_bindings(stmt, file)
            if all(id(t) in doomed for t in targets) and deletable(stmt):
                seen.add(id(stmt))
                self.deleted.append((stmt, file))
        gone = {id(s) for s, _ in self.deleted}
        optional = {id(b) for site in self.sites for b in site.removable} - {id(b) for site in self.sites for b in site.consumed}
        for b in doomed.values():
            if id(b.statement) not in gone and id(b.statement) not in dropped and id(b) not in optional:
                self.errors.append(Blocked(CODE, f"`{b.name}` holds a TF1 {self._what(b)} and is still needed by "
                                                 "other code on this line; split the statement", b.statement))
        consumed = {id(b): b for site in self.sites for b in site.consumed}
        for b in consumed.values():
            if id(b) in doomed:
                continue
            file = b.scope.file
            # a read in the statement that rebinds the name (`config = config.replace(...)`) is the chain: the later
            # binding's own stray reads are reported, not this one again
            chained = {id(c.statement) for c in consumed.values() if c.name == b.name and c is not b}
            # a read inside a call already reported (train_and_evaluate blocked by its EvalSpec), or at a node a
            # blocker names (the BestExporter in EvalSpec(exporters=[...])), is that blocker's
            reported = {id(x.node) for e in self.errors for x in e.errors if x.node is not None}
            stray = [n for n in file.loads_of(self.program, b)
                     if not self.program.file_of(n).inside(n, covered | gone | self._failed | reported | chained)]
            if stray and self._holds_reported(b):
                continue  # its own statement holds a reported blocker (an exporter not converted): reads follow it
            if stray:
                self.errors.append(Blocked(CODE, f"`{b.name}` (a TF1 {self._what(b)}) is also used here, in a way "
                                                 "tfmigrate does not convert: the conversion replaces the statement "
                                                 f"that builds it (line {self.line(b.statement, file)}); keep what "
                                                 "this code needs in a variable of its own, or delete this use",
                                           stray[0]))
        for site in self.sites:
            self._guard(self._holders, site, covered | gone | self._failed)
        for site in {id(s.model_fn.node): s for s in self.sites
                     if s.factory is None and isinstance(s.model_fn.node, cst.FunctionDef)}.values():
            self._guard(self._model_fn_reads, site, covered | gone | self._failed)
        for plan in {key: plan for site in self.sites for key, plan in site.receivers.items()}.values():
            self._guard(self._receiver_reads, plan, covered | gone)

    def _holds_reported(self, b: Binding) -> bool:
        """A blocker already reported names a node of `b`'s statement."""
        statement = {id(b.statement)}
        return any(x.node is not None and self.program.file_of(x.node) is b.scope.file
                   and b.scope.file.inside(x.node, statement) for e in self.errors for x in e.errors)

    def _imports(self):
        """(file, binding, absolute target) of every `import` / `from` binding of the program, in any scope."""
        for file in self.program.files:
            for scope in [file.top, *file.function_scopes.values()]:
                for bindings in scope.bindings.values():
                    for i in bindings:
                        if i.kind in ("import", "from"):
                            yield file, i, self.program.absolute(i.target, file)

    def _what(self, b: Binding) -> str:
        return "model_fn alias" if id(b) in self.model_fn_aliases else _what(b)

    def _importers(self, candidates: list[Binding], covered: set[int]) -> dict[int, list[Binding]]:
        """{id(module-level candidate): the bindings of other files that import it}: `from m import name [as x]`
        (a candidate too) and `import m` / `from pkg import m` read as `m.name` outside the converted code (an
        attribute read that keeps it; `hooks=w.watch_hooks` in a converted call goes with the call)."""
        wanted = {(b.scope.file.module_name, b.name): b for b in candidates
                  if b.scope.kind == "module" and b.scope.file.module_name and b.kind != "from"}
        found: dict[int, list[Binding]] = {}
        if not wanted:
            return found
        for file, i, target in self._imports():
            module, _, name = target.rpartition(".")
            b = wanted.get((module, name)) if i.kind == "from" else None
            if b is not None and b.scope.file is not file:
                found.setdefault(id(b), []).append(i)
                continue
            for (m, n), b in wanted.items():  # `mod.name` through an import of the module
                if m == target and b.scope.file is not file and any(
                        isinstance(file.parent(load), cst.Attribute) and file.parent(load).value is load
                        and file.parent(load).attr.value == n and not file.inside(load, covered)
                        for load in file.loads_of(self.program, i)):
                    found.setdefault(id(b), []).append(i)
        return found

    def _drop_import(self, stmt, file: FileIndex, doomed: dict[int, Binding]) -> bool:
        """`from m import a, b`: the doomed names go; the statement goes when none is left. False when it cannot
        (a star import)."""
        line = file.parent(stmt) if not isinstance(stmt, cst.SimpleStatementLine) else stmt
        node = stmt if isinstance(stmt, cst.ImportFrom) else next(
            (s for s in getattr(stmt, "body", ()) if isinstance(s, cst.ImportFrom)), None)
        if node is None or isinstance(node.names, cst.ImportStar):
            return False
        scope_bindings = [b for b in doomed.values() if b.kind == "from" and b.statement is stmt]
        gone = {id(b.node) for b in scope_bindings}
        if all(id(alias) in gone for alias in node.names) and isinstance(line, cst.SimpleStatementLine) \
                and len(line.body) == 1:
            self.deleted.append((line, file))
        else:
            self.dropped_imports.append((node, file, gone))
        return True

    def _dead_argument(self, name: cst.CSTNode, covered: set[int]) -> bool:
        """`helper(config, ...)` where helper reads its parameter only in converted code: the parameter and the
        argument at every call site go (they would pass a value that no longer exists)."""
        file = self.program.file_of(name)
        arg = file.parent(name)
        call = file.parent(arg) if isinstance(arg, cst.Arg) and arg.value is name else None
        if not isinstance(call, cst.Call) or arg.star:
            return False
        fn = self.program.callee(Value(call.func, file), 0)
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            return False
        param = next((p for p in fn.params if self.program.argument_for(call, fn, p) is name), None)
        scope = fn.file.function_scopes[id(fn.node)]
        binding = next((b for b in scope.bindings.get(param or "", []) if b.kind == "param"), None)
        if binding is None or any(not fn.file.inside(n, covered) for n in fn.file.loads_of(self.program, binding)):
            return False
        sites = self.program.call_sites(fn.node)
        args = []
        for site_call, site_file in sites:
            a = self.program.argument_for(site_call, fn, param)
            if a is None or any(x.star for x in site_call.args):
                return False
            args.append((site_call, site_file, a))
        for site_call, site_file, a in args:
            covered.add(id(a))
            self.dropped_args.append((site_call, site_file, a))
        self.dropped_params.append((fn.node, fn.file, param))
        return True


def _what(b: Binding) -> str:
    return "config/spec value" if b.kind != "def" else "config/spec helper"
