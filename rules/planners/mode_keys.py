"""Mode keys outside any converted Estimator (part of TFM601): `tf.estimator.ModeKeys.TRAIN` is the string it always was.

`tf.estimator.ModeKeys.TRAIN / EVAL / PREDICT` are the strings "train", "eval", "infer" (tensorflow_estimator's
`class ModeKeys`, checked on TF 2.15), and tf.contrib.learn's `ModeKeys.TRAIN / EVAL / INFER` the same strings
(facts/contrib_learn). TF 2.16 has no tf.estimator, so a file that reads them only as constants (a script running
a model that is not an Estimator, `model(features, tf.estimator.ModeKeys.TRAIN)` in a test, a helper comparing a
mode it is handed) needs nothing of the Estimator: where no Estimator the run converts reaches the use, each key
becomes its string literal, with one note per file, and the file then converts like any TF 1.x file (its other 1.x
names by the TF-names rule, TFM001; what that rule cannot convert blocks there, at its line). A name the file binds
to a key (`TRAIN = tf.estimator.ModeKeys.TRAIN`, a class attribute `EVAL = ...`) holds the string then, and is read
as written.

Reached means: the function holding the key, or a function calling it (transitively, through the program's call
sites), is a model_fn of an Estimator of the run, or is called from a file of a converted Estimator's unit
(its driver, model_fn, specs, input functions); a key at the module level of a file such a unit file imports is
reached too. There the key keeps today's behaviour: it converts with that Estimator, or blocks with it (a helper
whose `mode == ModeKeys.TRAIN` becomes the Keras `training` flag is the model_fn rule's business, not a constant),
the finding naming the Estimator (`file:line`) and the call or import that reaches the key. A key in a file of a
converted unit is converted by that unit already.

Exact: the key is a class attribute bound to a str literal; nothing else reads the class here (a `ModeKeys` class
held in a name, `getattr(tf.estimator.ModeKeys, k)`, `vars(ModeKeys)` stay blocked: its other attributes differ).

Blocked, with a true message: other Estimator API (RunConfig, ServingInputReceiver, TPU InputPipelineConfig: the
latter are int constants, but only ever read by TPUConfig, itself Estimator API) in a file that builds no
Estimator, naming where its helper is called (file:line, and whether that file is a converted Estimator's), or the
linked files that import it without calling it, or, when none is linked, saying so without denying an importer
(the run links files by the imports it resolves from its root: one importing the module by a longer package path
is another unit) and what to do: run from where the import paths start with the Estimator's file, or remove it.

Example: `out = net(x, tf.estimator.ModeKeys.PREDICT)` in a script with no Estimator → `out = net(x, "infer")`
with a TFM601 note.
"""
from __future__ import annotations

import libcst as cst

from .library_estimators import built_library_estimator, described

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


def alias_uses(file, names, keys) -> list[cst.Name]:
    """Names this file binds to a key (`TRAIN = tf.estimator.ModeKeys.TRAIN`), where read: they hold the string
    once the key is written as one, so they change nothing."""
    targets = set()
    for attr, _ in keys:
        parent = file.parents.get(id(attr))
        if isinstance(parent, cst.Assign) and parent.value is attr:
            targets |= {t.target.value for t in parent.targets if isinstance(t.target, cst.Name)}
    return [n for t in sorted(targets) for n in file.names.get(t, ()) if names.of(n) in VALUES]


def _functions_around(file, node) -> list:
    """The defs enclosing `node`, innermost first (a nested def is reached through its outer one)."""
    out, fn = [], file.enclosing_function(node)
    while fn is not None:
        out.append(fn)
        fn = file.enclosing_function(fn)
    return out


def reached_by(file, node, program, sites, unit: dict, importer, line) -> tuple[str, object] | None:
    """How an Estimator of the run reaches `node`: (a phrase for a message, that Estimator's Site), or None when
    none does. The walk goes up the program's call sites from the defs enclosing `node`; a model_fn of the run,
    or a call made from a file of an Estimator's unit (`unit`: id(file) → its Site), reaches it; module-level code
    runs when a file of a unit imports this one (`importer`: (that Site, that file), or None). `line(node, file)`:
    a node's line (driver.Analysis.line)."""
    model_fns = {id(s.model_fn.node): s for s in sites}
    todo = [(fn, file) for fn in _functions_around(file, node)]
    if not todo and importer is not None:
        return f"the import of this module by {importer[1].path}", importer[0]
    seen: set[int] = set()
    while todo:
        fn, where = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if len(seen) > _MAX_FUNCTIONS:  # (a walk this wide is not a helper's: reached, today's behaviour)
            return "more callers than tfmigrate follows", sites[0] if sites else None
        if id(fn) in model_fns:
            return (f"the model_fn `{fn.name.value}` ({where.path}:{line(fn.name, where)})",
                    model_fns[id(fn)])
        for call, caller in program.call_sites(fn):
            if id(caller) in unit:
                return f"the call at {caller.path}:{line(call, caller)}", unit[id(caller)]
            todo.extend((outer, caller) for outer in _functions_around(caller, call))
    return None


def unreached(file, names, program, sites, unit: dict, importer, line) -> dict[int, tuple[cst.CSTNode, str | None]]:
    """The mode keys of `file` no Estimator of the run reaches: id(node) → (node, its string literal), and the
    names holding them (`alias_uses`) → (name, None)."""
    out, known = {}, {}
    keys = key_uses(file, names)
    for node, text in [*keys, *((n, None) for n in alias_uses(file, names, keys))]:
        key = id(file.enclosing_function(node))  # (the same def, the same answer)
        if key not in known:
            known[key] = reached_by(file, node, program, sites, unit, importer, line) is None
        if known[key]:
            out[id(node)] = (node, text)  # (text None: a name holding a key, left as written)
    return out


def built_at(site, line) -> str:
    """`path:line` of the Estimator's constructor call."""
    return f"{site.file.path}:{line(site.call, site.file)}"


def note(keys: dict) -> tuple[str, str, cst.CSTNode]:
    """The file's one note for its converted keys (at the first)."""
    written = [k for k in keys.values() if k[1] is not None]
    first = written[0]  # (insertion order is file order)
    count = len(written)
    return (CODE, f"{count} tf.estimator mode key{'s' if count > 1 else ''} (ModeKeys.TRAIN/EVAL/PREDICT, "
                  "tf.contrib.learn's INFER) written as the string each always was (\"train\", \"eval\", \"infer\"): "
                  "no Estimator tfmigrate converts reaches this code, and TF 2.16 has no tf.estimator", first[0])


def module_message(what: str, importer, line) -> str:
    """The finding for a mode key at the module level of a file a converted Estimator's file imports."""
    site, by = importer
    return (f"{what} at module level: this file builds no Estimator; {by.path} imports it, a file of the Estimator "
            f"built at {built_at(site, line)}, which converts mode keys only in the files of its driver, model_fn "
            "and input functions: write the key as its string (\"train\", \"eval\", \"infer\": the value it always "
            f"was), or move it into {by.path}, and re-run")


def _library_estimator_near(call, where, program):
    """(the function around `call`, the library Estimator it builds) when that function builds one (`config =
    get_run_config(...)` then `return get_gan_estimator(..., config)` returning `tfgan.estimator.GANEstimator`)."""
    fn = where.enclosing_function(call)
    if not isinstance(fn, cst.FunctionDef):
        return None
    found = _library_estimator_in(fn, where, program, skip=call)
    return (fn.name.value, found) if found is not None else None


def _library_estimator_in(fn, file, program, skip=None):
    """The library Estimator a call in `fn` builds (itself or through a builder of the run), or None."""
    for other in file.calls:
        if other is not skip and file.enclosing_function(other) is fn:
            found = built_library_estimator(other, file, program)
            if found is not None:
                return found
    return None


def helper_message(what: str, holder: str, file, node, program, sites, unit: dict, importer, users: list,
                   line) -> str:
    """The finding for Estimator API `what` in the function `holder` of a file that builds no Estimator: where
    it is reached from, as the run shows it (no importer or builder claimed that is not there)."""
    head = f"{what} in `{holder}`: this file builds no Estimator"
    reached = reached_by(file, node, program, sites, unit, importer, line)
    if what.split(" (", 1)[0].rsplit(".", 1)[0].endswith("ModeKeys") and reached is not None:
        why, site = reached
        at = f"the Estimator built at {built_at(site, line)}" if site is not None else "an Estimator of the run"
        return (f"{head}; {at} reaches it through {why}, and tfmigrate converts mode keys with an Estimator only "
                f"in the files of its driver, model_fn and input functions: move `{holder}` into the file that "
                "calls it, or write the key as its string (\"train\", \"eval\", \"infer\": the value it always was), "
                "and re-run")
    fns = _functions_around(file, node)  # (the outermost def is the helper the run would call)
    own = _library_estimator_in(fns[-1], file, program) if fns else None
    if own is not None:  # the function itself builds another library's Estimator with it (a test of an AdaNet run)
        return (f"{head.replace('no Estimator', 'no tf.estimator Estimator')}; `{holder}` builds "
                f"{described(own, line)}")
    calls = program.call_sites(fns[-1]) if fns else []
    if calls:
        call, where = calls[0]
        library = _library_estimator_near(call, where, program)
        if library is not None:  # the Estimator it configures is another library's (TF-GAN's GANEstimator)
            caller, found = library
            return (f"{head.replace('no Estimator', 'no tf.estimator Estimator')}; `{holder}` is called at {where.path}:{line(call, where)}, in `{caller}`, which builds "
                    f"{described(found, line)}")
        whose = (f"a file of the Estimator built at {built_at(unit[id(where)], line)}" if id(where) in unit else
                 "a file that builds no Estimator tfmigrate converts")
        return (f"{head}; `{holder}` is called at {where.path}:{line(call, where)} ({whose}), and "
                "tfmigrate converts this API only where the Estimator it configures is built or driven: move it "
                "there, or pass the file that builds that Estimator too, and re-run")
    if users:
        one = len(users) == 1
        return (f"{head}, and nothing in the migrated files calls `{holder}` ({', '.join(users[:3])} "
                f"import{'s' if one else ''} this module but do{'es' if one else ''} not call it): pass the file that "
                "builds the Estimator it serves too, or remove it if nothing does, and re-run")
    # (the run links files by the imports it resolves from its root: one importing this module by a longer package
    # path is another unit, which this file cannot see, so no importer is claimed either way)
    return (f"{head}, and no file linked with it in this run calls `{holder}` (a file is linked when its import of "
            "this module resolves from the run's root): run tfmigrate from the directory where the program's import "
            "paths start, with the file that builds the Estimator it serves, or remove it if nothing uses it, and "
            "re-run")
