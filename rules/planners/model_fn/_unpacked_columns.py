"""`(gender, age, ...) = INPUT_COLUMNS` in a model_fn: names unpacked from a module-level value (the census samples'
feature-column list), kept as a forward statement of the migrated call(). The unpack is plain Python over a value the
module already holds, so running it in call() gives the same objects; what they are is read where they are used (the
input_layer verdict follows the unpack through the program model, rules/program.py)."""
from __future__ import annotations

import libcst as cst

from ...facts.calls import code


class UnpackedColumnsMixin:
    """Tuple unpacking of a module-level name."""

    def module_unpack(self, names: list[str], value: cst.BaseExpression, stmt) -> bool:
        """True when `stmt` (`names = value`) unpacks a module-level name outside any mode branch, loop or the
        loss's part: then kept in call() as it stands, its names forward values."""
        if not (isinstance(value, cst.Name) and value.value in self.module_names
                and not self.assign_counts.get(value.value)
                and self.loop is None and self.loss is None and self.active == self.live):
            return False
        self.check_names(value, set(), f"`{code(stmt).strip()[:60]}`", stmt)
        for name in names:
            self.forward.add(name)
            self.bind_name(name, "forward")
        if self.pending_leading:
            stmt = stmt.with_changes(leading_lines=[*self.pending_leading, *stmt.leading_lines])
            self.pending_leading = []
        self.call_body.append(stmt)
        return True

