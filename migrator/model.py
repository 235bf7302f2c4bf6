"""The program model: what a name means and which value reaches it, in a file and across a package.

Built once per file in one LibCST walk (scopes, bindings, returns, calls), then queried by the rules instead of
walking statement lists (like ruff's semantic model or pyright's binder, much smaller):

- `lookup(name, at)`: the bindings of a name that can reach a point (one when it is unambiguous);
- `resolve(value)`: follow names, tuple unpacking, `self.x` attributes, calls of the program's own functions
  (into their `return`, with parameters bound to the caller's arguments) and `module.attr` across the package,
  to the expression that produces the value;
- `function_of(value)`: which function (def, lambda, `functools.partial`, a closure returned by a factory);
- `call_sites(fn)`: its calls across the files, direct or through a parameter it was passed as
  (`run(model.build_estimator)` calling `make_estimator(model_dir)`);
- `render(value, at)`: the value as source text valid at another place with the same meaning, or None.

It knows no TensorFlow: imports resolve to dotted names and the rules decide what those mean.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

from . import choices
from .visitors import SENTINEL, Transformer, ValueNames, Visitor, render, walk, walked_fields

from .files import checkout_names, module_file_beside, module_name_for, namespace_names  # noqa: F401 - module_name_for re-exported: the engine asks it before any parse

_EMPTY = cst.Module(body=[])
# node type → (is a statement: an ABC check, done once per type; _Indexer's visit_ and leave_ methods; walked fields)
_KINDS: dict[type, tuple] = {}
_FOREVER = 1 << 60
_MAX_DEPTH = 24
_NAME = cst.Name


def code(node: cst.CSTNode) -> str:
    return render(_EMPTY, node)


def standalone(text: str) -> str:
    """An expression's text moved out of the brackets it was written in: its line breaks were continuations only
    there, so one that spans lines gets its own parentheses (valid as a statement or anywhere else)."""
    if "\n" not in text:
        return text
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return f"({text})"
    return text


# operators that bind less tightly than `+` (and than a conditional's arms need): an operand using one is wrapped
_LOOSE = (cst.IfExp, cst.Lambda, cst.NamedExpr, cst.BooleanOperation, cst.Comparison, cst.Yield)
_LOOSE_BINARY = (cst.BitOr, cst.BitXor, cst.BitAnd, cst.LeftShift, cst.RightShift)


def operand(text: str) -> str:
    """An expression's text placed as an operand of generated code (`a + TEXT`, `TEXT if c else d`): wrapped in
    parentheses when its own top-level operator binds more loosely (a conditional, lambda, `and`/`or`, a
    comparison, `not`, a bitwise operator), so the generated expression means what the parts meant."""
    try:
        node = cst.parse_expression(text.strip())
    except cst.ParserSyntaxError:
        return f"({text})"
    if getattr(node, "lpar", ()):
        return text  # wrapped already
    loose = isinstance(node, _LOOSE) or (isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)) \
        or (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _LOOSE_BINARY))
    return f"({text})" if loose else text


@dataclass(eq=False)
class Scope:
    kind: str  # module | function | lambda | class | comprehension
    node: cst.CSTNode
    parent: "Scope | None"
    file: "FileIndex"
    bindings: dict[str, list["Binding"]] = field(default_factory=dict)
    returns: list[cst.Return] = field(default_factory=list)  # functions: their own return statements
    nonlocal_names: set[str] = field(default_factory=set)  # global/nonlocal declarations


@dataclass(eq=False)
class Binding:
    name: str
    kind: str  # assign | def | class | param | import | from | for | with | except | augassign | other
    node: cst.CSTNode  # the target Name, FunctionDef, ClassDef, Param or alias
    statement: cst.CSTNode  # the statement that binds it
    scope: Scope
    order: int
    block: tuple[int, ...]
    value: cst.BaseExpression | None = None  # assign: the right-hand side
    unpack: tuple[int, ...] = ()  # assign to a tuple target: index path into the value
    target: str = ""  # import/from: the dotted name it stands for ("." prefixes for relative imports)


# Node classes tested by exact type (`type(x) in ...`): isinstance against LibCST's classes (ABCMeta) runs
# ABCMeta.__instancecheck__ for every node that is not of the class itself, the hot checks' usual answer. LibCST's
# node classes have no subclasses (tests/rewrite/test_walk.py checks these), so the answers are the same.
_LOOPS = frozenset({cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_DEFS = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})
_FUNCTIONS = frozenset({cst.FunctionDef, cst.Lambda})
_ATOMS = frozenset({cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.SimpleString, cst.Integer, cst.Float,
                    cst.Dict, cst.List, cst.Tuple})


def rebinding_loop(name: cst.Name, bindings, file, at: cst.CSTNode, at_file) -> cst.CSTNode | None:
    """The loop `name` is read in that binds it anew each iteration (its target, or an assignment in its body) and
    that does not hold `at`, else None: what `name` holds at `at` is the last iteration's value, not the one read
    here."""
    node = file.parent(name)
    while node is not None and type(node) not in _DEFS:
        if type(node) in _LOOPS and not (at_file is file and file.inside(at, {id(node)})):
            if any(b.scope.file is file and (file.inside(b.node, {id(node)}) or file.inside(b.statement, {id(node)}))
                   for b in bindings):
                return node
        node = file.parent(node)
    return None


@dataclass(frozen=True, eq=False)
class Value:
    """An expression as written somewhere, with the parameter bindings it was reached through."""

    node: cst.CSTNode
    file: "FileIndex"
    env: tuple[tuple[str, "Value"], ...] = ()

    def arg(self, name: str) -> "Value | None":
        for key, value in self.env:
            if key == name:
                return value
        return None


@dataclass(frozen=True, eq=False)
class Resolved:
    """Where resolution stopped: the producing expression (or def/lambda/class), and the bindings it went through."""

    value: Value
    trail: tuple[Binding, ...] = ()
    ambiguous: tuple[Binding, ...] = ()  # set when a name had several reaching bindings
    stopped_at: cst.CSTNode | None = None  # the name that could not be followed further (parameter, global, …)

    @property
    def node(self) -> cst.CSTNode:
        return self.value.node


@dataclass(frozen=True, eq=False)
class FunctionRef:
    node: cst.FunctionDef | cst.Lambda
    file: "FileIndex"
    bound: tuple[str, ...] = ()  # parameter names already supplied (functools.partial / closures)
    trail: tuple[Binding, ...] = ()
    via: Value | None = None  # the expression that denotes it (for rendering a call to it)

    @property
    def params(self) -> list[str]:
        p = self.node.params
        return [x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params]]


class _Indexer(Visitor):
    """One walk: scopes, bindings (with order and enclosing block), returns, parent links and calls."""

    def __init__(self, index: "FileIndex"):
        self.index = index
        self.scope = index.top
        self.order = 0
        self.block_path: tuple[int, ...] = ()  # the ids of the blocks around the node being visited
        self.statement_stack: list[cst.CSTNode] = []
        self.stack: list[cst.CSTNode | None] = [None]  # the node being visited on top (None: above the module)
        self.skip: set[int] = set()  # attribute and keyword names: not reads of a variable
        self.valued: list[list[Binding]] = []  # bindings of the assignments being walked (ordered after their value)
        self.collecting: list[Binding] | None = None
        self._parents, self._orders, self._scopes = index.parents, index.orders, index.scopes
        self._blocks, self._statements = index.blocks, index.statements
        self._names, self._loads, self._stores = index.names, index.loads, index.stores

    # -- generic bookkeeping ------------------------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        """Records the node, calls its visit_ method, walks its children (Visitor's walk, without its per-child
        calls), calls its leave_ method: the whole visit, so on_leave has nothing left to do."""
        kind = type(node)
        info = _KINDS.get(kind)
        if info is None:
            info = _KINDS[kind] = (issubclass(kind, (cst.SimpleStatementLine, cst.BaseCompoundStatement)),
                                   self._method(self._visit_cache, "visit_", kind),
                                   self._method(self._leave_cache, "leave_", kind), walked_fields(kind))
        statement, visit, leave, fields = info
        self.order = order = self.order + 1
        key = id(node)
        stack = self.stack
        self._parents[key] = stack[-1]  # (the stack starts with None: the module's parent)
        self._orders[key] = order
        self._scopes[key] = self.scope
        self._blocks[key] = self.block_path
        statements = self.statement_stack
        if not fields:  # a leaf (a Name, a number, a string: a third of the nodes): no child to be the parent of
            if statements:
                self._statements[key] = statements[-1]
            if kind is _NAME:  # a Name (half the leaves), inline: every Name of the file, and the reads
                value = node.value
                found = self._names.get(value)
                if found is None:
                    self._names[value] = [node]
                else:
                    found.append(node)
                if key not in self._stores and key not in self.skip:
                    found = self._loads.get(value)
                    if found is None:
                        self._loads[value] = [node]
                    else:
                        found.append(node)
            elif visit is not None:
                visit(self, node)
            if leave is not None:
                leave(self, node)
            return False
        if statement:
            statements.append(node)
        if statements:
            self._statements[key] = statements[-1]
        stack.append(node)
        if visit is None or visit(self, node) is not False:
            on_visit = self.on_visit
            for name in fields:
                value = getattr(node, name)
                t = type(value)
                if t is tuple or t is list:
                    for child in value:
                        on_visit(child)
                elif value is not None and t is not SENTINEL:
                    on_visit(value)
        if leave is not None:
            leave(self, node)
        stack.pop()
        if statement:
            statements.pop()
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass  # (on_visit left it)

    def bind(self, name: str, kind: str, node, value=None, unpack=(), target: str = "", scope=None) -> None:
        scope = scope or self.scope
        statement = self.statement_stack[-1] if self.statement_stack else node
        b = Binding(name, kind, node, statement, scope, self.order, self.block_path, value, unpack, target)
        scope.bindings.setdefault(name, []).append(b)
        self.index.stores.add(id(node))
        if self.collecting is not None:
            self.collecting.append(b)

    def bind_target(self, target, kind: str, value, unpack=()) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, kind, target, value, unpack)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, el in enumerate(target.elements):
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    self.bind_target(inner, "other", None)
                else:
                    self.bind_target(inner, kind, value, (*unpack, i))
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, "other", None)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            # `self.x = value` inside a method: recorded per class for `self.x` lookups
            cls = self.index.method_class(self.scope)
            if cls is not None and target.value.value == self.index.self_name(self.scope):
                statement = self.statement_stack[-1]
                b = Binding(target.attr.value, kind, target, statement, self.scope, self.order, self.block_path,
                            value, unpack)
                self.index.attributes.setdefault((id(cls.node), target.attr.value), []).append(b)

    # -- blocks (for "does this binding always reach that point") -----------------------------------------------
    def visit_IndentedBlock(self, node) -> None:
        self.block_path = (*self.block_path, id(node))

    def leave_IndentedBlock(self, node) -> None:
        self.block_path = self.block_path[:-1]

    visit_SimpleStatementSuite, leave_SimpleStatementSuite = visit_IndentedBlock, leave_IndentedBlock

    # -- scopes ---------------------------------------------------------------------------------------------------
    def unvisited(self, name: cst.Name, owner: cst.CSTNode) -> None:
        """A Name this walk binds without visiting it (def/class name, parameter, comprehension target)."""
        self.index.names.setdefault(name.value, []).append(name)
        self.index.owners[id(name)] = owner

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.unvisited(node.name, node)
        self.bind(node.name.value, "def", node)
        for deco in node.decorators:
            self.on_visit(deco)
        _visit_defaults(self, node.params)
        if node.returns:
            self.on_visit(node.returns)
        outer_blocks = self.block_path
        self.scope = Scope("function", node, self.scope, self.index)
        self.index.function_scopes[id(node)] = self.scope
        self.block_path = ()
        self._bind_params(node.params, node)
        _visit_body(self, node.body)
        self.block_path = outer_blocks
        self.scope = self.scope.parent
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        _visit_defaults(self, node.params)
        outer_blocks = self.block_path
        self.scope = Scope("lambda", node, self.scope, self.index)
        self.index.function_scopes[id(node)] = self.scope
        self.block_path = ()
        self._bind_params(node.params, node)
        self.on_visit(node.body)
        self.block_path = outer_blocks
        self.scope = self.scope.parent
        return False

    def _bind_params(self, params: cst.Parameters, owner: cst.CSTNode) -> None:
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
            self.unvisited(p.name, owner)
            self.bind(p.name.value, "param", p)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.unvisited(star.name, owner)
                self.bind(star.name.value, "param", star)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.unvisited(node.name, node)
        self.bind(node.name.value, "class", node)
        for deco in node.decorators:
            self.on_visit(deco)
        for arg in node.bases + node.keywords:
            self.on_visit(arg)
        outer_blocks = self.block_path
        self.scope = Scope("class", node, self.scope, self.index)
        self.index.class_scopes[id(node)] = self.scope
        self.block_path = ()
        _visit_body(self, node.body)
        self.block_path = outer_blocks
        self.scope = self.scope.parent
        return False

    def _comprehension(self, node) -> bool:
        outer = self.scope
        self.scope = Scope("comprehension", node, outer, self.index)
        for_in = node.for_in
        while for_in is not None:
            self.on_visit(for_in.iter)
            for name in _all_names_in(for_in.target):
                self.unvisited(name, node)
            self.bind_target(for_in.target, "for", None)
            for cond in for_in.ifs:
                self.on_visit(cond)
            for_in = for_in.inner_for_in
        for part in ("elt", "key", "value"):
            child = getattr(node, part, None)
            if child is not None:
                self.on_visit(child)
        self.scope = outer
        return False

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    # -- bindings -------------------------------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        self.collecting = []
        for t in node.targets:
            self.bind_target(t.target, "assign", node.value)
        self.valued.append(self.collecting)
        self.collecting = None

    def leave_Assign(self, node) -> None:
        """An assignment's bindings take effect after its value: in `x = x.replace(...)` the `x` read on the right
        is the earlier binding (ordered at the statement, it was this one, and resolving it never ended)."""
        for b in self.valued.pop():
            b.order = self.order

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.collecting = []
        if node.value is not None:
            self.bind_target(node.target, "assign", node.value)
        self.valued.append(self.collecting)
        self.collecting = None

    leave_AnnAssign = leave_Assign

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind_target(node.target, "augassign", None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_target(node.target, "assign", node.value)

    def visit_For(self, node: cst.For) -> None:
        self.bind_target(node.target, "for", None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_target(node.asname.name, "with", None)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_target(node.name.name, "except", None)

    def visit_Global(self, node: cst.Global) -> None:
        self.scope.nonlocal_names.update(n.name.value for n in node.names)

    visit_Nonlocal = visit_Global

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            dotted = get_full_name_for_node(alias.name) or ""
            if alias.asname is not None:
                self.bind(alias.asname.name.value, "import", alias, target=dotted)
            else:
                top = dotted.split(".")[0]
                self.bind(top, "import", alias, target=top)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        base = "." * len(node.relative) + (get_full_name_for_node(node.module) if node.module else "")
        if isinstance(node.names, cst.ImportStar):
            self.index.star_imports.append(base)
            return False
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else alias.name.value
            name = get_full_name_for_node(alias.name)
            joined = f"{base}.{name}" if base and not base.endswith(".") else f"{base}{name}"
            self.bind(local, "from", alias, target=joined)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_Return(self, node: cst.Return) -> None:
        if self.scope.kind == "function":
            self.scope.returns.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.index.calls.append(node)


def _all_names_in(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for el in node.elements for n in _all_names_in(el.value)]
    if isinstance(node, cst.StarredElement):
        return _all_names_in(node.value)
    found: list[cst.Name] = []

    class _V(Visitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    node.visit(_V())
    return found


def _visit_body(visitor, body) -> None:
    # the body's own block is the scope's root: statements directly in it always run (block path ())
    if isinstance(body, cst.IndentedBlock):
        for stmt in body.body:
            visitor.on_visit(stmt)
    else:
        visitor.on_visit(body)


def _visit_defaults(visitor, params: cst.Parameters) -> None:
    for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if p.default is not None:
            visitor.on_visit(p.default)
        if p.annotation is not None:
            visitor.on_visit(p.annotation)


class FileIndex:
    """The facts of one file; `Program` joins files and answers the questions."""

    def __init__(self, module: cst.Module, path: str = "<stdin>", module_name: str | None = None,
                 is_package: bool = False):
        self.module, self.path, self.module_name, self.is_package = module, path, module_name, is_package
        self.top = Scope("module", module, None, self)
        self.parents: dict[int, cst.CSTNode | None] = {}
        self.orders: dict[int, int] = {}
        self.scopes: dict[int, Scope] = {}
        self.blocks: dict[int, tuple[int, ...]] = {}
        self.statements: dict[int, cst.CSTNode] = {}
        self.stores: set[int] = set()
        self.function_scopes: dict[int, Scope] = {}
        self.class_scopes: dict[int, Scope] = {}
        self.attributes: dict[tuple[int, str], list[Binding]] = {}
        self.star_imports: list[str] = []
        self.calls: list[cst.Call] = []
        self.loads: dict[str, list[cst.Name]] = {}  # every Name read as a variable, by identifier
        self.names: dict[str, list[cst.Name]] = {}  # every Name node of the file (reads, stores, def names, …)
        self.owners: dict[int, cst.CSTNode] = {}  # for a Name the walk binds without visiting: the node holding it
        _Indexer(self).on_visit(module)  # (the whole walk: the indexer's on_visit leaves each node itself)

    # helpers used while indexing
    def method_class(self, scope: Scope) -> Scope | None:
        if scope.kind == "function" and scope.parent is not None and scope.parent.kind == "class":
            return scope.parent
        return None

    def self_name(self, scope: Scope) -> str | None:
        params = scope.node.params.params if isinstance(scope.node, cst.FunctionDef) else ()
        return params[0].name.value if params else None

    # structure
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(id(node))

    def scope_of(self, node: cst.CSTNode) -> Scope:
        return self.scopes.get(id(node), self.top)

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.statements.get(id(node))

    def contains(self, node: cst.CSTNode) -> bool:
        return id(node) in self.orders

    def top_level(self, name: str) -> Binding | None:
        found = self.top.bindings.get(name)
        return found[-1] if found else None

    def loads_of(self, program: "Program", binding: Binding) -> list[cst.Name]:
        return [n for n in self.loads.get(binding.name, ()) if any(b is binding for b in program.lookup(n.value, n, self))]

    def inside(self, node: cst.CSTNode, ancestors: set[int]) -> bool:
        while node is not None:
            if id(node) in ancestors:
                return True
            node = self.parents.get(id(node))
        return False

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        scope = self.scope_of(node)
        while scope is not None and scope.kind not in ("function",):
            scope = scope.parent
        return scope.node if scope is not None else None


def _reaching(bindings: list[Binding], order: int, block: tuple[int, ...]) -> list[Binding]:
    """Bindings that can reach a point: the last one that always runs before it, and conditional ones after."""
    found: list[Binding] = []
    for b in bindings:
        if b.order >= order:
            break
        if block[:len(b.block)] == b.block:
            found = [b]
        else:
            found.append(b)
    return found


class Program:
    """Files of one run, joined: module names → indexes. Answers the rules' questions."""

    def __init__(self, files: list[FileIndex] | None = None):
        self.files: list[FileIndex] = []
        self.by_module: dict[str, FileIndex] = {}
        self._call_sites: dict[int, list[tuple[cst.Call, FileIndex]]] | None = None
        self._built = False
        self._handed_from: dict[tuple[int, int], tuple] = {}  # (call, def) -> (the loop's call handing def, …)
        self.cache: dict = {}  # the rules' per-program results (analysis, plans), keyed by what they depend on
        self._qualified: dict[tuple[int, int], tuple] = {}  # qualified(): a node's answer depends on it and its file
        self._choosing = 0  # inside resolve_choice: a name set in an if/else's branches is not narrowed to one
        for f in files or []:
            self.add(f)

    def add(self, index: FileIndex) -> None:
        self.files.append(index)
        if index.module_name:
            self.by_module[index.module_name] = index
            # a script imports its siblings by their short names (its directory is on sys.path)
            parts = index.module_name.split(".")
            for i in range(1, len(parts)):
                self.by_module.setdefault(".".join(parts[i:]), index)
            for dotted in namespace_names(index.path, index.module_name):  # `from official.wide_deep import x`
                self.by_module.setdefault(dotted, index)
            for dotted in checkout_names(index.module_name):  # `from albert import x` in google-research__albert/
                self.by_module.setdefault(dotted, index)
        self._call_sites, self._built, self._handed_from = None, False, {}

    def beside(self, module: str, file: FileIndex) -> str | None:
        """The file of a module outside this program that `file` imports, found beside it on disk (a message
        names it instead of calling the module missing); None when there is none or it is in the program."""
        if module in self.by_module or file.path == "<stdin>":
            return None
        return module_file_beside(file.path, module)

    def file_of(self, node: cst.CSTNode) -> FileIndex | None:
        for f in self.files:
            if f.contains(node):
                return f
        return None

    # ---- names --------------------------------------------------------------------------------------------
    def lookup(self, name: str, at: cst.CSTNode, file: FileIndex) -> list[Binding]:
        scope = file.scope_of(at)
        order, block = file.orders.get(id(at), _FOREVER), file.blocks.get(id(at), ())
        first = True
        while scope is not None:
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            if name in scope.nonlocal_names:
                scope, first = scope.parent, False
                order, block = _FOREVER, ()
                continue
            bindings = scope.bindings.get(name)
            if bindings:
                found = _reaching(bindings, order, block) if first else _reaching(bindings, _FOREVER, ())
                if found:
                    return found
                if first and scope.kind in ("function", "lambda"):
                    return []  # a local read before it is bound (a loop carries it, or UnboundLocalError)
            # an enclosing scope is read when the inner code runs: its final value
            scope, first = scope.parent, False
            order, block = _FOREVER, ()
        return []

    def qualified(self, node: cst.CSTNode, file: FileIndex) -> str | None:
        """Dotted name of a pure `a.b.c` expression through imports (`tf.estimator.X` → `tensorflow.estimator.X`);
        module-level aliases (`tf1 = tf.compat.v1`) followed. None when rooted in anything else."""
        key = (id(node), id(file))
        known = self._qualified.get(key)
        if known is not None and known[0] is node and known[1] is file:  # (the rules ask about most calls twice)
            return known[2]
        full = _dotted(node)
        target = None
        if full is not None:
            root, _, rest = full.partition(".")
            target = self._import_target(root, node, file, 0)
            if target is not None and rest:
                target = f"{target}.{rest}"
        self._qualified[key] = (node, file, target)  # (node and file kept: their ids stay theirs)
        return target

    def _import_target(self, name: str, at: cst.CSTNode, file: FileIndex, depth: int) -> str | None:
        if depth > _MAX_DEPTH:
            return None
        found = self.lookup(name, at, file)
        if not found:
            # `from model import *` of a file of this run that imports TensorFlow: `tf` is that module's import
            star = self.star_member(name, file)
            if star is None or star[0].kind not in ("import", "from"):
                return None
            return self.absolute(star[0].target, star[1])
        b = found[-1]  # `if tf.__version__ ...: tf = tf.compat.v1`: the most recent meaning wins
        if b.kind in ("import", "from"):
            return self.absolute(b.target, file)
        full = _dotted(b.value) if b.kind == "assign" and not b.unpack else None
        if full is not None:
            root, _, rest = full.partition(".")
            target = self._import_target(root, b.statement, file, depth + 1) if root != name or b.statement is not at else None
            if target is None:
                return None
            return f"{target}.{rest}" if rest else target
        return None

    def absolute(self, target: str, file: FileIndex) -> str:
        """A relative import target made absolute from the importing file's module name."""
        if not target.startswith("."):
            return target
        level = len(target) - len(target.lstrip("."))
        rest = target[level:]
        base = (file.module_name or "").split(".")
        if not file.is_package:
            base = base[:-1]
        base = base[:len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, rest] if rest else base)

    # ---- values -------------------------------------------------------------------------------------------
    def resolve(self, value: Value, depth: int = 0) -> Resolved:
        """Follow a value to the expression that produces it."""
        return self._resolve(value, (), depth)

    def resolve_choice(self, value: Value, computed, depth: int = 0) -> Resolved:
        """resolve(), and a name assigned in the branches of an if/elif/else followed to the conditional expression
        `A if c else B` they amount to (migrator/choices.py), for readers that convert that expression; `computed`
        tells the calls whose value only exists at run time (no choice is read through a test on one)."""
        self._choosing += 1
        try:
            r = self._resolve(value, (), depth)
        finally:
            self._choosing -= 1
        if not r.ambiguous or not isinstance(r.node, cst.Name):
            return self.resolve(value, depth) if r.ambiguous else r
        found = choices.choice(self, list(r.ambiguous), r.node, r.value.file, r.value.env, computed)
        if found is None:
            return self.resolve(value, depth)  # (a test the source tells may still pick one branch)
        node, used = found
        return self._resolve(Value(node, r.value.file, r.value.env), (*r.trail, *used), depth + 1)

    def _resolve(self, v: Value, trail: tuple[Binding, ...], depth: int) -> Resolved:
        node, file = v.node, v.file
        if depth > _MAX_DEPTH:
            return Resolved(v, trail)
        kind = type(node)
        if kind is cst.Name:
            bound = v.arg(node.value)
            if bound is not None:
                return self._resolve(bound, trail, depth + 1)
            found = self.lookup(node.value, node, file)
            if len(found) > 1:
                # an `if` on a value the source tells (a reader of the conditional expression converts each branch)
                chosen = choices.select(self, found, node, file, v.env) if not self._choosing else None
                if chosen is None:
                    return Resolved(v, trail, ambiguous=tuple(found))
                found = [chosen]
            if not found:
                star = self.star_member(node.value, file)
                if star is not None:  # `from model_fn import *` of a file of this program
                    b, index = star
                    return self._binding(b, Value(b.node, index), trail, depth + 1)
                return Resolved(v, trail, stopped_at=node)
            return self._binding(found[0], v, trail, depth)
        if kind is cst.Attribute:
            return self._attribute(v, trail, depth)
        if kind is cst.Call:
            fn = self.callee(Value(node.func, file, v.env), depth)
            if fn is not None and isinstance(fn.node, cst.FunctionDef):
                returns = fn.file.function_scopes[id(fn.node)].returns
                values = [r.value for r in returns if r.value is not None]
                if len(values) == 1 and len(returns) == 1:
                    env = self.bind_call(node, fn, v)
                    return self._resolve(Value(values[0], fn.file, env), (*trail, *fn.trail), depth + 1)
            return Resolved(v, trail)
        return Resolved(v, trail)

    def _binding(self, b: Binding, v: Value, trail, depth) -> Resolved:
        trail = (*trail, b)
        if b.kind == "assign" and b.value is not None:
            inner = self._resolve(Value(b.value, b.scope.file, v.env if b.scope.file is v.file else ()), trail,
                                  depth + 1)
            for i in b.unpack:
                node = inner.node
                if isinstance(node, (cst.Tuple, cst.List)) and i < len(node.elements) and \
                        not isinstance(node.elements[i], cst.StarredElement):
                    inner = self._resolve(Value(node.elements[i].value, inner.value.file, inner.value.env),
                                          inner.trail, depth + 1)
                else:
                    return Resolved(v, trail, stopped_at=b.node)
            return inner
        if b.kind in ("def", "class"):
            return Resolved(Value(b.node, b.scope.file, v.env), trail)
        if b.kind == "param":
            return self._param(b, v, trail, depth)
        if b.kind in ("import", "from"):
            target = self.absolute(b.target, b.scope.file)
            found = self.module_member(target)
            if found is not None:
                return self._binding(found[0], Value(found[0].node, found[1]), trail, depth + 1) \
                    if not isinstance(found[0], FileIndex) else Resolved(v, trail)
        return Resolved(v, trail, stopped_at=b.node)

    def star_member(self, name: str, file: FileIndex):
        """(binding, file) of `name` bound nowhere in `file` but defined at the top of a module of this program that
        `file` star-imports (the last such import wins, as at run time; a `_name` is not star-imported); None
        otherwise, and when a later star import is of a module outside the program (it may bind the name)."""
        if name.startswith("_"):
            return None
        for base in reversed(file.star_imports):
            module = self.absolute(base, file)
            if module not in self.by_module:  # a later star import of a module outside the run may bind it
                return None
            found = self.module_member(f"{module}.{name}")
            if found is not None:
                return found
        return None

    def module_member(self, dotted: str):
        """(binding, file) for `package.module.name` defined in a file of this program; None otherwise."""
        module, _, name = dotted.rpartition(".")
        index = self.by_module.get(module)
        if index is None or not name:
            return None
        b = index.top_level(name)
        return (b, index) if b is not None else None

    def _param(self, b: Binding, v: Value, trail, depth) -> Resolved:
        """A parameter: the argument of the function's only call site in the program (or its default)."""
        fn_scope = b.scope
        if self._call_sites is not None and not self._built:
            return Resolved(v, trail, stopped_at=b.node)
        sites = self.call_sites(fn_scope.node)
        if len(sites) != 1:
            if not sites and isinstance(b.node, cst.Param) and b.node.default is not None:
                return self._resolve(Value(b.node.default, fn_scope.file), trail, depth + 1)
            same = self._same_def(b, sites, trail, depth) if sites else None
            return same if same is not None else Resolved(v, trail, stopped_at=b.node)
        return self._site_argument(b, sites[0], trail, depth) or Resolved(v, trail, stopped_at=b.node)

    def _site_argument(self, b: Binding, site, trail, depth) -> Resolved | None:
        """What one call site passes for the parameter `b` (or its default), followed; None when it passes nothing."""
        call, file = site
        fn_scope = b.scope
        arg = self.argument_for(call, FunctionRef(fn_scope.node, fn_scope.file), b.name)
        if arg is None:
            if isinstance(b.node, cst.Param) and b.node.default is not None:
                return self._resolve(Value(b.node.default, fn_scope.file), trail, depth + 1)
            return None
        handed = self._handed_from.get((id(call), id(fn_scope.node)))
        # called through a run loop's parameter: the loop's own parameters hold what that def's caller passed
        env = self.bind_call(handed[0], handed[2], Value(handed[0], handed[1])) if handed else ()
        return self._resolve(Value(arg, file, env), trail, depth + 1)

    def _same_def(self, b: Binding, sites, trail, depth) -> Resolved | None:
        """A parameter every call site passes the same def (`model_column_fn=census_dataset.build_model_columns`
        from the run loop and from a test alike), or the same module-level value (a notebook's `run_config`, built
        once, handed to its `create_estimator` by the training cell and the prediction cell alike): that value; None
        when any passes something else."""
        found = [self._site_argument(b, site, trail, depth) for site in sites]
        if any(r is None or r.node is not found[0].node or r.value.env for r in found):
            return None
        node, file = found[0].node, found[0].value.file
        if file.scope_of(node).kind != "module":
            return None  # a closure, or a value built per call of a function: each call may build another
        if not isinstance(node, cst.FunctionDef) and (not isinstance(node, cst.Call) or _in_loop(node, file)):
            return None  # one evaluation of one construction only (a module-level loop builds several)
        return found[0]

    def _attribute(self, v: Value, trail, depth) -> Resolved:
        node, file = v.node, v.file
        # self.x inside a method: the class's unique `self.x = value`
        if isinstance(node.value, cst.Name):
            scope = file.scope_of(node)
            while scope is not None and scope.kind in ("lambda", "comprehension"):
                scope = scope.parent
            cls = file.method_class(scope) if scope is not None else None
            if cls is not None and node.value.value == file.self_name(scope):
                found = file.attributes.get((id(cls.node), node.attr.value), [])
                if len(found) == 1:
                    return self._binding(found[0], Value(found[0].node, file), trail, depth + 1)
                if len(found) > 1:
                    return Resolved(v, trail, ambiguous=tuple(found))
                method = cls.bindings.get(node.attr.value)
                if method and len(method) == 1 and method[0].kind == "def" and \
                        not self._overridden(cls.node, node.attr.value) and not _abstract(method[0].node):
                    # `self.method` of a method never assigned to the instance: the class's def (as call_sites)
                    return Resolved(Value(method[0].node, file, v.env), (*trail, method[0]))
                return Resolved(v, trail, stopped_at=node)
        # module.attr where module is a file of this program
        dotted = self.qualified(node, file)
        if dotted is not None:
            found = self.module_member(dotted)
            if found is not None:
                b, index = found
                return self._binding(b, Value(b.node, index), trail, depth + 1)
        return Resolved(v, trail)

    # ---- functions ------------------------------------------------------------------------------------------
    def callee(self, func: Value, depth: int) -> FunctionRef | None:
        r = self._resolve(func, (), depth + 1)
        if type(r.node) in _FUNCTIONS:
            return FunctionRef(r.node, r.value.file, trail=r.trail, via=func)
        return None

    def function_of(self, value: Value, partial_names: tuple[str, ...] = ("functools.partial",)) -> FunctionRef | None:
        """The function an expression denotes: a def, a lambda, `functools.partial(f, ...)` (its bound parameters
        recorded), or what a factory returns."""
        r = self.resolve(value)
        node = r.node
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return FunctionRef(node, r.value.file, trail=r.trail, via=value)
        if isinstance(node, cst.Call) and self.qualified(node.func, r.value.file) in partial_names and node.args:
            inner = self.function_of(Value(node.args[0].value, r.value.file, r.value.env), partial_names)
            if inner is None:
                return None
            bound = list(inner.bound)
            positional = [a for a in node.args[1:] if a.keyword is None and not a.star]
            free = [p for p in inner.params if p not in bound]
            bound += free[:len(positional)]
            bound += [a.keyword.value for a in node.args[1:] if a.keyword is not None]
            return FunctionRef(inner.node, inner.file, tuple(bound), (*r.trail, *inner.trail), via=value)
        return None

    def call_sites(self, fn: cst.CSTNode) -> list[tuple[cst.Call, FileIndex]]:
        """Calls of a def anywhere in the program (direct calls by name, `module.fn`, `self.method`)."""
        if self._call_sites is None:
            sites: dict[int, list] = {}
            through: list[tuple[cst.Call, FileIndex]] = []  # calls of a name not yet followed to a def
            self._call_sites = {}  # while building, parameters are not followed (that would need this map)
            for f in self.files:
                for call in f.calls:
                    callee = self.callee(Value(call.func, f), _MAX_DEPTH - 4) if _is_dotted(call.func) else None
                    if callee is None and isinstance(call.func, cst.Attribute):
                        callee = self._method(call, f)
                    if callee is not None:
                        sites.setdefault(id(callee.node), []).append((call, f))
                    elif type(call.func) is cst.Name and _is_param(self.lookup(call.func.value, call.func, f)):
                        through.append((call, f))
            self._call_sites = sites
            self._built = True
            # a function passed as a value and called through a parameter (`run(model.build_estimator)` calling
            # `make_estimator(model_dir)`): now that parameters follow their call sites, those calls are found too
            # (rounds, as a run loop may hand the function on to another)
            for _ in range(3):
                found = [(call, f, self.callee(Value(call.func, f), _MAX_DEPTH - 4)) for call, f in through]
                through = [(call, f) for call, f, callee in found if callee is None]
                for call, f, callee in found:
                    if callee is not None:
                        sites.setdefault(id(callee.node), []).append((call, f))
                if len(through) == len(found):
                    break
            # a def handed through a parameter of a function called from several places (each `*_main.py` passing
            # its own `build_estimator_fn=build_estimator` to one run loop): the call through the parameter is a call
            # of each def handed there, made in the context of the caller that handed it (_param reads its arguments)
            for call, f in through:
                b = self.lookup(call.func.value, call.func, f)[0]
                outer = FunctionRef(b.scope.node, b.scope.file)
                for site, site_file in sites.get(id(b.scope.node), []):
                    arg = self.argument_for(site, outer, b.name)
                    callee = self.callee(Value(arg, site_file), _MAX_DEPTH - 4) if arg is not None else None
                    if callee is not None and isinstance(callee.node, cst.FunctionDef):
                        sites.setdefault(id(callee.node), []).append((call, f))
                        self._handed_from[(id(call), id(callee.node))] = (site, site_file, outer)
        return self._call_sites.get(id(fn), [])

    def handed_from(self, call: cst.Call, fn: cst.CSTNode) -> tuple | None:
        """(the loop's call site, its file, the loop) when `call` calls `fn` through a parameter of a loop called
        from several places, that call site being the one handing `fn`; None otherwise."""
        self.call_sites(fn)
        return self._handed_from.get((id(call), id(fn)))

    def _method(self, call: cst.Call, file: FileIndex) -> FunctionRef | None:
        """`self.method(...)` inside a class: that class's method."""
        func = call.func
        if not isinstance(func.value, cst.Name):
            return None
        scope = file.scope_of(call)
        while scope is not None and scope.kind in ("lambda", "comprehension"):
            scope = scope.parent
        cls = file.method_class(scope) if scope is not None else None
        if cls is None or func.value.value != file.self_name(scope):
            return None
        found = cls.bindings.get(func.attr.value)
        if found and found[-1].kind == "def":
            return FunctionRef(found[-1].node, file)
        return None

    def argument_for(self, call: cst.Call, fn: FunctionRef, name: str) -> cst.BaseExpression | None:
        """The argument a call passes for a parameter (positional or keyword), None if not passed."""
        params = fn.params
        if isinstance(fn.node, cst.FunctionDef) and fn.file.method_class(fn.file.function_scopes[id(fn.node)]) \
                is not None and isinstance(call.func, cst.Attribute):
            params = params[1:]  # bound method: self is not passed
        positional = 0
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is None:
                if positional < len(params) and params[positional] == name:
                    return arg.value
                positional += 1
            elif arg.keyword.value == name:
                return arg.value
        return None

    def bind_call(self, call: cst.Call, fn: FunctionRef, caller: Value) -> tuple:
        """The function's parameters as this call binds them: its arguments, else the parameters' defaults
        (written where the def is, so they travel with the def's file)."""
        defaults = {p.name.value: p.default for p in (*fn.node.params.posonly_params, *fn.node.params.params,
                                                      *fn.node.params.kwonly_params) if p.default is not None}
        env = []
        for name in fn.params:
            arg = self.argument_for(call, fn, name)
            if arg is not None:
                env.append((name, Value(arg, caller.file, caller.env)))
            elif name in defaults:
                env.append((name, Value(defaults[name], fn.file)))
        return tuple(env)

    # ---- rendering ------------------------------------------------------------------------------------------
    def _argument_of(self, bindings: list[Binding]) -> Value | None:
        if len(bindings) != 1 or bindings[0].kind != "param":
            return None
        b = bindings[0]
        sites = self.call_sites(b.scope.node)
        if len(sites) != 1:
            return None
        call, file = sites[0]
        arg = self.argument_for(call, FunctionRef(b.scope.node, b.scope.file), b.name)
        if arg is None:
            return Value(b.node.default, b.scope.file) if isinstance(b.node, cst.Param) and b.node.default else None
        return Value(arg, file)

    def _through_module(self, name: str, here: list[Binding], at: cst.CSTNode, at_file: FileIndex) -> str | None:
        """`alias.name` for a module-level `name` of another file, when `at` sees that file's module as `alias`
        (`from trainer import model` / `import trainer.model as model`)."""
        if len(here) != 1 or here[0].scope.kind != "module":
            return None
        alias = self.module_alias(here[0].scope.file, at, at_file)
        return None if alias is None else f"{alias}.{name}"

    def module_alias(self, module_file: FileIndex, at: cst.CSTNode, at_file: FileIndex) -> str | None:
        """The name `at` (in at_file) sees module_file's module as (`import helpers`, `from trainer import model`,
        `import trainer.model as model`), or None."""
        module = module_file.module_name
        if not module:
            return None
        for alias, bindings in at_file.top.bindings.items():
            b = bindings[-1]
            if b.kind in ("import", "from") and self.absolute(b.target, at_file) == module \
                    and [id(x) for x in self.lookup(alias, at, at_file)] == [id(b)]:
                return alias
        # `import trainer.model` (no `as`) binds `trainer`; `trainer.model` reaches the module while `trainer` is,
        # at `at`, only ever that package
        top = module.split(".")[0]
        bindings = at_file.top.bindings.get(top, [])
        if "." in module and any(_plain_import(b) == module for b in bindings):
            seen = self.lookup(top, at, at_file)
            if seen and all(_plain_import(b) is not None for b in seen):
                return module
        return None

    def _overridden(self, cls: cst.ClassDef, name: str) -> bool:
        """A class of the program naming `cls` among its bases defines `name` too: `self.name` may be either."""
        for f in self.files:
            for scope in f.class_scopes.values():
                bases = [get_full_name_for_node(b.value) or "" for b in scope.node.bases]
                if scope.node is not cls and any(b.rpartition(".")[2] == cls.name.value for b in bases) and \
                        name in scope.bindings:
                    return True
        return False

    def _same_instance(self, here: list[Binding], there: list[Binding]) -> bool:
        """`self` of a method read in another method of the same class, the first method called only as
        `self.method(...)` inside the class's methods: the same instance (a builder method's `self.model_dir`
        read where `estimator = self.make_estimator()` is trained)."""
        if len(here) != 1 or len(there) != 1:
            return False
        mine, theirs = _self_of(here[0]), _self_of(there[0])
        if mine is None or theirs is None or mine[0] is not theirs[0]:
            return False
        calls = self.call_sites(mine[1])
        for call, file in calls:
            scope = file.scope_of(call)
            while scope is not None and scope.kind in ("lambda", "comprehension"):
                scope = scope.parent
            owner = file.method_class(scope) if scope is not None else None
            if owner is not mine[0] or not isinstance(call.func, cst.Attribute) or \
                    not isinstance(call.func.value, cst.Name) or call.func.value.value != file.self_name(scope):
                return False
        return bool(calls)

    def render(self, value: Value, at: cst.CSTNode, at_file: FileIndex, why: list | None = None,
               depth: int = 0, rewrite=None, called_at: bool = False) -> str | None:
        """Source text of `value` that means the same at `at`, or None (the offending name goes into `why`).

        `rewrite(attribute, file)` may give the text an attribute is written as instead (a rule's own mapping).
        `called_at`: `value` is the body of a lambda the statement at `at` calls right there (an input_fn the
        Estimator's train() called): a module-level name it reads held then what reaches `at`."""
        replaced: dict[int, str] = {}
        if rewrite is not None:
            for attribute in _attributes(value.node):
                text = rewrite(attribute, value.file)
                if text is not None:
                    replaced[id(attribute)] = text
        for name in free_names(value.node):
            bound = value.arg(name.value)
            if bound is not None:
                text = self.render(bound, at, at_file, why, depth + 1, rewrite)
                if text is None:
                    return None
                replaced[id(name)] = text if _is_atom(bound.node) else f"({text})"
                continue
            if value.file is at_file and value.node is at:
                continue
            here = self.lookup(name.value, name, value.file)
            there = self.lookup(name.value, at, at_file)
            if rebinding_loop(name, here, value.file, at, at_file) is not None:
                # one value per iteration where it is read, the last one only at `at`
                if why is not None and not why:
                    why.append(name)
                return None
            if called_at and value.file is at_file and _late_global(name, here, there, value.file):
                continue
            if [id(b) for b in here] != [id(b) for b in there] and not _same_import(self, here, there):
                # a parameter of a function called once: the argument that call passes, written at `at`
                argument = self._argument_of(here) if depth < _MAX_DEPTH else None
                text = self.render(argument, at, at_file, why, depth + 1, rewrite) if argument is not None else None
                if text is None and self._same_instance(here, there):
                    text = name.value
                    replaced[id(name)] = text
                    continue
                if text is None and value.file is not at_file:
                    # a module-level name of another file of the program: through that module's import at `at`
                    text = self._through_module(name.value, here, at, at_file)
                    if text is not None:
                        replaced[id(name)] = text
                        continue
                if text is None:
                    if why is not None and not why:
                        why.append(name)
                    return None
                replaced[id(name)] = text if _is_atom(argument.node) else "(" + text + ")"
        if not replaced:
            return standalone(code(value.node))
        return standalone(code(_substitute(value.node, replaced)))


def _late_global(name: cst.Name, here: list[Binding], there: list[Binding], file: FileIndex) -> bool:
    """A module-level name read in a function body (lookup gives the module's final value), where the body runs
    when the module-level statement at `at` calls it: what reaches `at` (`there`) is what it read (a notebook's
    `def input_fn` redefined in a later cell, called by the earlier cell's train)."""
    return file.scope_of(name).kind != "module" and file.scope_of(name).parent is file.top and bool(there) \
        and all(b.scope is file.top for b in (*here, *there))


def _in_loop(node: cst.CSTNode, file: FileIndex) -> bool:
    """`node` is evaluated once per iteration of a loop around it."""
    node = file.parents.get(id(node))
    while node is not None:
        if isinstance(node, (cst.For, cst.While)):
            return True
        node = file.parents.get(id(node))
    return False


def _abstract(fn: cst.CSTNode) -> bool:
    """A method whose body (after its docstring) only raises NotImplementedError: a subclass supplies it."""
    body = list(getattr(getattr(fn, "body", None), "body", ()))
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or not isinstance(body[0].body[0], cst.Raise):
        return False
    exc = body[0].body[0].exc
    exc = exc.func if isinstance(exc, cst.Call) else exc
    return isinstance(exc, cst.Name) and exc.value == "NotImplementedError"


def _self_of(b: Binding) -> tuple | None:
    """(class scope, method def) when `b` is the `self` parameter of a method."""
    scope = b.scope
    cls = scope.file.method_class(scope) if b.kind == "param" else None
    if cls is None or scope.file.self_name(scope) != b.name:
        return None
    return cls, scope.node


def _plain_import(b: Binding) -> str | None:
    """The dotted module of an `import a.b.c` binding (no `as`), or None for any other binding."""
    node = b.node
    if b.kind != "import" or not isinstance(node, cst.ImportAlias) or node.asname is not None:
        return None
    return get_full_name_for_node(node.name)


def _same_import(program: Program, a: list[Binding], b: list[Binding]) -> bool:
    if len(a) != 1 or len(b) != 1 or a[0].kind not in ("import", "from") or b[0].kind not in ("import", "from"):
        return False
    return program.absolute(a[0].target, a[0].scope.file) == program.absolute(b[0].target, b[0].scope.file)


def _is_param(bindings: list[Binding]) -> bool:
    return len(bindings) == 1 and bindings[0].kind == "param"


def _is_atom(node: cst.CSTNode) -> bool:
    return type(node) in _ATOMS


def _is_dotted(node: cst.CSTNode) -> bool:
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) is cst.Name


def _dotted(node: cst.CSTNode | None) -> str | None:
    """`get_full_name_for_node` of a pure `a.b.c` chain (the same text), None for anything else: read along the
    chain, without that helper's isinstance tests at each link."""
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


class _FreeNames(ValueNames):
    """free_names' walk (one class for every call: making a visitor class costs more than most walks)."""

    def __init__(self, found: list[cst.Name]):
        super().__init__(found)
        self.bound: list[set[str]] = []

    def visit_Lambda(self, n: cst.Lambda) -> None:
        p = n.params
        self.bound.append({x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params]}
                          | {x.name.value for x in (p.star_arg, p.star_kwarg) if isinstance(x, cst.Param)})

    def leave_Lambda(self, n) -> None:
        self.bound.pop()

    def visit_Param(self, n: cst.Param) -> bool:
        if n.default is not None:
            walk(n.default, self)
        return False

    def _comp(self, n) -> None:
        names: set[str] = set()
        f = n.for_in
        while f is not None:
            names |= {x.value for x in target_names(f.target)}
            f = f.inner_for_in
        self.bound.append(names)

    def _comp_leave(self, n) -> None:
        self.bound.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _comp_leave

    def visit_Name(self, n: cst.Name) -> None:
        if not any(n.value in b for b in self.bound):
            self.found.append(n)


def free_names(node: cst.CSTNode) -> list[cst.Name]:
    """Name nodes read as values in an expression (not attribute names or keywords; lambda/comprehension-local
    names excluded)."""
    found: list[cst.Name] = []
    walk(node, _FreeNames(found))
    return found


def target_names(target) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


class _Substitute(Transformer):
    """_substitute's transform (one class, not one a call: making a LibCST visitor class costs more than most of
    these walks)."""

    def __init__(self, replaced: dict[int, str]):
        self.replaced = replaced

    def leave_Name(self, original, updated):
        text = self.replaced.get(id(original))
        return cst.parse_expression(text) if text is not None else updated

    leave_Attribute = leave_Name


def _substitute(node: cst.CSTNode, replaced: dict[int, str]) -> cst.CSTNode:
    return node.visit(_Substitute(replaced))


def _attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    """The outermost attribute chains in a subtree (`a.b.c`, not also `a.b`)."""
    visitor = _Attributes()
    walk(node, visitor)
    return visitor.found


class _Attributes(Visitor):
    def __init__(self):
        self.found: list[cst.Attribute] = []

    def visit_Attribute(self, n: cst.Attribute) -> bool:
        self.found.append(n)
        return False

