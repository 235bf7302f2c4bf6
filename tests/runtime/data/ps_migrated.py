"""Hand-written TF2 migration of ps_original.py: ParameterServerStrategy + ClusterCoordinator custom loop.

tf_keras, not Keras 3: Keras 3 has no ParameterServerStrategy support. Needs a cluster (TF_CONFIG with ps):
worker and ps tasks serve forever, the chief is the coordinator and the run is done when it exits.
"""
import argparse
import os
import sys

import tensorflow as tf
import tf_keras as keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from psdata import VOCAB, make_ids_data  # noqa: E402

BATCH = 32
STEPS_PER_SCHEDULE = 100  # steps scheduled before each coordinator.join()


def train_input_fn(input_context=None):
    # ignores input_context: every worker reads the whole stream
    ids, y = make_ids_data()
    return tf.data.Dataset.from_tensor_slices(({"ids": ids}, y)).batch(BATCH, drop_remainder=True).repeat()


def eval_input_fn():
    ids, y = make_ids_data()
    return tf.data.Dataset.from_tensor_slices(({"ids": ids}, y)).batch(BATCH)


VARIABLE_PARTITIONER = tf.distribute.experimental.partitioners.FixedShardsPartitioner(num_shards=2)


def tf1_mod_rows(ids, table, partitioner):
    """Rows of the full table that TF1's embedding_lookup(partition_strategy="mod") read for `ids`.

    TF1 read id i from shard i % n at row i // n; the n shards hold consecutive blocks of the table, the first
    (rows % n) blocks one row longer. tf.nn.embedding_lookup in TF2 reads row i of the full table.
    """
    rows = table.shape[0]
    num_shards = partitioner(tf.TensorShape(table.shape), tf.as_dtype(table.dtype))[0]
    shard = ids % num_shards
    return shard * (rows // num_shards) + tf.minimum(shard, rows % num_shards) + ids // num_shards


def make_strategy():
    """Workers and ps serve until killed; only the chief returns, as the coordinator."""
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver.task_type in ("worker", "ps"):
        server = tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                                      task_index=resolver.task_id, protocol=resolver.rpc_layer or "grpc",
                                      start=True)
        server.join()
    return tf.distribute.experimental.ParameterServerStrategy(resolver, variable_partitioner=VARIABLE_PARTITIONER)


class PsModel(keras.Model):
    def __init__(self, params):
        super().__init__()
        self.embeddings = self.add_weight(name="embeddings", shape=(VOCAB, 8),
                                          initializer=keras.initializers.RandomNormal(stddev=0.1))
        self.dense = keras.layers.Dense(16, activation="relu", name="dense")
        self.dense_1 = keras.layers.Dense(1, name="dense_1")

    def call(self, features, training=False):
        ids = tf1_mod_rows(features["ids"], self.embeddings, VARIABLE_PARTITIONER)
        bag = tf.reduce_mean(tf.nn.embedding_lookup(self.embeddings, ids), axis=1)
        return self.dense_1(self.dense(bag))


def main(lr_scale=1.0, loss_kind="mse"):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--model_dir", default="/tmp/ps_migrated_model")
    p.add_argument("--lr", type=float, default=0.02)
    a = p.parse_args()
    lr = a.lr * lr_scale

    strategy = make_strategy()
    with strategy.scope():
        model = PsModel({})
        optimizer = keras.optimizers.Adagrad(lr, initial_accumulator_value=0.1, epsilon=0.0)
        # Keras layers build on first call: create every variable on the ps now, inside the scope
        model(next(iter(train_input_fn()))[0])

    def per_example_loss(labels, pred):
        if loss_kind == "mae":
            return tf.reduce_mean(tf.abs(labels - pred), axis=-1)
        return tf.reduce_mean(tf.square(labels - pred), axis=-1)

    @tf.function
    def train_step(iterator):
        def step_fn(features, labels):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(per_example_loss(labels, model(features, training=True)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return strategy.run(step_fn, args=next(iterator))

    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    dataset = coordinator.create_per_worker_dataset(
        lambda: strategy.distribute_datasets_from_function(train_input_fn))
    iterator = iter(dataset)
    while int(optimizer.iterations.numpy()) < a.steps:
        for _ in range(min(STEPS_PER_SCHEDULE, a.steps - int(optimizer.iterations.numpy()))):
            coordinator.schedule(train_step, args=(iterator,))
        coordinator.join()

    # only the chief (coordinator) gets here: workers and ps are in server.join()
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    tf.train.CheckpointManager(checkpoint, a.model_dir, max_to_keep=1).save(checkpoint_number=a.steps)

    losses = [float(tf.nn.compute_average_loss(per_example_loss(labels, model(feats))))  # eval: not a step
              for feats, labels in eval_input_fn()]
    print("eval loss", sum(losses) / len(losses), "after", int(optimizer.iterations.numpy()), "steps", flush=True)

if __name__ == "__main__":
    main()
