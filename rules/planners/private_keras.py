"""TFM001 TF 1.x's private `tensorflow.python.keras` imports: in a TF 1.x program that module WAS tf.keras.

Up to TF 2.5 `tf.keras` was `tensorflow.python.keras` (the same module objects), so a TF 1.x program importing
Keras from there (`from tensorflow.python.keras import models`) built tf.keras models. Its imports are rewritten to
the public spelling (`from tensorflow.keras import models`), with a note, and the rest of the conversion reads them
as tf.keras (`models.Sequential()` through model_to_estimator converts as `tf.keras.Sequential()`: facts/tf1_keras).

A program is TF 1.x when a file of it reaches TensorFlow through the TF 1.x API: imports `tensorflow.compat.v1`, or
names a TF1-only name (one TF2 keeps only under tf.compat.v1, such as `tf.logging` or `tf.train.AdamOptimizer`, or
`tf.contrib`). From TF 2.6 `tensorflow.python.keras` is an older private copy of Keras, not tf.keras (TF 2.15: its
models cannot go through model_to_estimator), so in a program with no such name the import blocks: which Keras it
ran is not known. A private module with no tf.keras name (`tensorflow.python.keras.engine`, `...optimizer_v2`)
blocks, named.

Example (`fixtures/private_keras_sequential`):

    from tensorflow.python.keras import models   →   from tensorflow.keras import models
"""
from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tfmigrate.diagnostics import Blocked

from ..facts.tf1_keras import public
from ..facts.tfnames import normalise, v1_names

CODE = "TFM001"
_PRIVATE = "tensorflow.python.keras"


def _imports(file) -> list:
    """(line, import statement) of the file's imports that bind a name from tensorflow.python.keras."""
    aliases = {id(b.node) for scope in {*file.scopes.values(), file.top} for bindings in scope.bindings.values()
               for b in bindings if b.kind in ("import", "from")
               and (b.target == _PRIVATE or b.target.startswith(_PRIVATE + "."))}
    found = []
    if aliases:  # (the index does not walk import statements: one walk, in the rare file that has such an import)

        class _Find(cst.CSTVisitor):
            def visit_SimpleStatementLine(self, line) -> None:
                for node in line.body:
                    if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar) \
                            and any(id(a) in aliases for a in node.names):
                        found.append((line, node))

        file.module.visit(_Find())
    return found


def tf1_api(program) -> tuple | None:
    """(file, node) of the first TF 1.x API use in the program (see the module docstring), or None."""
    for file in program.files:
        roots = set()
        for scope in {*file.scopes.values(), file.top}:
            for bindings in scope.bindings.values():
                for b in bindings:
                    if b.kind in ("import", "from") and b.target.startswith("tensorflow.compat.v1"):
                        return file, b.node
                    if b.kind in ("import", "from") and (b.target == "tensorflow" or b.target.startswith("tensorflow.")):
                        roots.add(b.name)
        for root in roots:
            for node in file.names.get(root, ()):
                top = node
                while isinstance(file.parent(top), cst.Attribute) and file.parent(top).value is top:
                    top = file.parent(top)
                path = normalise(program.qualified(top, file)) or ""
                if path.startswith("contrib.") or (v1_names().rename(path) or "").startswith("compat.v1."):
                    return file, top
    return None


def check_imports(file, program) -> list:
    """[(code, note, node)] for the file's tensorflow.python.keras imports, which `rename` then rewrites to
    tensorflow.keras; Blocked when the program is not TF 1.x or a module imported has no tf.keras equivalent."""
    statements = _imports(file)
    if not statements:
        return []
    errors, notes = [], []
    tf1 = tf1_api(program)
    for _, statement in statements:
        text = cst.Module([]).code_for_node(statement)
        if isinstance(statement, cst.Import):
            modules = [(a.name, get_full_name_for_node(a.name)) for a in statement.names]
        else:
            base = get_full_name_for_node(statement.module) if statement.module is not None else ""
            modules = [(statement.module, base)]
            if base == "tensorflow.python":  # `from tensorflow.python import keras`: only keras is public
                names = [a.name.value for a in statement.names] if not isinstance(statement.names, cst.ImportStar) \
                    else ["*"]
                if names != ["keras"]:
                    errors.append(Blocked(CODE, f"`{text}` imports TensorFlow's private modules with keras; import "
                                                "keras on its own line and re-run", statement))
                    continue
                modules = [(statement.module, "tensorflow.python.keras")]
        for node, dotted in modules:
            if not dotted.startswith(_PRIVATE):
                continue
            path = dotted[len("tensorflow."):]  # (normalise would read it as tf.keras already)
            if public(path) is None:
                errors.append(Blocked(CODE, f"`{text}`: {dotted} is private to TensorFlow's Keras and tf.keras has no "
                                            "such module; import what it is used for from tensorflow.keras (its public "
                                            "API) and re-run", statement))
            elif tf1 is None:
                errors.append(Blocked(CODE, f"`{text}`: tensorflow.python.keras was tf.keras only up to TF 2.5 (TF 2.6 "
                                            "on keeps another, older copy of Keras there) and this program uses no TF "
                                            "1.x name that says it ran there; import it from tensorflow.keras and "
                                            "re-run", statement))
            elif not notes:
                    where = f"`{cst.Module([]).code_for_node(tf1[1])[:50]}` in {tf1[0].path}"
                    notes.append((CODE, f"`{text}` → tensorflow.keras: in TF 1.x, which this program is written for "
                                        f"(TF 1.x API at {where}), tensorflow.python.keras was tf.keras", statement))
    if errors:
        raise Blocked.many(errors)
    return notes


def rename(module: cst.Module) -> cst.Module:
    """The converted module with its tensorflow.python.keras imports (those check_imports let through, and the
    conversion kept) spelled tensorflow.keras; after the import clean-up, which reads them as written."""
    return module.visit(_Rename()) if _PRIVATE.encode() in module.code.encode() or "tensorflow.python import" in \
        module.code else module


class _Rename(cst.CSTTransformer):
    def leave_ImportFrom(self, original, updated):
        dotted = get_full_name_for_node(updated.module) if updated.module is not None else None
        if dotted == "tensorflow.python" and not isinstance(updated.names, cst.ImportStar) \
                and [a.name.value for a in updated.names] == ["keras"]:
            return updated.with_changes(module=cst.Name("tensorflow"))
        if dotted and (dotted == _PRIVATE or dotted.startswith(_PRIVATE + ".")):
            return updated.with_changes(module=cst.parse_expression("tensorflow." + public(dotted[11:])))
        return updated

    def leave_ImportAlias(self, original, updated):
        dotted = get_full_name_for_node(updated.name)
        if dotted and dotted.startswith(_PRIVATE + "."):
            return updated.with_changes(name=cst.parse_expression("tensorflow." + public(dotted[11:])))
        return updated
