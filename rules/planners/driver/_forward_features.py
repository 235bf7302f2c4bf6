"""`est = tf.contrib.estimator.forward_features(est, keys)` over a canned estimator: the Estimator it returns is the
one it wraps, whose predictions also carry the input features `keys`. TF 1.15's extenders.py (the last TF 1.x; TF 2.15's
tensorflow_estimator has none) added them to the predictions and to the export signatures that are PredictOutputs
('predict' and 'serving_default'); a canned head's 'predict' signature is one, its serving_default (classify /
regress) is not. So training and evaluation are the canned model's own, and an export writes the 'predict' signature
with the features added (templates/export_methods.py.j2, `forwarded`). Blocked: predict() (its dicts would need the
features too: not generated yet), keys=None (every feature), keys not written as strings, a key the head's
predictions already have (TF1 raised), sparse_default_values, an Estimator not canned, and a use of the Estimator
that does not go through the wrapper for an export (its signature had no features)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value, code

from ...facts.estimator import CODE
from ...facts.mutations import changed_in_place
from ...facts.sites import Site
from .. import canned

FORWARD_FEATURES = ("contrib.estimator.forward_features",)
# the canned heads' PREDICT keys (TF1: "Cannot forward feature key ... Since it does exist in predictions")
_HEAD_KEYS = {"predictions", "logits", "logistic", "probabilities", "class_ids", "classes", "all_class_ids",
              "all_classes"}


class ForwardFeaturesMixin:
    """Analysis: a forward_features call over a canned Estimator is that Estimator, exporting the features too."""

    forwarders: frozenset = frozenset()  # id() of each converted forward_features call (set per analysis)

    def forward_features(self, call: cst.Call, file: FileIndex) -> None:
        args = {("estimator", "keys", "sparse_default_values")[i]: a.value for i, a in enumerate(call.args)
                if a.keyword is None and i < 3}
        args.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
        what = f"tf.contrib.estimator.forward_features(`{code(args.get('estimator', call))}`, ...)"
        if set(args) - {"estimator", "keys", "sparse_default_values"} or "estimator" not in args:
            raise Blocked(CODE, f"{what}: arguments not read", call)
        site = self.site_of(Value(args["estimator"], file))
        if not isinstance(site, Site):
            return  # not an Estimator this run builds: _calls says why at its uses
        if not canned.is_canned(site):
            raise Blocked(CODE, f"{what} over an Estimator that is not canned is not converted yet", call)
        if "sparse_default_values" in args:
            raise Blocked(CODE, f"{what}: sparse_default_values is not converted yet", call)
        if site.model_fn.forwarded:
            raise Blocked(CODE, f"a second {what} over one Estimator is not converted yet", call)
        keys = self._forwarded_keys(args.get("keys"), file, what, call)
        clash = sorted(set(keys) & _HEAD_KEYS)
        if clash:
            raise Blocked(CODE, f"{what}: the feature {clash[0]!r} is a key of the head's predictions (TF1 raised "
                                "\"Cannot forward feature key\")", call)
        if site.added_metrics:  # the chain add_metrics → forward_features: the wrapper must be over add_metrics'
            inner = self.program.resolve(Value(args["estimator"], file)).node
            if id(inner) not in self.wrappers:
                raise Blocked(CODE, f"{what} over the Estimator without its tf.estimator.add_metrics is not "
                                    "converted yet: wrap the add_metrics Estimator", call)
        site.model_fn.forwarded = tuple(keys)
        site.model_fn.notes.append((CODE, f"{what}: an export's 'predict' signature also returns the features "
                                          f"{', '.join(repr(k) for k in keys)}, as TF 1.15's forward_features added "
                                          "them to PredictOutput signatures (earlier TF 1.x releases did not); TF1 "
                                          "also checked in training that each is a dense feature", call))
        self._site_by_call[id(call)] = site
        self.wrappers[id(call)] = (call, file, args["estimator"])
        self.forwarders = self.forwarders | {id(call)}

    def _forwarded_keys(self, node, file: FileIndex, what: str, call: cst.Call) -> list[str]:
        """The keys as strings: a string, or a list / tuple of them (written, or a name assigned one once), each
        written or a name assigned one once."""
        if node is None or isinstance(node, cst.Name) and node.value == "None":
            raise Blocked(CODE, f"{what} without keys (every feature) is not converted yet: name the keys", call)
        listed = self.program.resolve(Value(node, file))
        if isinstance(listed.node, (cst.List, cst.Tuple)) and not listed.ambiguous:
            # `KEYS = ["id"]` given by name: its items, unless the list the run holds is changed after
            changed = next((x for b in listed.trail if b.kind == "assign"
                            for x in [changed_in_place(self.program, b.name)] if x is not None), None)
            if changed is not None:
                raise Blocked(CODE, f"{what}: the keys `{code(node)}` are changed in place (`{code(changed)[:40]}`): "
                                    "write them as one list", changed)
            node, file, env = listed.node, listed.value.file, listed.value.env
        else:
            env = ()
        items = [e.value for e in node.elements] if isinstance(node, (cst.List, cst.Tuple)) else [node]
        keys = []
        for item in items:
            value = self.program.resolve(Value(item, file, env)).node
            if not isinstance(value, cst.SimpleString):
                raise Blocked(CODE, f"{what}: the key `{code(item)}` is not a string tfmigrate can read", item)
            keys.append(value.evaluated_value)
        return keys

    def check_forwarded(self) -> None:
        """Each predict or export of a site with forwarded features goes through the wrapper, and predict blocks."""
        for site in self.sites:
            if not canned.is_canned(site) or not site.model_fn.forwarded:
                continue
            for use in site.uses:
                if use.kind == "predict":
                    raise Blocked(CODE, "predict() on an Estimator given tf.contrib.estimator.forward_features is not "
                                        "converted yet: its predictions carry the features; read them from the "
                                        "input next to the migrated predictions", use.call)
                if use.kind not in ("train", "evaluate") and not (use.kind == "train_and_evaluate"
                                                                  and not use.exporters):
                    r = self.program.resolve(Value(use.receiver, use.file))
                    if id(r.node) not in self.forwarders and id(use.receiver) not in self.forwarders:
                        raise Blocked(CODE, f"{use.kind} on `{code(use.receiver)}`, the Estimator without the "
                                            "features tf.contrib.estimator.forward_features adds elsewhere, is not "
                                            "converted: the migrated model exports them everywhere", use.call)
