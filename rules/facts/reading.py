"""Facts the planners read about a unit: the TF module names a file binds, what its Estimator sites export and read."""
from __future__ import annotations

import libcst as cst
from tfmigrate.names import ImportTable


def module_level_names(module: cst.Module, table: ImportTable) -> frozenset[str]:
    names = set(table.bindings)
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = small.targets if isinstance(small, cst.Assign) else [small]
                    for t in targets:
                        if isinstance(t.target, cst.Name):
                            names.add(t.target.value)
                elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(getattr(small, "names", None), cst.ImportStar):
                    for alias in small.names:
                        n = alias.asname.name if alias.asname else alias.name
                        if isinstance(n, cst.Name):
                            names.add(n.value)
                        elif isinstance(n, cst.Attribute):
                            names.add(cst.Module([]).code_for_node(n).split(".")[0])
    return frozenset(names)


def export_kinds(exports: list) -> frozenset[str]:
    """Which export methods the model needs: "parsing" (build_parsing_serving_input_receiver_fn), "raw"
    (build_raw_serving_input_receiver_fn) and/or "receiver" (a hand-written serving_input_receiver_fn);
    "receiver_restore": such an export restores a checkpoint first (nothing trained before it), so the model is
    built from the receiver's features first (receiver_sample)."""
    receivers = [u.export for u in exports if u.kind == "export"] + [r for u in exports for _, r in u.exporters]
    return frozenset("receiver" if "receiver_fn" in r else "raw" if "raw_features" in r else "parsing"
                     for r in receivers) | \
        frozenset("receiver_restore" for u in exports if u.kind == "export" and u.restore and "receiver_fn" in u.export)


def reading_sites(sites: list) -> tuple[list, list]:
    """The uses that read the model's PREDICT outputs: predict calls, and exports (export_saved_model, exporters)."""
    uses = [u for s in sites for u in s.uses]
    return [u for u in uses if u.kind == "predict"], [u for u in uses if u.kind == "export" or u.exporters]
