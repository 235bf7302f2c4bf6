"""Estimator methods that read model_dir's checkpoint by the Estimator's TF1 variable names (get_variable_value,
get_variable_names, latest_checkpoint): not converted yet (issue #29). The migrated program's checkpoints are
tf.train.Checkpoint files of the Keras model, keyed by object path, so the TF1 names find nothing there; the message
says so and gives the exact reads of the migrated program."""
from __future__ import annotations

READS = {
    "get_variable_value": "read the migrated model's weight instead (`model.get_layer(...).kernel.numpy()`: a "
                          "weight's TF1 name is its path without the model's name, as Model.restore_estimator_checkpoint"
                          " reads the Estimator's checkpoints; global_step is `model.optimizer.iterations`)",
    "get_variable_names": "list the migrated model's weights instead (`[w.path for w in model.weights]`: a weight's "
                          "TF1 name is its path without the model's name; global_step is `model.optimizer.iterations`)",
    "latest_checkpoint": "`tf.train.latest_checkpoint(model_dir)` names the migrated program's newest checkpoint "
                         "(model.ckpt-<step>, written by EstimatorCheckpoints as the Estimator wrote its own)",
}


def message(method: str) -> str:
    return (f"estimator.{method}() is not converted yet: it read model_dir's latest checkpoint by the Estimator's "
            "TF1 variable names (`dense/kernel`, `global_step`), and the migrated program's checkpoints are "
            f"tf.train.Checkpoint files of the Keras model, keyed by object path; {READS[method]}")
