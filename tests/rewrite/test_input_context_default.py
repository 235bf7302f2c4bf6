"""An input_fn taking input_context, driven without a strategy: the Estimator passed input_context=None, and so
does the migrated fit/evaluate (the generated call named an unbound `input_context`)."""
from __future__ import annotations

from _helpers import converted, program

SHARDED = '''\
def train_input_fn(input_context):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]]))
    if input_context:
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    return ds.batch(1).repeat()


def eval_input_fn(mode, input_context=None):
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)
'''


def test_input_context_is_none_without_a_strategy():
    src = program(extra=SHARDED).replace("def train_input_fn():", "def _unused_train():", 1).replace(
        "def eval_input_fn():", "def _unused_eval():", 1)
    text = converted(src)  # (converted() checks that every name the output uses is bound)
    assert 'eval_input_fn(mode="eval", input_context=None)' in text
    assert "train_input_fn(None)" in text  # no default: TF1 passed None, leaving it out would raise


def test_a_default_of_none_is_left_to_the_default():
    src = program(extra=SHARDED.replace("def train_input_fn(input_context):", "def train_input_fn(input_context=None):")
                  ).replace("def train_input_fn():", "def _unused_train():", 1).replace(
        "def eval_input_fn():", "def _unused_eval():", 1)
    text = converted(src)
    assert "train_input_fn()" in text and "train_input_fn(None)" not in text
