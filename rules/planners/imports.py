"""TFM001 imports and leftover TF1 names: after the conversion the file must be a TF2 program.

- `import tensorflow.compat.v1 as tf` is rewritten in place to `import tensorflow as tf` (in place, because
  adding an import next to it would silently rebind `tf`, codemod-conventions §3.3); the
  `if tf.__version__...: tf = tf.compat.v1` idiom and `tf1 = tf.compat.v1` aliases are removed.
- Every remaining TF reference reached through the v1 API must mean the same in TF2: `tf1.data.Dataset` →
  `tf.data.Dataset`, `tf.compat.v1.logging` → `tf.compat.v1.logging` (still in TF2); names that TF2 dropped block
  the file. Calls whose arguments change with the name are rewritten as TF 1.15's own functions did
  (rules/facts/tf1_calls.py): `tf.nn.dropout(x, keep_prob)` → `tf.nn.dropout(x, 1 - (keep_prob))`,
  `softmax_cross_entropy_with_logits(labels=l)` → `labels=tf.stop_gradient(l)`, `tf.contrib.lookup` tables →
  `tf.lookup.StaticHashTable` / `StaticVocabularyTable`, `tf.contrib.summary.always_record_summaries()` →
  `tf.summary.record_if(True)`; arguments they cannot carry block the call. In a TF 1.x file reached through a plain
  `import tensorflow as tf` (one naming TF1-only names) dropout and softmax_cross_entropy_with_logits are TF1's too,
  wherever they stand (rules/planners/tf1_program.py), as are the other names TF2 kept with changed arguments
  (`tf.argmax(x, dimension=1)` → `axis=1`); a bare reference to dropout / softmax xent becomes `tf.compat.v1.nn.<name>`.
- An input_fn returning a one-shot iterator's `get_next()` tensors returns its dataset instead
  (rules/planners/iterators.py); other iterator uses block with what to do.
- `tf.keras.layers.DenseFeatures` (also under tf.compat.v1) built and called on its own → `tf_keras.layers.
  DenseFeatures` with `import tf_keras` and a note (Keras 3 has none; rules/planners/dense_features.py); inside a
  Keras model or a model_fn it blocks.
- A program whose own code names Keras 2 APIs only tf_keras has (`tf.keras.experimental.LinearModel` /
  `WideDeepModel`, any `*.experimental`, `tf.keras.optimizers.legacy.*`): all of that code's tf.keras references →
  `tf_keras.X` with `import tf_keras` and one note; the converted Estimator stays on Keras 3 beside it
  (rules/planners/keras2_program.py); generated code reading what moved, or such a name in a model_fn, blocks.
- Where the file's `tf` means something else (a variable, or TensorFlow imported only inside a function), the
  generated code imports TensorFlow as `tf2`, with a note.
- Imports left unused by the conversion (`from tensorflow import estimator`, `from tensorflow.compat.v1 import
  layers`) are removed; `import keras` is added after the TensorFlow import where the converted code reads `keras`
  (a file of a converted unit that only kept its tf.data input functions gets none).

Why exact: a v1 name is rewritten only to a TF2 name with the same behaviour (or kept under `tf.compat.v1` where
TF2 still has it); a name whose meaning changed blocks the file instead of being renamed.

Example (`fixtures/tf1_namespace`):

    import tensorflow.compat.v1 as tf          →   import tensorflow as tf
                                                   import keras
    tf.logging.set_verbosity(tf.logging.INFO)  →   tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
"""
from __future__ import annotations

from collections import Counter
from keyword import iskeyword

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tfmigrate.visitors import WALK, Transformer, Visitor, walk, walked_fields

from tfmigrate.diagnostics import Blocked

from ..facts import tf1_calls
from ..facts.tf1_calls import NO_VARIABLES
from . import premade_models, tf1_program
from ..facts.tfnames import normalise, upgrade_call, v1_names

CODE = "TFM001"

# Top-level TF1 names that mean the same in TF2 (v1-only or changed ones are absent on purpose).
_SAME_IN_TF2 = {
    "data", "math", "linalg", "signal", "strings", "random", "errors", "distribute", "config", "io", "sparse",
    "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool", "string",
    "constant", "cast", "reshape", "one_hot", "argmax", "argmin", "reduce_mean", "reduce_sum", "reduce_max",
    "reduce_min", "reduce_prod", "square", "sqrt", "abs", "exp", "log", "sigmoid", "tanh", "concat", "stack",
    "unstack", "expand_dims", "squeeze", "shape", "identity", "equal", "not_equal", "greater", "greater_equal",
    "less", "less_equal", "logical_and", "logical_or", "logical_not", "maximum", "minimum", "matmul", "add",
    "subtract", "multiply", "divide", "zeros", "ones", "zeros_like", "ones_like", "fill", "range", "gather",
    "tile", "transpose", "clip_by_value", "clip_by_norm", "clip_by_global_norm", "round", "floor", "ceil", "sign", "pow", "print", "newaxis", "size",
    "rank", "split", "slice", "pad", "boolean_mask", "function", "TensorSpec", "Tensor", "GradientTape",
    "convert_to_tensor", "nn", "add_n", "train.Checkpoint", "train.CheckpointManager", "train.latest_checkpoint",
    "train.load_checkpoint", "train.list_variables",
    # the same function objects under tf.compat.v1.feature_column and tf.feature_column (checked on TF 2.15; all
    # in TF 2.21): column definitions a canned estimator's data module keeps
    *(f"feature_column.{n}" for n in (
        "numeric_column", "bucketized_column", "categorical_column_with_vocabulary_list",
        "categorical_column_with_hash_bucket", "categorical_column_with_identity", "crossed_column",
        "indicator_column", "embedding_column", "weighted_categorical_column")),
}
# TF1-namespace names reached without compat.v1 (`tf.logging` in a TF 1.x program) that TF2 lacks.
_V1_ONLY_ROOTS = {"layers", "losses", "metrics", "logging", "Session", "placeholder", "get_variable", "variable_scope",
                  "contrib", "app", "flags", "gfile", "to_float", "to_int32", "estimator", "get_collection", "GraphKeys",
                  "control_dependencies", "summary", "initializers"}
# The public top-level names of `tensorflow` on TF 2.21 (dir(tf) in the target environment): a TF1 name of a
# converted program whose root is not among them (`tf.reset_default_graph`, `tf.set_random_seed`) fails on TF2.
_TF2_TOP_LEVEL = frozenset({
    "AggregationMethod", "Assert", "CriticalSection", "DType", "DeviceSpec", "GradientTape", "Graph",
    "IndexedSlices", "IndexedSlicesSpec", "Module", "NoneTensorSpec", "Operation", "OptionalSpec", "RaggedTensor",
    "RaggedTensorSpec", "RegisterGradient", "SparseTensor", "SparseTensorSpec", "Tensor", "TensorArray",
    "TensorArraySpec", "TensorShape", "TensorSpec", "TypeSpec", "UnconnectedGradients", "Variable",
    "VariableAggregation", "VariableSynchronization", "abs", "acos", "acosh", "add", "add_n", "approx_top_k",
    "argmax", "argmin", "argsort", "as_dtype", "as_string", "asin", "asinh", "assert_equal", "assert_greater",
    "assert_less", "assert_rank", "atan", "atan2", "atanh", "audio", "autodiff", "autograph", "batch_to_space",
    "bfloat16", "bitcast", "bitwise", "bool", "boolean_mask", "broadcast_dynamic_shape", "broadcast_static_shape",
    "broadcast_to", "case", "cast", "check_pinned", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
    "compat", "complex", "complex128", "complex64", "concat", "cond", "config", "constant", "constant_initializer",
    "control_dependencies", "conv", "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2", "convert_to_tensor",
    "cos", "cosh", "cumsum", "custom_gradient", "data", "debugging", "device", "distribute", "divide", "double",
    "dtensor", "dtypes", "dynamic_partition", "dynamic_stitch", "edit_distance", "eig", "eigvals", "einsum",
    "ensure_shape", "equal", "errors", "executing_eagerly", "exp", "expand_dims", "experimental",
    "extract_volume_patches", "eye", "feature_column", "fftnd", "fill", "fingerprint", "float16", "float32",
    "float64", "floor", "foldl", "foldr", "function", "gather", "gather_nd", "get_current_name_scope", "get_logger",
    "get_static_value", "grad_pass_through", "gradients", "graph_util", "greater", "greater_equal", "group",
    "guarantee_const", "half", "hessians", "histogram_fixed_width", "histogram_fixed_width_bins", "identity",
    "identity_n", "ifftnd", "image", "import_graph_def", "init_scope", "initializers", "inside_function", "int16",
    "int32", "int64", "int8", "io", "irfftnd", "is_symbolic_tensor", "is_tensor", "keras", "less", "less_equal",
    "linalg", "linspace", "lite", "load_library", "load_op_library", "logical_and", "logical_not", "logical_or",
    "lookup", "losses", "make_ndarray", "make_tensor_proto", "map_fn", "math", "matmul", "matrix_square_root",
    "maximum", "meshgrid", "metrics", "minimum", "mlir", "multiply", "name_scope", "negative", "nest", "newaxis",
    "nn", "no_gradient", "no_op", "nondifferentiable_batch_function", "norm", "not_equal", "numpy_function",
    "one_hot", "ones", "ones_initializer", "ones_like", "optimizers", "pad", "parallel_stack", "pow", "print",
    "profiler", "py_function", "qint16", "qint32", "qint8", "quantization", "queue", "quint16", "quint8", "ragged",
    "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad", "random", "random_index_shuffle",
    "random_normal_initializer", "random_uniform_initializer", "range", "rank", "raw_ops", "realdiv",
    "recompute_grad", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min",
    "reduce_prod", "reduce_sum", "register_tensor_conversion_function", "repeat",
    "required_space_to_batch_paddings", "reshape", "resource", "reverse", "reverse_sequence", "rfftnd", "roll",
    "round", "saturate_cast", "saved_model", "scalar_mul", "scan", "scatter_nd", "searchsorted", "security",
    "sequence_mask", "sets", "shape", "shape_n", "sigmoid", "sign", "signal", "sin", "sinh", "size", "slice",
    "sort", "space_to_batch", "space_to_batch_nd", "sparse", "split", "sqrt", "square", "squeeze", "stack",
    "stop_gradient", "strided_slice", "string", "strings", "subtract", "summary", "switch_case", "sysconfig", "tan",
    "tanh", "tensor_scatter_nd_add", "tensor_scatter_nd_max", "tensor_scatter_nd_min", "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update", "tensordot", "test", "tile", "timestamp", "tools", "tpu", "train", "transpose",
    "truediv", "truncatediv", "truncatemod", "tuple", "type_spec_from_value", "types", "uint16", "uint32", "uint64",
    "uint8", "unique", "unique_with_counts", "unravel_index", "unstack", "variable_creator_scope", "variant",
    "vectorized_map", "version", "where", "while_loop", "xla", "zeros", "zeros_initializer", "zeros_like"
})
_CHANGED_IN_TF2: set[str] = set()  # (nn.dropout, nn.softmax_cross_entropy_with_logits: facts/tf1_calls rewrites them)
# TF1 graph-mode machinery: tf.compat.v1 still exports it, but the migrated program runs eagerly (a switch the
# program only calls as a statement is dropped with a note, program._graph_mode_switches); a rename would
# silently turn the migrated program back into graph mode or fail at run time
GRAPH_MODE = {"disable_eager_execution", "disable_v2_behavior", "reset_default_graph", "get_default_graph", "Session",
              "InteractiveSession", "placeholder", "sparse_placeholder", "global_variables_initializer",
              "local_variables_initializer", "tables_initializer", "train.MonitoredTrainingSession",
              "train.start_queue_runners", "train.Saver"}
_KEPT_AS_COMPAT = {"logging", "app", "flags", "gfile"}  # still available as tf.compat.v1.* in TF2


def kept_compat(dotted: str) -> bool:
    """A v1 name TF2 still has under tf.compat.v1 with the same meaning (flags, app, logging, gfile)."""
    path = normalise(dotted)
    return bool(path) and ".compat.v1" in dotted and path.split(".")[0] in _KEPT_AS_COMPAT


def _is_v1(dotted: str) -> bool:
    return ".compat.v1" in dotted


def _curated(path: str, root: str) -> bool:
    return root in _KEPT_AS_COMPAT or root in _SAME_IN_TF2 or any(
        path == p or path.startswith(p + ".") for p in _SAME_IN_TF2 if "." in p)


def tf2_name(dotted: str, tf2_alias: str) -> str | None:
    """The TF2 spelling of a resolved TF reference, or None when TF2 has no same-meaning name."""
    path = normalise(dotted)
    if path is None:
        return None
    root = path.split(".")[0]
    # TensorFlow's own v1→v2 table (tfnames.V1Names); a name TF2 also has, for another object, keeps the
    # curated answers below first (tf.data.Dataset: DatasetV1 and V2 read the same here)
    if path in _CHANGED_IN_TF2:
        return None
    handled = tf1_calls.tf2_path(path)  # calls whose arguments change with the name, contrib names TF2 keeps
    if handled is not None:
        return f"{tf2_alias}.{handled}"
    if path.removeprefix("compat.v1.") in GRAPH_MODE:
        return None
    new = v1_names().rename(path) if path else None
    if new is not None and (path not in v1_names().in_v2 or not _curated(path, root) or not new.startswith("compat.v1.")
                            or path in v1_names().transformed and new.startswith("compat.v1.")):
        return f"{tf2_alias}.{new}"
    if path in v1_names().same:
        return f"{tf2_alias}.{path}"
    if path in _CHANGED_IN_TF2:
        return None
    if root in _KEPT_AS_COMPAT:
        return f"{tf2_alias}.compat.v1.{path}"
    if root in _SAME_IN_TF2 or any(path == p or path.startswith(p + ".") for p in _SAME_IN_TF2 if "." in p):
        return f"{tf2_alias}.{path}" if path else tf2_alias
    return None


class LeftoverNames(Transformer):
    """Rewrites references resolved through v1 bindings; blocks those with no TF2 meaning.

    Only a Name bound by the import table can resolve, so with `index` (the original file's program model) a
    subtree of the original tree none of those names occurs in is not entered (it cannot change), and a function's
    local names are collected only when a reference inside it needs them."""

    def __init__(self, table, v1_bindings: set[str], tf2_alias: str, skip_statements: set[int],
                 kept: set[str] = frozenset(), index=None, quiet: dict | None = None, notes: list | None = None,
                 shim_helpers: frozenset[str] = frozenset(), tf1_module: cst.Module | None = None):
        self.table, self.v1_bindings, self.tf2_alias = table, v1_bindings, tf2_alias
        # the original module that says whether the file is a TF 1.x program (planners/tf1_program), asked only
        # when a call TF2 kept with other arguments (tf.nn.dropout) is met through a plain `tf`
        self.tf1_module = tf1_module if tf1_module is not None else getattr(index, "module", None)
        self._tf1: bool | None = None
        # TF1 code kept as written under the model-mapping shim (planners/shim.py: the decorated `call` and the
        # module functions it calls), on tf_keras, where tf.compat.v1.layers still runs
        self.shim_helpers, self.shim_open, self.in_shim = shim_helpers, [], set()
        self.notes = notes  # (code, message, node) of tf_upgrade_v2's warnings on the calls it rewrites
        self.kept = kept  # names bound to v1 modules TF2 still has: their uses stay as written
        self.skip: set[int] = set()  # ids of Name nodes that are attribute or keyword names, not references
        self.skip_statements = skip_statements  # the import/alias lines themselves
        self.functions: list[cst.FunctionDef] = []  # enclosing defs; their local names computed on demand
        self._locals: dict[int, frozenset[str]] = {}
        self._resolved: dict[int, tuple] = {}  # _resolvable's answers: id(node) → (node, dotted or None)
        self.original: dict[int, int] | None = None
        self.interesting: set[int] = set()
        self.quiet = quiet or {}  # new subtrees known to hold none of the table's names (id → node, kept alive)
        self.found: list | None = None  # apply(): the references a read-only walk found
        self.targets: set[int] | None = None  # apply(): the only nodes the transform enters
        self.index = index
        self.called: set[int] = set()  # ids of the callees of the calls met (a call-only rename needs its call)
        if index is not None:  # the original nodes whose subtree holds a name the table binds
            self.original = index.orders
            parents, owners = index.parents, index.owners
            for name in table.bindings:
                for node in index.names.get(name, ()):
                    key = id(node)
                    while key not in self.interesting:
                        self.interesting.add(key)
                        parent = parents.get(key) or owners.get(key)
                        if parent is None:
                            break
                        key = id(parent)

    def boring(self, node: cst.CSTNode) -> bool:
        """A subtree with no name the table binds: nothing in it resolves (or counts as a use)."""
        key = id(node)
        if key in self.quiet:
            return self.quiet[key] is node
        return self.original is not None and key in self.original and key not in self.interesting

    def _shim_scope(self, node: cst.FunctionDef) -> bool:
        """A module function the shim's forward pass calls, or the shim's decorated `call`."""
        return (node.name.value in self.shim_helpers and not self.functions) or node.name.value == "call" and any(
            (get_full_name_for_node(d.decorator) or "").endswith("track_tf1_style_variables") for d in node.decorators)

    def on_leave(self, original, updated):
        if self.shim_open and self.shim_open[-1] is original:
            self.shim_open.pop()
        return super().on_leave(original, updated)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) is _FUNCTION_DEF and self._shim_scope(node):
            self.shim_open.append(node)
        if self.boring(node) or (self.targets is not None and id(node) not in self.targets):
            if type(node) is _FUNCTION_DEF:  # (exact type: no ABC check of every node not entered)
                self.functions.append(node)  # leave_FunctionDef pops it
            return False
        return super().on_visit(node)

    def apply(self, module: cst.Module) -> cst.Module:
        """`module.visit(self)`, entering only the nodes on the way to a reference it rewrites (or blocks on).

        A transform rebuilds every node it enters; most nodes hold no such reference. A read-only walk first, with
        the same visits and leaves, marks the references and their ancestors; the transform then enters those
        only (the same references, in the same order: the same output, the same first blocker)."""
        self.found, self.targets = [], None
        if self.original is not None:
            self._quiet_new(module)
        marks: set[int] = set()
        stack: list[int] = []

        def walk(node) -> None:
            if self.on_visit(node):
                stack.append(id(node))
                fields = WALK.get(type(node))
                for name in walked_fields(type(node)) if fields is None else fields:
                    value = getattr(node, name)
                    if type(value) is tuple or type(value) is list:
                        for child in value:
                            walk(child)
                    elif value is not None and type(value) is not cst.MaybeSentinel:
                        walk(value)
                stack.pop()
            before = len(self.found)
            self.on_leave(node, node)
            if len(self.found) != before:
                marks.update(stack)
                marks.add(id(node))

        walk(module)
        # every reference with no TF2 meaning is reported, each at its place, not only the first the transform meets
        blockers = [b for b in map(self.blocker, self.found) if b is not None]
        if blockers:
            raise Blocked.many(blockers)
        self.found, self.targets = None, marks
        return module.visit(self) if marks else module

    def blockers(self, node: cst.CSTNode) -> list[Blocked]:
        """Read-only: the blocker of each reference in `node`'s subtree (of the original module) with no TF2
        meaning, as a rewrite of it would find them."""
        self.found, self.targets = [], None
        try:
            node.visit(self)
            return [b for b in map(self.blocker, self.found) if b is not None]
        finally:
            self.found = None

    def _tf2_name(self, original, dotted: str) -> str | None:
        path = normalise(dotted) or ""
        if path in tf1_calls.CALL_ONLY and id(original) not in self.called:
            return None
        if tf1_program.changed_call(path) and id(original) not in self.called:
            return f"{self.tf2_alias}.compat.v1.{path}"  # TF1's function itself, not called here (facts/tf1_calls)
        if id(original) in self.in_shim and path.startswith("layers.") and path.split(".")[1][:1].islower():
            return f"{self.tf2_alias}.compat.v1.{path}"  # tf.compat.v1.layers.dense(...) under the shim, as written
        if id(original) in self.in_shim and path in NO_VARIABLES:  # tf.contrib.layers.flatten: the same op (shim.py)
            return f"{self.tf2_alias}.compat.v1.{NO_VARIABLES[path]}"
        return tf2_name(dotted, self.tf2_alias)

    def blocker(self, original) -> Blocked | None:
        """Why a reference the transform rewrites cannot be rewritten (no same-meaning TF2 name), or None."""
        dotted = self._resolvable(original)
        if dotted is None or self._tf2_name(original, dotted) is not None:
            return None
        path = normalise(dotted)
        if path.startswith("estimator."):
            # an Estimator API the conversion did not take away: say that, not "no TF2 name"
            return Blocked(CODE, f"tf.{path} is left over after the conversion: it is converted only as part of an "
                                 "Estimator program tfmigrate converts (an input_fn passed to train/evaluate/predict, "
                                 "a spec, a hook); TF2 has no tf.estimator, so use it that way or remove it", original)
        if path.removeprefix("compat.v1.") in GRAPH_MODE:
            return Blocked(CODE, f"tf.{path} is TF1 graph-mode machinery and the migrated program runs eagerly: "
                                 "remove it (state lives in the Keras model and the optimizer, TF2 runs ops "
                                 "directly; tf.function traces graphs)", original)
        if path in tf1_calls.CALL_ONLY:
            return Blocked(CODE, f"tf.{path} is converted where it is called (its TF2 call, "
                                 f"tf.{tf1_calls.tf2_path(path)}(...), is built from the call's arguments); named here "
                                 "without a call, it is not: call it where it is named", original)
        why = v1_names().why_not(path) or premade_models.why(path)
        return Blocked(CODE, why or f"tf.{path} has no same-meaning TF2 name known to tfmigrate", original)

    def _quiet_new(self, module: cst.Module) -> None:
        """Adds to `quiet` every largest subtree that is not of the original tree (generated code, parsed) and holds
        no Name the table binds: the walks below (and name_uses) do not enter it. One plain pass over the new nodes
        (no visitor dispatch, no name resolution); an original subtree holds one when it is `interesting`."""
        bindings, original, quiet, interesting = self.table.bindings, self.original, self.quiet, self.interesting
        if quiet is None:
            quiet = self.quiet = {}
        walk_fields, name_type, sentinel = WALK, cst.Name, cst.MaybeSentinel

        def holds(node) -> bool:  # a new node: whether a Name the table binds is in it; its quiet children noted
            kind = type(node)
            if kind is name_type:
                return node.value in bindings
            fields = walk_fields.get(kind)
            hit = False
            for field in walked_fields(kind) if fields is None else fields:
                value = getattr(node, field)
                t = type(value)
                if t is not tuple and t is not list:
                    if value is None or t is sentinel:
                        continue
                    value = (value,)
                for child in value:
                    key = id(child)
                    if key in original:
                        hit = hit or key in interesting
                    elif key in quiet:
                        continue
                    elif holds(child):
                        hit = True
                    else:
                        quiet[key] = child
            return hit

        if id(module) not in original and not holds(module):
            quiet[id(module)] = module

    def local_names(self) -> frozenset[str]:
        """Names bound in the enclosing functions (innermost scope chain), as `bound_names` computes them."""
        if not self.functions:
            return frozenset()
        found = frozenset()
        for fn in self.functions:
            key = id(fn)
            if key not in self._locals:
                names = _index_bound_names(self.index, fn) if self.index is not None else None
                if names is None:
                    from tfmigrate.names import bound_names

                    names = bound_names(fn)
                self._locals[key] = found | names
            found = self._locals[key]
        return found

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return id(node) not in self.skip_statements

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original, updated):
        self.functions.pop()
        return updated

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))  # `x.tf1` is an attribute named tf1, not the module alias
        return self._resolvable(node) is None

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def _resolvable(self, node) -> str | None:
        """The dotted name a reference resolves to when it needs rewriting (or blocks), else None. Asked when a
        node is visited and again when it is left, in both walks of apply(): answered once per node (the same
        enclosing functions each time; a name's skip mark is set before it is first asked)."""
        key = id(node)
        known = self._resolved.get(key)
        if known is not None and known[0] is node:
            return known[1]
        found = self._resolve_reference(node)
        self._resolved[key] = (node, found)
        return found

    def _resolve_reference(self, node) -> str | None:
        if id(node) in self.skip:
            return None
        full = get_full_name_for_node(node)
        if full is None:
            return None
        root = full.split(".")[0]
        if root not in self.table.bindings:  # resolves to nothing, whatever the local names
            return None
        local = self.local_names()
        if root in local or root in self.kept:
            return None
        dotted = self.table.resolve(node, local)
        if dotted is None:
            return None
        if root in self.v1_bindings or _is_v1(dotted):
            return dotted
        path = normalise(dotted) or ""
        if tf1_program.changed_arguments(path) and self._tf1_program():
            return dotted  # a TF 1.x program's tf.nn.dropout is TF1's (planners/tf1_program)
        root = path.split(".")[0]
        return dotted if root in _V1_ONLY_ROOTS or (root[:1].isalpha() and root not in _TF2_TOP_LEVEL) \
            or v1_names().known(path) else None

    def _tf1_program(self) -> bool:
        if self._tf1 is None:
            self._tf1 = self.tf1_module is not None and tf1_program.tf1_file(self.tf1_module)
        return self._tf1

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._rewrite(original, updated)

    def visit_Call(self, node: cst.Call) -> None:
        self.called.add(id(node.func))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.found is not None or type(original.func) not in (cst.Name, cst.Attribute):
            return updated
        dotted = self._resolvable(original.func)
        if dotted is None:
            return updated
        try:
            new, notes = upgrade_call(updated, normalise(dotted), self.tf2_alias)
        except ValueError as e:  # arguments a TF 1.x call's rewrite cannot carry exactly (facts/tf1_calls)
            raise Blocked(CODE, str(e), original) from None
        if self.notes is not None:
            self.notes.extend((CODE, message, original) for message in notes)
        return new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._rewrite(original, updated)

    def _rewrite(self, original, updated):
        dotted = self._resolvable(original)
        if dotted is None:
            return updated
        if self.shim_open:
            self.in_shim.add(id(original))
        if self.found is not None:  # apply()'s read-only walk: only note it
            self.found.append(original)
            return updated
        new = self._tf2_name(original, dotted)
        if new is None:
            raise self.blocker(original)
        return dotted_expression(new)


_FUNCTION_DEF = cst.FunctionDef
# the nodes between an assignment's target Name and its AssignTarget (`a, (b, *c) = ...`)
_UNPACKING = frozenset({cst.Tuple, cst.List, cst.Element, cst.StarredElement})


def _index_bound_names(index, fn: cst.FunctionDef) -> frozenset[str] | None:
    """`names.bound_names(fn)` read from the program model's facts of `fn` (None when fn is not a node of the
    index's tree, a def an earlier rule rebuilt): its own name, its parameters, the names its statements assign
    (`x = ...`, `a, *b = ...`, not `x: T = ...`, `x += ...`, `for x`, `with ... as x`, walrus or imports) and the
    names of the defs in it, counting the statements of the classes in it but not those of nested defs — the
    bindings of its scope and of its classes' scopes. tests/speed/test_index_locals.py compares the two."""
    scope = index.function_scopes.get(id(fn))
    if scope is None or scope.node is not fn:
        return None
    parents = index.parents
    names = {fn.name.value}
    scopes = [scope]
    while scopes:
        scope = scopes.pop()
        for name, bindings in scope.bindings.items():
            for b in bindings:
                kind = b.kind
                if kind == "param" or kind == "def":
                    names.add(name)
                elif kind == "assign" or kind == "other":
                    node = parents.get(id(b.node))
                    while type(node) in _UNPACKING:
                        node = parents.get(id(node))
                    if type(node) is cst.AssignTarget:
                        names.add(name)
        scopes.extend(inner for inner in index.class_scopes.values() if inner.parent is scope)
    return frozenset(names)


def dotted_expression(text: str) -> cst.BaseExpression:
    """`cst.parse_expression` of a dotted name (`tf.compat.v1.flags`), built without the parser (a parse of even
    a short expression costs ~0.1 ms: LibCST makes and validates every node in Python)."""
    parts = text.split(".")
    if not all(part.isidentifier() and not iskeyword(part) for part in parts):
        return cst.parse_expression(text)  # (what the parser makes of it, or its error)
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def remove_statements(body, doomed: set[int]):
    """Drop module-level statements (by id), also inside if/try; an emptied `if` goes too."""
    out = []
    for stmt in body:
        if id(stmt) in doomed:
            continue
        if type(stmt) is cst.If and any(id(s) in doomed for s in stmt.body.body):
            kept = remove_statements(stmt.body.body, doomed)
            if not kept and stmt.orelse is None:
                continue
            stmt = stmt.with_changes(body=stmt.body.with_changes(body=kept or [cst.SimpleStatementLine([cst.Pass()])]))
        out.append(stmt)
    return out


def name_uses(module: cst.Module, skip_ids: set[int], boring=None) -> Counter:
    """How often each name is read outside import lines and the statements in `skip_ids` (one visit); subtrees
    `boring(node)` says hold none of the names asked about are not entered."""
    counts: Counter = Counter()
    walk(module, _NameUses(counts, skip_ids, boring))
    return counts


class _NameUses(Visitor):
    """name_uses' walk (one class for every call: a class made per call costs its creation and its dispatch cache)."""

    def __init__(self, counts: Counter, skip_ids: set[int], boring):
        self.counts, self.skip_ids, self.boring = counts, skip_ids, boring

    def on_visit(self, node) -> bool:
        if self.boring is not None and self.boring(node):
            return False
        return super().on_visit(node)

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_SimpleStatementLine(self, node) -> bool:
        return id(node) not in self.skip_ids

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] += 1
