"""tf.keras models built in the model_fn: a `Sequential([...])` (inline or from a parameterless helper), a
functional `Model(inputs, outputs)` over a `keras.Input`, and lists of Keras layers called in a loop."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import bind, code, is_literal
from .. import layers
from ._constants import CODE, MODEL_ATTRIBUTES
from ._syntax import docstring_of

KERAS_MODELS = ("keras.Sequential", "keras.models.Sequential", "keras.Model", "keras.models.Model")


class KerasModelsMixin:
    """tf.keras models and layer lists."""

    def model_helper(self, value) -> cst.Call | None:
        """`build_model()`: a module-level function without parameters that returns a keras.Sequential built in it
        (`return tf.keras.Sequential([...])`, or `model = ...` then `return model`). Called in the model_fn, it
        built the model in the Estimator's graph like an inline one."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and not value.args
                and value.func.value in self.helpers and value.func.value not in self.locals):
            return None
        fn = self.helpers[value.func.value]
        body = [s for s in fn.body.body if docstring_of(s) is None]
        smalls = [s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None for s in body]
        built = None
        if len(smalls) == 1 and isinstance(smalls[0], cst.Return):
            built = smalls[0].value
        elif (len(smalls) == 2 and isinstance(smalls[0], cst.Assign) and isinstance(smalls[1], cst.Return)
              and len(smalls[0].targets) == 1 and isinstance(smalls[0].targets[0].target, cst.Name)
              and isinstance(smalls[1].value, cst.Name)
              and smalls[1].value.value == smalls[0].targets[0].target.value):
            built = smalls[0].value
        if not (isinstance(built, cst.Call) and self.tf(built) in KERAS_MODELS):
            return None
        if (fn.params.params or isinstance(fn.params.star_arg, cst.Param) or fn.params.kwonly_params
                or fn.params.star_kwarg is not None):
            raise Blocked(layers.CODE, f"{value.func.value}() builds a Keras model from parameters; only a helper "
                                       "without parameters is converted (build the model in model_fn)", value)
        return built

    def keras_model(self, target: str, value: cst.Call, node) -> None:
        """`model = tf.keras.Sequential([tf.keras.layers.Dense(...), ...])` in the model_fn: a keras.Sequential
        attribute named as Keras named it in the TF1 graph ("sequential", "sequential_1", … per graph), its layers
        named by Keras' per-class counter, so its variables keep their TF1 names (`sequential/dense/kernel`)."""
        self.whole_model("a Keras model", node)
        path = self.tf(value)
        if path in ("keras.Model", "keras.models.Model"):
            self.functional_model(target, value)
            return
        args = bind(value, ["layers", "name", "trainable"], f"tf.{path}", layers.CODE)
        if "trainable" in args and not is_literal(args["trainable"], True):
            raise Blocked(layers.CODE, "Sequential(trainable=...) is not converted", value)
        elements = args.get("layers")
        if not isinstance(elements, (cst.List, cst.Tuple)):
            raise Blocked(layers.CODE, "the Sequential's layers must be written as a list of tf.keras.layers "
                                       "constructors (model.add(...) and computed lists are not converted)", value)
        self.family("keras", value)
        ctors, training_layers = [], []
        for element in elements.elements:
            layer = element.value
            found = layers.kind_of(self.tf(layer)) if isinstance(layer, cst.Call) and not isinstance(element, cst.StarredElement) else None
            if not found or found[0] != "keras":
                raise Blocked(layers.CODE, f"`{code(layer)}` in a Sequential is not converted: only "
                                           f"tf.keras.layers {', '.join(sorted(layers.CLASSES))} constructors are",
                              layer)
            kind = found[1]
            # input_shape only builds the model early (same weights); Keras 3 builds it at the first call
            call = layer.with_changes(args=[a for a in layer.args
                                            if not (a.keyword and a.keyword.value in ("input_shape", "input_dim"))])
            ctor_args = self.ctor_args(kind, "keras", call)
            name = self.keras_layer_name(kind, layers.explicit_name(ctor_args), layer)
            ctors.append(self.ctor(kind, ctor_args, name, call, "keras"))
            if kind.takes_training:
                training_layers.append((kind, layer))
        explicit = layers.explicit_name(args)
        if explicit is None:
            count = self.keras_counts.get("sequential", 0)
            self.keras_counts["sequential"] = count + 1
            explicit = "sequential" if count == 0 else f"sequential_{count}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", value)
        self.named_layers.add(explicit)
        attr = self.free_attr(explicit)
        inner = ",\n".join("    " + c for c in ctors)
        self.layers.append((None, f"self.{attr} = keras.Sequential([\n{inner},\n], name=\"{explicit}\")"))
        self.keras_models[target] = (attr, training_layers)

    def layer_list(self, target: str, value) -> bool:
        """`hidden = [tf.keras.layers.Dense(32), tf.keras.layers.Dense(10)]`: a list attribute of the layers, named
        by Keras' per-class counters as the TF1 graph named them (`dense/kernel`, no enclosing scope); the model_fn
        calls them in a `for layer in hidden:` loop."""
        if not (isinstance(value, (cst.List, cst.Tuple)) and value.elements and all(
                isinstance(e, cst.Element) and isinstance(e.value, cst.Call)
                and (layers.kind_of(self.tf(e.value)) or (None,))[0] == "keras" for e in value.elements)):
            return False
        self.whole_model("a list of Keras layers", value)
        self.family("keras", value)
        ctors, training_layers = [], []
        for element in value.elements:
            kind = layers.kind_of(self.tf(element.value))[1]
            args = self.ctor_args(kind, "keras", element.value)
            name = self.keras_layer_name(kind, layers.explicit_name(args), element.value)
            ctors.append(self.ctor(kind, args, name, element.value, "keras"))
            if kind.takes_training:
                training_layers.append((kind, element.value))
        attr = self.free_attr(f"{target}_layers" if target in MODEL_ATTRIBUTES else target)
        inner = ",\n".join("    " + c for c in ctors)
        self.layers.append((None, f"self.{attr} = [\n{inner},\n]"))
        self.list_attrs.add(attr)
        self.held_in_lists.add(attr)
        self.layer_lists[target] = (attr, training_layers)
        return True

    def layer_list_loop(self, stmt: cst.For) -> None:
        """`for layer in hidden: x = layer(x)` over a list of Keras layers: the same loop over the list attribute."""
        attr, training_layers = self.layer_lists[stmt.iter.value]
        if not isinstance(stmt.target, cst.Name) or stmt.orelse is not None:
            raise Blocked(CODE, "a loop over Keras layers is converted as `for layer in layers:` (no else)", stmt)
        self.whole_model("a loop", stmt)
        layer = stmt.target.value
        body = []
        for inner in stmt.body.body:
            small = inner.body[0] if isinstance(inner, cst.SimpleStatementLine) and len(inner.body) == 1 else None
            value = getattr(small, "value", None)
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and isinstance(value, cst.Call)
                    and isinstance(value.func, cst.Name) and value.func.value == layer):
                raise Blocked(CODE, f"`{code(inner).strip()}` in a loop over Keras layers is not converted: only "
                                    f"`x = {layer}(x)` (with training=...) is", inner)
            args = bind(value, ["inputs", "training"], f"{layer}(...)", layers.CODE)
            if "inputs" not in args:
                raise Blocked(layers.CODE, f"{layer}(...) without inputs", value)
            self.check_names(args["inputs"], self.forward, f"`{code(inner).strip()}`", inner)
            flag = self.training_flag(args.get("training"))
            for kind, node in training_layers:
                if kind.keras == "BatchNormalization" and flag != "False":
                    raise Blocked(layers.CODE, "a tf.keras BatchNormalization called in training mode: the Estimator "
                                               "never ran its moving-average updates (they are not in UPDATE_OPS), "
                                               "Keras 3 runs them; call it with training=False", node)
            extra = f", training={flag}" if training_layers or "training" in args else ""
            target = small.targets[0].target.value
            body.append(inner.with_changes(body=[small.with_changes(
                value=cst.parse_expression(f"{layer}({code(args['inputs'])}{extra})"))]))
            self.forward.add(target)
            self.bind_name(target, "forward")
        self.call_body.append(stmt.with_changes(iter=cst.parse_expression(f"self.{attr}"),
                                                body=stmt.body.with_changes(body=body)))

    def keras_input(self, target: str, value: cst.Call, stmt) -> None:
        """`inputs = tf.keras.Input(shape=...)`: the start of a functional model (no variables of its own)."""
        self.whole_model("a Keras model", value)
        args = bind(value, ["shape", "batch_size", "name", "dtype"], f"tf.{self.tf(value)}", layers.CODE)
        self.check_names(value, {self.params}, "the Keras Input's arguments")
        text = f"{target} = keras.Input({', '.join(f'{k}={code(v)}' for k, v in args.items())})"
        self.symbolic[target] = ([text], [])

    def symbolic_layer(self, target: str, value, stmt) -> bool:
        """`x = tf.keras.layers.Dense(...)(inputs)` on a functional model's symbolic tensor: a line of the model's
        construction, the layer named by Keras' per-class counter (TF1 built it right there, outside any scope)."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Call) and len(value.args) == 1
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value in self.symbolic):
            return False
        found = layers.kind_of(self.tf(value.func))
        if not found or found[0] != "keras":
            raise Blocked(layers.CODE, f"`{code(value.func)}` on a Keras symbolic tensor is not converted: only "
                                       f"tf.keras.layers {', '.join(sorted(layers.CLASSES))} constructors are", value)
        if value.args[0].keyword is not None or value.args[0].star:
            raise Blocked(layers.CODE, "call the layer on the symbolic tensor positionally", value)
        kind = found[1]
        self.family("keras", value)
        ctor_args = self.ctor_args(kind, "keras", value.func)
        name = self.keras_layer_name(kind, layers.explicit_name(ctor_args), value)
        lines, training_layers = self.symbolic[value.args[0].value.value]
        ctor = self.ctor(kind, ctor_args, name, value.func, "keras")
        self.symbolic[target] = ([*lines, f"{target} = {ctor}({value.args[0].value.value})"],
                                 [*training_layers, *([(kind, value)] if kind.takes_training else [])])
        return True

    def functional_model(self, target: str, value: cst.Call) -> None:
        """`model = tf.keras.Model(inputs, outputs)` over an Input and layer calls: the same construction in
        `__init__` (a keras.Model attribute); its layers' variables were `dense/kernel` in TF1 (built before the
        model existed, outside its scope) and are `dense/kernel` below the Keras 3 model too."""
        args = bind(value, ["inputs", "outputs", "name", "trainable"], f"tf.{self.tf(value)}", layers.CODE)
        if "trainable" in args and not is_literal(args["trainable"], True):
            raise Blocked(layers.CODE, "Model(trainable=...) is not converted", value)
        inputs, outputs = args.get("inputs"), args.get("outputs")
        if not (isinstance(inputs, cst.Name) and isinstance(outputs, cst.Name) and inputs.value in self.symbolic
                and outputs.value in self.symbolic):
            raise Blocked(layers.CODE, "a functional keras.Model is converted with one tf.keras.Input and one output "
                                       "built from it in model_fn by tf.keras.layers calls", value)
        lines, training_layers = self.symbolic[outputs.value]
        if lines[0] != self.symbolic[inputs.value][0][0]:
            raise Blocked(layers.CODE, "the model's output is not built from its input", value)
        local_names = {line.split(" = ", 1)[0] for line in lines}
        taken = local_names & {"self", "keras", self.params}
        if taken:
            raise Blocked(layers.CODE, f"the functional model's tensor `{sorted(taken)[0]}` would shadow a name the "
                                       "generated __init__ needs; rename it", value)
        explicit = layers.explicit_name(args) or "model"
        attr = self.free_attr(f"{target}_model" if target in MODEL_ATTRIBUTES else target)
        self.layers.append((None, "\n".join([*lines, f"self.{attr} = keras.Model(inputs={inputs.value}, "
                                                     f"outputs={outputs.value}, name=\"{explicit}\")"])))
        self.keras_models[target] = (attr, training_layers)

    def keras_model_call(self, name: str, call: cst.Call) -> cst.BaseExpression:
        attr, training_layers = self.keras_models[name]
        args = bind(call, ["inputs", "training", "mask"], f"{name}(...)", layers.CODE)
        if "mask" in args or "inputs" not in args:
            raise Blocked(layers.CODE, f"{name}(...) is converted with inputs and training only", call)
        flag = self.training_flag(args.get("training"))
        for kind, layer in training_layers:
            if kind.keras == "BatchNormalization" and flag != "False":
                raise Blocked(layers.CODE, "a tf.keras BatchNormalization in a Keras model called in training mode: "
                                           "the Estimator never ran its moving-average updates (they are not in "
                                           "UPDATE_OPS), Keras 3 runs them; call the model with training=False, or "
                                           "use tf.compat.v1.layers.batch_normalization with UPDATE_OPS", layer)
        return cst.parse_expression(f"self.{attr}({code(args['inputs'])}, training={flag})")
