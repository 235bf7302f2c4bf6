"""`record`: the part of `dataclasses.dataclass` the command's hot path uses, without its import cost.

`import dataclasses` imports `inspect` (and with it ast, dis, tokenize, enum, ...): ~5 ms, and each decorated
class costs ~0.3 ms more — together a sixth of a cached `tfmigrate rewrite --check` over a whole repository. The
classes a cached run builds (findings, file results, options, settings, the rule table) use `record` instead:
fields from the class annotations in order, defaults from the class body, `field(default_factory=...)` for
mutable defaults; `__init__`, `__repr__` and `__eq__` as dataclasses writes them (the same repr, so cache keys
built from `repr(options)` do not change), and with `frozen=True` no attribute assignment and a `__hash__` of the
fields. tests/speed/test_records.py compares each behaviour with dataclasses'.
"""
from __future__ import annotations

_MISSING = object()


class _Field:
    __slots__ = ("default_factory",)

    def __init__(self, default_factory):
        self.default_factory = default_factory


def field(*, default_factory):
    """A default built per instance (a list, a set, a dict)."""
    return _Field(default_factory)


class FrozenError(AttributeError):
    """Assignment to a field of a frozen record (dataclasses raises its FrozenInstanceError, an AttributeError)."""


def _frozen_setattr(self, name, value):
    raise FrozenError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise FrozenError(f"cannot delete field {name!r}")


def record(cls=None, *, frozen: bool = False):
    """Decorate a class like `@dataclass` / `@dataclass(frozen=True)` (eq and repr on; no order, no slots)."""
    if cls is None:
        return lambda c: record(c, frozen=frozen)
    names = [n for n in cls.__dict__.get("__annotations__", {}) if not n.startswith("__")]
    scope: dict = {"_MISSING": _MISSING, "_set": object.__setattr__}
    params, body = [], []
    for name in names:
        default = cls.__dict__.get(name, _MISSING)
        if isinstance(default, _Field):
            scope[f"_factory_{name}"] = default.default_factory
            params.append(f"{name}=_MISSING")
            value = f"_factory_{name}() if {name} is _MISSING else {name}"
            delattr(cls, name)
        else:
            if default is not _MISSING:
                scope[f"_default_{name}"] = default
                params.append(f"{name}=_default_{name}")
            elif any("=" in p for p in params):
                raise TypeError(f"non-default field {name!r} follows a default field in {cls.__name__}")
            else:
                params.append(name)
            value = name
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    source = f"def __init__(self, {', '.join(params)}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    exec(source, scope)  # noqa: S102 - generated from the class's own field names, as dataclasses does
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    fields = tuple(names)

    def __repr__(self):
        return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in fields)})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in fields) == tuple(getattr(other, n) for n in fields)

    cls.__repr__, cls.__eq__ = __repr__, __eq__
    cls.__record_fields__ = fields
    if frozen:
        cls.__setattr__, cls.__delattr__ = _frozen_setattr, _frozen_delattr
        cls.__hash__ = lambda self: hash(tuple(getattr(self, n) for n in fields))
    else:
        cls.__hash__ = None  # as dataclasses: eq without frozen makes instances unhashable
    return cls
