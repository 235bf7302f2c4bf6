"""TFM611 hooks attached to an Estimator's training, evaluation and prediction (rules/planners/hooks.py): observing hooks
are dropped with a note, StopAtStepHook becomes the step training stops at, a user-written SessionRunHook holding
Python state only becomes a keras.callbacks.Callback (Keras target), every other hook blocks by name."""
from __future__ import annotations

import ast
import re
import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite, section

TRAIN = "est.train(input_fn=train_input_fn, {hooks}max_steps=10)\n"


def drive(hooks: str, extra_lines: str = "") -> str:
    return textwrap.dedent(extra_lines) + TRAIN.format(hooks=f"hooks={hooks}, " if hooks else "")


def notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "TFM611"]


@pytest.mark.parametrize("hook, kind", [
    ('tf.estimator.ProfilerHook(save_steps=5, output_dir="/tmp/p")', "ProfilerHook"),
])
def test_observing_hooks_are_dropped_with_a_note(hook, kind):
    result = rewrite(program(drive=drive(f"[{hook}]")))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert any(n.startswith(f"{kind} dropped: it only observes training") for n in notes(result))
    assert "Hook" not in result.output.decode()


def test_named_hooks_and_hook_lists_go_with_the_training_call():
    src = program(drive=drive("hooks", '''
    logging_hook = tf.compat.v1.train.LoggingTensorHook({"loss": "loss"}, every_n_iter=5)
    hooks = [logging_hook]
    '''))
    out = converted(src)
    assert "logging_hook" not in out and "hooks = " not in out


@pytest.mark.parametrize("hook, steps", [
    ("tf.estimator.StopAtStepHook(last_step=6)", "steps_per_epoch=min(10, 6) - initial_step"),
    # num_steps counts from the step training resumes at
    ("tf.compat.v1.train.StopAtStepHook(num_steps=4)", "steps_per_epoch=min(10, initial_step + 4) - initial_step"),
])
def test_stop_at_step_hook_bounds_the_training_steps(hook, steps):
    out = converted(program(drive=drive(f"[{hook}]")))
    assert steps in out


def test_stop_at_step_hook_in_train_spec_without_max_steps():
    out = converted(program(drive="""
    train_spec = tf.estimator.TrainSpec(train_input_fn, hooks=[tf.estimator.StopAtStepHook(last_step=7)])
    tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(eval_input_fn, steps=2))
    """), target="ctl")
    assert "est.train(lambda input_context: train_input_fn(), max_steps=7)" in out


def test_eval_and_predict_observing_hooks_dropped():
    src = program(drive="""
    hook = tf.estimator.LoggingTensorHook({"loss": "loss"}, every_n_iter=1)
    train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=10)
    tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(eval_input_fn, steps=2, hooks=[hook]))
    est.evaluate(eval_input_fn, hooks=[hook])
    """)
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert len(notes(result)) == 1  # one note per hook, however often it is attached


@pytest.mark.parametrize("hook, words", [
    ("tf.compat.v1.train.NanTensorHook(loss)", "NanTensorHook is not converted: attached outside the model_fn"),
    ('tf.estimator.CheckpointSaverHook("/tmp/c", save_secs=5)', "checkpoints by wall time land on other steps"),
    ("MyHook()", "hook MyHook.after_run uses `run_values`: a SessionRunArgs fetch is not converted"),
    ("tf.estimator.StopAtStepHook(num_steps=2, last_step=3)", "exactly one of num_steps or last_step"),
])
def test_other_hooks_block_by_name(hook, words):
    extra = '''
    class MyHook(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            print("step", run_values.results)

    loss = None
    '''
    result = blocked(program(drive=drive(f"[{hook}]"), extra=extra))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_hooks_from_a_value_tfmigrate_cannot_follow_block():
    src = program(drive=drive("make_hooks()"), extra="def make_hooks():\n    return list(HOOKS)\n\nHOOKS = []")
    result = blocked(src)
    assert any(d.code == "TFM611" for d in result.diagnostics)


@pytest.mark.parametrize("drive_code", [
    "est.train(train_input_fn, max_steps=5)\nest.train(train_input_fn, max_steps=10)\n",
    "for _ in range(3):\n    est.train(train_input_fn, steps=5)\n    est.evaluate(eval_input_fn)\n",
])
def test_training_more_than_once_is_blocked(drive_code):
    # on the custom loop; the Keras target carries the step over (tests/rewrite/test_train_rounds.py)
    result = blocked(program(drive=drive_code), target="ctl")
    assert any("global step the previous one reached" in d.message for d in result.diagnostics)


def test_empty_hook_lists_are_no_hooks():
    out = converted(program(drive="est.train(input_fn=train_input_fn, max_steps=5, hooks=[])\n"))
    assert "hooks" not in out


def test_model_fn_training_and_evaluation_hooks_that_observe_are_dropped():
    body = '''
    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        logging_hook = tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=10)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op, training_hooks=[logging_hook],
            evaluation_hooks=[tf.compat.v1.train.SummarySaverHook(save_steps=1, output_dir="/tmp/s",
                                                                  summary_op=None)])
    '''
    result = rewrite(program(body))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert {n.split(" ")[0] for n in notes(result)} == {"LoggingTensorHook", "SummarySaverHook"}
    # the LoggingTensorHook is converted (tests/rewrite/test_logging_hook.py), the SummarySaverHook dropped
    assert "LoggingTensorHook(" not in result.output.decode() and "SummarySaverHook(" not in result.output.decode()


def nan_model_fn(hooks: str, before: str = "") -> str:
    """A model_fn attaching `hooks` (EstimatorSpec keyword arguments), with `before` after its train_op."""
    return textwrap.dedent('''
    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    {before}
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, {hooks})
    ''').format(before=textwrap.indent(textwrap.dedent(before).strip("\n"), "    "), hooks=hooks)


# NanTensorHook(loss): the Estimator raised NanLossDuringTrainingError after the first step whose loss was NaN (its
# own NanTensorHook(loss) too, so fail_on_nan_loss=False changed nothing; measured on TF 2.15)
@pytest.mark.parametrize("hooks, before, flag", [
    ("training_hooks=[tf.compat.v1.train.NanTensorHook(loss)]", "", None),
    ("training_hooks=[nan_hook]", "nan_hook = tf.compat.v1.train.NanTensorHook(loss, fail_on_nan_loss=False)",
     "False"),
    ("training_chief_hooks=[tf.estimator.NanTensorHook(loss_tensor=loss)]", "", None),
    ("training_hooks=[guard, logging_hook]", '''
     guard = tf.compat.v1.train.NanTensorHook(loss, True)
     logging_hook = tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=10)
     ''', None),
])
def test_a_nan_tensor_hook_on_the_loss_raises_the_estimators_error_in_fit(hooks, before, flag):
    result = rewrite(program(nan_model_fn(hooks, before)))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert "class NanLossCheck(keras.callbacks.Callback):" in out
    assert "raise tf.compat.v1.train.NanLossDuringTrainingError" in out
    assert 'tf.get_logger().error("Model diverged with loss = NaN.")' in out
    assert "TerminateOnNaN" not in out and "NanTensorHook" not in out
    # the last callback: TF1 ran the chief's checkpoint hook before it (the step's checkpoint is written)
    fit = section(out, ".fit(", "\n\n")
    assert fit.index("EstimatorCheckpoints(") < fit.index("NanLossCheck()")
    note = [n for n in notes(result) if n.startswith("NanTensorHook converted")]
    assert len(note) == 1 and "NanLossDuringTrainingError" in note[0]
    assert (f"fail_on_nan_loss={flag} changed nothing" in note[0]) == (flag is not None)


def test_a_nan_tensor_hook_in_the_custom_loop_raises_after_the_step_and_its_checkpoint():
    out = converted(program(nan_model_fn("training_hooks=[tf.compat.v1.train.NanTensorHook(loss)]")), target="ctl")
    loop = section(out, "        while step < max_steps:", "    def evaluate")
    assert "loss_value = float(loss)" in loop
    assert loop.index("self._save(manager, step)") < loop.index("if loss_value != loss_value:") \
        < loop.index("raise tf.compat.v1.train.NanLossDuringTrainingError")
    # the Estimator's loss log line of that step never printed: it comes after the check
    assert loop.index("raise tf.compat.v1.train.NanLossDuringTrainingError") \
        < loop.index("self._log_step(clock, step, loss)")
    assert "class NanLossCheck" not in out


# Without any hook: the Estimator added NanTensorHook(loss) to every training itself (TF 2.15 estimator.py
# _train_with_estimator_spec), so the migrated training raises the same error after the same step
@pytest.mark.parametrize("drive_code", [
    "est.train(train_input_fn, max_steps=10)\n",
    "tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train_input_fn, max_steps=10),\n"
    "                                tf.estimator.EvalSpec(eval_input_fn, steps=2))\n",
])
def test_without_a_nan_tensor_hook_the_estimators_own_check_is_kept(drive_code):
    out = converted(program(drive=drive_code))
    assert out.count("class NanLossCheck(keras.callbacks.Callback):") == 1
    fit = section(out, ".fit(", "\n\n")
    assert "NanLossCheck()]" in "".join(fit.split())  # the last callback
    loop = section(converted(program(drive=drive_code), target="ctl"), "        while step < max_steps:",
                   "    def evaluate")
    assert "if loss_value != loss_value:" in loop and "raise tf.compat.v1.train.NanLossDuringTrainingError" in loop


def test_a_name_nan_loss_check_of_the_training_file_blocks():
    result = blocked(program(extra="class NanLossCheck:\n    pass\n"))
    assert any(d.code == "TFM611" and "`NanLossCheck` is taken in this module" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("hooks, before, words", [
    ("evaluation_hooks=[tf.compat.v1.train.NanTensorHook(loss)]", "",
     "NanTensorHook in EstimatorSpec(evaluation_hooks=...) is not converted"),
    ("training_hooks=[tf.compat.v1.train.NanTensorHook(logits)]", "",
     "NanTensorHook(logits) is converted on the loss the model_fn returns"),
    ("training_hooks=[h]", "h = tf.compat.v1.train.NanTensorHook(tf.reduce_sum(logits))",
     "NanTensorHook(tf.reduce_sum(logits)) is converted on the loss"),
])
def test_a_nan_tensor_hook_on_other_tensors_or_on_evaluation_blocks(hooks, before, words):
    result = blocked(program(nan_model_fn(hooks, before)))
    assert any(d.code == "TFM611" and words in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


NAN_HELPER = """
def make_hooks():
    return [tf.compat.v1.train.NanTensorHook("loss:0")]
"""


@pytest.mark.parametrize("drive_code", [
    'est.train(train_input_fn, hooks=[tf.compat.v1.train.NanTensorHook("loss:0")], max_steps=10)\n',
    "train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=10, hooks=make_hooks())\n"
    "tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(eval_input_fn, steps=2))\n",
])
def test_a_nan_tensor_hook_attached_outside_the_model_fn_blocks_with_what_to_do(drive_code):
    result = blocked(program(drive=drive_code, extra=NAN_HELPER))
    assert any(d.code == "TFM611" and "attached outside the model_fn" in d.message
               and "EstimatorSpec(training_hooks=[...])" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


# ---- checkpoints: RunConfig(save_checkpoints_steps) ----------------------------------------------------------------
def test_keras_fit_writes_the_estimators_checkpoints():
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/c", save_checkpoints_steps=4, keep_checkpoint_max=3)'
    result = rewrite(program(run_config=config, drive="est.train(train_input_fn, max_steps=10)\n"))
    out = result.output.decode()
    assert 'EstimatorCheckpoints("/tmp/c", save_steps=4, keep_checkpoint_max=3)' in out
    assert "keras.callbacks.BackupAndRestore(" not in out
    assert not any("keep_checkpoint_max" in d.message for d in result.diagnostics)  # kept, not dropped
    callback = section(out, "class EstimatorCheckpoints", "\ndef ")
    # the first step, every save_steps after the last save, the last step: TF1's CheckpointSaverHook
    assert "self.save(self.last)" in section(callback, "def on_train_begin", "def on_")
    assert "step >= self.last + self.save_steps" in callback and "if step != self.last:" in callback
    assert 'basename="model.ckpt"' in callback


def test_the_custom_loop_saves_the_first_step_and_counts_from_the_last_save():
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/c", save_checkpoints_steps=4)'
    out = converted(program(run_config=config, drive="est.train(train_input_fn, max_steps=10)\n"), target="ctl")
    assert 'checkpoint_name="model.ckpt"' in out
    train = section(out, "    def train(", "    def evaluate")
    assert "if manager and (max_steps is None or step < max_steps):\n            self._save(manager, step)" \
        in train
    assert "step >= saved + self.save_checkpoints_steps" in train and "if step != saved:" in train
    assert "% self.save_checkpoints_steps" not in train


# ---- user-written SessionRunHook subclasses → keras callbacks ---------------------------------------------------
COUNTER = """
import time


class CountHook(tf.estimator.SessionRunHook):
    \"\"\"Counts steps, times training, stops after `limit` steps.\"\"\"

    def __init__(self, limit):
        self.limit, self.count = limit, 0

    def begin(self):
        self.started = time.time()

    def before_run(self, run_context):
        if self.count + 1 >= self.limit:
            run_context.request_stop()

    def after_run(self, run_context, run_values):
        self.count += 1

    def end(self, session):
        print("steps", self.count, "seconds", time.time() - self.started)
"""


def method_names(text: str, cls: str) -> list[str]:
    body = section(text, f"class {cls}", "def train_input_fn")
    return [line.split("(")[0].split()[-1] for line in body.splitlines() if line.startswith("    def ")]


OWN_SAVER = r"callbacks=\[\s*(?:EstimatorCheckpoints\([^)]*\),\s*)?"  # fit's callbacks, the Estimator's saver first


@pytest.mark.parametrize("drive_code, attached", [
    # a name holding the instance stays: the program reads it after training
    ("counter = CountHook(4)\nest.train(train_input_fn, hooks=[counter], max_steps=10)\nprint(counter.count)\n",
     "counter,"),
    # inline in TrainSpec(hooks=) next to a LoggingTensorHook (dropped with its note)
    ("train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=10, hooks=[\n"
     "    CountHook(limit=4), tf.compat.v1.train.LoggingTensorHook({'loss': 'loss'}, every_n_iter=2)])\n"
     "tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(eval_input_fn, steps=2))\n",
     "CountHook(limit=4),"),
    # built by a helper that returns the instance
    ("est.train(input_fn=train_input_fn, hooks=[make_hook()], max_steps=10)\n", "make_hook(),"),
    # a hooks list built by a helper
    ("est.train(input_fn=train_input_fn, hooks=make_hooks(), max_steps=10)\n", "CountHook(4),"),
])
def test_a_session_run_hook_subclass_becomes_a_keras_callback(drive_code, attached):
    extra = COUNTER + "\n\ndef make_hook():\n    return CountHook(4)\n\n\ndef make_hooks():\n    return [CountHook(4)]\n"
    out = converted(program(drive=drive_code, extra=extra))
    assert "class CountHook(keras.callbacks.Callback):" in out
    assert method_names(out, "CountHook") == ["__init__", "on_train_begin", "on_train_batch_begin",
                                              "on_train_batch_end", "on_train_end"]
    assert "def on_train_batch_end(self, batch, logs=None):" in out
    assert "run_context" not in out and "session" not in out and "SessionRunHook" not in out
    assert "            self.model.stop_training = True\n" in out  # request_stop(), where it was
    # after the Estimator's own checkpoint saver, which TF1 ran first (a chief-only hook), then the program's hooks
    assert re.search(OWN_SAVER + re.escape(attached), out), out[out.index("est.fit("):][:400]
    if "counter = " in drive_code:
        assert "    counter = CountHook(4)\n" in out and "print(counter.count)" in out


def test_begin_and_after_create_session_both_run_at_train_begin_in_order():
    extra = (
        "class ReadyHook(tf.compat.v1.train.SessionRunHook):\n"
        "    def begin(self):\n"
        "        self.log = ['begin']\n\n"
        "    def after_create_session(self, session, coord):\n"
        "        self.log.append('session')\n")
    out = converted(program(drive="est.train(train_input_fn, hooks=[ReadyHook()], max_steps=3)\n", extra=extra))
    assert method_names(out, "ReadyHook") == ["begin", "on_train_begin"]
    assert "def on_train_begin(self, logs=None):\n        self.begin()\n        self.log.append('session')" in out


def test_a_hook_class_in_another_module_converts_with_the_program(tmp_path):
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "watch.py").write_text("import tensorflow as tf\n" + COUNTER)
    (pkg / "task.py").write_text(program(extra="from trainer import watch\n", drive=(
        "train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=10, hooks=[watch.CountHook(4)])\n"
        "tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(eval_input_fn, steps=2))\n")))
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert results["task.py"].status == "changed", [d.format() for d in results["task.py"].diagnostics]
    assert results["watch.py"].status == "changed", [d.format() for d in results["watch.py"].diagnostics]
    watch = results["watch.py"].output.decode()
    assert "class CountHook(keras.callbacks.Callback):" in watch and "import keras" in watch
    assert re.search(OWN_SAVER + r"watch\.CountHook\(4\),", results["task.py"].output.decode())


BODY = """
class StopHook(tf.estimator.SessionRunHook):
    def __init__(self, loss=None):
        self.loss, self.steps = loss, 0

{method}
"""


@pytest.mark.parametrize("method, words", [
    # a fetch: Keras logs hold the epoch's running mean of the loss, not this step's value
    ("    def before_run(self, run_context):\n        return tf.estimator.SessionRunArgs(self.loss)\n",
     "a SessionRunArgs fetch is not converted: Keras gives a callback the running mean"),
    ("    def after_run(self, run_context, run_values):\n        if run_values.results < 0.1:\n"
     "            run_context.request_stop()\n", "uses `run_values`: a SessionRunArgs fetch"),
    ("    def begin(self):\n        self.step = tf.compat.v1.train.get_global_step()\n",
     "uses tf.compat.v1.train.get_global_step"),
    ("    def after_create_session(self, session, coord):\n        print(session.run('w:0'))\n",
     "uses `session`: a Keras callback has no session"),
    ("    def after_run(self, run_context, run_values):\n        run_context.session.run('loss:0')\n",
     "only run_context.request_stop() (as a statement) is converted"),
    ("    def after_run(self, run_context, run_values):\n        self.model = 3\n",
     "uses `self.model`, which keras.callbacks.Callback sets itself"),
    ("    def after_run(self, run_context, run_values):\n        g = tf.compat.v1.get_default_graph()\n",
     "uses tf.compat.v1.get_default_graph"),
])
def test_hook_bodies_a_callback_cannot_supply_block_at_their_line(method, words):
    src = program(drive="est.train(train_input_fn, hooks=[StopHook()], max_steps=10)\n",
                  extra=BODY.format(method=method))
    result = blocked(src)
    hits = [d for d in result.diagnostics if d.code == "TFM611" and words.replace("tf.compat.v1.", "tf.") in
            d.message.replace("tf.compat.v1.", "tf.")]
    assert hits, [d.format() for d in result.diagnostics]
    line = src.splitlines()[hits[0].line - 1]
    assert line.strip() and not line.strip().startswith("est.train"), line  # the hook's own line


def test_a_user_hook_on_evaluation_or_in_model_fn_blocks():
    result = blocked(program(drive="est.train(train_input_fn, max_steps=3)\n"
                                   "est.evaluate(eval_input_fn, hooks=[CountHook(2)])\n", extra=COUNTER))
    assert any("converted on training only" in d.message for d in result.diagnostics)
    body = (
        "def model_fn(features, labels, mode, params):\n"
        "    logits = tf.compat.v1.layers.dense(features['x'], 1)\n"
        "    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)\n"
        "    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)\n"
        "    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())\n"
        "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[CountHook(2)])\n")
    result = blocked(program(body, extra=COUNTER))
    assert any(d.code == "TFM611" and "CountHook(2)" in d.message for d in result.diagnostics)


def test_the_custom_loop_calls_the_callbacks_where_the_estimator_called_the_hooks():
    out = converted(program(drive="est.train(train_input_fn, hooks=[CountHook(2)], max_steps=3)\n", extra=COUNTER),
                    target="ctl")
    assert "est.train(lambda input_context: train_input_fn(), max_steps=3, callbacks=[CountHook(2)])" in out
    loop = section(out, "    def train(self, dataset_fn, max_steps, callbacks=()):", "    def evaluate(")
    order = ["callback.set_model(model)", "callback.on_train_begin()", "callback.on_train_batch_begin(batch)",
             "loss = train_step(iterator)", "callback.on_train_batch_end(batch)", "if model.stop_training:",
             "self._save(manager, step)\n            if write_dir", "callback.on_train_end()"]
    positions = [loop.find(text) for text in order]
    assert -1 not in positions and positions == sorted(positions), list(zip(order, positions))
    # max_steps reached already: the Estimator skipped training and its hooks
    assert "callbacks = list(callbacks) if max_steps is None or step < max_steps else []" in loop


def test_programs_without_user_hooks_keep_the_loop_without_callbacks():
    out = converted(program(drive="est.train(train_input_fn, max_steps=3)\n"), target="ctl")
    assert "callback" not in out


def test_a_user_hook_blocks_under_parameter_servers_with_what_to_do():
    result = blocked(program(drive="est.train(train_input_fn, hooks=[CountHook(2)], max_steps=3)\n", extra=COUNTER),
                     strategy="parameter-server")
    assert any("not by the canned or parameter-server training loop yet" in d.message and "--target keras" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_a_hook_class_another_class_derives_from_blocks():
    extra = COUNTER + "\n\nclass LoudHook(CountHook):\n    def after_run(self, run_context, run_values):\n        print('x')\n"
    result = blocked(program(drive="est.train(train_input_fn, hooks=[CountHook(2)], max_steps=3)\n", extra=extra))
    assert any("LoudHook does" in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_model_fn_summaries_note_what_the_estimator_wrote():
    """A summary of a hidden layer is not converted (tests/rewrite/test_summaries.py): the note says the tags went to
    model_dir at steps 1, 1+N, ... (measured on TF 2.15)."""
    result = rewrite(program(middle='tf.compat.v1.summary.scalar("mean_out", tf.reduce_mean(net))\n'))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    (note,) = [d.message for d in result.diagnostics if "summary" in d.message]
    assert 'summary "mean_out" dropped' in note and "global steps 1, 1+N, 1+2N" in note and "save_summary_steps" in note


CANNED = '''import tensorflow as tf


class CountHook(tf.estimator.SessionRunHook):
    def __init__(self):
        self.n = 0

    def after_run(self, run_context, run_values):
        self.n += 1


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0]]}, [[1.0], [0.0]])).repeat().batch(2)


def main():
    cols = [tf.feature_column.numeric_column("x")]
    est = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols, model_dir="/tmp/tfm-test")
    hook = CountHook()
    est.train(input_fn, hooks=[hook], max_steps=5)
    print(hook.n)
'''


def test_a_canned_estimators_user_hook_converts_for_fit_and_blocks_on_its_custom_loop():
    out = converted(CANNED, target="keras")
    assert "class CountHook(keras.callbacks.Callback):" in out and re.search(OWN_SAVER + "hook,", out)
    result = blocked(CANNED, target="ctl")
    assert any("not by the canned or parameter-server training loop yet" in d.message for d in result.diagnostics)


def _hook_module_program(tmp_path, import_line: str, hooks_expr: str, extra_use: str = ""):
    """The hooks live in a module of their own, imported by the driver (a trainer package's layout)."""
    from tfmigrate.engine import Options, migrate_paths

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "watch.py").write_text(
        "import tensorflow as tf\n\n"
        "# print the loss now and then\n"
        'loss_hook = tf.compat.v1.train.LoggingTensorHook({"loss": "loss"}, every_n_iter=5)\n'
        "watch_hooks = [loss_hook]\n")
    src = program(drive=drive(hooks_expr) + extra_use)
    src = src.replace("import tensorflow as tf\n", f"import tensorflow as tf\n{import_line}\n", 1)
    (pkg / "task.py").write_text(src)
    return migrate_paths([pkg / "task.py", pkg / "watch.py", pkg / "__init__.py"], Options(), jobs=1)


@pytest.mark.parametrize("import_line, hooks_expr", [
    ("from trainer.watch import watch_hooks", "watch_hooks"),
    ("from trainer.watch import loss_hook, watch_hooks", "watch_hooks"),
    ("from .watch import watch_hooks as hooks", "hooks"),
])
def test_hooks_defined_in_another_module_go_with_their_import(tmp_path, import_line, hooks_expr):
    """Dropping a hook list defined in another file drops the driver's import of it too: a converted package
    whose driver imports a name its sibling no longer defines would not even import."""
    task, watch, _ = _hook_module_program(tmp_path, import_line, hooks_expr)
    assert task.status == "changed" and watch.status == "changed", \
        [d.format() for r in (task, watch) for d in r.diagnostics]
    task_out, watch_out = task.output.decode(), watch.output.decode()
    assert "watch" not in task_out and "Hook" not in watch_out
    ast.parse(task_out)


def test_a_hook_module_name_read_elsewhere_keeps_its_definition(tmp_path):
    """`print(watch_hooks)` still reads the list after the conversion: it is not deleted from under the reader;
    the hook itself is TF1 and blocks there, named."""
    task, watch, _ = _hook_module_program(tmp_path, "from trainer.watch import watch_hooks", "watch_hooks",
                                          "print(watch_hooks)\n")
    assert task.status != "changed" and watch.status != "changed"
    assert any(d.code == "TFM601" and "loss_hook" in d.message and d.path.endswith("watch.py") for r in (task, watch) for d in r.diagnostics), \
        [d.format() for r in (task, watch) for d in r.diagnostics]


@pytest.mark.parametrize("import_line, hooks_expr", [
    ("import trainer.watch as w", "w.watch_hooks"),
    ("from trainer import watch", "watch.watch_hooks"),
])
def test_hooks_read_through_their_module_go_with_the_converted_call(tmp_path, import_line, hooks_expr):
    """`hooks=w.watch_hooks`: the only read of the list is in the converted call, so its definition goes; the module
    import stays (the module still exists). Read again elsewhere (`print(w.watch_hooks)`), it is kept and blocks."""
    task, watch, _ = _hook_module_program(tmp_path, import_line, hooks_expr)
    assert (task.status, watch.status) == ("changed", "changed"), \
        [d.format() for r in (task, watch) for d in r.diagnostics]
    assert "Hook" not in watch.output.decode() and hooks_expr not in task.output.decode()
    ast.parse(task.output.decode())
    (tmp_path / "again").mkdir()
    task, watch, _ = _hook_module_program(tmp_path / "again", import_line, hooks_expr, f"print({hooks_expr})\n")
    assert task.status != "changed" and watch.status != "changed"


# ---- CheckpointSaverHook on training: the Estimator then added no saver of its own (TF 2.15: nothing in model_dir) --
SAVER_HELPER = """
def make_hooks(directory):
    return [tf.estimator.CheckpointSaverHook(directory, save_steps=3, checkpoint_basename="run.ckpt")]
"""


@pytest.mark.parametrize("drive_code", [
    'est.train(train_input_fn, hooks=[tf.estimator.CheckpointSaverHook("/tmp/extra", save_steps=3, '
    'checkpoint_basename="run.ckpt")], max_steps=10)\n',
    'saver = tf.compat.v1.train.CheckpointSaverHook(checkpoint_dir="/tmp/extra", save_steps=3, saver=None, '
    'checkpoint_basename="run.ckpt", listeners=[])\n'
    "train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=10, hooks=[saver])\n"
    "tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(eval_input_fn, steps=2))\n",
    'est.train(train_input_fn, hooks=make_hooks("/tmp/extra"), max_steps=10)\n',
])
def test_a_checkpoint_saver_hook_writes_the_checkpoints_to_its_directory(drive_code):
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/m", save_checkpoints_steps=4, keep_checkpoint_max=7)'
    result = rewrite(program(run_config=config, drive=drive_code, extra=SAVER_HELPER if "make_" in drive_code else ""))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    # the hook's directory, steps and basename; the Estimator's Saver kept keep_checkpoint_max; model_dir gets none
    flat = "".join(out.split())
    assert 'EstimatorCheckpoints("/tmp/extra",save_steps=3,keep_checkpoint_max=7,basename="run.ckpt"' in flat
    assert 'EstimatorCheckpoints("/tmp/m"' not in flat and "Hook" not in out and "make_hooks" not in out
    assert 'est.restore_model_dir("/tmp/m",est.optimizer)' in flat  # the Estimator still resumed from model_dir
    assert any(n.startswith("CheckpointSaverHook converted") for n in notes(result))


def test_a_checkpoint_saver_hook_on_the_custom_loop_writes_to_its_directory():
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/m", save_checkpoints_steps=4, keep_checkpoint_max=7)'
    drive_code = ('est.train(train_input_fn, hooks=[tf.estimator.CheckpointSaverHook("/tmp/extra", save_steps=3, '
                  'checkpoint_basename="run.ckpt")], max_steps=10)\n')
    result = rewrite(program(run_config=config, drive=drive_code), target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    flat = "".join(out.split())
    assert ('.train(lambdainput_context:train_input_fn(),max_steps=10,checkpoint_dir="/tmp/extra",save_steps=3,'
            'checkpoint_basename="run.ckpt"') in flat
    assert "keep_checkpoint_max=7" in flat and "CheckpointSaverHook(" not in out  # the Estimator's Saver's max_to_keep
    loop = section(out, "        manager, write_dir = self._checkpoint_manager(", "    def evaluate")
    assert "if manager and save_steps and step >= saved + save_steps:" in loop
    note = [n for n in notes(result) if n.startswith("CheckpointSaverHook converted")]
    assert len(note) == 1 and "trainer.train(" in note[0]


@pytest.mark.parametrize("estimator, strategy", [
    ("est = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column('x', "
     "shape=(2,))], config=config)", "keep"),
    (None, "parameter-server"),
])
def test_a_checkpoint_saver_hook_on_a_canned_or_parameter_server_loop_blocks(estimator, strategy):
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/m", save_checkpoints_steps=4)'
    drive_code = 'est.train(train_input_fn, hooks=[tf.estimator.CheckpointSaverHook("/tmp/c", save_steps=3)], max_steps=10)\n'
    src = program(run_config=config, drive=drive_code, **({"estimator": estimator} if estimator else {}))
    result = blocked(src, target="ctl", strategy=strategy)
    assert any(d.code == "TFM611" and "not for canned Estimators" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("hook, target, words", [
    ('tf.estimator.CheckpointSaverHook("/tmp/c", save_steps=3, saver=tf.compat.v1.train.Saver())', "keras",
     "CheckpointSaverHook(saver=...) is not converted"),
    ('tf.estimator.CheckpointSaverHook("/tmp/c", save_steps=3, listeners=[Listener()])', "keras",
     "CheckpointSaverHook(listeners=...) is not converted"),
    ('tf.estimator.CheckpointSaverHook("/tmp/c", save_steps=3, scaffold=tf.compat.v1.train.Scaffold())', "keras",
     "CheckpointSaverHook(scaffold=...) is not converted"),
    ('tf.estimator.CheckpointSaverHook("/tmp/c")', "keras", "converted with checkpoint_dir and save_steps"),
])
def test_checkpoint_saver_hook_arguments_without_a_tf2_meaning_block(hook, target, words):
    extra = "class Listener(tf.estimator.CheckpointSaverListener):\n    pass\n"
    result = blocked(program(drive=drive(f"[{hook}]"), extra=extra), target=target)
    assert any(d.code == "TFM611" and words in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


def test_a_checkpoint_saver_hook_in_the_model_fn_blocks_with_what_to_do():
    result = blocked(program(nan_model_fn('training_hooks=[tf.estimator.CheckpointSaverHook("/tmp/c", save_steps=3)]')))
    assert any(d.code == "TFM611" and "through train(hooks=...) or TrainSpec(hooks=...)" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]


@pytest.mark.parametrize("target, start, end", [("keras", "    def save(self, step):", "\n\n\n"),
                                                ("ctl", "    def _save(manager, step):", "\n\n    def ")])
def test_a_checkpoint_save_leaves_the_root_logger_as_it_was(target, start, end):
    """TF 2.21's checkpoint writer logs through absl, whose first log call runs logging.basicConfig() on a root logger
    without handlers: every tensorflow line was printed twice from then on. The generated writer (EstimatorCheckpoints
    .save, the custom loop's _save) removes the handler the save added, and only that one."""
    import logging

    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/c", save_checkpoints_steps=4)'
    out = converted(program(run_config=config, drive="est.train(train_input_fn, max_steps=10)\n"), target=target)
    namespace: dict = {}
    exec(textwrap.dedent(section(out, start, end)), namespace)
    writer = namespace["save" if target == "keras" else "_save"]
    saved = []

    class Manager:  # what TF 2.21's CheckpointManager.save does to logging: absl's logging.basicConfig()
        def save(self, checkpoint_number):
            saved.append(checkpoint_number)
            logging.basicConfig()

    manager = Manager()
    owner = type("Callback", (), {"manager": manager})()
    root = logging.getLogger()
    kept = list(root.handlers)
    try:
        for mine in ([], [logging.NullHandler()]):  # no handler (absl adds one), the program's own (absl adds none)
            root.handlers[:] = mine
            writer(owner, 7) if target == "keras" else writer(manager, 7)
            assert root.handlers == mine
        assert saved == [7, 7]
    finally:
        root.handlers[:] = kept
