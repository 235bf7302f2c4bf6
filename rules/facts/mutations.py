"""Whether a module-level value is changed in place anywhere in the program (read by name, every file): a rule that
reads the value as its literal assignment must not convert when the object the run holds differs from it."""
from __future__ import annotations

import libcst as cst

# list, dict and set methods that change the object in place
MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "sort", "reverse", "clear", "add", "update",
                      "discard", "setdefault", "popitem", "difference_update", "intersection_update",
                      "symmetric_difference_update", "__setitem__", "__delitem__"})


def changed_in_place(program, name: str) -> cst.CSTNode | None:
    """The first node changing `name`'s object in place (`name.append(...)`, `name[k] = v`, `del name[k]`,
    `name += [...]`, also as `module.name`), or None. By name in every file: a same-named other value blocks too
    (a false block, never a missed change)."""
    for file in program.files:
        for use in file.names.get(name, ()):
            parent = file.parent(use)
            # `module.name` is the value too
            outer = file.parent(parent) if isinstance(parent, cst.Attribute) and parent.attr is use else parent
            node = use if outer is parent else parent
            holder = file.parent(outer) if outer is not None else None
            if isinstance(outer, cst.Attribute) and outer.value is node and outer.attr.value in MUTATORS:
                return outer
            if isinstance(outer, cst.Subscript) and outer.value is node \
                    and isinstance(holder, (cst.AssignTarget, cst.Del)):
                return outer
            if isinstance(outer, cst.AugAssign) and outer.target is node:
                return outer
    return None
