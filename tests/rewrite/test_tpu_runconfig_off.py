"""TFM605 tpu.RunConfig(master=, cluster=) off TPU (rules/planners/tpu_cluster.py): the TPU reference programs' driver
shape converts when use_tpu is provably False; a remote target that may be used blocks at its line."""
from __future__ import annotations

import pytest

from _helpers import blocked, rewrite, section

PROGRAM = '''\
import tensorflow as tf
from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_bool("use_tpu", False, "tpu?")
flags.DEFINE_string("tpu_name", None, "tpu")
flags.DEFINE_string("master", None, "master")


def input_fn(params):
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [0, 1] * 4))
    return ds.batch(params["batch_size"]).repeat()


def model_fn_builder(lr, use_tpu):
    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 2)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(lr)
        if use_tpu:
            optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)

    return model_fn


def main(_):
    resolver = None
    if FLAGS.use_tpu and FLAGS.tpu_name:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(FLAGS.tpu_name)
    per_host = tf.compat.v1.estimator.tpu.InputPipelineConfig.PER_HOST_V2
    config = tf.compat.v1.estimator.tpu.RunConfig(
        cluster=resolver,
        master=FLAGS.master,
        model_dir="/tmp/tfm-tpu",
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=10, per_host_input_for_training=per_host))
    est = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=model_fn_builder(0.1, use_tpu=FLAGS.use_tpu), config=config, use_tpu=FLAGS.use_tpu,
        train_batch_size=4)
    est.train(input_fn=input_fn, max_steps=10)


if __name__ == "__main__":
    app.run(main)
'''


def test_resolver_under_use_tpu_and_unset_master_flag_convert_with_run_time_checks():
    result = rewrite(PROGRAM)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    main = section(out, "def main", "\nif __name__")
    for gone in ("resolver = None", "if FLAGS.use_tpu and FLAGS.tpu_name", "per_host", "PER_HOST", "RunConfig("):
        assert gone not in main, gone
    # the TPU branch builds the program's own resolver for TPUStrategy (rules/planners/tpu_strategy.py); the CPU
    # branch is the default strategy
    tpu, cpu = section(main, "    if FLAGS.use_tpu:", "    else:"), section(main, "    else:", "    with ")
    assert "tpu_resolver = tf.distribute.cluster_resolver.TPUClusterResolver(FLAGS.tpu_name)" in tpu
    assert "TPUClusterResolver" not in cpu and "strategy = tf.distribute.get_strategy()" in cpu
    # TF1 would have used the remote target when --master is set: the migrated program says so and stops
    assert main.index("if FLAGS.master:") < main.index("raise ValueError(\"FLAGS.master") < main.index("model_fn_builder(")
    assert main.index("if FLAGS.use_tpu:") < main.index("model_fn_builder(")
    notes = " | ".join(d.message for d in result.diagnostics if d.severity == "note")
    assert "cluster=resolver) dropped" in notes and "master=FLAGS.master) dropped" in notes


def test_factory_parameter_given_the_use_tpu_flag_is_false_in_the_closure():
    out = rewrite(PROGRAM).output.decode()
    model = section(out, "class Model", "def build_model")
    assert "CrossShardOptimizer" not in model and "use_tpu" not in model
    # the checkpoint callback is generated at module level, where main() reaches it (not inside the factory)
    assert out.count("\nclass EstimatorCheckpoints(") == 1
    assert out.index("\nclass EstimatorCheckpoints(") < out.index("\ndef main(")
    assert "EstimatorCheckpoints(" in section(out, "def main", "\nif __name__")


def test_master_flag_defaulting_to_the_empty_string():
    src = PROGRAM.replace('flags.DEFINE_string("master", None, "master")',
                          'flags.DEFINE_string(name="master", default="", help="master")')
    assert rewrite(src).status == "changed"


@pytest.mark.parametrize("old, new, words, line", [
    # the resolver built whatever use_tpu is: TF1 ran its sessions on that TPU's master
    ("    resolver = None\n    if FLAGS.use_tpu and FLAGS.tpu_name:\n        resolver = ",
     "    resolver = None\n    if True:\n        resolver = ", "not only under an `if` on the TPUEstimator's use_tpu",
     31),
    ("    resolver = None\n    if FLAGS.use_tpu and FLAGS.tpu_name:\n        resolver = ",
     "    resolver = None\n    if FLAGS.tpu_name:\n        resolver = ", "not only under an `if`", 31),
    ('flags.DEFINE_string("master", None, "master")', 'flags.DEFINE_string("master", "grpc://10.1.2.3:8470", "m")',
     "master=FLAGS.master) is not converted: TF1 ran the Estimator's sessions on that remote target", 35),
    ('flags.DEFINE_string("master", None, "master")',
     'flags.DEFINE_string("master", None, "master")\nflags.DEFINE_string("master", "", "again")',
     "remote target", 36),
    ("    per_host = ", "    print(resolver)\n    per_host = ", "is also read at line 32", 32),
    ("        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(FLAGS.tpu_name)\n",
     "        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(FLAGS.tpu_name)\n"
     "    else:\n        resolver = None\n", "not only under an `if`", 31),
    ("        cluster=resolver,", "        cluster=tf.distribute.cluster_resolver.TPUClusterResolver(''),",
     "even with use_tpu=False", 34),
])
def test_a_remote_target_that_may_be_used_blocks_at_its_line(old, new, words, line):
    assert old in PROGRAM
    result = blocked(PROGRAM.replace(old, new))
    found = [d for d in result.diagnostics if d.code == "TFM605" and d.severity == "error"]
    assert any(words in d.message and d.line == line for d in found), [d.format() for d in result.diagnostics]


def test_factory_parameter_rebound_is_not_taken_as_use_tpu():
    src = PROGRAM.replace("    def model_fn(features", "    use_tpu = True\n\n    def model_fn(features")
    result = blocked(src)
    assert any(d.code in ("TFM605", "TFM501") for d in result.diagnostics if d.severity == "error")


def test_use_tpu_not_provably_false_is_reported_rather_than_its_cluster():
    src = PROGRAM.replace("use_tpu=FLAGS.use_tpu,\n", "\n").replace(
        "    if FLAGS.use_tpu and FLAGS.tpu_name:\n        resolver = ", "    if True:\n        resolver = ")
    messages = [d.message for d in blocked(src).diagnostics if d.severity == "error"]
    # use_tpu omitted: TF1 always ran on that cluster, TPUStrategy's resolver; the factory's `use_tpu` (the flag,
    # not the TPUEstimator's True) is no use_tpu test, so the model_fn blocks for its own reason
    assert messages and not any("cluster" in m for m in messages), messages


SCAFFOLD = """\
        scaffold_fn = None
        if use_tpu:
            def tpu_scaffold():
                tf.compat.v1.train.init_from_checkpoint("/tmp/ck", {"dense/": "dense/"})
                return tf.compat.v1.train.Scaffold()

            scaffold_fn = tpu_scaffold
"""
OPTIMIZER = "        optimizer = tf.compat.v1.train.GradientDescentOptimizer(lr)\n"


def test_scaffold_fn_set_only_under_use_tpu_is_none_off_tpu():
    src = PROGRAM.replace(OPTIMIZER, SCAFFOLD + OPTIMIZER).replace("train_op=train_op)",
                                                                  "train_op=train_op, scaffold_fn=scaffold_fn)")
    out = rewrite(src)
    assert out.status == "changed", [d.format() for d in out.diagnostics]
    text = out.output.decode()
    assert "tf.compat.v1.train.init_from_checkpoint(" not in text and "def tpu_scaffold():\n" not in text
    # its TPU path is refused with the reason, at run time (the flag defaults to False)
    main = section(text, "def main", "\nif __name__")
    assert "the TPU scaffold_fn (init_from_checkpoint) is not converted" in main


@pytest.mark.parametrize("old, new, line", [
    # a scaffold_fn that runs restores variables from a checkpoint: named at the spec
    (OPTIMIZER, "\n".join(line[4:] for line in SCAFFOLD.splitlines()[2:5]) + "\n\n" + OPTIMIZER, 27),
    # BERT's CPU arm: init_from_checkpoint called in model_fn itself
    (OPTIMIZER, '        tf.compat.v1.train.init_from_checkpoint("/tmp/ck", {"dense/": "dense/"})\n' + OPTIMIZER, 19),
])
def test_checkpoint_initialisation_blocks_with_what_to_do(old, new, line):
    src = PROGRAM.replace(old, new).replace("train_op=train_op)", "train_op=train_op, scaffold_fn=tpu_scaffold)"
                                            if "def tpu_scaffold" in new else "train_op=train_op)")
    errors = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [("TFM605", line)], [d.format() for d in errors]
    assert "init_from_checkpoint" in errors[0].message and "warm_start_from=" in errors[0].message
