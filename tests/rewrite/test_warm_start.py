"""TFM601 Estimator(warm_start_from=...): a path or WarmStartSettings becomes warm_start_from_tf1 on the built model
(Keras target), before the first fit; what cannot be carried over exactly blocks."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, section

TRAIN = "est.train(input_fn=train_input_fn, max_steps=10)\n"


def est(warm: str) -> str:
    return f'est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={{"lr": 0.1}}, warm_start_from={warm})'


@pytest.mark.parametrize("warm, call", [
    ('"/tmp/prev"', 'est.warm_start_from_tf1("/tmp/prev")'),
    ('tf.estimator.WarmStartSettings("/tmp/prev", vars_to_warm_start="dense.*")',
     'est.warm_start_from_tf1("/tmp/prev", vars_to_warm_start="dense.*")'),
    ('tf.estimator.WarmStartSettings(ckpt_to_initialize_from="/tmp/prev", vars_to_warm_start=["dense/"], '
     'var_name_to_prev_var_name={"dense/kernel": "old/kernel"})',
     'est.warm_start_from_tf1("/tmp/prev", vars_to_warm_start=["dense/"], '
     'var_name_to_prev_var_name={"dense/kernel": "old/kernel"})'),
])
def test_warm_start_loads_after_the_build(warm, call):
    out = converted(program(estimator=est(warm), drive=TRAIN))
    main = section(out, "def main", "\nif __name__")
    assert call in " ".join(main.split()).replace("( ", "(").replace(", )", ")")
    assert main.index("est(next(iter(") < main.index("warm_start_from_tf1") < main.index("est.fit(")
    assert "def warm_start_from_tf1(self, checkpoint" in out


def test_conditional_warm_start_keeps_its_condition():
    warm = 'tf.estimator.WarmStartSettings(PREV, vars_to_warm_start=".*") if PREV else None'
    out = converted(program(estimator=est(warm), drive=TRAIN, extra="PREV = None"))
    assert 'if PREV:\n            est.warm_start_from_tf1(PREV, vars_to_warm_start=".*")' in out


@pytest.mark.parametrize("warm, words, options", [
    ('tf.estimator.WarmStartSettings("/p", var_name_to_vocab_info={"a": 1})', "var_name_to_vocab_info", {}),
    ('tf.estimator.WarmStartSettings("/p", vars_to_warm_start=None)', "warm-starts only vocabularies", {}),
    ('tf.estimator.WarmStartSettings("/a") if PREV else tf.estimator.WarmStartSettings("/b")', "two settings", {}),
])
def test_warm_start_blocked(warm, words, options):
    result = blocked(program(estimator=est(warm), drive=TRAIN, extra="PREV = None"), **options)
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_ctl_trainer_warm_starts_in_build():
    out = converted(program(estimator=est('"/tmp/prev"'), drive=TRAIN), target="ctl")
    assert 'warm_start=lambda model: model.warm_start_from_tf1("/tmp/prev")' in " ".join(out.split()).replace("( ", "(")
    trainer = section(out, "class ModelTrainer", "\ndef main")
    assert trainer.index("self.warm_start(self.model)") < trainer.index("self.model.restore_model_dir(self.model_dir")


def test_estimator_from_a_helper_with_positional_settings_warm_starts_where_it_trains():
    """The settings are the helper's parameter: written where the model trains, they are the caller's argument."""
    extra = '''
    def make_estimator(config, prev):
        return tf.estimator.Estimator(model_fn, None, config, {"lr": 0.1}, tf.estimator.WarmStartSettings(prev, "dense"))
    '''
    out = converted(program(estimator='est = make_estimator(config, "/tmp/prev")', drive=TRAIN, extra=extra))
    main = section(out, "def main", "\nif __name__")
    assert 'est.warm_start_from_tf1("/tmp/prev", vars_to_warm_start="dense")' in main
    assert main.index("warm_start_from_tf1") < main.index("est.fit(")
