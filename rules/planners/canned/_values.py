"""Values of a canned estimator's arguments read from the source: expressions carried into the generated code
(or its params), literals and constants, sequences (displays, comprehensions, loops that append)."""
from __future__ import annotations

import re

import libcst as cst

from tfmigrate import choices
from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Binding, FileIndex, Value, code

from .. import feature_columns as fcols
from ...facts import column_classes
from ...facts.calls import literal
from ._model import CODE, CODE_COLUMNS
from ._per_pass import per_pass_text


_BUILTIN_SEQUENCES = ("list", "tuple", "sorted", "set", "reversed")


def _v2_advice(param: str, name: str) -> str:
    """What to test instead of TF 1's concrete class `name`: the TF 2 class of that kind (what TF 1.x's test kept)."""
    v2 = column_classes.V2_OF.get(name)
    if v2 is None:
        return "list the columns"
    return (f"test the TF 2 class of that kind instead: `isinstance({param}, feature_column_v2.{v2})` (from "
            "tensorflow.python.feature_column import feature_column_v2)")


def _tests_isinstance(cond, name: str) -> bool:
    """Whether `cond` holds an `isinstance(name, ...)` call (a test of the loop's item's class)."""
    import libcst.matchers as m

    return bool(m.findall(cond, m.Call(func=m.Name("isinstance"), args=[m.Arg(m.Name(name)), m.Arg()])))


class SourceValuesMixin:
    """Reader: static and carried values."""

    # ---- carried expressions ------------------------------------------------------------------------------------
    def carry(self, key: str, value: Value) -> str:
        """Code for `value` in the generated module-level code: written out where it means the same there, else
        passed in the builder's params from the Estimator's place."""
        text = self.program.render(value, self.anchor, self.file)
        if text is not None:
            return text
        why: list = []
        text = self.program.render(value, self.call, self.file, why)
        if text is None:
            name = why[0].value if why else code(value.node)
            raise Blocked(CODE, f"{key}=`{code(value.node)[:60]}` uses `{name}`, which tfmigrate cannot follow to "
                                "where the Estimator is built; pass the value explicitly", value.node)
        self.params[key] = text
        return f'params["{key}"]'

    def runtime_value(self, key: str, value: Value, check: str) -> str:
        """A column argument known only at run time, for the model: `check` (generated code, `{}` the value) of the
        value computed where the Estimator is built, in the builder's params (the column was built before it, on the
        same value, as runtime_keys passes a loop's keys). Blocked when the value is not visible there."""
        why: list = []
        text = self.program.render(value, self.call, self.file, why)
        if text is None and why:  # a loop building one column per pass: each pass's own value (_per_pass.py)
            text = per_pass_text(self, value)
        if text is None:
            name = why[0].value if why else code(value.node)
            loop = self.rebinding_loop(why[0]) if why else None
            if loop is not None:
                loop_node, loop_file = loop
                head = code(loop_node).split("\n")[0].strip()
                before = (f"`{name}` takes a new run-time value on each pass of the loop at line "
                          f"{self.analysis.line(loop_node, loop_file)} (`{head[:60]}`), one per column built there; "
                          "the migrated model reads run-time column values where the ").replace("{", "{{").replace(
                    "}", "}}")
                after = (f"where `{name}` holds the last pass's value only: write each column's value as a literal (or "
                         "an expression over constants), or build the columns where the Estimator is built").replace(
                    "{", "{{").replace("}", "}}")
                # a column shared by several Estimators: one blocker naming each of them (Blocked.many)
                error = Blocked.at_places(CODE_COLUMNS, before + "Estimator is built (line {places}), " + after,
                                          before + "Estimators are built (lines {places}), " + after,
                                          str(self.analysis.line(self.call, self.file)), value.node)
                error.loop = True
                raise error
            raise Blocked(CODE_COLUMNS, f"`{code(value.node)[:60]}` uses `{name}`, which tfmigrate cannot follow to "
                                        "where the Estimator is built; build the column there or pass the value "
                                        "explicitly", value.node)
        base, n = key, 1
        while key in self.params:
            n += 1
            key = f"{base}_{n}"
        self.params[key] = check.replace("{}", text, 1)  # the first {}: a message may hold more
        return f'self.params["{key}"]'

    def rebinding_loop(self, name: cst.Name):
        """(the loop, its file) when `name` could not be rendered at the Estimator because a loop re-binds it."""
        from tfmigrate.model import rebinding_loop

        file = self.program.file_of(name)
        if file is None:
            return None
        loop = rebinding_loop(name, self.program.lookup(name.value, name, file), file, self.call, self.file)
        return (loop, file) if loop is not None else None

    def removable(self) -> list[Binding]:
        """Assignments and helpers that only fed static values to the model: they go if nothing else reads them."""
        from ...facts.sites import deletable, statement_bindings

        out, seen = [], set()
        for b in self.trail:
            if id(b) in seen or b.kind not in ("assign", "def") or b.unpack:
                continue
            seen.add(id(b))
            file = b.scope.file
            if b.scope.kind == "module" and self.named_elsewhere(b.name, file):
                continue  # another file of the program may import it: it stays
            if deletable(b.statement) and len(statement_bindings(b.statement, file)) == 1:
                out.append(b)
        return out

    def named_elsewhere(self, name: str, file: FileIndex) -> bool:
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        return any(other is not file and pattern.search(other.module.code) for other in self.program.files)

    # ---- static values --------------------------------------------------------------------------------------------
    def resolve(self, value: Value, what: str, rule: str = CODE_COLUMNS):
        r = self.program.resolve(value)
        if r.ambiguous:
            raise Blocked(rule, f"{what}: {self.analysis.why(r, 'value')}", value.node)
        self.trail.extend(b for b in r.trail if b.kind in ("assign", "def"))
        return r

    def literal(self, value: Value, what: str, rule: str = CODE_COLUMNS):
        r = self.resolve(value, what, rule)
        node = r.node
        if isinstance(node, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
            return [self.literal(Value(e.value, r.value.file, r.value.env), what, rule) for e in node.elements]
        try:
            return literal(node)
        except ValueError:
            pass
        try:  # an expression over the program's constants, as Python evaluated it: `list(range(24))`, `int(1e4)`
            return fcols.ColumnReader(self).constant(value, what)
        except Blocked:
            name = r.stopped_at.name.value if isinstance(r.stopped_at, cst.Param) else ""
            unfollowed = self.analysis._unfollowed_parameter(r, name, f"{what}'s value") if name else None
            if unfollowed:  # `n_classes=classes`, a parameter of a helper called nowhere in the run (or from several)
                raise Blocked(rule, f"{what} `{code(value.node)[:60]}`: {unfollowed}", value.node) from None
            raise Blocked(rule, f"{what} `{code(value.node)[:60]}` is not a value tfmigrate can read from the source "
                                "(a literal, a name assigned one once, or an expression over such values)",
                          value.node) from None

    def integer(self, value: Value | None, default: int, what: str) -> int:
        if value is None:
            return default
        try:
            got = self.literal(value, what, CODE)
        except Blocked as blocked:  # an expression over the program's constants: `len(TARGETS)`, `N + 1`
            try:
                got = fcols.ColumnReader(self).constant(value, what)
            except Blocked:
                got = self._length(value, what)
                if got is None:
                    raise blocked from None
        if not isinstance(got, int) or isinstance(got, bool):
            raise Blocked(CODE, f"{what} must be an integer tfmigrate can read from the source", value.node)
        return got

    def _length(self, value: Value, what: str) -> int | None:
        """`len(X)` where X is a sequence written in the source, possibly another module's constant
        (`len(metadata.TARGET_LABELS)`: an attribute the constant evaluator does not follow), or None."""
        r = self.program.resolve(value)
        node = r.node
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len"
                and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
                and not self.program.lookup("len", node.func, r.value.file)):
            return None
        arg = Value(node.args[0].value, r.value.file, r.value.env)
        try:
            fcols.ColumnReader(self).unchanged(self.program.resolve(arg), what, arg)  # no `X.append(...)` later
            got = self.literal(arg, what, CODE)
        except Blocked:
            return None
        return len(got) if isinstance(got, (list, tuple, str, dict)) else None

    def items(self, value: Value, what: str) -> list[Value]:
        """The elements of a sequence written in the source (displays, comprehensions, loops that append)."""
        before = len(self.trail)
        r = self.resolve(value, what)
        if r.trail and r.trail[-1].kind == "augassign":  # `cols += [...]` after `cols = [...]`
            last = r.trail[-1]
            if len(self.trail) > before:  # the `+=` itself is never in the trail: `COLS` read directly adds nothing
                self.trail.pop()  # (its statement stays: the helper holding it goes whole or not at all)
            return self.augmented(last, r.value.env if r.value.file is last.scope.file else (), what)
        node, file, env = r.node, r.value.file, r.value.env
        here = lambda n: Value(n, file, env)  # noqa: E731
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            out = []
            for el in node.elements:
                out.extend(self.items(here(el.value), what) if isinstance(el, cst.StarredElement) else [here(el.value)])
            return out + self.appended(r, what, value)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self.comprehension(node, node.elt, file, env, what)
        if isinstance(node, (cst.Dict, cst.DictComp)):
            return self.dict_part(r, "keys", what, value.node)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self.items(here(node.left), what) + self.items(here(node.right), what)
        if isinstance(node, cst.Call):
            func = node.func
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if isinstance(func, cst.Name) and func.value in _BUILTIN_SEQUENCES and len(node.args) == 1 \
                    and positional and not self.program.lookup(func.value, func, file):
                return self.items(here(positional[0].value), what) + self.appended(r, what, value)
            if isinstance(func, cst.Name) and func.value in ("list", "tuple") and not node.args \
                    and not self.program.lookup(func.value, func, file):  # `list()`: an empty list, as `[]` is
                return self.appended(r, what, value)
            if isinstance(func, cst.Name) and func.value == "range" and node.args and len(positional) == len(node.args) \
                    and not self.program.lookup("range", func, file):
                bounds = [self.literal(here(a.value), what) for a in positional]
                return [Value(cst.Integer(str(i)), file) for i in range(*bounds)]
            if isinstance(func, cst.Attribute) and func.attr.value in ("keys", "values", "items") and not node.args:
                inner = self.resolve(Value(func.value, file, env), what)
                return self.dict_part(inner, func.attr.value, what, value.node)
            if isinstance(func, cst.Name) and func.value == "filter" and len(positional) == len(node.args) == 2 \
                    and not self.program.lookup("filter", func, file):
                return self.column_filter(node, file, env, what)
        if isinstance(node, cst.Call) and (path := self.analysis.tf(node, file)):
            fcols.blocked_kind(path, node)  # shared_embeddings: a list of columns, not converted
        unpacked = r.trail[-1] if r.trail and r.trail[-1].unpack and r.stopped_at is r.trail[-1].node else None
        if unpacked is not None and isinstance(unpacked.value, cst.Call):  # `_, deep = model_column_fn()`
            call = unpacked.value
            raise Blocked(CODE_COLUMNS, f"{what}: `{code(value.node)[:60]}` is unpacked from `{code(call)[:60]}`, "
                                        "whose function tfmigrate cannot follow (a parameter, a partial, several "
                                        "return statements): call the function that builds the "
                                        "columns by its name where the Estimator is built, so the column names "
                                        "(the input layer's order) can be read", value.node)
        raise Blocked(CODE_COLUMNS, f"{what}: `{code(value.node)[:60]}` is not a list tfmigrate can read from the "
                                    "source (names known only at run time); the input layer's order is the sorted "
                                    "column names, so list the names in the program", value.node)

    def column_filter(self, node: cst.Call, file: FileIndex, env, what: str) -> list[Value]:
        """`filter(lambda c: isinstance(c, feature_column._DenseColumn), columns)` over columns written in the source:
        the columns whose kind is an instance of the tested TF 1 class on TF 2.15 (facts/column_classes.py)."""
        test, seq = node.args[0].value, node.args[1].value
        params = test.params.params if isinstance(test, cst.Lambda) else ()
        if len(params) != 1 or isinstance(test.params.star_arg, cst.Param) or test.params.kwonly_params:
            raise Blocked(CODE_COLUMNS, f"{what}: only `filter(lambda column: isinstance(column, ...), columns)` "
                                        "over columns is read", node)
        param = params[0].name.value

        def holds(expr, kinds: tuple[str, ...]) -> bool:  # the test's value for a column of these classes
            return self.column_test(expr, kinds, param, file, what, "filter")

        holds(test.body, ())  # the test read first: a concrete class is blocked whatever the columns
        kept = []
        for item in self.items(Value(seq, file, env), what):
            if holds(test.body, self.column_kinds(item, what)):
                kept.append(item)
        return kept

    def column_test(self, expr, kinds: tuple[str, ...], param: str, file: FileIndex, what: str, kind: str) -> bool:
        """The value of an isinstance test of `param` (with |, &, or, and, not) for a column of classes `kinds`
        (facts/column_classes.py); `kind` names the construct in messages (a filter, a comprehension's `if`)."""
        def holds(expr) -> bool:
            if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitOr, cst.BitAnd)):
                left, right = holds(expr.left), holds(expr.right)
                return left | right if isinstance(expr.operator, cst.BitOr) else left & right
            if isinstance(expr, cst.BooleanOperation):
                left, right = holds(expr.left), holds(expr.right)
                return (left or right) if isinstance(expr.operator, cst.Or) else (left and right)
            if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
                return not holds(expr.expression)
            args = expr.args if isinstance(expr, cst.Call) else ()
            if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "isinstance" \
                    and len(args) == 2 and isinstance(args[0].value, cst.Name) and args[0].value.value == param:
                name = column_classes.class_name(self.program.qualified(args[1].value, file))
                if name in column_classes.CONCRETE:
                    raise Blocked(CODE_COLUMNS, f"{what}: `isinstance({param}, {code(args[1].value)})` is False for "
                                                "every column tf.feature_column builds on TF 2 (they are "
                                                "feature_column_v2 classes, subclasses of the abstract TF 1 classes "
                                                f"only), so this {kind} keeps none on TF 2.15 where TF 1.x kept its "
                                                f"kind; {_v2_advice(param, name)}", args[1].value)
                if name is not None:
                    return name in kinds
            raise Blocked(CODE_COLUMNS, f"{what}: the {kind}'s test `{code(expr)[:60]}` is not read (only "
                                        "isinstance tests of TF 1's feature-column classes, with |, &, or, and, not)",
                          expr)

        return holds(expr)

    def column_kinds(self, item: Value, what: str) -> tuple[str, ...]:
        """The classes (facts/column_classes.py) of the column `item` is, known from the call that built it."""
        r = self.resolve(item, what)
        path = self.analysis.tf(r.node, r.value.file) if isinstance(r.node, cst.Call) else None
        kind = path.rpartition(".")[2] if path and path.startswith("feature_column.") else None
        if kind not in column_classes.INSTANCE_OF:
            raise Blocked(CODE_COLUMNS, f"{what}: `{code(item.node)[:60]}` is not a column tfmigrate knows the "
                                        "class of, so the isinstance test cannot be read", item.node)
        return column_classes.INSTANCE_OF[kind]

    def augmented(self, last: Binding, env, what: str) -> list[Value]:
        """`cols = [...]` then `cols += [...]` in the same block (a list extended in place), `last` the final `+=`:
        every part's items, in order."""
        file = last.scope.file
        found = sorted((b for b in last.scope.bindings.get(last.name, []) if b.order <= last.order),
                       key=lambda b: b.order)
        first = found[0]
        if first.kind != "assign" or first.value is None or first.unpack:
            raise Blocked(CODE_COLUMNS, f"{what}: `{last.name} += ...` extends a list tfmigrate cannot read (only one "
                                        "assigned a list once, then extended with `+=` in the same block)", last.node)
        out = self.items(Value(first.value, file, env), what)
        for b in found[1:]:
            aug = file.parent(b.node)
            if b.kind != "augassign" or not isinstance(aug, cst.AugAssign) or \
                    not isinstance(aug.operator, cst.AddAssign) or b.block != first.block:
                raise Blocked(CODE_COLUMNS, f"{what}: `{b.name}` is changed here in a way tfmigrate does not read "
                                            "(only `+=` in the block that assigns the list)", b.node)
            out += self.items(Value(aug.value, file, env), what)
        return out

    def dict_part(self, r, part: str, what: str, shown: cst.CSTNode) -> list[Value]:
        node, file, env = r.node, r.value.file, r.value.env
        if isinstance(node, cst.Dict):
            if any(isinstance(e, cst.StarredDictElement) for e in node.elements):
                raise Blocked(CODE_COLUMNS, f"{what}: `**` in a dict of columns is not read", node)
            if part == "items":  # `for key, size in HASH_KEYS.items()`: each entry as a (key, value) pair
                out = [Value(cst.Tuple([cst.Element(e.key), cst.Element(e.value)]), file, env) for e in node.elements]
            else:
                out = [Value(e.key if part == "keys" else e.value, file, env) for e in node.elements]
            if r.trail and r.trail[-1].kind == "assign" and r.trail[-1].value is node:
                self.mutations(r.trail[-1], what, "dict")
            return out
        if isinstance(node, cst.DictComp) and part != "items":
            if r.trail and r.trail[-1].kind == "assign" and r.trail[-1].value is node:
                self.mutations(r.trail[-1], what, "dict")
            return self.comprehension(node, node.key if part == "keys" else node.value, file, env, what)
        raise Blocked(CODE_COLUMNS, f"{what}: `{code(shown)[:60]}` is not a dict tfmigrate can read from the source "
                                    "(names known only at run time); the input layer's order is the sorted column "
                                    "names, so list the names in the program", shown)

    def comprehension(self, node, elt, file: FileIndex, env, what: str) -> list[Value]:
        for_in = node.for_in
        if for_in.inner_for_in is not None or for_in.asynchronous:
            raise Blocked(CODE_COLUMNS, f"{what}: only a comprehension with one `for` is read", node)
        envs = self.loop_envs(for_in.target, for_in.iter, file, env, what)
        for cond in (c.test for c in for_in.ifs):  # `if` over data the source gives: each item's test read
            kept = []
            for e in envs:
                keep = choices.truth(self.program, cond, file, e)
                if keep is None and isinstance(for_in.target, cst.Name) and _tests_isinstance(cond, for_in.target.value):
                    # `[c for c in columns if isinstance(c, NumericColumn) or ...]`: each column's class is known
                    # from the call that built it
                    item = next(v for n, v in e if n == for_in.target.value)
                    if id(item.node) in self.runtime:  # columns known only at run time: why the list is not read
                        self.items(Value(for_in.iter, file, env), what)
                    keep = self.column_test(cond, self.column_kinds(item, what), for_in.target.value, file, what,
                                            "comprehension")
                if keep is None:
                    raise Blocked(CODE_COLUMNS, f"{what}: the comprehension's `if {' '.join(code(cond).split())[:60]}` is not known from "
                                                "the source for each item (only tests of literals, module constants "
                                                "and the loop's own items are read); list the columns it keeps", cond)
                if keep:
                    kept.append(e)
            envs = kept
        return [Value(elt, file, e) for e in envs]

    def loop_envs(self, target, iterable, file: FileIndex, env, what: str) -> list[tuple]:
        """One environment per iteration of `for target in iterable` (names bound to the items' expressions). Over
        an iterable known only at run time (`train_x.keys()`), one environment whose name stands for every key."""
        envs = []
        try:
            items = self.items(Value(iterable, file, env), what)
        except Blocked:
            if not isinstance(target, cst.Name):
                raise
            key = cst.Name("__tfmigrate_runtime_key__")  # a fresh placeholder: the key of each iteration
            self.runtime[id(key)] = Value(iterable, file, env)
            return [((target.value, Value(key, file)), *env)]
        for item in items:
            if isinstance(target, cst.Name):
                envs.append(((target.value, item), *env))
                continue
            r = self.resolve(item, what)
            names = [e.value for e in getattr(target, "elements", [])]
            values = getattr(r.node, "elements", None)
            if not all(isinstance(n, cst.Name) for n in names) or values is None or len(values) != len(names):
                raise Blocked(CODE_COLUMNS, f"{what}: the loop target `{code(target)}` is not read", target)
            envs.append((*((n.value, Value(v.value, r.value.file, r.value.env)) for n, v in zip(names, values)), *env))
        return envs

    def appended(self, r, what: str, read: Value) -> list[Value]:
        """The items appended to the list `r` resolved to, when it is a name's assigned value (`cols = [...]`,
        `cols = list(other)`, `cols = list()`), before `read` reads it; a copy changes only the new list."""
        if r.trail and r.trail[-1].kind == "assign" and r.trail[-1].value is r.node:
            return self.mutations(r.trail[-1], what, "list", read)
        return []

    def mutations(self, binding: Binding, what: str, kind: str, read: Value | None = None) -> list[Value]:
        """Items added after `name = [...]`: `name.append(x)` / `name.extend(xs)`, also in `for` loops over
        readable values. Other changes to the list or dict block, and so does an append written after `read` (where
        a copy `list(name)` or the Estimator reads the list: TF1 took the items it had there, or, a v1 canned
        Estimator, when training started)."""
        file = binding.scope.file
        out = []
        for load in file.loads_of(self.program, binding):
            parent = file.parent(load)
            if isinstance(parent, cst.Attribute) and parent.value is load:
                grand = file.parent(parent)
                method = parent.attr.value
                if kind == "list" and method in ("append", "extend") and isinstance(grand, cst.Call) \
                        and grand.func is parent and len(grand.args) == 1 and not grand.args[0].star:
                    if read is not None and read.file is file \
                            and file.orders.get(id(grand), -1) > file.orders.get(id(read.node), 1 << 62):
                        raise Blocked(CODE_COLUMNS, f"{what}: `{binding.name}.{method}(...)` runs after the list is "
                                                    "read (copied with list(...), or given to the Estimator); which "
                                                    "items TF1 saw depends on when each ran: move it before that "
                                                    "point", grand)
                    for env in self.enclosing_loops(grand, binding, what):
                        arg = Value(grand.args[0].value, file, env)
                        out.extend([arg] if method == "append" else self.items(arg, what))
                    continue
                if method in ("keys", "values", "items", "get", "copy", "index", "count"):
                    continue
                raise Blocked(CODE_COLUMNS, f"{what}: `{binding.name}.{method}(...)` changes the columns in a way "
                                            "tfmigrate does not read", parent)
            if isinstance(parent, cst.Subscript) and isinstance(file.parent(parent), (cst.AssignTarget, cst.Del)):
                raise Blocked(CODE_COLUMNS, f"{what}: an item of `{binding.name}` is assigned; not read", parent)
        return out

    def enclosing_loops(self, call: cst.Call, binding: Binding, what: str) -> list[tuple]:
        """The environments an `append` runs in: one per iteration of the `for` loops around it (no ifs)."""
        file = binding.scope.file
        loops, node = [], file.statement_of(call)
        top = binding.scope.node
        while node is not None and node is not top:
            parent = file.parent(node)
            if isinstance(parent, cst.For) and node is parent.body:
                loops.append(parent)
            elif parent is not None and parent is not top and not isinstance(parent, (cst.IndentedBlock,
                                                                                      cst.SimpleStatementSuite)):
                raise Blocked(CODE_COLUMNS, f"{what}: `{binding.name}.append(...)` runs under a condition or in a "
                                            "nested function; not read", call)
            node = parent
        envs: list[tuple] = [()]
        for loop in reversed(loops):  # outermost first
            envs = [e for env in envs for e in self.loop_envs(loop.target, loop.iter, file, env, what)]
        return envs
