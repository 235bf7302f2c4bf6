"""TFM601 and an Estimator model_dir: the Estimator resumed from the latest checkpoint there (max_steps being the
absolute global step); the migrated program restores it too (restore_model_dir: its own TF2 checkpoint, else the
Estimator's TF1 one by TF1 name) and trains the steps left."""
from __future__ import annotations

from _helpers import converted, program, section


def test_keras_fit_trains_the_steps_left_after_restoring_model_dir():
    out = converted(program(drive="est.train(input_fn=train_input_fn, max_steps=10)\n"))
    main = section(out, "def main", "\nif __name__")
    assert 'initial_step = est.restore_model_dir("/tmp/tfm-test", est.optimizer)' in main
    assert "if initial_step < 10:\n        est.fit(" in main
    assert "steps_per_epoch=10 - initial_step," in main
    assert main.index("est(next(iter(") < main.index("restore_model_dir") < main.index("est.fit(")
    assert "def restore_estimator_checkpoint(self, checkpoint, optimizer=None):" in out
    assert "def _estimator_slots(optimizer):" in out


def test_train_and_evaluate_restores_before_training_and_evaluates_anyway():
    out = converted(program())
    main = section(out, "def main", "\nif __name__")
    assert main.index("restore_model_dir(") < main.index("if initial_step < 10:") < main.index("est.fit(") \
        < main.index("est.evaluate(")
    assert "    est.evaluate(" in main and "        est.evaluate(" not in main  # not under the if


def test_an_expression_max_steps_is_parenthesised():
    """An operand that binds more loosely than `<` / `-` is wrapped (migrator/model.py `operand`); a product is not."""
    out = converted(program(drive="est.train(input_fn=train_input_fn, max_steps=STEPS * 2)\n", extra="STEPS = 5"))
    assert "if initial_step < STEPS * 2:" in out and "steps_per_epoch=STEPS * 2 - initial_step," in out
    out = converted(program(drive="est.train(input_fn=train_input_fn, max_steps=STEPS if FAST else 2 * STEPS)\n",
                            extra="STEPS = 5\nFAST = False"))
    assert "if initial_step < (STEPS if FAST else 2 * STEPS):" in out
    assert "steps_per_epoch=(STEPS if FAST else 2 * STEPS) - initial_step," in out


def test_a_warm_start_is_overridden_by_model_dir_as_in_the_estimator():
    est = ('est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1}, '
           'warm_start_from="/tmp/prev")')
    main = section(converted(program(estimator=est, drive="est.train(input_fn=train_input_fn, max_steps=10)\n")),
                   "def main", "\nif __name__")
    assert main.index("warm_start_from_tf1") < main.index("restore_model_dir")


def test_without_model_dir_nothing_is_restored():
    out = converted(program(run_config="config = tf.estimator.RunConfig(tf_random_seed=7)",
                            drive="est.train(input_fn=train_input_fn, max_steps=10)\n"))
    assert "restore_model_dir" not in out and "steps_per_epoch=10," in out


def test_ctl_trainer_restores_model_dir_in_build():
    out = converted(program(drive="est.train(input_fn=train_input_fn, max_steps=10)\n"), target="ctl")
    trainer = section(out, "class ModelTrainer", "\ndef main")
    assert "self.model.restore_model_dir(self.model_dir, self.optimizer)" in trainer
    assert "self.checkpoint.restore(latest)" not in trainer
    assert "est.train(lambda input_context: train_input_fn(), max_steps=10)" in out  # absolute, as the loop counts


def test_relative_step_counts_start_at_the_restored_step():
    out = converted(program(drive="est.train(input_fn=train_input_fn, steps=4)\n"))
    main = section(out, "def main", "\nif __name__")
    assert "steps_per_epoch=4," in main and "if initial_step" not in main


def test_restore_maps_every_optimizer_slot_by_tf1_name():
    """The slot names are those TF 2.15's v1 optimizers save (checked: <var>/Adagrad, <var>/Adam, <var>/Adam_1 and
    beta1_power/beta2_power, <var>/Momentum, <var>/Ftrl and <var>/Ftrl_1, <var>/RMSProp[_1[_2]], <var>/Adadelta[_1])."""
    out = converted(program(drive="est.train(input_fn=train_input_fn, max_steps=10)\n"))
    slots = section(out, "def _estimator_slots", "\nclass ")
    for expected in ('("_momentums", "Adam", None), ("_velocities", "Adam_1", None)', '("_accumulators", "Adagrad", None)',
                     '("_accumulators", "Ftrl", None), ("_linears", "Ftrl_1", None)', '"RMSProp_2" if optimizer.centered',
                     '("_accumulated_grads", "Adadelta", None)', '("momentums", "Momentum", None)'):
        assert expected in slots
    restore = section(out, "def restore_estimator_checkpoint", "\ndef build_model")
    assert 'load(optimizer.beta_1_power, "beta1_power")' in restore
    assert 'optimizer.iterations.assign(reader.get_tensor("global_step"))' in restore
    assert "raise ValueError" in restore
