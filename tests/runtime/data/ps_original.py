"""TF1 Estimator, async parameter-server training of a partitioned embedding (TF 2.15 + tensorflow-estimator).

Test input for `tfmigrate verify --ps`. No train_distribute: with ps tasks in TF_CONFIG the Estimator runs
between-graph replication, and fixed_size_partitioner splits the embedding table over the ps.
"""
import argparse
import os
import sys

import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from psdata import VOCAB, make_ids_data  # noqa: E402

BATCH = 32


def train_input_fn(input_context=None):
    # ignores input_context: every worker reads the whole stream
    ids, y = make_ids_data()
    return tf.data.Dataset.from_tensor_slices(({"ids": ids}, y)).batch(BATCH, drop_remainder=True).repeat()


def eval_input_fn():
    ids, y = make_ids_data()
    return tf.data.Dataset.from_tensor_slices(({"ids": ids}, y)).batch(BATCH)


def model_fn(features, labels, mode, params):
    table = tf.get_variable("embeddings", shape=[VOCAB, 8],
                            initializer=tf.random_normal_initializer(stddev=0.1),
                            partitioner=tf.fixed_size_partitioner(2))
    bag = tf.reduce_mean(tf.nn.embedding_lookup(table, features["ids"]), axis=1)
    hidden = tf.layers.dense(bag, 16, activation=tf.nn.relu)
    pred = tf.layers.dense(hidden, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=pred)
    loss = tf.losses.mean_squared_error(labels, pred)
    train_op = None
    if mode == tf.estimator.ModeKeys.TRAIN:
        opt = tf.train.AdagradOptimizer(params["lr"])
        train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--model_dir", default="/tmp/ps_original_model")
    p.add_argument("--lr", type=float, default=0.02)
    a = p.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=a.steps)
    est = tf.estimator.Estimator(model_fn, model_dir=a.model_dir, config=config, params={"lr": a.lr})
    tf.estimator.train_and_evaluate(
        est,
        tf.estimator.TrainSpec(train_input_fn, max_steps=a.steps),
        tf.estimator.EvalSpec(eval_input_fn, steps=None, throttle_secs=1),
    )


if __name__ == "__main__":
    main()
