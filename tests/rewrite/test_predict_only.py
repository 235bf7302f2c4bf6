"""TFM601 export_saved_model with a hand-written serving_input_receiver_fn and nothing trained before it in the
same function: the Estimator restored model_dir's latest checkpoint (none: "Couldn't find trained model") and
exported. The migrated model is built from the receiver's features for an empty batch (receiver_sample), restores
the same checkpoint (required=True: raises without one), then exports. fixtures/predict_only_receiver runs it."""
from __future__ import annotations

import textwrap

from _helpers import blocked, converted, program, section
from test_predict_restore import MODEL_FN, SPEC

RECEIVER = '''
def serving_input_fn():
    rows = tf.compat.v1.placeholder(tf.string, [None], name="rows")
    a, b = tf.io.decode_csv(tf.expand_dims(rows, -1), record_defaults=[[0.0], [0.0]])
    return tf.estimator.export.ServingInputReceiver({"x": tf.concat([a, b], 1)}, {"rows": rows})
'''
SERVE = '''
def train(model_dir):
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir)
    est.train(train_input_fn, max_steps=10)


def serve(model_dir):
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir)
    return est.export_saved_model("/tmp/export", serving_input_fn)
'''


def separate(drive: str, extra: str, **kw) -> str:
    return program(MODEL_FN, run_config="", estimator="", drive=drive,
                   extra=SPEC + "\n\n" + textwrap.dedent(RECEIVER) + "\n\n" + textwrap.dedent(extra), **kw)


def test_export_helper_builds_from_the_receiver_then_restores():
    out = converted(separate('train("/tmp/m")\nprint(serve("/tmp/m"))\n', SERVE))
    fn = section(out, "def serve(model_dir):", "\ndef main")
    assert ("    est.restore_checkpoint(model_dir, est.receiver_sample(serving_input_fn), required=True)\n"
            '    return est.export_receiver_saved_model("/tmp/export", serving_input_fn)') in fn
    model = section(out, "class Model(keras.Model):", "\ndef build_model")
    assert "    def receiver_sample(self, serving_input_receiver_fn, single_feature=False):" in model
    assert "    def restore_checkpoint(self, model_dir, sample=None, checkpoint_path=None, required=False):" in model
    assert "restore_checkpoint" not in section(out, "def train(model_dir):", "\ndef serve")


def test_export_helper_ctl_target_builds_the_trainers_model():
    out = converted(separate('train("/tmp/m")\nprint(serve("/tmp/m"))\n', SERVE), target="ctl")
    fn = section(out, "def serve(model_dir):", "\ndef main")
    assert ("    est.model.restore_checkpoint(\n"
            "        est.model_dir,\n"
            "        est.model.receiver_sample(serving_input_fn),\n"
            "        required=True,\n"
            "    )\n"
            '    return est.model.export_receiver_saved_model("/tmp/export", serving_input_fn)') in fn

def test_export_after_training_builds_nothing_from_the_receiver():
    # trained first in the same function: the model holds the weights, no receiver_sample is generated
    out = converted(program(MODEL_FN, extra=SPEC + "\n\n" + textwrap.dedent(RECEIVER),
                            drive="est.train(train_input_fn, max_steps=5)\n"
                                  "est.export_saved_model('/tmp/e', serving_input_fn)\n"))
    assert "receiver_sample" not in out


def test_export_without_model_dir_stays_blocked():
    result = blocked(program(MODEL_FN, run_config="config = tf.estimator.RunConfig(tf_random_seed=7)",
                             extra=SPEC + "\n\n" + textwrap.dedent(RECEIVER),
                             drive="est.export_saved_model('/tmp/e', serving_input_fn)\n"))
    messages = [d.format() for d in result.diagnostics]
    assert any("TFM601" in m and "this Estimator has no model_dir" in m and "snippet.py:" in m for m in messages), \
        messages
