"""Mode keys outside any converted Estimator (part of TFM601): `tf.estimator.ModeKeys.TRAIN` is the string it always was.

`tf.estimator.ModeKeys.TRAIN / EVAL / PREDICT` are the strings "train", "eval", "infer" (tensorflow_estimator's
`class ModeKeys`, checked on TF 2.15), and tf.contrib.learn's `ModeKeys.TRAIN / EVAL / INFER` the same strings
(facts/contrib_learn). TF 2.16 has no tf.estimator, so a file that reads them only as constants (a script running
a model that is not an Estimator, `model(features, tf.estimator.ModeKeys.TRAIN)` in a test, a helper comparing a
mode it is handed) needs nothing of the Estimator: where no Estimator the run converts reaches the use, each key
becomes its string literal, with one note per file, and the file then converts like any TF 1.x file (its other 1.x
names by the TF-names rule, TFM001; what that rule cannot convert blocks there, at its line).

Reached means: the function holding the key, or a function calling it (transitively, through the program's call
sites), is a model_fn of an Estimator of the run, or is called from a file of a converted Estimator's unit
(its driver, model_fn, specs, input functions). There the key keeps today's behaviour: it converts with that
Estimator, or blocks with it (a helper whose `mode == ModeKeys.TRAIN` becomes the Keras `training` flag is the
model_fn rule's business, not a constant). A key in a file of a converted unit is converted by that unit already.

Exact: the key is a class attribute bound to a str literal; nothing else reads the class here (a `ModeKeys` class
held in a name, `getattr(tf.estimator.ModeKeys, k)`, `vars(ModeKeys)` stay blocked: its other attributes differ).

Blocked, with a true message: other Estimator API (RunConfig, ServingInputReceiver, TPU InputPipelineConfig) in a
file that builds no Estimator, which names where its functions are called from (the file that calls them, or
nobody in the migrated files) and what to do: migrate it with the Estimator it serves, or remove it.

Example: `out = net(x, tf.estimator.ModeKeys.PREDICT)` in a script with no Estimator → `out = net(x, "infer")`
with a TFM601 note.
"""
from __future__ import annotations

import libcst as cst

CODE = "TFM601"
# normalised TF path (facts/tfnames: contrib.learn's INFER reads as PREDICT) → the string literal it equals
VALUES = {"estimator.ModeKeys.TRAIN": '"train"', "estimator.ModeKeys.EVAL": '"eval"',
          "estimator.ModeKeys.PREDICT": '"infer"'}
_WORDS = ("TRAIN", "EVAL", "PREDICT", "INFER")
_MAX_FUNCTIONS = 200  # a caller walk this wide is not a helper's: treat it as reached (keep today's behaviour)


def key_uses(file, names) -> list[tuple[cst.Attribute, str]]:
    """Every `<...>ModeKeys.KEY` attribute of the file that means a mode key, with its string literal."""
    found = []
    for word in _WORDS:
        for name in file.names.get(word, ()):
            attr = file.parents.get(id(name))
            if isinstance(attr, cst.Attribute) and attr.attr is name and names.of(attr) in VALUES:
                found.append((attr, VALUES[names.of(attr)]))
    return sorted(found, key=lambda f: file.orders.get(id(f[0]), 0))


def _functions_around(file, node) -> list:
    """The defs enclosing `node`, innermost first (a nested def is reached through its outer one)."""
    out, fn = [], file.enclosing_function(node)
    while fn is not None:
        out.append(fn)
        fn = file.enclosing_function(fn)
    return out


def reached_by(file, node, program, model_fns, unit: set[int]) -> str | None:
    """How an Estimator of the run reaches `node` (a phrase for a message), or None when none does: the walk
    goes up the program's call sites from the defs enclosing it; a model_fn of the run, or a call made from a
    file of a converted Estimator's unit, reaches it."""
    from tfmigrate.engine import position_in

    todo = [(fn, file) for fn in _functions_around(file, node)]
    seen: set[int] = set()
    while todo:
        fn, where = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if len(seen) > _MAX_FUNCTIONS:
            return "through more callers than tfmigrate follows"
        if id(fn) in model_fns:
            return f"the model_fn `{fn.name.value}` ({where.path}:{position_in(where.module, fn.name)[0]})"
        for call, caller in program.call_sites(fn):
            if id(caller) in unit:
                return f"a call at {caller.path}:{position_in(caller.module, call)[0]}, in a converted Estimator's files"
            todo.extend((outer, caller) for outer in _functions_around(caller, call))
    return None


def unreached(file, names, program, analysis, unit: set[int]) -> dict[int, tuple[cst.Attribute, str]]:
    """The mode keys of `file` no Estimator of the run reaches: id(node) → (node, its string literal)."""
    out = {}
    for attr, text in key_uses(file, names):
        if reached_by(file, attr, program, analysis.model_fn_defs, unit) is None:
            out[id(attr)] = (attr, text)
    return out


def note(keys: dict) -> tuple[str, str, cst.CSTNode]:
    """The file's one note for its converted keys (at the first)."""
    first = next(iter(keys.values()))  # (insertion order is file order)
    count = len(keys)
    return (CODE, f"{count} tf.estimator mode key{'s' if count > 1 else ''} (ModeKeys.TRAIN/EVAL/PREDICT, "
                  "tf.contrib.learn's INFER) written as the string each always was (\"train\", \"eval\", \"infer\"): "
                  "no Estimator tfmigrate converts reaches this code, and TF 2.16 has no tf.estimator", first[0])
