"""Summaries: dropped with a note, or (a scalar computed from the model output in TRAIN mode) written as the
Estimator wrote them; SummarySaverHooks read where TF1 built them."""
from __future__ import annotations

import re

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...facts.calls import bind, code, is_literal
from .. import hooks
from ._constants import CODE

_SUMMARIES = frozenset({"scalar", "histogram", "image", "audio", "text", "tensor_summary"})
# what the Estimator wrote (measured on TF 2.15: fixtures/observing_hooks, save_summary_steps=25 → steps 1, 26, 51;
# fixtures/summaries) and why the migrated program does not write the same here
SUMMARY_WHY = ("The Estimator wrote it, next to its own `loss` summary, to model_dir's events file at global steps "
                "1, 1+N, 1+2N, ... (N = RunConfig(save_summary_steps), default 100; the chief only), with the values "
                "of that step's forward pass; tfmigrate writes the same for a scalar summary computed from the model "
                "output (not this one). Write it with tf.summary in the training step under a tf.summary writer, or "
                "log with keras.callbacks.TensorBoard (its own tags and steps)")
_LOGGING = frozenset({"info", "warning", "warn", "debug", "error", "fatal", "log", "vlog"})


class SummariesMixin:
    """Summaries and SummarySaverHooks."""

    def drop(self, path: str | None, call) -> bool:
        """Summaries, tf.logging calls and observing hooks: they do not change training; dropped with a note."""
        if not path or "." not in path:
            return False
        kind = hooks.hook_kind(path)
        if kind in hooks.OBSERVING:
            self.notes.append((hooks.CODE, hooks.dropped_note(kind), call))
            return True
        module, name = path.rsplit(".", 1)
        if module == "summary" and name in _SUMMARIES:
            if "TRAIN" in self.active:
                self.summary_calls.append(call)
            if name == "scalar" and "TRAIN" in self.active:
                self.scalar_summaries.append(call)  # converted in plan() if its value is computed from the output
                return True
            tag = code(call.args[0].value) if call.args else "?"
            self.notes.append((CODE, f"summary {tag} dropped: summaries do not change training. {SUMMARY_WHY}",
                               call))
            return True
        if module == "logging" and name in _LOGGING:
            self.notes.append((CODE, f"tf.logging.{name}(...) dropped: it logged once, while the TF1 graph was built",
                               call))
            return True
        return False

    def summary_hook(self, call: cst.Call) -> dict | str:
        """A SummarySaverHook built in the model_fn → {"calls": the summary calls its op runs, "output_dir",
        "save_steps": nodes}, read where TF1 built it (merge_all() merges the summaries built before it); else the
        note saying why it is dropped (it only writes summaries)."""
        try:
            args = bind(call, hooks.SUMMARY_ARGS, "SummarySaverHook", hooks.CODE)
        except Blocked as blocked:
            return hooks.summary_dropped(blocked.message)
        given = {k: v for k, v in args.items() if not is_literal(v, None)}
        if "summary_writer" in given:
            return hooks.summary_dropped("summary_writer= (a TF1 FileWriter) has no TF2 meaning; pass output_dir=... "
                                         "instead, which converts")
        if "save_secs" in given:
            return hooks.summary_dropped("save_secs= writes at wall-time steps, other ones in every run; use "
                                         "save_steps=N, which converts")
        if "save_steps" not in given:
            raise Blocked(hooks.CODE, "SummarySaverHook without save_steps or save_secs: TF 2.15 raised ValueError "
                                      "here (exactly one of them); give save_steps=N, which converts", call)
        if "output_dir" not in given:
            return hooks.summary_dropped("without output_dir (or summary_writer) TF1 wrote nothing")
        if ("summary_op" in given) == ("scaffold" in given):
            raise Blocked(hooks.CODE, "SummarySaverHook needs exactly one of scaffold and summary_op: TF 2.15 raised "
                                      "ValueError here; give summary_op=tf.compat.v1.summary.merge_all(), which "
                                      "converts", call)
        for key in ("save_steps", "output_dir"):
            try:
                self.check_names(given[key], {self.params}, f"SummarySaverHook({key}=...)")
            except Blocked as blocked:
                return hooks.summary_dropped(blocked.message)
        op = given.get("summary_op")
        if op is None:
            scaffold = given["scaffold"]
            scaffold_args = bind(scaffold, ["init_op", "init_feed_dict", "init_fn", "ready_op",
                                            "ready_for_local_init_op", "local_init_op", "summary_op", "saver",
                                            "copy_from_scaffold", "local_init_feed_dict"], "Scaffold", hooks.CODE) \
                if isinstance(scaffold, cst.Call) and self.tf(scaffold) == "train.Scaffold" else None
            if scaffold_args is None or set(scaffold_args) - {"summary_op"}:
                return hooks.summary_dropped("scaffold= other than an inline tf.compat.v1.train.Scaffold() (with at "
                                             f"most summary_op=) is not converted; {hooks.SUMMARY_HOW}")
            if "summary_op" not in scaffold_args:
                return hooks.summary_dropped("with scaffold=Scaffold() and no summary_op it wrote no summaries "
                                             "(measured on TF 2.15: that Scaffold is never finalized, so its "
                                             "summary_op stays None)")
            op = scaffold_args["summary_op"]
        calls = self.summary_op_calls(op)
        if isinstance(calls, str):
            return hooks.summary_dropped(calls)
        return {"calls": calls, "output_dir": given["output_dir"], "save_steps": given["save_steps"]}

    def summary_op_calls(self, op) -> list[cst.Call] | str:
        """The summary calls a summary_op runs: `tf.compat.v1.summary.merge_all()` (those built before it in
        training), `merge([...])`, a summary call, a name bound to one of these, a list or tuple of them; else why
        not."""
        if isinstance(op, (cst.List, cst.Tuple)):
            calls = []
            for element in op.elements:
                if isinstance(element, cst.StarredElement):
                    return "a starred summary_op list is not converted"
                inner = self.summary_op_calls(element.value)
                if isinstance(inner, str):
                    return inner
                calls.extend(inner)
            return calls
        if isinstance(op, cst.Name) and op.value in self.summary_ops:
            return list(self.summary_ops[op.value])
        path = self.tf(op) if isinstance(op, cst.Call) else None
        if path == "summary.merge_all" and not op.args:
            return list(self.summary_calls)
        if path == "summary.merge" and len(op.args) == 1 \
                and (op.args[0].keyword is None or op.args[0].keyword.value == "inputs"):
            return self.summary_op_calls(op.args[0].value)
        if path is not None and path.startswith("summary.") and path.rsplit(".", 1)[1] in _SUMMARIES:
            if not self.drop(path, op):  # built here, inside the hook: a summary of the graph like any other
                return f"summary_op `{code(op)[:40]}` is not converted"
            return [op]
        return (f"summary_op `{code(op)[:40]}`: only tf.compat.v1.summary.merge_all(), merge([...]), summary ops "
                "built in the model_fn (or names of them) and lists of them are converted")

    def summary_hook_plan(self, summaries: list[tuple[str, str, cst.CSTNode]]) -> dict:
        """The ModelPlan fields of the training SummarySaverHooks: (output_dir, save_steps code, the tags of
        `summaries` each writes, in the op's order); each hook's note."""
        planned = []
        for hook, what, where in self.summary_hooks:
            if isinstance(what, str):
                self.notes.append((hooks.CODE, what, hook))
                continue
            tags, missing = [], []
            for call in what["calls"]:
                found = [tag for tag, _, c in summaries if c is call]
                if found:
                    tags.extend(found)
                else:
                    missing.append(code(call.args[0].value) if call.args else code(call)[:40])
            if not tags:
                why = "TF1 merged no summary here, so it wrote none" if not what["calls"] else \
                    f"none of its summaries ({', '.join(missing)}) is one tfmigrate writes (see their notes)"
                self.notes.append((hooks.CODE, hooks.summary_dropped(why), hook))
                continue
            planned.append((code(what["output_dir"]), code(what["save_steps"]), tags))
            self.notes.append((hooks.CODE, hooks.summary_note(where, tags, missing), hook))
        uses_params = any(self.params in self.free_names(cst.parse_expression(text))
                          for directory, steps, _ in planned for text in (directory, steps))
        return {"summary_hooks": planned, "summary_hooks_params": uses_params}

    def scalar_summary(self, call: cst.Call, out: str, tags: set[str],
                       loss_name: str | None) -> tuple[str, str, cst.Call] | None:
        """`tf.compat.v1.summary.scalar("tag", tensor)` run in TRAIN mode → (tag, value code from the output, call),
        written by the custom loop's train step as the Estimator wrote it; else None and the note says why."""
        def keep_note(why: str) -> None:
            tag = code(call.args[0].value) if call.args else "?"
            self.notes.append((CODE, f"summary {tag} dropped: summaries do not change training. {SUMMARY_WHY} "
                                     f"({why})", call))

        try:
            args = bind(call, ["name", "tensor", "collections", "family"], "summary.scalar", CODE)
        except Blocked as blocked:
            keep_note(blocked.message)
            return None
        name = args.get("name")
        if set(args) != {"name", "tensor"} or not isinstance(name, cst.SimpleString):
            keep_note("converted: a literal tag and the tensor, no collections or family")
            return None
        tag = name.evaluated_value
        # TF1 made the tag unique in the graph (a second "x" became "x_1", a user "loss" next to the Estimator's
        # own "loss" too) and replaced characters an op name cannot have: those tags are not reproduced
        if not re.fullmatch(r"[A-Za-z0-9.][A-Za-z0-9_.\-/]*", tag) or tag in tags or tag == "loss":
            keep_note(f"the tag {tag!r} is not written as TF1 renamed it")
            return None
        if isinstance(args["tensor"], cst.Name) and args["tensor"].value == loss_name:
            # TF1's tensor was each replica's own loss, the custom loop's the one scaled for the global batch
            keep_note("the custom loop writes the loss under the tag 'loss', as the Estimator did")
            return None
        value = self.inline(args["tensor"], out)
        try:
            self.check_names(value, {out}, "the summary's value (only the model output is available)")
        except Blocked as blocked:
            keep_note(blocked.message)
            return None
        tags.add(tag)
        return tag, code(value), call
