"""TFM502 model-mapping shim: a model_fn whose forward pass the native interpreter (TFM501) cannot re-express
keeps that forward pass as written, in the `call` of a tf_keras model decorated with TF's own shim.

When it is tried (`--style`, config key `style`): `auto` (the default) tries it per model, only for the native
blockers its verified fixtures hold — a network helper called in a loop or inside an expression, a helper that does
not end with `return <tensor>` (`with variable_scope(...):` around its body), a regularizer, mode-dependent forward
code (an `if mode == TRAIN:` or a static `if` on params / flags among the forward statements or inside a forward
loop, a training flag set in such a branch), `input_layer` over indicator / embedding columns, nested loops and loops over
a list the model_fn builds in Python (`units = [int(u) for u in params["tower"].split(",")]`), `variable_scope(reuse=
True / AUTO_REUSE)`, `tf.contrib.layers.flatten`, a statement computing static settings through a module function
that calls no TF (`n, dim = check_columns(params["columns"])`). Every other native blocker stands alone. `native` never uses the shim: a model the shim would convert keeps its native blockers, with a
TFM502 note saying `--style auto` or `shim` converts it. `shim` runs every model_fn's forward pass under it (not
under parameter servers or TPU), or blocks with the shim's reason. Whether it converted or not, a TFM502 note says
what the native path stopped at (or `--style shim`), or why the shim could not convert the model_fn either (next to
the native blocker); `--explain` shows the choice per model. `tf.compat.v1.keras.utils.track_tf1_style_variables` (tf_keras; the migrated file sets
`TF_USE_LEGACY_KERAS=1` before importing TensorFlow, as Keras 3 has no `tf.compat.v1.layers` and no tracker) runs
the statements eagerly and under `tf.function` / strategies, creating each variable once. They run inside
`variable_scope(get_variable_scope(), auxiliary_name_scope=False)`: re-entering the root scope keeps auto-named
layers stable across calls and adds no prefix, so every variable has the Estimator graph's own name
(`mlp/layer0/weights`, `block_1/dense/kernel`, `hidden0/batch_normalization/moving_mean`). The forward pass and the
module functions it calls keep their `tf.compat.v1.layers` calls (planners/imports.py exempts that code only).
Mode-dependent statements stay as written, `mode == ModeKeys.TRAIN` read as the `training` flag `call` receives (a
Python bool from the loop: TRAIN's branch in training calls, the other in evaluation); a test on EVAL or PREDICT
ends the forward pass (the shim's call knows only `training`). `input_layer` creates its embedding weights with
get_variable under the shim, once, as `input_layer/<column>_embedding/embedding_weights` (TF1's name). Settings the
forward pass reads (`learning_rate = params["learning_rate"]`: one name bound once from params, flags or constants,
no TF call) are computed for the rest of the model_fn too. Other forward values the rest reads (planners/
shim_outputs.py): a label-free term of the loss on forward values (`loss = xent + l2_reg * tf.nn.l2_loss(FM_W)`,
`loss += ...`, a named `reg = ...` the loss alone reads) maps to `self.add_loss(term)` at the end of the call (the
model's losses, which the loop adds to the loss as TF1 did: training and evaluation); trailing statements that
make no variables (`pred = tf.sigmoid(y)` in a last `with variable_scope(...)`) run after the call, on the model
output. Any other value the rest reads besides the model output (a second head) blocks, naming it.

The rest of the model_fn (loss, optimizer, train op, metrics, predictions, hooks) is converted by the native
interpreter, on a copy of the model_fn whose forward statements became one opaque call. Regularization: the
forward pass's regularizers put their losses in `model.losses`; the custom loop adds them to each example's loss
before averaging over the global batch (TF1's `loss + get_regularization_loss()`, 1/replicas of it per replica)
and to the evaluation loss; the user's `+ get_regularization_loss()` term goes. Batch normalization updates its
moving averages in each training call (`training` follows `mode == TRAIN`), as TF1 did when the train op ran
UPDATE_OPS. Resuming from model_dir reads the Estimator's TF1 checkpoint by the variables' names (weights, slots,
global step), or this program's own checkpoint. Targets: the custom training loop (what `--target auto` picks).
Strategies: default, mirrored, MultiWorkerMirrored.

Why exact: the same TF1 ops run with the same variables. Verified (`tfmigrate verify`, initial weights mapped by
TF1 name): `shim_get_variable` 150/150 steps within 1.6e-5 relative (tf_keras Adam rounds its bias correction
differently from TF1; evaluate within 1.3e-7); `shim_regularized_layers` 120/120 steps, max rel Δ 3.2e-7, and on
chief + worker MultiWorkerMirroredStrategy 120/120 steps on each, max rel Δ 2.2e-7; `shim_batch_norm` 150/150
steps, max rel Δ 2.1e-7, evaluate's mae/rmse bit-equal (the moving averages agree); resuming `shim_get_variable`
from an Estimator model_dir matches the Estimator's continuation (tests/fixtures_run/test_resume_runs.py).
`shim_conv_net` (conv2d, max_pooling2d, flatten and dense in a tower built twice under `variable_scope("tower",
reuse=False/True)`, a head under AUTO_REUSE, tower sizes from a module function) 120/120 steps, max rel Δ 1.7e-6,
evaluate within 4.5e-8, every variable mapped by its TF1 name (reuse under the shim is TF1's: the same variables).
`shim_conv_dropout` (the same with tf.compat.v1.layers.dropout(training=is_training)): dropout masks under the shim
come from TF2's random stream, so a TFM502 note says the run is not stepwise-comparable and `tfmigrate verify` picks
`--statistical` from it; equivalent there (10 original runs, every bin in the band). (Its losses agreed stepwise too,
max rel Δ 3.4e-7: TF numbers the unseeded random ops of each graph in creation order, so with seeded initializers the
two dropout ops got the Estimator's op seeds; that is not relied on.) `tf.contrib.layers.flatten` given only its input
runs as tf.compat.v1.layers.flatten (TF 1.15's contrib flatten is core_layers.flatten in a name scope; tf.contrib is
not on TF 2.15, so no fixture runs it). `shim_mode_branch` (train_phase set in a mode branch, batch norm under a static `if` in a loop, get_variable cross
layers) 120/120 steps bit-equal, evaluate bit-equal; `shim_input_layer` (input_layer over numeric, indicator and
embedding columns) 120/120 steps, max rel Δ 3.6e-7, evaluate bit-equal. From an Estimator model_dir the shim model
predicts what Estimator.predict does (tests/fixtures_run/test_shim_predict_runs.py). `shim_fm_l2` (a factorization
machine: get_variable tables read by tf.nn.embedding_lookup, a dense tower in a loop, loss + `l2_reg *
tf.nn.l2_loss(...)` of two forward variables → add_loss, metrics on `pred = sigmoid(y)` after the call) 150/150 steps,
max rel Δ 2.2e-7, evaluate's accuracy / auc equal, its loss within 1.2e-7; on chief + worker MultiWorkerMirrored
150/150 steps on each, max rel Δ 2.2e-7, evaluate equal. `shim_pairwise_loops` (every pairwise product of get_variable
embeddings in two nested loops over range(n), a dense tower in `for k in range(len(units))` over sizes parsed from a
params string, a static `if` on params in that loop) 120/120 steps, max rel Δ 1.7e-7, evaluate equal; on chief + worker
MultiWorkerMirrored 120/120 steps on each, max rel Δ 1.9e-7.

Blocked (a TFM502 note beside the native blocker), with the statement: TF APIs in the forward pass its fixtures do
not verify (only get_variable / variable_scope, tf.compat.v1.layers dense, conv2d, max_pooling2d, flatten, dropout
and batch_normalization, initializers, Keras regularizers and plain math are run), Keras layers and RNN cells built in the forward pass, `tf.contrib`
(no TF2 module; tf_slim 1.1.0 from PyPI imports on TF 2.15 and 2.21 but its batch_norm fails on both,
`ops.Tensor` is gone), random ops other than tf.compat.v1.layers.dropout
(tf.nn.dropout, `tf.random.*`: TF2's stream, not the Estimator's graph seed), `tf.Variable` (created again on every call),
collections, sessions and queues, `config` read in the forward pass, a loop over a tensor (a name
bound from a TF call or the features: TF1's graph raised, the shim's call would iterate it), a call into another
module (other than numpy, math, logging and such) or of a class of this module in the forward pass or a function it
calls (its TF calls are not read, so not checked: `mylib.prep(x)` drawing tf.nn.dropout would run unchecked), a forward pass handing more than one value to
the rest besides loss terms and values of the output (the network built twice for training and evaluation, `logits_train` / `logits_test`, included), a model
built by a statement that passes `mode` on (the shim's call knows only the training flag), regularizers whose loss adds no regularization loss, a regularized loss summed or averaged per label,
batch normalization whose train op does not run UPDATE_OPS (TF1 never updated the averages), warm start, the
Keras fit target (tf_keras; `--target keras` blocks), parameter servers and TPUEstimator.

Example (`fixtures/shim_get_variable`):

    def fc(inputs, units, name, activation=None):         def fc(...):  # unchanged
        with tf.compat.v1.variable_scope(name):               ...
            weights = tf.compat.v1.get_variable(...)
            ...                                           class Model(keras.Model):
                                                              @tf.compat.v1.keras.utils.track_tf1_style_variables
    def model_fn(features, labels, mode, params):  →         def call(self, features, training=False):
        net = features["x"]                                       params = self.params
        with tf.compat.v1.variable_scope("mlp"):                  with tf.compat.v1.variable_scope(
            for i, units in enumerate(...):                               tf.compat.v1.get_variable_scope(),
                net = fc(net, units, "layer%d" % i, ...)                  auxiliary_name_scope=False):
            prediction = fc(net, 1, "out")                            net = features["x"]
        ...                                                           with tf.compat.v1.variable_scope("mlp"):
                                                                          ...
                                                                  return prediction
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.visitors import Transformer

from . import model_fn, shim_outputs
from ..facts.calls import code
from ..facts.tf1_calls import NO_VARIABLES
from ..facts.tfnames import TFNames

CODE = "TFM502"
SHIM_CALL = "__tfmigrate_shim__"
STYLES = ("auto", "native", "shim")
# TF paths (normalised) the forward pass must not call under the shim, and why
_RANDOM = ("random.", "random_normal", "random_uniform", "truncated_normal", "multinomial", "nn.dropout",
           "layers.dropout", "layers.Dropout", "keras.layers.Dropout", "keras.layers.GaussianNoise")
# tf.compat.v1.layers.dropout runs under the shim with TF2's random stream (the Estimator's masks came from its graph
# seed): the note says the run is compared statistically (`verify --statistical`, fixtures/shim_conv_dropout)
DROPOUT = "layers.dropout"
_MAKES_VARIABLES = ("layers.", "get_variable", "variable_scope", "keras.", "feature_column.", "contrib.",
                    "nn.embedding_lookup")
_REGULARIZER_ARGS = frozenset({"regularizer", "kernel_regularizer", "bias_regularizer", "activity_regularizer",
                               "beta_regularizer", "gamma_regularizer", "embeddings_regularizer"})
# The TF APIs a forward pass may call under the shim: those its verified fixtures run (fixtures/shim_*: get_variable
# layers under variable scopes, tf.compat.v1.layers dense and batch normalization, regularizers, initializers) and
# plain math, which runs the same kernels eagerly. Anything else is not converted until a fixture verifies it.
_VERIFIED = frozenset({
    "layers.dense", "layers.batch_normalization", "get_variable", "variable_scope", "get_variable_scope",
    "zeros_initializer", "ones_initializer", "constant_initializer", "glorot_uniform_initializer",
    "glorot_normal_initializer", "truncated_normal_initializer", "random_normal_initializer",
    "random_uniform_initializer", "variance_scaling_initializer",
    "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.leaky_relu", "nn.softplus", "nn.tanh", "nn.sigmoid", "nn.softmax",
    "nn.bias_add", "nn.l2_normalize", "matmul", "add", "add_n", "subtract", "multiply", "divide", "square", "sqrt",
    "exp", "log", "tanh", "sigmoid", "abs", "maximum", "minimum", "concat", "stack", "reshape", "squeeze",
    "expand_dims", "transpose", "cast", "identity", "reduce_sum", "reduce_mean", "shape",
    # input_layer over numeric, indicator and embedding columns (fixtures/shim_input_layer): its embedding weights
    # are get_variable'd under the shim, once, as `input_layer/<column>_embedding/embedding_weights`
    "feature_column.input_layer", "feature_column.numeric_column", "feature_column.indicator_column",
    "feature_column.embedding_column", "feature_column.categorical_column_with_vocabulary_list",
    "feature_column.categorical_column_with_identity",
    # conv nets (fixtures/shim_conv_net): conv2d, max pooling and flatten, under reused variable scopes; dropout
    # (fixtures/shim_conv_dropout: other masks, verified statistically)
    "layers.conv2d", "layers.max_pooling2d", "layers.flatten", "layers.dropout",
    # factorization machines (fixtures/shim_fm_l2): get_variable tables read by embedding_lookup, an explicit L2 term
    "nn.embedding_lookup", "nn.l2_loss", "ones_like",
})
_VERIFIED_PREFIXES = ("initializers.", "keras.initializers.", "keras.regularizers.", "math.", "dtypes.", "float32",
                      "float64", "int32", "int64")
_REST = ("losses.", "train.", "metrics.", "estimator.", "summary.", "get_collection", "add_to_collection",
         "control_dependencies", "group", "set_random_seed", "random.set_seed")


@dataclass
class ShimPlan(model_fn.ModelPlan):
    """A model plan whose `call_body` is the forward pass as written, run under the shim (model_class.py.j2)."""
    shim: bool = True
    shim_why: str = ""  # what the native interpreter could not re-express
    shim_helpers: frozenset = frozenset()  # the module functions the forward pass calls (TF1 code kept, imports.py)


class _Names(cst.CSTVisitor):
    """Names read and bound in a node."""

    def __init__(self):
        self.read: set[str] = set()
        self.bound: set[str] = set()
        self.calls: list[cst.Call] = []
        self.keywords: list[cst.Arg] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.read.add(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bound.add(node.name.value)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        self.keywords.extend(a for a in node.args if a.keyword is not None)

    def _bind(self, target) -> None:
        if isinstance(target, cst.Name):
            self.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)


def _names(node) -> _Names:
    found = _Names()
    node.visit(found)
    return found


def _is_train_test(node, tf) -> bool:
    """`mode == ModeKeys.TRAIN` (either side, the string "train" too)."""
    if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, cst.Equal)):
        return False
    sides = [node.left, node.comparisons[0].comparator]
    return any(isinstance(s, cst.Name) and s.value == tf.mode for s in sides) and any(
        (tf.path(s) or "").endswith("ModeKeys.TRAIN") or isinstance(s, cst.SimpleString) and s.evaluated_value == "train"
        for s in sides)


class _Training(Transformer):
    """`mode == ModeKeys.TRAIN` → `training` (the Keras flag `call` receives)."""

    def __init__(self, tf):
        super().__init__()
        self.tf = tf

    def leave_Comparison(self, original, updated):
        return cst.Name("training") if _is_train_test(original, self.tf) else updated


class _DropRegularization(Transformer):
    """`a + get_regularization_loss()` → `a`: the loop adds model.losses (the same terms) itself."""

    def __init__(self, tf):
        super().__init__()
        self.tf, self.dropped, self.other = tf, 0, []

    def _reg(self, node) -> bool:
        return isinstance(node, cst.Call) and self.tf.path(node) == "losses.get_regularization_loss" and not node.args

    def leave_BinaryOperation(self, original, updated):
        if isinstance(original.operator, cst.Add):
            if self._reg(original.right):
                self.dropped += 1
                return updated.left.with_changes(lpar=updated.lpar, rpar=updated.rpar) if updated.lpar else updated.left
            if self._reg(original.left):
                self.dropped += 1
                return updated.right
        return updated

    def visit_Call(self, node: cst.Call) -> None:
        path = self.tf.path(node) or ""
        if path == "losses.get_regularization_losses":
            self.other.append(node)


class _Facts:
    """The model_fn's parameter names and TF path lookup."""

    def __init__(self, fn: cst.FunctionDef, names: TFNames):
        self.names = names
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        named = {"labels", "mode", "params", "config"}
        self.features = next((p for p in params if p not in named), "features")
        self.labels, self.mode = "labels", "mode"
        self.params = "params"
        self.config = "config" if "config" in params else None

    def path(self, node) -> str | None:
        return self.names.of(node)


def _stmts(fn: cst.FunctionDef) -> list:
    body = list(fn.body.body)
    if body and model_fn_docstring(body[0]):
        body = body[1:]
    return body


def model_fn_docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _flag(stmt, tf) -> bool:
    """`is_training = mode == ModeKeys.TRAIN`: read by the forward pass and by the rest alike."""
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)
            and _is_train_test(stmt.body[0].value, tf))


def _forward_ends(stmt, tf, flags: set[str]) -> bool:
    """Whether `stmt` is past the forward pass: it reads labels, is a branch or a return, or computes the loss,
    the training op, metrics, summaries or a spec."""
    if isinstance(stmt, cst.If):
        return not _forward_if(stmt, tf, flags)
    if isinstance(stmt, (cst.Return, cst.Try, cst.While)):
        return True
    if isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, cst.Return) for s in stmt.body):
        return True
    found = _names(stmt)
    if tf.labels in found.read:
        return True
    if tf.mode in found.read:
        # only `mode == TRAIN` may appear: anything else about the mode is not forward computation
        stripped = stmt.visit(_Training(tf))
        if tf.mode in _names(stripped).read:
            return True
    return any((tf.path(c) or "").startswith(_REST) for c in found.calls)


def _end_reason(stmt, tf) -> str:
    """Why a statement that builds layers is not forward code (_forward_ends)."""
    found = _names(stmt)
    if tf.labels in found.read:
        return f"reads `{tf.labels}`"
    if tf.mode in _names(stmt.visit(_Training(tf))).read:
        return (f"reads `{tf.mode}` (the shim's call knows only the training flag, `{tf.mode} == ModeKeys.TRAIN` "
                "written in the model_fn itself)")
    path = next((p for p in (tf.path(c) or "" for c in found.calls) if p.startswith(_REST)), None)
    if path is not None:
        return f"calls tf.{path} (loss, training, metrics or summaries)"
    return "returns"


class _Exits(cst.CSTVisitor):
    """Whether a statement returns, raises or leaves a loop (none of which the forward pass may do)."""

    def __init__(self):
        self.found = False

    def visit_Return(self, node) -> None:
        self.found = True

    def visit_Raise(self, node) -> None:
        self.found = True

    def visit_Break(self, node) -> None:
        self.found = True

    def visit_Continue(self, node) -> None:
        self.found = True


def _forward_if(stmt: cst.If, tf, flags: set[str]) -> bool:
    """An `if` that is part of the forward pass: its test is `mode == TRAIN` (read as `training` in the shim's
    call), a training flag, or static (reads neither the mode nor the labels: params, flags), and every statement
    under it computes forward values only (no labels, loss, train op, metrics or spec, no return)."""
    exits = _Exits()
    stmt.visit(exits)
    if exits.found:
        return False
    test = stmt.test.visit(_Training(tf))
    if {tf.mode, tf.labels} & _names(test).read:
        return False
    branches = [stmt.body.body]
    orelse = stmt.orelse
    while orelse is not None:
        if isinstance(orelse, cst.If):
            if {tf.mode, tf.labels} & _names(orelse.test.visit(_Training(tf))).read:
                return False
            branches.append(orelse.body.body)
            orelse = orelse.orelse
        else:
            branches.append(orelse.body.body)
            orelse = None
    return all(not _forward_ends(inner, tf, flags) for branch in branches for inner in branch)


def _settings(forward: list, tf, helpers: dict) -> list:
    """The forward pass's settings (`learning_rate = params["learning_rate"]`, `layers = [int(u) for u in ...]`):
    one name bound once from params, flags or constants, no TF call, no features, labels or mode. They stay in
    the forward pass and are computed again for the rest (the optimizer, the loss), as the model_fn did once."""
    found, computed, counts = [], set(), {}
    for stmt in forward:
        for name in _names(stmt).bound:
            counts[name] = counts.get(name, 0) + 1
    for stmt in forward:
        names = _names(stmt)
        targets = _setting_targets(stmt)
        if (targets and all(counts[t] == 1 for t in targets) and not _flag(stmt, tf)
                and not any(tf.path(c) or not _pure_helper_call(c, tf, helpers) for c in names.calls)
                and not ({tf.features, tf.labels, tf.mode, tf.config} | computed) & names.read):
            found.append(stmt)
        else:
            computed |= names.bound
    return found


def _built_twice(forward: list, outputs: list, helpers: dict) -> str | None:
    """The module function every output is assigned from (`a = net(...)`, `b = net(..., reuse=True)`), or None."""
    made = {}
    for stmt in forward:
        targets = _setting_targets(stmt)
        value = stmt.body[0].value if targets else None
        if len(targets) == 1 and isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
                and value.func.value in helpers:
            made[targets[0]] = value.func.value
    names = {made.get(o) for o in outputs}
    return names.pop() if len(names) == 1 and None not in names else None


def _setting_targets(stmt) -> list[str]:
    """The names `a = ...` / `a, b = ...` binds (one assignment, plain names only), else []."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)
            and len(stmt.body[0].targets) == 1):
        return []
    target = stmt.body[0].targets[0].target
    elements = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
    return [e.value for e in elements] if all(isinstance(e, cst.Name) for e in elements) else []


def _pure_helper_call(call: cst.Call, tf, helpers: dict) -> bool:
    """A call of a builtin or of a module function that calls no TF API and no other module function (a static
    setting computed from params, like `n, dim = check_columns(params["columns"])`); a module function calling
    anything else is not a setting."""
    if not (isinstance(call.func, cst.Name) and call.func.value in helpers):
        return True
    inner = _names(helpers[call.func.value].body).calls
    return not any(tf.path(c) or isinstance(c.func, cst.Name) and c.func.value in helpers for c in inner)


def _setting_statement(stmt, tf, helpers: dict) -> bool:
    """A model_fn statement computing static settings through a module function (`n, dim =
    check_columns(params["columns"])`): plain names bound from params and constants, calls of builtins and of pure
    module functions only."""
    found = _names(stmt)
    return (bool(_setting_targets(stmt)) and not {tf.features, tf.labels, tf.mode, tf.config} & found.read
            and any(isinstance(c.func, cst.Name) and c.func.value in helpers for c in found.calls)
            and not any(tf.path(c) or not _pure_helper_call(c, tf, helpers) for c in found.calls))


def _makes_variables(stmt, tf, helpers: dict) -> bool:
    found = _names(stmt)
    return (not isinstance(stmt, cst.SimpleStatementLine)
            or any((tf.path(c) or "").startswith(_MAKES_VARIABLES)
                   or isinstance(c.func, cst.Name) and c.func.value in helpers for c in found.calls))


def _reuse_before_creation(forward: list, tf, helpers: dict) -> None:
    """`variable_scope("s", reuse=True)` whose scope nothing else in the forward pass enters: TF1 raised ("Variable
    s/... does not exist"), while the shim's store creates the variables, so the migrated program would train where
    the original failed."""
    calls = [c for node in [*forward, *helpers.values()] for c in _names(node).calls
             if (tf.path(c) or "").removeprefix("compat.v1.") == "variable_scope" and c.args
             and isinstance(c.args[0].value, cst.SimpleString)]

    def reuse_true(call) -> bool:
        return any(a.keyword is not None and a.keyword.value == "reuse" and isinstance(a.value, cst.Name)
                   and a.value.value == "True" for a in call.args)
    entered = {c.args[0].value.value for c in calls if not reuse_true(c)}
    for call in calls:
        if reuse_true(call) and call.args[0].value.value not in entered:
            raise Blocked(CODE, f"variable_scope({call.args[0].value.value}, reuse=True) reuses variables that nothing "
                                "in the forward pass created under that scope: TF1 raised 'Variable ... does not "
                                "exist', while the shim would create them; create them first (or reuse=AUTO_REUSE)",
                          call)


class _Loops(cst.CSTVisitor):
    """The `for` statements of a node, nested ones included."""

    def __init__(self):
        self.found: list[cst.For] = []

    def visit_For(self, node: cst.For) -> None:
        self.found.append(node)


def _tensor_loops(forward: list, tf) -> None:
    """A forward loop must run over Python values (range(...), params, a list or a setting the model_fn builds
    without TF calls, a Python list of tensors): TF1 built its graph by running the loop as Python, as the shim's
    call does. A name bound from a TF call or from the features is a tensor, which TF1's graph could not iterate
    (it raised), while the shim's call under tf.function would loop over it: not converted."""
    tensors = set()
    for stmt in forward:
        for node in _assignments(stmt):
            found = _names(node.value)
            if isinstance(node.value, (cst.List, cst.ListComp, cst.Tuple)):
                continue  # a Python list (of tensors, maybe): TF1 iterated it as Python too
            if any(tf.path(c) for c in found.calls) or {tf.features, tf.labels} & found.read:
                tensors |= _names(node).bound
    loops = _Loops()
    for stmt in forward:
        stmt.visit(loops)
    for loop in loops.found:
        bad = sorted(_names(loop.iter).read & (tensors | {tf.features, tf.labels}))
        if bad or any(tf.path(c) for c in _names(loop.iter).calls):
            what = f"`{bad[0]}`, a tensor" if bad else f"`{code(loop.iter)}`, a TF call's value"
            raise Blocked(CODE, f"`for {code(loop.target)} in {code(loop.iter)}:` in the forward pass runs over {what}: "
                                "TF1's graph could not iterate a tensor, while the shim's call would; only loops over "
                                "Python values (range(...), params, lists built in Python) are converted", loop)


def _assignments(stmt) -> list:
    found = []

    class _Visit(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            found.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            found.append(node)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                found.append(node)
    stmt.visit(_Visit())
    return found


# modules whose functions compute Python / numpy values only (no TF ops, no variables): as in TF1's graph building
_PYTHON_MODULES = frozenset({"numpy", "math", "functools", "itertools", "collections", "operator", "six", "string", "re",
                             "logging", "absl", "os", "json"})


def _foreign_calls(forward: list, tf, helpers: dict) -> None:
    """A call into another module (or of a class) in the forward pass or a module function it calls: the shim checks
    the TF calls of this module's code only, and the body of an imported function may draw random numbers, build
    Keras layers or use tf.contrib, which would run unchecked (e.g. `mylib.prep(x)` with a tf.nn.dropout in it)."""
    file = getattr(tf.names, "file", None)
    if file is None:
        return
    bindings = file.top.bindings
    seen, todo = set(), [(stmt, None) for stmt in forward]
    while todo:
        node, via = todo.pop(0)
        for call in _names(node).calls:
            func = call.func
            while isinstance(func, cst.Attribute):
                func = func.value
            if not isinstance(func, cst.Name) or tf.path(call):
                continue
            if func.value in helpers and isinstance(call.func, cst.Name):
                if func.value not in seen:
                    seen.add(func.value)
                    todo.append((helpers[func.value], func.value))
                continue
            found = bindings.get(func.value) or []
            where = f" (in {via}())" if via else ""
            if any(b.kind in ("import", "from") and b.target.lstrip(".").split(".")[0] not in _PYTHON_MODULES
                   for b in found):
                target = next(b.target for b in found if b.kind in ("import", "from"))
                raise Blocked(CODE, f"`{code(call.func)}()`{where} in the forward pass is defined in `{target}`, which "
                                    "the model-mapping shim does not read: its TF calls (random ops, Keras layers, "
                                    "tf.contrib) cannot be checked to be verified under the shim, so it is not run "
                                    "unchecked; define what it builds in this module", call)
            if any(b.kind == "class" for b in found):
                raise Blocked(CODE, f"`{code(call.func)}()`{where} in the forward pass constructs a class of this "
                                    "module: the model-mapping shim checks module functions only, so it is not run "
                                    "unchecked", call)


def _refuse(forward: list, tf, helpers: dict) -> list[str]:
    """What even the shim cannot make exact in the forward pass (and in the helpers it calls); returns the dropout
    calls it runs (their masks come from TF2's random stream: compared statistically, see plan())."""
    _reuse_before_creation(forward, tf, helpers)
    seen: set[str] = set()
    dropouts = []
    todo = [(stmt, None) for stmt in forward]
    while todo:
        node, via = todo.pop(0)
        found = _names(node)
        where = f" (in {via}())" if via else ""
        for call in found.calls:
            path = tf.path(call) or ""
            if path in NO_VARIABLES:
                if not _inputs_only(call):
                    raise Blocked(CODE, f"tf.{path}{where} with arguments besides its input is not converted under the "
                                        f"shim (it runs as tf.compat.v1.{NO_VARIABLES[path]}, which takes only the input)",
                                  call)
                continue  # the same op as tf.compat.v1.layers.flatten (planners/imports.py writes that)
            if path.startswith("contrib."):
                raise Blocked(CODE, f"tf.{path}{where} is not run under the model-mapping shim: TF 2.21 has no "
                                    "tf.contrib, and tf_slim (PyPI) fails there and on TF 2.15 in batch_norm (ops.Tensor is "
                                    "gone); rewrite it with tf.compat.v1.layers", call)
            plain = path.removeprefix("compat.v1.")
            if plain == DROPOUT and not _zero_rate(call):
                if _training_arg(call) not in (None, "False"):  # (training=False, TF1's default, draws nothing)
                    dropouts.append(f"tf.{path}{where}")
            elif path.startswith(_RANDOM) and not _zero_rate(call):
                raise Blocked(CODE, f"tf.{path}{where} draws random numbers: under the shim they come from TF2's "
                                    "random stream, not the Estimator's graph seed, so the runs would not match", call)
            if path.startswith(("nn.rnn_cell", "nn.static_rnn", "nn.dynamic_rnn", "nn.bidirectional_dynamic_rnn",
                                "keras.layers.", "keras.Sequential", "keras.Model", "keras.models.")):
                raise Blocked(CODE, f"tf.{path}{where} in the forward pass: Keras layers and RNN cells built inside the "
                                    "shim's call are not checked to be created once and trained; not converted", call)
            if path in ("Variable", "compat.v1.Variable", "VariableV1"):
                raise Blocked(CODE, f"tf.Variable{where} in the forward pass is created again on every call under the "
                                    "shim; create it with tf.compat.v1.get_variable", call)
            if path.startswith(("get_collection", "add_to_collection", "Session", "train.", "py_func")) \
                    or "queue" in path.lower():
                raise Blocked(CODE, f"tf.{path}{where} in the forward pass is not run under the shim (graph "
                                    "collections, sessions and queues have no TF2 meaning)", call)
            if path and plain not in _VERIFIED and not plain.startswith(_VERIFIED_PREFIXES) and not (
                    path.startswith(_RANDOM) and _zero_rate(call)):
                raise Blocked(CODE, f"tf.{path}{where} in the forward pass is not verified under the model-mapping "
                                    "shim (its fixtures run get_variable layers, tf.compat.v1.layers dense, conv2d, "
                                    "max_pooling2d, flatten, dropout and batch normalization, regularizers, "
                                    "initializers and plain math): not converted", call)
            if isinstance(call.func, cst.Name) and call.func.value in helpers and call.func.value not in seen:
                seen.add(call.func.value)
                todo.append((helpers[call.func.value], call.func.value))
        if tf.config and via is None and tf.config in found.read:
            raise Blocked(CODE, f"the forward pass reads `{tf.config}` (the RunConfig), which the model cannot see",
                          node)
    return dropouts


def _batch_norm_updates(forward: list, rest: list, tf, helpers: dict) -> None:
    """Batch normalization under the shim updates its moving averages in every training call (tf_keras), as TF1
    did only when the train op ran UPDATE_OPS, and never for a Keras layer (its updates were not in UPDATE_OPS)."""
    runs_updates = any(tf.path(c) == "get_collection" and c.args and (tf.path(c.args[0].value) or "").endswith(
        "GraphKeys.UPDATE_OPS") for s in rest for c in _names(s).calls)
    names = {*reached(forward, helpers)}
    for node in [*forward, *(helpers[n] for n in sorted(names))]:
        for call in _names(node).calls:
            path = (tf.path(call) or "").removeprefix("compat.v1.")
            if path.startswith("keras.") and "BatchNormalization" in path:
                raise Blocked(CODE, f"tf.{path} in the forward pass: TF1 never ran a Keras layer's moving-average "
                                    "updates (they are not in UPDATE_OPS), tf_keras under the shim runs them; use "
                                    "tf.compat.v1.layers.batch_normalization with UPDATE_OPS", call)
            if path in ("layers.batch_normalization", "layers.BatchNormalization") and not runs_updates:
                raise Blocked(CODE, f"tf.{path} in the forward pass, and the train op does not run UPDATE_OPS: TF1 "
                                    "never updated its moving averages, tf_keras under the shim would; run the train op "
                                    "under tf.control_dependencies(tf.compat.v1.get_collection("
                                    "tf.compat.v1.GraphKeys.UPDATE_OPS))", call)


def _zero_rate(call: cst.Call) -> bool:
    """Dropout with a literal rate 0 (or keep_prob 1): no random numbers are drawn."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in ("rate", "keep_prob"):
            try:
                value = float(code(arg.value))
            except ValueError:
                return False
            return value == (1.0 if arg.keyword.value == "keep_prob" else 0.0)
    return False


def _training_arg(call: cst.Call) -> str | None:
    """The code of tf.compat.v1.layers.dropout(inputs, rate, noise_shape, seed, training)'s `training`, None without."""
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == "training" or arg.keyword is None and i == 4:
            return code(arg.value)
    return None


def _inputs_only(call: cst.Call) -> bool:
    return len(call.args) == 1 and call.args[0].star == "" and (call.args[0].keyword is None
                                                                or call.args[0].keyword.value == "inputs")


def _self_assignment(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)
            and len(stmt.body[0].targets) == 1 and isinstance(stmt.body[0].value, cst.Name)
            and code(stmt.body[0].targets[0].target) == stmt.body[0].value.value)


def reached(forward: list, helpers: dict) -> frozenset[str]:
    """The module functions the forward pass calls, directly or through each other."""
    seen, todo = set(), list(forward)
    while todo:
        for call in _names(todo.pop()).calls:
            if isinstance(call.func, cst.Name) and call.func.value in helpers and call.func.value not in seen:
                seen.add(call.func.value)
                todo.append(helpers[call.func.value])
    return frozenset(seen)


def regularized(forward: list, helpers: dict) -> bool:
    seen, todo = set(), list(forward)
    while todo:
        found = _names(todo.pop())
        if any(k.keyword.value in _REGULARIZER_ARGS and code(k.value) != "None" for k in found.keywords):
            return True
        for call in found.calls:
            if isinstance(call.func, cst.Name) and call.func.value in helpers and call.func.value not in seen:
                seen.add(call.func.value)
                todo.append(helpers[call.func.value])
    return False


def _del_of_params(stmt, fn: cst.FunctionDef) -> bool:
    """`del a, b` of the model_fn's own parameters, as a statement of its body."""
    params = {p.name.value for p in fn.params.params}
    if not isinstance(stmt, cst.SimpleStatementLine) or not all(isinstance(s, cst.Del) for s in stmt.body):
        return False
    targets = [t for s in stmt.body for t in ([e.value for e in s.target.elements]
                                              if isinstance(s.target, cst.Tuple) else [s.target])]
    return all(isinstance(t, cst.Name) and t.value in params for t in targets)


@dataclass
class Split:
    forward: list  # the forward statements, as written
    output: str
    synthetic: cst.FunctionDef  # the model_fn with the forward pass one opaque call
    params_read: bool
    regularized: bool
    dropouts: list = dataclasses.field(default_factory=list)  # dropout calls run with TF2's random stream


def split(fn: cst.FunctionDef, names: TFNames, helpers: dict) -> Split:
    """The model_fn's forward pass (its leading statements up to the loss, a branch or a return) and the copy of the
    model_fn the native interpreter reads for the rest."""
    tf = _Facts(fn, names)
    body = _stmts(fn)
    flags = [s for s in body if _flag(s, tf)]
    flag_names = {s.body[0].targets[0].target.value for s in flags if isinstance(s.body[0].targets[0].target, cst.Name)}
    forward, rest = [], []
    # `del config` / `del params` (unused arguments): not forward code; the rest's interpreter drops them
    dels = [stmt for stmt in body if _del_of_params(stmt, fn)]
    body = [stmt for stmt in body if stmt not in dels]
    for i, stmt in enumerate(body):
        if _forward_ends(stmt, tf, flag_names):
            rest = body[i:]
            break
        forward.append(stmt)
    rest = [*dels, *rest]
    rest_names = _names(cst.IndentedBlock(rest)) if rest else _Names()
    # values computed after the last statement that makes variables go to the rest (tensor ops on the output)
    while forward and not _makes_variables(forward[-1], tf, helpers) and not _flag(forward[-1], tf):
        rest.insert(0, forward.pop())
        rest_names = _names(cst.IndentedBlock(rest))
    if not forward or not any(_makes_variables(s, tf, helpers) for s in forward):
        ends = next((s for s in rest if s not in dels), None)
        if ends is not None and isinstance(ends, cst.SimpleStatementLine) and _makes_variables(ends, tf, helpers):
            raise Blocked(CODE, f"`{code(ends).strip()}` builds the model but {_end_reason(ends, tf)}, so the shim "
                                "cannot hold it as the forward pass", ends)
        raise Blocked(CODE, "the model_fn has no forward pass the shim could hold (no layers or variables before the "
                            "loss, a branch or a return)", fn)
    settings = _settings(forward, tf, helpers)
    setting_names = {name for s in settings for name in _setting_targets(s)}
    bound = set()
    for stmt in forward:
        if not _flag(stmt, tf) and stmt not in settings:
            bound |= _names(stmt).bound
    outputs = sorted(bound & rest_names.read - flag_names - setting_names)
    terms = []
    if len(outputs) > 1:  # values besides the model output: loss terms, values of the output (shim_outputs.py)
        found = _hand_out(forward, rest, flags, settings, flag_names | setting_names, tf, helpers)
        if len(found[3]) == 1:
            forward, rest, terms, outputs = found
            rest_names = _names(cst.IndentedBlock(rest))
        elif found[3]:
            outputs = found[3]  # (the values still handed out, for the message)
    if len(outputs) != 1:
        what = ", ".join(f"`{o}`" for o in outputs) or "nothing"
        twice = _built_twice(forward, outputs, helpers)
        raise Blocked(CODE, f"the forward pass hands {what} to the rest of the model_fn: the shim converts a forward "
                            "pass with one output (the model output)" + (
                                f"; here {twice}() builds the network once per output (e.g. for training and for "
                                "evaluation, sharing variables), and the shim's model gives one output per call"
                                if twice else ""), forward[-1])
    forward = [*forward, *terms]  # (the loss terms: at the end of the shim's call)
    _tensor_loops(forward, tf)
    _foreign_calls(forward, tf, helpers)
    dropouts = _refuse(forward, tf, helpers)
    _batch_norm_updates(forward, rest, tf, helpers)
    reg = regularized(forward, helpers)
    dropper = _DropRegularization(tf)
    rest = [stmt.visit(dropper) for stmt in rest]
    rest = [stmt for stmt in rest if not _self_assignment(stmt)]  # `loss = loss + reg` without the term
    dropper.other += [c for s in rest for c in _names(s).calls if tf.path(c) == "losses.get_regularization_loss"]
    if dropper.other:
        raise Blocked(CODE, "get_regularization_loss() is converted as a term added to the loss (`loss + "
                            "tf.compat.v1.losses.get_regularization_loss()`); get_regularization_losses() is not",
                      dropper.other[0])
    total = any(tf.path(c) == "losses.get_total_loss" for s in rest for c in _names(s).calls)
    if reg and not dropper.dropped and not total:
        raise Blocked(CODE, "the forward pass has regularizers but the loss adds no regularization loss: TF1 did "
                            "not train on it, the migrated loop adds the model's losses", fn)
    call = cst.parse_statement(f"{outputs[0]} = {SHIM_CALL}({tf.features})\n")
    # (only the settings the rest reads: a setting the native interpreter would block on stays in the forward pass)
    settings = [s for s in settings if set(_setting_targets(s)) & rest_names.read]
    synthetic = fn.with_changes(body=fn.body.with_changes(body=[*flags, *settings, call, *rest]))
    params_read = any(tf.params in _names(s).read for s in forward)
    # (loss terms moved into the model's losses: the loop adds them as it adds regularization losses)
    return Split(forward, outputs[0], synthetic, params_read, reg or bool(terms), dropouts)


def _hand_out(forward: list, rest: list, flags: list, settings: list, not_outputs: set, tf, helpers: dict):
    """(forward, rest, loss terms, outputs): the rest's label-free loss terms read from the shim's losses and the
    forward pass's trailing statements that make no variables run after it, until one output is left (or none of
    them can move: the fewest outputs it came to)."""
    best = None
    while True:
        bound = set()
        for stmt in forward:
            if not _flag(stmt, tf) and stmt not in settings:
                bound |= _names(stmt).bound
        stripped, terms = shim_outputs.loss_terms(rest, bound, tf, _names)
        outputs = sorted(bound & _names(cst.IndentedBlock(stripped)).read - not_outputs)
        if len(outputs) <= 1:
            return forward, stripped, terms, outputs
        if best is None or len(outputs) < len(best[3]):
            best = forward, stripped, terms, outputs
        hoisted = shim_outputs.hoist_last(forward, tf, lambda s: _makes_variables(s, tf, helpers))
        if hoisted is None:
            return best
        forward, stmt = hoisted
        rest = [stmt, *rest]


def forward_body(found: Split, fn: cst.FunctionDef, names: TFNames) -> list:
    """The forward statements for `call`: `mode == TRAIN` read as the `training` flag."""
    return [stmt.visit(_Training(_Facts(fn, names))) for stmt in found.forward]


# The native blockers the shim is tried for: the forward-pass constructs its verified fixtures (fixtures/shim_*) hold.
# Any other blocker stands alone, with no shim attempt: the shim's conversion of it is not verified.
_FOR = ("builds layers and is called in a loop", "builds layers and is called inside an expression",
        "is converted when it ends with `return <tensor>`", "regularizer",
        # mode-dependent forward code (fixtures/shim_mode_branch): `if mode == TRAIN` / a static `if` in the forward
        # pass, a training flag set in such an `if`; the shim keeps them in `call`, `mode == TRAIN` read as `training`
        "is not `mode == ModeKeys.TRAIN` or a literal", "runs only in TRAIN: the Keras model is one forward pass",
        "a static `if` may only compute forward values", "if statement inside a forward loop",
        # input_layer over indicator / embedding columns in the model_fn (fixtures/shim_input_layer)
        "other columns are not converted in a model_fn yet",
        # conv nets under reused variable scopes, tf.contrib.layers.flatten (fixtures/shim_conv_net)
        "variable_scope(reuse=...) is not converted", "TF 2 has no tf.contrib (it creates no variables",
        # nested loops and loops over a list the model_fn computes in Python (fixtures/shim_pairwise_loops): plain
        # Python in `call`, as in TF1's graph building; _tensor_loops refuses a loop over a tensor
        "nested loops in the forward pass are not converted", "only loops over Python values (params, module constants")


def applies(native: Blocked, fn: cst.FunctionDef | None = None, names: TFNames | None = None,
            helpers: dict | None = None) -> bool:
    """Whether every native blocker is one the shim is tried for: those of _FOR, and a statement the native
    interpreter does not convert that computes static settings through a module function (fixtures/shim_conv_net)."""
    tf = _Facts(fn, names) if fn is not None else None
    return all(any(words in e.message for words in _FOR)
               or fn is not None and shim_outputs.handed_out(e.message, fn, _names)
               or tf is not None and e.message.startswith("statement `") and _setting_statement(e.node, tf, helpers)
               for e in native.errors)


def refused(native: Blocked, why: Blocked) -> Blocked:
    """The native blockers of a model_fn the shim could not convert either, with a note (TFM502) for each reason
    the shim gave that the native ones do not already say."""
    said = {(e.code, e.message) for e in native.errors}
    notes = []
    for e in why.errors:
        if (e.code, e.message) not in said:
            note = Blocked(CODE, f"the model-mapping shim cannot convert this model_fn either: {e.code} {e.message}"
                           if e.code != CODE else f"the model-mapping shim cannot convert this model_fn either: "
                                                  f"{e.message}", e.node)
            note.severity = "note"
            notes.append(note)
    return Blocked.many([native, *notes]) if notes else native


def would_convert(native: Blocked) -> Blocked:
    """`--style native`: the native blockers of a model_fn the shim converts, with a note saying so."""
    note = Blocked(CODE, "the model-mapping shim converts this model_fn's forward pass as written: --style auto "
                         "(the default) or --style shim", native.errors[0].node)
    note.severity = "note"
    return Blocked.many([native, note])


def plan(native: Blocked | None, fn: cst.FunctionDef, names: TFNames, module_names: frozenset[str], helpers: dict,
         interpret) -> ShimPlan:
    """The shim plan of a model_fn the native interpreter blocked on (`native`; None under --style shim):
    `interpret(fn, module_names)`
    runs the native interpreter on the model_fn with its forward pass replaced."""
    found = split(fn, names, helpers)
    base = interpret(found.synthetic, module_names | {SHIM_CALL})  # (the rest of the model_fn: its blockers too)
    if found.regularized and (getattr(base.loss, "reduction", None) == "sum" or getattr(base.loss, "elementwise", False)):
        raise Blocked(CODE, "a regularized forward pass whose loss is summed or averaged per label is not converted "
                            "under the shim (the regularization loss joins each example's loss; checked for a mean "
                            "over the batch only)", fn)
    if native is None:  # --style shim
        why = "--style shim"
        reason = why
    else:
        why = native.message if len(native.errors) == 1 else "; ".join(e.message for e in native.errors[:2])
        reason = f"the native conversion stopped at: {why}"
    note = (CODE, "forward pass kept as TF1 code under the model-mapping shim (tf_keras, "
                  f"track_tf1_style_variables; TF1 variable names): {reason}", fn)
    notes = [*base.notes, note]
    if found.dropouts:  # (runtime/verify.py reads "verify --statistical" and picks the statistical comparison)
        notes.append((CODE, f"{found.dropouts[0]} under the shim draws its masks from TF2's random stream, not the "
                            "Estimator graph's seed: training is not stepwise-comparable with the original; compare "
                            "it with `tfmigrate verify --statistical`", fn))
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(model_fn.ModelPlan)}
    fields.update(call_body=forward_body(found, fn, names), params_in_call=found.params_read, layers=[],
                  output=found.output, notes=notes, helpers=[])
    return ShimPlan(**fields, shim_why=why, shim_helpers=reached(found.forward, helpers))
