"""Conformance with TensorFlow's own tf_upgrade_v2 tests (facts in tests/data/tf_upgrade_v2_cases.json).

Each TF1 snippet runs through the leftover-name pass (imports.LeftoverNames, as a converted file's TF1 references
do, `tf` bound to the TF1 API). Verdicts:
  same    - tfmigrate writes tf_upgrade_v2's expected output;
  better  - it writes the input with the name kept as the very TF1 object, tf.compat.v1.<name>, arguments untouched
            (same meaning by construction) where tf_upgrade_v2 rewrites arguments by a heuristic or only warns, or
            leaves a name TF2 exports for the very same object (tf.space_to_batch_nd) as written;
  same-binding - tf_upgrade_v2's output but for leading positional arguments it spelled as keywords and tfmigrate
            leaves positional: TF 2.15's own reorders table (reorders_v2.py) marks those positions None, i.e. the
            TF2 function takes them at the same place (tf_upgrade_v2 2.15 writes them the same way); and tf_upgrade_v2's
            `tf.compat.v2.<name>` written `tf.<name>` (in TF2, tf.compat.v2 is the tf API itself);
  fail    - anything else (a block, or another output).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import libcst as cst
import pytest

from tfmigrate.diagnostics import Blocked
from tfmigrate.names import build_import_table
from tfmigrate.rules.planners import imports
from tfmigrate.rules.facts.tfnames import v1_names

CASES = json.loads((Path(__file__).parents[1] / "data" / "tf_upgrade_v2_cases.json").read_text())["cases"]
HEADER = "import tensorflow.compat.v1 as tf\n"


def upgrade(text: str) -> str:
    module = cst.parse_module(HEADER + text)
    table = build_import_table(module, ("tensorflow",))
    kept = {n for n, bs in table.bindings.items() if imports.kept_compat(bs[-1].target)}  # as _fix_imports does
    statements = {id(b.statement) for bs in table.bindings.values() for b in bs}
    kept_aliases = {id(b.statement) for n in kept for b in table.bindings[n] if b.kind == "alias"}
    leftover = imports.LeftoverNames(table, {"tf"} | ({n for n in table.bindings} - kept), "tf",
                                     statements - kept_aliases, kept)
    return leftover.apply(module).code[len(HEADER):]


def verdict(text: str, expected: str) -> str:
    try:
        out = upgrade(text)
    except Blocked:
        return "fail"
    if out == expected:
        return "same"
    # the input with each TF1 reference spelled tf.compat.v1.<it>, nothing else changed
    kept = re.sub(r"\btf\.(?!compat\.)", "tf.compat.v1.", text)
    if out == kept:
        return "better"
    if out == text and all(p in v1_names().same for p in re.findall(r"\btf\.([\w.]+)", text)):
        return "better"  # kept: TF2 exports the very same object under that name
    return "same-binding" if _same_binding(out, expected) else "fail"


def _same_binding(out: str, expected: str) -> bool:
    """The same module once, in each call, `f(a, b, k=c)` stands for `f(x=a, y=b, k=c)` (leading keywords dropped)
    and `tf.compat.v2.<name>` for `tf.<name>`."""
    try:
        ours, theirs = cst.parse_module(out), cst.parse_module(expected.replace("tf.compat.v2.", "tf."))
    except cst.ParserSyntaxError:
        return False
    return _alike(ours, theirs)


def _alike(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, cst.Call):
        if len(a.args) != len(b.args) or not _alike(a.func, b.func):
            return False
        for x, y in zip(a.args, b.args):
            if not _alike(x.value, y.value) or (x.keyword is not None and (y.keyword is None
                                                                          or x.keyword.value != y.keyword.value)):
                return False
        return True
    ca, cb = a.children, b.children
    if not ca or not cb:
        code = cst.Module([]).code_for_node
        return len(ca) == len(cb) and code(a) == code(b)
    return len(ca) == len(cb) and all(_alike(x, y) for x, y in zip(ca, cb))


def counts() -> dict:
    found = {"same": [], "better": [], "same-binding": [], "fail": []}
    for text, expected in CASES:
        found[verdict(text, expected)].append(text)
    return found


def test_conformance_with_tf_upgrade_v2_tests():
    found = counts()
    n = len(CASES)
    ok = len(found["same"]) + len(found["better"]) + len(found["same-binding"])
    print(f"\ntf_upgrade_v2 conformance: {len(found['same'])} same, {len(found['better'])} better, "
          f"{len(found['same-binding'])} same-binding, "
          f"{len(found['fail'])} fail of {n} ({100 * ok / n:.1f}% same-or-better)")
    assert n >= 250
    assert ok / n >= 0.95, found["fail"]


@pytest.mark.parametrize("text, expected", [
    ("tf.log(x)", "tf.math.log(x)"),
    ("tf.to_float(x)", "tf.cast(x, dtype=tf.float32)"),
    ("tf.argmax(x, 1, name=\"m\")", "tf.argmax(x, 1, name=\"m\")"),  # (TF2 argmax binds those places alike)
    ("tf.argmax(x, dimension=1)", "tf.argmax(x, axis=1)"),
    ("tf.logging.info('a')", "tf.compat.v1.logging.info('a')"),
    ("tf.app.flags.DEFINE_integer('steps', 1, 'n')", "tf.compat.v1.app.flags.DEFINE_integer('steps', 1, 'n')"),
    ("tf.train.piecewise_constant(s, [1], [0.1, 0.2])", "tf.compat.v1.train.piecewise_constant(s, [1], [0.1, 0.2])"),
    ("tf.decode_csv(line, [[0.0]])", "tf.io.decode_csv(line, [[0.0]])"),
    ("tf.OptimizerOptions()", "tf.compat.v1.OptimizerOptions()"),
])
def test_issue_names(text, expected):
    assert upgrade(text) == expected


def test_contrib_without_a_tf2_name_blocks_naming_why():
    with pytest.raises(Blocked, match="tf_slim"):
        upgrade("tf.contrib.slim.fully_connected(x, 3)")
    with pytest.raises(Blocked, match="Addons, where parts of it went, is archived"):
        upgrade("tf.contrib.opt.LazyAdamOptimizer(0.1)")


@pytest.mark.parametrize("text, expected", [
    # TF 1.15's dropout computed rate = 1 - keep_prob and called TF2's function with it
    ("tf.nn.dropout(x, 0.9)", "tf.nn.dropout(x, 1 - (0.9))"),
    ("tf.nn.dropout(x, keep_prob=k, seed=1)", "tf.nn.dropout(x, rate=1 - (k), seed=1)"),
    ("tf.nn.dropout(x, rate=0.1)", "tf.nn.dropout(x, rate=0.1)"),
    # TF 1.15 stopped the labels' gradient, dim → axis
    ("tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z, dim=1)",
     "tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(y), logits=z, axis=1)"),
    ("tf.nn.softmax_cross_entropy_with_logits(y, z)", "tf.compat.v1.nn.softmax_cross_entropy_with_logits(y, z)"),
    ("tf.nn.max_pool(v, [1, 2, 2, 1], [1, 2, 2, 1], 'SAME')", "tf.nn.max_pool2d(input=v, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')"),
    ("tf.contrib.summary.flush()", "tf.summary.flush()"),
    ("with tf.contrib.summary.always_record_summaries():\n    pass\n",
     "with tf.summary.record_if(True):\n    pass\n"),
])
def test_transformed_calls(text, expected):
    assert upgrade(text) == expected


@pytest.mark.parametrize("text, message", [
    ("tf.nn.dropout(x, 0.9, rate=0.1)", "both keep_prob and rate"),
    ("tf.nn.dropout(*a)", r"\*args"),
    ("tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z, dim=1, axis=1)", "both dim and axis"),
    ("use(tf.contrib.summary.never_record_summaries)", "converted where it is called"),
    ("tf.contrib.summary.always_record_summaries(1)", "takes no arguments"),
])
def test_transforms_block_what_they_cannot_carry(text, message):
    with pytest.raises(Blocked, match=message):
        upgrade(text)
