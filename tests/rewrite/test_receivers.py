"""Hand-written serving_input_receiver_fns (rules/planners/receivers.py): converted wherever the program writes them, the
model's export_receiver_saved_model fed by the function itself; blocked with the reason where the export would not
be the Estimator's."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program, section
from test_predict import PREDICT_MODEL_FN, TRAIN

RECEIVER = '''
def serving_input_fn():
    inputs = {"x": tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")}
    return tf.estimator.export.ServingInputReceiver(inputs, inputs)
'''


def prog(drive: str, extra: str = RECEIVER, **kw) -> str:
    return program(PREDICT_MODEL_FN, drive=drive, extra=extra, **kw)


def test_export_saved_model_and_exporter_use_the_function_itself():
    drive = textwrap.dedent('''
    exporter = tf.estimator.FinalExporter("final", serving_input_fn)
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, exporters=[exporter])
    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    est.export_saved_model("/tmp/e", serving_input_fn)
    ''')
    out = converted(prog(drive))
    assert 'est.export_receiver_saved_model("/tmp/e", serving_input_fn)' in out
    assert 'est.export_receiver_saved_model(\n        tf.io.gfile.join("/tmp/tfm-test", "export", "final"),' in out
    receiver = section(out, "def serving_input_fn", "\ndef ")
    assert receiver.rstrip().endswith("return (inputs, inputs)")
    assert 'tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")' in receiver
    model = section(out, "class Model(", "\ndef build_model")
    assert "def export_receiver_saved_model(self, export_dir_base, serving_input_receiver_fn, single_feature=False):" in model
    assert "tf.compat.v1.wrap_function(receiver, [])" in model
    assert "def export_parsing_saved_model" not in model  # only what the program uses
    assert "exporter = " not in out


def test_v1_alias_placeholder_keyword_receiver_tensor_receiver_and_ctl():
    extra = '''
    def make_receiver(batch=None):
        image = tf.placeholder(dtype=tf.float32, shape=[batch, 2])
        return tf.estimator.export.TensorServingInputReceiver(features=image * 2.0, receiver_tensors={"image": image})
    '''
    header = "import tensorflow.compat.v1 as tf"
    body = PREDICT_MODEL_FN.replace('features["x"]', "features")
    src = program(body, drive=TRAIN + 'est.export_saved_model("/tmp/e", make_receiver)\n', extra=extra, header=header)
    out = converted(src, target="ctl")
    assert 'est.model.export_receiver_saved_model("/tmp/e", make_receiver, single_feature=True)' in out
    receiver = section(out, "def make_receiver", "\ndef ")
    assert "image = tf.compat.v1.placeholder(dtype=tf.float32, shape=[batch, 2])" in receiver
    assert 'return (image * 2.0, {"image": image})' in receiver


def test_receiver_defined_in_main_and_two_exports_share_it():
    drive = textwrap.dedent('''
    def serving():
        ids = tf.compat.v1.placeholder_with_default(tf.zeros([1, 2]), [None, 2])
        return tf.estimator.export.ServingInputReceiver({"x": ids}, ids)
    est.train(input_fn=train_input_fn, max_steps=10)
    first = est.export_saved_model("/tmp/a", serving)
    second = est.export_saved_model("/tmp/b", serving_input_receiver_fn=serving)
    ''')
    out = converted(prog(drive, extra=""))
    assert 'first = est.export_receiver_saved_model("/tmp/a", serving)' in out
    assert 'second = est.export_receiver_saved_model("/tmp/b", serving)' in out
    assert "tf.compat.v1.placeholder_with_default(tf.zeros([1, 2]), [None, 2])" in out
    assert 'return ({"x": ids}, ids)' in out


@pytest.mark.parametrize("extra, words", [
    (RECEIVER.replace("def serving_input_fn():", "def serving_input_fn(batch):"),
     "takes batch, but the Estimator called it with no arguments"),
    (RECEIVER.replace("(inputs, inputs)", "(inputs, inputs, {\"alt\": inputs})"), "receiver_tensors_alternatives"),
    (RECEIVER.replace("return tf.estimator.export.ServingInputReceiver(inputs, inputs)", "return make(inputs)"),
     "only a direct tf.estimator.export.ServingInputReceiver"),
    (RECEIVER.replace("tf.compat.v1.placeholder(tf.float32", "tf.compat.v1.sparse_placeholder(tf.float32"),
     "sparse_placeholder"),
    (RECEIVER + "\nSHAPE = serving_input_fn().features\n", "is also used here"),
])
def test_receivers_blocked(extra, words):
    result = blocked(prog(TRAIN + 'est.export_saved_model("/tmp/e", serving_input_fn)\n', extra=extra))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_raw_receiver_and_unfollowable_receivers_are_blocked_with_advice():
    raw = blocked(prog(TRAIN + 'est.export_saved_model("/tmp/e", tf.estimator.export.build_raw_serving_input_receiver_fn({}))\n'))
    assert any("a signature without inputs" in d.message for d in raw.diagnostics)
    lookup = blocked(prog(TRAIN + 'est.export_saved_model("/tmp/e", RECEIVERS[FLAGS_FORMAT])\n',
                          extra=RECEIVER + '\nRECEIVERS = {"raw": serving_input_fn}\nFLAGS_FORMAT = input()\n'))
    # a dict of receivers converts with a key known at rewrite time (test_serving_functions.py), not one read at run time
    assert any("serving_input_receiver_fn `RECEIVERS[FLAGS_FORMAT]`: the key `FLAGS_FORMAT` is computed at run time"
               in d.message for d in lookup.diagnostics)


def test_receiver_in_a_third_module_of_a_trainer_package(tmp_path):
    """model_fn in model.py, the receiver in serving.py, the driver in task.py: all three migrate as one unit."""
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text("import tensorflow as tf\n\n\n" + textwrap.dedent(PREDICT_MODEL_FN).lstrip())
    (pkg / "serving.py").write_text("import tensorflow as tf\n\n" + textwrap.dedent(RECEIVER))
    (pkg / "task.py").write_text(textwrap.dedent('''
        import tensorflow as tf

        from trainer import model, serving


        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1])).batch(1).repeat()


        def main():
            est = tf.estimator.Estimator(model.model_fn, "/tmp/tfm-pkg")
            est.train(input_fn, max_steps=5)
            est.export_saved_model("/tmp/tfm-pkg-export", serving.serving_input_fn)


        if __name__ == "__main__":
            main()
        ''').lstrip())
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert {k: r.status for k, r in results.items() if k != "__init__.py"} == \
        {"model.py": "changed", "serving.py": "changed", "task.py": "changed"}, \
        {k: [d.format() for d in r.diagnostics] for k, r in results.items()}
    assert "return (inputs, inputs)" in results["serving.py"].output.decode()
    assert "est.export_receiver_saved_model(\"/tmp/tfm-pkg-export\", serving.serving_input_fn)" in \
        results["task.py"].output.decode()
    assert "def export_receiver_saved_model" in results["model.py"].output.decode()
