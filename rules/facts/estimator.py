"""TFM601 estimator driver: the Estimator API's signatures and RunConfig settings (rules/planners/driver.py converts).

What the driver converts: RunConfig / Estimator / TrainSpec / EvalSpec / train_and_evaluate / train / evaluate.

Within one function (or the module body), statement by statement:
- `config = RunConfig(...)`, `TrainSpec(...)`, `EvalSpec(...)` assignments are removed (their comments move to
  the next statement); their values feed the generated code.
- `est = Estimator(model_fn=..., config=..., params=...)` becomes the strategy (from `train_distribute`, or
  `--strategy`), the random seed (`tf_random_seed` → `keras.utils.set_random_seed`), and the model built in
  `strategy.scope()` (Keras target) or the generated custom-loop trainer (ctl target).
- `train_and_evaluate(est, train_spec, eval_spec)` → `fit` + `evaluate` (Keras) or `train` + `evaluate` (ctl);
  `est.train(input_fn, max_steps)` and `est.evaluate(input_fn, steps)` likewise.
Input functions keep their per-replica batches: `input_fn(input_context)` goes through
`strategy.distribute_datasets_from_function` with the same sharding, so every worker sees the batches it saw.
`est.predict(...)` after training in the same function → the migrated model's `predict_examples`.
Blocked: other uses of the estimator, hooks, exporters, warm starts, TrainSpec without max_steps,
input functions taking params/mode/config, RunConfig settings with no TF2 meaning.
"""
from __future__ import annotations


CODE = "TFM601"

RUN_CONFIG_ARGS = ["model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
               "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
               "train_distribute", "device_fn", "protocol", "eval_distribute", "experimental_distribute",
               "experimental_max_worker_delay_secs", "session_creation_timeout_secs", "checkpoint_save_graph_def"]
RUN_CONFIG_DROPPED = {  # settings with no effect on what is trained; dropped with a note
    "save_summary_steps": "summaries are not written (add keras.callbacks.TensorBoard if wanted)",
    "session_config": "TF2 has no session; use tf.config for threading/devices",
    "eval_distribute": "evaluation runs on each worker's own model copy",
    "experimental_max_worker_delay_secs": "TF2 workers start without a delay",
    "save_checkpoints_secs": "time-based checkpoints are not generated; the final checkpoint is still saved",
    "keep_checkpoint_every_n_hours": "not generated",
}
ESTIMATOR_ARGS = ["model_fn", "model_dir", "config", "params", "warm_start_from"]
TRAIN_SPEC_ARGS = ["input_fn", "max_steps", "hooks", "saving_listeners"]
EVAL_SPEC_ARGS = ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"]
TRAIN_ARGS = ["input_fn", "hooks", "steps", "max_steps", "saving_listeners"]
EVALUATE_ARGS = ["input_fn", "steps", "hooks", "checkpoint_path", "name"]
EXPORT_ARGS = ["export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text", "checkpoint_path",
           "experimental_mode"]
EXPORT_SAVEDMODEL_ARGS = ["export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text", "checkpoint_path",
                      "strip_default_attrs"]
PARSING_RECEIVER_ARGS = ["feature_spec", "default_batch_size"]
WARM_START_ARGS = ["ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info", "var_name_to_prev_var_name"]
PREDICT_ARGS = ["input_fn", "predict_keys", "hooks", "checkpoint_path", "yield_single_examples"]
