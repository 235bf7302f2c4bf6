"""An import-linter contract: no module imports another module's `_private` name.

import-linter's own `private_modules` contract covers `_module`s; this one covers names: `from x import _y` and
`x._y` on a name bound by an import of the project's own modules (relative, or `tfmigrate.*`), for every module of
the root package. Names of one's own package's `__init__` (`from . import _y`) are not exempt: a name shared
between modules is public, spelled without `_`. Third-party privates (a guarded typer patch) are not this
contract's business.
"""
from __future__ import annotations

import ast
import importlib.util

from importlinter.domain.contract import Contract, ContractCheck
from importlinter.application import output


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def violations(path: str) -> list[tuple[int, str]]:
    """(line, what) for each private name this file takes from another module."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            where = "." * node.level + (node.module or "")
            if not (node.level or where.split(".")[0] == "tfmigrate"):
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {where} import {alias.name}"))
                else:
                    modules.add(alias.asname or alias.name)  # may be a module: its `_x` attributes are checked
        elif isinstance(node, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] == "tfmigrate")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and _private(node.attr)):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return sorted(found)


class PrivateNamesContract(Contract):
    def check(self, graph, verbose: bool) -> ContractCheck:
        broken = []
        for module in sorted(graph.modules):
            spec = importlib.util.find_spec(module)
            if spec is None or not spec.origin or not spec.origin.endswith(".py"):
                continue
            broken += [(module, line, what) for line, what in violations(spec.origin)]
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for module, line, what in check.metadata["broken"]:
            output.print_error(f"{module}:{line}: {what}")
