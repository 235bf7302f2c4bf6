"""Input functions → the datasets fit / evaluate / predict read (called as the Estimator called them, per replica
through `distribute_datasets_from_function` under a multi-replica strategy)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from .. import numpy_inputs
from .. import tpu as tpu_rules
from ...facts.sites import CODE_KIND, Site
from ...facts.estimator import CODE


_MODES = {"train": '"train"', "eval": '"eval"', "infer": '"infer"'}  # the values of tf.estimator.ModeKeys


class InputsMixin:
    """Emitter: an input_fn as a dataset_fn or a dataset."""

    # ---- input functions -------------------------------------------------------------------------------------
    def dataset_fn(self, value: Value, site: Site, at: cst.CSTNode, mode: str) -> tuple[str, bool]:
        """(code of a `dataset_fn(input_context)` at `at`, whether it shards by input_context).

        For mode "infer" (predict), code of the dataset itself: the Estimator passed no input_context there."""
        node = value.node
        infer = mode == "infer"
        if site.tpu is not None:
            ref = self.program.function_of(value)
            if ref is None or isinstance(ref.node, cst.Lambda) or "params" not in ref.params or "params" in ref.bound:
                raise Blocked(CODE_KIND, f"input_fn `{code(node)[:40]}` of a TPUEstimator does not take `params`: TF1 "
                                         "raised ValueError (TPUEstimator passes the batch size as "
                                         "params[\"batch_size\"])", node)
        if isinstance(node, cst.Lambda):
            p = node.params
            if isinstance(p.star_arg, cst.Param) or p.kwonly_params or p.star_kwarg:
                raise Blocked(CODE, "an input_fn lambda with *args/keyword-only parameters is not converted", node)
            names = [x.name.value for x in p.params]
            # a lambda written in the call at `at` (`train(input_fn=lambda: ...)`) ran within that call: its
            # module-level names held what reaches `at`
            inline = value.file is self.file and self.file.inside(node, {id(at)})
            body = self.render(Value(node.body, value.file, value.env), at, "input_fn", called_at=inline)
            if not names:
                return (body, False) if infer else (f"lambda input_context: {body}", False)
            if names == ["input_context"] and not infer:
                return f"lambda input_context: {body}", True
            raise Blocked(CODE, "an input_fn lambda may take only input_context (the Estimator passed params/"
                                "mode/config by name)", node)
        fn = self.program.function_of(value)
        if fn is None:
            r = self.program.resolve(value)
            path = self.analysis.tf(r.node, r.value.file) if isinstance(r.node, cst.Call) else None
            if path == numpy_inputs.NUMPY:  # checked by the analysis (Analysis._numpy_input)
                args = numpy_inputs.arguments(r.node, r.value.file, r.value.env)
                dataset = numpy_inputs.dataset_text(
                    args, lambda v, what: self.render(v, at, what))
                return (dataset, False) if infer else (f"lambda input_context: {dataset}", False)
            if path == numpy_inputs.PANDAS:
                raise Blocked(CODE, f"tf.{path} {numpy_inputs.PANDAS_TODO}", r.node.func)  # as in its own file
            if path and path.startswith("estimator.inputs."):
                raise Blocked(CODE, f"tf.{path} is not converted: its queue-based shuffling has no exact TF2 "
                                    "equivalent; build a tf.data.Dataset (from_tensor_slices) input_fn", r.node)
            raise Blocked(CODE, f"input_fn `{code(node)[:60]}`: {self.analysis.why(r, 'an input function')}", node)
        text = self.render(value, at, "input_fn")
        params = [p for p in fn.params if p not in fn.bound]
        defaults = _defaults(fn.node)
        kwargs = []
        for p in params:
            if p == "input_context" and infer:
                if p not in defaults:
                    raise Blocked(CODE, f"input_fn `{code(node)[:40]}` for predict takes input_context without a "
                                        "default; the Estimator called it without one", node)
            elif p == "input_context":
                kwargs.append("input_context=input_context")
            elif p == "params":
                params = "{}" if site.params_value is None else self.render(site.params_value, at, 'params')
                if site.tpu is not None:  # TPUEstimator put the mode's batch size in the input_fn's params
                    batch = site.tpu.batch.get(mode)
                    params = tpu_rules.input_params(
                        params, None if batch is None else self.render(batch, at, f"the {mode} batch size"))
                kwargs.append(f"params={params}")
            elif p == "mode":
                kwargs.append(f"mode={_MODES[mode]}")
            elif p == "config":
                raise Blocked(CODE, f"input_fn `{code(node)[:40]}` takes config (the Estimator's RunConfig), which "
                                    "has no TF2 object; read what it needs from flags or params", node)
            elif p not in defaults:
                raise Blocked(CODE, f"input_fn `{code(node)[:40]}` has a parameter `{p}` the Estimator would not "
                                    "pass", node)
        if infer:
            return f"{callable_text(text, node)}({', '.join(kwargs)})", False
        shards = "input_context" in params
        if params == ["input_context"] and not fn.bound and is_atom_text(node):
            return text, True
        if not kwargs:
            return f"lambda input_context: {callable_text(text, node)}()", False
        kwargs = [k for k in kwargs if k != "input_context=input_context"] + \
            (["input_context=input_context"] if shards else [])
        return f"lambda input_context: {callable_text(text, node)}({', '.join(kwargs)})", shards

    def keras_data(self, value: Value, site: Site, at: cst.CSTNode, mode: str, model: str) -> str:
        """The dataset fit/evaluate reads; under a multi-replica strategy, distributed by the strategy the model
        was built under (`model.distribute_strategy`: the program's strategy variable may not be visible here)."""
        dataset_fn, shards = self.dataset_fn(value, site, at, mode)
        from .. import keras_estimator

        if keras_estimator.is_keras(site):  # dict features → the model's inputs by name, as model_to_estimator did
            data = dataset_fn[len("lambda input_context: "):] if dataset_fn.startswith("lambda input_context: ") \
                else f"{dataset_fn}()"
            return f"model_to_estimator_inputs({model}, {data})"
        if site.strategy.kinds <= {"default", "one-device"}:
            if shards:  # without a strategy the Estimator passed input_context=None
                body = dataset_fn[len("lambda input_context: "):]
                if dataset_fn.startswith("lambda input_context: ") and body.endswith("input_context=input_context)"):
                    return body[:-len("input_context)")] + "None)"
                if dataset_fn.startswith("lambda "):  # a lambda of the program's taking input_context
                    return f"({dataset_fn})(None)"
                if not _defaults_to_none(self.program.function_of(value), "input_context"):
                    return f"{dataset_fn}(None)"  # (a default of None is passed by leaving it out)
            if dataset_fn.startswith("lambda input_context: "):
                return dataset_fn[len("lambda input_context: "):]
            return f"{dataset_fn}()"
        return f"{model}.distribute_strategy.distribute_datasets_from_function({dataset_fn})"


def _defaults_to_none(fn, name: str) -> bool:
    """`fn` (a FunctionRef or None) has a parameter `name` whose default is None."""
    params = fn.node.params if fn is not None else None
    found = [p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.name.value == name] \
        if params is not None else []
    return bool(found) and isinstance(found[0].default, cst.Name) and found[0].default.value == "None"


def _defaults(fn) -> set[str]:
    p = fn.params
    return {x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params] if x.default is not None}


def is_atom_text(node) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute))


def callable_text(text: str, node) -> str:
    return text if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else f"({text})"
