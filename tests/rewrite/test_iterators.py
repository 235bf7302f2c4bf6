"""Dataset iterators in input_fns (rules/planners/iterators.py): an input_fn returning a one-shot iterator's tensors
returns its dataset (the Estimator read the same elements either way); anything else with an iterator blocks, saying
where and what to do."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, rewrite, section

DATA = 'ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 4}, [[1.0]] * 4)).batch(2).repeat()'


def _with_train_input_fn(body: str, header: str = "import tensorflow as tf") -> str:
    src = program(header=header)
    old = section(src, "def train_input_fn", "def eval_input_fn")
    lines = "".join(f"    {line}\n" for line in body.strip("\n").split("\n"))
    return src.replace(old, f"def train_input_fn():\n    {DATA}\n{lines}\n\n")


@pytest.mark.parametrize("body", [
    "return ds.make_one_shot_iterator().get_next()",
    "return tf.compat.v1.data.make_one_shot_iterator(ds).get_next()",
    "features, labels = ds.make_one_shot_iterator().get_next()\nreturn features, labels",
    "features, labels = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()\nreturn (features, labels)",
    "iterator = ds.make_one_shot_iterator()\nreturn iterator.get_next()",
    "iterator = ds.make_one_shot_iterator()\nfeatures, labels = iterator.get_next()\nreturn features, labels",
])
def test_input_fn_returning_the_iterators_tensors_returns_the_dataset(body):
    out = converted(_with_train_input_fn(body))
    fn = section(out, "def train_input_fn", "def eval_input_fn")
    assert fn.rstrip().endswith("    return ds"), fn
    assert "iterator" not in fn


@pytest.mark.parametrize("body, returned", [
    # unpacked, regrouped with no computation: the Estimator regrouped each element so
    ("images, labels = ds.make_one_shot_iterator().get_next()\nreturn {'x': images['x']}, labels",
     "return ds.map(lambda images, labels: ({'x': images['x']}, labels))"),
    ("it = ds.make_one_shot_iterator()\nfeatures, labels = it.get_next()\nreturn (labels, features)",
     "return ds.map(lambda features, labels: (labels, features))"),
    ("features, labels = ds.make_one_shot_iterator().get_next()\nreturn {'a': features['x'], 'b': features}, labels[0]",
     "return ds.map(lambda features, labels: ({'a': features['x'], 'b': features}, labels[0]))"),
    # one name read by string keys: a dict element
    ("features = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()\nreturn {'pixels': features['x']}",
     "return ds.map(lambda features: {'pixels': features['x']})"),
])
def test_input_fn_regrouping_the_tensors_returns_the_mapped_dataset(body, returned):
    result = rewrite(_with_train_input_fn(body))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    fn = section(result.output.decode(), "def train_input_fn", "def eval_input_fn")
    assert fn.rstrip().endswith("    " + returned), fn
    [note] = [d for d in result.diagnostics if "mapped to what it returned" in d.message]
    assert note.code == "TFM001" and note.line == 6


def test_v1_namespace_chain():
    src = _with_train_input_fn("return ds.prefetch(1).make_one_shot_iterator().get_next()",
                               header="import tensorflow.compat.v1 as tf")
    fn = section(converted(src), "def train_input_fn", "def eval_input_fn")
    assert "    return ds.prefetch(1)\n" in fn


@pytest.mark.parametrize("body, returned", [
    # computed on, one return: the Estimator's graph computed the same on each batch get_next() gave
    ("images, labels = ds.make_one_shot_iterator().get_next()\nreturn {'x': tf.cast(images['x'], tf.int32)}, labels",
     "return ds.map(lambda images, labels: ({'x': tf.cast(images['x'], tf.int32)}, labels))"),
    ("features, labels = ds.make_one_shot_iterator().get_next()\nreturn labels, features + 1",
     "return ds.map(lambda features, labels: (labels, features + 1))"),
    # one name read as a dict (pop): a dict element, handed to map as one argument
    ("it = ds.make_one_shot_iterator()\nfeatures = it.get_next()\nreturn features, tf.cast(features.pop('x'), tf.int32)",
     "return ds.map(lambda features: (features, tf.cast(features.pop('x'), tf.int32)))"),
    # one name read by position: a tuple element, or a tensor's rows (not known here): the zipped 1-tuple hands map
    # the element whole, whichever it is
    ("features = ds.make_one_shot_iterator().get_next()\nreturn {'x': features[0]}, features[1]",
     "return tf.data.Dataset.zip((ds,)).map(lambda features: ({'x': features[0]}, features[1]))"),
])
def test_input_fn_computing_on_the_tensors_returns_the_mapped_dataset(body, returned):
    result = rewrite(_with_train_input_fn(body))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    fn = section(result.output.decode(), "def train_input_fn", "def eval_input_fn")
    assert fn.rstrip().endswith("    " + returned), fn
    assert "iterator" not in fn and "get_next" not in fn
    [note] = [d for d in result.diagnostics if "by what it computed on" in d.message]
    assert note.code == "TFM001" and note.line == 6


def test_input_fn_statements_after_get_next_become_the_mapped_function():
    body = ("features = ds.make_one_shot_iterator().get_next()\nlabel = features.pop('x')\n"
            "features['y'] = label * 2.0\nreturn features, label")
    fn = section(converted(_with_train_input_fn(body)), "def train_input_fn", "def eval_input_fn")
    assert fn.rstrip().endswith(
        "    def per_batch(features):\n        label = features.pop('x')\n        features['y'] = label * 2.0\n"
        "        return features, label\n    return ds.map(per_batch)"), fn


@pytest.mark.parametrize("body, message", [
    # graph state: a random op in the map is seeded otherwise than in the Estimator's graph
    ("features, labels = ds.make_one_shot_iterator().get_next()\n"
     "return features, labels + tf.random_uniform([], 0.0, 1.0)",
     "computes `tf.random_uniform([], 0.0, 1.0)` on the tensors of `ds.make_one_shot_iterator().get_next()`"),
    ("features, labels = ds.make_one_shot_iterator().get_next()\nreturn features, tf.nn.dropout(labels, 0.5)",
     "random ops, dropout, variables and summaries"),
    # a loop after get_next(): not one of the simple statement tails converted
    ("features = ds.make_one_shot_iterator().get_next()\nfor k in ['x']:\n    features.pop(k)\nreturn features",
     "otherwise than returning them"),
    # the iterator itself read again
    ("it = ds.make_one_shot_iterator()\nfeatures = it.get_next()\nreturn features, it.get_next()",
     "otherwise than returning them"),
    ("it = tf.compat.v1.data.make_initializable_iterator(ds)\nreturn it.get_next()",
     "make_initializable_iterator in input_fn `train_input_fn`: the Estimator never ran its initializer"),
    ("a = ds.make_one_shot_iterator().get_next()\nb = ds.make_one_shot_iterator().get_next()\nreturn a",
     "makes 2 dataset iterators"),
])
def test_other_iterator_uses_in_an_input_fn_block(body, message):
    result = blocked(_with_train_input_fn(body))
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert any(message in d.message for d in errors), [d.format() for d in errors]
    assert all(d.line > 0 for d in errors)


def test_iterator_outside_an_input_fn_blocks_naming_it():
    src = program(extra='''\
def peek(ds):
    return ds.make_one_shot_iterator().get_next()
''')
    result = blocked(src)
    [error] = [d for d in result.diagnostics if "make_one_shot_iterator" in d.message]
    assert "TF2 datasets have no make_one_shot_iterator" in error.message
    assert error.line == src.splitlines().index("    return ds.make_one_shot_iterator().get_next()") + 1


def test_input_fn_called_through_a_lambda():
    src = _with_train_input_fn("iterator = ds.make_one_shot_iterator()\nf, l = iterator.get_next()\nreturn f, l")
    src = src.replace("def train_input_fn():", "def train_input_fn(batch):").replace(
        "input_fn=train_input_fn", "input_fn=lambda: train_input_fn(2)")
    fn = section(converted(src), "def train_input_fn", "def eval_input_fn")
    assert fn.rstrip().endswith("    return ds"), fn
