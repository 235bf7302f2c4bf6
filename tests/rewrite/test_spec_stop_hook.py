"""The migration guide's model_fn hook shape (fixtures/spec_stop_hook): a StopAtStepHook made in the model_fn and
returned through EstimatorSpec(training_hooks=...) → the generated StopAtStep callback; values computed after the
loss only for LoggingTensorHooks; `del params` / `del config` (rules/planners/model_fn/_unused_args.py,
_hook_values.py)."""
from __future__ import annotations

import re

from _helpers import blocked, converted, program, rewrite

SPEC = "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[{hooks}])"


def spec(hooks: str, where: str = "training_hooks") -> str:
    return SPEC.format(hooks=hooks).replace("training_hooks=", f"{where}=")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r",\s*\)", ")", re.sub(r"([(\[])\s+", r"\1", text)))


def errors(result) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in result.diagnostics if d.severity == "error"]


def test_stop_hook_after_the_loss_becomes_a_stop_at_step_callback_of_every_fit():
    src = program(minimize="train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())\n"
                           'stop = tf.compat.v1.train.StopAtStepHook(num_steps=params["lr"])',
                  spec=spec("stop"))
    out = flat(converted(src))
    assert 'def stop_hooks(self, step=None): """The StopAtStepHooks' in out
    assert 'params = self.params return [StopAtStep(num_steps=params["lr"], step=step), ]' in out
    assert "*est.stop_hooks()]" in out
    assert "class StopAtStep(keras.callbacks.Callback)" in out
    assert "StopAtStepHook" not in out.replace("The StopAtStepHooks", "").replace("StopAtStepHook from", "")


def test_stop_hook_inline_with_last_step_converts():
    out = flat(converted(program(spec=spec("tf.estimator.StopAtStepHook(last_step=7)"))))
    assert "return [StopAtStep(last_step=7, step=step), ]" in out


def test_stop_hook_with_both_or_neither_argument_blocks_at_the_hook():
    for args in ("num_steps=2, last_step=9", ""):
        src = program(spec=spec(f"tf.estimator.StopAtStepHook({args})"))
        result = blocked(src)
        line = src.splitlines().index(next(s for s in src.splitlines() if "StopAtStepHook(" in s)) + 1
        assert (line, "StopAtStepHook is converted with exactly one of num_steps or last_step (TF1 raised "
                      "ValueError otherwise)") in errors(result), errors(result)


def test_stop_hook_in_evaluation_or_chief_hooks_blocks_saying_where():
    for where, why in (("evaluation_hooks", "evaluation and prediction do not move"),
                       ("training_chief_hooks", "only the chief stopped")):
        result = blocked(program(spec=spec("tf.estimator.StopAtStepHook(num_steps=3)", where)))
        assert any(f"StopAtStepHook in EstimatorSpec({where}=...) is not converted" in m and why in m
                   and "put it in training_hooks" in m for _, m in errors(result)), errors(result)


def test_stop_hook_on_the_custom_loop_reads_the_trainers_optimizer():
    out = flat(converted(program(spec=spec("tf.estimator.StopAtStepHook(num_steps=3)")), target="ctl"))
    assert "worker += model.stop_hooks(step=lambda: optimizer.iterations)" in out
    assert "return [StopAtStep(num_steps=3, step=step), ]" in out


def test_stop_hook_under_parameter_servers_blocks():
    result = blocked(program(spec=spec("tf.estimator.StopAtStepHook(num_steps=3)")), strategy="parameter-server")
    assert any("StopAtStepHook in EstimatorSpec(training_hooks=...) under parameter servers is not converted" in m
               for _, m in errors(result)), errors(result)


def test_identity_after_the_loss_read_only_by_a_logger_is_logged():
    minimize = ("train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())\n"
                'spread = tf.identity(tf.reduce_mean(tf.abs(logits)), name="spread")\n'
                'log = tf.compat.v1.train.LoggingTensorHook({"s": spread}, every_n_iter=2)')
    out = flat(converted(program(minimize=minimize, spec=spec("log"))))
    assert '"name:spread": tf.identity(tf.reduce_mean(tf.abs(logits)), name="spread")' in out
    assert 'TensorLogger([("s", "name:spread")], every_n_iter=2)' in out


def test_value_after_the_loss_reading_a_layer_object_drops_only_its_logger():
    # the guide's `tf.identity(dense.weights[0])`: the migrated step cannot hand it to a logger; the hook only logged
    forward = 'dense = tf.compat.v1.layers.Dense(1)\nlogits = dense(features["x"])'
    minimize = ("train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())\n"
                "kernel = tf.identity(dense.weights[0])\n"
                "log = tf.compat.v1.train.LoggingTensorHook([kernel], every_n_iter=1)\n"
                "stop = tf.compat.v1.train.StopAtStepHook(num_steps=2)")
    result = rewrite(program(forward=forward, minimize=minimize, spec=spec("stop, log")))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert any(d.message.startswith("LoggingTensorHook not converted, dropped") for d in result.diagnostics)
    out = result.output.decode()
    assert "weights[0]" not in out and "StopAtStep(num_steps=2, step=step)" in out


def test_value_after_the_loss_read_by_more_than_a_logger_still_blocks():
    minimize = ("train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())\n"
                "spread = tf.identity(tf.reduce_mean(logits))\n"
                'log = tf.compat.v1.train.LoggingTensorHook({"s": spread}, every_n_iter=2)')
    src = program(minimize=minimize, spec=spec("log").replace("train_op=train_op", "train_op=train_op, "
                                                              "predictions={'s': spread}"))
    result = blocked(src)
    line = src.splitlines().index("    spread = tf.identity(tf.reduce_mean(logits))") + 1
    assert (line, "`spread = ...` after the loss is not converted") in errors(result), errors(result)


def test_del_params_and_config_are_dropped():
    for signature, statement in (("features, labels, mode, params", "del params"),
                                 ("features, labels, mode, params, config", "del config"),
                                 ("features, labels, mode, params, config", "del params, config")):
        src = program(forward=f"{statement}\n" + 'logits = tf.compat.v1.layers.dense(features["x"], 1)',
                      signature=signature)
        out = converted(src)
        assert statement not in out


def test_del_then_a_read_of_the_name_blocks_at_the_del():
    src = program(forward='del params\nlogits = tf.compat.v1.layers.dense(features["x"], 1)',
                  optimizer='optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])')
    result = blocked(src)
    line = src.splitlines().index("    del params") + 1
    assert (line, "`del params` in model_fn, then `params` is read after it: TF1 raised UnboundLocalError there "
                  "(the original did not run); remove the del or the read") in errors(result), errors(result)


def test_del_of_a_local_that_is_not_a_parameter_blocks():
    src = program(forward='x = features["x"]\ndel x\nlogits = tf.compat.v1.layers.dense(features["x"], 1)')
    result = blocked(src)
    assert any(m.startswith("statement `del x` in model_fn is not converted: only `del` of the model_fn's own "
                            "parameters") for _, m in errors(result)), errors(result)
