"""TFM611 LoggingTensorHook (rules/planners/hooks.py): in the model_fn's training_hooks, or by tensor name in train(hooks=) /
TrainSpec(hooks=), it becomes the generated TensorLogger callback, fed by the training step's own values
(the model's logged_tensors / record_logged_tensors); a hook tfmigrate cannot convert only logs, so it is dropped with
a note at its line naming what it logged (the file still converts)."""
from __future__ import annotations

import re
import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite

TRAIN = "est.train(input_fn=train_input_fn, {hooks}max_steps=10)\n"


def drive(hooks: str) -> str:
    return TRAIN.format(hooks=f"hooks={hooks}, " if hooks else "")


def model_fn(hooks: str = "[]", extra: str = "") -> str:
    return textwrap.dedent('''
    def model_fn(features, labels, mode, params):
        hidden = tf.compat.v1.layers.dense(features["x"], 4, activation=tf.nn.relu)
        logits = tf.compat.v1.layers.dense(hidden, 1)
        mean_logit = tf.identity(tf.reduce_mean(logits), name="mean_logit")
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    {extra}    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks={hooks})
    ''').format(hooks=hooks, extra=textwrap.indent(textwrap.dedent(extra), "    ") if extra else "")


def flat(text: str) -> str:
    """The text with wrapped calls joined: one space for any whitespace run, no breaks after ( or before )."""
    return re.sub(r"\s+", " ", re.sub(r",\s*\)", ")", re.sub(r"([(\[])\s+", r"\1", text)))


def notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "TFM611"]


def dropped(src: str, words: str, line: int | None = None, target: str = "keras") -> str:
    """`src` converts, its LoggingTensorHook dropped: a TFM611 note (at `line`) with `words`, no logger left."""
    result = rewrite(src, target=target)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    hits = [d for d in result.diagnostics if d.code == "TFM611" and d.severity == "note"
            and d.message.startswith("LoggingTensorHook not converted, dropped") and words in d.message]
    assert hits, [d.format() for d in result.diagnostics]
    assert line is None or hits[0].line == line, hits[0].format()
    assert not any("LoggingTensorHook (" in n and " converted:" in n for n in notes(result))
    out = result.output.decode()
    assert "LoggingTensorHook(" not in out and "TensorLogger(" not in out and "logged_tensors" not in out
    return out


def test_training_hooks_logger_becomes_a_tensor_logger_fed_by_the_training_step():
    hooks = ('[tf.compat.v1.train.LoggingTensorHook({"step": tf.compat.v1.train.get_global_step(), "loss": loss, '
             '"m": mean_logit}, every_n_iter=params["lr"])]')
    out = flat(converted(program(model_fn(hooks), drive=drive(""))))
    # TF1 logged a dict's tags sorted; the keys say which recorded value each tag reads
    assert ('TensorLogger([("loss", "loss"), ("m", "name:mean_logit"), ("step", "global_step")], '
            'every_n_iter=params["lr"])') in out
    assert '"name:mean_logit": tf.identity(tf.reduce_mean(logits), name="mean_logit")' in out
    assert '"global_step": step' in out and '"loss": loss' in out
    assert "self.record_logged_tensors(y_pred, loss, self.optimizer.iterations)" in out  # compute_loss
    assert "*est.logging_hooks()" in out and "jit_compile=False" in out
    assert "class TensorLogger(keras.callbacks.Callback)" in out
    assert "LoggingTensorHook(" not in out


def test_the_custom_loop_records_in_its_step_and_calls_the_loggers():
    hooks = '[tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_secs=5)]'
    out = flat(converted(program(model_fn(hooks), drive=drive("")), target="ctl"))
    assert "model.record_logged_tensors(outputs, loss, optimizer.iterations)" in out
    assert "chief = [] worker = model.logging_hooks() callbacks = [*chief, *callbacks, *worker]" in out
    assert 'TensorLogger([("loss", "loss")], every_n_secs=5)' in out


def test_a_named_logger_in_training_hooks_converts():
    extra = 'log = tf.compat.v1.train.LoggingTensorHook(["mean_logit"], every_n_iter=3)\n'
    out = flat(converted(program(model_fn("[log]", extra), drive=drive(""))))
    assert 'TensorLogger([("mean_logit", "name:mean_logit")], every_n_iter=3)' in out
    assert "log = " not in out


@pytest.mark.parametrize("hooks, where", [
    # list of names: TF1's order as written
    ('[tf.compat.v1.train.LoggingTensorHook(["mean_logit:0", "loss"], every_n_iter=2)]',
     'TensorLogger([("mean_logit:0", "name:mean_logit"), ("loss", "loss:0")], every_n_iter=2)'),
    ('[tf.estimator.LoggingTensorHook({"b": "mean_logit", "a": "loss"}, every_n_iter=2, formatter=str)]',
     'TensorLogger([("a", "loss:0"), ("b", "name:mean_logit")], every_n_iter=2, formatter=str)'),
])
def test_train_hooks_log_model_fn_tensors_by_name(hooks, where):
    out = flat(converted(program(model_fn(), drive=drive(hooks))))
    assert where in out
    # "loss" found the Estimator's own loss summary in TF1: its serialized Summary, what TF1 printed
    assert '"loss:0": tf.raw_ops.ScalarSummary(tags="loss", values=loss)' in out


@pytest.mark.parametrize("hooks, words", [
    ('[tf.compat.v1.train.LoggingTensorHook({"h": "dense/Relu"}, every_n_iter=2)]', "'dense/Relu' is not one"),
    ('[tf.compat.v1.train.LoggingTensorHook({"s": "global_step"}, every_n_iter=2)]', "resource handle"),
    ('[tf.compat.v1.train.LoggingTensorHook({"m": "mean_logit"}, every_n_iter=2, at_end=True)]', "at_end=True"),
    ('[tf.compat.v1.train.LoggingTensorHook({"t": tf.constant(1.0)}, every_n_iter=2)]', "outside the model_fn"),
])
def test_train_hooks_logging_what_tfmigrate_cannot_supply_are_dropped_with_a_note(hooks, words):
    src = program(model_fn(), drive=drive(hooks))
    dropped(src, words, line=src[:src.index("LoggingTensorHook(")].count("\n") + 1)


@pytest.mark.parametrize("hooks, extra, words", [
    ('[tf.compat.v1.train.LoggingTensorHook({"h": hidden}, every_n_iter=2)]', "", "reads `hidden`"),
    ('[tf.compat.v1.train.LoggingTensorHook({"l": loss}, every_n_iter=2, formatter=lambda d: str(hidden))]',
     "", "formatter reads `hidden`"),
    ('[tf.compat.v1.train.LoggingTensorHook({"l": loss}, at_end=True)]', "", "at_end=True"),
])
def test_training_hooks_logging_what_the_step_cannot_supply_are_dropped_with_a_note(hooks, extra, words):
    dropped(program(model_fn(hooks, extra), drive=drive("")), words)


def test_a_logger_on_evaluation_is_dropped_with_a_note():
    hooks = '[tf.compat.v1.train.LoggingTensorHook({"m": "mean_logit"}, every_n_iter=1)]'
    src = program(model_fn(), drive=textwrap.dedent(f'''\
        train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
        eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2, hooks={hooks})
        tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
        '''))
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert any(n.startswith("LoggingTensorHook on evaluation dropped") for n in notes(result))
    assert "TensorLogger" not in result.output.decode()


def test_programs_without_logging_hooks_record_nothing():
    out = converted(program(model_fn(), drive=drive("")))
    assert "TensorLogger" not in out and "logged_tensors" not in out and "def compute_loss" not in out
    assert not re.search(r"jit_compile=False", out)


@pytest.mark.parametrize("target, receiver", [("keras", "est"), ("ctl", "est")])
def test_a_step_counter_hook_on_training_becomes_a_step_counter(target, receiver):
    hooks = '[tf.estimator.StepCounterHook(every_n_steps=5, output_dir="/tmp/steps")]'
    result = rewrite(program(model_fn(), drive=drive(hooks)), target=target)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = flat(result.output.decode())
    # the global step the hook read: the optimizer's iterations (Keras model, custom-loop trainer alike)
    assert (f'StepCounter(every_n_steps=5, output_dir="/tmp/steps", step=lambda: {receiver}.optimizer.iterations)'
            in out)
    assert "class StepCounter(keras.callbacks.Callback)" in out and "StepCounterHook(" not in out
    assert any(n.startswith("StepCounterHook converted") for n in notes(result))


def test_a_step_counter_hook_with_a_tf1_summary_writer_blocks():
    hooks = '[tf.estimator.StepCounterHook(every_n_steps=5, summary_writer=writer)]'
    result = blocked(program(model_fn(), drive="writer = None\n" + drive(hooks)))
    assert any("summary_writer" in d.message for d in result.diagnostics if d.code == "TFM611")


@pytest.mark.parametrize("target, step", [("keras", ""), ("ctl", "step=lambda: optimizer.iterations")])
def test_a_step_counter_hook_in_the_model_fn_becomes_a_step_counter_after_the_nan_check(target, step):
    """TF 2.15 (measured): a StepCounterHook in training_hooks logged at the same steps as on train hooks (4, 7, 10
    for every_n_steps=3 over 10 steps), wrote no summary without output_dir, and ran after the Estimator's
    NanTensorHook(loss)."""
    result = rewrite(program(model_fn('[tf.estimator.StepCounterHook(every_n_steps=5, output_dir=params["d"])]'),
                             drive=drive("")), target=target)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = flat(result.output.decode())
    assert 'StepCounter(every_n_steps=5, output_dir=params["d"], step=step)' in out
    assert "step = step or (lambda: self.optimizer.iterations)" in out  # the Keras model's optimizer by default
    assert "class StepCounter(keras.callbacks.Callback)" in out and "StepCounterHook(" not in out
    assert any(n.startswith("StepCounterHook converted") for n in notes(result))
    if target == "keras":
        assert "NanLossCheck(), *est.logging_hooks()]" in out
    else:  # the custom loop's model has no optimizer: the trainer's
        assert f"worker = model.logging_hooks({step})" in out


def test_a_step_counter_hook_in_the_model_fn_with_a_summary_writer_is_dropped_with_a_note():
    result = rewrite(program(model_fn("[tf.estimator.StepCounterHook(every_n_steps=5, summary_writer=tf.compat.v1.summary.FileWriter(\"/tmp/w\"))]"),
                             drive=drive("")))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert any(n.startswith("StepCounterHook not converted, dropped") and "summary_writer" in n
               for n in notes(result)), notes(result)
    assert "StepCounter(" not in result.output.decode()


CHIEF = ('[tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)], training_chief_hooks=['
         'tf.compat.v1.train.LoggingTensorHook({"chief": tf.compat.v1.train.get_global_step()}, every_n_iter=1)]')
TRAIN_LOGGER = '[tf.compat.v1.train.LoggingTensorHook({"m": "mean_logit"}, every_n_iter=1)]'


def test_keras_callbacks_run_in_the_estimators_hook_order():
    """TF 2.15 (measured, fixtures/hook_order): the checkpoint saver, training_chief_hooks, the train hooks, the
    Estimator's NanTensorHook(loss), training_hooks; at a NaN step the training_hooks logged nothing."""
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/c", save_checkpoints_steps=4)'
    out = flat(converted(program(model_fn(CHIEF), drive=drive(TRAIN_LOGGER), run_config=config)))
    order = ['EstimatorCheckpoints("/tmp/c", save_steps=4)', "*est.logging_hooks(chief=True)",
             'TensorLogger([("m", "name:mean_logit")], every_n_iter=1)', "NanLossCheck()", "*est.logging_hooks(),"]
    positions = [out.find(text) for text in order]
    assert -1 not in positions and positions == sorted(positions), list(zip(order, positions))
    assert 'if chief: return [TensorLogger([("chief", "global_step")], every_n_iter=1), ]' in out
    assert 'return [TensorLogger([("loss", "loss")], every_n_iter=1), ]' in out


def test_the_custom_loop_calls_training_hooks_after_its_nan_check():
    out = flat(converted(program(model_fn(CHIEF), drive=drive(TRAIN_LOGGER)), target="ctl"))
    assert ("chief = model.logging_hooks(chief=True) worker = model.logging_hooks() "
            "callbacks = [*chief, *callbacks, *worker]") in out
    loop = out[out.index("while step < max_steps:"):out.index("def evaluate(")]
    order = ["for callback in callbacks[:checked]: callback.on_train_batch_end(batch)",
             "if loss_value != loss_value:", "raise tf.compat.v1.train.NanLossDuringTrainingError",
             "for callback in callbacks[checked:]:"]
    positions = [loop.find(text) for text in order]
    assert -1 not in positions and positions == sorted(positions), list(zip(order, positions))


@pytest.mark.parametrize("forward, words", [
    # TF1 named it "scope/mean_logit"
    ('with tf.compat.v1.variable_scope("scope"):\n'
     '        mean_logit = tf.identity(tf.reduce_mean(logits), name="mean_logit")', "'mean_logit' is not one"),
    # the layer's scope took the name first: TF1's identity was "dense_1_1"
    ('mean_logit = tf.identity(tf.reduce_mean(logits), name="dense_1")', "'dense_1' is not one"),
])
def test_a_name_tf1_gave_another_tensor_is_not_supplied(forward, words):
    src = program(model_fn(), drive=drive(
        '[tf.compat.v1.train.LoggingTensorHook({"m": "%s"}, every_n_iter=2)]'
        % ("mean_logit" if "scope" in forward else "dense_1")))
    src = src.replace('    mean_logit = tf.identity(tf.reduce_mean(logits), name="mean_logit")', "    " + forward)
    dropped(src, words)


TUTORIAL = '''
def cnn_model_fn(features, labels, mode):
    dense = tf.compat.v1.layers.dense(features["x"], 8, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(dense, 2)
    predictions = {
        "classes": tf.argmax(input=logits, axis=1),
        "probabilities": tf.nn.softmax(logits, name="softmax_tensor"),
    }
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.001)
        train_op = optimizer.minimize(loss=loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
    eval_metric_ops = {"accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=predictions["classes"])}
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=eval_metric_ops)
'''
TUTORIAL_DRIVE = (
    'tensors_to_log = {"probabilities": "%s"}\n'
    'logging_hook = tf.compat.v1.train.LoggingTensorHook(tensors=tensors_to_log, every_n_iter=50)\n'
    'est.train(input_fn=train_input_fn, steps=200, hooks=[logging_hook])\n')

TUTORIAL_ESTIMATOR = ('model_fn=model_fn, config=config, params={"lr": 0.1}', "model_fn=cnn_model_fn, config=config")


@pytest.mark.parametrize("target, step", [("keras", "self.record_logged_tensors(y_pred, loss"),
                                          ("ctl", "model.record_logged_tensors(outputs, loss")])
def test_the_tutorial_softmax_tensor_named_op_in_the_predictions_dict_is_logged(target, step):
    # the name= of any TF op (not only tf.identity) computed from the model output names its tensor "n:0" in TF1
    # (the tutorial's Estimator takes no params: its cnn_model_fn has none)
    src = program(TUTORIAL, drive=TUTORIAL_DRIVE % "softmax_tensor:0").replace(TUTORIAL_ESTIMATOR[0],
                                                                              TUTORIAL_ESTIMATOR[1])
    out = flat(converted(src, target=target))
    assert 'TensorLogger([("probabilities", "name:softmax_tensor")], every_n_iter=50)' in out
    assert re.search(r'"name:softmax_tensor": tf\.nn\.softmax\(\w+, name="softmax_tensor"\)', out), out
    assert step in out and "LoggingTensorHook(" not in out


@pytest.mark.parametrize("forward, name", [
    ('mean_logit = tf.reduce_mean(tf.sigmoid(logits, name="sig"))', "sig"),
    ('mean_logit = tf.add(tf.reduce_mean(logits), 1.0, name="plus")', "plus"),
    ('mean_logit = tf.argmax(logits, axis=1, name="best")', "best"),
])
def test_named_ops_computed_from_the_output_are_supplied_by_name(forward, name):
    src = program(model_fn(), drive=drive('[tf.compat.v1.train.LoggingTensorHook({"v": "%s"}, every_n_iter=2)]' % name))
    src = src.replace('mean_logit = tf.identity(tf.reduce_mean(logits), name="mean_logit")', forward)
    out = flat(converted(src))
    assert f'TensorLogger([("v", "name:{name}")], every_n_iter=2)' in out
    assert f'"name:{name}": ' in out


@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_the_tutorial_logging_an_unsuppliable_name_converts_with_the_hook_dropped(target):
    # a hidden layer's op: not computed from the output; the hook only logged it, so the program still converts
    src = program(TUTORIAL, drive=TUTORIAL_DRIVE % "dense/Relu").replace(*TUTORIAL_ESTIMATOR)
    out = dropped(src, "'dense/Relu' is not one", line=src[:src.index("LoggingTensorHook(")].count("\n") + 1,
                  target=target)
    assert "tensors_to_log" not in out and "logging_hook" not in out


def test_one_logger_dropped_the_other_converted():
    hooks = ('[tf.compat.v1.train.LoggingTensorHook({"h": "dense/Relu"}, every_n_iter=2), '
             'tf.compat.v1.train.LoggingTensorHook({"m": "mean_logit"}, every_n_iter=3)]')
    result = rewrite(program(model_fn(), drive=drive(hooks)))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = flat(result.output.decode())
    assert 'TensorLogger([("m", "name:mean_logit")], every_n_iter=3)' in out and "dense/Relu" not in out
    assert sum(n.startswith("LoggingTensorHook not converted, dropped") for n in notes(result)) == 1
    assert sum(n.startswith("LoggingTensorHook (train hooks) converted") for n in notes(result)) == 1


def test_under_parameter_servers_the_model_fn_hooks_are_dropped_with_a_note():
    """The scheduled loop calls no callbacks: the model_fn's LoggingTensorHook and StepCounterHook are not run, and
    their notes say so (not "converted")."""
    config = ('config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", '
              'train_distribute=tf.compat.v1.distribute.experimental.ParameterServerStrategy())')
    hooks = ('[tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=1), '
             'tf.estimator.StepCounterHook(every_n_steps=5)]')
    drive_ps = ("tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train_input_fn, max_steps=10), "
                "tf.estimator.EvalSpec(eval_input_fn, steps=2))\n")
    result = rewrite(program(model_fn(hooks), drive=drive_ps, run_config=config))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    dropped_notes = [n for n in notes(result) if n.startswith("dropped under parameter servers")]
    assert len(dropped_notes) == 2, notes(result)
    assert not any(n.startswith(("StepCounterHook converted", "LoggingTensorHook (EstimatorSpec")) for n in notes(result))
