"""How the converted file reaches what the conversion generates next to the model_fn (its builder,
EstimatorCheckpoints, NanLossCheck, …): `module.name`, or `from m import name` in place of the model_fn's import."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from ...facts.sites import Site
from ._handed import LOCAL_SUPPORT, local_support, not_handed
from ...facts.estimator import CODE


class ReachMixin:
    """Emitter: the names this file calls the generated code by."""

    def builder(self, site: Site) -> str:
        name = self.builders[id(site.model_fn.node)]
        entry = self.analysis.handed.get(id(site.call))
        if entry is not None:  # the run loop's parameter holds the builder now
            return entry.param
        if site.factory is not None and site.factory[1] is None:  # defined in the function that builds it
            return name
        if site.factory is not None:  # the factory now returns the builder: call what the program wrote
            text = self.render(Value(site.model_fn_expr, site.file), site.call, "model_fn")
            return text if isinstance(site.model_fn_expr, (cst.Name, cst.Attribute, cst.Call)) else f"({text})"
        if site.model_fn.file is site.file:
            return name
        expr = site.model_fn_expr
        if isinstance(expr, cst.Attribute):
            return f"{code(expr.value)}.{name}"
        alias = self.program.module_alias(site.model_fn.file, site.call, site.file)
        if alias is not None:  # `fn = trainer.model.model_fn` / `from m import model_fn` beside `import m`
            return f"{alias}.{name}"
        if self.import_by_name(site, name):
            return name
        why = not_handed(site, self.program, self.analysis.line)
        if why is not None:
            raise why
        raise Blocked(CODE, f"model_fn `{code(expr)}` is imported by name from {site.model_fn.file.path}; use "
                            "`import module` and `module.model_fn` so the migrated builder can be reached", expr)

    def support_name(self, site: Site, name: str, at: cst.CSTNode) -> str:
        """A class keras_build.py.j2 writes next to the model's builder (EstimatorCheckpoints, NanLossCheck), as
        this file reaches it: `module.Name` when the model_fn is `module.model_fn` of another file, or when the
        Estimator built in another file is used here (`helpers.make_estimator()` trained in main.py: through
        `import helpers` at `at`, the use; blocked there without such an import)."""
        if site.model_fn.file is self.file and site.factory is not None and site.factory[1] is not None and \
                not self.file.inside(at, {id(site.factory[0])}):
            return local_support(self, name, at, "the model_fn is a closure its factory returns, used outside it")
        if site.model_fn.file is self.file:
            return name
        if id(site.call) in self.analysis.handed and site.file is self.file:
            return local_support(self, name, at, "the Estimator is built with a model_fn handed through a parameter")
        if site.file is not self.file:
            alias = self.program.module_alias(site.model_fn.file, at, self.file)
            if alias is None and name in LOCAL_SUPPORT and \
                    self.program.module_alias(self.file, site.call, site.file) is not None:
                # a run loop handed the Estimator's builder function by the module that imports it cannot import
                # that module back: it writes its own copy of the generic class (nothing of the model's module)
                return local_support(self, name, at, "")
            if alias is None:
                module = site.model_fn.file.module_name or "module"
                raise Blocked(CODE, f"the Estimator of {site.file.path} is used here, but the generated {name} next "
                                    f"to its model in {site.model_fn.file.path} cannot be reached from here; "
                                    f"add `import {module}` to this file (a module import, not `from .... import`)", at)
            return f"{alias}.{name}"
        expr = site.model_fn_expr
        if isinstance(expr, cst.Call):  # a factory of another module: `module.make_model_fn(...)`
            expr = expr.func
        if isinstance(expr, cst.Attribute):
            return f"{code(expr.value)}.{name}"
        alias = self.program.module_alias(site.model_fn.file, at, self.file)
        if alias is not None:
            return f"{alias}.{name}"
        if self.import_by_name(site, name):
            return name
        raise Blocked(CODE, f"model_fn `{code(site.model_fn_expr)[:40]}` of {site.model_fn.file.path}: the generated "
                            f"{name} there cannot be reached from here; use `import module` and `module.model_fn`",
                      site.model_fn_expr)

    def import_by_name(self, site: Site, name: str) -> bool:
        """`from model import model_fn` (at module level) names the Estimator's model_fn: the import takes `name` (the
        builder, a support class) in its place. False when the model_fn is reached otherwise, or `name` is taken here."""
        expr, wanted = site.model_fn_expr, site.model_fn.node.name.value
        if site.file is self.file and not site.file.contains(expr):
            # a subclass of the model_fn's module built here (`from estimator import MyEstimator`): the class goes,
            # its import takes `name` in its place
            expr = site.call.func
            cls = self.program.resolve(Value(expr, self.file)).node if isinstance(expr, cst.Name) else None
            if not isinstance(cls, cst.ClassDef) or not site.model_fn.file.contains(cls):
                return False
            wanted = cls.name.value
        if site.file is not self.file or not isinstance(expr, cst.Name) or not site.model_fn.file.module_name:
            return False
        found = self.program.lookup(expr.value, expr, self.file)
        if not found and self.file.star_imports:
            # `from model_fn import *`: the builder and support classes the conversion puts at the top of that
            # module come with it, unless a later star import may rebind the name (one outside the run, or one
            # of the run defining it)
            if name.startswith("_") or name in self.file.names or \
                    self.program.star_member(expr.value, self.file) is None:
                return False
            for base in reversed(self.file.star_imports):
                module = self.program.absolute(base, self.file)
                if module == site.model_fn.file.module_name:
                    return True
                if module not in self.program.by_module or self.program.module_member(f"{module}.{name}"):
                    return False
            return False
        if len(found) != 1 or found[0].kind != "from" or found[0].scope.kind != "module" or \
                not isinstance(found[0].node, cst.ImportAlias) or self.program.absolute(found[0].target, self.file) \
                != f"{site.model_fn.file.module_name}.{wanted}":
            return False
        alias = found[0].node
        entry = self.by_name.get(id(alias))
        if entry is not None and name in entry[2]:
            return True
        if name in self.file.names:
            return False
        stmt = found[0].statement
        statement = next((s for s in ([stmt] if isinstance(stmt, cst.ImportFrom) else getattr(stmt, "body", ()))
                          if isinstance(s, cst.ImportFrom) and not isinstance(s.names, cst.ImportStar)
                          and any(a is alias for a in s.names)), None)
        if statement is None:
            return False
        self.by_name.setdefault(id(alias), (statement, alias, []))[2].append(name)
        return True
