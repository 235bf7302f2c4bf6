"""TFM301, a training op built by a helper in another module of the run: BERT's `train_op =
optimization.create_optimizer(loss, init_lr, num_train_steps, num_warmup_steps, use_tpu)` (polynomial decay with a
linear warmup, a weight-decay Adam subclassing `tf.compat.v1.train.Optimizer`, `tf.gradients` +
`tf.clip_by_global_norm` + `apply_gradients(..., global_step=...)` and `global_step.assign(global_step + 1)` grouped
with it).

Not converted: blocked at the call with what the helper builds. A `tf.compat.v1.train.Optimizer` subclass whose
`apply_gradients` makes its slots with `tf.compat.v1.get_variable` cannot run the same way on TF2: eagerly, each
call makes a new variable with its initial value (measured on TF 2.21 with a weight-decay Adam of that shape: the
first moment restarts at zero every step, so the update silently differs from TF1's), so the message names the
class and its line. What converts: the same math written in the model_fn with a `tf.compat.v1.train` optimizer
tfmigrate generates exactly (AdamOptimizer, a `polynomial_decay` learning rate
without the warmup blend, `tf.gradients` +
`clip_by_global_norm` + `apply_gradients`, rules/planners/model_fn); a custom optimizer is rewritten by hand as a
`keras.optimizers.Optimizer` subclass (slots from `add_variable_from_reference`).

Example: `train_op = optimization.create_optimizer(total_loss, lr, steps, warmup, False)` → TFM301 at that line,
naming `optimization.py:<line>` and `AdamWeightDecayOptimizer (optimization.py:<line>)`.
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value

from ..facts.calls import code
from ..facts.nodes import subtree_nodes

CODE = "TFM301"
_TRAINING = frozenset({"apply_gradients", "minimize"})


def _optimizer_classes(ref, program) -> list[tuple[cst.ClassDef, object]]:
    """Classes of the program the helper instantiates that subclass a TF1 `train.Optimizer`."""
    found = []
    for call in (n for n in subtree_nodes(ref.node) if isinstance(n, cst.Call)):
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            continue
        r = program.resolve(Value(call.func, ref.file))
        if isinstance(r.node, cst.ClassDef) and any(
                code(base.value).endswith("train.Optimizer") for base in r.node.bases):
            if all(cls is not r.node for cls, _ in found):
                found.append((r.node, r.value.file))
    return found


def _slots_by_get_variable(cls: cst.ClassDef) -> bool:
    """Its apply_gradients calls get_variable (the slots TF1 made once per graph)."""
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "apply_gradients":
            return any(isinstance(n, cst.Call) and code(n.func).endswith("get_variable") for n in subtree_nodes(stmt))
    return False


def foreign_training_op(call: cst.Call, ref, program, line) -> Blocked | None:
    """`call` (in a model_fn) runs `ref`, a function of another module that builds the training op (it calls
    apply_gradients or minimize): the Blocked naming it and its optimizer, else None. `line(file, node)`: a
    node's line in its file."""
    if not any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _TRAINING
               for n in subtree_nodes(ref.node)):
        return None
    where = f"{ref.file.path}:{line(ref.file, ref.node)}"
    message = f"{code(call.func)}() builds the training op in another module ({where})"
    for cls, file in _optimizer_classes(ref, program):
        message += f" with {cls.name.value} ({file.path}:{line(file, cls)}), a tf.compat.v1.train.Optimizer subclass"
        if _slots_by_get_variable(cls):
            message += (" whose apply_gradients makes its slots with get_variable: on TF2, eagerly, every call makes "
                        "new variables at their initial values (measured on TF 2.21: the moments restart each "
                        "step), so it cannot run as written")
        message += ";"
    return Blocked(CODE, message + " not converted. What converts: the same math in the model_fn with a "
                                   "tf.compat.v1.train optimizer tfmigrate generates exactly (AdamOptimizer, a "
                                   "polynomial_decay learning rate without the warmup blend, tf.gradients + clip_by_global_norm + "
                                   "apply_gradients); a custom optimizer rewritten by hand as a "
                                   "keras.optimizers.Optimizer subclass (slots from add_variable_from_reference)",
                   call)
