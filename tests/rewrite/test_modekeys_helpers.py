"""Mode keys no converted Estimator reaches are their strings; reached ones keep today's behaviour, said truly
(rules/planners/mode_keys.py)."""
from __future__ import annotations

import pytest

from _helpers import blocked, rewrite
from tfmigrate.engine import Options, migrate_paths

# a script running a model that is not an Estimator, its mode given as a tf.estimator key
SCRIPT = '''\
import tensorflow as tf
from tensorflow.estimator import ModeKeys


def build_model(inputs, mode):
    training = mode == tf.estimator.ModeKeys.TRAIN
    hidden = tf.keras.layers.Dense(4)(inputs)
    return tf.keras.layers.Dropout(0.5)(hidden, training=training)


def main():
    out = build_model(tf.ones([2, 3]), ModeKeys.PREDICT)
    print(out.numpy(), tf.contrib.learn.ModeKeys.INFER, tf.compat.v1.estimator.ModeKeys.EVAL)


if __name__ == "__main__":
    main()
'''

# a helper module and its test, which calls it with the keys as constants
ENCODER = '''\
import tensorflow as tf


class Encoder:
    def __init__(self, mode):
        self.rate = 0.1 if mode == tf.estimator.ModeKeys.TRAIN else 0.0

    def __call__(self, x):
        return tf.nn.dropout(x, rate=self.rate)
'''
ENCODER_TEST = '''\
import tensorflow as tf

from pkg import encoder


class EncoderTest(tf.test.TestCase):
    def test_eval_keeps_all(self):
        enc = encoder.Encoder(tf.estimator.ModeKeys.EVAL)
        self.assertAllEqual(enc(tf.ones([2])), tf.ones([2]))


if __name__ == "__main__":
    tf.test.main()
'''

# an Estimator program whose input_fn calls a helper of another module testing the mode
DATA = '''\
import numpy as np
import tensorflow as tf


def make_dataset(mode):
    x = np.ones([8, 2], np.float32)
    ds = tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1]))
    if mode == tf.estimator.ModeKeys.TRAIN:
        ds = ds.repeat(2)
    return ds.batch(4)
'''
MODEL = '''\
import tensorflow as tf

from pkg import data, helpers


def model_fn(features, labels, mode):
    HELPER
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    return data.make_dataset(tf.estimator.ModeKeys.TRAIN)


def main():
    est = tf.estimator.Estimator(model_fn, model_dir="/tmp/modekeys_model")
    est.train(train_input_fn, max_steps=4)


if __name__ == "__main__":
    main()
'''
HELPERS = '''\
import tensorflow as tf


def dropout_rate(mode):
    if mode == tf.estimator.ModeKeys.TRAIN:
        return 0.5
    return 0.0
'''


def _run(tmp_path, files: dict[str, str]) -> dict:
    package = tmp_path / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    paths = [str(p) for p in sorted(package.iterdir()) if p.name != "__init__.py"]
    return {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(paths, Options(), jobs=1)}


def test_a_script_running_a_model_that_is_no_estimator_gets_the_strings():
    result = rewrite(SCRIPT)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    text = result.output.decode()
    assert 'training = mode == "train"' in text
    assert 'out = build_model(tf.ones([2, 3]), "infer")' in text
    assert 'print(out.numpy(), "infer", "eval")' in text  # contrib.learn's INFER is PREDICT's "infer"
    assert "ModeKeys" not in text and "estimator" not in text  # (the unused import goes with them)
    [note] = result.diagnostics
    assert (note.code, note.severity, note.line) == ("TFM601", "note", 6)
    assert note.message.startswith("4 tf.estimator mode keys") and "no Estimator tfmigrate converts" in note.message
    compile(text, "snippet.py", "exec")


def test_a_test_file_and_the_helper_it_calls_with_a_key_both_convert(tmp_path):
    results = _run(tmp_path, {"encoder.py": ENCODER, "encoder_test.py": ENCODER_TEST})
    assert {n: r.status for n, r in results.items()} == {"encoder.py": "changed", "encoder_test.py": "changed"}
    assert results["encoder.py"].output.decode() == ENCODER.replace("tf.estimator.ModeKeys.TRAIN", '"train"')
    assert results["encoder_test.py"].output.decode() == ENCODER_TEST.replace("tf.estimator.ModeKeys.EVAL", '"eval"')


def test_a_helper_a_converted_model_fn_reaches_keeps_todays_finding(tmp_path):
    model = MODEL.replace("    HELPER\n", "    rate = helpers.dropout_rate(mode)\n")
    results = _run(tmp_path, {"data.py": DATA.replace("tf.estimator.ModeKeys.TRAIN", '"train"'),
                              "helpers.py": HELPERS, "model.py": model})
    assert results["helpers.py"].status == results["model.py"].status == "blocked"
    [helper] = results["helpers.py"].diagnostics
    assert (helper.code, helper.line) == ("TFM501", 4)  # the model_fn rule's, as before: not a constant here
    assert results["helpers.py"].output.decode() == HELPERS


def test_a_helper_reached_from_a_converted_input_fn_names_the_estimator_that_reaches_it(tmp_path):
    model = MODEL.replace("    HELPER\n", "").replace(", helpers", "")
    results = _run(tmp_path, {"data.py": DATA, "model.py": model})
    assert results["data.py"].status == results["model.py"].status == "blocked"
    [found] = results["data.py"].diagnostics
    assert (found.code, found.line) == ("TFM601", 8)
    assert found.message.startswith("tf.estimator.ModeKeys.TRAIN in `make_dataset`: this file builds no Estimator; "
                                    "the Estimator built at ")
    assert "model.py:19 reaches it through the call at " in found.message and "model.py:15" in found.message
    assert "imports it but builds no Estimator" not in found.message  # (what it said before: false)
    assert "write the key as its string" in found.message


def test_the_same_helper_with_the_key_written_as_its_string_converts_with_the_program(tmp_path):
    model = MODEL.replace("    HELPER\n", "").replace(", helpers", "")
    results = _run(tmp_path, {"data.py": DATA.replace("tf.estimator.ModeKeys.TRAIN", '"train"'), "model.py": model})
    assert results["model.py"].status == "changed", [d.format() for d in results["model.py"].diagnostics]


@pytest.mark.parametrize("src, line", [
    # the class itself, held in a name: its other attributes are not strings
    ("import tensorflow as tf\n\nMODES = tf.estimator.ModeKeys\n\n\ndef f(mode):\n    return mode == MODES.TRAIN\n", 3),
    # other Estimator API in the file: nothing changes until that is migrated (the key is not reported)
    ("import tensorflow as tf\n\n\ndef f(mode):\n    return mode == tf.estimator.ModeKeys.TRAIN\n\n\n"
     "def config():\n    return tf.estimator.RunConfig(model_dir='/tmp/x')\n", 9),
])
def test_a_file_with_other_estimator_api_stays_blocked_and_unchanged(src, line):
    found = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", line)]


def test_a_helper_holding_a_run_config_claims_no_importer_nor_denies_one():
    src = "import tensorflow as tf\n\n\ndef config():\n    return tf.estimator.RunConfig(model_dir='/tmp/x')\n"
    [found] = blocked(src).diagnostics
    assert found.message == ("tf.estimator.RunConfig in `config`: this file builds no Estimator, and no file linked "
                             "with it in this run calls `config` (a file is linked when its import of this module "
                             "resolves from the run's root): run tfmigrate from the directory where the program's "
                             "import paths start, with the file that builds the Estimator it serves, or remove it if "
                             "nothing uses it, and re-run")


def test_a_helper_holding_a_receiver_names_its_caller_or_its_importer(tmp_path):
    export = ("import tensorflow as tf\n\n\ndef receiver_fn():\n    x = tf.compat.v1.placeholder(tf.float32, [None, 2])\n"
              "    return tf.estimator.export.TensorServingInputReceiver(x, x)\n")
    runner = ("import tensorflow as tf\n\nfrom pkg import export\n\n\ndef serve(estimator):\n"
              "    return estimator.export_saved_model('/tmp/x', export.receiver_fn)\n\n\n"
              "def check():\n    return export.receiver_fn()\n")
    results = _run(tmp_path, {"export.py": export, "runner.py": runner})
    [found] = [d for d in results["export.py"].diagnostics if d.line == 6]
    assert found.message.startswith("tf.estimator.export.TensorServingInputReceiver in `receiver_fn`: this file "
                                    "builds no Estimator; `receiver_fn` is called at ")
    assert "runner.py:11 (a file that builds no Estimator tfmigrate converts)" in found.message
    # passed, never called: the importer is named, no caller claimed
    results = _run(tmp_path / "passed", {"export.py": export, "runner.py": runner.rsplit("\n\n\ndef check", 1)[0]})
    [found] = [d for d in results["export.py"].diagnostics if d.line == 6]
    assert "nothing in the migrated files calls `receiver_fn` (" in found.message
    assert "runner.py imports this module but does not call it)" in found.message


def test_names_and_class_attributes_holding_keys_convert_with_them():
    src = ("import tensorflow as tf\n\nTRAIN = tf.estimator.ModeKeys.TRAIN\n\n\nclass Modes:\n"
           "    EVAL = tf.estimator.ModeKeys.EVAL\n\n\ndef is_train_or_eval(mode):\n"
           "    return mode == TRAIN or mode == Modes.EVAL\n")
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert result.output.decode() == src.replace("tf.estimator.ModeKeys.TRAIN", '"train"').replace(
        "tf.estimator.ModeKeys.EVAL", '"eval"')
    [note] = result.diagnostics
    assert note.message.startswith("2 tf.estimator mode keys") and note.line == 3


def test_a_module_level_key_of_a_file_a_converted_estimator_imports_names_that_estimator(tmp_path):
    data = DATA.replace("import tensorflow as tf\n", "import tensorflow as tf\n\nTRAIN = tf.estimator.ModeKeys.TRAIN\n")
    data = data.replace("if mode == tf.estimator.ModeKeys.TRAIN:", 'if mode == "train":')
    model = MODEL.replace("    HELPER\n", "").replace(", helpers", "")
    results = _run(tmp_path, {"data.py": data, "model.py": model})
    assert results["data.py"].status == results["model.py"].status == "blocked"
    [found] = results["data.py"].diagnostics
    assert (found.code, found.line) == ("TFM601", 4)
    assert found.message.startswith("tf.estimator.ModeKeys.TRAIN at module level: this file builds no Estimator; ")
    assert "pkg/model.py imports it, a file of the Estimator built at " in found.message
    assert "model.py:19, which converts mode keys only in the files of its driver" in found.message
