"""TPUEstimator(use_tpu=False): the arms and values for use_tpu=False, TPUEstimatorSpec's arguments as the
EstimatorSpec it became on CPU, and `eval_metrics=(metric_fn, tensors)` inlined into eval_metric_ops."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import code, is_literal
from ...facts.nodes import subtree_nodes
from .. import tpu as tpu_rules
from ._names import parenthesized, substitute
from ._syntax import docstring_of


_INIT_FROM_CHECKPOINT = (
    "{where} is not converted yet: TF1 set the starting values of the variables its assignment map names from that "
    "checkpoint (BERT's get_assignment_map_from_checkpoint: every trainable variable whose name the checkpoint "
    "holds), which the migrated Keras model would not do. When every variable it restores is in the checkpoint under "
    "its own name, pass the checkpoint as TPUEstimator(warm_start_from=tf.estimator.WarmStartSettings(ckpt, "
    "vars_to_warm_start=<regex of those names>)) instead, which tfmigrate converts; or load the values into the "
    "migrated model by TF1 name before training (Model.restore_estimator_checkpoint reads them)")


class TpuMixin:
    """TPUEstimator(use_tpu=False)."""

    def use_tpu_test(self, node) -> bool | None:
        """The value of a test on use_tpu (False here), or None when `node` is not one."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.use_tpu_test(node.expression)
            return None if inner is None else not inner
        text = code(node).strip()
        if text in self.tpu:
            return False
        if (isinstance(node, cst.Subscript) and code(node.value) == self.params and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.SimpleString)
                and node.slice[0].slice.value.evaluated_value == "use_tpu"):
            return False
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
                and code(node.func.value) == self.params and node.args
                and isinstance(node.args[0].value, cst.SimpleString) and node.args[0].value.evaluated_value == "use_tpu"):
            return False  # params.get("use_tpu"[, default]): the key is always there
        return None

    def no_tpu_ops(self, stmt) -> None:
        """tf.tpu ops (CrossShardOptimizer, ...) on the path that runs with use_tpu=False: TF1 built them on CPU,
        where they fail or mean something the converted model does not do."""
        for node in subtree_nodes(stmt):
            path = self.tf(node) if isinstance(node, cst.Call) else None
            if path is not None and path.endswith("train.init_from_checkpoint"):
                raise Blocked(tpu_rules.CODE, _INIT_FROM_CHECKPOINT.format(where=f"tf.{path}(...) in model_fn"), node)
            if path is not None and (path.startswith("tpu.") or path.startswith("contrib.tpu.")) \
                    and path not in tpu_rules.SPECS:
                raise Blocked(tpu_rules.CODE, f"tf.{path} runs with use_tpu=False here: only TPU code under "
                                              "`if params[\"use_tpu\"]:` (or the use_tpu flag) is dropped; put it "
                                              "there", node)

    def use_tpu_choice(self, stmt: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        """`x = a if params["use_tpu"] else b`: the value for use_tpu=False."""
        small = stmt.body[0] if len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.IfExp):
            test = self.use_tpu_test(small.value.test)
            if test is not None:
                chosen = small.value.body if test else small.value.orelse
                if len(small.targets) == 1 and isinstance(chosen, cst.Name) and \
                        code(small.targets[0].target) == chosen.value:  # `opt = ... else opt`: nothing changes
                    return stmt.with_changes(body=[cst.Pass()])
                return stmt.with_changes(body=[small.with_changes(value=chosen.with_changes(lpar=[], rpar=[]))])
        return stmt

    def use_tpu_branch(self, stmt: cst.If) -> None:
        """`if params["use_tpu"]: ... else: ...`: only the arm for use_tpu=False ran."""
        if self.use_tpu_test(stmt.test):
            body = stmt.body.body
        elif isinstance(stmt.orelse, cst.If):
            self.statement(stmt.orelse)
            return
        else:
            body = stmt.orelse.body.body if stmt.orelse is not None else ()
        tainted: set[str] = set()
        errors = self.each(body, tainted=tainted)
        if errors:
            raise self.blocked_inside(errors, tainted)

    def tpu_spec_args(self, args: dict) -> dict:
        """TPUEstimatorSpec's arguments as the EstimatorSpec it became on CPU (as_estimator_spec)."""
        for key in ("host_call", "scaffold_fn"):
            if key in args and isinstance(args[key], cst.Name) and self.none_off_tpu(args[key].value):
                args[key] = cst.Name("None")  # `scaffold_fn = tpu_scaffold` only under `if use_tpu:`: None here
            if key == "scaffold_fn" and key in args and not is_literal(args[key], None) \
                    and self.initialises(args[key]):
                raise Blocked(tpu_rules.CODE, _INIT_FROM_CHECKPOINT.format(
                    where=f"TPUEstimatorSpec(scaffold_fn={code(args[key])[:30]}), which calls "
                          "tf.compat.v1.train.init_from_checkpoint,"), args[key])
            if key in args and not is_literal(args[key], None):
                raise Blocked(tpu_rules.CODE, f"TPUEstimatorSpec({key}=...) is not converted: "
                                              + ("its outfeed host call (summaries) runs as a hook; write summaries "
                                                 "with a Keras callback" if key == "host_call" else
                                                 "the Keras model initialises its own variables"), args[key])
        metrics_node = args.pop("eval_metrics", None)
        if metrics_node is not None and not is_literal(metrics_node, None):
            pair = metrics_node
            if isinstance(pair, cst.Name):
                if pair.value not in self.tpu_metrics:
                    raise Blocked(tpu_rules.CODE, f"eval_metrics=`{pair.value}` is not a `(metric_fn, tensors)` "
                                                  "tuple assigned once above", pair)
                pair = self.tpu_metrics[pair.value]
            args["eval_metric_ops"] = self.inline_metric_fn(pair)
        return args

    def none_off_tpu(self, name: str) -> bool:
        """`name` is None wherever the model_fn runs with use_tpu=False: every assignment of it outside the arms
        use_tpu=False skips is `name = None` (BERT's `scaffold_fn = None`, then `scaffold_fn = tpu_scaffold` under
        `if use_tpu:`)."""
        live: list = []

        def walk(statements, dead: bool) -> None:
            for stmt in statements:
                if isinstance(stmt, cst.If):
                    test = self.use_tpu_test(stmt.test)
                    walk(stmt.body.body, dead or test is False)
                    if stmt.orelse is not None:
                        walk([stmt.orelse] if isinstance(stmt.orelse, cst.If) else stmt.orelse.body.body,
                             dead or test is True)
                elif isinstance(stmt, (cst.For, cst.While, cst.With, cst.Try)):
                    live.append(None if dead or name not in code(stmt) else stmt)  # (any binding there: unknown)
                elif isinstance(stmt, cst.SimpleStatementLine) and not dead:
                    for small in stmt.body:
                        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                            [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                        if any(not isinstance(t, cst.Name) and name in code(t) for t in targets):
                            live.append(small)  # an unpacking that may bind it
                        elif any(isinstance(t, cst.Name) and t.value == name for t in targets):
                            live.append(small if isinstance(small, cst.AugAssign) or small.value is None
                                        or not is_literal(small.value, None) else None)

        walk(self.fn.body.body, False)
        return bool(live) and all(x is None for x in live) and self.assign_counts.get(name, 0) >= 1

    def initialises(self, node) -> bool:
        """A scaffold_fn (a def in model_fn or at module level) that calls train.init_from_checkpoint."""
        fn = self.tpu_fns.get(node.value) or self.helpers.get(node.value) if isinstance(node, cst.Name) else None
        return fn is not None and any(isinstance(n, cst.Call) and (self.tf(n) or "").endswith(
            "train.init_from_checkpoint") for n in subtree_nodes(fn))

    def inline_metric_fn(self, pair) -> cst.Dict:
        """`(metric_fn, tensors)` → the dict `metric_fn(*tensors)` (or `**tensors`) returned."""
        if not (isinstance(pair, (cst.Tuple, cst.List)) and len(pair.elements) == 2
                and not any(isinstance(e, cst.StarredElement) for e in pair.elements)):
            raise Blocked(tpu_rules.CODE, "eval_metrics must be a `(metric_fn, tensors)` pair", pair)
        fn_node, tensors = pair.elements[0].value, pair.elements[1].value
        fn = None
        if isinstance(fn_node, cst.Name):
            fn = self.tpu_fns.get(fn_node.value)
            if fn is None and fn_node.value in self.helpers and fn_node.value not in self.assign_counts:
                fn = self.helpers[fn_node.value]
                if fn not in self.inlined_helpers:
                    self.inlined_helpers.append(fn)
        if fn is None:
            raise Blocked(tpu_rules.CODE, f"metric_fn `{code(fn_node)[:40]}` is not a function defined in model_fn or "
                                          "at module level of its file", fn_node)
        p = fn.params
        names = [x.name.value for x in p.params]
        if p.posonly_params or p.kwonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None \
                or any(x.default is not None for x in p.params):
            raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}` with defaults, *args or **kwargs is not "
                                          "converted", fn)
        if isinstance(tensors, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in tensors.elements) or len(tensors.elements) != len(names):
                raise Blocked(tpu_rules.CODE, f"eval_metrics passes {len(tensors.elements)} tensors to "
                                              f"`{fn.name.value}`, which takes {len(names)}", tensors)
            env = {n: parenthesized(e.value) for n, e in zip(names, tensors.elements)}
        elif isinstance(tensors, cst.Dict) and all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                                                   for e in tensors.elements):
            env = {e.key.evaluated_value: parenthesized(e.value) for e in tensors.elements}
            if set(env) != set(names):
                raise Blocked(tpu_rules.CODE, f"eval_metrics' keys do not match `{fn.name.value}`'s parameters", tensors)
        else:
            raise Blocked(tpu_rules.CODE, "eval_metrics' tensors must be a list, tuple or dict literal", tensors)
        body = list(fn.body.body)
        if body and docstring_of(body[0]) is not None:
            body = body[1:]
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                env[small.targets[0].target.value] = parenthesized(substitute(small.value, env))
            elif isinstance(small, cst.Return) and small.value is not None:
                result = substitute(small.value, env)
                if not isinstance(result, cst.Dict):
                    raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}` must return a dict literal", small)
                return result
            else:
                raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}`: only assignments and a final "
                                              "`return {...}` are converted", stmt)
        raise Blocked(tpu_rules.CODE, f"metric_fn `{fn.name.value}` does not return its metrics dict", fn)
