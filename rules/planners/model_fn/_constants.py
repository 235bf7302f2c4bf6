"""The words the model_fn modules share: the rule's code, builtins, the modes, keras.Model's attributes."""
from __future__ import annotations

import builtins

CODE = "TFM501"
BUILTINS = frozenset(dir(builtins))
# attribute names keras.Model already uses; a layer variable with one of these names gets a `_layer` suffix
MODEL_ATTRIBUTES = frozenset({
    "input", "inputs", "output", "outputs", "layers", "weights", "variables", "trainable_variables", "losses",
    "metrics", "name", "trainable", "dtype", "built", "optimizer", "loss", "params", "call", "build", "compile",
    "fit", "evaluate", "predict", "predictions", "summary", "save", "get_config", "state", "compute_loss",
    "test_step", "summaries", "summary_writer", "summary_steps", "summary_hooks", "summary_hook_writers",
})
MODES = ("TRAIN", "EVAL", "PREDICT")
ALL_MODES = frozenset(MODES)

# EstimatorSpec's parameters, in order
SPEC_ARGS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
             "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"]
