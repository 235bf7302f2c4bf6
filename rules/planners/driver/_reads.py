"""Checks on the whole unit: every read of an Estimator, of its model_fn and of a hand-written receiver is
converted, each Estimator trains once, numpy input functions convert."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value, code

from .. import hooks as hook_rules
from .. import numpy_inputs
from .. import serving_functions
from ...facts.sites import Site
from ...facts.estimator import CODE
from ._chosen import all_returned
from ._handed import several_loop_callers
from ._shared_helper import several_estimators
from ._training import resumes
from ._why import sagemaker_entry


def _in_loop(node, file: FileIndex):
    """The innermost loop (or comprehension) around `node` in its function, or None."""
    node = file.parent(node)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.Module)):
        if isinstance(node, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return node
        node = file.parent(node)
    return None


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
        handed = {id(h.arg) for h in self.handed.values()}  # the caller's argument names the builder now
        stray = [n for n in reads if not self.program.file_of(n).inside(n, covered | handed | {id(fn.node)})]
        if stray:
            passed = self._passed_to_estimator(stray[0], site)
            if passed is not None:
                raise Blocked(CODE, f"model_fn `{name}` is passed to `{passed}`, which builds the Estimator with it "
                                    f"({site.file.path}:{self.line(site.call, site.file)}): tfmigrate does not hand "
                                    "the converted model's builder through a parameter yet; build the Estimator "
                                    f"where `{name}` is named, or pass a function that builds and returns the "
                                    "Estimator (`build_estimator`) to a run loop that imports the model_fn's module", stray[0])
            raise Blocked(CODE, f"model_fn `{name}` becomes the converted model's builder, but is also used here, "
                                "which is not converted; pass it only to the Estimator", stray[0])

    def _passed_to_estimator(self, read: cst.CSTNode, site: Site) -> str | None:
        """The name of the function `read` is an argument of when that function builds this site's Estimator
        with it (`run_loop.run(flags, model_fn, ...)`), else None."""
        file = self.program.file_of(read)
        arg = file.parent(read)
        call = file.parent(arg) if isinstance(arg, cst.Arg) and arg.value is read else None
        if not isinstance(call, cst.Call):
            return None
        fn = self.program.callee(Value(call.func, file), 0)
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.file is not site.file \
                or site.file.enclosing_function(site.call) is not fn.node:
            return None
        return code(call.func)

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
        tables = {id(t.value) for t in plan.tables}  # a dict of receivers read only by exports' lookups
        for t in plan.tables:
            serving_functions.stray_reads(self.program, t, covered)
        for b in plan.fn.trail:
            if b.kind != "def":
                continue
            stray = [n for n in b.scope.file.loads_of(self.program, b)
                     if not self.program.file_of(n).inside(n, covered | tables)]
            stray = serving_functions.factory_reads(self.program, b, stray, covered, plan.fn.node) if stray else stray
            if stray:
                raise Blocked(CODE, f"serving_input_receiver_fn `{b.name}` is also used here; the migrated function "
                                    "returns (features, receiver_tensors) instead of a ServingInputReceiver, so only "
                                    "exports may use it (give this use its own function)", stray[0])

    def _trains_once(self, site: Site) -> None:
        """Each Estimator training call continued from the global step the previous one reached (max_steps is
        absolute, steps relative, the checkpoint in model_dir carries the step over). On the Keras target a model_fn
        Estimator with a model_dir does the same (each fit restores model_dir first: restore_model_dir, then trains
        the steps left), so it may train several times and in loops; otherwise the Estimator trains once."""
        training = [u for u in site.uses if u.kind in ("train", "train_and_evaluate")]
        repeated = len(training) > 1 or any(_in_loop(u.call, u.file) is not None for u in training)
        if repeated:
            why = self._why_not_repeated(site, training)
            if why:
                if len(training) > 1:
                    raise Blocked(CODE, f"this Estimator trains {len(training)} times (lines "
                                        f"{', '.join(str(self.line(u.call, u.file)) for u in training)}); each call went "
                                        f"on from the global step the previous one reached, which the migrated training "
                                        f"carries over only {why}", training[1].call)
                raise Blocked(CODE, "training inside a loop: each Estimator call went on from the global step the "
                                    f"previous one reached, which the migrated training carries over only {why}",
                              training[0].call)
            random = _random_words(site, training)
            if random:
                # TF1 rebuilt the graph (same seeds) for every train(): its random ops drew the same values in each
                # call; eager TF2 goes on drawing, so the trainings would differ from the second one on
                raise Blocked(CODE, f"this Estimator trains more than once and the program draws random values "
                                    f"({', '.join(random)}): each TF1 train() rebuilt its graph with the same seeds, so "
                                    "its random ops (dropout, shuffle, random_*) repeated their values in every call, "
                                    "which the migrated training cannot do; train once with the total steps",
                              training[0].call)
            self.notes.append((CODE, "trains more than once: each fit first restores model_dir's latest checkpoint "
                                     "and goes on from its global step, as each Estimator train() did",
                               training[0].call))
        for use in training:
            self._early_stopping_per_training(site, use, training)

    def _why_not_repeated(self, site: Site, training) -> str | None:
        """Why several trainings of this Estimator do not each go on from the last one's step, or None."""
        from .. import canned, keras_estimator

        if site.target != "keras":
            return "on the Keras target (use --target keras)"
        if canned.is_canned(site) or keras_estimator.is_keras(site):
            return "for a model_fn Estimator (not a canned or model_to_estimator one)"
        if not resumes(site):
            return "when the Estimator has a model_dir to restore from (give RunConfig(model_dir=...))"
        if site.warm_start:
            return "without warm_start_from"
        if site.strategy is not None and site.strategy.kinds - {"default", "one-device"}:
            return "without a distribution strategy"
        if any(u.kind != "train" for u in training):
            return "for train() calls (not train_and_evaluate)"
        return None

    def _early_stopping_per_training(self, site: Site, use, training) -> None:
        """An early-stopping hook converts when each training builds its own (its timer went on from its last check
        otherwise, by time or by a global-step read racing the update) and nothing evaluates while it trains (a
        train() call; train_and_evaluate only when its final evaluation was the only one)."""
        for value in use.train.get("callbacks", ()):
            call = self.program.resolve(value).node
            if id(call) not in self.early_stops:
                continue
            file = self.early_stops[id(call)][2].file
            others = [u for u in training if u is not use and any(
                self.program.resolve(v).node is call for v in u.train.get("callbacks", ()))]
            loop = _in_loop(use.call, use.file)
            if others or loop is not None and not (file is use.file and use.file.inside(call, {id(loop)})):
                raise Blocked(hook_rules.CODE, hook_rules.early_stopping_blocked(
                    "one hook object serves several trainings: its timer went on from its last check (run_every_secs: "
                    "by wall time; run_every_steps: from a global step read unordered with the update), so its checks "
                    "in a later training fall on other steps from run to run; build the hook right before each "
                    "train(), inside the loop"), call)
            # make_early_stopping_hook's predicate reads no evaluation (only stop_if_*_hook read eval_dir)
            if use.kind == "train_and_evaluate" and self.early_stops[id(call)][5] != hook_rules.PREDICATE:
                why = self.evaluated_more_than_once(site, use.train.get("max_steps"))
                if why:
                    raise Blocked(hook_rules.CODE, hook_rules.early_stopping_blocked(
                        "train_and_evaluate evaluated during training (at the first checkpoint saved after the start, "
                        "then every throttle_secs), each evaluation changing what the hook read, and the migrated "
                        "program evaluates once, after training; converted when the final evaluation is provably "
                        f"the only one ({why})"), call)

    def _one_returned(self, fn, file: FileIndex) -> bool:
        """A helper returning one of several Estimators (`if model_type == "wide": return LinearClassifier(...)`):
        which one its caller drives is chosen at run time; reported once, at the helper."""
        built = {id(s.call) for s in self.sites}
        returns = [r.value for r in file.function_scopes[id(fn)].returns if id(r.value) in built] if fn else []
        if len(returns) < 2 or all_returned(self, fn, file):
            return False  # (every return an Estimator: its callers' uses convert each, _chosen.py)
        lines = ", ".join(str(self.line(r, file)) for r in returns)
        message = (f"`{fn.name.value}` returns one of {len(returns)} Estimators (lines {lines}), chosen at run time: "
                   "tfmigrate converts the Estimator a name holds, one per name; build the one this program trains "
                   "(or each, under its own name and function) and drive it")
        if not any(x.message == message for e in self.errors for x in e.errors):
            raise Blocked(CODE, message, fn)
        return True  # reported with another of its Estimators

    def _holders(self, site: Site, covered: set[int]) -> None:
        """Every read of a variable holding this Estimator must be a converted use (or pass it on)."""
        handled = {id(use.receiver) for use in site.uses} | self.kept_reads
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
                    blocked = several_loop_callers(self.program, fn, call, self.line)
                    if blocked is not None:
                        raise blocked
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
            container = _container(expr, file)
            if container is not None:
                raise Blocked(CODE, container, expr)
            if expr is site.call:
                raise Blocked(CODE, "the Estimator is used right where it is built, in a way tfmigrate does not "
                                    "convert; assign it to a name first", expr)
            shared = several_estimators(self, expr, file)
            if shared:
                raise Blocked(CODE, shared, stmt or expr)
            raise Blocked(CODE, f"`{code(expr)}` (an Estimator) is used here in a way tfmigrate does not convert "
                                "(only train / evaluate / train_and_evaluate / predict are converted yet)", stmt or expr)


def _container(expr, file) -> str | None:
    """The Estimator put into a dict, list, tuple or set literal that is not a plain `return a, b` (a trainer
    returning `{"estimator": est, "train_spec": ...}` for its caller to unpack): what to do instead."""
    parent = file.parent(expr)
    if isinstance(parent, cst.DictElement) and parent.value is expr:
        key = code(parent.key)
        return (f"the Estimator `{code(expr)}` is put into a dict under {key}: tfmigrate follows an Estimator through "
                "names, function arguments and returns (a tuple too), not through dict entries or `**` unpacking; "
                f"return it (e.g. `return {code(expr)}, train_spec, eval_spec`) and unpack it at the caller")
    if isinstance(parent, cst.Element) and isinstance(file.parent(parent), (cst.List, cst.Set)):
        return (f"the Estimator `{code(expr)}` is put into a list: tfmigrate follows an Estimator through names, "
                "function arguments and returns, not through list items; hold each Estimator in a name of its own")
    return None


_RANDOM = ("random", "dropout", "shuffle", "noise")  # parts of draw names: random_normal, Dropout, GaussianNoise
_RANDOM_OPS = {"multinomial", "categorical"}  # whole names only (categorical_column_* draws nothing)
_SEEDING = {"set_random_seed", "tf_random_seed", "random_seed", "set_seed"}  # seeding is not drawing
# host-side draws (numpy, Python's random module) go on the same way in both programs: same process, same calls
_HOST_RANDOM = ("np", "numpy", "random", "RandomState", "default_rng")


def _random_words(site: Site, training) -> list[str]:
    """Names of TF random draws in the model_fn's file and the training calls' files (sorted, at most 3): a
    conservative reading, since a random op may sit in any function those files run. Not counted: seeding, host
    draws (numpy, Python's random), stateless ops, and `.shuffle(n, seed)` given its seed (a new dataset with the
    same op seed per input_fn call in both)."""
    files = {id(site.model_fn.file): site.model_fn.file, **{id(u.file): u.file for u in training}}
    found = set()
    for file in files.values():
        for name, nodes in file.names.items():
            if name in _SEEDING or name.startswith("stateless_") or name in ("RandomState", "default_rng"):
                continue
            worded = name in _RANDOM_OPS or any(w in name.lower() for w in _RANDOM)
            imported = worded and _tf_imported(name, file)
            if any(_unseeded_tf_draw(node, name, file, worded, imported) for node in nodes):
                found.add(name)
    return sorted(found)[:3]


def _tf_imported(name: str, file) -> bool:
    """The name is bound by an import from TensorFlow or Keras (`from tensorflow.keras.layers import Dropout`): a
    bare `Dropout(...)` then draws."""
    return any(b.kind in ("import", "from") and b.target.split(".")[0] in _TF_PACKAGES
               for scope in {*file.scopes.values(), file.top} for b in scope.bindings.get(name, ()))


_TF_PACKAGES = ("tensorflow", "tf_keras", "keras", "tensorflow_estimator")


def _unseeded_tf_draw(node: cst.Name, name: str, file, worded: bool, imported: bool) -> bool:
    """An attribute `x.<name>` that draws: any op of a `.random` module (`tf.random.normal`, not the module name
    itself), or a drawing name not under a host root (and a `.shuffle` without its seed); a TF-imported bare drawing
    name used. The program's own names (`shuffled`, `NOISE`) are not draws by their names."""
    parent = file.parents.get(id(node))
    if not (isinstance(parent, cst.Attribute) and parent.attr is node):
        return imported and not isinstance(parent, (cst.ImportAlias, cst.Attribute))
    root = parent.value
    while isinstance(root, cst.Attribute):
        root = root.value
    if isinstance(root, cst.Name) and root.value in _HOST_RANDOM:
        return False
    outer = file.parents.get(id(parent))
    if name == "random" and isinstance(outer, cst.Attribute) and outer.value is parent:
        return False  # the module (`tf.random.<op>`): its op decides
    in_random_module = isinstance(parent.value, cst.Attribute) and parent.value.attr.value == "random"
    if not (worded or in_random_module):
        return False
    if name == "shuffle" and isinstance(outer, cst.Call) and outer.func is parent:
        return not (len([a for a in outer.args if a.keyword is None]) >= 2
                    or any(a.keyword is not None and a.keyword.value == "seed" for a in outer.args))
    return True
