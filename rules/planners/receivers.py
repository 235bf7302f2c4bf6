"""Serving input receivers of exports (part of TFM601): what the SavedModel's serving signature takes.

`export_saved_model(base, serving_input_receiver_fn)` and `FinalExporter`/`LatestExporter(name, receiver_fn)` get
their serving signature's inputs from the receiver function:
- `tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size)`: serialized
  tf.Example protos ("examples") parsed with feature_spec → the migrated model's `export_parsing_saved_model`.
  Also returned from a helper (which goes when nothing else calls it), with the feature_spec built in a helper
  (`make_parse_example_spec(columns)`: the helper stays) or a local of the receiver's helper assigned once and
  read only there (its value is written at the export).
- a hand-written function (a `def` with no required parameter: the Estimator called it with none) whose every
  `return` is `tf.estimator.export.ServingInputReceiver(features, receiver_tensors)` or
  `TensorServingInputReceiver(...)`. It stays where it is, with two edits: each return gives
  `(features, receiver_tensors)` (TF2 has no ServingInputReceiver), and its `tf.placeholder`s are spelled
  `tf.compat.v1.placeholder`. The migrated model's `export_receiver_saved_model` runs it once inside
  `tf.compat.v1.wrap_function` (a TF1-style graph, where placeholders exist), and prunes that graph from the
  receiver tensors to the features: the signature's inputs are the receiver tensors, named by their keys (a lone
  tensor is "input"), with the placeholders' dtypes and shapes; the features reach the model as the Estimator
  passed them (a lone tensor of a ServingInputReceiver as {"feature": tensor}, of a TensorServingInputReceiver as
  the tensor itself); the outputs are the PREDICT outputs. That is the graph the Estimator exported, op for op.

- `tf.estimator.export.build_raw_serving_input_receiver_fn(features, default_batch_size=None)`: TF 2.15 made one
  placeholder per key of `features` (a dict of tensors: under eager execution, the only kind it accepted; a
  TensorSpec, numpy array or Keras input raised), dtype `t.dtype`, shape `[default_batch_size] + t.shape[1:]`, and fed
  that dict to the model as its features → the migrated model's `export_raw_saved_model(base, features,
  default_batch_size)`: the same `features` expression, evaluated where the export is (names must mean the same
  there), gives each signature input's name, dtype and shape the same way (fixtures/export_raw). With nothing
  trained before the export, the model is built from those tensors before it restores the checkpoint.

Blocked, at the line: `build_raw_serving_input_receiver_fn` over placeholders (`tf.compat.v1.placeholder` exists
only with eager execution disabled; give it tensors of the right dtype and shape, e.g. `tf.zeros([1, 2])`), `receiver_tensors_alternatives`
(extra signatures), `sparse_placeholder` inputs, a receiver called or read anywhere else (its result changes type),
a return that is not one of the two receivers, a receiver tfmigrate cannot follow to a function.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FunctionRef, Value
from tfmigrate.visitors import Visitor

from ..facts.calls import TF, code, is_literal

CODE = "TFM601"
PARSING = "estimator.export.build_parsing_serving_input_receiver_fn"
RAW = "estimator.export.build_raw_serving_input_receiver_fn"
_RECEIVERS = {"estimator.export.ServingInputReceiver": False, "estimator.export.TensorServingInputReceiver": True}
_RECEIVER_ARGS = ["features", "receiver_tensors", "receiver_tensors_alternatives"]
_PLACEHOLDERS = ("placeholder", "placeholder_with_default")
RAW_ARGS = ["features", "default_batch_size"]


@dataclass
class ReceiverFn:
    """A hand-written serving_input_receiver_fn and the edits that make it return (features, receiver_tensors)."""

    fn: FunctionRef
    single_feature: bool  # TensorServingInputReceiver: the model gets the lone feature tensor itself
    returns: list[tuple[cst.Call, str]] = field(default_factory=list)  # receiver call → its tuple text
    placeholders: list[tuple[cst.BaseExpression, str]] = field(default_factory=list)  # (`tf.placeholder`, its TF path)
    tables: list = field(default_factory=list)  # bindings of dicts of receivers holding it (serving_functions.py)

    @property
    def file(self):
        return self.fn.file


def handwritten(fn: FunctionRef, value: Value, tf_path) -> ReceiverFn:
    """Check a receiver def and plan its edits; `tf_path(node, file)` gives a node's normalised TF path."""
    node, file = fn.node, fn.file
    name = node.name.value
    if fn.bound:
        raise Blocked(CODE, f"serving_input_receiver_fn `{code(value.node)[:60]}` binds {', '.join(fn.bound)} with "
                            "functools.partial; not converted yet", value.node)
    params = node.params
    required = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                if p.default is None]
    if required:
        raise Blocked(CODE, f"serving_input_receiver_fn `{name}` takes {', '.join(required)}, but the Estimator "
                            "called it with no arguments", node)
    finder = _Body()
    node.body.visit(finder)
    if not finder.returns:
        raise Blocked(CODE, f"serving_input_receiver_fn `{name}` returns no ServingInputReceiver", node)
    kinds = set()
    plan = ReceiverFn(fn, False)
    from ..facts.sites import bind_values

    for ret in finder.returns:
        call = ret.value
        path = tf_path(call.func, file) if isinstance(call, cst.Call) else None
        if path not in _RECEIVERS:
            raise Blocked(CODE, f"serving_input_receiver_fn `{name}` returns `{code(ret.value)[:60] if ret.value else 'None'}`; "
                                "only a direct tf.estimator.export.ServingInputReceiver(...) or "
                                "TensorServingInputReceiver(...) is converted (return it from each return)", ret)
        kinds.add(_RECEIVERS[path])
        args = bind_values(call, _RECEIVER_ARGS, path.rsplit(".", 1)[-1], file)
        if "features" not in args or "receiver_tensors" not in args:
            raise Blocked(CODE, f"{path.rsplit('.', 1)[-1]}() without features or receiver_tensors", call)
        alternatives = args.get("receiver_tensors_alternatives")
        if alternatives is not None and not is_literal(alternatives.node, None):
            raise Blocked(CODE, "receiver_tensors_alternatives is not converted: each alternative was one more "
                                "serving signature; export them as separate SavedModels", alternatives.node)
        plan.returns.append((call, f"({code(args['features'].node)}, {code(args['receiver_tensors'].node)})"))
    if len(kinds) > 1:
        raise Blocked(CODE, f"serving_input_receiver_fn `{name}` returns both ServingInputReceiver and "
                            "TensorServingInputReceiver; the model's features would change form", node)
    plan.single_feature = kinds.pop()
    for call in finder.calls:
        path = tf_path(call.func, file)
        if path == "sparse_placeholder":
            raise Blocked(CODE, "sparse_placeholder in a serving_input_receiver_fn is not converted: a sparse "
                                "signature input", call)
        if path in _PLACEHOLDERS:
            plan.placeholders.append((call.func, path))
    return plan


def check_raw_features(node: cst.BaseExpression, tf_path) -> None:
    """build_raw_serving_input_receiver_fn(features): placeholders in `features` ran only in TF1 graph mode."""
    if isinstance(node, cst.Dict) and not node.elements:
        raise Blocked(CODE, "build_raw_serving_input_receiver_fn({}) is not converted: a signature without inputs "
                            "(the model_fn got no features to read)", node)
    finder = _Body()
    node.visit(finder)
    for call in finder.calls:
        if tf_path(call.func) in (*_PLACEHOLDERS, "sparse_placeholder"):
            raise Blocked(CODE, "build_raw_serving_input_receiver_fn over placeholders is not converted: placeholders "
                                "exist only with eager execution disabled; pass tensors of the serving dtype and shape "
                                "(e.g. tf.zeros([1, 2])), whose shapes after the batch dimension the signature takes",
                          call)


def edits(plan: ReceiverFn, edits) -> None:
    """Each receiver return → `(features, receiver_tensors)`; each placeholder → `tf.compat.v1.placeholder` (the
    generated TF marker, so the leftover-name pass leaves it: in wrap_function's graph it means what it did)."""
    for call, text in plan.returns:
        edits.replace(call, text)
    for func, path in plan.placeholders:
        edits.replace(func, f"{TF}.compat.v1.{path}")


class _Body(Visitor):
    """The returns of a function body (not of functions nested in it) and every call in it."""

    def __init__(self):
        self.returns: list[cst.Return] = []
        self.calls: list[cst.Call] = []
        self.depth = 0

    def visit_FunctionDef(self, node) -> None:
        self.depth += 1

    def leave_FunctionDef(self, node) -> None:
        self.depth -= 1

    def visit_Lambda(self, node) -> None:
        self.depth += 1

    def leave_Lambda(self, node) -> None:
        self.depth -= 1

    def visit_Return(self, node: cst.Return) -> None:
        if self.depth == 0:
            self.returns.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
