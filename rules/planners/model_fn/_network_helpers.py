"""Network helpers: a function of the model_fn's module (or a def in the model_fn) that builds layers, inlined
where the model_fn calls it, as TF1 ran it in the model_fn's graph."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from .. import layers
from ._constants import CODE
from ._helper_results import result_renames, result_statements, scoped_return
from ._names import calls_in, names_and_assign_counts, parenthesized, rename_names, substitute
from ._syntax import docstring_of, has_return, static_value
from ._variable_makers import makes_variables


class NetworkHelpersMixin:
    """Network helpers, inlined."""

    def nested_def(self, stmt: cst.FunctionDef) -> None:
        """`def block(x, n): return tf.compat.v1.layers.dense(x, n, ...)` inside the model_fn: a network helper like a
        module-level one, inlined where it is called (its free names are the model_fn's, as in the closure); the
        def goes with the model_fn."""
        name = stmt.name.value
        if self.active != self.live or self.loop is not None:
            raise Blocked(CODE, f"`def {name}` inside a branch or loop of the model_fn is not converted: define it at "
                                "the top of the model_fn", stmt)
        if stmt.decorators or stmt.asynchronous is not None:
            raise Blocked(CODE, f"`def {name}` in the model_fn has decorators or is async: not converted", stmt)
        if self.assign_counts.get(name) or name in self.nested_helpers or name in self.locals:
            raise Blocked(CODE, f"`{name}` is bound more than once in the model_fn: its nested def is not converted",
                          stmt)
        if not self._helper_builds(stmt, set()):
            raise Blocked(CODE, f"`def {name}` inside the model_fn builds no layers: only network helpers (functions "
                                "that build layers) are converted there; move it to module level", stmt)
        self.helpers[name] = stmt  # shadows a module-level function of the same name, as Python does
        self.nested_helpers.add(name)
        self.pending_leading.extend(line for line in stmt.leading_lines if line.comment is not None)

    def layer_helper(self, value) -> cst.FunctionDef | None:
        """`net(features, ...)` calling a function of this module that builds layers (directly or through another
        such function): a network helper, whose statements are the model's."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        fn = self.helpers.get(value.func.value)
        if fn is None or value.func.value in self.locals or value.func.value in self.assign_counts:
            return None
        try:
            if self.model_helper(value) is not None:  # `build_model()` returning a Keras model: keras_model()
                return None
        except Blocked:  # a Keras model built from parameters: inlined, its arguments then known
            pass
        return fn if self._helper_builds(fn, set()) else None

    def nested_layer_helper(self, value) -> None:
        """A network helper called inside an expression (`tf.nn.relu(block(x))`) builds layers there in TF1; only
        `target = helper(...)` is inlined, and kept as a plain call its variables (get_variable) would be made
        again on every call, untrained: blocked (the model-mapping shim, planners/shim.py, runs it as written)."""
        calls = calls_in(value)
        callees = {id(c.func) for c in calls}  # `build_model()(x)`: a model helper, not a tensor argument
        for call in calls:
            name = call.func.value if isinstance(call.func, cst.Name) else None
            if call is value or id(call) in callees or name not in self.helpers or name in self.locals:
                continue
            if self._helper_builds(self.helpers[name], set()):
                raise Blocked(CODE, f"{name}() builds layers and is called inside an expression: not converted; "
                                    f"assign its result first (`x = {name}(...)`)", call)

    def _helper_builds(self, fn: cst.FunctionDef, seen: set[str]) -> bool:
        seen.add(fn.name.value)
        found = False
        for call in calls_in(fn.body):  # (every call looked at, in walk order: `seen` grows as it did)
            path = self.tf(call)
            if layers.kind_of(path) or path in ("get_variable", "variable_scope") or (path and makes_variables(path)):
                found = True
            elif isinstance(call.func, cst.Name) and call.func.value in self.helpers \
                    and call.func.value not in seen and self._helper_builds(self.helpers[call.func.value], seen):
                found = True
        return found

    def inline_helper(self, target: str | tuple[str, ...], call: cst.Call, fn: cst.FunctionDef, stmt) -> None:
        """`target = net(args)`: the helper's body runs here, as TF1 ran it inside the model_fn (each call builds its
        own layers, named in call order): `param = arg` for each parameter, its statements, then `target = <its
        return value>`. Its locals are renamed `<helper>_<name>` where the model_fn uses the name too. A tuple of
        targets takes the helper's returned tuple element by element (_helper_results)."""
        name = fn.name.value
        if self.loop is not None:
            raise Blocked(CODE, f"{name}() builds layers and is called in a loop: not converted (TF1 built new layers "
                                "on every call); call it once per tower outside the loop", stmt)
        if name in self.inlining or len(self.inlining) > 8:
            raise Blocked(CODE, f"{name}() calls itself: a recursive network helper is not converted", stmt)
        p = fn.params
        if p.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or p.star_kwarg is not None or p.posonly_params:
            raise Blocked(CODE, f"{name}() takes *args/**kwargs or positional-only parameters: its layers are not "
                                "converted; give it plain parameters", fn)
        params = [*p.params, *p.kwonly_params]
        args: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            if arg.star:
                raise Blocked(CODE, f"{name}(*...) / {name}(**...) is not converted: pass its arguments one by one",
                              call)
            if arg.keyword is not None:
                args[arg.keyword.value] = arg.value
            elif i < len(p.params):
                args[p.params[i].name.value] = arg.value
            else:
                raise Blocked(CODE, f"{name}() gets more positional arguments than it takes", call)
        missing = [q.name.value for q in params if q.name.value not in args and q.default is None]
        unknown = set(args) - {q.name.value for q in params}
        if missing or unknown:
            raise Blocked(CODE, f"{name}() call does not match its parameters ({', '.join(missing or unknown)})", call)
        body = list(fn.body.body)
        if body and docstring_of(body[0]) is not None:
            body = body[1:]
        last = body[-1] if body else None
        ret = last.body[0] if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 else None
        scoped = scoped_return(body) if isinstance(target, tuple) else None  # (single targets: the shim's case)
        if scoped is not None:
            ret = scoped[2]
            if has_return(scoped[1]):
                raise Blocked(CODE, f"{name}() returns before its last statement: not converted", fn)
        if not isinstance(ret, cst.Return) or ret.value is None:
            ends = f"`return` of a tuple of {len(target)} values" if isinstance(target, tuple) else "`return <tensor>`"
            raise Blocked(CODE, f"{name}() is converted when it ends with {ends}", fn)
        if has_return(body[:-1]):
            raise Blocked(CODE, f"{name}() returns before its last statement: not converted", fn)
        helper_names, counts = names_and_assign_counts(fn)
        local = {q.name.value for q in params} | set(counts)
        same = {q for q, a in args.items() if isinstance(a, cst.Name) and a.value == q and not counts.get(q)}
        taken = set(self.fn_names) | self.module_names | {self.params}
        returned = result_renames(target, ret.value, counts, helper_names, {q.name.value for q in params}) \
            if isinstance(target, tuple) else {}
        renames = dict(returned)
        for n in sorted(local - same):
            if n in taken and n not in renames:
                new, i = f"{name}_{n}", 1
                while new in taken | helper_names | set(renames.values()):
                    i += 1
                    new = f"{name}_{n}_{i}"
                renames[n] = new
        values = {q.name.value: args.get(q.name.value, q.default) for q in params if q.name.value not in same}
        # a value __init__ can see too (literals, params, module names: `units=params["units"]`, `tf.nn.relu`) is
        # written where the parameter is read, so layer arguments stay constructor arguments; tensors are assigned
        visible = set(self.module_names | {self.params} | set(self.statics))
        static = {q: v for q, v in values.items() if not counts.get(q) and static_value(v, visible)}
        values = {q: v for q, v in values.items() if q not in static}
        lines = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(renames.get(q, q)))], v)])
                 for q, v in values.items()]
        rename = {k: v for k, v in renames.items() if k not in static}

        def inline(node):
            node = substitute(node, {q: parenthesized(v) for q, v in static.items()}) if static else node
            return rename_names(node, rename) if rename else node

        statements = [(inline(b), b) for b in body[:-1]]
        result = inline(ret.value)
        targets = target if isinstance(target, tuple) else (target,)
        results = (result_statements(name, target, ret.value, inline, stmt) if isinstance(target, tuple) else
                   [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], result)])])
        if scoped is not None:  # the values assigned at the end of the helper's last `with`, as TF1 returned there
            with_stmt, inner, _ = scoped
            results = [with_stmt.with_changes(items=[inline(i) for i in with_stmt.items], body=with_stmt.body.with_changes(
                body=[*[inline(b) for b in inner], *results]))]
        statements.extend((line, last) for line in results)
        comment = cst.EmptyLine(comment=cst.Comment(f"# {name}(...), inlined: its layers are this model's"))
        pieces = [(ln, stmt) for ln in lines] + statements
        own = [line for line in fn.leading_lines if line.comment is not None]  # `# Define the network` above the def
        self.pending_leading.extend([*stmt.leading_lines, *own, comment])  # above the next statement call() keeps
        self.fn_names = self.fn_names | set(rename.values()) | local | set(targets)
        for n in [*values, *counts]:
            key = rename.get(n, n)
            self.assign_counts[key] = self.assign_counts.get(key, 0) + (counts.get(n, 0) or 1)
        for t in returned.values():  # the helper's assignment of it stands for the unpacking's, counted already
            self.assign_counts[t] -= 1
        written = {id(new_stmt): original for new_stmt, original in pieces}

        def inlined(new_stmt) -> None:
            original = written[id(new_stmt)]
            try:
                self.statement(new_stmt)
            except Blocked as blocked:  # point at the helper's own line (a renamed copy has no position)
                raise Blocked.many([e if "inlines)" in e.message else  # already said by a helper this one calls
                                    Blocked(e.code, f"{e.message} (in {name}(), which the model_fn calls and "
                                                    "tfmigrate inlines)",
                                            e.node if new_stmt is original and e.node is not None else original)
                                    for e in blocked.errors]) from None

        self.inlining.append(name)
        tainted: set[str] = set()
        try:  # each statement's blockers, as in the model_fn's own body
            errors = self.each([new_stmt for new_stmt, _ in pieces], inlined, tainted)
        finally:
            self.inlining.pop()
        if errors:
            raise Blocked.many(errors)
        if fn not in self.inlined_helpers and self.helpers.get(name) is fn and name not in self.nested_helpers:
            self.inlined_helpers.append(fn)
