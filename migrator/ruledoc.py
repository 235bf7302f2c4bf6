"""`tfmigrate rule CODE`: a rule's documentation, from its registry entry and its module's docstring (`ruff rule`)."""
from __future__ import annotations

import difflib
import inspect
from importlib import import_module


def all_rules():
    from tfmigrate.rules import RULES

    from .suppressions import ENGINE_RULES

    return (*RULES, *ENGINE_RULES)


def find(code: str):
    code = code.strip().upper()
    for rule in all_rules():
        if code in (rule.code, rule.name.upper()):
            return rule
    return None


def suggestions(code: str) -> list[str]:
    names = [r.code for r in all_rules()] + [r.name for r in all_rules()]
    return difflib.get_close_matches(code, names, n=3, cutoff=0.5)


def module_of(rule):
    # engine rules name their module in full; the rules registry names it under the rules package (planners.layers)
    name = rule.module if rule.module.startswith("tfmigrate.") else f"tfmigrate.rules.{rule.module}"
    return import_module(name)


def render(rule) -> str:
    """Markdown: title, what it converts, where it lives, fixtures, then the module's docstring."""
    module = module_of(rule)
    siblings = [r.code for r in all_rules() if r.module == rule.module and r.code != rule.code]
    source = (module.__file__ or module.__name__).replace("\\", "/")
    # as the repository lays it out; a package's folder (planners.model_fn: a package of modules)
    package = source.endswith("/__init__.py")
    where = ("/".join(source.split("/")[-2:]) if rule.module.startswith("tfmigrate.")
             else "rules/" + rule.module.replace(".", "/") + ("/" if package else ".py"))
    lines = [f"# {rule.name} ({rule.code})", "", f"Converts: {rule.summary}", "",
             f"Module: `{where}`" + (f" (also {', '.join(siblings)})" if siblings else "")]
    if rule.fixtures:
        lines.append("Fixtures (original.py → migrated.py): " + ", ".join(f"`fixtures/{f}`" for f in rule.fixtures))
    lines += ["", inspect.cleandoc(module.__doc__ or "(no documentation)")]
    return "\n".join(lines) + "\n"
