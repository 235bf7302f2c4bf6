"""`tf.estimator.inputs.numpy_input_fn` as an input_fn (part of TFM601): the tf.data pipeline that yields its batches.

With `shuffle=False` and one feeding thread, numpy_input_fn fed the rows in order, epoch after epoch: each batch
takes the next `batch_size` rows, wrapping into the next epoch, and the last batch of the last epoch is short
(tensorflow_estimator's `_get_integer_indices_for_next_batch`; `dequeue_up_to`, or `dequeue_many` when
num_epochs is None). That is `tf.data.Dataset.from_tensor_slices((x, y)).repeat(num_epochs).batch(batch_size)`:
the same rows, in the same batches, with the arrays' own dtypes and shapes (features a dict when x is one, the
lone tensor when x is an array; labels likewise). Written where the input_fn was used; the `numpy_input_fn(...)`
statement goes with the Estimator.

`shuffle=True` becomes `.repeat(num_epochs).shuffle(queue_capacity).batch(batch_size)`, with a note: TF1 fed
the rows, from a random first row, into a RandomShuffleQueue (capacity `queue_capacity`, min_after_dequeue a
quarter of it) that one Python thread kept nearly full, and each batch drew its rows at random from what the
queue held. A tf.data shuffle buffer of `queue_capacity` rows draws the same way; neither order is reproducible
in TF1 (the thread's timing decides), so the two programs cannot be compared step by step, only statistically:
`tfmigrate verify --statistical` runs the original several times from one initial checkpoint and checks that
the migrated loss curve lies within their spread (fixtures/numpy_shuffle).

Blocked, with what to do: `num_threads` > 1 (threads race to enqueue), a non-literal shuffle/num_threads,
`pandas_input_fn`, and numpy_input_fn in a program whose RunConfig sets a distribution strategy (the Estimator
refused queue-based input there; `--strategy` may still distribute the migrated dataset, as it does any
input_fn's).
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value

from ..emit.wrap import generated
from ..facts.calls import is_literal

CODE = "TFM601"
NUMPY = "estimator.inputs.numpy_input_fn"
PANDAS = "estimator.inputs.pandas_input_fn"
# pandas_input_fn (tensorflow_estimator 2.15, inputs/pandas_io.py) fed x's columns (the index dropped) as the
# features and y (a Series; a DataFrame gave a dict of its columns) as the labels through the same queues as
# numpy_input_fn: num_epochs=1, batch_size=128, queue_capacity=1000 by default, the last batch short
PANDAS_TODO = ("is not converted (tfmigrate converts numpy_input_fn, not pandas_input_fn): write the input_fn as "
               "tf.data.Dataset.from_tensor_slices((dict(x), y)) (dict(y) for a DataFrame y), then "
               ".repeat(num_epochs) (none for 1, the default; .repeat() for None), .shuffle(queue_capacity) if "
               "shuffle=True, and .batch(batch_size) (128 by default; the last batch short, as in TF1)")
_ARGS = ["x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads"]
SHUFFLE_NOTE = ("numpy_input_fn(shuffle=True) converted as a tf.data shuffle over a buffer of queue_capacity rows "
                "(TF1: a RandomShuffleQueue of that capacity, fed from a random first row): the batches differ from "
                "TF1's, whose order changed from run to run too, so compare the training statistically with "
                "`tfmigrate verify --statistical`")


def arguments(call: cst.Call, file, env) -> dict[str, Value]:
    """numpy_input_fn's arguments by name."""
    from ..facts.sites import bind_values

    return bind_values(call, _ARGS, "numpy_input_fn", file, env)


def check(call: cst.Call, file, env, single_process: bool) -> str | None:
    """Blocked unless numpy_input_fn's batches have a tf.data form; a note when that form is only statistical."""
    args = arguments(call, file, env)
    if "x" not in args:
        raise Blocked(CODE, "numpy_input_fn() without x", call)
    shuffle = args.get("shuffle")
    if shuffle is None or not (is_literal(shuffle.node, False) or is_literal(shuffle.node, True)):
        raise Blocked(CODE, "numpy_input_fn needs shuffle=False written as a literal to be converted (TF 2.15 "
                            "required an explicit bool)", call if shuffle is None else shuffle.node)
    threads = args.get("num_threads")
    if threads is not None and not is_literal(threads.node, 1):
        raise Blocked(CODE, "numpy_input_fn(num_threads=...) other than 1 is not converted: several threads "
                            "enqueued rows in an order that changes from run to run", threads.node)
    if not single_process:
        raise Blocked(CODE, "numpy_input_fn under a distribution strategy is not converted: the Estimator needed a "
                            "tf.data input_fn there; write one", call)
    return SHUFFLE_NOTE if is_literal(shuffle.node, True) else None


def dataset_text(args: dict[str, Value], render) -> str:
    """The tf.data expression; `render(value, what)` gives a value's code where the dataset is used."""
    x = render(args["x"], "numpy_input_fn x")
    y = args.get("y")
    data = x if y is None or is_literal(y.node, None) else f"({x}, {render(y, 'numpy_input_fn y')})"
    epochs = args.get("num_epochs")
    if epochs is None or is_literal(epochs.node, 1):
        repeat = ""  # one epoch, the default
    elif is_literal(epochs.node, None):
        repeat = ".repeat()"
    else:
        repeat = f".repeat({render(epochs, 'numpy_input_fn num_epochs')})"
    shuffle = ""
    if is_literal(args["shuffle"].node, True):  # the queue's capacity, 1000 by default
        capacity = args.get("queue_capacity")
        shuffle = f".shuffle({render(capacity, 'numpy_input_fn queue_capacity') if capacity else '1000'})"
    batch = render(args["batch_size"], "numpy_input_fn batch_size") if "batch_size" in args else "128"
    return f"{generated('tf.data.Dataset.from_tensor_slices')}({data}){repeat}{shuffle}.batch({batch})"
