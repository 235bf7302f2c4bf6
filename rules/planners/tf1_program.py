"""TFM001 TF 1.x calls wherever they stand: a file written for TF 1.x means TF1's `tf.nn.dropout`.

TF2 kept the names `tf.nn.dropout` and `tf.nn.softmax_cross_entropy_with_logits` for functions with other
arguments (`keep_prob` became `rate`; the labels' gradient is no longer stopped). In a file whose `tf` is TF 1.x's
API they are TF1's functions, wherever they are called (an input_fn, a helper, main, a model_fn's forward pass):
the converted file rewrites each call as TF 1.15's function computed it (rules/facts/tf1_calls.py, what
tf_upgrade_v2 does) — `tf.nn.dropout(x, 0.8)` → `tf.nn.dropout(x, 1 - (0.8))`, `keep_prob=k` → `rate=1 - (k)` —
and a bare reference (`partial(tf.nn.dropout, keep_prob=k)`) becomes the very TF1 function,
`tf.compat.v1.nn.dropout`. The other names TF2 kept with changed arguments get tf_upgrade_v2's argument changes
there too (facts/tfnames.upgrade_call: `tf.argmax(x, dimension=1)` → `axis=1`, `tf.reduce_sum(x, keep_dims=True)`
→ `keepdims=True`, `tf.reverse_sequence(seq_dim=1)` → `seq_axis=1`), as they already did through a compat.v1 `tf`.

A file is TF 1.x when `tf` is bound to `tf.compat.v1` (`import tensorflow.compat.v1 as tf`, `tf = tf.compat.v1`),
or when, through a plain `import tensorflow as tf`, it names a TF1-only name (one TF2 lacks: `tf.logging`,
`tf.train.AdamOptimizer`, `tf.placeholder`, `tf.contrib.*`): such a program ran on TF 1.x only. A file naming
TF1 names only as `tf.compat.v1.<name>` is a TF2 program: its `tf.nn.dropout(x, 0.2)` is TF2's (rate) and is left
as written.

Example (`tests/rewrite/test_tf1_calls_anywhere.py`):

    import tensorflow as tf                              import tensorflow as tf
    def noisy(x):                                        def noisy(x):
        return tf.nn.dropout(x, keep_prob=0.9)    →          return tf.nn.dropout(x, rate=1 - (0.9))
    ...tf.logging.set_verbosity(tf.logging.INFO)         ...tf.compat.v1.logging.set_verbosity(...)
"""
from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tfmigrate.names import build_import_table, is_dotted

from ..facts import tf1_calls
from ..facts.tfnames import normalise, v1_names
from ..facts.words import ROOTS

# TF1-only names TF 2.15 still answers through its lazily loaded Keras/TensorBoard modules (tf.losses.
# mean_squared_error, tf.metrics.*, tf.initializers.*, tf.summary.scalar: checked with getattr on TF 2.15):
# a TF2 program may name them, so they are no evidence of TF 1.x
_LAZY_ROOTS = frozenset({"initializers", "losses", "metrics", "summary"})


def changed_call(path: str) -> bool:
    """A TF 1.x function TF2 keeps under the same name with other arguments (facts/tf1_calls rewrites its calls)."""
    return bool(path) and tf1_calls.tf2_path(path) == path


def changed_arguments(path: str) -> bool:
    """A TF 1.x name TF2 also exports (another object) whose call tf_upgrade_v2 rewrites: keywords renamed or
    removed, positions reordered (`tf.argmax(x, dimension=1)` → `axis=1`, `tf.reduce_sum(x, keep_dims=True)`)."""
    table = v1_names()
    return changed_call(path) or path in table.in_v2 and (path in table.keywords or path in table.reorders)


def tf1_only(dotted: str) -> bool:
    """Whether a resolved reference names what only TF 1.x has (through a binding that is not compat.v1)."""
    if ".compat." in dotted:
        return False  # a TF2 program names TF1 functions as tf.compat.v1.<name>
    path = normalise(dotted)
    if not path:
        return False
    root = path.split(".")[0]
    if root == "contrib":
        return True
    return root not in _LAZY_ROOTS and (v1_names().known(path) or path in v1_names().gone)


def tf1_file(module: cst.Module) -> bool:
    """Whether the file (its original module) names a TF1-only name through TensorFlow's plain import."""
    return tf1_name(module) is not None


def tf1_name(module: cst.Module) -> str | None:
    """The first TF1-only name the file names through TensorFlow's plain import (`tf.train.AdamOptimizer`), or None."""
    table = build_import_table(module, ROOTS)
    if not table.bindings:
        return None
    finder = _Finder(table)
    module.visit(finder)
    return finder.name if finder.found else None


class _Finder(cst.CSTVisitor):
    """Stops at the first TF1-only reference; a name a function binds itself (a local `tf`) is not TensorFlow."""

    def __init__(self, table):
        self.table, self.found, self.locals = table, False, [frozenset()]
        self.name = None  # the reference found, as written

    def on_visit(self, node: cst.CSTNode) -> bool:
        return not self.found and super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if not self.found:  # (once found, nodes not visited are still left: their leave_ must not run)
            super().on_leave(original_node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        from tfmigrate.names import bound_names

        self.locals.append(self.locals[-1] | bound_names(node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.locals.pop()

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if not is_dotted(node):
            return True  # (`tf.train.AdamOptimizer(0.1).minimize`: the chain inside is visited)
        full = get_full_name_for_node(node) or ""
        if full.split(".")[0] in self.table.bindings:
            dotted = self.table.resolve(node, self.locals[-1])
            self.found = dotted is not None and tf1_only(dotted)
            self.name = full if self.found else None
        return False
