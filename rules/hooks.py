"""TFM611 session-run hooks: what each SessionRunHook becomes, wherever the program attaches it.

Hooks reach an Estimator through `est.train(hooks=...)`, `TrainSpec(hooks=...)`, `EvalSpec(hooks=...)` and the
model_fn's `EstimatorSpec(training_hooks=..., training_chief_hooks=..., evaluation_hooks=...)`: a list or tuple
of hook constructor calls, inline or assigned to names first.

Converted, exactly:
- `StopAtStepHook(last_step=N)` on training: training stops at global step N, so the migrated training runs to
  `min(max_steps, N)` (`N` alone without max_steps). `StopAtStepHook(num_steps=N)`: N steps from the step
  training starts at, like `train(steps=N)` (the same on a fresh model_dir; noted).

Dropped with a note (they observe training and change nothing in it; the note says the Keras way to get the
same output):
- `LoggingTensorHook` (Keras prints the loss and metrics; a `keras.callbacks.LambdaCallback` logs other values),
- `StepCounterHook` (Keras prints steps per second with its progress bar),
- `SummarySaverHook` (`keras.callbacks.TensorBoard` writes summaries),
- `ProfilerHook` (`keras.callbacks.TensorBoard(profile_batch=...)` or `tf.profiler.experimental`).

Blocked, with the hook named at its line: `NanTensorHook` (TF1 raises on a NaN loss; `keras.callbacks.TerminateOnNaN`
stops without raising, which is not the same program), `CheckpointSaverHook` (checkpoints come from
RunConfig(save_checkpoints_steps)), `FinalOpsHook`, `FeedFnHook`, `GlobalStepWaiterHook`, `ProfilerHook` with
`show_dataflow`/`show_memory` settings alike, every user-written `SessionRunHook` subclass and hooks from other
libraries (Horovod, tf.contrib early stopping): their `before_run`/`after_run` read graph tensors the Keras model
does not have. A StopAtStepHook on evaluation or prediction is blocked too.

Why exact: the dropped hooks only read values and write logs; what training computes is the same without them
(fixtures/observing_hooks verifies it step by step); StopAtStepHook only decides the number of steps.

Example (fixtures/observing_hooks):

    watch = [tf.estimator.StopAtStepHook(last_step=STOP_AT), tf.estimator.StepCounterHook(every_n_steps=50)]
    train_spec = tf.estimator.TrainSpec(input_fn=..., max_steps=args.steps, hooks=watch)
    →
    est.fit(..., epochs=1, steps_per_epoch=min(args.steps, STOP_AT), callbacks=[...])
    note: TFM611 StepCounterHook dropped: it only observes training (Keras reports the time per step ...)
"""
from __future__ import annotations

CODE = "TFM611"

# hook → what the user can do to get its output in TF2 (the hook itself is dropped with this note)
OBSERVING = {
    "LoggingTensorHook": "Keras prints the loss and metrics while it trains; log other values with a "
                         "keras.callbacks.LambdaCallback",
    "StepCounterHook": "Keras reports the time per step in its progress output",
    "SummarySaverHook": "write summaries with keras.callbacks.TensorBoard",
    "ProfilerHook": "profile with keras.callbacks.TensorBoard(profile_batch=...) or tf.profiler.experimental",
}
STOP = "StopAtStepHook"
_NAMESPACES = ("train.", "estimator.")
_BLOCKED = {
    "NanTensorHook": "TF1 raised NanLossDuringTrainingError on a NaN loss; keras.callbacks.TerminateOnNaN stops "
                     "without raising, which is not the same program",
    "CheckpointSaverHook": "set RunConfig(save_checkpoints_steps=...) instead; the migrated program checkpoints "
                           "from it",
}


def hook_kind(path: str | None) -> str | None:
    """The hook class name of a tf path (`train.LoggingTensorHook`, `estimator.StopAtStepHook`), else None."""
    if not path:
        return None
    for namespace in _NAMESPACES:
        if path.startswith(namespace) and path[len(namespace):].endswith("Hook") and "." not in path[len(namespace):]:
            return path[len(namespace):]
    return None


def dropped_note(kind: str) -> str:
    return f"{kind} dropped: it only observes training ({OBSERVING[kind]})"


def blocked_message(kind: str | None, text: str) -> str:
    if kind in _BLOCKED:
        return f"{kind} is not converted: {_BLOCKED[kind]}"
    if kind is not None:
        return f"{kind} is not converted yet"
    return (f"hook `{text[:60]}` is not converted: a SessionRunHook reads graph tensors in before_run/after_run "
            "that the Keras model does not have; rewrite it as a keras.callbacks.Callback")
