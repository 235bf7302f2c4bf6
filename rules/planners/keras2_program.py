"""TFM001 a program whose own Keras code uses Keras 2 APIs that only `tf_keras` has: its tf.keras code → tf_keras.

Keras 3 (TF 2.16+'s tf.keras) has no `keras.experimental` (the premade `LinearModel` / `WideDeepModel` the TF guide
migrate/canned_estimators.ipynb trains next to its canned estimators, CosineDecay, SequenceFeatures), no
`layers.experimental` / `optimizers.experimental` / other `*.experimental`, no `LocallyConnected1D/2D` or
`AbstractRNNCell`, and its `tf.keras.optimizers.legacy.*` raises ImportError when built. `tf_keras` (Keras 2's code,
packaged for TF 2.16+, the version of TensorFlow) still has them. A tf_keras object cannot be mixed with Keras 3
ones (a WideDeepModel is built from a linear and a DNN model, all compiled with Keras optimizers), so when the
program's own code names any of these, EVERY tf.keras reference of that code moves (`tf.keras.X` /
`tf.compat.v1.keras.X` → `tf_keras.X`, `import tf_keras` after the TensorFlow import), with one note.

The converted Estimator code stays on Keras 3 (`import keras`) beside it: the generated canned models (LinearModel,
wide & deep) and optimizers (TF1Ftrl, LegacyAdagrad) and the Keras fit target are generated for Keras 3 and verified
there only, and the two halves share no Keras object. That is checked: generated code that reads a module-level name
the moved code binds (a helper building a tf_keras object, an input_fn) blocks, naming it. (Setting
TF_USE_LEGACY_KERAS=1, as the model-mapping shim does, would put the generated code on tf_keras too.)

Blocks (at the reference): `tf.compat.v1.keras.X` where TF 2.15's v1 object is not its tf.keras one (v1
initializers, optimizers, BatchNormalization, GRU/LSTM; the v1-only names), and a tf.keras name the code reaches
through `from tensorflow import keras` / `from tensorflow.keras... import ...` (spell it tf.keras.X).

Why exact: tf_keras 2.21 is Keras 2's code (the Keras of TF 2.15, where the program ran); TF 2.15's
tf.compat.v1.keras.X is moved only where it is the tf.keras.X object itself (checked on TF 2.15, _V1_DIFFERENT).
"""
from __future__ import annotations

import io
import tokenize

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider, GlobalScope

from tfmigrate.diagnostics import Blocked

CODE = "TFM001"
_IMPORT = "import tf_keras\n"
# Keras 2 names Keras 3's tf.keras lacks or refuses (measured on TF 2.21: dir(tf_keras) vs dir(tf.keras), and
# tf.keras.optimizers.legacy.Ftrl() raising ImportError), as paths under keras. ("*.experimental" at any depth.)
_KERAS2_ONLY = ("optimizers.legacy", "layers.LocallyConnected1D", "layers.LocallyConnected2D", "layers.AbstractRNNCell")
# TF 2.15: tf.compat.v1.keras names whose object is not tf.keras's (or that tf.keras lacks), under keras
_V1_DIFFERENT = (
    "backend.name_scope", "backend.get_session", "backend.set_session", "callbacks.TensorBoard", "estimator",
    "initializers", "layers.BatchNormalization", "layers.DenseFeatures", "layers.GRU", "layers.GRUCell", "layers.LSTM",
    "layers.LSTMCell", "layers.CuDNNGRU", "layers.CuDNNLSTM", "layers.disable_v2_dtype_behavior",
    "layers.enable_v2_dtype_behavior", "losses.cosine", "losses.cosine_proximity", "metrics.cosine",
    "metrics.cosine_proximity", "models.LinearModel", "models.WideDeepModel", "optimizers.Adadelta",
    "optimizers.Adagrad", "optimizers.Adam", "optimizers.Adamax", "optimizers.Ftrl", "optimizers.Nadam",
    "optimizers.Optimizer", "optimizers.RMSprop", "optimizers.SGD", "utils.DeterministicRandomTestTool",
    "utils.get_or_create_layer", "utils.track_tf1_style_variables")


def _keras2_only(path: str) -> bool:
    """`path` (under keras) names a Keras 2 API that only tf_keras has."""
    return ".experimental" in f".{path}" or any(path == p or path.startswith(p + ".") for p in _KERAS2_ONLY)


class Plan:
    def __init__(self, refs: list, tainted: dict[str, cst.CSTNode], note):
        self.refs, self.tainted, self.note = refs, tainted, note


def _keras_path(dotted: str | None) -> tuple[str, bool] | None:
    """(the path under keras, whether reached through tf.compat.v1) of a TensorFlow dotted name, or None."""
    if not dotted or not dotted.startswith("tensorflow."):
        return None
    rest, v1 = dotted[len("tensorflow."):], False
    while rest.startswith(("compat.v1.", "compat.v2.")):
        v1, rest = v1 or rest.startswith("compat.v1."), rest[len("compat.v1."):]
    if rest == "keras" or not rest.startswith("keras."):
        return None
    return rest[len("keras."):], v1


def _references(file, program) -> list[tuple[cst.CSTNode, str, bool, bool]]:
    """(outermost node, path under keras, through compat.v1, through an import of a keras module) of every tf.keras
    reference of the file."""
    found = []
    for name in _roots(file, program):
        for node in file.names.get(name, ()):
            top = node
            while isinstance(file.parent(top), cst.Attribute) and file.parent(top).value is top:
                top = file.parent(top)
            if isinstance(file.parent(node), cst.Attribute) and file.parent(node).attr is node:
                continue  # an attribute name, not a reference
            at = _keras_path(program.qualified(top, file))
            if at is None:
                continue
            bound = [b for b in program.lookup(name, node, file) if b.kind in ("import", "from")]
            # `from tensorflow import keras`, `from tensorflow.keras import layers`: the name itself is Keras
            via_import = any(_keras_path(b.target) is not None or b.target.endswith(".keras") for b in bound)
            found.append((top, *at, via_import))
    return found


def _roots(file, program) -> set[str]:
    """Names bound to TensorFlow anywhere in the file: imports of tensorflow modules, module-level aliases
    (`tf1 = tf.compat.v1`)."""
    roots = set()
    for scope in {*file.scopes.values(), file.top}:
        for name, bindings in scope.bindings.items():
            for b in bindings:
                if b.kind in ("import", "from") and (b.target == "tensorflow" or b.target.startswith("tensorflow.")):
                    roots.add(name)
                elif b.kind == "assign" and scope is file.top and isinstance(b.value, (cst.Name, cst.Attribute)) \
                        and (program.qualified(b.value, file) or "").startswith("tensorflow"):
                    roots.add(name)
    return roots


def plan(file, program, model_fns: list, replaced: set[int]) -> Plan | None:
    """The references to move when the file's own code (outside the converted model_fns, which become Keras 3
    models, and the nodes of `replaced`, ids of code the conversion replaces or deletes) names a Keras-2-only API;
    None when it names none. Blocked for a reference that cannot move."""
    skip = {id(n) for n in model_fns}
    functions = {id(n) for n in model_fns if isinstance(n, cst.FunctionDef)}  # (a canned site's node: its call)
    found = _references(file, program)
    inside = [Blocked(CODE, f"tf.keras.{r[1]} is Keras 2 only (Keras 3, TF 2.16+'s tf.keras, has no counterpart) "
                            f"and stands in a model_fn, which becomes a Keras 3 model: build that part with Keras 3 "
                            "layers (a premade LinearModel is keras.layers.Dense(1) on the concatenated features) and "
                            "re-run", r[0]) for r in found if file.inside(r[0], functions) and _keras2_only(r[1])]
    if inside:  # (kept as written, the generated Keras 3 model would fail where it is built)
        raise Blocked.many(inside)
    refs = [r for r in found if not file.inside(r[0], skip | replaced)]  # (what the conversion reads goes)
    import_lines = {id(b.statement) for scope in {*file.scopes.values(), file.top}
                    for bs in scope.bindings.values() for b in bs if b.kind in ("import", "from")}
    refs = sorted((r for r in refs if not file.inside(r[0], import_lines)), key=lambda r: file.orders.get(id(r[0]), 0))
    trigger = next((r for r in refs if _keras2_only(r[1])), None)
    if trigger is None:
        return None
    errors = []
    for node, path, v1, via_import in refs:
        if via_import:
            errors.append(Blocked(CODE, f"keras.{path} is reached through an import of a tf.keras module; this program "
                                        f"uses Keras 2 APIs only tf_keras has (tf.keras.{trigger[1]}), so tfmigrate "
                                        "moves its tf.keras code to tf_keras: spell it tf.keras.<name> and re-run",
                                  node))
        elif v1 and any(path == p or path.startswith(p + ".") or p.startswith(path + ".") for p in _V1_DIFFERENT):
            errors.append(Blocked(CODE, f"tf.compat.v1.keras.{path} is not tf.keras.{path} on TF 2.15 (a v1 Keras "
                                        f"object), and this program uses Keras 2 APIs only tf_keras has (tf.keras."
                                        f"{trigger[1]}), so its tf.keras code moves to tf_keras, where the v1 one is "
                                        "not moved: use the tf.keras name if its behaviour is what you want", node))
    errors += _other_files(file, program, trigger)
    if errors:
        raise Blocked.many(errors)
    moved = {id(r[0]) for r in refs}
    tainted = _tainted(file, program, moved, replaced)
    note = (CODE, f"tf.keras.{trigger[1]} is Keras 2 only (Keras 3, TF 2.16+'s tf.keras, has no counterpart): this "
                  f"program's own tf.keras code ({len(moved)} references) → tf_keras, Keras 2's code for TF 2.16+, "
                  "all of it, as a tf_keras object cannot be mixed with Keras 3 ones; the converted Estimator code "
                  "runs on Keras 3 beside it and shares no Keras object with it. The program now needs the tf_keras "
                  "package (pip install tf_keras, the version of TensorFlow)", trigger[0])
    return Plan([r for r in refs], tainted, note)


def _tainted(file, program, moved: set[int], replaced: set[int]) -> dict[int, cst.CSTNode]:
    """The bindings (any scope; by _key) whose value may hold a moved object: a function or class holding a moved
    reference, a name assigned from an expression holding one or reading such a binding (followed until nothing
    changes). Parameters are their callers' values; a binding the conversion replaces is its generated code's."""
    bindings = [b for scope in {*file.scopes.values(), file.top} for bs in scope.bindings.values() for b in bs
                if b.kind in ("assign", "augassign", "def", "class") and not file.inside(b.node, replaced)]
    tainted: dict[int, cst.CSTNode] = {}
    changed = True
    while changed:
        changed = False
        for b in bindings:
            if _key(b.node) in tainted:
                continue
            value = b.node if b.kind in ("def", "class") else b.value if b.value is not None else b.statement
            if not file.inside(value, replaced) and _holds(file, value, moved, program, tainted):
                tainted[_key(b.node)] = b.node
                changed = True
    return tainted


def _key(node) -> int:
    """A binding's key that survives the edits: a def's or class's name node (the def itself is rebuilt when its
    body changes), else the target Name."""
    return id(node.name) if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else id(node)


def _holds(file, value, moved: set[int], program, tainted: dict) -> bool:
    """`value` holds a moved reference, or reads a tainted binding."""
    found = False

    class _Find(cst.CSTVisitor):
        def on_visit(self, node) -> bool:
            nonlocal found
            if found:
                return False
            if id(node) in moved:
                found = True
            elif isinstance(node, cst.Name) and tainted and any(
                    _key(b.node) in tainted for b in program.lookup(node.value, node, file)):
                found = True
            return not found

    value.visit(_Find())
    return found


def _other_files(file, program, trigger) -> list[Blocked]:
    """A file of the program this file imports, or one importing it, that names tf.keras: the move is per file, and
    Keras objects may pass between them."""
    def imports(a, b) -> bool:  # a binds a name from module b
        for scope in {*a.scopes.values(), a.top}:
            for bindings in scope.bindings.values():
                for bound in bindings:
                    if bound.kind in ("import", "from") and not bound.target.startswith("tensorflow"):
                        parts = program.absolute(bound.target, a).split(".")
                        if any(program.by_module.get(".".join(parts[:n])) is b for n in range(1, len(parts) + 1)):
                            return True
        return False

    out = []
    for other in program.files:
        if other is file or not (imports(file, other) or imports(other, file)):
            continue
        named = _references(other, program)
        if named:
            out.append(Blocked(CODE, f"this file names Keras 2 APIs only tf_keras has (tf.keras.{trigger[1]}), so its "
                                     f"tf.keras code moves to tf_keras, but {other.path}, which it imports or is "
                                     f"imported by, names tf.keras too (tf.keras.{named[0][1]}): the move is not done "
                                     "across files; move both to tf_keras by hand", trigger[0]))
    return out


def rename(edits, made: Plan) -> None:
    """Each reference spelled tf_keras (the import is added after the import clean-up)."""
    for node, path, _, _ in made.refs:
        edits.replace(node, f"tf_keras.{path}")


def _reads(tree: cst.Module, tainted: dict[int, cst.CSTNode], generated) -> list[cst.CSTNode]:
    """The tainted bindings that `tree` reads at a node `generated` accepts (LibCST's scopes: a generated read of a
    local of the user's function counts too)."""
    scopes = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(ScopeProvider)
    hits = []
    for scope in {s for s in scopes.values() if s is not None}:
        for access in scope.accesses:
            if not generated(access.node):
                continue
            hits += [tainted[_key(a.node)] for a in access.referents
                     if getattr(a, "node", None) is not None and _key(a.node) in tainted]
    return hits


def _free_reads(text: str, names: dict[str, cst.CSTNode]) -> list[cst.CSTNode]:
    """Generated text (parsed alone): the tainted bindings of `names` it reads without binding them itself."""
    if not set(names) & _name_tokens(text):
        return []
    try:
        scopes = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True).resolve(ScopeProvider)
    except cst.ParserSyntaxError:  # (an indented fragment: every name it holds counts)
        return [names[n] for n in sorted(set(names) & _name_tokens(text))]
    hits = []
    for scope in {s for s in scopes.values() if s is not None}:
        for access in scope.accesses:
            name = getattr(access.node, "value", None)
            if name in names and (not access.referents or any(isinstance(a.scope, GlobalScope)
                                                                for a in access.referents)):
                hits.append(names[name])
    return hits


def check(new_module: cst.Module, original: cst.Module, texts, made: Plan) -> None:
    """Blocked when generated code (new nodes of the tree, or generated text swapped in after rendering) reads a
    module-level name the moved code binds: a tf_keras object would reach the Keras 3 code."""
    ids: set[int] = set()

    class _Collect(cst.CSTVisitor):
        def on_visit(self, node) -> bool:
            ids.add(id(node))
            return True

    original.visit(_Collect())
    hits = _reads(new_module, made.tainted, lambda node: id(node) not in ids)
    names = {_name_of(node): node for node in made.tainted.values()}
    for text in texts:
        hits += _free_reads(text, names)
    seen = {}
    for node in hits:
        seen.setdefault(id(node), node)
    if seen:
        raise Blocked.many([Blocked(CODE, f"`{_name_of(node)}` holds what this program's move to tf_keras changes (its "
                                          "code names Keras 2 APIs only tf_keras has), and the converted Estimator "
                                          f"code, which runs on Keras 3, reads `{_name_of(node)}`: a tf_keras object "
                                          "cannot be mixed with Keras 3 ones. Keep the Estimator's inputs free of "
                                          "tf.keras code, or move the program to tf_keras by hand", node)
                            for node in seen.values()])


def _name_of(node) -> str:
    return node.name.value if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else getattr(node, "value", "?")


def _name_tokens(text: str) -> set[str]:
    try:
        return {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME}
    except (tokenize.TokenError, IndentationError):
        return set(text.split())
