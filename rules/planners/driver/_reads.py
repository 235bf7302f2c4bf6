"""Checks on the whole unit: every read of an Estimator, of its model_fn and of a hand-written receiver is
converted, each Estimator trains once, numpy input functions convert."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value, code

from .. import numpy_inputs
from ...facts.sites import Site
from ...facts.estimator import CODE
from ._why import sagemaker_entry


class ReadsMixin:
    """Analysis: the checks finish() runs on each site."""

    def _model_fn_reads(self, site: Site, covered: set[int]) -> None:
        """The model_fn's def becomes the model's builder: its name read anywhere but in the converted Estimator
        calls (and the `fn = model_fn` aliases that go with them) would read a name that is gone."""
        fn = site.model_fn
        name, module = fn.node.name.value, fn.file.module_name
        binding = next((b for b in fn.file.top.bindings.get(name, []) if b.node is fn.node), None)
        if binding is None:
            return
        reads = list(fn.file.loads_of(self.program, binding))
        for other, i, target in self._imports() if module else ():
            if other is fn.file:
                continue
            if i.kind == "from" and target == f"{module}.{name}":
                reads += other.loads_of(self.program, i)
                continue
            if target != module and not module.startswith(target + "."):
                continue
            path = [*module[len(target):].split(".")[1:], name]  # `trainer` + model.model_fn
            for load in other.loads_of(self.program, i):
                node = load
                for attr in path:
                    parent = other.parent(node)
                    if not (isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value == attr):
                        node = None
                        break
                    node = parent
                if node is not None:
                    reads.append(node)
        stray = [n for n in reads if not self.program.file_of(n).inside(n, covered | {id(fn.node)})]
        if stray:
            raise Blocked(CODE, f"model_fn `{name}` becomes the converted model's builder, but is also used here, "
                                "which is not converted; pass it only to the Estimator", stray[0])

    def _numpy_input(self, value: Value, site: Site) -> None:
        """An input_fn that is a numpy_input_fn(...) call: checked here, its statement goes with the Estimator."""
        if self.program.function_of(value) is not None:
            return
        r = self.program.resolve(value)
        if isinstance(r.node, cst.Call) and self.tf(r.node.func, r.value.file) == numpy_inputs.NUMPY:
            # the original's own strategy (TF1 refused queue-based input under one); --strategy may add one later
            note = numpy_inputs.check(r.node, r.value.file, r.value.env,
                                      not (site.original_kinds or set()) - {"default", "one-device"})
            if note and not any(n[2] is r.node for n in self.notes):  # one note per numpy_input_fn call
                self.notes.append((numpy_inputs.CODE, note, r.node))
            site.consumed.extend(b for b in r.trail if b.kind in ("assign", "def"))  # a helper that returned it too

    def _receiver_reads(self, plan, covered: set[int]) -> None:
        """A hand-written receiver now returns (features, receiver_tensors): nothing else may read it."""
        for b in plan.fn.trail:
            if b.kind != "def":
                continue
            stray = [n for n in b.scope.file.loads_of(self.program, b)
                     if not self.program.file_of(n).inside(n, covered)]
            if stray:
                raise Blocked(CODE, f"serving_input_receiver_fn `{b.name}` is also used here; the migrated function "
                                    "returns (features, receiver_tensors) instead of a ServingInputReceiver, so only "
                                    "exports may use it (give this use its own function)", stray[0])

    def _trains_once(self, site: Site) -> None:
        """Each Estimator training call continued from the global step the previous one reached (max_steps is
        absolute, steps relative, the checkpoint in model_dir carries the step over); the migrated fit / train
        calls do not carry it over yet, so an Estimator that trains more than once is not converted."""
        training = [u for u in site.uses if u.kind in ("train", "train_and_evaluate")]
        if len(training) > 1:
            raise Blocked(CODE, f"this Estimator trains {len(training)} times (lines "
                                f"{', '.join(str(self.line(u.call, u.file)) for u in training)}); each call went on "
                                "from the global step the previous one reached, which the migrated training does not "
                                "carry over yet: train once, to the final max_steps", training[1].call)
        for use in training:
            node = use.file.parent(use.call)
            while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.Module)):
                if isinstance(node, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
                    raise Blocked(CODE, "training inside a loop: each Estimator call went on from the global step "
                                        "the previous one reached, which the migrated training does not carry over "
                                        "yet; train once, to the final max_steps", use.call)
                node = use.file.parent(node)

    def _one_returned(self, fn, file: FileIndex) -> bool:
        """A helper returning one of several Estimators (`if model_type == "wide": return LinearClassifier(...)`):
        which one its caller drives is chosen at run time; reported once, at the helper."""
        built = {id(s.call) for s in self.sites}
        returns = [r.value for r in file.function_scopes[id(fn)].returns if id(r.value) in built] if fn else []
        if len(returns) < 2:
            return False
        lines = ", ".join(str(self.line(r, file)) for r in returns)
        message = (f"`{fn.name.value}` returns one of {len(returns)} Estimators (lines {lines}), chosen at run time: "
                   "tfmigrate converts the Estimator a name holds, one per name; build the one this program trains "
                   "(or each, under its own name and function) and drive it")
        if not any(x.message == message for e in self.errors for x in e.errors):
            raise Blocked(CODE, message, fn)
        return True  # reported with another of its Estimators

    def _holders(self, site: Site, covered: set[int]) -> None:
        """Every read of a variable holding this Estimator must be a converted use (or pass it on)."""
        handled = {id(use.receiver) for use in site.uses}
        todo: list[tuple[cst.CSTNode, FileIndex]] = [(site.call, site.file)]
        seen: set[int] = set()
        while todo:
            expr, file = todo.pop()
            if id(expr) in seen:
                continue
            seen.add(id(expr))
            parent = file.parent(expr)
            stmt = file.statement_of(expr)
            if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, cst.Name):
                scope = file.scope_of(parent.targets[0].target)
                for b in scope.bindings.get(parent.targets[0].target.value, []):
                    if b.node is parent.targets[0].target:
                        for read in file.loads_of(self.program, b):
                            if id(read) in handled or file.inside(read, covered - {id(site.call)}):
                                continue
                            todo.append((read, file))
                continue
            if isinstance(parent, cst.Return):
                fn = file.enclosing_function(expr)
                if self._one_returned(fn, file):
                    return
                if isinstance(fn, cst.FunctionDef) and fn.name.value == "estimator_fn" \
                        and file.scope_of(fn).kind == "module" and not self.program.call_sites(fn):
                    raise Blocked(CODE, sagemaker_entry(fn), fn)
                callers = self.program.call_sites(fn) if fn is not None else []
                if isinstance(fn, cst.FunctionDef) and not callers:
                    self.uncalled_builders[id(site.call)] = (fn, file)
                for call, caller in callers:
                    todo.append((call, caller))
                continue
            if expr is site.call and isinstance(parent, (cst.Expr,)):
                continue
            if isinstance(parent, cst.Arg) and isinstance(file.parent(parent), cst.Call):
                call = file.parent(parent)
                fn = self.program.callee(Value(call.func, file), 0) if not isinstance(call.func, cst.Lambda) else None
                if fn is not None and isinstance(fn.node, cst.FunctionDef):
                    name = next((p for p in fn.params if self.program.argument_for(call, fn, p) is expr), None)
                    scope = fn.file.function_scopes[id(fn.node)]
                    for b in scope.bindings.get(name or "", []):
                        if b.kind == "param":
                            for read in fn.file.loads_of(self.program, b):
                                if id(read) not in handled:
                                    todo.append((read, fn.file))
                    continue
            if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, cst.Attribute):
                # `self.classifier = tf.estimator.LinearRegressor(...)`: driven through the attribute elsewhere
                target = code(parent.targets[0].target)
                fn = file.enclosing_function(expr)
                owner = file.scope_of(fn).node if fn is not None else None
                where = (f" in {type(owner).__name__ == 'ClassDef' and f'class `{owner.name.value}`' or 'this file'}"
                         if owner is not None else "")
                raise Blocked(CODE, f"the Estimator is stored in the attribute `{target}`{where}: tfmigrate follows "
                                    "an Estimator through local and module-level names and function arguments, not "
                                    "object attributes, so the train/evaluate/predict calls made on the attribute "
                                    "(in other methods) cannot be converted with it; assign it to a local name and "
                                    "drive it from the same function (or a function it is passed to)", expr)
            if expr is site.call:
                raise Blocked(CODE, "the Estimator is used right where it is built, in a way tfmigrate does not "
                                    "convert; assign it to a name first", expr)
            raise Blocked(CODE, f"`{code(expr)}` (an Estimator) is used here in a way tfmigrate does not convert "
                                "(only train / evaluate / train_and_evaluate / predict are converted yet)", stmt or expr)
