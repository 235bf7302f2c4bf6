"""Forward statements → `call()`: a forward value's layer calls become the Keras model's (the `_Forward`
transform); tensor ops in a mode branch are kept for the predictions and metrics that read them."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.visitors import Transformer

from ...facts.calls import TF, bind
from .. import layers
from ._constants import CODE, MODEL_ATTRIBUTES, MODES
from ._input_layer import INPUT_LAYER, NUMERIC_COLUMNS_INPUT
from ._names import calls_in, rename_names


class _Forward(Transformer):
    """convert_forward's transform: a forward value's layer calls become the Keras model's (one instance a walk)."""

    def __init__(self, interp, target: str):  # interp: the Interpreter
        self.interp, self.target = interp, target
        self.inline: set[int] = set()  # `Layer(...)` calls that are immediately called: `Layer(...)(inputs)`

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Call):
            self.inline.add(id(node.func))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        interp, target = self.interp, self.target
        if id(original) in self.inline:
            return updated
        found = layers.kind_of(interp.tf(original))
        if found and found[0] == "functional":
            kind = found[1]
            args = bind(updated, kind.functional_args, f"tf.layers.{kind.base_name}", layers.CODE)
            return interp.functional_layer(kind, args, args, original, target)
        if found:
            raise Blocked(layers.CODE, "a layer object must be assigned to a name before it is called", original)
        inline = layers.kind_of(interp.tf(original.func)) if isinstance(original.func, cst.Call) else None
        if inline and inline[0] in ("class", "keras"):
            kind = inline[1]
            ctor_args = interp.ctor_args(kind, inline[0], updated.func)
            call = bind(updated, ["inputs", "training"], f"layer {kind.keras}", layers.CODE)
            if inline[0] == "keras":
                if interp.loop is not None:
                    raise Blocked(layers.CODE, "keras.layers objects built inside a loop or a static `if` are not "
                                               "converted: use tf.compat.v1.layers there, or build them before "
                                               "it",
                                  original)
                interp.family("keras", original)
                name = interp.keras_layer_name(kind, layers.explicit_name(ctor_args), original)
                attr = interp.free_attr(name)
                interp.layers.append((attr, interp.ctor(kind, ctor_args, name, original.func, "keras")))
                return interp.layer_call(f"self.{attr}", kind, call["inputs"], call.get("training"))
            return interp.functional_layer(kind, ctor_args, call, original, target)
        if interp.tf(original) == "nn.embedding_lookup":
            return interp.embedding_lookup(updated)
        if interp.tf(original) == INPUT_LAYER and (interp.input_layers is True
                                                   or isinstance(interp.input_layers, list)):
            return interp.input_layer(updated)
        func = updated.func
        if isinstance(func, cst.Name) and func.value in interp.keras_models:
            return interp.keras_model_call(func.value, updated)
        if isinstance(func, cst.Name) and func.value in interp.module_models:
            raise Blocked(layers.CODE, f"`{func.value}` is a Keras model built at module level: the Estimator "
                                       "built a new graph for each train/evaluate/predict call, and a model "
                                       "built outside model_fn does not follow it; build it in model_fn "
                                       "(inline or through a helper)", original)
        if isinstance(func, cst.Name) and func.value in interp.class_layers:
            kind, args, ctor_call, family, name = interp.class_layers[func.value]
            attr = func.value + "_layer" if func.value in MODEL_ATTRIBUTES else func.value
            if attr not in dict(interp.layers):
                if family == "v1":
                    if interp.runtime_names or interp.loop is not None:
                        raise Blocked(layers.CODE, "a tf.compat.v1.layers object first called in or after a "
                                                   "loop is not converted: call it before the loop", original)
                    name = interp.layer_name(kind, layers.explicit_name(args), ctor_call)
                interp.layers.append((attr, interp.ctor(kind, args, name, ctor_call, family)))
            call = bind(updated, ["inputs", "training"], f"layer {func.value}", layers.CODE)
            return interp.layer_call(f"self.{attr}", kind, call["inputs"], call.get("training"))
        return updated


class ForwardMixin:
    """Forward statements and values."""

    def convert_forward(self, value: cst.BaseExpression, target: str) -> cst.BaseExpression:
        return rename_names(value.visit(_Forward(self, target)), {name: f"self.{name}" for name in self.weights})

    def forward_statement(self, target: str, stmt: cst.SimpleStatementLine, small: cst.Assign) -> None:
        value = small.value
        self.refuse_variable_makers(value, stmt)
        if self.loop is None and self.active != self.live and target not in self.forward | set(self.label_values) \
                and not self.builds_layers(value) and not self.uses_labels(value) \
                and not self.free_names(value) & set(self.weights):
            # a tensor op inside a mode branch (`probabilities = tf.nn.softmax(logits)` before the PREDICT return):
            # not part of the model; predictions/metrics that read it get it written out
            self.check_names(value, self.forward | set(self.forward_exprs), f"`{target} = ...`", stmt)
            self.forward_exprs[target] = value
            self.bind_name(target, "forward")
            return
        if self.loss is not None and self.hook_only(target, value, stmt):  # read by LoggingTensorHooks only
            return
        if self.loss is not None:
            raise Blocked(CODE, f"`{target} = ...` after the loss is not converted", stmt)
        if self.loop is None:
            self.whole_model(f"`{target} = ...`", stmt)
        if self.uses_labels(value):
            self.check_names(value, self.forward, f"`{target} = ...`", stmt)
        new_value = self.convert_forward(value, target)
        generated_names = {TF, *({"tf1_mod_rows", "VARIABLE_PARTITIONER"} if self.mod_rows else ()),
                           *((NUMERIC_COLUMNS_INPUT,) if self.input_layers is True else ())}
        loop_names = self.loop.targets | {s[1] for s in self.loop.sites} if self.loop else set()
        self.check_names(new_value, self.forward | generated_names | loop_names | {self.params, "self", "training"},
                         f"`{target} = ...`", stmt)
        self.forward.add(target)
        self.bind_name(target, "forward")
        if self.loop is None and not self.builds_layers(value) and not self.free_names(value) & set(self.weights) \
                and not any(self.tf(c) == INPUT_LAYER for c in calls_in(value)):
            self.forward_exprs[target] = value
            if self.scope_depth:
                self.scoped.add(target)
        new_stmt = stmt.with_changes(body=[small.with_changes(value=new_value)])
        if self.pending_leading:
            new_stmt = new_stmt.with_changes(leading_lines=[*self.pending_leading, *new_stmt.leading_lines])
            self.pending_leading = []
        (self.loop.body if self.loop else self.call_body).append(new_stmt)

    def whole_model(self, what: str, node) -> None:
        """The model is the same in every mode: what builds it cannot sit in a mode branch."""
        if self.active != self.live:
            modes = "/".join(m for m in MODES if m in self.active)
            raise Blocked(CODE, f"{what} runs only in {modes}: the Keras model is one forward pass for every mode; "
                                "move it out of the mode branch", node)

    def builds_layers(self, node) -> bool:
        for call in calls_in(node):
            if layers.kind_of(self.tf(call)) or (isinstance(call.func, cst.Name) and (
                    call.func.value in self.class_layers or call.func.value in self.keras_models)):
                return True
        return False
