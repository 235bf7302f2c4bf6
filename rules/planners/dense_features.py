"""TFM001 `tf.keras.layers.DenseFeatures` / `tf.compat.v1.keras.layers.DenseFeatures` used on its own: the
feature-column layer Keras 2 had. Keras 3 (TF 2.21's tf.keras) has no DenseFeatures, in tf.keras or in
tf.compat.v1.keras; `tf_keras` (Keras 2's code, packaged for TF 2.16+) still has it.

- A layer built and called outside any model (`tf.keras.layers.DenseFeatures(columns)(features)`, or assigned to
  a name that is then only called, as the TF migration guide does to show what columns give) →
  `tf_keras.layers.DenseFeatures(...)`, with `import tf_keras` after the TensorFlow import and a note: the program
  then needs the `tf_keras` package (`pip install tf_keras`, the version matching TensorFlow).
- A layer inside a Keras model (an element of a Sequential's list, called on `keras.Input` values, written in a
  class body), inside a model_fn the conversion turns into a Keras 3 model, or used in a way tfmigrate does not
  follow (passed on, imported by name) blocks: a Keras 2 layer cannot be mixed with Keras 3 layers. Use the canned
  estimator conversion for a canned model, or rebuild the input with Keras preprocessing layers /
  `keras.utils.FeatureSpace`.

Why exact: tf_keras 2.21's `DenseFeatures` is the same code as keras 2.15's (`feature_column/dense_features_v2.py`
and its base classes differ only in import paths and docstrings), and TF 2.15's v1 class (`tf.compat.v1.keras`)
differs from it only in using variable scopes (for partitioned variables, which a call outside a model does not
take). Measured on TF 2.15 (v1 and v2 class) and TF 2.21 (tf_keras) with one global seed: numeric (with
normalizer_fn), bucketized, indicator (vocabulary list, weighted identity) and embedding columns give the same
values and variable names.

Example (the TF guide `migrate/migrating_feature_columns.ipynb`):

    feature_layer = tf1.keras.layers.DenseFeatures(feature_columns)   →   feature_layer = tf_keras.layers.DenseFeatures(feature_columns)
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.tfnames import normalise

CODE = "TFM001"
_PATH = "keras.layers.DenseFeatures"  # (normalise drops compat.v1: both spellings read so)
_NEW = "tf_keras.layers.DenseFeatures"
_IMPORT = "import tf_keras\n"
_MODEL_CALLS = {"keras.Sequential", "keras.models.Sequential", "keras.Model", "keras.models.Model"}
_INPUTS = {"keras.Input", "keras.layers.Input"}
_ADVICE = ("a Keras 2 layer (tf_keras) cannot be mixed with Keras 3 layers, and Keras 3 has no DenseFeatures: for a "
           "canned estimator let tfmigrate convert it, else build the input with Keras preprocessing layers or "
           "keras.utils.FeatureSpace (TF guide migrate/migrating_feature_columns) and re-run")


def _references(file, program) -> list:
    """The file's expressions that name DenseFeatures through a TensorFlow import (the outermost Attribute)."""
    roots = {b.name for scope in {*file.scopes.values(), file.top} for bindings in scope.bindings.values()
             for b in bindings if b.kind in ("import", "from") and (b.target == "tensorflow"
                                                                   or b.target.startswith("tensorflow."))}
    found = []
    for root in roots:
        for node in file.names.get(root, ()):
            top = node
            while isinstance(file.parent(top), cst.Attribute) and file.parent(top).value is top:
                top = file.parent(top)
            if normalise(program.qualified(top, file)) == _PATH:
                found.append(top)
    return found


def _path(node, file, program) -> str:
    return normalise(program.qualified(node, file)) or ""


def _inside(node, file, kinds) -> cst.CSTNode | None:
    parent = file.parent(node)
    while parent is not None and not isinstance(parent, kinds):
        parent = file.parent(parent)
    return parent


def _why_not(ref, file, program, model_fns: set[int]) -> str | None:
    """Why this DenseFeatures reference is not a standalone layer tfmigrate can move to tf_keras, or None."""
    if isinstance(ref, cst.Name):
        return "is imported by name; spell it tf.keras.layers.DenseFeatures and re-run"
    build = file.parent(ref)
    if not isinstance(build, cst.Call) or build.func is not ref:
        return "is used without being built here (passed on, or tested); tfmigrate follows only a layer built and called"
    fn = build
    while True:
        fn = _inside(fn, file, (cst.FunctionDef, cst.ClassDef))
        if fn is None:
            break
        if isinstance(fn, cst.ClassDef):
            return f"is built in class {fn.name.value} (a Keras model or layer): {_ADVICE}"
        if id(fn) in model_fns:
            return f"is built in model_fn {fn.name.value}, which becomes a Keras 3 model: {_ADVICE}"
    holder = file.parent(build)
    if isinstance(holder, cst.Element):  # in a list: a Sequential's layers, or layers kept for a model
        return f"is an element of a list of layers (a Sequential model): {_ADVICE}"
    calls = []  # the calls of the layer: right away, or through the one name it is assigned to
    if isinstance(holder, cst.Call) and holder.func is build:
        calls = [holder]
    elif isinstance(holder, cst.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0].target, cst.Name):
        name = holder.targets[0].target.value
        for use in file.names.get(name, ()):
            if use is holder.targets[0].target or _inside(use, file, (cst.FunctionDef,)) is not \
                    _inside(holder, file, (cst.FunctionDef,)):
                continue
            call = file.parent(use)
            if not isinstance(call, cst.Call) or call.func is not use:
                return f"is assigned to `{name}`, which is used other than called; {_ADVICE}"
            calls.append(call)
    if not calls:
        return f"is not called where it is built (nor through the one name it is assigned to); {_ADVICE}"
    for call in calls:
        for arg in call.args:
            if _from_inputs(arg.value, file, program):
                return f"is called on keras.Input values (a functional Keras model): {_ADVICE}"
        if isinstance(file.parent(call), cst.Element):
            return f"its output goes into a list (a model's outputs, or Concatenate): {_ADVICE}"
    return None


def _from_inputs(value, file, program, depth: int = 0) -> bool:
    """Whether `value` calls keras.Input, or is a name of its scope assigned from such a value, or a parameter some
    call of its function passes such a value to (followed a few calls deep)."""
    exprs, scope = [value], _inside(value, file, (cst.FunctionDef,))
    if isinstance(value, cst.Name) and depth < 4:
        for use in file.names.get(value.value, ()):
            parent = file.parent(use)
            if isinstance(parent, cst.AssignTarget) and _inside(use, file, (cst.FunctionDef,)) is scope:
                exprs.append(file.parent(parent).value)
        params = scope.params.params if scope is not None else ()
        index = next((i for i, p in enumerate(params) if p.name.value == value.value), None)
        if index is not None:  # a parameter: what the function's callers pass
            for use in file.names.get(scope.name.value, ()):
                call = file.parent(use)
                if not isinstance(call, cst.Call) or call.func is not use:
                    continue
                args = [a.value for a in call.args if a.keyword is not None and a.keyword.value == value.value]
                positional = [a.value for a in call.args if a.keyword is None and not a.star]
                args += positional[index:index + 1]
                if any(_from_inputs(a, file, program, depth + 1) for a in args):
                    return True
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, node) -> None:
            found.append(node.func)

    for expr in exprs:
        expr.visit(_Find())
    return any(_path(f, file, program) in _INPUTS for f in found if isinstance(f, (cst.Name, cst.Attribute)))


def plan(file, program, model_fns: list) -> tuple[list, list]:
    """(the references to rewrite, [(code, note, node)]); Blocked for a DenseFeatures it cannot move."""
    refs = _references(file, program)
    if not refs:
        return [], []
    skip = {id(n) for n in model_fns}
    errors = [Blocked(CODE, f"tf.keras.layers.DenseFeatures {why}", ref) for ref in refs
              if (why := _why_not(ref, file, program, skip)) is not None]
    if errors:
        raise Blocked.many(errors)
    note = (CODE, "tf.keras.layers.DenseFeatures → tf_keras.layers.DenseFeatures (Keras 3 has none; tf_keras runs the "
                  "same Keras 2 code): the program now needs the tf_keras package (pip install tf_keras, the version "
                  "of TensorFlow)", refs[0])
    return refs, [note]


def rename(edits, refs: list) -> None:
    """Each reference spelled tf_keras (the import is added by add_import, after the import clean-up)."""
    for ref in refs:
        edits.replace(ref, _NEW)


def add_import(module: cst.Module) -> cst.Module:
    """`import tf_keras` after the first top-level `import tensorflow ...` statement (once)."""
    body = list(module.body)
    if any(module.code_for_node(s).strip() == _IMPORT.strip() for s in body):
        return module
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, cst.Import) and any(module.code_for_node(a.name) == "tensorflow" for a in s.names)
                for s in stmt.body):
            body.insert(i + 1, cst.parse_statement(_IMPORT))
            return module.with_changes(body=body)
    return module.with_changes(body=[cst.parse_statement(_IMPORT), *body])
