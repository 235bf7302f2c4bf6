"""Hand-written TF2 migration of regression_original.py, single process, Keras 3 compile + fit."""
import argparse
import os
import sys

import tensorflow as tf
import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from regdata import make_data  # noqa: E402

BATCH = 32


def train_input_fn():
    x, y = make_data()
    ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    return ds.batch(BATCH, drop_remainder=True).repeat()


class RegressionModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, name="dense")

    def call(self, features, training=False):
        return self.dense(features["x"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--model_dir", default="/tmp/regression_fit_model")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--no_eval", action="store_true")  # this migration never evaluates (the original's flag)
    a = p.parse_args()
    model = RegressionModel()
    model.compile(
        optimizer=keras.optimizers.Adagrad(a.lr, initial_accumulator_value=0.1, epsilon=0.0),
        loss=keras.losses.MeanSquaredError(),
    )
    ckpt = keras.callbacks.ModelCheckpoint(os.path.join(a.model_dir, "model.weights.h5"), save_weights_only=True)
    model.fit(train_input_fn(), epochs=1, steps_per_epoch=a.steps, callbacks=[ckpt], verbose=0)


if __name__ == "__main__":
    main()
