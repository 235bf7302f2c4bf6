"""TFM701 strategy and TFM702 target/strategy refusals.

`RunConfig(train_distribute=...)` → a TF2 strategy built where the Estimator was: TF1 class names become their
TF2 names (`tf.distribute.experimental.MultiWorkerMirroredStrategy` → `tf.distribute.MultiWorkerMirroredStrategy`,
which reads TF_CONFIG with chief + worker tasks as the Estimator did) and `None` becomes the default strategy.
`--strategy` replaces whatever the program used. An expression written across lines inside `RunConfig(...)`
gets its own parentheses where it becomes a statement (`strategy = (...)`), as every moved argument does.
Parameter server (`tf.compat.v1.distribute.experimental.ParameterServerStrategy` in train_distribute, or
`--strategy parameter-server` for the Estimator's implicit async PS job that TF_CONFIG with ps tasks started):
a generated `parameter_server_strategy(variable_partitioner)` does the role bootstrap (worker and ps tasks serve
and never return; the chief coordinates through a ClusterCoordinator) and falls back to the default strategy when
TF_CONFIG lists no ps tasks, as the Estimator ran single-process then. These programs use tf_keras.
An Estimator without train_distribute cannot tell from its source whether it ran async PS: a note says so.
Combinations known not to run on TF 2.21 are refused (TFM702): Keras 3 `Model.fit` under
MultiWorkerMirroredStrategy (keras-team/keras#20585) or ParameterServerStrategy (no PSS support in Keras 3,
keras-team/keras#18624) → use `--target ctl`.

Why exact: the TF2 strategy reads the same TF_CONFIG cluster, places the same replicas and sums gradients over
them as the TF1 strategy did; the input keeps its per-replica batches (driver.py).
Blocked (TFM702, the file is left unchanged): the refused combinations above.
Blocked (TFM701): `est.train(...)` (not train_and_evaluate) of an Estimator whose train_distribute is
MultiWorkerMirroredStrategy or ParameterServerStrategy. TF 2.15's RunConfig put every train_distribute under a
TF_CONFIG cluster (without a "master" job) in the distribute coordinator's INDEPENDENT_WORKER mode, and
Estimator.train then raises `ValueError: Only STANDALONE_CLIENT mode is supported when you call
estimator.train` (measured: MWMS, v1 and v2 classes, chief + worker; MirroredStrategy under a one-chief
TF_CONFIG raises the same); without TF_CONFIG it trained one local worker. The converted program would train
the multi-worker job the original never ran. MirroredStrategy / OneDeviceStrategy est.train keeps converting.

Example (`fixtures/mwms_input_context`):

    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy() if "TF_CONFIG" in os.environ else None
    config = tf.estimator.RunConfig(train_distribute=strategy, ...)
    →  strategy = (tf.distribute.MultiWorkerMirroredStrategy() if "TF_CONFIG" in os.environ
                   else tf.distribute.get_strategy())
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.visitors import Transformer

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import standalone

from ..facts.calls import bind, code, is_literal
from ..emit.wrap import generated

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
PS_EXPRESSION = "parameter_server_strategy()"  # the partitioner goes between the parentheses (program.py)
_OPTION_CODE = {
    "default": "tf.distribute.get_strategy()",
    "one-device": 'tf.distribute.OneDeviceStrategy("/cpu:0")',
    "mirrored": "tf.distribute.MirroredStrategy()",
    "multi-worker-mirrored": "tf.distribute.MultiWorkerMirroredStrategy()",
    "parameter-server": PS_EXPRESSION,
}
MULTI_WORKER = {"multi-worker-mirrored", "parameter-server"}


@dataclass
class StrategyPlan:
    kinds: set[str]  # every strategy the expression can produce
    expression: str  # TF2 code building it

    @property
    def parameter_server(self) -> bool:
        return "parameter-server" in self.kinds


def convert(node: cst.BaseExpression | None, tf_path_of) -> StrategyPlan:
    """TF2 code for a `train_distribute` expression (None/absent → default strategy)."""
    if node is None or is_literal(node, None):
        return StrategyPlan({"default"}, generated(_OPTION_CODE["default"]))
    kinds: set[str] = set()
    # each replaced part is a placeholder name, its text put in after `code(new)`: what rendering its parse there
    # would give (a parse renders as written, and the result is rendered at no indentation), without the parse
    source = code(node)
    marker = "__tfmigrate_strategy_"
    while marker in source:
        marker += "x"
    swaps: list[str] = []

    def text(value: str) -> cst.Name:
        swaps.append(value)
        return cst.Name(f"{marker}{len(swaps)}__")

    new = node.visit(_StrategyRewrite(tf_path_of, kinds, text))
    if not kinds:
        raise Blocked(CODE, f"cannot tell which strategy `{code(node)}` builds", node)
    rendered = code(new)
    for i, value in enumerate(swaps, 1):
        rendered = rendered.replace(f"{marker}{i}__", value)
    return StrategyPlan(kinds, standalone(rendered))  # it becomes a statement of its own


class _StrategyRewrite(Transformer):
    """convert's rewrite (one class for every call: a class made per call costs its creation and dispatch cache)."""

    def __init__(self, tf_path_of, kinds: set[str], text):
        self.tf_path_of, self.kinds, self.text = tf_path_of, kinds, text

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        path = self.tf_path_of(original)
        if path is None:
            return updated
        kind = _KINDS.get(path)
        if kind is None:
            raise Blocked(CODE, f"tf.{path} as train_distribute is not converted", original)
        self.kinds.add(kind)
        if kind == "parameter-server":
            args = bind(original, ["cluster_resolver"], f"tf.{path}", CODE)
            if "cluster_resolver" in args and not is_literal(args["cluster_resolver"], None):
                raise Blocked(CODE, "a ParameterServerStrategy with its own cluster resolver is not converted "
                                    "(the generated strategy reads TF_CONFIG, as the Estimator did)", original)
            return self.text(PS_EXPRESSION)
        name, signature = _TF2_CTOR[kind]
        args = bind(original, signature, f"tf.{path}", CODE)
        return self.text(f"{generated(name)}({', '.join(f'{k}={code(v)}' for k, v in args.items())})")

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value == "None":
            self.kinds.add("default")
            return self.text(generated(_OPTION_CODE["default"]))
        return updated


def from_option(option: str) -> StrategyPlan:
    return StrategyPlan({option}, generated(_OPTION_CODE[option]))


def original_kinds(node: cst.BaseExpression | None, tf_path_of) -> set[str] | None:
    """Strategies the TF1 program itself could run under (None if unknown), whatever --strategy asks for."""
    try:
        return convert(node, tf_path_of).kinds
    except Blocked:
        return None


def refuse_estimator_train(kinds: set[str] | None, node) -> None:
    """Estimator.train under a multi-worker train_distribute: TF 2.15 raised under the TF_CONFIG cluster the
    strategy is for (see the module doc); block instead of converting into a multi-worker run."""
    multi = sorted((kinds or set()) & MULTI_WORKER)
    if not multi:
        return
    what = " / ".join({"multi-worker-mirrored": "MultiWorkerMirroredStrategy",
                       "parameter-server": "ParameterServerStrategy"}[k] for k in multi)
    raise Blocked(CODE, f"estimator.train() with RunConfig(train_distribute={what}) is not converted: under a "
                        "multi-worker TF_CONFIG, TF 2.15's Estimator.train raises \"ValueError: Only "
                        "`STANDALONE_CLIENT` mode is supported when you call `estimator.train`\" (without TF_CONFIG "
                        "it trained one local worker), so a converted multi-worker training would be a run the "
                        "original never did. Use tf.estimator.train_and_evaluate(est, TrainSpec(input_fn, max_steps), "
                        "EvalSpec(...)) (converted), or drop train_distribute (or use MirroredStrategy) for a "
                        "single-process job", node)


def tf1_partitions(kinds: set[str] | None) -> bool | None:
    """Whether TF1 honoured variable partitioners: in graph mode without a strategy and under PS, not under
    Mirrored/MWMS ("Partitioned variables are disabled when using current tf.distribute.Strategy")."""
    if kinds is None:
        return None
    honoured = kinds & {"default", "parameter-server"}
    return None if honoured and honoured != kinds else bool(honoured)


def tf1_strategy(kinds: set[str] | None) -> bool | None:
    """Whether TF1 ran the model_fn under a distribution strategy (train_distribute); None: unknown or it varied."""
    if kinds is None:
        return None
    under = kinds - {"default"}
    return None if under and under != kinds else bool(under)


def choose_target(requested: str, plan: StrategyPlan, node=None) -> str:
    multi = bool(plan.kinds & MULTI_WORKER)
    if requested == "auto":
        return "ctl" if multi else "keras"
    if requested == "keras" and plan.parameter_server:
        raise Blocked(CODE_REFUSED, "Keras 3 Model.fit has no ParameterServerStrategy support (keras-team/keras#18624); "
                                    "use --target ctl (what --target auto picks)", node)
    if requested == "keras" and multi:
        raise Blocked(CODE_REFUSED, "Keras 3 Model.fit fails under MultiWorkerMirroredStrategy on TF 2.21 "
                                    "(keras-team/keras#20585); use --target ctl (what --target auto picks)", node)
    return requested
