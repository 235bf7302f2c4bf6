"""TFM605 TPUEstimator(use_tpu=False): converted as the Estimator it was on CPU (rules/planners/tpu.py), in several program
shapes; every way use_tpu may be True, and what only a TPU ran, blocks with its reason."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, dotted_names, rewrite, section

INPUTS = '''\
def train_input_fn(params):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [0, 1] * 4))
    return ds.batch(params["batch_size"]).repeat()


def eval_input_fn(params):
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [0, 1] * 4)).batch(params["batch_size"])
'''

METRIC_FN = '''\
def metric_fn(labels, logits):
    predicted = tf.argmax(logits, axis=1)
    return {"accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted)}
'''

MODEL_FN = '''\
def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    if params["use_tpu"]:
        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)
'''

CONFIG = ('config = tf.compat.v1.estimator.tpu.RunConfig(model_dir="/tmp/tfm-tpu", tf_random_seed=3, '
          'tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=10))')
ESTIMATOR = ('est = tf.compat.v1.estimator.tpu.TPUEstimator(model_fn=model_fn, config=config, params={{"lr": 0.1}}, '
             'use_tpu={use_tpu}, train_batch_size=4, eval_batch_size=8)')
DRIVE = 'est.train(input_fn=train_input_fn, max_steps=10)\nest.evaluate(input_fn=eval_input_fn)'


def tpu_program(*, use_tpu="False", model_fn=MODEL_FN, metric_fn=METRIC_FN, config=CONFIG, estimator=ESTIMATOR,
                drive=DRIVE, extra="", inputs=INPUTS, main=True) -> str:
    body = "\n".join([config, estimator.format(use_tpu=use_tpu), drive])
    driver = ("def main():\n" + textwrap.indent(body, "    ") + '\n\n\nif __name__ == "__main__":\n    main()\n'
              if main else body + "\n")
    parts = ["import tensorflow as tf", extra, inputs, metric_fn, model_fn, driver]
    return "\n\n".join(textwrap.dedent(p).strip("\n") + "\n" for p in parts if p.strip())


def test_literal_false_converts_per_mode_params_and_metric_fn():
    out = converted(tpu_program())
    main = " ".join(section(out, "def main", "\nif __name__").split())
    # the model gets TRAIN's params (batch_size, use_tpu=False); each input_fn its mode's batch size
    assert 'build_model({"lr": 0.1, "batch_size": 4, "use_tpu": False})' in main
    assert 'train_input_fn( params={"lr": 0.1, "batch_size": 4}' in main.replace("(params", "( params")
    assert 'eval_input_fn( params={"lr": 0.1, "batch_size": 8}' in main.replace("(params", "( params")
    assert 'keras.metrics.SparseCategoricalAccuracy(name="accuracy")' in out
    assert not any("tpu" in name.lower() for name in dotted_names(out))
    assert "def metric_fn" not in out  # inlined into the model's metrics, nothing else calls it
    assert "use_tpu is not supported" not in out  # a literal False: nothing to check at run time


def test_module_level_program_with_nested_metric_fn_and_named_eval_metrics():
    model_fn = MODEL_FN.replace(
        "    if mode == tf.estimator.ModeKeys.EVAL:\n",
        "    def metrics(labels, logits):\n"
        "        return {\"acc\": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}\n"
        "    eval_metrics = (metrics, {\"labels\": labels, \"logits\": logits})\n"
        "    if mode == tf.estimator.ModeKeys.EVAL:\n").replace("eval_metrics=(metric_fn, [labels, logits])",
                                                             "eval_metrics=eval_metrics")
    out = converted(tpu_program(model_fn=model_fn, metric_fn="", main=False))
    assert 'SparseCategoricalAccuracy(name="acc")' in out


def test_not_use_tpu_branch_and_params_get():
    model_fn = MODEL_FN.replace('    if params["use_tpu"]:\n        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)\n',
                                '    if not params.get("use_tpu", False):\n        pass\n'
                                '    else:\n        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)\n')
    out = converted(tpu_program(model_fn=model_fn))
    assert "CrossShardOptimizer" not in out


def test_use_tpu_read_into_a_local_then_tested():
    model_fn = MODEL_FN.replace('    if params["use_tpu"]:\n', '    use_tpu = params["use_tpu"]\n    if use_tpu:\n')
    out = converted(tpu_program(model_fn=model_fn))
    assert "CrossShardOptimizer" not in out and "use_tpu" not in section(out, "class Model", "\ndef build_model")


def test_conditional_expression_on_the_flag_takes_the_cpu_value():
    extra = 'flags = tf.compat.v1.flags\nflags.DEFINE_bool("use_tpu", False, "tpu?")\nFLAGS = flags.FLAGS'
    model_fn = MODEL_FN.replace('    if params["use_tpu"]:\n        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)\n',
                                "    optimizer = (tf.compat.v1.tpu.CrossShardOptimizer(optimizer) if FLAGS.use_tpu\n"
                                "                 else optimizer)\n")
    out = converted(tpu_program(model_fn=model_fn, use_tpu="FLAGS.use_tpu", extra=extra))
    assert "CrossShardOptimizer" not in out and "keras.optimizers.SGD(" in out


def test_predict_gets_the_predict_batch_size():
    model_fn = MODEL_FN.replace('    loss =', '    if mode == tf.estimator.ModeKeys.PREDICT:\n'
                                '        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, predictions={"y": logits})\n'
                                '    loss =')
    estimator = ESTIMATOR.replace("eval_batch_size=8", "eval_batch_size=8, predict_batch_size=2")
    out = converted(tpu_program(model_fn=model_fn, estimator=estimator,
                                drive=DRIVE + "\nprint(list(est.predict(input_fn=eval_input_fn)))"))
    main = " ".join(section(out, "def main", "\nif __name__").split())
    assert 'est.predict_examples( eval_input_fn(params={"lr": 0.1, "batch_size": 2})' in main.replace("(eval", "( eval")


def test_tpu_config_assigned_to_a_name_goes_with_the_run_config():
    config = ("tpu_cfg = tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=100, num_shards=8)\n"
              'config = tf.compat.v1.estimator.tpu.RunConfig(model_dir="/tmp/tfm-tpu", tpu_config=tpu_cfg)')
    out = converted(tpu_program(config=config))
    assert "tpu_cfg" not in out and "TPUConfig" not in out


def test_custom_loop_target_passes_the_same_params():
    out = converted(tpu_program(), target="ctl")
    assert '{"lr": 0.1, "batch_size": 4, "use_tpu": False}' in out
    assert 'params={"lr": 0.1, "batch_size": 8}' in out


@pytest.mark.parametrize("define", [
    'flags.DEFINE_bool("use_tpu", False, "tpu?")',
    'flags.DEFINE_boolean(name="use_tpu", default=False, help="tpu?")',
])
def test_absl_flag_defaulting_to_false_converts_with_a_run_time_check(define):
    extra = f"flags = tf.compat.v1.flags\n{define}\nFLAGS = flags.FLAGS"
    result = rewrite(tpu_program(use_tpu="FLAGS.use_tpu", extra=extra))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    main = section(out, "def main", "\nif __name__")
    assert "if FLAGS.use_tpu:" in main and "raise ValueError(" in main
    assert main.index("if FLAGS.use_tpu:") < main.index("build_model(")
    # evaluate(steps=None) raised on a TPU in TF1: the TPU path is refused, the flag raises when set
    assert any("the TPU path (use_tpu set) is not converted: evaluate(steps=None)" in d.message
               for d in result.diagnostics)


def test_flag_passed_through_a_helper_parameter():
    extra = 'flags = tf.compat.v1.flags\nflags.DEFINE_bool("use_tpu", False, "tpu?")\nFLAGS = flags.FLAGS'
    helper = ("def make(use_tpu, config):\n"
              "    return tf.compat.v1.estimator.tpu.TPUEstimator(model_fn, config=config, params={\"lr\": 0.1}, "
              "use_tpu=use_tpu, train_batch_size=4, eval_batch_size=8)\n")
    src = tpu_program(estimator="est = make(FLAGS.use_tpu, config)", extra=extra + "\n\n\n" + helper)
    out = converted(src)
    assert "if use_tpu:" in section(out, "def make(", "\ndef ")
    model = section(out, "class Model", "\ndef build_model")
    assert "use_tpu" not in model and "CrossShardOptimizer" not in model


def test_argparse_store_true_flag_in_a_helper_returning_the_estimator():
    estimator = ("def build(args, config):\n"
                 "    return tf.compat.v1.estimator.tpu.TPUEstimator(model_fn, config=config, params={{\"lr\": 0.1}}, "
                 "use_tpu=args.use_tpu, train_batch_size=4, eval_batch_size=4)\n")
    src = tpu_program(estimator="", drive="", main=False, extra="import argparse") + "\n\n" + estimator.format() + '''

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--use_tpu", action="store_true")
    args = parser.parse_args()
    config = tf.compat.v1.estimator.tpu.RunConfig(model_dir="/tmp/tfm-tpu")
    est = build(args, config)
    est.train(train_input_fn, max_steps=5)
'''
    src = src.replace(CONFIG + "\n", "")
    out = converted(src)
    build = section(out, "def build(", "\ndef main")
    assert "if args.use_tpu:" in build and build.index("if args.use_tpu:") < build.index("build_model(")
    assert 'train_input_fn(params={"lr": 0.1, "batch_size": 4})' in out


def test_train_and_evaluate_with_equal_batch_sizes_lets_model_fn_read_batch_size():
    model_fn = MODEL_FN.replace('    logits = tf.compat.v1.layers.dense(features["x"], 2)\n',
                                '    logits = tf.compat.v1.layers.dense(features["x"], 2)\n'
                                '    logits = tf.reshape(logits, [params["batch_size"], 2])\n')
    estimator = ESTIMATOR.replace("eval_batch_size=8", "eval_batch_size=4")
    drive = ("tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train_input_fn, max_steps=10), "
             "tf.estimator.EvalSpec(eval_input_fn))")
    out = converted(tpu_program(model_fn=model_fn, estimator=estimator, drive=drive))
    assert '"batch_size": 4, "use_tpu": False' in out


@pytest.mark.parametrize("change, words", [
    # the TPU path (use_tpu omitted, True, or chosen at run time) is refused where TF1 raised on a TPU
    ({"estimator": ESTIMATOR.replace("use_tpu={use_tpu}, ", "")}, "evaluate(steps=None): TF1 raised ValueError"),
    ({"use_tpu": "True"}, "evaluate(steps=None): TF1 raised ValueError"),
    ({"use_tpu": "USE_TPU", "extra": "import os\nUSE_TPU = bool(os.environ.get('TPU'))"}, "evaluate(steps=None)"),
    ({"use_tpu": "FLAGS.use_tpu", "extra": 'flags = tf.compat.v1.flags\nflags.DEFINE_bool("use_tpu", True, "")\n'
                                           "FLAGS = flags.FLAGS"}, "evaluate(steps=None)"),
    ({"model_fn": MODEL_FN.replace('    if params["use_tpu"]:\n        optimizer', '    optimizer')},
     "CrossShardOptimizer"),
    ({"model_fn": MODEL_FN.replace("train_op=train_op)", "train_op=train_op, host_call=(fn, [loss]))")}, "host_call"),
    ({"model_fn": MODEL_FN.replace("train_op=train_op)", "train_op=train_op, scaffold_fn=make_scaffold)")},
     "scaffold_fn"),
    ({"inputs": INPUTS.replace("def train_input_fn(params)", "def train_input_fn()")
      .replace('params["batch_size"]).repeat()', "2).repeat()")}, "does not take `params`"),
    ({"drive": DRIVE + "\nest.export_saved_model('/tmp/x', tf.estimator.export.build_parsing_serving_input_receiver_fn("
      "{'x': tf.io.FixedLenFeature([2], tf.float32)}))"}, "export_saved_model() of a TPUEstimator"),
    ({"config": 'config = tf.estimator.RunConfig(model_dir="/tmp/tfm-tpu")'}, "must be a tf.compat.v1.estimator.tpu"),
    ({"config": CONFIG.replace("tf_random_seed=3", 'master="grpc://10.0.0.2:8470"')}, "remote target"),
    ({"estimator": ESTIMATOR.replace("eval_batch_size=8", "eval_batch_size=8, embedding_config_spec=spec")},
     "embedding_config_spec"),
    ({"model_fn": MODEL_FN.replace('    logits = tf.compat.v1.layers.dense(features["x"], 2)\n',
                                   '    logits = tf.compat.v1.layers.dense(features["x"], 2)\n'
                                   '    logits = tf.reshape(logits, [params["batch_size"], 2])\n')},
     "reads params[\"batch_size\"]"),
    ({"estimator": ESTIMATOR.replace('params={{"lr": 0.1}}', 'params={{"lr": 0.1, "batch_size": 2}}')},
     "reserved keys"),
    ({"model_fn": MODEL_FN.replace("def model_fn(features, labels, mode, params):",
                                   "def model_fn(features, labels, mode):").replace('params["lr"]', "0.1")
      .replace('params["use_tpu"]', "False")}, "does not take `params`"),
])
def test_blocks_with_its_reason(change, words):
    result = blocked(tpu_program(**change))
    messages = " | ".join(d.message for d in result.diagnostics)
    assert words in messages, messages
