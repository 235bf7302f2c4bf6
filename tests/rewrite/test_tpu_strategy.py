"""TFM605, the TPU path of a TPUEstimator (rules/planners/tpu_strategy.py): tf.distribute.TPUStrategy over the
program's own TPUClusterResolver where TF1 ran on a TPU (use_tpu omitted or True; or chosen at run time by the same
condition, the CPU branch being the use_tpu=False conversion); what TPUStrategy would do differently is refused
with its reason. The emitted text is pinned here: this machine has no TPU to run it
(tests/fixtures_run/test_tpu_branch_runs.py runs it under a stand-in strategy)."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, rewrite, section
from test_tpu_estimator import CONFIG, ESTIMATOR, MODEL_FN, tpu_program

DRIVE = "est.train(input_fn=train_input_fn, max_steps=10)\nest.evaluate(input_fn=eval_input_fn, steps=2)"
FLAG = 'flags = tf.compat.v1.flags\nflags.DEFINE_bool("use_tpu", True, "")\nFLAGS = flags.FLAGS'
NO_USE_TPU = ESTIMATOR.replace("use_tpu={use_tpu}, ", "")


def _main(src: str) -> str:
    return section(converted(src), "def main", "\nif __name__")


def test_use_tpu_omitted_builds_tpu_strategy_over_a_local_resolver():
    main = _main(tpu_program(estimator=NO_USE_TPU, drive=DRIVE))
    assert ('    tpu_resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")  # TPUEstimator on a TPU '
            "(TFM605: converted, not verified without a TPU)\n"
            "    tf.config.experimental_connect_to_cluster(tpu_resolver)\n"
            "    tf.tpu.experimental.initialize_tpu_system(tpu_resolver)\n"
            "    strategy = tf.distribute.TPUStrategy(tpu_resolver)\n"
            "    if 4 % strategy.num_replicas_in_sync:\n"
            '        raise ValueError(f"train batch size {4} must be divisible by the '
            '{strategy.num_replicas_in_sync} TPU cores")\n'
            "    if 8 % strategy.num_replicas_in_sync:\n") in main, main
    assert "get_strategy()" not in main and "with strategy.scope():" in main
    assert main.index("TPUStrategy(") < main.index("with strategy.scope():")


def test_flag_defaulting_to_true_chooses_the_strategy_at_run_time():
    result = rewrite(tpu_program(use_tpu="FLAGS.use_tpu", extra=FLAG, drive=DRIVE))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    main = section(result.output.decode(), "def main", "\nif __name__")
    assert "    if FLAGS.use_tpu:  # TPUEstimator on a TPU" in main
    assert "        strategy = tf.distribute.TPUStrategy(tpu_resolver)\n" in main
    assert "    else:\n        strategy = tf.distribute.get_strategy()\n    with strategy.scope():" in main
    assert "raise ValueError(\"use_tpu" not in main  # no longer refused at run time
    # the CPU branch's model is the use_tpu=False conversion: CrossShardOptimizer's arm is dropped
    assert "CrossShardOptimizer" not in result.output.decode()
    notes = [d.message for d in result.diagnostics if d.severity == "note"]
    assert any("not verified on this machine (no TPU): verify compares the CPU path when the program is given "
               "use_tpu False" in n for n in notes), notes


def test_a_run_time_value_that_is_no_flag_is_the_condition():
    extra = "import os\nUSE_TPU = bool(os.environ.get('TPU'))"
    main = _main(tpu_program(use_tpu="USE_TPU", extra=extra, drive=DRIVE))
    assert "    if USE_TPU:  # TPUEstimator on a TPU" in main and "strategy = tf.distribute.get_strategy()" in main


def test_guide_shape_resolver_passed_as_cluster_is_the_strategy_resolver():
    # the migration guide's tpu_estimator notebook: the resolver built at module level, passed as cluster=
    config = "resolver = tf.compat.v1.distribute.cluster_resolver.TPUClusterResolver(tpu='')\n" + \
        CONFIG.replace("RunConfig(", "RunConfig(cluster=resolver, ")
    main = _main(tpu_program(estimator=NO_USE_TPU, drive=DRIVE, config=config))
    assert "tpu_resolver = resolver  # TPUEstimator on a TPU" in main
    assert "strategy = tf.distribute.TPUStrategy(tpu_resolver)" in main


def test_num_shards_must_be_the_core_count():
    config = CONFIG.replace("iterations_per_loop=10)", "iterations_per_loop=10, num_shards=8)")
    result = rewrite(tpu_program(estimator=NO_USE_TPU, drive=DRIVE, config=config))
    main = section(result.output.decode(), "def main", "\nif __name__")
    assert "    if 8 != strategy.num_replicas_in_sync:  # TF1 raised too: num_shards is the cores\n" in main
    notes = [d.message for d in result.diagnostics if d.severity == "note"]
    assert any("iterations_per_loop) is not mapped to Keras' steps_per_execution" in n for n in notes), notes


def test_flag_defaulting_to_false_with_a_refused_tpu_path_keeps_its_cpu_conversion():
    extra = FLAG.replace('"use_tpu", True', '"use_tpu", False')
    model_fn = MODEL_FN.replace("optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)",
                                "optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer, "
                                "reduction=tf.compat.v1.losses.Reduction.SUM)")
    main = _main(tpu_program(use_tpu="FLAGS.use_tpu", extra=extra, drive=DRIVE, model_fn=model_fn))
    assert "tf.distribute.TPUStrategy(" not in main and "if FLAGS.use_tpu:  # the TPU path of TPUEstimator was not migrated" in main
    assert "reduction MEAN (the default) is the mean of the per-core gradients" in main


SPEC = "return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)"
TPU_ARM = '    if params["use_tpu"]:\n        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)\n'


@pytest.mark.parametrize("change, words", [
    ({"model_fn": MODEL_FN.replace("tf.compat.v1.tpu.CrossShardOptimizer(optimizer)",
                                   "tf.compat.v1.tpu.CrossShardOptimizer(optimizer, reduction="
                                   "tf.compat.v1.losses.Reduction.SUM)")}, "reduction MEAN (the default)"),
    ({"model_fn": MODEL_FN.replace(TPU_ARM, TPU_ARM + "        with tf.compat.v1.tpu.bfloat16_scope():\n"
                                                      "            loss = tf.identity(loss)\n")},
     "mixed_bfloat16 policy casts every layer"),
    ({"model_fn": MODEL_FN.replace(TPU_ARM, TPU_ARM + "        host_call = (lambda l: {}, [loss])\n")},
     "host_call outfed tensors"),
    ({"config": CONFIG.replace("iterations_per_loop=10)", "iterations_per_loop=10, per_host_input_for_training="
                               "tf.compat.v1.estimator.tpu.InputPipelineConfig.BROADCAST)")}, "each core"),
    ({"config": CONFIG.replace("iterations_per_loop=10)", "iterations_per_loop=10, num_cores_per_replica=2)")},
     "model parallelism"),
    ({"model_fn": MODEL_FN.replace('    logits = tf.compat.v1.layers.dense(features["x"], 2)\n',
                                   '    logits = tf.compat.v1.layers.dense(features["x"], 2)\n'
                                   '    logits = tf.reshape(logits, [params["batch_size"], 2])\n')},
     "per-core batch"),
    ({"model_fn": MODEL_FN.replace('    logits = tf.compat.v1.layers.dense(features["x"], 2)\n',
                                   '    logits = tf.compat.v1.layers.dense(features["x"], 2)\n'
                                   '    print(params["use_tpu"])\n')}, "other than as an `if` test"),
    ({"drive": DRIVE.replace(", steps=2", "")}, "evaluate(steps=None): TF1 raised ValueError on a TPU"),
])
def test_what_tpu_strategy_does_differently_blocks_with_its_reason(change, words):
    result = blocked(tpu_program(**{"estimator": NO_USE_TPU, "drive": DRIVE, **change}))
    messages = " | ".join(d.message for d in result.diagnostics)
    assert "the TPU path of this TPUEstimator is not converted" in messages and words in messages, messages


def test_custom_loop_target_blocks_the_tpu_path():
    result = blocked(tpu_program(estimator=NO_USE_TPU, drive=DRIVE), target="ctl")
    messages = " | ".join(d.message for d in result.diagnostics)
    assert "TPUStrategy is generated for Keras fit only" in messages, messages


def test_strategy_option_is_the_cpu_branch_and_refused_for_a_tpu_only_program():
    main = section(converted(tpu_program(use_tpu="FLAGS.use_tpu", extra=FLAG, drive=DRIVE), strategy="mirrored"),
                   "def main", "\nif __name__")
    assert "    else:\n        strategy = tf.distribute.MirroredStrategy()\n" in main
    assert "        strategy = tf.distribute.TPUStrategy(tpu_resolver)\n" in main
    result = blocked(tpu_program(estimator=NO_USE_TPU, drive=DRIVE), strategy="mirrored")
    assert any("--strategy mirrored where TF1 ran on a TPU" in d.message for d in result.diagnostics)

