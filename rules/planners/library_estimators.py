"""Estimators of other libraries (part of TFM601): `adanet.Estimator(...)`, `tfgan.estimator.GANEstimator(...)`.

They subclass tf.estimator.Estimator inside a package the run does not hold and build their own model_fn from
their own objects (AdaNet's subnetwork generators, TF-GAN's generator and discriminator functions): nothing of the
program's files says what that model_fn computes, so tfmigrate does not convert them, and passing the library's
package would not help. A finding that meets one (the value handed to train_and_evaluate, the function a config
helper's caller uses to build its Estimator) names it, its line and its library, instead of "not an Estimator
tfmigrate can see" or "a file that builds no Estimator"."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import Value

# TF's own Estimators (public and private spellings) are tfmigrate's business; the rest are estimators only by name
_TF_ROOTS = ("tensorflow", "tensorflow_estimator", "keras", "tf_keras")
_NOT_TF = ("sklearn", "xgboost", "lightgbm", "catboost")


def library_estimator(call: cst.CSTNode, file, program) -> str | None:
    """`lib.X(...)` building class X of a library outside the run whose name ends in Estimator: its dotted name."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)):
        return None
    qualified = program.qualified(call.func, file) or ""
    module, _, last = qualified.rpartition(".")
    root = module.partition(".")[0]
    if not module or not last.endswith("Estimator") or not last[:1].isupper() or root in _TF_ROOTS + _NOT_TF:
        return None
    if any(module == name or module.startswith(name + ".") for name in program.by_module):
        return None  # a module of the run: its class is followed as the program's own
    return qualified


def built_library_estimator(call: cst.CSTNode, file, program, depth: int = 3) -> tuple[str, object, cst.Call] | None:
    """(dotted name, file, call) of the library Estimator `call` builds: itself, or what the def it calls returns
    (a builder function or method of the run, followed `depth` calls deep)."""
    name = library_estimator(call, file, program)
    if name is not None:
        return name, file, call
    if depth <= 0 or not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)):
        return None
    fn = program.callee(Value(call.func, file), 0)
    node, where = (fn.node, fn.file) if fn is not None else _method_of_instance(call.func, file, program)
    if not isinstance(node, cst.FunctionDef):
        return None
    scope = where.function_scopes.get(id(node))
    for ret in scope.returns if scope is not None else ():
        found = built_library_estimator(ret.value, where, program, depth - 1) if ret.value is not None else None
        if found is not None:
            return found
    return None


def _method_of_instance(func: cst.CSTNode, file, program) -> tuple:
    """`builder.estimator` with `builder = Builder()` (a class of the run): (the method's def, its file)."""
    if not isinstance(func, cst.Attribute):
        return None, None
    made = program.resolve(Value(func.value, file))
    if not isinstance(made.node, cst.Call):
        return None, None
    cls = program.resolve(Value(made.node.func, made.value.file))
    if not isinstance(cls.node, cst.ClassDef):
        return None, None
    scope = cls.value.file.class_scopes.get(id(cls.node))
    method = next((b.node for b in scope.bindings.get(func.attr.value, []) if b.kind == "def"), None) if scope else None
    return method, cls.value.file


def described(found: tuple[str, object, cst.Call], line, at: cst.CSTNode | None = None) -> str:
    """`adanet.Estimator(...)` (trainer.py:40), an Estimator of the library adanet, not tf.estimator's: … (where
    the call is not `at` itself)."""
    name, file, call = found
    where = f" ({file.path}:{line(call, file)})" if call is not at else ""
    return (f"`{name}(...)`{where}, an Estimator of the library "
            f"`{name.partition('.')[0]}`, not tf.estimator's: it builds its own model_fn inside that library, "
            "which tfmigrate does not convert (it converts tf.estimator.Estimator with a model_fn of the program, "
            "canned estimators and TPUEstimator); port the program to that library's TF2 API, or build a "
            "tf.estimator.Estimator with a model_fn of your own, and re-run")
