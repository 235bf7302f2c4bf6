"""What the converted model can see: a value reading labels, mode, a summary or a model_fn local the Keras
model does not have is blocked, saying why (and, for mode or a training flag passed to a function, what converts)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import code
from ._constants import BUILTINS, CODE
from ._names import calls_in, free_name_nodes, text_free_names
from ._variable_makers import builds_layers


# why a module beside the file is not in its program: the run's grouping (a module several programs import joins none)
NOT_READ = ("a module that programs of several files import is migrated with none of them, and one not passed is not "
            "read; so tfmigrate cannot follow what it defines here")

class VisibleNamesMixin:
    """Checks that a value reads only what the converted model sees."""

    def free_names(self, node: cst.CSTNode) -> set[str]:
        return {n.value for n in free_name_nodes(node)}

    def check_names(self, node: cst.CSTNode | str, allowed: set[str], where: str, report: cst.CSTNode | None = None) -> None:
        """`node` may be generated expression text: its names are read with `ast` (`text_free_names`)."""
        if isinstance(node, str):
            names = text_free_names(node)
            if names is None:
                node = cst.parse_expression(node)
        if not isinstance(node, str):
            names = self.free_names(node)
        bad = names - allowed - self.module_names - BUILTINS
        if bad:
            name = sorted(bad)[0]
            what = {self.labels: "labels", self.mode: "mode"}.get(name, f"`{name}`")
            if name in self.label_values:
                what = f"`{name}`, computed from labels,"
            elif name in self.dropped:
                what = f"`{name}` (a summary, dropped)"
            if name == self.mode and not isinstance(node, str):
                passed = self.mode_passed_to(node)
                if passed is not None and self.builds_no_layers(passed):  # moving it would not convert it
                    index = next(i for i, a in enumerate(passed.args)
                                 if isinstance(a.value, cst.Name) and a.value.value == self.mode)
                    raise Blocked(CODE, self.flag_passed_message(where, name, passed, passed.args[index], index),
                                  report or node)
                if passed is not None:
                    fn = code(passed.func)
                    raise Blocked(CODE, f"{where} passes mode to `{fn}()`, a function tfmigrate does not inline here "
                                        "(it is not defined in the model_fn's own module), so the converted model "
                                        f"cannot see mode; define `{fn}` in the model_fn's module: a helper there "
                                        "taking mode, or a bool such as `mode == tf.estimator.ModeKeys.TRAIN` for "
                                        "its training flag, is converted", report or node)
            if name in self.training_aliases and not isinstance(node, str):
                found = self.name_passed_to(node, name)
                if found is not None:
                    raise Blocked(CODE, self.flag_passed_message(where, name, *found), report or node)
            if self.optimizer is not None and name == self.optimizer[0] and not isinstance(node, str):
                raise Blocked(CODE, self.optimizer_used_message(where, name, node), report or node)
            raise Blocked(CODE, f"{where} uses {what}, which the converted model cannot see", report or node)

    def optimizer_used_message(self, where: str, name: str, node: cst.CSTNode) -> str:
        """The TF1 optimizer read other than by its minimize: it becomes the Keras model's own optimizer, so
        what wraps it (Horovod's DistributedOptimizer, which averaged gradients across Horovod processes) is lost."""
        call = next((c for c in calls_in(node) if any(isinstance(a.value, cst.Name) and a.value.value == name
                                                      for a in c.args)), None)
        dotted = self.names.program.qualified(call.func, self.names.file) if call is not None else None
        if dotted and dotted.split(".")[0] == "horovod":
            return (f"{where} wraps the optimizer `{name}` in Horovod's `{code(call.func)}`, whose allreduce averaged "
                    "the gradients across Horovod processes: Horovod is not converted (tfmigrate converts "
                    "tf.distribute strategies); remove Horovod from the program (train under a RunConfig "
                    "train_distribute strategy, such as MultiWorkerMirroredStrategy) and re-run tfmigrate")
        shown = f"`{code(call.func)}(...)`" if call is not None else "it"
        return (f"{where} uses the optimizer `{name}` other than by its minimize() ({shown}): the conversion makes "
                "it the Keras model's own optimizer, which this use would not reach; use the optimizer only through "
                "minimize()")

    def name_passed_to(self, node: cst.CSTNode, name: str) -> tuple[cst.Call, cst.Arg, int] | None:
        """The first call in `node` given the local `name` itself as an argument: (call, argument, its position)."""
        for call in calls_in(node):
            if isinstance(call.func, (cst.Name, cst.Attribute)) and self.tf(call.func) is None:
                for i, arg in enumerate(call.args):
                    if isinstance(arg.value, cst.Name) and arg.value.value == name and not arg.star:
                        return call, arg, i
        return None

    def callee(self, call: cst.Call):
        """The def of the migrated files `call` calls (a FunctionRef), or None."""
        from tfmigrate.model import Value

        program, file = self.names.program, self.names.file
        ref = program.callee(Value(call.func, file), 0) if program is not None and file is not None else None
        return ref if ref is not None and isinstance(ref.node, cst.FunctionDef) else None

    def builds_no_layers(self, call: cst.Call) -> bool:
        ref = self.callee(call)
        return ref is not None and not builds_layers(ref, self.names.program)

    def flag_passed_message(self, where: str, name: str, call: cst.Call, arg: cst.Arg, index: int) -> str:
        """Why a training flag (`is_training = mode == ModeKeys.TRAIN`) given to a helper tfmigrate does not inline
        blocks: the helper, the argument, where the helper is, and the two forms that convert."""
        fn = code(call.func)
        short = fn.rsplit(".", 1)[-1]
        program, file = self.names.program, self.names.file
        ref = self.callee(call)
        param, builds = None, None
        in_layers = (f"or its layers built in the model_fn with `training={name}` passed to the Keras layers that "
                     "take it (Dropout, BatchNormalization; tf.compat.v1.layers dropout/batch_normalization too)")
        if ref is not None:
            params = ref.params
            param = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
            builds = builds_layers(ref, program)
            there = (f"defined in {ref.file.path}, not the model_fn's module" if ref.file is not file else
                     "a function of this module" + (" that builds layers but is not called as `y = "
                                                    f"{short}(...)`, the statement a network helper is inlined from"
                                                    if builds else " that builds no layers"))
        else:
            root = fn.split(".")[0]
            bindings = program.lookup(root, call, file) if program is not None and file is not None else []
            imported = next((b for b in bindings if b.kind in ("import", "from")), None)
            source = None if imported is None else program.absolute(imported.target, file)
            if imported is not None and imported.kind == "from" and root == fn:  # `from lib import net`: lib
                source = source.rpartition(".")[0] or source
            there = (f"imported from `{source}`, which is not among the migrated files" if source else
                     "not a def of the migrated files")
            module = source and program.by_module.get(source)
            if module is not None:  # the run holds the module: say what the name is there, not that it is missing
                there = self._in_run_module(fn, call, module)
            elif source and program.beside(source, file):  # on disk beside this file, not read with it
                there = (f"imported from `{source}` ({program.beside(source, file)}), which tfmigrate does not read "
                         f"with this file: {NOT_READ}")
        argument = f"`{arg.keyword.value}=`" if arg.keyword is not None else f"its argument {index + 1}"
        if param is not None and (arg.keyword is None or param != arg.keyword.value):
            argument += f" (parameter `{param}`)"
        moved = (f"`{short}` defined in the model_fn's own module and called as `y = {short}(...)` (a network "
                 "helper there, one that builds layers, is inlined into the Keras model with the flag as its "
                 f"training flag), {in_layers}")
        if builds is False:  # a function computing with the flag: only layers given `training=` carry it
            moved = (f"the flag given to layers in the model_fn, `training={name}` on the Keras layers that take it "
                     "(Dropout, BatchNormalization; tf.compat.v1.layers dropout/batch_normalization too): a function "
                     "that computes with the flag without layers is not converted, wherever it is defined")
        flag = "mode" if name == self.mode else f"the training flag `{name}` (mode == ModeKeys.TRAIN)"
        return (f"{where} passes {flag} to `{fn}()` as {argument}; "
                f"`{fn}` is {there}, so the converted model cannot give it Keras' training flag. What converts: "
                f"{moved}")

    def _in_run_module(self, fn: str, call: cst.Call, module) -> str:
        """What `fn` is in a module of the run that program.callee did not follow to a def (a class, a value)."""
        program, file = self.names.program, self.names.file
        dotted = program.qualified(call.func, file)
        found = program.module_member(dotted) if dotted else None
        if found is None:
            return f"not defined at the top of {module.path} (a module of the run), so tfmigrate cannot follow it"
        if found[0].kind == "class":
            return (f"a class defined in {module.path} (a module of the run): tfmigrate inlines a network helper "
                    "def, not a class, and does not follow a class of another module yet")
        return f"bound by a `{found[0].kind}` in {module.path} (a module of the run), not a def tfmigrate can follow"

    def mode_passed_to(self, node: cst.CSTNode) -> cst.Call | None:
        """The first call in `node` given `mode` itself as an argument (`network(features, mode)`), or None."""
        for call in calls_in(node):
            if isinstance(call.func, (cst.Name, cst.Attribute)) and self.tf(call.func) is None and any(
                    isinstance(a.value, cst.Name) and a.value.value == self.mode for a in call.args):
                return call
        return None
