"""A model_fn that runs another Estimator's model_fn through TF's private `Estimator._call_model_fn` (the TF 1.x
workaround that copied tf.contrib.estimator.forward_features' keys into the export signatures, GoogleCloudPlatform's
`forward_key_to_export`): not API, and the model it wraps is another Estimator's, so it blocks at that call."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import code


def private_model_fn_call(fn: cst.FunctionDef) -> cst.Call | None:
    """The first `<x>._call_model_fn(...)` in `fn`'s body, or None."""
    found: list[cst.Call] = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "_call_model_fn":
                found.append(node)

    fn.body.visit(_Find())
    return found[0] if found else None


def message(fn: cst.FunctionDef, call: cst.Call) -> str:
    return (f"model_fn `{fn.name.value}` calls `{code(call.func)}(...)`, TF's private Estimator method that runs "
            "another Estimator's model_fn (not API; its EstimatorSpec is edited here): a model_fn wrapping another "
            "Estimator is not converted. Drive that Estimator itself: canned estimators, tf.estimator.add_metrics "
            "and tf.contrib.estimator.forward_features over them are converted (forward_features' keys join the "
            "'predict' export signature, where such wrappers put them)")
