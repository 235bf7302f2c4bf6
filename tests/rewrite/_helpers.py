"""Snippet builders for the rewrite tests: a full Estimator program where each test states only what differs."""
from __future__ import annotations

import ast
import builtins
import textwrap

from tfmigrate.engine import FileResult, Options, migrate_source

FORWARD = """\
x = features["x"]
net = tf.compat.v1.layers.dense(x, 8, activation=tf.nn.relu)
logits = tf.compat.v1.layers.dense(net, 1)
"""
LOSS = "loss = tf.compat.v1.losses.mean_squared_error(labels, logits)"
OPTIMIZER = "optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)"
MINIMIZE = "train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())"
SPEC = "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)"

INPUT_FNS = '''\
def train_input_fn():
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]]))
    return ds.batch(1).repeat()


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)
'''

RUN_CONFIG = 'config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", tf_random_seed=7)'
ESTIMATOR = 'est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1})'
TRAIN_AND_EVALUATE = """\
train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2)
tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
"""


def _indent(code: str) -> str:
    return textwrap.indent(textwrap.dedent(code).strip("\n") + "\n", "    ")


def model_fn(forward: str = FORWARD, loss: str = LOSS, optimizer: str = OPTIMIZER, middle: str = "",
             minimize: str = MINIMIZE, spec: str = SPEC, signature: str = "features, labels, mode, params") -> str:
    """A model_fn: forward pass, loss, `middle` (metrics / mode branches), optimizer, minimize, final spec."""
    parts = [forward, loss, middle, optimizer, minimize, spec]
    body = "".join(_indent(p) for p in parts if p.strip())
    return f"def model_fn({signature}):\n{body}"


def program(body: str | None = None, *, header: str = "import tensorflow as tf", run_config: str = RUN_CONFIG,
            estimator: str = ESTIMATOR, drive: str = TRAIN_AND_EVALUATE, extra: str = "", **model_fn_parts) -> str:
    """A whole Estimator program. `body` replaces the model_fn entirely; otherwise model_fn(**model_fn_parts)."""
    fn = textwrap.dedent(body).strip("\n") + "\n" if body is not None else model_fn(**model_fn_parts)
    main = "".join(_indent(p) for p in (run_config, estimator, drive) if p.strip())
    sections = [textwrap.dedent(header).strip("\n") + "\n", textwrap.dedent(extra).strip("\n") + "\n" if extra.strip() else "",
                INPUT_FNS, fn, f"def main():\n{main}", 'if __name__ == "__main__":\n    main()\n']
    return "\n\n".join(s for s in sections if s)


def rewrite(src: str, **options) -> FileResult:
    return migrate_source(src.encode(), "snippet.py", Options(**options))


# the one tf.compat.v1 name generated code uses on purpose: TF 2.21 exports the Estimator's NaN-loss error only there,
# and the migrated training raises it as the Estimator did (rules/planners/hooks.py), so `except` clauses still catch it
NAN_ERROR = "tf.compat.v1.train.NanLossDuringTrainingError"


def without_nan_error(text: str) -> str:
    """`text` without the generated NaN-loss error's name (for checks that no TF1 name is left)."""
    return text.replace(NAN_ERROR, "")


def converted(src: str, **options) -> str:
    """Rewrite `src`, assert it changed and parses, return the output text."""
    result = rewrite(src, **options)
    assert result.status == "changed", (result.status, result.error, [d.format() for d in result.diagnostics])
    text = result.output.decode()
    ast.parse(text)
    compile(text, "snippet.py", "exec", dont_inherit=True)
    missing = unbound_names(text)
    assert not missing, f"output uses names it never binds: {sorted(missing)}"
    return text


def blocked(src: str, **options) -> FileResult:
    """Rewrite `src`, assert it was blocked and left byte-identical, return the result."""
    result = rewrite(src, **options)
    assert result.status == "blocked", (result.status, result.error, result.output.decode()[:3000])
    assert result.output == src.encode()
    assert result.diagnostics and all(d.code.startswith("TFM") for d in result.diagnostics)
    return result


def codes(result: FileResult) -> set[str]:
    """The codes of a result's diagnostics; of a blocked one, of its errors (not the notes beside them: why the
    model-mapping shim could not convert a model_fn either, TFM502)."""
    return {d.code for d in result.diagnostics if result.status != "blocked" or d.severity == "error"}


def section(text: str, start: str, end: str) -> str:
    """The text from the line starting with `start` up to (excluding) the next line starting with `end`."""
    i = text.index(start)
    j = text.find(end, i + len(start))
    return text[i:] if j < 0 else text[i:j]


def dotted_names(text: str) -> set[str]:
    """Every dotted name (a.b.c) used in code, ignoring strings and comments."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Attribute, ast.Name)):
            parts, cur = [], node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name):
                found.add(".".join([cur.id, *reversed(parts)]))
    return found


def unbound_names(text: str) -> set[str]:
    """Names read somewhere but bound nowhere in the module (coarse: ignores scopes), minus builtins."""
    tree = ast.parse(text)
    bound, used = set(dir(builtins)), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return used - bound
