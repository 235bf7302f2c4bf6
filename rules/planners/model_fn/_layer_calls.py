"""tf.compat.v1.layers calls and layer objects → Keras layer attributes built in `__init__` and called in
`call()` with the same training flag."""
from __future__ import annotations

import keyword
import re

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import bind, code, is_literal
from .. import layers

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _layer_call_node(layer: str, inputs: cst.BaseExpression, inputs_text: str, flag: str | None):
    """`cst.parse_expression(f"{layer}({inputs_text}, training={flag})")` (without `training=` for no flag) built
    without the parser, the same nodes (tests/rewrite/test_model_fn_nodes.py checks deep_equals): for `layer` a
    name or `self.name`, a flag that is a name, and inputs on one line (a multi-line one is parsed: its
    continuation lines' layout depends on where it is parsed). None otherwise."""
    if "\n" in inputs_text or (flag is not None and not _IDENTIFIER.fullmatch(flag)):
        return None
    owner, _, attr = layer.rpartition(".")
    if not _IDENTIFIER.fullmatch(attr) or owner not in ("", "self") or keyword.iskeyword(attr):
        return None
    if flag is not None and keyword.iskeyword(flag) and flag not in ("True", "False", "None"):
        return None
    func = cst.Name(attr) if not owner else cst.Attribute(cst.Name(owner), cst.Name(attr))
    value = inputs.deep_clone()
    if flag is None:
        return cst.Call(func, [cst.Arg(value)])
    return cst.Call(func, [cst.Arg(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                           cst.Arg(cst.Name(flag), keyword=cst.Name("training"),
                                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])


class LayerCallsMixin:
    """Layer constructors and calls."""

    def ctor_args(self, kind: layers.LayerKind, family: str, call: cst.Call) -> dict:
        args = bind(call, kind.ctor_args, f"{'keras' if family == 'keras' else 'tf.layers'}.{kind.keras}", layers.CODE)
        positional = sum(1 for a in call.args if a.keyword is None)
        if family == "keras" and positional > layers.KERAS_POSITIONAL.get(kind.keras, len(kind.ctor_args)):
            raise Blocked(layers.CODE, f"keras.layers.{kind.keras}: pass the arguments after the first "
                                       f"{layers.KERAS_POSITIONAL[kind.keras]} by name", call)
        self.check_names(call, {self.params} | (self.loop.targets if self.loop else set()), "a layer argument")
        return args

    def ctor(self, kind, args, name: str, node, family: str) -> str:
        if family == "keras":
            return layers.keras_ctor(kind, args, name, node, self.tf, keras_initializers=True)
        return layers.keras_ctor(kind, args, self.name_token(name, kind.base_name, None), node, self.tf)

    def functional_layer(self, kind: layers.LayerKind, args: dict, call_args: dict, node: cst.Call,
                         target: str) -> cst.BaseExpression:
        """A tf.compat.v1 layer built at this call: a Keras layer attribute (or a list of them inside a loop)."""
        if "inputs" not in call_args:
            raise Blocked(layers.CODE, "layer call without inputs", node)
        self.family("v1", node)
        explicit = args.get("name")
        if explicit is not None and is_literal(explicit, None):
            explicit = None
        if self.loop is not None:
            token = self.name_token(None, kind.base_name, None if explicit is None else code(explicit))
            ctor = layers.keras_ctor(kind, args, token, node, self.tf)
            self.check_names(ctor, {self.params, "keras", layers.TF1_BATCH_NORM}
                             | self.loop.targets, "a layer argument", node)
            if self.loop.branch:  # built in __init__ under the same `if`, called as an attribute
                attr = self.free_attr(layers.explicit_name(args) or f"{target}_{kind.base_name}")
                self.loop.sites.append((attr, f"self.{attr}", ctor))
                return self.layer_call(f"self.{attr}", kind, call_args["inputs"], call_args.get("training"))
            attr = self.free_attr(f"{kind.base_name}_layers")
            local = self.free_local(f"{kind.base_name}_layer", {s[1] for s in self.loop.sites} | self.loop.targets)
            self.loop.sites.append((attr, local, ctor))
            return self.layer_call(local, kind, call_args["inputs"], call_args.get("training"))
        literal_name = layers.explicit_name(args)
        if self.runtime_names:  # after a loop: TF1 counted at run time, so does the generated __init__
            token = self.name_token(None, kind.base_name, None if explicit is None else code(explicit))
            if literal_name is not None:
                self.named_layers.add(literal_name)
            attr = self.free_attr(literal_name or f"{target}_{kind.base_name}")
        else:
            name = self.layer_name(kind, literal_name, node)
            token = self.name_token(name, kind.base_name, None if explicit is None else code(explicit))
            attr = name
            if attr in self.attrs():
                raise Blocked(layers.CODE, f"layer name '{name}' is also a generated attribute; rename the layer", node)
        ctor = layers.keras_ctor(kind, args, token, node, self.tf)
        self.check_names(ctor, {self.params, "keras", layers.TF1_BATCH_NORM}, "a layer argument", node)
        self.layers.append((attr, ctor))
        return self.layer_call(f"self.{attr}", kind, call_args["inputs"], call_args.get("training"))

    def layer_call(self, layer: str, kind: layers.LayerKind, inputs, training) -> cst.BaseExpression:
        inputs_text = code(inputs)
        text = f"{layer}({inputs_text}"
        flag = None
        if kind.takes_training:
            flag = self.training_flag(training)
            text += f", training={flag}"
            if kind.keras == "BatchNormalization" and flag != "False":
                self.batch_norm_training = True
        built = _layer_call_node(layer, inputs, inputs_text, flag)
        return built if built is not None else cst.parse_expression(text + ")")
