"""`if init_checkpoint:` blocks that call `tf.compat.v1.train.init_from_checkpoint` (BERT's assignment map from
`get_assignment_map_from_checkpoint(tvars, init_checkpoint)`, in the model_fn or in a scaffold_fn under
`if use_tpu:`): not converted yet, blocked at the init_from_checkpoint call with what TF1 did and what converts."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import code
from ...facts.nodes import subtree_nodes
from ._constants import CODE

_TPU_CODE = "TFM605"  # (rules/planners/tpu.py's code: a TPUEstimator's model_fn)


class CheckpointInitMixin:
    """Checkpoint initialisation in the model_fn."""

    def checkpoint_init(self, stmt: cst.If) -> None:
        """Raise when the `if` calls train.init_from_checkpoint anywhere inside it (an arm, a nested def)."""
        calls = [n for n in subtree_nodes(stmt) if isinstance(n, cst.Call)]
        inits = [c for c in calls if (self.tf(c) or "").endswith("train.init_from_checkpoint")]
        if not inits:
            return
        nested = {id(n) for d in subtree_nodes(stmt) if isinstance(d, cst.FunctionDef) for n in subtree_nodes(d)}
        init = next((c for c in inits if id(c) not in nested), inits[0])  # the call that runs (not a scaffold_fn's)
        helper = next((c for c in calls if isinstance(c.func, (cst.Name, cst.Attribute))
                       and code(c.func).rsplit(".", 1)[-1].startswith("get_assignment_map")
                       or isinstance(c.func, cst.Name) and c.func.value in self.helpers), None)
        built = f", the map from `{code(helper)[:80]}`," if helper is not None else ""
        raise Blocked(_TPU_CODE if self.tpu is not None else CODE,
                      f"`{code(init)[:80]}` under `if {code(stmt.test)[:40]}:`{built} is not converted yet: TF1 set "
                      "the starting values of the variables the assignment map names from that checkpoint (on a "
                      "fresh model_dir, before the first step; a checkpoint in model_dir won over it), which the "
                      "migrated Keras model would not do. When the map restores trainable variables under their own "
                      "names and the checkpoint holds every one of them, pass the checkpoint as "
                      "Estimator(warm_start_from=tf.estimator.WarmStartSettings(ckpt, vars_to_warm_start=<regex of "
                      "those names>)) instead, which tfmigrate converts (the generated warm_start_from_tf1 restores "
                      "them by TF1 name and raises on a missing one, where the map skipped it)", init)
