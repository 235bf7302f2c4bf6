"""`del params` / `del config` (any model_fn parameter): the model_fn's way of saying it does not use an argument.
The statement only unbinds a local of the model_fn, so it goes; a read of the name after it (UnboundLocalError
in TF1: the original never ran) blocks."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ._constants import CODE
from ._names import names_read_anywhere


class UnusedArgsMixin:
    """`del <parameter>` statements."""

    def del_statement(self, small: cst.Del, stmt: cst.SimpleStatementLine) -> None:
        targets = small.target.elements if isinstance(small.target, cst.Tuple) else [small.target]
        names = [t.value if isinstance(t, cst.Element) else t for t in targets]
        if not all(isinstance(n, cst.Name) and n.value in self.locals for n in names):
            raise Blocked(CODE, f"statement `del {cst.Module([]).code_for_node(small.target)}` in model_fn is not "
                                "converted: only `del` of the model_fn's own parameters (params, config, ...) is",
                          stmt)
        deleted = {n.value for n in names}
        # the statement as written (static locals may have been substituted into a copy)
        written = self.written.get(id(stmt), stmt)
        body = list(self.fn.body.body)
        index = next((i for i, s in enumerate(body) if s is written), None)
        # a `del` at the top level: what follows it must not read the names; nested: nothing else may
        later = body[index + 1:] if index is not None else [s for s in body if s is not written]
        read = set().union(set(), *(names_read_anywhere(s) for s in later)) & deleted
        if read:
            name = sorted(read)[0]
            raise Blocked(CODE, f"`del {name}` in model_fn, then `{name}` is read"
                                + (" after it" if index is not None else " elsewhere in the model_fn")
                                + ": TF1 raised UnboundLocalError there (the original did not run); remove the del "
                                  "or the read", stmt)
