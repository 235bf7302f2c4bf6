"""Which Estimator: a tf.estimator.Estimator call (a subclass of it, a TPUEstimator on CPU) → a driver Site,
with its arguments, model_fn, params and warm start."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Binding, FileIndex, FunctionRef, Value, code

from .. import strategy as strategies
from .. import tpu as tpu_rules
from ...facts.calls import computes_tensor, is_literal
from ...facts.sites import CODE_KIND, Site, bind_values
from ...facts.estimator import ESTIMATOR_ARGS, WARM_START_ARGS, CODE
from ._object_method import message as object_method_message
from ._handed import handed
from ._wrapped_model_fn import message as private_message, private_model_fn_call


# the Estimator class by its public name and by its private module (`from tensorflow.python.estimator import
# estimator as estimator_lib`: a vendored copy of TPUEstimator subclasses it so)
ESTIMATOR_CLASS = ("estimator.Estimator", "python.estimator.estimator.Estimator")


class EstimatorMixin:
    """Analysis: each Estimator construction becomes a Site."""

    # ---- an Estimator ----------------------------------------------------------------------------------------
    def _estimator_subclass(self, call: cst.Call, file: FileIndex):
        """For `MyEstimator(...)` where `class MyEstimator(tf.estimator.Estimator)` is a class of the program: (the
        class, its file). None otherwise."""
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        r = self.program.resolve(Value(call.func, file))
        if isinstance(r.node, cst.ClassDef) and any(self.tf(b.value, r.value.file) in ESTIMATOR_CLASS
                                                    for b in r.node.bases):
            return r.node, r.value.file
        return None

    def _subclass_init(self, call: cst.Call, file: FileIndex):
        """For `MyEstimator(...)` where `class MyEstimator(tf.estimator.Estimator)` passes its model_fn to the base
        `__init__`: (the class binding, the base `__init__` call, its environment). None otherwise; a subclass not
        converted raises."""
        key = ("subclass", id(call))
        if key in self.program.cache:
            return self.program.cache[key]
        found = None
        subclass = self._estimator_subclass(call, file)
        if subclass is not None:
            cls, cfile = subclass
            scope = cfile.class_scopes[id(cls)]
            init = next((b.node for b in scope.bindings.get("__init__", []) if b.kind == "def"), None)
            if init is None:
                raise Blocked(CODE, f"Estimator subclass {cls.name.value} without __init__ is not converted: give it "
                                    "an __init__ that passes model_fn (and config, params) to super().__init__, or "
                                    "build tf.estimator.Estimator(model_fn=...) itself", cls)
            base_call = next((c for c in cfile.calls if cfile.enclosing_function(c) is init
                              and isinstance(c.func, cst.Attribute) and c.func.attr.value == "__init__"), None)
            if base_call is None:
                raise Blocked(CODE, f"{cls.name.value}.__init__ does not call the Estimator's __init__: call "
                                    "super().__init__(model_fn=..., config=..., params=...) in it", init)
            others = [b for name, bs in scope.bindings.items() for b in bs if name != "__init__"
                      and b.kind in ("def", "assign")]
            if others:
                raise Blocked(CODE, f"Estimator subclass {cls.name.value} defines `{others[0].name}`; only a "
                                    "subclass whose __init__ passes model_fn/config/params to the Estimator is "
                                    "converted", others[0].node)
            ref = FunctionRef(init, cfile)
            params = ref.params[1:]
            env, positional = [], 0
            for arg in call.args:
                if arg.star:
                    raise Blocked(CODE, f"{cls.name.value}(*args/**kwargs) cannot be mapped", call)
                name = arg.keyword.value if arg.keyword is not None else (params[positional] if positional < len(params) else None)
                if arg.keyword is None:
                    positional += 1
                if name is not None:
                    env.append((name, Value(arg.value, file)))
            for p in init.params.params[1:]:  # defaults of parameters the call does not pass
                if p.default is not None and p.name.value not in {k for k, _ in env}:
                    env.append((p.name.value, Value(p.default, cfile)))
            binding = next(b for b in cfile.top.bindings.get(cls.name.value, []) + scope.parent.bindings.get(
                cls.name.value, []) if b.node is cls)
            found = (binding, base_call, tuple(env), cfile)
        self.program.cache[key] = found
        return found

    def _site(self, call: cst.Call, file: FileIndex, tpu_path: str | None = None) -> None:
        # the Estimator's own argument errors, the model_fn's, the params' and the warm start's blockers are collected:
        # the Estimator's configuration and uses are analysed on (an unconverted Site that only they see), so that
        # their own blockers are reported too; what the failed arguments leave unknown is not checked
        own: list[Blocked] = []
        subclass, args, known = None, {}, True
        try:
            subclass = self._subclass_init(call, file) if tpu_path is None else None
        except Blocked as blocked:  # a subclass not converted: nothing is known of what it passes to the Estimator
            own.append(blocked)
            known = False
        tpu = None
        if tpu_path is not None:
            args, known = self._estimator_args(call, tpu_rules.ESTIMATOR, "TPUEstimator", file, own, rule=CODE_KIND)
            try:
                tpu = tpu_rules.check_estimator(self, args, call, file, tpu_path)
            except Blocked as blocked:  # not provably use_tpu=False: its uses are still a TPUEstimator's
                own.append(blocked)
                tpu = tpu_rules.TPUSite(dict.fromkeys(("train", "eval", "infer")), args.get("use_tpu"), False,
                                        frozenset())
        elif subclass is not None:
            binding, base_call, env, cfile = subclass
            args, known = self._estimator_args(base_call, ["self", *ESTIMATOR_ARGS] if _explicit_self(base_call)
                                               else ESTIMATOR_ARGS, "Estimator.__init__", cfile, own, env)
            args.pop("self", None)
        elif known:
            args, known = self._estimator_args(call, ESTIMATOR_ARGS, "Estimator", file, own)
        if "model_fn" not in args and known:
            own.append(Blocked(CODE, "Estimator(...) without model_fn: TF raised TypeError (model_fn is required); "
                                     "pass the model function as model_fn=...", call))
        warm_start, warm_trail = {}, []
        if "warm_start_from" in args and not is_literal(args["warm_start_from"].node, None):
            try:
                warm_start, warm_trail = self.warm_start(args["warm_start_from"])
            except Blocked as blocked:
                own.append(blocked)
        fn = factory = None
        fn_failed = []
        try:
            if "model_fn" in args:
                fn, factory = self._model_fn(args, call, file)
                if tpu is not None and factory is not None:  # `model_fn_builder(use_tpu=FLAGS.use_tpu)`
                    tpu_rules.factory_tests(self, args["model_fn"], factory[0], tpu)
        except Blocked as blocked:
            own.append(blocked)
        if fn is not None:
            self.model_fn_defs[id(fn.node)] = fn
        try:
            params_value, params = self._params(args, call, file, tpu)
        except Blocked as blocked:
            own.append(blocked)
            params_value, params = None, "{}"
        if fn is not None and tpu is None and params_value is not None and not is_literal(params_value.node, None):
            from ..model_fn import params_not_taken

            fn_failed = params_not_taken(fn.node, params_value.node)  # (about the model_fn's signature)
            own.extend(fn_failed)
        trail: list[Binding] = []
        unconverted: list[Blocked] = []
        try:
            run_config = self.run_config(args, call, file, trail, tpu=tpu, unconverted=unconverted)
        except Blocked as blocked:  # (a TPUEstimator without its RunConfig)
            own.append(blocked)
            run_config = {}
            known = False  # a RunConfig not read may well have a model_dir: the uses' checks of it are not made
        site = Site(call, file, fn, args["model_fn"].node if "model_fn" in args else call, params, params_value,
                    run_config)
        site.config_known = known
        site.model_fn_failed = bool(fn_failed)
        site.errors = unconverted
        site.tpu = tpu
        site.factory = factory
        site.consumed.extend(trail)
        site.consumed.extend(warm_trail)
        if factory is None and fn is not None:  # `fn = model_fn` / `fn = trainer.model.model_fn`: the def it names
            aliases = [b for b in fn.trail if b.kind == "assign"]  # becomes a builder
            site.consumed.extend(aliases)
            self.model_fn_aliases.update(id(b) for b in aliases)
        site.warm_start = warm_start
        if subclass is not None:
            site.consumed.append(subclass[0])
        self.strategy_or_default(site, site.errors)
        if site.errors:
            # analysed on as if without those settings (their blockers leave its files unchanged): its model_fn
            # and uses get their own diagnostics too
            self.errors.extend(site.errors)
        site.target = strategies.choose_target(self.options.target, site.strategy, call)
        if warm_start and site.strategy.parameter_server:
            own.append(Blocked(CODE, "warm_start_from under parameter servers is not converted yet (the weights are "
                                     "sharded over the ps tasks)", args["warm_start_from"].node))
        self._site_by_call[id(call)] = site
        if own:
            site.unconverted = True  # its uses are analysed (site_of finds it); nothing else sees it
            raise Blocked.many(own)
        entry = handed(site, self.program)
        if entry is not None:
            self.handed[id(call)] = entry
        self.sites.append(site)

    def _estimator_args(self, call: cst.Call, signature: list[str], what: str, file: FileIndex, own: list, env=(),
                        rule: str = CODE) -> tuple[dict[str, Value], bool]:
        """The arguments of an Estimator's construction, and whether every one is known. Its argument errors (each
        keyword it has no parameter for, too many positional arguments, `*args` / `**kwargs`) go to `own`; the
        arguments that are certain are still returned, for its configuration and uses to be analysed."""
        try:
            return bind_values(call, signature, what, file, env, rule=rule), True
        except Blocked:
            pass
        bound: dict[str, Value] = {}
        positional, starred = 0, None
        for arg in call.args:
            if arg.star:
                starred = starred or arg
            elif arg.keyword is not None:
                if arg.keyword.value in signature:
                    bound[arg.keyword.value] = Value(arg.value, file, env)
                else:
                    own.append(Blocked(rule, f"{what} has no argument '{arg.keyword.value}': TF raised TypeError "
                                             "for it, so the original does not run either; remove it (the "
                                             f"arguments are {_names(signature)})", arg))
            elif starred is None:
                if positional < len(signature):
                    bound[signature[positional]] = Value(arg.value, file, env)
                elif positional == len(signature):
                    own.append(Blocked(rule, f"{what}: too many positional arguments (TF raised TypeError): its "
                                             f"arguments are {_names(signature)}, in that order; pass each by "
                                             "keyword", arg))
                positional += 1
        if starred is not None:
            own.append(Blocked(rule, f"{what}({starred.star}{code(starred.value)}): tfmigrate cannot see which "
                                     f"arguments `{starred.star}{code(starred.value)}` holds; pass the Estimator's "
                                     "arguments by keyword",
                               starred))
        return bound, starred is None

    def _model_fn(self, args: dict[str, Value], call: cst.Call, file: FileIndex) -> tuple[FunctionRef, tuple | None]:
        """The Estimator's model_fn def, and its factory when it is a closure (else None)."""
        fn = self.program.function_of(args["model_fn"])
        forwarded = _forwarding_lambda(fn, self.program)
        if forwarded is not None:  # `lambda features, labels, mode: model_fn(features, labels, mode, n=10)`
            raise Blocked(CODE, f"model_fn=`{code(args['model_fn'].node)[:60]}` is a lambda that calls "
                                f"`{forwarded[0]}` with {forwarded[1]} bound besides its own parameters, as "
                                "functools.partial would: a model_fn with bound arguments is not converted yet; "
                                f"give `{forwarded[0]}` those values itself (defaults, module constants or params)",
                          args["model_fn"].node)
        # a method passed itself (`model_fn=self.model_fn`) is looked up at run time: said as such
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.file.scope_of(fn.node).kind == "class":
            method = _method_model_fn(args["model_fn"]) or object_method_message(args["model_fn"], self.program)
            if method is not None:
                raise Blocked(CODE, method, args["model_fn"].node)
            r = self.program.resolve(args["model_fn"])
            raise Blocked(CODE, f"model_fn=`{code(args['model_fn'].node)}`: {self.why(r, 'a function')}",
                          args["model_fn"].node)
        if fn.bound:
            raise Blocked(CODE, f"model_fn=`{code(args['model_fn'].node)}` binds {', '.join(fn.bound)} with "
                                "functools.partial; not converted yet", args["model_fn"].node)
        private = private_model_fn_call(fn.node)  # another Estimator's model_fn, run through private API
        if private is not None:
            raise Blocked(CODE, private_message(fn.node, private), private)
        factory = None
        if fn.file.scope_of(fn.node).kind != "module":
            factory = closure_factory(fn) or _same_function(fn, call, file)
            if factory is None:
                raise Blocked(CODE, f"model_fn `{fn.node.name.value}` is defined inside another function that does "
                                    "not simply return it; define it at module level or in a factory that ends "
                                    f"with `return {fn.node.name.value}`", fn.node)
        return fn, factory

    def _params(self, args: dict[str, Value], call: cst.Call, file: FileIndex, tpu) -> tuple[Value | None, str]:
        """The Estimator's params: (the value as written, its code where the Estimator is built)."""
        params_value = args.get("params")
        if params_value is not None and not is_literal(params_value.node, None):
            why: list = []
            params = self.program.render(params_value, call, file, why)
            if params is None:
                raise Blocked(CODE, f"params `{code(params_value.node)}` is not visible where the Estimator is "
                                    "built", params_value.node)
        else:
            params = "{}"
        if tpu is not None:  # what TPUEstimator added to the model_fn's copy of params on CPU
            params = tpu_rules.model_params(self, params, tpu, call, file)
        return params_value, params

    def warm_start(self, value: Value) -> tuple[dict[str, Value], list]:
        """Estimator(warm_start_from=path | WarmStartSettings(...)): what the generated loader needs."""
        r = self.program.resolve_choice(value, computes_tensor)  # set in an if/else's branches: as `A if c else B`
        node = r.node
        if r.ambiguous:
            raise Blocked(CODE, f"warm_start_from `{code(value.node)[:40]}`: {self.why(r, 'warm start')}", value.node)
        if isinstance(node, cst.IfExp) and (is_literal(node.body, None) or is_literal(node.orelse, None)):
            # `WarmStartSettings(...) if flag else None`: warm-start under the same condition
            settings, other = (node.orelse, node.body) if is_literal(node.body, None) else (node.body, node.orelse)
            found, trail = self.warm_start(Value(settings, r.value.file, r.value.env))
            found["if"] = Value(node.test, r.value.file, r.value.env)
            found["negate"] = other is node.body
            return found, trail + [b for b in r.trail if b.kind == "assign"]
        if isinstance(node, cst.IfExp):
            raise Blocked(CODE, "warm_start_from chosen between two settings by a condition is not converted yet",
                          value.node)
        if isinstance(node, cst.Call) and self.tf(node.func, r.value.file) == "estimator.WarmStartSettings":
            args = bind_values(node, WARM_START_ARGS, "WarmStartSettings", r.value.file, r.value.env)
            if "var_name_to_vocab_info" in args and not is_literal(args["var_name_to_vocab_info"].node, None):
                raise Blocked(CODE, "WarmStartSettings(var_name_to_vocab_info=...) is not converted: remapping "
                                    "vocabulary rows has no generated equivalent yet", args["var_name_to_vocab_info"].node)
            if "ckpt_to_initialize_from" not in args:
                raise Blocked(CODE, "WarmStartSettings without ckpt_to_initialize_from", node)
            if "vars_to_warm_start" in args and is_literal(args["vars_to_warm_start"].node, None):
                raise Blocked(CODE, "WarmStartSettings(vars_to_warm_start=None) warm-starts only vocabularies; not "
                                    "converted", args["vars_to_warm_start"].node)
            return ({k: v for k, v in args.items() if not is_literal(v.node, None)},
                    [b for b in r.trail if b.kind == "assign"])
        return {"ckpt_to_initialize_from": value}, []


def _method_model_fn(value: Value) -> str | None:
    """The message for `Estimator(self.model_fn, ...)` in a method: the model_fn is a method looked up on the object
    at run time (a subclass's override), which tfmigrate does not follow; None for other expressions."""
    node, file = value.node, value.file
    if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"):
        return None
    fn = file.enclosing_function(node)
    cls = file.parent(fn) if fn is not None else None
    if isinstance(cls, cst.IndentedBlock):
        cls = file.parent(cls)
    if not isinstance(cls, cst.ClassDef):
        return None
    name, owner = node.attr.value, cls.name.value
    found = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
    head = f"model_fn=`self.{name}` is a method of the object, looked up at run time"
    how = ("tfmigrate converts a model_fn that is a function (module level, or returned by a factory); pass the "
           "Estimator that function, or run tfmigrate on a program that does")
    if found is None:
        return f"{head}: class `{owner}` does not define `{name}` (a subclass or the object's owner does); {how}"
    body = [s for s in found.body.body if not _docstring_statement(s)]
    abstract = len(body) == 1 and (
        isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], (cst.Raise, cst.Pass))
        or isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, cst.Ellipsis))
    if abstract:
        return (f"{head}: `{owner}.{name}` only raises (or passes), so the model_fn that trains is a subclass's "
                f"override, chosen by the object's class; {how}")
    return f"{head} (`{owner}.{name}`, which a subclass may override); {how}"


def _docstring_statement(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def closure_factory(fn: FunctionRef):
    """(factory def, its return statement) when `fn` is a def nested in a factory whose only return is
    `return <fn>`: the model is then built inside the factory, where the closure's names are."""
    scope = fn.file.scope_of(fn.node)
    if scope.kind != "function" or scope.parent is None:
        return None
    returns = scope.returns
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Name) or returns[0].value.value != fn.node.name.value:
        return None
    if fn.file.scope_of(scope.node).kind != "module" and fn.file.scope_of(scope.node).kind != "class":
        return None
    return scope.node, returns[0]


def _same_function(fn: FunctionRef, call: cst.Call, file: FileIndex):
    """(enclosing def, None) when the model_fn is defined in the function that also builds the Estimator (at any
    depth below it): the model is built there, under the name the builder gets."""
    outer = fn.file.scope_of(fn.node)
    if fn.file is not file or outer.kind != "function":
        return None
    scope = file.scope_of(call)
    while scope is not None and scope is not outer:
        scope = scope.parent
    if scope is None or file.orders.get(id(fn.node), 0) > file.orders.get(id(call), 0):
        return None
    return outer.node, None


def _explicit_self(call: cst.Call) -> bool:
    """`tf.estimator.Estimator.__init__(self, ...)` passes self; `super().__init__(...)` does not."""
    return not (isinstance(call.func.value, cst.Call) and isinstance(call.func.value.func, cst.Name)
                and call.func.value.func.value == "super")


def _names(signature: list[str]) -> str:
    """`a`, `b`, `c`: a signature's parameters, `self` left out."""
    return ", ".join(f"`{n}`" for n in signature if n != "self")


def _forwarding_lambda(fn: FunctionRef | None, program) -> tuple[str, str] | None:
    """(the def's name, the arguments it binds) for a lambda model_fn whose body calls a def of the run with the
    lambda's parameters and more; None otherwise."""
    if fn is None or not isinstance(fn.node, cst.Lambda) or not isinstance(fn.node.body, cst.Call):
        return None
    body = fn.node.body
    inner = program.function_of(Value(body.func, fn.file))
    if inner is None or not isinstance(inner.node, cst.FunctionDef):
        return None
    own = {p.name.value for p in fn.node.params.params}
    extra = [a for a in body.args if not (isinstance(a.value, cst.Name) and a.value.value in own)]
    if not extra:
        return None
    named = ", ".join(f"`{a.keyword.value}`" if a.keyword is not None else f"`{code(a.value)[:30]}`" for a in extra)
    return inner.node.name.value, named
