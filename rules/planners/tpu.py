"""TFM605 TPUEstimator on CPU: `TPUEstimator(use_tpu=False)` converted as the Estimator it then was.

With use_tpu=False, TF 2.15's TPUEstimator ran on CPU/GPU exactly like tf.estimator.Estimator, one step per
session.run whatever TPUConfig(iterations_per_loop) says, with these differences the conversion reproduces:
- the input_fn (it must take `params`) got a copy of params plus `params["batch_size"]` = train_batch_size in
  TRAIN, eval_batch_size in EVAL, predict_batch_size in PREDICT (nothing added when that size is None): the generated input calls pass
  `params={**params, "batch_size": ...}`;
- the model_fn (it must take `params`) got params plus `batch_size` and `use_tpu=False`: the Keras model is built
  with `{**params, "batch_size": train_batch_size, "use_tpu": False}`; a model_fn that reads "batch_size" while
  the train and eval sizes differ blocks (one model serves both modes);
- `TPUEstimatorSpec(mode, predictions, loss, train_op, eval_metrics=(metric_fn, tensors), ...)` was turned into
  an EstimatorSpec with `eval_metric_ops = metric_fn(*tensors)` (`**tensors` for a dict): metric_fn (module
  level or a def in model_fn; assignments then `return {...}`) is inlined into eval_metric_ops (rules/planners/model_fn.py);
- `if params["use_tpu"]:` (also `params.get("use_tpu")`, `not ...`, the use_tpu flag itself, a local assigned
  from them) in model_fn takes its else arm, and `a if <that> else b` its else value: `CrossShardOptimizer` there
  never ran;
- `tf.compat.v1.estimator.tpu.RunConfig(tpu_config=TPUConfig(...), ...)` is a RunConfig: tpu_config is dropped
  with a note (iterations_per_loop only grouped TPU steps; a name read only by it, `is_per_host = ...PER_HOST_V2`,
  goes too); ExamplesPerSecondHook only logged (dropped);
- its `master=` / `evaluation_master=` / `cluster=` when they leave the session local (a string flag unset by
  default, a TPUClusterResolver built only under `if <use_tpu> ...:`): rules/planners/tpu_cluster.py;
- a model_fn factory's parameter given the TPUEstimator's use_tpu (`model_fn_builder(use_tpu=FLAGS.use_tpu)`, the
  BERT shape) and never rebound is a use_tpu test in the closure (`if use_tpu:` takes its else arm).
The TPU path (use_tpu omitted or True, or a run-time value: a flag of any default, `config.use_tpu`) is
`tf.distribute.TPUStrategy` (rules/planners/tpu_strategy.py), chosen at run time by the same condition; what it
would do differently is refused there (for a flag defaulting to False the migrated program then raises a
ValueError when the flag is set, saying why, rather than silently training on CPU).
Blocked, each with its reason: embedding_config_spec,
TPUEstimatorSpec(host_call=..., scaffold_fn=...), CrossShardOptimizer or other tf.tpu ops on the path that runs,
a tpu RunConfig with a master/cluster/evaluation_master that may be used (a remote session), TPUConfig(eval_training_input_
configuration=...), export of a TPUEstimator (not converted yet: export_to_tpu added a TPU graph), an input_fn or model_fn without
`params` (TF1 raised), a model_fn shared with a plain Estimator.
TF 1.x's `tf.contrib.tpu.TPUEstimator` (also through `tensorflow.contrib.tpu.python.tpu.tpu_estimator`) is the same
class (tf_upgrade_v2 renames it to tf.compat.v1.estimator.tpu.TPUEstimator): converted and checked as above.
The other kinds TFM603 reports (rules/planners/driver.py `kind_message`): the RNN estimators and `keras.estimator.model_to_estimator`, each with what to do.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from ..facts.calls import is_literal
from ..facts.nodes import subtree_nodes
from ..facts.estimator import RUN_CONFIG_ARGS
from .tpu_strategy import check_path

CODE = "TFM605"
ESTIMATOR = ["model_fn", "model_dir", "config", "params", "use_tpu", "train_batch_size", "eval_batch_size",
             "predict_batch_size", "batch_axis", "eval_on_tpu", "export_to_tpu", "export_to_cpu", "warm_start_from",
             "embedding_config_spec", "export_saved_model_api_version"]
RUN_CONFIGS = ("estimator.tpu.RunConfig", "contrib.tpu.RunConfig")
SPECS = ("estimator.tpu.TPUEstimatorSpec", "contrib.tpu.TPUEstimatorSpec")
SPEC_ARGS = ["mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs", "scaffold_fn", "host_call",
             "training_hooks", "evaluation_hooks", "prediction_hooks"]
_TPU_RUN_CONFIG = ["tpu_config", "evaluation_master", "master", "cluster"]
_TPU_CONFIG = ["iterations_per_loop", "num_shards", "num_cores_per_replica", "per_host_input_for_training",
               "tpu_job_name", "initial_infeed_sleep_secs", "input_partition_dims", "eval_training_input_configuration",
               "experimental_host_call_every_n_steps", "experimental_allow_per_host_v2_parallel_get_next",
               "experimental_feed_hook"]
_BOOL_FLAGS = ("DEFINE_bool", "DEFINE_boolean")


@dataclass
class TPUSite:
    batch: dict  # "train" | "eval" | "infer" → Value of the batch size TPUEstimator put in params, or None
    use_tpu: Value
    flag: bool  # use_tpu is a flag (default False): the migrated program refuses to run with it set
    false_tests: frozenset  # source texts a model_fn may test for use_tpu (`FLAGS.use_tpu`), all False here
    remote: list = field(default_factory=list)  # string flags (`FLAGS.master`) unset by default: raise when set
    dead: list = field(default_factory=list)  # (`if use_tpu ...:` building the TPUClusterResolver, its file): go
    # the TPU path (rules/planners/tpu_strategy.py): "off" (use_tpu False), "runtime" (chosen by use_tpu at run
    # time), "only" (use_tpu omitted or True); refused: why it is not converted (the flag then raises when set)
    path: str = "off"
    refused: list = field(default_factory=list)
    resolver: Value | None = None  # the program's TPUClusterResolver (a call, or the name it is bound to)
    tpu_config: dict = field(default_factory=dict)  # TPUConfig's arguments
    default_false: bool = False  # use_tpu is a flag defaulting to False: a refused TPU path raises when it is set

    @property
    def live(self) -> bool:
        """The migrated program builds a TPUStrategy where TF1 ran on a TPU."""
        return self.path != "off" and not self.refused


def check_estimator(analysis, args: dict, call: cst.Call, file, path: str) -> TPUSite:
    """The TPUEstimator's own arguments: use_tpu provably False, nothing TPU-only that changes training."""
    where = f"tf.{path}"
    kind, flag = tpu_path(analysis, args, where, call)  # "off" | "runtime" | "only"; the flag's attribute node
    if kind == "off":
        flag = _provably_false(analysis, args["use_tpu"], where)  # the flag's attribute node, or None
    spec = args.get("embedding_config_spec")
    if spec is not None and not is_literal(spec.node, None):
        raise Blocked(CODE, f"{where}(embedding_config_spec=...) is not converted: TPU embeddings have no CPU "
                            "equivalent here, and on the TPU path TF2's tf.tpu.experimental.embedding.TPUEmbedding "
                            "(tables, their optimizer, feature configs; the guide's tpu_embedding TF2 half) is a "
                            "different program tfmigrate does not generate", spec.node)
    for key in ("batch_axis", "eval_on_tpu", "export_to_tpu", "export_to_cpu", "export_saved_model_api_version"):
        if key in args:  # TPU placement and export settings: no effect on CPU training and evaluation
            analysis.notes.append((CODE, f"{where}({key}=...) dropped: it only matters on a TPU or for export",
                                   args[key].node))
    batch = {mode: args.get(key) for mode, key in (("train", "train_batch_size"), ("eval", "eval_batch_size"),
                                                   ("infer", "predict_batch_size"))}
    batch = {m: (None if v is None or is_literal(v.node, None) else v) for m, v in batch.items()}
    tests = {'params["use_tpu"]', "params['use_tpu']"}
    if flag is not None:
        tests.add(code(flag))  # `FLAGS.use_tpu` tested in model_fn: the same flag
    if kind != "off":  # the TPU path: TPUStrategy (tpu_strategy.py); the model_fn's `if use_tpu:` arms are checked
        if "use_tpu" in args and not is_literal(args["use_tpu"].node, True):
            tests.add(code(args["use_tpu"].node).strip())
        site = TPUSite(batch, args.get("use_tpu"), flag is not None, frozenset(tests), path=kind)
        site.default_false = kind == "runtime" and flag is not None and \
            _flag_defaults(analysis, flag.attr.value) == [False]
        if kind == "runtime":
            analysis.notes.append((CODE, f"{where}: its CPU/GPU path (use_tpu False) converted as "
                                         "tf.estimator.Estimator", call))
        return site
    analysis.notes.append((CODE, f"{where} converted as tf.estimator.Estimator (use_tpu is False"
                                 f"{': the flag defaults to False; the migrated program raises if it is set' if flag else ''}"
                                 "); the TPU path is dropped", call))
    return TPUSite(batch, args["use_tpu"], flag is not None, frozenset(tests))


def tpu_path(analysis, args: dict, where: str, call) -> tuple[str, cst.Attribute | None]:
    """("off" | "runtime" | "only", the flag attribute `FLAGS.use_tpu` when use_tpu is one)."""
    value = args.get("use_tpu")
    if value is None or is_literal(value.node, True):
        return "only", None
    r = analysis.program.resolve(value)
    if is_literal(r.node, True) and not r.ambiguous:
        return "only", None
    try:
        if _provably_false(analysis, value, where) is None:  # the literal False (directly or through names)
            return "off", None
    except Blocked:
        pass
    flag = r.node if isinstance(r.node, cst.Attribute) and not r.ambiguous else value.node
    return "runtime", flag if isinstance(flag, cst.Attribute) and _is_flag(analysis, flag) else None


def _is_flag(analysis, node: cst.Attribute) -> bool:
    return bool(_flag_defaults(analysis, node.attr.value))


def _provably_false(analysis, value: Value, where: str):
    """The flag's attribute (`FLAGS.use_tpu`) for a flag whose default is False, None for the literal False
    (directly or through names); blocks anything else."""
    if is_literal(value.node, False):
        return None
    r = analysis.program.resolve(value)
    if is_literal(r.node, False) and not r.ambiguous:
        return None
    node = r.node if isinstance(r.node, cst.Attribute) and not r.ambiguous else value.node
    if isinstance(node, cst.Attribute):
        defaults = _flag_defaults(analysis, node.attr.value)
        if len(defaults) == 1 and defaults[0] is False:
            return node
        if len(defaults) > 1:
            raise Blocked(CODE, f"{where}(use_tpu={code(node)}): the flag `{node.attr.value}` is defined "
                                f"{len(defaults)} times; define it once, defaulting to False", node)
        if defaults:
            raise Blocked(CODE, f"{where}(use_tpu={code(node)}): the flag `{node.attr.value}` does not default to "
                                "False, so this program may run on a TPU; only use_tpu=False is converted", node)
    raise Blocked(CODE, f"{where}(use_tpu={code(node)[:40]}): tfmigrate cannot prove use_tpu is False (converted: "
                        "the literal False, or a boolean flag of this program defaulting to False)", node)


def _flag_defaults(analysis, name: str) -> list:
    """The defaults of every boolean flag `name` the program defines: True/False, or None when not a literal."""
    found, counts = [], []  # counts: the file (id) of each definition
    for file in analysis.program.files:
        for call in file.calls:
            func = call.func
            attr = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            args = [a for a in call.args if a.keyword is None]
            kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            first = args[0].value if args else kw.get("name")
            if not isinstance(first, cst.SimpleString):
                continue
            if attr in _BOOL_FLAGS and first.evaluated_value == name:
                default = args[1].value if len(args) > 1 else kw.get("default")
            elif attr == "add_argument" and first.evaluated_value.lstrip("-").replace("-", "_") == name \
                    and first.evaluated_value.startswith("--") and "dest" not in kw:
                default = kw.get("default")
                action = kw.get("action")
                if default is None and isinstance(action, cst.SimpleString) and action.evaluated_value == "store_true":
                    found.append(False)
                    continue
                if default is None:  # argparse's default is None: falsy, but not a boolean flag
                    found.append(None)
                    continue
            else:
                continue
            counts.append(id(file))
            found.append(False if is_literal(default, False) else True if is_literal(default, True) else None)
    # entry scripts of one unit (run_classifier.py, run_race.py) each define it once, each in its own process:
    # one definition when all agree
    return found[:1] if len(set(counts)) == len(counts) and len(set(found)) == 1 else found


def factory_tests(analysis, model_fn: Value, factory: cst.FunctionDef, tpu: TPUSite) -> None:
    """`model_fn_builder(..., use_tpu=FLAGS.use_tpu)` (the BERT shape): a factory parameter given the TPUEstimator's
    own use_tpu (the flag, or False), never rebound, is a use_tpu test in the closure too."""
    if not tpu.false_tests:
        return
    r = analysis.program.resolve(model_fn)
    file = r.value.file
    factory_scope = file.function_scopes.get(id(factory))
    inner_scope = file.scope_of(r.node) if isinstance(r.node, cst.FunctionDef) else None
    if factory_scope is None or inner_scope is None:
        return
    inner = file.function_scopes.get(id(r.node))
    for name, value in r.value.env:
        bindings = factory_scope.bindings.get(name, [])
        if not bindings or any(b.kind != "param" for b in bindings) or (inner is not None and name in inner.bindings):
            continue
        text = code(value.node).strip()
        if is_literal(value.node, False) or text in tpu.false_tests:
            tpu.false_tests = tpu.false_tests | {name}


def model_params(analysis, params: str, tpu: TPUSite, call: cst.Call, file) -> str:
    """The params the model_fn saw in TRAIN (the Keras model is built once, with these)."""
    items = []
    train = tpu.batch["train"]
    if train is not None:
        items.append(f'"batch_size": {_render(analysis, train, call, file, "train_batch_size")}')
    items.append('"use_tpu": False')
    return _merge(params, items, call)


def _merge(params: str, items: list[str], at) -> str:
    """`{**params, item, ...}`, written into a dict literal's own items when params is one."""
    try:
        node = cst.parse_expression(params)
    except cst.ParserSyntaxError:
        node = None
    if isinstance(node, cst.Dict):
        keys = {e.key.evaluated_value for e in node.elements
                if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)}
        if keys & {"batch_size", "context"}:
            raise Blocked(CODE, "TPUEstimator params with a \"batch_size\" or \"context\" key: TF1 raised "
                                "ValueError (reserved keys)", at)
        inner = params.strip()[1:-1].strip().rstrip(",")
        return "{" + ", ".join(([inner] if inner else []) + items) + "}"
    return "{" + ", ".join([f"**{params}", *items]) + "}"


def check_model_fn(analysis, fn, tpu: TPUSite, uses) -> None:
    """One Keras model serves every mode: a model_fn reading params["batch_size"] needs one size for all."""
    if "params" not in fn.params:
        raise Blocked(CODE, f"model_fn `{fn.node.name.value}` does not take `params`: TF1 raised ValueError "
                            "(TPUEstimator passes the batch size as params[\"batch_size\"])", fn.node)
    reads = any(isinstance(n, cst.SimpleString) and n.evaluated_value == "batch_size"
                for n in subtree_nodes(fn.node))
    if tpu.path != "off":
        check_path(analysis, fn, tpu, uses, reads)
    if not reads:
        return
    modes = {"train"} | {"eval" for u in uses if u.kind in ("evaluate", "train_and_evaluate")} | \
        {"infer" for u in uses if u.kind == "predict"}
    texts = {code(tpu.batch[m].node) if tpu.batch[m] is not None else None for m in modes}
    if len(texts) > 1:
        raise Blocked(CODE, f"model_fn `{fn.node.name.value}` reads params[\"batch_size\"], which TPUEstimator set "
                            "per mode (train/eval/predict_batch_size) and these differ; the migrated model is "
                            "built once: use one batch size or read it in the input_fn only", fn.node)


def input_params(params: str, batch: str | None) -> str:
    """The params an input_fn got: a copy with the mode's batch size."""
    if batch is None:
        return params
    return _merge(params, [f'"batch_size": {batch}'], None)


def guard(tpu: TPUSite, render) -> str | None:
    lines = []
    if tpu.flag and tpu.path == "off":
        lines.append(f"if {render(tpu.use_tpu)}:  # the TPU path of TPUEstimator was not migrated\n"
                     f"    raise ValueError(\"use_tpu is not supported by the migrated program (it runs on CPU/GPU)\")")
    elif tpu.flag and tpu.refused:  # a flag defaulting to False (tpu_strategy.refuse): the CPU path converts
        why = "; ".join(tpu.refused).replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f"if {render(tpu.use_tpu)}:  # the TPU path of TPUEstimator was not migrated\n"
                     f"    raise ValueError(\"use_tpu is not supported by the migrated program: {why}\")")
    for value in tpu.remote:  # TF1 ran its session on that target when set: say so rather than train here
        text = render(value)
        lines.append(f"if {text}:  # tpu.RunConfig's remote session target was not migrated\n"
                     f"    raise ValueError(\"{text} (a remote TensorFlow master) is not supported by the migrated "
                     f"program: it trains in this process\")")
    return "\n".join(lines) or None


def run_config(analysis, node: cst.Call, file, env, trail: list, tpu: TPUSite) -> dict[str, Value]:
    """tf.compat.v1.estimator.tpu.RunConfig(tpu_config, evaluation_master, master, cluster, **RunConfig args)."""
    from ..facts.sites import bind_values
    from .tpu_cluster import cluster_off, master_off

    args = bind_values(node, _TPU_RUN_CONFIG + RUN_CONFIG_ARGS, "tpu.RunConfig", file, env, rule=CODE)
    for key in ("evaluation_master", "master"):
        v = args.pop(key, None)
        if v is not None:
            master_off(analysis, key, v, tpu)
    if args.get("cluster") is not None:
        cluster_off(analysis, args.pop("cluster"), tpu, trail)
    tpu_config = args.pop("tpu_config", None)
    if tpu_config is not None and not is_literal(tpu_config.node, None):
        r = analysis.program.resolve(tpu_config)
        ok = isinstance(r.node, cst.Call) and analysis.tf(r.node, r.value.file) in (
            "estimator.tpu.TPUConfig", "contrib.tpu.TPUConfig")
        if not ok:
            raise Blocked(CODE, f"tpu_config=`{code(tpu_config.node)[:40]}`: {analysis.why(r, 'a TPUConfig')}",
                          tpu_config.node)
        trail.extend(b for b in r.trail if b.kind == "assign")  # `tpu_config = TPUConfig(...)` goes too
        config = bind_values(r.node, _TPU_CONFIG, "TPUConfig", r.value.file, r.value.env, rule=CODE)
        tpu.tpu_config = config  # the TPU path reads num_shards, iterations_per_loop, ... (tpu_strategy.py)
        if "eval_training_input_configuration" in config:
            raise Blocked(CODE, "TPUConfig(eval_training_input_configuration=...) is not converted (SLICED raised "
                                "on CPU)", config["eval_training_input_configuration"].node)
        for v in config.values():  # `is_per_host = ...InputPipelineConfig.PER_HOST_V2` read only here goes too
            if isinstance(v.node, cst.Name):
                named = analysis.program.resolve(v)
                b = named.trail[0] if named.trail and not named.ambiguous else None
                if b is not None and b.kind == "assign" and not b.unpack and all(  # read only by this TPUConfig
                        b.scope.file.inside(n, {id(r.node)}) for n in b.scope.file.loads_of(analysis.program, b)):
                    trail.append(b)
        if tpu.path == "off":
            analysis.notes.append((CODE, "tpu_config dropped: on CPU TPUEstimator ran one step per session.run "
                                         "whatever iterations_per_loop is", tpu_config.node))
    return args


def _render(analysis, value: Value, at, file, what: str) -> str:
    why: list = []
    text = analysis.program.render(value, at, file, why)
    if text is None:
        raise Blocked(CODE, f"{what} `{code(value.node)[:40]}` is not visible where the Estimator is built", value.node)
    return text


