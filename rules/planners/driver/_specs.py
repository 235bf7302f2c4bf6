"""TrainSpec / EvalSpec, EvalSpec exporters (and whether the final evaluation was the only one) and serving
input receivers."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Resolved, Value, code
from tfmigrate.visitors import Visitor

from .. import receivers as receiver_rules
from .. import serving_functions
from ...facts.calls import is_literal, literal
from ...facts.sites import Site, bind_values
from ...facts.estimator import PARSING_RECEIVER_ARGS, CODE
from ._training import check_end_of_input, stop_at
from ._values import Least, is_empty


class SpecsMixin:
    """Analysis: the specs, exporters and receivers a use reads."""

    def spec(self, value: Value, what: str, signature: list[str], site: Site) -> dict[str, Value]:
        r = self.program.resolve(value)
        node = r.node
        site.consumed.extend(b for b in r.trail if b.kind in ("assign", "def"))
        if not (isinstance(node, cst.Call) and self.tf(node, r.value.file) == f"estimator.{what}"):
            raise Blocked(CODE, f"{what} `{code(value.node)[:60]}`: {self.why(r, 'a tf.estimator.' + what)}", value.node)
        args = bind_values(node, signature, what, r.value.file, r.value.env)
        if "saving_listeners" in args and not is_literal(args["saving_listeners"].node, None) \
                and not is_empty(args["saving_listeners"].node):
            raise Blocked(CODE, f"{what}(saving_listeners=...) is not converted yet: run their code after the "
                                "migrated training saves its checkpoints", args["saving_listeners"].node)
        hooks = args.pop("hooks", None)
        stop = self.hooks(hooks, site, "train" if what == "TrainSpec" else "evaluate") if hooks is not None else {}
        if "input_fn" not in args:
            raise Blocked(CODE, f"{what} without input_fn", node)
        if what == "TrainSpec":
            steps = args.pop("max_steps", None)
            steps = stop_at(None if steps is None or is_literal(steps.node, None) else steps, stop)
            if steps is None:
                check_end_of_input(site, node)
            else:
                args["max_steps"] = steps
            for key in ("callbacks", "checkpoint"):
                if key in stop:
                    args[key] = stop[key]
        return args

    def exporters(self, value: Value, site: Site, max_steps=None, train_read: bool = True) -> list:
        """EvalSpec(exporters=...): FinalExporter / LatestExporter (and a BestExporter when the final evaluation was
        the only one) export the model the final evaluation saw to model_dir/export/<name>/<timestamp>, as the
        Estimator's last export did."""
        if is_literal(value.node, None) or is_empty(value.node):
            return []
        r = self.program.resolve(value)
        site.consumed.extend(b for b in r.trail if b.kind == "assign")
        items = [Value(e.value, r.value.file, r.value.env) for e in r.node.elements] \
            if isinstance(r.node, (cst.List, cst.Tuple)) else [value]
        if site.config_known and ("model_dir" not in site.run_config
                                  or is_literal(site.run_config["model_dir"].node, None)):
            raise Blocked(CODE, "EvalSpec exporters without a model_dir: the Estimator exported under a temporary "
                                "directory; give RunConfig(model_dir=...)", value.node)
        found, errors = [], []  # each exporter's blocker, at its own line
        for item in items:
            try:
                e = self.program.resolve(item)
                site.consumed.extend(b for b in e.trail if b.kind == "assign")
                node = e.node
                path = self.tf(node.func, e.value.file) if isinstance(node, cst.Call) else None
                kind = path.rsplit(".", 1)[-1] if path and path.startswith("estimator.") else None
                if kind not in ("FinalExporter", "LatestExporter", "BestExporter"):
                    raise Blocked(CODE, f"exporter `{code(item.node)[:60]}` is not converted: only FinalExporter, "
                                        "LatestExporter and BestExporter are", item.node)
                if kind == "BestExporter" and train_read:
                    why = self.evaluated_more_than_once(site, max_steps)
                    if why:
                        raise Blocked(CODE, f"BestExporter `{code(item.node)[:60]}` is not converted: the Estimator "
                                            "evaluated at the first checkpoint saved during training, then every "
                                            "throttle_secs, and after training, exporting whenever the loss improved; "
                                            "the migrated program evaluates once, after training. That is the same "
                                            "export only when the final evaluation was the only one: "
                                            "RunConfig(save_checkpoints_steps=N) with N >= max_steps, known at rewrite "
                                            f"time, one process ({why})", item.node)
                signature = {"LatestExporter": ["name", "serving_input_receiver_fn", "assets_extra", "as_text",
                                                "exports_to_keep"],
                             "BestExporter": ["name", "serving_input_receiver_fn", "event_file_pattern", "compare_fn",
                                              "assets_extra", "as_text", "exports_to_keep"]
                             }.get(kind, ["name", "serving_input_receiver_fn", "assets_extra", "as_text"])
                args = bind_values(node, signature, kind, e.value.file, e.value.env)
                if kind == "BestExporter":
                    args.setdefault("name", Value(cst.SimpleString('"best_exporter"'), e.value.file, e.value.env))
                    self.notes.append((CODE, "BestExporter: the Estimator's only evaluation was the final one "
                                             "(save_checkpoints_steps >= max_steps) and a BestExporter's first export "
                                             "is unconditional (compare_fn is not consulted), so it exported the "
                                             "trained model once, as the migrated program does", node))
                if "assets_extra" in args and not is_literal(args["assets_extra"].node, None):
                    raise Blocked(CODE, f"{kind}(assets_extra=...) is not converted", args["assets_extra"].node)
                if "as_text" in args and not is_literal(args["as_text"].node, False):
                    raise Blocked(CODE, f"{kind}(as_text=...) is not converted: the migrated SavedModel is binary",
                                  args["as_text"].node)
                if "name" not in args or "serving_input_receiver_fn" not in args:
                    raise Blocked(CODE, f"{kind} without name or serving_input_receiver_fn", node)
                receiver = self.receiver(args["serving_input_receiver_fn"], site)
                if kind == "LatestExporter":
                    self.notes.append((CODE, "LatestExporter: the migrated program evaluates once, after training, and "
                                             "exports that model (the last of the Estimator's exports); exports of "
                                             "evaluations during training are not made", node))
                found.append((args["name"], receiver))
            except Blocked as error:
                errors.append(error)
        if errors:
            raise Blocked.many(errors)
        return found

    def evaluated_more_than_once(self, site: Site, max_steps: Value | None) -> str | None:
        """Why train_and_evaluate may have evaluated before the end of training, or None when provably not: one
        process (a multi-worker job evaluated on its evaluator task every throttle_secs) and no checkpoint saved
        between the first one and the last (TF 2.15's listener skips the first save, evaluates at the next one
        whatever throttle_secs says, and at the end unless that step was just evaluated)."""
        if site.strategy is not None and site.strategy.kinds - {"default", "one-device", "mirrored"}:
            return "a multi-worker job evaluated on its evaluator task"
        if "save_checkpoints_steps" not in site.run_config:
            return "no save_checkpoints_steps: checkpoints every 600 s"
        if isinstance(max_steps, Least):  # min(max_steps, StopAtStepHook's last_step): N >= max_steps suffices
            max_steps = max_steps.first
        if max_steps is None or not isinstance(max_steps, Value):
            return "no plain TrainSpec max_steps"
        every = site.run_config["save_checkpoints_steps"]
        if not isinstance(every, Value):
            return "save_checkpoints_steps chosen by a condition"
        a, b = self.program.resolve(every), self.program.resolve(max_steps)
        try:
            if int(literal(a.node)) >= int(literal(b.node)):
                return None
            return f"save_checkpoints_steps={code(a.node)} < max_steps={code(b.node)}"
        except (ValueError, TypeError):
            pass
        if self.same_value(a, b):
            return None
        return f"save_checkpoints_steps={code(every.node)[:30]} and max_steps={code(max_steps.node)[:30]} are not " \
               "literals or one value"

    def same_value(self, a: Resolved, b: Resolved) -> bool:
        """Both expressions are one `name.attribute` (`args.steps`) of the same binding, never assigned to."""
        if a.node is b.node:
            return True
        node = a.node
        if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and code(node) == code(b.node)):
            return False
        found_a = self.program.lookup(node.value.value, node, a.value.file)
        found_b = self.program.lookup(node.value.value, b.node, b.value.file)
        if not (len(found_a) == len(found_b) == 1 and found_a[0] is found_b[0]):
            return False
        text = code(node)
        key = ("assign-targets", id(a.value.file))  # (one walk per file, however many values are compared)
        targets = self.program.cache.get(key)
        if targets is None or targets[0] is not a.value.file:
            targets = self.program.cache[key] = (a.value.file, _assign_targets(a.value.file.module))
        return not any(isinstance(t.target, cst.Attribute) and code(t.target) == text for t in targets[1])

    def receiver(self, value: Value, site: Site) -> dict:
        """serving_input_receiver_fn (rules/planners/receivers.py): build_parsing_serving_input_receiver_fn's arguments, or
        a hand-written receiver function ({"receiver_fn": its expression, "single_feature": ...})."""
        r = self.program.resolve(value)
        node = r.node
        path = self.tf(node.func, r.value.file) if isinstance(node, cst.Call) else None
        if path == receiver_rules.PARSING:
            receiver_args = bind_values(node, PARSING_RECEIVER_ARGS, "build_parsing_serving_input_receiver_fn",
                                        r.value.file, r.value.env)
            if "feature_spec" not in receiver_args:
                raise Blocked(CODE, "build_parsing_serving_input_receiver_fn() without feature_spec", node)
            site.consumed.extend(b for b in r.trail if b.kind == "assign")
            # a helper returning the receiver (`def serving_input_fn(): return build_parsing_...(spec)`) goes when
            # nothing else calls it: its feature_spec is rendered into the export
            site.removable.extend(b for b in r.trail if b.kind == "def")
            receiver_args["feature_spec"] = self._helper_local(receiver_args["feature_spec"], value)
            return receiver_args
        if path == receiver_rules.RAW:
            raw = bind_values(node, receiver_rules.RAW_ARGS, "build_raw_serving_input_receiver_fn", r.value.file,
                              r.value.env)
            if "features" not in raw:
                raise Blocked(CODE, "build_raw_serving_input_receiver_fn() without features", node)
            receiver_rules.check_raw_features(raw["features"].node, lambda n: self.tf(n, r.value.file))
            site.consumed.extend(b for b in r.trail if b.kind == "assign")
            return {"raw_features": raw["features"], **({"default_batch_size": raw["default_batch_size"]}
                                                          if "default_batch_size" in raw else {})}
        if serving_functions.is_lookup(node):  # `SERVING_FUNCTIONS[args.export_format]`: a dict of receivers
            return serving_functions.lookup(self, value, r.value, site, lambda item: self.receiver(item, site))
        fn = self.program.function_of(value)
        if fn is None or not isinstance(fn.node, cst.FunctionDef):
            raise Blocked(CODE, f"serving_input_receiver_fn `{code(value.node)[:60]}`: "
                                f"{self.why(r, 'build_parsing_serving_input_receiver_fn(...) or a def returning ServingInputReceiver')}",
                          value.node)
        plan = site.receivers.get(id(fn.node)) or receiver_rules.handwritten(fn, value, self.tf)
        site.receivers[id(fn.node)] = plan
        return {"receiver_fn": value, "single_feature": plan.single_feature}

    def _helper_local(self, spec: Value, at: Value) -> Value:
        """A feature_spec that is a local of the helper building the receiver (`spec = {...}` or
        `spec = make_parse_example_spec(columns)` read once, by the receiver call): its value, rendered at the
        export instead of the name, which means nothing there. Anything else is kept as it is."""
        if not isinstance(spec.node, cst.Name):
            return spec
        found = self.program.lookup(spec.node.value, spec.node, spec.file)
        if len(found) != 1 or found[0].kind != "assign" or found[0].scope.kind != "function" \
                or found[0].scope is at.file.scope_of(at.node):
            return spec
        if len(spec.file.loads_of(self.program, found[0])) != 1:  # mutated or read elsewhere: not one value
            return spec
        r = self.program.resolve(spec)
        if r.ambiguous or isinstance(r.node, cst.Name):
            return spec
        return r.value if r.value.node is r.node else Value(r.node, r.value.file, r.value.env)


def _assign_targets(module: cst.Module) -> list:
    """Every assignment target of a module (`x.y = ...`, `x.y += ...` included)."""
    found: list = []
    module.visit(_AssignTargets(found))
    return found


class _AssignTargets(Visitor):
    def __init__(self, found: list):
        self.found = found

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.found.append(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found.append(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.found.append(node)
