"""TFM601 `estimator.predict(...)`: converted with the Estimator's yield semantics (per example or per batch,
predict_keys, features of (features, labels) elements); after training in the same function the migrated model holds
the weights the Estimator restored, elsewhere it restores them first (test_predict_restore.py)."""
from __future__ import annotations

import textwrap
import types

import pytest

from _helpers import blocked, converted, program, rewrite, section

PREDICT_MODEL_FN = """
def model_fn(features, labels, mode, params):
    net = tf.compat.v1.layers.dense(features["x"], 4, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 3)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode, predictions={"class_ids": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
"""

TRAIN = "est.train(input_fn=train_input_fn, max_steps=10)\n"


def prog(drive: str, body: str = PREDICT_MODEL_FN, **kw) -> str:
    return program(body, drive=drive, **kw)


def test_per_example_loop_with_predict_keys():
    out = converted(prog(TRAIN + 'for p in est.predict(input_fn=eval_input_fn, predict_keys=["class_ids"]):\n'
                                 '    print(p["class_ids"])\n'))
    assert 'for p in est.predict_examples(eval_input_fn(), predict_keys=["class_ids"]):' in out
    assert "    def predict_examples(self, dataset, predict_keys=None, yield_single_examples=True):" in out
    assert "est.predict(" not in out


def test_batches_positional_input_fn_and_list():
    out = converted(prog(TRAIN + "batches = list(est.predict(eval_input_fn, None, None, None, False))\n"))
    assert "batches = list(est.predict_examples(eval_input_fn(), predict_keys=None, yield_single_examples=False))" in out


def test_input_fn_taking_mode_gets_infer_and_mode_keys_inside_moved_lambdas_become_strings():
    extra = '''
    def input_fn(mode, batch=2):
        training = mode == tf.estimator.ModeKeys.TRAIN
        ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1]))
        return ds.repeat().batch(batch) if training else ds.batch(batch)
    '''
    drive = ("est.train(lambda: input_fn(tf.estimator.ModeKeys.TRAIN), max_steps=5)\n"
             "first = next(est.predict(input_fn=input_fn))\n"
             "more = list(est.predict(lambda: input_fn(tf.estimator.ModeKeys.PREDICT, 4)))\n")
    out = converted(prog(drive, extra=extra))
    assert 'first = next(est.predict_examples(input_fn(mode="infer")))' in out
    assert 'more = list(est.predict_examples(input_fn("infer", 4)))' in out
    assert 'est.fit(\n            input_fn("train"),' in out
    assert "tf.estimator" not in out


def test_after_train_and_evaluate_and_in_a_helper_built_estimator():
    drive = textwrap.dedent("""
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2)
    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    for p in est.predict(eval_input_fn):
        print(p)
    """)
    out = converted(prog(drive))
    assert "for p in est.predict_examples(eval_input_fn()):" in out


def test_ctl_target_trainer_predicts_from_its_model():
    out = converted(prog(TRAIN + "preds = list(est.predict(eval_input_fn))\n"), target="ctl")
    assert "preds = list(est.predict(eval_input_fn()))" in out
    trainer = section(out, "class ModelTrainer", "\ndef main")
    assert "    def predict(self, dataset, predict_keys=None, yield_single_examples=True):" in trainer
    assert "return self.model.predict_examples(dataset, predict_keys, yield_single_examples)" in trainer


def test_no_predict_no_generated_method():
    out = converted(prog(TRAIN))
    assert "predict_examples" not in out


@pytest.mark.parametrize("drive, words", [
    (TRAIN + "list(est.predict(eval_input_fn, hooks=[tf.estimator.StopAtStepHook(1)]))\n", "StopAtStepHook is not"),
])
def test_blocked(drive, words):
    result = blocked(prog(drive, extra="flag = True"))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_predict_in_another_function_restores_model_dir():
    # test_predict_restore.py has the other shapes of predict / evaluate / export with nothing trained before them
    src = prog(TRAIN + "report(est)\n", extra='''
    def report(estimator):
        return list(estimator.predict(eval_input_fn))
    ''')
    out = converted(src)
    assert ('    estimator.restore_checkpoint("/tmp/tfm-test", next(iter(eval_input_fn())))'
            "\n"
            "    return list(estimator.predict_examples(eval_input_fn()))") in out


def test_model_fn_without_predictions_is_blocked():
    result = blocked(program(drive=TRAIN + "list(est.predict(eval_input_fn))\n"))
    assert any("returns no predictions" in d.message for d in result.diagnostics)


def test_input_context_without_default_is_blocked_for_predict():
    extra = '''
    def ctx_input_fn(input_context):
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1])).batch(1)
    '''
    result = blocked(prog(TRAIN + "list(est.predict(ctx_input_fn))\n", extra=extra))
    assert any("input_context without a default" in d.message for d in result.diagnostics)


# ---- the generated generator behaves like Estimator.predict ----------------------------------------------------

class _T:
    """A stand-in tensor: a list of rows with .numpy()."""

    def __init__(self, rows):
        self.rows = rows

    def numpy(self):
        return list(self.rows)


def _fake_tf():
    def map_structure(fn, value):
        return {k: fn(v) for k, v in value.items()} if isinstance(value, dict) else fn(value)

    return types.SimpleNamespace(function=lambda f: f, nest=types.SimpleNamespace(map_structure=map_structure))


def _generated_predict(dict_outputs: bool):
    out = converted(prog(TRAIN + "list(est.predict(eval_input_fn))\n"))
    method = section(out, "    def predict_examples(", "\n\ndef build_model")
    namespace = {"tf": _fake_tf()}
    exec(textwrap.dedent(method), namespace)

    class Model:
        def __call__(self, features, training=False):
            assert training is False
            return [2 * x for x in features]

        def predictions(self, output):
            return {"double": _T(output), "neg": _T([-x for x in output])} if dict_outputs else _T(output)

    Model.predict_examples = namespace["predict_examples"]
    return Model()


def test_generated_predict_yields_like_the_estimator():
    model = _generated_predict(dict_outputs=True)
    batches = [[1, 2], [3]]
    assert list(model.predict_examples(batches)) == [
        {"double": 2, "neg": -2}, {"double": 4, "neg": -4}, {"double": 6, "neg": -6}]
    # (features, labels) elements: the features are predicted, as Estimator.predict took them
    assert [p["double"] for p in model.predict_examples([([1, 2], [0, 1])])] == [2, 4]
    assert list(model.predict_examples(batches, predict_keys=["neg"])) == [{"neg": -2}, {"neg": -4}, {"neg": -6}]
    assert list(model.predict_examples(batches, yield_single_examples=False)) == [
        {"double": [2, 4], "neg": [-2, -4]}, {"double": [6], "neg": [-6]}]
    bare = _generated_predict(dict_outputs=False)
    assert list(bare.predict_examples(batches)) == [2, 4, 6]
    assert list(bare.predict_examples(batches, yield_single_examples=False)) == [[2, 4], [6]]


# ---- export_saved_model ------------------------------------------------------------------------------------------

SPEC = 'SPEC = {"x": tf.io.FixedLenFeature([2], tf.float32)}'


def test_export_with_parsing_receiver_named_and_inline():
    drive = TRAIN + textwrap.dedent("""
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC)
    path = est.export_saved_model("/tmp/export", receiver)
    est.export_savedmodel("/tmp/export", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC, 8))
    """)
    out = converted(prog(drive, extra=SPEC))
    assert 'path = est.export_parsing_saved_model("/tmp/export", SPEC)' in out
    assert 'est.export_parsing_saved_model("/tmp/export", SPEC, default_batch_size=8)' in out
    assert "receiver = " not in out  # the receiver fn's statement goes with the Estimator
    model = section(out, "class Model(", "\ndef build_model")
    assert "def export_parsing_saved_model(self, export_dir_base, feature_spec, default_batch_size=None):" in model
    assert 'serving_default, [tf.TensorSpec([default_batch_size], tf.string, name="examples")], "predict")})' in model


def test_export_ctl_target_exports_the_trainers_model():
    drive = TRAIN + 'est.export_saved_model("/tmp/e", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC))\n'
    out = converted(prog(drive, extra=SPEC), target="ctl")
    assert 'est.model.export_parsing_saved_model("/tmp/e", SPEC)' in out


@pytest.mark.parametrize("drive, words", [
    (TRAIN + 'est.export_saved_model("/tmp/e", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC), '
             'as_text=True)\n', "as_text"),
    (TRAIN + 'est.experimental_export_all_saved_models("/tmp/e", {})\n', "experimental_export_all_saved_models"),
])
def test_export_blocked(drive, words):
    extra = SPEC + textwrap.dedent('''

    def serving_input_fn():
        inputs = {"x": tf.compat.v1.placeholder(tf.float32, [None, 2])}
        return tf.estimator.export.ServingInputReceiver(inputs, inputs)
    ''')
    result = blocked(prog(drive, extra=extra))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_export_with_a_hand_written_receiver_before_training_restores_model_dir_first():
    """Nothing trained before it in the function: the Estimator exported model_dir's latest checkpoint (and raised
    without one); the migrated model restores it first, required (tests/rewrite/test_predict_only.py)."""
    extra = SPEC + textwrap.dedent('''

    def serving_input_fn():
        inputs = {"x": tf.compat.v1.placeholder(tf.float32, [None, 2])}
        return tf.estimator.export.ServingInputReceiver(inputs, inputs)
    ''')
    out = converted(prog('est.export_saved_model("/tmp/e", serving_input_fn)\n' + TRAIN, extra=extra))
    assert "receiver_sample(serving_input_fn)" in out and "required=True" in out


def test_export_of_a_model_fn_with_export_outputs_writes_its_signatures():
    body = PREDICT_MODEL_FN.replace(
        'predictions={"class_ids": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)})',
        'predictions={"class_ids": tf.argmax(logits, 1)},\n'
        '            export_outputs={"out": tf.estimator.export.PredictOutput({"class_ids": tf.argmax(logits, 1)})})')
    assert "export_outputs" in body
    drive = TRAIN + 'est.export_saved_model("/tmp/e", tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC))\n'
    out = converted(prog(drive, body=body, extra=SPEC))
    assert 'EXPORT_OUTPUTS = {"out": "predict"}' in out and '"out": {"class_ids": tf.argmax(logits, 1)},' in out


def test_model_fn_comprehension_variables_are_local():
    body = PREDICT_MODEL_FN.replace('features["x"]', 'tf.concat([features[k] for k in ["x"]], axis=1)')
    out = converted(prog(TRAIN, body=body))
    assert 'tf.concat([features[k] for k in ["x"]], axis=1)' in out


# ---- EvalSpec exporters ------------------------------------------------------------------------------------------

def _exporters_program(exporters: str, config: str = 'config = tf.estimator.RunConfig(model_dir="/tmp/m", tf_random_seed=7)',
                       assign: bool = True) -> str:
    drive = textwrap.dedent(f"""
    serving = tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC)
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2, exporters={exporters})
    {"result = " if assign else ""}tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    """)
    return prog(drive, extra=SPEC, run_config=config)


def test_final_and_latest_exporters_export_after_training():
    result = rewrite(_exporters_program('[tf.estimator.FinalExporter("final", serving), '
                                        'tf.estimator.LatestExporter("latest", serving, exports_to_keep=2)]'))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert 'est.export_parsing_saved_model(tf.io.gfile.join("/tmp/m", "export", "final"), SPEC),' in out
    assert 'est.export_parsing_saved_model(tf.io.gfile.join("/tmp/m", "export", "latest"), SPEC),' in out
    assert "result = (est.evaluate(eval_input_fn(), steps=2, return_dict=True), export_results)" in out
    assert "serving = " not in out and "Exporter" not in out
    assert any("LatestExporter" in d.message for d in result.diagnostics)


def test_single_exporter_and_a_bare_train_and_evaluate():
    out = converted(_exporters_program('tf.estimator.FinalExporter("f", serving)', assign=False))
    assert '    est.export_parsing_saved_model(tf.io.gfile.join("/tmp/m", "export", "f"), SPEC)\n' in out


@pytest.mark.parametrize("exporters, config, words", [
    ('[tf.estimator.BestExporter("best", serving)]', None, "no save_checkpoints_steps: checkpoints every 600 s"),
    ('[tf.estimator.FinalExporter("f", serving)]', "config = tf.estimator.RunConfig(tf_random_seed=7)",
     "without a model_dir"),
    ('[tf.estimator.FinalExporter("f", lambda: None)]', None, "serving_input_receiver_fn"),
])
def test_exporters_blocked(exporters, config, words):
    src = _exporters_program(exporters, **({"config": config} if config else {}))
    result = blocked(src)
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_best_exporter_converts_when_the_final_evaluation_was_the_only_one():
    # TF 2.15 evaluated at the first checkpoint saved during training and at the end; with no save before the end,
    # the one evaluation is the final one and a BestExporter's first export is unconditional
    config = 'config = tf.estimator.RunConfig(model_dir="/tmp/m", tf_random_seed=7, save_checkpoints_steps={})'
    result = rewrite(_exporters_program('[tf.estimator.BestExporter(serving_input_receiver_fn=serving, '
                                        'compare_fn=lambda best_eval_result, current_eval_result: False)]',
                                        config=config.format(10)))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert 'est.export_parsing_saved_model(tf.io.gfile.join("/tmp/m", "export", "best_exporter"), SPEC),' in out
    assert "Exporter" not in out
    assert any("BestExporter" in d.message and d.severity == "note" for d in result.diagnostics)
    # save_checkpoints_steps and max_steps the same flag: one value
    drive = textwrap.dedent("""
    serving = tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC)
    eval_spec = tf.estimator.EvalSpec(eval_input_fn, exporters=tf.estimator.BestExporter("b", serving))
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train_input_fn, max_steps=FLAGS.steps), eval_spec)
    """)
    src = prog(drive, extra=SPEC + "\nFLAGS = object()", run_config=config.format("FLAGS.steps"))
    assert 'tf.io.gfile.join("/tmp/m", "export", "b")' in converted(src)


@pytest.mark.parametrize("every, extra, words", [
    ("5", "", "save_checkpoints_steps=5 < max_steps=10"),
    ("FLAGS.every", "", "are not literals or one value"),
    ("FLAGS.steps", "\nFLAGS.steps = 4", "are not literals or one value"),
])
def test_best_exporter_blocked_when_training_may_have_evaluated_before_the_end(every, extra, words):
    config = f'config = tf.estimator.RunConfig(model_dir="/tmp/m", save_checkpoints_steps={every})'
    drive = textwrap.dedent("""
    serving = tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC)
    eval_spec = tf.estimator.EvalSpec(eval_input_fn, exporters=tf.estimator.BestExporter("b", serving))
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train_input_fn, max_steps=STEPS), eval_spec)
    """).replace("STEPS", "FLAGS.steps" if "FLAGS" in every else "10")
    result = blocked(prog(drive, extra=SPEC + "\nFLAGS = object()" + extra, run_config=config))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_predict_in_a_comprehension_after_training_at_module_level():
    src = prog("")
    src = src[:src.index("def main():")] + textwrap.dedent('''\
        est = tf.estimator.Estimator(model_fn, "/tmp/m")
        est.train(train_input_fn, max_steps=3)
        rows = [p["class_ids"] for p in est.predict(eval_input_fn)]
        ''')
    out = converted(src)
    assert 'rows = [p["class_ids"] for p in est.predict_examples(eval_input_fn())]' in out
