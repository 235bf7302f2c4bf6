"""Where a program defines a command-line flag: absl / tf.compat.v1.flags `DEFINE_*("name", default, ...)` and
argparse `add_argument("--name", ...)`, found by the attribute the program reads (`FLAGS.name`, `args.name`)."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst


@dataclass(frozen=True, eq=False)
class Flag:
    call: cst.Call
    file: object  # the FileIndex holding the call
    define: str  # "DEFINE_string", ... or "add_argument"
    default: cst.BaseExpression | None  # as written; None when not given
    choices: cst.BaseExpression | None  # argparse choices= / DEFINE_enum's enum_values, as written
    keywords: dict = field(default_factory=dict)  # the call's other keyword arguments (action=, type=, ...)


def definitions(program, name: str, defines: tuple[str, ...]) -> list[Flag]:
    """Every definition of flag `name`: absl calls named in `defines`, and argparse add_argument calls whose
    attribute is `name` (dest=, else the first long option with dashes as underscores)."""
    found = []
    for file in program.files:
        for call in file.calls:
            func = call.func
            attr = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            if attr not in defines and attr != "add_argument":
                continue
            args = [a.value for a in call.args if a.keyword is None]
            kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            first = args[0] if args else kw.get("name")
            if not isinstance(first, cst.SimpleString) or not isinstance(first.evaluated_value, str):
                continue
            if attr in defines and first.evaluated_value == name:
                default = args[1] if len(args) > 1 else kw.get("default")
                choices = args[2] if attr == "DEFINE_enum" and len(args) > 2 else kw.get("enum_values")
                found.append(Flag(call, file, attr, default, choices, kw))
            elif attr == "add_argument" and _dest(args, kw) == name:
                found.append(Flag(call, file, attr, kw.get("default"), kw.get("choices"), kw))
    return found


def _dest(args: list, kw: dict) -> str | None:
    """argparse's attribute for `add_argument(*args, **kw)`: dest=, else the first long option's name."""
    dest = kw.get("dest")
    if dest is not None:
        return dest.evaluated_value if isinstance(dest, cst.SimpleString) else None
    options = [a.evaluated_value for a in args if isinstance(a, cst.SimpleString)]
    first = next((o for o in options if isinstance(o, str) and o.startswith("--")), None)
    return first[2:].replace("-", "_") if first else None
