"""TF1 Estimator linear regression (TF 2.15 + tensorflow-estimator). Test input for `tfmigrate verify`."""
import argparse
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from regdata import make_data  # noqa: E402

BATCH = 32


def train_input_fn(input_context=None):
    x, y = make_data()
    ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    if input_context is not None and input_context.num_input_pipelines > 1:
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    return ds.batch(BATCH, drop_remainder=True).repeat()


def eval_input_fn():
    x, y = make_data()
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(BATCH)


def model_fn(features, labels, mode, params):
    pred = tf.compat.v1.layers.dense(features["x"], 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=pred)
    loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
    train_op = None
    if mode == tf.estimator.ModeKeys.TRAIN:
        opt = tf.compat.v1.train.AdagradOptimizer(params["lr"])
        train_op = opt.minimize(loss, global_step=tf.compat.v1.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--model_dir", default="/tmp/regression_original_model")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--no_eval", action="store_true", help="train only (one process), for migrations that do not evaluate")
    a = p.parse_args()
    strategy = None
    if os.environ.get("TF_CONFIG"):
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    config = tf.estimator.RunConfig(
        tf_random_seed=42, save_checkpoints_steps=a.steps, train_distribute=strategy
    )
    est = tf.estimator.Estimator(model_fn, model_dir=a.model_dir, config=config, params={"lr": a.lr})
    if a.no_eval:  # verify compares evaluate() too: a migration that does not evaluate pairs with this
        est.train(train_input_fn, max_steps=a.steps)
        return
    tf.estimator.train_and_evaluate(
        est,
        tf.estimator.TrainSpec(train_input_fn, max_steps=a.steps),
        tf.estimator.EvalSpec(eval_input_fn, steps=None, throttle_secs=1),
    )


if __name__ == "__main__":
    main()
