"""TFM701 strategy and TFM702 target/strategy refusals.

`RunConfig(train_distribute=...)` → a TF2 strategy built where the Estimator was: TF1 class names become their
TF2 names (`tf.distribute.experimental.MultiWorkerMirroredStrategy` → `tf.distribute.MultiWorkerMirroredStrategy`,
which reads TF_CONFIG with chief + worker tasks as the Estimator did) and `None` becomes the default strategy.
`--strategy` replaces whatever the program used. Combinations known not to run on TF 2.21 are refused:
Keras 3 `Model.fit` under MultiWorkerMirroredStrategy (keras-team/keras#20585) → use `--target ctl`;
parameter-server migration is not implemented yet.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ._args import bind, code, generated, is_literal

CODE = "TFM701"
CODE_REFUSED = "TFM702"

_KINDS = {
    "distribute.MultiWorkerMirroredStrategy": "multi-worker-mirrored",
    "distribute.experimental.MultiWorkerMirroredStrategy": "multi-worker-mirrored",
    "distribute.MirroredStrategy": "mirrored",
    "distribute.OneDeviceStrategy": "one-device",
    "distribute.experimental.ParameterServerStrategy": "parameter-server",
    "distribute.get_strategy": "default",
}
_TF2_CTOR = {
    "multi-worker-mirrored": ("tf.distribute.MultiWorkerMirroredStrategy", ["cluster_resolver", "communication_options"]),
    "mirrored": ("tf.distribute.MirroredStrategy", ["devices", "cross_device_ops"]),
    "one-device": ("tf.distribute.OneDeviceStrategy", ["device"]),
    "default": ("tf.distribute.get_strategy", []),
}
_OPTION_CODE = {
    "default": "tf.distribute.get_strategy()",
    "one-device": 'tf.distribute.OneDeviceStrategy("/cpu:0")',
    "mirrored": "tf.distribute.MirroredStrategy()",
    "multi-worker-mirrored": "tf.distribute.MultiWorkerMirroredStrategy()",
}
MULTI_WORKER = {"multi-worker-mirrored", "parameter-server"}


@dataclass
class StrategyPlan:
    kinds: set[str]  # every strategy the expression can produce
    expression: str  # TF2 code building it


def convert(node: cst.BaseExpression | None, tf_path_of) -> StrategyPlan:
    """TF2 code for a `train_distribute` expression (None/absent → default strategy)."""
    if node is None or is_literal(node, None):
        return StrategyPlan({"default"}, generated(_OPTION_CODE["default"]))
    kinds: set[str] = set()

    class _Rewrite(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            path = tf_path_of(original)
            if path is None:
                return updated
            kind = _KINDS.get(path)
            if kind is None:
                raise Blocked(CODE, f"tf.{path} as train_distribute is not converted", original)
            if kind == "parameter-server":
                raise Blocked(CODE_REFUSED, "parameter-server Estimator jobs are not migrated yet (custom loop + "
                                            "ClusterCoordinator is planned); the program is left unchanged", original)
            kinds.add(kind)
            name, signature = _TF2_CTOR[kind]
            args = bind(original, signature, f"tf.{path}", CODE)
            return cst.parse_expression(f"{generated(name)}({', '.join(f'{k}={code(v)}' for k, v in args.items())})")

        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            if original.value == "None":
                kinds.add("default")
                return cst.parse_expression(generated(_OPTION_CODE["default"]))
            return updated

    new = node.visit(_Rewrite())
    if not kinds:
        raise Blocked(CODE, f"cannot tell which strategy `{code(node)}` builds", node)
    return StrategyPlan(kinds, code(new))


def from_option(option: str) -> StrategyPlan:
    if option == "parameter-server":
        raise Blocked(CODE_REFUSED, "--strategy parameter-server is not implemented yet")
    return StrategyPlan({option}, generated(_OPTION_CODE[option]))


def choose_target(requested: str, plan: StrategyPlan, node=None) -> str:
    multi = bool(plan.kinds & MULTI_WORKER)
    if requested == "auto":
        return "ctl" if multi else "keras"
    if requested == "keras" and multi:
        raise Blocked(CODE_REFUSED, "Keras 3 Model.fit fails under MultiWorkerMirroredStrategy on TF 2.21 "
                                    "(keras-team/keras#20585); use --target ctl (what --target auto picks)", node)
    return requested
