"""`Estimator(model_fn=wrapper.model_fn)` with `wrapper = Wrapper()`: the model_fn is a bound method of an object
the program builds (TF's migration_debugging guide keeps its model_fn so). Not converted: tfmigrate converts a
model_fn that is a function. The message says which method it is and whether it reads the object (`self.x`), which
decides what the user does: a method reading nothing of `self` is a function once `self` goes."""
from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tfmigrate.model import Value, code


def message(value: Value, program) -> str | None:
    """The message for `obj.name` (or `Cls(...).name`) where `obj` holds `Cls(...)` and class `Cls` of the program
    (this file or one it imports it from) defines `name`; None otherwise."""
    node, file = value.node, value.file
    if not isinstance(node, cst.Attribute):
        return None
    r = program.resolve(Value(node.value, file))
    made = r.node
    if not isinstance(made, cst.Call):
        return None
    cls = program.resolve(Value(made.func, r.value.file)).node
    if not isinstance(cls, cst.ClassDef):
        return None
    name = node.attr.value
    method = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
    if method is None:
        return None
    static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in method.decorators)
    if static:  # no `self`: its first parameter is the features, not the object
        return (f"model_fn=`{code(node)}` is the static method `{cls.name.value}.{name}` (reached through the object "
                f"`{code(node.value)}`): tfmigrate converts a model_fn that is a function (module level, or returned "
                "by a factory); move it out of the class as it is and re-run")
    if not method.params.params:
        return None
    this = method.params.params[0].name.value
    reads = [n for n in m.findall(method.body, m.Attribute(value=m.Name(this)))]
    built = "" if made is node.value else f" (`{code(made)}`)"
    head = (f"model_fn=`{code(node)}` is the method `{cls.name.value}.{name}` of the object `{code(node.value)}`"
            f"{built}: tfmigrate converts a model_fn that is a function (module level, or returned by a factory)")
    if reads:
        return (f"{head}, and this one uses the object's state (`{code(reads[0])}`), which the converted Keras model "
                "would have to hold; pass that state through params (or build it in the model_fn), make the model_fn "
                "a function, and re-run")
    return f"{head}; it reads nothing of `{this}`: make it a module-level function without `{this}` and re-run"
