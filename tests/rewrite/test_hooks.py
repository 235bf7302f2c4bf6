"""TFM611 hooks attached to an Estimator's training, evaluation and prediction (rules/hooks.py): observing hooks
are dropped with a note, StopAtStepHook becomes the step training stops at, every other hook blocks by name."""
from __future__ import annotations

import ast
import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite

TRAIN = "est.train(input_fn=train_input_fn, {hooks}max_steps=10)\n"


def drive(hooks: str, extra_lines: str = "") -> str:
    return textwrap.dedent(extra_lines) + TRAIN.format(hooks=f"hooks={hooks}, " if hooks else "")


def notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "TFM611"]


@pytest.mark.parametrize("hook, kind", [
    ('tf.compat.v1.train.LoggingTensorHook({"loss": "loss"}, every_n_iter=5)', "LoggingTensorHook"),
    ("tf.estimator.StepCounterHook(every_n_steps=5)", "StepCounterHook"),
    ('tf.compat.v1.train.SummarySaverHook(save_steps=5, output_dir="/tmp/s", scaffold=None)', "SummarySaverHook"),
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
    ("tf.compat.v1.train.NanTensorHook(loss)", "NanTensorHook is not converted: TF1 raised"),
    ('tf.estimator.CheckpointSaverHook("/tmp/c", save_steps=5)', "save_checkpoints_steps"),
    ("MyHook()", "hook `MyHook()` is not converted: a SessionRunHook reads graph tensors"),
    ("tf.estimator.StopAtStepHook(num_steps=2, last_step=3)", "exactly one of num_steps or last_step"),
])
def test_other_hooks_block_by_name(hook, words):
    extra = '''
    class MyHook(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            print("step")

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
    result = blocked(program(drive=drive_code))
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
    assert "Hook" not in result.output.decode()


def test_model_fn_hooks_that_act_block():
    body = '''
    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          training_hooks=[tf.compat.v1.train.NanTensorHook(loss)])
    '''
    result = blocked(program(body))
    assert any(d.code == "TFM611" and "NanTensorHook" in d.message for d in result.diagnostics)


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
