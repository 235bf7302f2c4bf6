"""Mode keys in a module-level def nothing in the run calls or names (an old input function left beside the one the
TrainSpec uses), in a file blocked for other reasons (part of TFM601).

Such a file's report lists the TF1 names of its unused defs too (program.py `_unused_helper_blockers`: they are left
as written when the file converts, so their leftovers do not depend on the other blockers). A mode key there is not
one: once the file converts it is written as the string it always was ("train", "eval", "infer"; planners/mode_keys),
so it is left out of that report rather than blocking as a TFM001 leftover that converting would never show."""
from __future__ import annotations

from . import mode_keys


def without_keys(blockers: list, file, names) -> list:
    """`blockers` (the leftover-name findings of unused defs) without those at a mode key."""
    keys = {id(node) for node, _ in mode_keys.key_uses(file, names)}
    return [b for b in blockers if not any(x.node is not None and id(x.node) in keys for x in b.errors)]
