"""Hand-written TF2 migration of regression_original.py (custom training loop, MWMS when TF_CONFIG is set)."""
import argparse
import json
import os
import sys
import tempfile

import tensorflow as tf
import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from regdata import make_data  # noqa: E402

BATCH = 32
ADAGRAD_EPSILON = 0.0  # TF1 AdagradOptimizer has no epsilon


def train_input_fn(input_context=None):
    x, y = make_data()
    ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    if input_context is not None and input_context.num_input_pipelines > 1:
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    return ds.batch(BATCH, drop_remainder=True).repeat()


class RegressionModel(keras.Model):
    def __init__(self, params):
        super().__init__()
        self.dense = keras.layers.Dense(1, name="dense")

    def call(self, features, training=False):
        return self.dense(features["x"])


def main(lr=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--model_dir", default="/tmp/regression_ctl_model")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--no_eval", action="store_true")  # this migration never evaluates (the original's flag)
    a = p.parse_args()
    lr = a.lr if lr is None else lr

    if os.environ.get("TF_CONFIG"):
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    else:
        strategy = tf.distribute.get_strategy()
    with strategy.scope():
        model = RegressionModel({})
        optimizer = keras.optimizers.Adagrad(lr, initial_accumulator_value=0.1, epsilon=ADAGRAD_EPSILON)
        loss_fn = keras.losses.MeanSquaredError(reduction="none")
    dataset = strategy.distribute_datasets_from_function(train_input_fn)
    iterator = iter(dataset)

    @tf.function
    def train_step(iterator):
        def step_fn(features, labels):
            with tf.GradientTape() as tape:
                per_example_loss = loss_fn(labels, model(features, training=True))
                loss = tf.nn.compute_average_loss(per_example_loss)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return strategy.reduce(
            tf.distribute.ReduceOp.SUM, strategy.run(step_fn, args=next(iterator)), axis=None
        )

    tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    task = tf_config.get("task", {})
    is_chief = task.get("type", "chief") == "chief"
    ckpt_dir = a.model_dir if is_chief else tempfile.mkdtemp(prefix="worker_ckpt_")
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(checkpoint, ckpt_dir, max_to_keep=1)
    for step in range(a.steps):
        loss = train_step(iterator)
        if step % 50 == 0:
            print("step", step, "loss", float(loss), flush=True)
    manager.save(checkpoint_number=a.steps)


if __name__ == "__main__":
    main()
