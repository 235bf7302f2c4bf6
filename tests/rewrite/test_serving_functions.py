"""A dict of serving_input_receiver_fns looked up by a flag (rules/planners/serving_functions.py): each receiver is
converted and the lookup stays, evaluated at the export; blocked where the key or the functions cannot be known."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite, section
from test_predict import PREDICT_MODEL_FN

RECEIVERS = '''
def json_serving_fn():
    inputs = {"x": tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")}
    return tf.estimator.export.ServingInputReceiver(inputs, inputs)


def csv_serving_fn():
    row = tf.compat.v1.placeholder(shape=[None], dtype=tf.string)
    a, b = tf.io.decode_csv(row, record_defaults=[[0.0], [0.0]])
    return tf.estimator.export.ServingInputReceiver({"x": tf.stack([a, b], axis=1)}, {"csv_row": row})


SERVING_FUNCTIONS = {"JSON": json_serving_fn, "CSV": csv_serving_fn}
'''

FLAG = '''
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--export-format", choices=["JSON", "CSV"], default="JSON")
args = parser.parse_args()
'''

DRIVE = '''
exporter = tf.estimator.FinalExporter("census", SERVING_FUNCTIONS[args.export_format])
train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, exporters=[exporter])
tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
'''


def prog(drive: str = DRIVE, extra: str = RECEIVERS, flag: str = FLAG) -> str:
    return program(PREDICT_MODEL_FN, drive=flag + drive, extra=extra)


def messages(result) -> list[str]:
    return [d.format() for d in result.diagnostics]


def test_dict_by_flag_keeps_the_lookup_and_converts_every_receiver():
    out = converted(prog())
    assert 'tf.io.gfile.join("/tmp/tfm-test", "export", "census"),\n' \
           "        SERVING_FUNCTIONS[args.export_format],\n" in out
    assert 'return (inputs, inputs)' in section(out, "def json_serving_fn", "\ndef ")
    csv = section(out, "def csv_serving_fn", "\nSERVING_FUNCTIONS")
    assert 'return ({"x": tf.stack([a, b], axis=1)}, {"csv_row": row})' in csv
    assert "tf.compat.v1.placeholder(shape=[None], dtype=tf.string)" in csv
    assert 'SERVING_FUNCTIONS = {"JSON": json_serving_fn, "CSV": csv_serving_fn}' in out
    assert "exporter = " not in out


@pytest.mark.parametrize("drive, flag", [
    ('est.export_saved_model("/tmp/e", SERVING_FUNCTIONS["CSV"])\n', ""),
    ('est.export_saved_model("/tmp/e", SERVING_FUNCTIONS[FORMAT])\n', 'FORMAT = "JSON"\n'),
    ('est.export_saved_model("/tmp/e", SERVING_FUNCTIONS[FLAGS.export_format])\n',
     'from absl import flags\nflags.DEFINE_enum("export_format", "JSON", ["JSON", "CSV"], "format")\nFLAGS = flags.FLAGS\n'),
])
def test_literal_name_and_absl_keys(drive, flag):
    out = converted(prog("est.train(input_fn=train_input_fn, max_steps=10)\n" + drive, flag=flag))
    lookup = drive.split(", ", 1)[1].rstrip(")\n")
    assert f'est.export_receiver_saved_model("/tmp/e", {lookup})' in out


def test_flag_without_choices_is_noted():
    result = rewrite(prog(flag=FLAG.replace('choices=["JSON", "CSV"], ', "")))
    assert result.status == "changed", messages(result)
    assert any("raises it at the export, after training" in m for m in messages(result)), messages(result)


@pytest.mark.parametrize("flag, extra, words", [
    ("import sys\nargs = sys.argv\n", RECEIVERS, "computed at run time with no default"),
    (FLAG.replace('default="JSON"', "default=None"), RECEIVERS, "has no string default"),
    (FLAG.replace('default="JSON"', 'default="EXAMPLE"').replace('choices=["JSON", "CSV"], ', ""), RECEIVERS,
     "default 'EXAMPLE' is not a key"),
    (FLAG.replace('"CSV"]', '"CSV", "EXAMPLE"]'), RECEIVERS, "the flag allows 'EXAMPLE', not a key"),
    (FLAG, RECEIVERS + '\nSERVING_FUNCTIONS["RAW"] = json_serving_fn\n', "is changed here"),
    (FLAG, RECEIVERS + '\nSERVING_FUNCTIONS.update(RAW=json_serving_fn)\n', "is changed here"),
    (FLAG, RECEIVERS.replace('"CSV": csv_serving_fn}',
                             '"CSV": tf.estimator.export.build_parsing_serving_input_receiver_fn({})}'),
     "is not a def returning ServingInputReceiver"),
    (FLAG, RECEIVERS.replace("    row = tf.compat.v1.placeholder",
                             "    with tf.compat.v1.Session() as sess:\n        sess.run(tf.constant(1))\n"
                             "    row = tf.compat.v1.placeholder"), "runs a session"),
    (FLAG, RECEIVERS.replace("return tf.estimator.export.ServingInputReceiver({",
                             "return tf.estimator.export.TensorServingInputReceiver({"), "mixes ServingInputReceiver"),
])
def test_blocked(flag, extra, words):
    result = blocked(prog(extra=extra, flag=flag))
    assert any(words in m for m in messages(result)), messages(result)


def test_key_parameter_with_no_default_blocked():
    drive = 'est.train(input_fn=train_input_fn, max_steps=10)\nexport(est, input("format? "))\n'
    extra = RECEIVERS + '\n\ndef export(est, key):\n    est.export_saved_model("/tmp/e", SERVING_FUNCTIONS[key])\n'
    result = blocked(prog(drive, extra=extra, flag=""))
    assert any("serving_input_receiver_fn `SERVING_FUNCTIONS[key]`: the key `key` is computed at run time" in m
               for m in messages(result)), messages(result)


def test_dict_in_another_module_of_the_trainer_package(tmp_path):
    """The census layout: receivers and their dict in input.py, the flag and the exporter in task.py."""
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text("import tensorflow as tf\n\n\n" + textwrap.dedent(PREDICT_MODEL_FN).lstrip())
    (pkg / "inputs.py").write_text("import tensorflow as tf\n\n" + textwrap.dedent(RECEIVERS))
    (pkg / "task.py").write_text(textwrap.dedent('''
        import argparse

        import tensorflow as tf

        from trainer import inputs as input_module
        from trainer import model


        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1])).batch(1).repeat()


        def train_and_evaluate(args):
            exporter = tf.estimator.FinalExporter("census", input_module.SERVING_FUNCTIONS[args.export_format])
            eval_spec = tf.estimator.EvalSpec(input_fn, steps=1, exporters=[exporter])
            est = tf.estimator.Estimator(model.model_fn, "/tmp/tfm-pkg")
            tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=5), eval_spec)


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--export-format", choices=["JSON", "CSV"], default="JSON")
            train_and_evaluate(parser.parse_args())
        ''').lstrip())
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert {k: r.status for k, r in results.items() if k != "__init__.py"} == \
        {"model.py": "changed", "inputs.py": "changed", "task.py": "changed"}, \
        {k: [d.format() for d in r.diagnostics] for k, r in results.items()}
    assert "return (inputs, inputs)" in results["inputs.py"].output.decode()
    assert "input_module.SERVING_FUNCTIONS[args.export_format]," in results["task.py"].output.decode()


def test_dict_read_elsewhere_blocked():
    drive = DRIVE + 'print(SERVING_FUNCTIONS["JSON"]().features)\n'
    result = blocked(prog(drive))
    assert any("`SERVING_FUNCTIONS`, a dict of serving_input_receiver_fns, is also used here" in m
               for m in messages(result)), messages(result)


# the rest of the census shape: `config.model_dir` read from the RunConfig, an input_fn that forwards to a helper
CHAIN = '''
config = tf.estimator.RunConfig(tf_random_seed=7)
config = config.replace(model_dir=args.job_dir)
print("Model dir %s" % config.model_dir)
'''
JOB_DIR = '\nimport argparse\nargs = argparse.Namespace(job_dir="/tmp/tfm-job")\n'


def test_model_dir_read_from_the_estimators_config_is_its_value():
    out = converted(program(PREDICT_MODEL_FN, run_config=JOB_DIR + CHAIN, drive=DRIVE.replace(
        "args.export_format", "\"JSON\""), extra=RECEIVERS))
    assert 'print("Model dir %s" % args.job_dir)' in out
    assert "config = " not in out and "RunConfig" not in out


@pytest.mark.parametrize("chain", [
    # read before the last .replace: not the config the Estimator got
    CHAIN.replace('print("Model dir %s" % config.model_dir)\n', "").replace(
        "config = config.replace", 'print(config.model_dir)\nconfig = config.replace'),
    CHAIN.replace("config.model_dir", "config.tf_random_seed"),  # another attribute
    CHAIN.replace("config.replace(model_dir=args.job_dir)", "config"),  # no model_dir: a temporary one
])
def test_other_config_reads_stay_blocked(chain):
    result = blocked(program(PREDICT_MODEL_FN, run_config=JOB_DIR + chain, drive=DRIVE.replace(
        "args.export_format", "\"JSON\""), extra=RECEIVERS))
    assert any("`config` (a TF1 config/spec value) is also used here" in m for m in messages(result)), messages(result)


def test_input_fn_forwarding_to_a_helper_with_an_iterator():
    extra = '''
    def read(n, shuffle=True):
        ds = tf.data.Dataset.from_tensor_slices({"x": [[1.0, 2.0]] * n, "y": [[1.0]] * n})
        features = ds.repeat().batch(1).make_one_shot_iterator().get_next()
        return features, features.pop("y")
    '''
    drive = '''
    def train_input():
        """Training batches."""
        return read(4)
    est.train(input_fn=train_input, max_steps=10)
    '''
    out = converted(program(PREDICT_MODEL_FN, drive=textwrap.dedent(drive), extra=textwrap.dedent(extra)))
    assert "make_one_shot_iterator" not in out
    assert "return ds.repeat().batch(1).map(lambda features: (features, features.pop(\"y\")))" in out


FACTORY = '''
def build_tensor_serving_input_receiver_fn(shape, batch_size=1):
    """The TF official models' utils/export helper shape."""
    def serving_input_receiver_fn():
        features = tf.compat.v1.placeholder(dtype=tf.float32, shape=[batch_size] + shape, name="input_tensor")
        return tf.estimator.export.TensorServingInputReceiver(features=features, receiver_tensors=features)

    return serving_input_receiver_fn
'''
EXPORT = '''
est.train(input_fn=train_input_fn, max_steps=10)
input_receiver_fn = build_tensor_serving_input_receiver_fn([2], batch_size=None)
est.export_saved_model("/tmp/e", input_receiver_fn)
'''


def test_receiver_factory_whose_calls_all_feed_exports():
    body = PREDICT_MODEL_FN.replace('features["x"]', "features")
    out = converted(program(body, drive=EXPORT, extra=FACTORY))
    assert 'est.export_receiver_saved_model("/tmp/e", input_receiver_fn, single_feature=True)' in out
    assert "        return (features, features)\n\n    return serving_input_receiver_fn" in out


def test_receiver_factory_used_elsewhere_blocked():
    body = PREDICT_MODEL_FN.replace('features["x"]', "features")
    drive = EXPORT + "print(build_tensor_serving_input_receiver_fn([2])().features)\n"
    result = blocked(program(body, drive=drive, extra=FACTORY))
    assert any("`build_tensor_serving_input_receiver_fn` is also used here" in m for m in messages(result)), \
        messages(result)
