"""TFM601 estimator driver: RunConfig / Estimator / TrainSpec / EvalSpec / train_and_evaluate / train / evaluate.

Within one function (or the module body), statement by statement:
- `config = RunConfig(...)`, `TrainSpec(...)`, `EvalSpec(...)` assignments are removed (their comments move to
  the next statement); their values feed the generated code.
- `est = Estimator(model_fn=..., config=..., params=...)` becomes the strategy (from `train_distribute`, or
  `--strategy`), the random seed (`tf_random_seed` → `keras.utils.set_random_seed`), and the model built in
  `strategy.scope()` (Keras target) or the generated custom-loop trainer (ctl target).
- `train_and_evaluate(est, train_spec, eval_spec)` → `fit` + `evaluate` (Keras) or `train` + `evaluate` (ctl);
  `est.train(input_fn, max_steps)` and `est.evaluate(input_fn, steps)` likewise.
Input functions keep their per-replica batches: `input_fn(input_context)` goes through
`strategy.distribute_datasets_from_function` with the same sharding, so every worker sees the batches it saw.
Blocked: `est.predict`, other uses of the estimator, hooks, exporters, warm starts, TrainSpec without max_steps,
input functions taking params/mode/config, RunConfig settings with no TF2 meaning.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked

from . import strategy as strategies
from ._args import bind, code, is_literal, wrap_call

CODE = "TFM601"

_RUN_CONFIG = ["model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
               "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
               "train_distribute", "device_fn", "protocol", "eval_distribute", "experimental_distribute",
               "experimental_max_worker_delay_secs", "session_creation_timeout_secs", "checkpoint_save_graph_def"]
_RUN_CONFIG_DROPPED = {  # settings with no effect on what is trained; dropped with a note
    "save_summary_steps": "summaries are not written (add keras.callbacks.TensorBoard if wanted)",
    "session_config": "TF2 has no session; use tf.config for threading/devices",
    "eval_distribute": "evaluation runs on each worker's own model copy",
    "experimental_max_worker_delay_secs": "TF2 workers start without a delay",
    "save_checkpoints_secs": "time-based checkpoints are not generated; the final checkpoint is still saved",
    "keep_checkpoint_every_n_hours": "not generated",
}
_ESTIMATOR = ["model_fn", "model_dir", "config", "params", "warm_start_from"]
_TRAIN_SPEC = ["input_fn", "max_steps", "hooks", "saving_listeners"]
_EVAL_SPEC = ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"]
_TRAIN = ["input_fn", "hooks", "steps", "max_steps", "saving_listeners"]
_EVALUATE = ["input_fn", "steps", "hooks", "checkpoint_path", "name"]


@dataclass
class Site:
    """One Estimator and the statements that configure and drive it."""

    name: str
    index: int
    call: cst.Call
    model_fn: str
    params: str
    run_config: dict[str, cst.BaseExpression] = field(default_factory=dict)
    strategy: strategies.StrategyPlan | None = None
    strategy_var: str | None = None  # a `strategy = ...` assignment rewritten in place
    target: str = ""
    original_kinds: set[str] | None = None  # strategies the TF1 program itself ran under (None: unknown)


class DriverRewrite:
    def __init__(self, body: list[cst.BaseStatement], names, local_names: frozenset[str], functions: dict,
                 options, notes: list):
        self.body, self.names, self.local_names = body, names, local_names
        self.functions, self.options, self.notes = functions, options, notes
        self.configs: dict[str, tuple[int, dict]] = {}
        self.train_specs: dict[str, tuple[int, dict]] = {}
        self.eval_specs: dict[str, tuple[int, dict]] = {}
        self.sites: dict[str, Site] = {}
        self.assignments: dict[str, int] = {}
        self.handled: set[int] = set()

    def tf(self, node) -> str | None:
        return self.names.of(node, self.local_names)  # a local rebinding of `tf` shadows the import

    # ---- analysis -------------------------------------------------------------------------------------------
    def analyse(self) -> list[Site]:
        for index, stmt in enumerate(self.body):
            small = _single(stmt)
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                name, value = small.targets[0].target.value, small.value
                self.assignments.setdefault(name, index)
                path = self.tf(value) if isinstance(value, cst.Call) else None
                if path == "estimator.RunConfig":
                    self.configs[name] = (index, bind(value, _RUN_CONFIG, "RunConfig", CODE))
                    self.handled.add(index)
                elif path == "estimator.TrainSpec":
                    self.train_specs[name] = (index, self.spec_args(value, _TRAIN_SPEC, "TrainSpec"))
                    self.handled.add(index)
                elif path == "estimator.EvalSpec":
                    self.eval_specs[name] = (index, self.spec_args(value, _EVAL_SPEC, "EvalSpec"))
                    self.handled.add(index)
                elif path == "estimator.Estimator":
                    self.sites[name] = self.estimator(name, index, value)
                    self.handled.add(index)
        return list(self.sites.values())

    def spec_args(self, call: cst.Call, signature: list[str], what: str) -> dict:
        args = bind(call, signature, what, CODE)
        for bad in ("hooks", "saving_listeners", "exporters"):
            if bad in args and not is_literal(args[bad], None):
                raise Blocked(CODE, f"{what}({bad}=...) is not converted: use Keras callbacks / model.export()", call)
        if what == "TrainSpec" and ("max_steps" not in args or is_literal(args["max_steps"], None)):
            raise Blocked(CODE, "TrainSpec without max_steps trains forever; give max_steps to migrate", call)
        return args

    def estimator(self, name: str, index: int, call: cst.Call) -> Site:
        args = bind(call, _ESTIMATOR, "Estimator", CODE)
        model_fn = args.get("model_fn")
        if not isinstance(model_fn, cst.Name) or model_fn.value not in self.functions:
            raise Blocked(CODE, "Estimator(model_fn=...) must name a model_fn defined in this file", call)
        if "warm_start_from" in args and not is_literal(args["warm_start_from"], None):
            raise Blocked(CODE, "warm_start_from is not converted: load the checkpoint into the Keras model by hand", call)
        run_config: dict = {}
        config = args.get("config")
        if isinstance(config, cst.Name):
            if config.value not in self.configs:
                raise Blocked(CODE, f"RunConfig `{config.value}` must be built above the Estimator in the same block", call)
            run_config = dict(self.configs[config.value][1])
        elif isinstance(config, cst.Call) and self.tf(config) == "estimator.RunConfig":
            run_config = bind(config, _RUN_CONFIG, "RunConfig", CODE)
        elif config is not None and not is_literal(config, None):
            raise Blocked(CODE, "Estimator(config=...) must be a RunConfig built in the same block", config)
        for key, value in list(run_config.items()):
            if key in _RUN_CONFIG_DROPPED:
                self.notes.append((CODE, f"RunConfig({key}=...) dropped: {_RUN_CONFIG_DROPPED[key]}", value))
            elif key not in ("model_dir", "tf_random_seed", "save_checkpoints_steps", "keep_checkpoint_max",
                             "log_step_count_steps", "train_distribute"):
                raise Blocked(CODE, f"RunConfig({key}=...) is not converted", value)
        if "model_dir" in args and not is_literal(args["model_dir"], None):
            run_config["model_dir"] = args["model_dir"]
        params = code(args["params"]) if "params" in args else "{}"
        site = Site(name, index, call, model_fn.value, params, run_config)
        site.strategy, site.strategy_var, site.original_kinds = self.strategy(run_config.get("train_distribute"))
        site.target = strategies.choose_target(self.options.target, site.strategy, call)
        return site

    def strategy(self, node) -> tuple[strategies.StrategyPlan, str | None, set[str] | None]:
        """(TF2 strategy, the program's strategy variable if any, what the TF1 program ran under)."""
        var = None
        if isinstance(node, cst.Name) and node.value != "None":
            index = self.assignments.get(node.value)
            if index is not None:
                var, node = node.value, _single(self.body[index]).value
            elif self.options.strategy == "keep":
                raise Blocked(strategies.CODE, f"train_distribute=`{node.value}` must be assigned in the same block", node)
        original = strategies.original_kinds(node, self.tf)
        if self.options.strategy != "keep":
            return strategies.from_option(self.options.strategy), var, original
        return strategies.convert(node, self.tf), var, original

    # ---- rendering ------------------------------------------------------------------------------------------
    def input_fn(self, node: cst.BaseExpression, site: Site) -> tuple[str, bool]:
        """(code of a `dataset_fn(input_context)`, whether the input_fn shards by input_context)."""
        if isinstance(node, cst.Lambda):
            names = [p.name.value for p in node.params.params]
            if isinstance(node.params.star_arg, cst.Param) or node.params.kwonly_params or node.params.star_kwarg:
                raise Blocked(CODE, "an input_fn lambda with *args/keyword-only parameters is not converted", node)
            if names == ["input_context"]:
                return code(node), True
            if names:
                raise Blocked(CODE, "an input_fn lambda may take only input_context (the Estimator passed params/"
                                    "mode/config by name)", node)
            return f"lambda input_context: {code(node.body)}", False
        if isinstance(node, cst.Name) and node.value in self.functions:
            params = self.functions[node.value].params
            names = [p.name.value for p in params.params]
            if not names:
                return f"lambda input_context: {node.value}()", False
            if names == ["input_context"]:
                return node.value, True
            raise Blocked(CODE, f"input_fn `{node.value}({', '.join(names)})` is not converted: the Estimator passed "
                                "params/mode/config by name; only () and (input_context) are", node)
        raise Blocked(CODE, "input_fn must be a function defined in this file or a lambda", node)

    def keras_data(self, node, site: Site) -> str:
        dataset_fn, _ = self.input_fn(node, site)
        if site.strategy.kinds <= {"default", "one-device"}:
            if dataset_fn.startswith("lambda input_context: "):
                return dataset_fn[len("lambda input_context: "):]
            return f"{dataset_fn}()"
        return f"strategy.distribute_datasets_from_function({dataset_fn})"

    def callbacks(self, site: Site, model_plan) -> str:
        items = []
        if model_plan.optimizer.after_build:
            items.append("TF1SlotInit()")
        model_dir = site.run_config.get("model_dir")
        if model_dir is not None:
            save = site.run_config.get("save_checkpoints_steps")
            freq = code(save) if save is not None else '"epoch"'
            items.append(f"keras.callbacks.BackupAndRestore({code(model_dir)}, save_freq={freq}, delete_checkpoint=False)")
        return f"[{', '.join(items)}]"

    def setup_lines(self, site: Site, builder: str, model_plan) -> list[str]:
        lines = []
        seed = site.run_config.get("tf_random_seed")
        if seed is not None and not is_literal(seed, None):
            lines.append(f"keras.utils.set_random_seed({code(seed)})")
        strategy_name = site.strategy_var or "strategy"
        if site.strategy_var is None:
            lines.append(f"strategy = {strategy_expression(site, model_plan)}")
        if site.target == "keras":
            for key, why in (("keep_checkpoint_max", "BackupAndRestore keeps the latest checkpoint only"),
                             ("log_step_count_steps", "Keras prints its own progress")):
                if key in site.run_config:
                    self.notes.append((CODE, f"RunConfig({key}=...) dropped: {why}", site.run_config[key]))
            lines.append(f"with {strategy_name}.scope():")
            lines.append(f"    {site.name} = {builder}({site.params})")
            sample = self.first_input(site)
            if sample is not None:
                # create the variables (TF1 names) before fit, so a backup in model_dir can be restored
                lines.append(f"    {site.name}(next(iter({self.keras_data(sample, site)}))[0])")
        else:
            kwargs = [f"{k}={code(site.run_config[k])}" for k in
                      ("model_dir", "save_checkpoints_steps", "keep_checkpoint_max", "log_step_count_steps")
                      if k in site.run_config]
            call = wrap_call(f"{builder}({', '.join([strategy_name, site.params, *kwargs])})", "", width=80)
            lines.append(f"{site.name} = {call}")
        return lines

    def first_input(self, site: Site):
        """The input_fn the first training call of this Estimator reads."""
        for stmt in self.body:
            small = _single(stmt)
            call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if not isinstance(call, cst.Call):
                continue
            if self.tf(call) == "estimator.train_and_evaluate" and len(call.args) >= 2:
                est, spec = call.args[0].value, call.args[1].value
                if isinstance(est, cst.Name) and est.value == site.name and isinstance(spec, cst.Name) \
                        and spec.value in self.train_specs:
                    return self.train_specs[spec.value][1]["input_fn"]
            if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) \
                    and call.func.value.value == site.name and call.func.attr.value == "train":
                return bind(call, _TRAIN, "train", CODE).get("input_fn")
        return None

    def train_lines(self, site: Site, input_fn, max_steps, model_plan) -> list[str]:
        if site.target == "keras":
            return [self.wrap(f"{site.name}.fit({self.keras_data(input_fn, site)}, epochs=1, steps_per_epoch={code(max_steps)}, "
                              f"callbacks={self.callbacks(site, model_plan)})")]
        return [self.wrap(f"{site.name}.train({self.input_fn(input_fn, site)[0]}, max_steps={code(max_steps)})")]

    def wrap(self, text: str) -> str:
        # continuation lines are relative to the block the statement lands in (libcst re-indents them)
        return wrap_call(text, "", width=92)

    def evaluate_expr(self, site: Site, input_fn, steps) -> str:
        steps_code = code(steps) if steps is not None else "None"
        if site.target == "keras":
            return f"{site.name}.evaluate({self.keras_data(input_fn, site)}, steps={steps_code}, return_dict=True)"
        return f"{site.name}.evaluate({self.input_fn(input_fn, site)[0]}, steps={steps_code})"

    def rewrite(self, builders: dict[str, str], model_plans: dict) -> list[cst.BaseStatement]:
        """The body with every handled statement replaced; raises Blocked on any leftover use."""
        replacements: dict[int, list[str]] = {}
        for site in self.sites.values():
            plan = model_plans[site.model_fn]
            replacements[site.index] = self.setup_lines(site, builders[site.model_fn], plan)
            if site.strategy_var is not None:
                index = self.assignments[site.strategy_var]
                replacements[index] = [f"{site.strategy_var} = {strategy_expression(site, plan)}"]
                self.handled.add(index)
        spec_names = set(self.train_specs) | set(self.eval_specs) | set(self.configs)
        for index, stmt in enumerate(self.body):
            if index in self.handled:
                continue
            small = _single(stmt)
            call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            if isinstance(call, cst.Call) and self.tf(call) == "estimator.train_and_evaluate":
                lines = self.train_and_evaluate(call, model_plans)
                if target is not None:  # it returned (eval_result, export_results)
                    lines[-1] = f"{code(target)} = ({lines[-1]}, [])"
                replacements[index] = lines
                continue
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) \
                    and call.func.value.value in self.sites:
                site = self.sites[call.func.value.value]
                method = call.func.attr.value
                if method == "train":
                    args = bind(call, _TRAIN, "train", CODE)
                    if "hooks" in args or "saving_listeners" in args:
                        raise Blocked(CODE, "train(hooks=...) is not converted: use Keras callbacks", call)
                    steps = args.get("max_steps")
                    if steps is None:
                        steps = args.get("steps")
                        self.notes.append((CODE, "train(steps=N) converted as max_steps=N (the same on a fresh model_dir)", call))
                    if steps is None or "input_fn" not in args:
                        raise Blocked(CODE, "train() needs input_fn and max_steps (or steps)", call)
                    replacements[index] = self.train_lines(site, args["input_fn"], steps, model_plans[site.model_fn])
                    if target is not None:
                        raise Blocked(CODE, "the value of estimator.train() is not converted", call)
                    continue
                if method == "evaluate":
                    args = bind(call, _EVALUATE, "evaluate", CODE)
                    if set(args) - {"input_fn", "steps", "name"}:
                        raise Blocked(CODE, "evaluate(hooks/checkpoint_path=...) is not converted", call)
                    expr = self.wrap(self.evaluate_expr(site, args["input_fn"], args.get("steps")))
                    replacements[index] = [f"{code(target)} = {expr}" if target is not None else expr]
                    continue
                raise Blocked(CODE, f"estimator.{method}() is not converted yet", call)
            used = _names_in(stmt) & (set(self.sites) | spec_names)
            if used:
                raise Blocked(CODE, f"`{sorted(used)[0]}` is used in a way tfmigrate does not convert", stmt)
        return self.splice(replacements)

    def train_and_evaluate(self, call: cst.Call, model_plans) -> list[str]:
        args = bind(call, ["estimator", "train_spec", "eval_spec"], "train_and_evaluate", CODE)
        names = [args.get(k).value if isinstance(args.get(k), cst.Name) else None for k in ("estimator", "train_spec", "eval_spec")]
        if names[0] not in self.sites or names[1] not in self.train_specs or names[2] not in self.eval_specs:
            raise Blocked(CODE, "train_and_evaluate must get the Estimator, TrainSpec and EvalSpec built in this block", call)
        site = self.sites[names[0]]
        train = self.train_specs[names[1]][1]
        evaluate = self.eval_specs[names[2]][1]
        if "throttle_secs" in evaluate or "start_delay_secs" in evaluate:
            self.notes.append((CODE, "EvalSpec throttle/start delay: evaluation runs once, after training", call))
        steps = evaluate.get("steps", cst.Integer("100"))  # EvalSpec's default
        lines = self.train_lines(site, train["input_fn"], train["max_steps"], model_plans[site.model_fn])
        lines.append(self.wrap(self.evaluate_expr(site, evaluate["input_fn"], steps)))
        return lines

    def splice(self, replacements: dict[int, list[str]]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        pending_comments: list[cst.EmptyLine] = []
        for index, stmt in enumerate(self.body):
            removed = index in self.handled and index not in replacements
            if removed:
                pending_comments.extend(stmt.leading_lines)
                continue
            if index in replacements:
                new = list(cst.parse_module("\n".join(replacements[index]) + "\n").body)
                lead = [*pending_comments, *stmt.leading_lines]
                new[0] = new[0].with_changes(leading_lines=lead)
                out.extend(new)
            else:
                out.append(stmt.with_changes(leading_lines=[*pending_comments, *stmt.leading_lines]) if pending_comments else stmt)
            pending_comments = []
        return out


def strategy_expression(site: Site, model_plan) -> str:
    """The TF2 strategy; a parameter-server strategy gets the model's partitioner."""
    if model_plan.partitioner is not None and site.strategy.parameter_server:
        call = strategies.PS_EXPRESSION
        return site.strategy.expression.replace(call, call[:-1] + "VARIABLE_PARTITIONER)")
    return site.strategy.expression


def _single(stmt) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return found
