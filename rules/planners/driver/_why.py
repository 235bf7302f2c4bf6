"""Why a value the driver needs cannot be followed (several assignments, a parameter, an import from outside the
run), with what to do: the text of its blockers."""
from __future__ import annotations

import libcst as cst

from tfmigrate import choices
from tfmigrate.model import Resolved, Value, code

from ...facts.calls import computes_tensor, is_literal
from ...facts.sites import Site
from ..library_estimators import built_library_estimator, described


# what `x = X() if flag else None` is converted for (why(): the hint for `x = None` then `if flag: x = X()`)
_CHOSEN_OR_NONE = ("a strategy", "warm start")
# what the readers that take a choice (migrator/choices.py) are asked for: their blockers are about something else
_CONVERTED_CHOICES = ("a strategy", "warm start", "a tf.estimator.RunConfig")


class WhyMixin:
    """Analysis: what the messages say about values it could not follow."""

    def why(self, r: Resolved, what: str) -> str:
        if r.ambiguous:
            lines = ", ".join(str(self.line(b.statement, b.scope.file)) for b in r.ambiguous)
            name = r.ambiguous[0].name
            reason = choices.why_not(self.program, list(r.ambiguous), r.node, r.value.file, computes_tensor)
            if reason is not None:  # a construct no conditional expression stands for: named, with its line
                kind, node = reason
                line = self.line(node, r.value.file)
                if kind == "loop":
                    return (f"`{name}` can hold different values here (assigned at lines {lines}): the loop at line "
                            f"{line} assigns it on each iteration; build {what} once, outside the loop")
                return (f"`{name}` can hold different values here (assigned at lines {lines}): the `if` at line {line} "
                        f"tests `{_short(node)}`, a tensor whose value only the running graph knows; choose "
                        f"{what} by a flag or a setting of the program")
            chosen = choices.choice(self.program, list(r.ambiguous), r.node, r.value.file, r.value.env,
                                    computes_tensor)
            if chosen is not None and what not in _CONVERTED_CHOICES:
                # the if/else is read, but this reader converts one value only (an Estimator, a hook list)
                test = chosen[0].test
                if what == "an Estimator":  # a choice between Estimators converts (_chosen.py): which branch is not one
                    other = next((b for b in chosen[1] if not isinstance(self.site_of(Value(b.value, b.scope.file)),
                                                                         Site)), None)
                    if other is not None:
                        return (f"`{name}` can hold different values here (assigned at lines {lines}), chosen by "
                                f"`{_short(test)}` (line {self.line(test, r.value.file)}): tfmigrate converts a "
                                f"choice between Estimators it builds, and `{_short(other.value)}` (line "
                                f"{self.line(other.statement, r.value.file)}) is not one; assign an Estimator in "
                                "every branch")
                return (f"`{name}` can hold different values here (assigned at lines {lines}), chosen by "
                        f"`{_short(test)}` (line {self.line(test, r.value.file)}): tfmigrate converts such a choice "
                        f"for RunConfig settings, train_distribute and warm_start_from, not for {what}; keep one, or "
                        f"move the code that uses `{name}` into each branch")
            values = [b.value for b in r.ambiguous if b.kind == "assign" and not b.unpack and b.value is not None]
            given = [v for v in values if not is_literal(v, None)]
            if what in _CHOSEN_OR_NONE and len(r.ambiguous) == len(values) == 2 and len(given) == 1:
                # `strategy = None` then `if flag: strategy = X()`: the conditional expression converts
                return (f"`{name}` can hold different values here (assigned at lines {lines}); assign it once, "
                        f"as `{name} = {_short(given[0])} if <condition> else None` (which tfmigrate converts)")
            kind = what.split(" ", 1)[1] if what.startswith(("a ", "an ")) else what  # "which Estimator it is"
            return f"`{name}` can hold different values here (assigned at lines {lines}); " \
                   f"assign it once so tfmigrate can tell which {kind} it is"
        if r.stopped_at is not None:
            name = code(r.stopped_at) if not isinstance(r.stopped_at, cst.Param) else r.stopped_at.name.value
            outside = self._imported_from_outside(r) or self._unfollowed_parameter(r, name, what)
            if outside:
                return outside
            return f"tfmigrate cannot follow `{name}` to {what} (a parameter with several callers, a global, or " \
                   "a name from a module outside the migrated files); pass the files that define it too"
        if isinstance(r.node, cst.Attribute) and r.node.attr.value == "config" and "RunConfig" in what:
            # `config=estimator.config` (an Estimator wrapper, the GCP model_evaluation_pipeline): its property
            return f"`{code(r.node)[:60]}` reads another Estimator's RunConfig (its `config` property), which " \
                   "tfmigrate does not follow; pass the RunConfig that Estimator was built with"
        if what == "an Estimator":  # `adanet.Estimator(...)`, or a builder of the run returning one: named
            found = built_library_estimator(r.node, r.value.file, self.program)
            if found is not None:
                if found[2] is r.node:
                    return f"it is {described(found, self.line, r.node)}"
                return f"`{code(r.node)[:60]}` returns {described(found, self.line)}"
        # `model.fn_gen(...)`, `net.model_fn` with `net = Net(...)`: made by a module the run does not hold
        root, file = r.node, r.value.file
        for _ in range(4):
            while isinstance(root, (cst.Attribute, cst.Call)):
                root = root.value if isinstance(root, cst.Attribute) else root.func
            if not isinstance(root, cst.Name):
                break
            rr = self.program.resolve(Value(root, file))
            outside = self._imported_from_outside(rr)
            if outside:
                return f"`{code(r.node)[:60]}` is not {what} tfmigrate can see: {outside}"
            if rr.stopped_at is not None or rr.node is root or not isinstance(rr.node, (cst.Attribute, cst.Call)):
                break
            root, file = rr.node, rr.value.file
        return f"`{code(r.node)[:60]}` is not {what} tfmigrate can see"

    def _unfollowed_parameter(self, r: Resolved, name: str, what: str) -> str | None:
        """A parameter of a def called nowhere in the run, or from several places: which, and what to do."""
        last = r.trail[-1] if r.trail else None
        if not isinstance(r.stopped_at, cst.Param) or last is None or last.node is not r.stopped_at \
                or last.kind != "param" or not isinstance(last.scope.node, cst.FunctionDef):
            return None
        fn = last.scope.node.name.value
        sites = self.program.call_sites(last.scope.node)
        if not sites and fn == "estimator_fn" and last.scope.parent is not None and last.scope.parent.kind == "module":
            return sagemaker_entry(last.scope.node)
        if not sites:
            return (f"`{name}` is a parameter of `{fn}`, which is never called in the files given, so tfmigrate "
                    f"cannot see what `{name}` holds (it needs {what}); pass the file or package that calls `{fn}` in the same run, "
                    f"or build the value inside `{fn}`")
        if len(sites) > 1:
            lines = ", ".join(f"{f.path.rpartition('/')[2]}:{self.line(c, f)}" for c, f in sites[:4])
            return (f"`{name}` is a parameter of `{fn}`, which is called from {len(sites)} places ({lines}), so "
                    f"tfmigrate cannot tell what `{name}` holds (it needs {what}); build the value inside `{fn}`, or give `{fn}` one "
                    "caller")
        return None

    def _imported_from_outside(self, r: Resolved) -> str | None:
        """`from model.net import model_fn` of a module the run does not hold: the file to pass, or None."""
        last = r.trail[-1] if r.trail else None
        if r.stopped_at is None or last is None or last.node is not r.stopped_at or last.kind not in ("import", "from"):
            return None
        target = self.program.absolute(last.target, last.scope.file)
        module = target.rpartition(".")[0] if last.kind == "from" else target
        if not module:
            return None
        what = f"is imported from `{module}`" if last.kind == "from" else f"is the module `{module}`"
        if last.kind == "from" and target in self.program.by_module:  # `from pkg import mod`: a module of the run
            module, what = target, f"is the module `{target}`"
        if module.split(".")[0] in ("tensorflow", "tensorflow_estimator", "keras", "tf_keras"):
            # TensorFlow's own object where the program's was expected: often a positional argument in the
            # parameter before or after the one meant (EvalSpec's 4th is hooks, its 5th exporters)
            return (f"`{last.name}` {what}: a TensorFlow object stands where the program's own was expected; check "
                    "that each positional argument is in its parameter's place, or pass it by keyword")
        if module in self.program.by_module:  # the run holds it: the value is what tfmigrate did not follow
            return (f"`{last.name}` {what} ({self.program.by_module[module].path}, migrated with this file), but "
                    "tfmigrate does not follow this expression through it to the value it names")
        beside = self.program.beside(module, last.scope.file)
        if beside:  # on disk beside the importer, not read with it (several programs import it, or not passed)
            return (f"`{last.name}` {what} ({beside}), which tfmigrate does not read with this file: a module that "
                    "programs of several files import is migrated with none of them, and one not passed is not read")
        return (f"`{last.name}` {what}, which is not among the migrated files: "
                f"pass {module.replace('.', '/')}.py (or its package) to tfmigrate too")


def _short(node) -> str:
    """An expression for a message: a call as `f(...)` when its arguments make it long."""
    text = code(node)
    if len(text) > 50 and isinstance(node, cst.Call):
        return f"{code(node.func)[:50]}(...)"
    return text[:50]


def sagemaker_entry(fn: cst.FunctionDef) -> str:
    """SageMaker's legacy TensorFlow container calls a module's estimator_fn(run_config, params) itself, with its
    train_input_fn(training_dir, params) / serving_input_fn(params), and drives the Estimator it returns: no file
    of the program does, and a Keras model returned in its place would break the container's calls."""
    params = ", ".join(p.name.value for p in fn.params.params)
    return (f"`{fn.name.value}({params})` is the entry point of SageMaker's legacy TensorFlow container (it calls "
            "estimator_fn, train_input_fn, eval_input_fn and serving_input_fn itself and drives the Estimator "
            "returned), so no file of the program drives this Estimator; make it a script-mode training script "
            "(build the Estimator, train and export it under `if __name__ == \"__main__\":`) and run tfmigrate on "
            "that script")
