"""The Estimator's RunConfig (the settings kept, through names, helpers, `.replace(...)` and conditions) and
its train_distribute strategy."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value, code

from .. import strategy as strategies
from .. import tpu as tpu_rules
from ...facts.calls import computes_tensor, is_literal
from ...facts.sites import CODE_KIND, Site, bind_values
from ...facts.estimator import RUN_CONFIG_ARGS, RUN_CONFIG_DROPPED, CODE
from ._values import Choice


_KEPT_CONFIG = ("model_dir", "tf_random_seed", "save_checkpoints_steps", "keep_checkpoint_max", "log_step_count_steps",
                "train_distribute")


_CONFIG_DEFAULTS = {"model_dir": "None", "tf_random_seed": "None", "save_checkpoints_steps": "None",
                    "keep_checkpoint_max": "5", "log_step_count_steps": "100", "train_distribute": "None"}


class RunConfigMixin:
    """Analysis: a site's RunConfig settings and strategy."""

    def run_config(self, args: dict[str, Value], call: cst.Call, file: FileIndex, trail: list,
                   tpu=None, unconverted: list | None = None) -> dict[str, Value]:
        """The kept RunConfig settings; one not converted is a blocker, added to `unconverted` (each one of them, the
        others still read), else raised."""
        config: dict[str, Value] = {}
        value = args.get("config")
        if tpu and (value is None or is_literal(value.node, None)):
            raise Blocked(CODE_KIND, "TPUEstimator without config: TF1 raised ValueError (`config` must be a "
                                     "tf.compat.v1.estimator.tpu.RunConfig)", call)
        if value is not None and not is_literal(value.node, None):
            config = self.config_values(value, trail, tpu=tpu)
        for key, v in list(config.items()):
            if key in RUN_CONFIG_DROPPED:
                self.notes.append((CODE, f"RunConfig({key}=...) dropped: {RUN_CONFIG_DROPPED[key]}", v.node))
                if key == "save_summary_steps":  # the custom loop of a model_fn with scalar summaries takes it back
                    self.summary_steps[id(call)] = v
                del config[key]
            elif key not in _KEPT_CONFIG:
                error = Blocked(CODE, f"RunConfig({key}=...) is not converted", v.node)
                if unconverted is None:
                    raise error
                unconverted.append(error)
                del config[key]
        if "model_dir" in args and not is_literal(args["model_dir"].node, None):
            config["model_dir"] = args["model_dir"]
        return config

    def config_values(self, value: Value, trail: list, tpu=None) -> dict[str, Value]:
        """RunConfig keyword values, through names, helpers and `.replace(...)` chains."""
        r = self.program.resolve_choice(value, computes_tensor)  # a config set in an if/else's branches: as `A if c else B`
        node, file = r.node, r.value.file
        trail.extend(b for b in r.trail if b.kind in ("assign", "def"))
        if isinstance(file.parent(node), cst.Arg):  # `make_estimator(d, tf.estimator.RunConfig(...))`
            self.inline_args.append(node)
        if tpu and isinstance(node, cst.Call) and self.tf(node, file) in tpu_rules.RUN_CONFIGS:
            return tpu_rules.run_config(self, node, file, r.value.env, trail, tpu)
        if tpu and isinstance(node, cst.Call) and self.tf(node, file) == "estimator.RunConfig":
            raise Blocked(CODE_KIND, "TPUEstimator(config=tf.estimator.RunConfig(...)): TF1 raised ValueError "
                                     "(`config` must be a tf.compat.v1.estimator.tpu.RunConfig)", node)
        if isinstance(node, cst.Call) and self.tf(node, file) == "estimator.RunConfig":
            unknown = [a for a in node.args if a.keyword is not None and a.keyword.value not in RUN_CONFIG_ARGS]
            if unknown:  # RUN_CONFIG_ARGS is TF 2.15's whole signature
                raise Blocked(CODE, f"RunConfig has no argument '{unknown[0].keyword.value}': tf.estimator.RunConfig "
                                    "(TF 2.15) raises TypeError for it, so the original does not run there either; "
                                    "pass only RunConfig's arguments (a strategy goes in train_distribute=...)",
                              unknown[0])
            return bind_values(node, RUN_CONFIG_ARGS, "RunConfig", file, r.value.env)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "replace":
            base = self.config_values(Value(node.func.value, file, r.value.env), trail, tpu=tpu)
            base.update(bind_values(node, RUN_CONFIG_ARGS, "RunConfig.replace", file, r.value.env, keywords_only=True))
            return base
        if isinstance(node, cst.IfExp):
            # `a if test else b`: each setting is the same in both, or becomes `x if test else y`
            env = r.value.env
            a = self.config_values(Value(node.body, file, env), trail, tpu=tpu)
            b = self.config_values(Value(node.orelse, file, env), trail, tpu=tpu)
            out = {}
            for key in sorted(set(a) | set(b)):
                va, vb = a.get(key), b.get(key)
                if va is not None and vb is not None and va.node is vb.node:
                    out[key] = va
                    continue
                if key == "train_distribute":
                    raise Blocked(strategies.CODE, "a RunConfig whose train_distribute depends on a run-time "
                                                   "condition is not converted; choose the strategy in one "
                                                   "expression and pass it to one RunConfig",
                                  node if file.contains(node) else value.node)  # (not a made-up choice's)
                default = Value(cst.parse_expression(_CONFIG_DEFAULTS.get(key, "None")), file)
                out[key] = Choice(Value(node.test, file, env), va or default, vb or default, node)
            return out
        raise Blocked(CODE, f"config=`{code(value.node)}`: {self.why(r, 'a tf.estimator.RunConfig')}", value.node)

    def strategy_or_default(self, site: Site, errors: list) -> None:
        """The site's strategy; one not converted is a blocker added to `errors`, and the site is analysed on under
        the default strategy, to report its model_fn's and uses' blockers with this one."""
        try:
            self.strategy(site)
        except Blocked as blocked:
            errors.append(blocked)
            site.strategy_blocked = blocked.message
            site.strategy_value = site.strategy_binding = None
            site.original_kinds = strategies.original_kinds(None, lambda n: self.tf(n, site.file))
            site.strategy = strategies.convert(None, lambda n: self.tf(n, site.file))

    def strategy(self, site: Site) -> None:
        node = site.run_config.get("train_distribute")
        tf_of = (lambda n: self.tf(n, site.file))
        if node is None:
            plan_node, original = None, strategies.original_kinds(None, tf_of)
        else:
            r = self.program.resolve_choice(node, computes_tensor)
            tf_of = (lambda n, f=r.value.file: self.tf(n, f))
            plan_node = r.node
            if r.ambiguous:
                raise Blocked(strategies.CODE, f"train_distribute: {self.why(r, 'a strategy')}", node.node)
            original = strategies.original_kinds(plan_node, tf_of)
            if not r.value.file.contains(plan_node):
                # set in an if/else's branches (migrator/choices.py): each branch's value converted in place, the
                # Estimator built under the name that holds it
                if not isinstance(node.node, cst.Name) or self.program.render(node, site.call, site.file) is None:
                    raise Blocked(strategies.CODE, f"train_distribute: `{code(node.node)}` is chosen by an if/else "
                                                   "where the Estimator cannot see it (a helper's local); choose the "
                                                   "strategy where the Estimator is built, or return it with the "
                                                   "config", node.node)
                site.strategy_value = node
                site.strategy_arms = self._strategy_arms(r, tf_of)
            binding = r.trail[-1] if r.trail and r.trail[-1].kind == "assign" and not r.trail[-1].unpack else None
            if binding is not None and binding.value is plan_node and isinstance(node.node, cst.Name):
                site.strategy_value, site.strategy_binding = node, binding
            elif site.strategy_value is None and self.options.strategy == "keep":
                # converted where the Estimator is built (a builder the config is handed to): the names it reads
                # (`MWMS() if multi_worker else None` in main) must mean the same there
                why: list = []
                if self.program.render(Value(plan_node, r.value.file, r.value.env), site.call, site.file, why) is None:
                    name = why[0].value if why else code(plan_node)
                    raise Blocked(strategies.CODE, f"train_distribute `{code(plan_node)[:60]}` uses `{name}`, which "
                                                   "the converted code would read where the Estimator is built "
                                                   f"(line {self.line(site.call, site.file)}), where `{name}` does "
                                                   "not hold the same value (a local of another function, or bound "
                                                   "again): pass the value explicitly or choose the strategy where "
                                                   "the Estimator is built", node.node)
        site.original_kinds = original
        if self.options.strategy != "keep":
            site.strategy = strategies.from_option(self.options.strategy)
        elif plan_node is None:
            site.strategy = strategies.convert(None, tf_of)
        else:
            site.strategy = strategies.convert(plan_node, tf_of)

    def _strategy_arms(self, r, tf_of) -> list:
        """(binding, StrategyPlan) of each assignment a strategy chosen by an if/else reads (blocks if one is not
        converted; None: the --strategy asked for, in each)."""
        keep = self.options.strategy == "keep"
        return [(b, strategies.convert(b.value, tf_of) if keep else None) for b in r.trail
                if b.kind == "assign" and b.scope.file is r.value.file and _reads_arm(r.node, b.value)]


def _reads_arm(choice, value) -> bool:
    """`value` is one of the branch values of a conditional expression made of the program's nodes."""
    while isinstance(choice, cst.IfExp):
        if choice.body is value:
            return True
        choice = choice.orelse
    return choice is value
