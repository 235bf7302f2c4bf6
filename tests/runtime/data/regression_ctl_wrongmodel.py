"""A wrong migration whose model has no counterpart in the original checkpoint (hidden layer of 4 units)."""
import os
import sys

import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regression_ctl  # noqa: E402


class WrongModel(keras.Model):
    def __init__(self, params):
        super().__init__()
        self.hidden = keras.layers.Dense(4, name="hidden")
        self.dense = keras.layers.Dense(1, name="dense")

    def call(self, features, training=False):
        return self.dense(self.hidden(features["x"]))


if __name__ == "__main__":
    regression_ctl.RegressionModel = WrongModel
    regression_ctl.main()
