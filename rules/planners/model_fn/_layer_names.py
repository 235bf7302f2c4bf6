"""Layer names as TF1 gave them (`dense`, `dense_1`, …; Keras' per-class counter for keras.layers objects),
static or counted at run time by the generated `tf1_name`, and free attribute and local names."""
from __future__ import annotations

from tfmigrate.diagnostics import Blocked

from .. import layers
from ._constants import BUILTINS, MODEL_ATTRIBUTES

TF1_NAME_HELPER = '''\
# TF1 scoped each layer by its explicit name, else by the first unused "<kind>", "<kind>_1", … in call order
tf1_names = set()

def tf1_name(name, explicit=False):
    unique, index = name, 0
    while not explicit and unique in tf1_names:
        index += 1
        unique = f"{name}_{index}"
    tf1_names.add(unique)
    return unique
'''


class LayerNamesMixin:
    """TF1 layer names and free attribute names."""

    def free_local(self, base: str, taken: set[str]) -> str:
        name, n = base, 0
        while name in taken or name in self.fn_names or name in self.module_names or name in BUILTINS:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        return name

    def attrs(self) -> set[str]:
        return ({a for a, _ in self.layers if a} | self.list_attrs
                | {a for a, _, _ in (self.loop.sites if self.loop else [])})

    def free_attr(self, base: str) -> str:
        taken = self.attrs() | MODEL_ATTRIBUTES
        name, n = base, 0
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        return name

    def family(self, family: str, node) -> None:
        self.families.add(family)
        if len(self.families) > 1:
            raise Blocked(layers.CODE, "keras.layers objects and tf.compat.v1.layers in one model_fn: TF1 gave their "
                                       "variables names that do not follow the layer names (dense/kernel_1); use one "
                                       "of the two", node)

    def layer_name(self, kind: layers.LayerKind, explicit: str | None, node) -> str:
        """The static TF1 name of a tf.compat.v1 layer: its explicit name, else the first unused dense, dense_1, …"""
        if explicit is None:
            explicit, index = kind.base_name, 0
            while explicit in self.named_layers:
                index += 1
                explicit = f"{kind.base_name}_{index}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", node)
        self.named_layers.add(explicit)
        return explicit

    def keras_layer_name(self, kind: layers.LayerKind, explicit: str | None, node) -> str:
        """A keras.layers object built in a TF1 graph: Keras' own per-class counter (explicit names do not count)."""
        if explicit is None:
            count = self.keras_counts.get(kind.base_name, 0)
            self.keras_counts[kind.base_name] = count + 1
            explicit = kind.base_name if count == 0 else f"{kind.base_name}_{count}"
        if explicit in self.named_layers:
            raise Blocked(layers.CODE, f"layer name '{explicit}' is used twice (variable sharing is not converted)", node)
        self.named_layers.add(explicit)
        return explicit

    def name_token(self, static: str | None, base: str, explicit: str | None) -> str:
        token = f"__tfmigrate_layer_name_{len(self.name_tokens)}__"
        self.name_tokens[token] = (static, base, explicit)
        return token

    def render_names(self, text: str) -> str:
        for token, (static, base, explicit) in self.name_tokens.items():
            if f'"{token}"' not in text:
                continue
            if not self.runtime_names:
                value = f'"{static}"'
            elif explicit is not None:
                value = f"tf1_name({explicit}, explicit=True)"
            else:
                value = f'tf1_name("{base}")'
            text = text.replace(f'"{token}"', value)
        return text
