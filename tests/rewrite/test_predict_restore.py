"""TFM601 predict / evaluate / export_saved_model with nothing trained before them in the same function, or with
checkpoint_path: the Estimator restored a checkpoint first (checkpoint_path, else model_dir's latest; none: predict
and evaluate ran on freshly initialised variables, export raised). The migrated model restores the same checkpoint
with `restore_checkpoint(model_dir, sample, ...)` before the converted call (the sample builds Keras' lazy
variables), in the shapes programs write this in; what cannot be made exact is blocked with the reason.
tests/fixtures_run/test_predict_separate_runs.py runs the generated method against an Estimator's checkpoint."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite, section

MODEL_FN = """
def model_fn(features, labels, mode, params):
    net = tf.compat.v1.layers.dense(features["x"], 4, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 3)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class_ids": tf.argmax(logits, 1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
"""
SPEC = 'SPEC = {"x": tf.io.FixedLenFeature([2], tf.float32)}'
RESTORED = ""
HELPERS = '''
def train(model_dir):
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir)
    est.train(train_input_fn, max_steps=10)


def predict(model_dir):
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir)
    return [p["class_ids"] for p in est.predict(eval_input_fn)]
'''


def separate(drive: str, extra: str = "", **kw) -> str:
    """main() calls train() and predict(): each builds its own Estimator over the same model_dir."""
    return program(MODEL_FN, run_config="", estimator="", drive=drive, extra=SPEC + "\n\n" + textwrap.dedent(extra),
                   **kw)


def test_predict_helper_with_its_own_estimator_restores_model_dir():
    out = converted(separate('train("/tmp/m")\nprint(predict("/tmp/m"))\n', HELPERS))
    fn = section(out, "def predict(model_dir):", "\ndef main")
    assert ("        est = build_model({})\n"
            f"    est.restore_checkpoint(model_dir, next(iter(eval_input_fn()))){RESTORED}\n"
            '    return [p["class_ids"] for p in est.predict_examples(eval_input_fn())]') in fn
    model = section(out, "class Model(keras.Model):", "\ndef build_model")
    assert "    def restore_checkpoint(self, model_dir, sample=None, checkpoint_path=None, required=False):" in model
    assert "    def restore_estimator_checkpoint(self, checkpoint, optimizer=None):" in model
    # training in train() is unchanged: it resumes from model_dir as before, and restores nothing else
    assert "restore_checkpoint" not in section(out, "def train(model_dir):", "\ndef predict")


def test_predict_helper_ctl_target_restores_into_the_trainers_model():
    out = converted(separate('train("/tmp/m")\nprint(predict("/tmp/m"))\n', HELPERS), target="ctl")
    fn = section(out, "def predict(model_dir):", "\ndef main")
    assert ("    est = ModelTrainer(strategy, {}, model_dir=model_dir)\n"
            f"    est.model.restore_checkpoint(est.model_dir, next(iter(eval_input_fn()))){RESTORED}\n"
            '    return [p["class_ids"] for p in est.predict(eval_input_fn())]') in fn
    assert "    def restore_checkpoint(self, model_dir, sample=None" in section(out, "class Model(", "\nclass ModelTrainer")


def test_mode_flag_branches_in_main():
    drive = textwrap.dedent('''
    config = tf.estimator.RunConfig(model_dir=FLAGS.model_dir, tf_random_seed=3)
    est = tf.estimator.Estimator(model_fn=model_fn, config=config)
    if FLAGS.mode == "train":
        est.train(train_input_fn, max_steps=FLAGS.steps)
    elif FLAGS.mode == "predict":
        for p in est.predict(input_fn=eval_input_fn):
            print(p["class_ids"])
    else:
        print(est.evaluate(eval_input_fn))
    ''')
    extra = 'import types\nFLAGS = types.SimpleNamespace(mode="predict", model_dir="/tmp/m", steps=10)'
    out = converted(separate(drive, extra))
    assert ('    elif FLAGS.mode == "predict":\n'
            f"        est.restore_checkpoint(FLAGS.model_dir, next(iter(eval_input_fn()))){RESTORED}\n"
            "        for p in est.predict_examples(eval_input_fn()):\n") in out
    assert ("    else:\n"
            f"        est.restore_checkpoint(FLAGS.model_dir, next(iter(eval_input_fn()))){RESTORED}\n"
            "        print(est.evaluate(eval_input_fn(), steps=None, return_dict=True))\n") in out
    train = out[out.index('if FLAGS.mode == "train":'):out.index('elif FLAGS.mode == "predict":')]
    assert "restore_checkpoint" not in train and "restore_model_dir(FLAGS.model_dir, est.optimizer)" in train
    # one note, at the Estimator, about where a migrated fit's own checkpoint comes from
    result = rewrite(separate(drive, extra))
    notes = [d for d in result.diagnostics if "restores model_dir's latest checkpoint" in d.message]
    assert len(notes) == 1 and notes[0].severity == "note"


def test_module_level_program_that_only_predicts_and_exports():
    src = separate("")
    src = src[:src.index("def main():")] + textwrap.dedent('''\
        est = tf.estimator.Estimator(model_fn, "/tmp/trained")
        for p in est.predict(eval_input_fn, yield_single_examples=False):
            print(p)
        est.export_saved_model("/tmp/export", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC))
        ''')
    out = converted(src)
    assert (f'est.restore_checkpoint("/tmp/trained", next(iter(eval_input_fn()))){RESTORED}\n'
            "for p in est.predict_examples(eval_input_fn(), yield_single_examples=False):") in out
    # the export restores again: without a checkpoint the Estimator's export raised where its predict went on
    assert out.count("est.restore_checkpoint(") == 2
    assert ('    tf.io.parse_example(tf.constant([], tf.string), SPEC),\n    required=True,\n)\n'
            'est.export_parsing_saved_model("/tmp/export", SPEC)') in out


def test_export_alone_builds_from_the_parsing_spec_and_requires_a_checkpoint():
    drive = ('est.export_saved_model("/tmp/e", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC))\n')
    out = converted(program(MODEL_FN, drive=drive, extra=SPEC))
    assert ("    est.restore_checkpoint(\n"
            '        "/tmp/tfm-test",\n'
            "        tf.io.parse_example(tf.constant([], tf.string), SPEC),\n"
            "        required=True,\n"
            f"    ){RESTORED}\n"
            '    est.export_parsing_saved_model("/tmp/e", SPEC)') in out
    model = section(out, "class Model(keras.Model):", "\ndef build_model")
    assert 'raise ValueError(f"Couldn\'t find trained model at {model_dir}.")' in model  # the Estimator's error
    ctl = converted(program(MODEL_FN, drive=drive, extra=SPEC), target="ctl")
    assert "est.model.restore_checkpoint(\n        est.model_dir,\n" in ctl


@pytest.mark.parametrize("target", ["keras", "ctl"])
def test_checkpoint_path_tf1_prefix_after_training_too(target):
    drive = ("est.train(train_input_fn, max_steps=10)\n"
             'preds = list(est.predict(eval_input_fn, checkpoint_path="/tmp/old/model.ckpt-5"))\n'
             "more = list(est.predict(eval_input_fn))\n")
    out = converted(program(MODEL_FN, drive=drive), target=target)
    model, model_dir = ("est", '"/tmp/tfm-test"') if target == "keras" else ("est.model", "est.model_dir")
    assert (f"    {model}.restore_checkpoint(\n        {model_dir},\n        next(iter(eval_input_fn())),\n"
            '        checkpoint_path="/tmp/old/model.ckpt-5",\n') in out
    # after a checkpoint_path restore, the next plain predict restores model_dir's latest again, as the Estimator
    later = out[out.index("preds = "):]
    assert f"{model}.restore_checkpoint({model_dir}, next(iter(eval_input_fn()))){RESTORED}\n    more = " in later


def test_checkpoint_path_on_evaluate_keras_and_ctl():
    drive = 'print(est.evaluate(eval_input_fn, steps=1, checkpoint_path=CKPT))\n'
    out = converted(program(MODEL_FN, drive=drive, extra='CKPT = "/tmp/old/model.ckpt-5"'))
    assert "checkpoint_path=CKPT)" in out and "est.evaluate(eval_input_fn(), steps=1, return_dict=True)" in out
    result = blocked(program(MODEL_FN, drive=drive, extra='CKPT = "/tmp/old/model.ckpt-5"'), target="ctl")
    assert any("evaluate(checkpoint_path=...) is not converted for the custom training loop" in d.message
               for d in result.diagnostics)


def test_ctl_evaluate_alone_is_restored_by_the_trainer_itself():
    out = converted(program(MODEL_FN, drive="print(est.evaluate(eval_input_fn))\n"), target="ctl")
    assert "restore_checkpoint(" not in section(out, "def main():", "\nif __name__")
    assert "self.model.restore_model_dir(self.model_dir, self.optimizer)" in out  # in ModelTrainer._build


def test_evaluate_without_model_dir_stays_as_it_was():
    # no model_dir: the Estimator evaluated a fresh temporary directory's initialisation, as the model does
    out = converted(program(MODEL_FN, run_config="config = tf.estimator.RunConfig(tf_random_seed=7)",
                            drive="print(est.evaluate(eval_input_fn))\n"))
    assert "restore_checkpoint" not in out


@pytest.mark.parametrize("run_config, estimator, drive, words", [
    ("config = tf.estimator.RunConfig(tf_random_seed=7)", None, "list(est.predict(eval_input_fn))\n",
     "this Estimator has no model_dir"),
    (None, 'est = tf.estimator.Estimator(model_fn=model_fn, config=config, warm_start_from="/tmp/ws")',
     "list(est.predict(eval_input_fn))\n", "with warm_start_from with nothing trained before it"),
])
def test_blocked_with_the_reason(run_config, estimator, drive, words):
    extra = SPEC + textwrap.dedent('''

    def serving_input_fn():
        inputs = {"x": tf.compat.v1.placeholder(tf.float32, [None, 2])}
        return tf.estimator.export.ServingInputReceiver(inputs, inputs)
    ''')
    kw = {k: v for k, v in (("run_config", run_config), ("estimator", estimator)) if v is not None}
    result = blocked(program(MODEL_FN, drive=drive, extra=extra, **kw))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


CANNED = '''
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": [1.0, 2.0]}, [0, 1])).batch(2)


columns = [tf.feature_column.numeric_column("a")]
estimator = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns, model_dir="/tmp/canned")
'''


@pytest.mark.parametrize("drive", ["print(list(estimator.predict(input_fn)))\n",
                                   "print(estimator.evaluate(input_fn, steps=1))\n"])
def test_canned_estimator_restores_its_model_dir_first(drive):
    """The Estimator restored model_dir's latest checkpoint before predict / evaluate: so does the canned model, by
    the canned variable names (rules/planners/canned.py; tests/fixtures_run/test_canned_model_dir.py runs it)."""
    out = converted(textwrap.dedent(CANNED) + drive)
    assert 'estimator.restore_checkpoint("/tmp/canned", next(iter(input_fn())))\n' in out
    assert out.index("estimator.restore_checkpoint(") < out.index("estimator.predict_examples(" if "predict" in drive
                                                                  else "estimator.evaluate(")
    assert "    def tf1_variables(self):" in out


def test_canned_after_training_still_converts():
    converted(textwrap.dedent(CANNED) + "estimator.train(input_fn, max_steps=2)\nprint(list(estimator.predict(input_fn)))\n")
