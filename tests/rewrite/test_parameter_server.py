"""Parameter-server strategy (TFM701/702), v1 partitioners (TFM801) and get_variable/variable_scope/embedding_lookup
(TFM811): what converts, to what, and what is refused."""
from __future__ import annotations

import ast
import textwrap

import pytest

from _helpers import blocked, codes, converted, program, rewrite, section

PS_CONFIG = ('config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", '
             'train_distribute=tf.compat.v1.distribute.experimental.ParameterServerStrategy())')
MWMS_CONFIG = ('config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", '
               'train_distribute=tf.distribute.experimental.MultiWorkerMirroredStrategy())')

TABLE = """\
table = tf.compat.v1.get_variable(
    "item_embeddings", shape=[50, 8], initializer=tf.compat.v1.random_normal_initializer(stddev=0.1),
    partitioner=tf.compat.v1.fixed_size_partitioner(3))
vectors = tf.compat.v1.nn.embedding_lookup(table, features["ids"]{lookup_args})
x = tf.reduce_mean(vectors, axis=1)
logits = tf.compat.v1.layers.dense(x, 1)
"""


def table(lookup_args: str = "") -> str:
    return TABLE.format(lookup_args=lookup_args)


# ---- strategy -------------------------------------------------------------------------------------------------
def test_v1_parameter_server_strategy_becomes_coordinated_custom_loop():
    out = converted(program(run_config=PS_CONFIG))
    assert "import tf_keras as keras" in out and "\nimport keras\n" not in out
    assert "strategy = parameter_server_strategy()" in out
    assert "def parameter_server_strategy(variable_partitioner=None):" in out
    bootstrap = section(out, "def parameter_server_strategy", "def main")
    assert 'if resolver.task_type in ("worker", "ps"):' in bootstrap and "server.join()" in bootstrap
    assert 'if "ps" not in resolver.cluster_spec().as_dict() or resolver.task_type == "evaluator":' in bootstrap
    assert "tf.distribute.coordinator.ClusterCoordinator(strategy)" in out
    assert "self.coordinator.create_per_worker_dataset(" in out
    assert "self.coordinator.schedule(train_step, args=(iterator,))" in out and "self.coordinator.join()" in out


def test_strategy_option_makes_the_implicit_async_job_explicit():
    out = converted(program(), strategy="parameter-server")
    assert "strategy = parameter_server_strategy()" in out and "class ModelTrainer:" in out


def test_keras_target_with_parameter_server_is_refused():
    result = blocked(program(run_config=PS_CONFIG), target="keras")
    assert codes(result) == {"TFM702"}
    assert "--target ctl" in result.diagnostics[0].message


def test_parameter_server_with_own_cluster_resolver_is_blocked():
    config = ('config = tf.estimator.RunConfig(train_distribute='
              'tf.compat.v1.distribute.experimental.ParameterServerStrategy(resolver))')
    assert codes(blocked(program(run_config=config))) == {"TFM701"}


def test_parameter_server_optimizers_use_tf_keras_stock_classes():
    adam = "optimizer = tf.compat.v1.train.AdamOptimizer(0.01)"
    result = rewrite(program(optimizer=adam), strategy="parameter-server")
    out = result.output.decode()
    assert "keras.optimizers.Adam(learning_rate=0.01," in "".join(out.split())  # however it is wrapped
    assert "class TF1Adam" not in out
    assert "TFM302" in codes(result)
    rmsprop = "optimizer = tf.compat.v1.train.RMSPropOptimizer(0.01)"
    assert codes(blocked(program(optimizer=rmsprop), strategy="parameter-server")) == {"TFM301"}


def test_implicit_parameter_server_is_pointed_out_when_tf_config_appears():
    extra = 'import os\nCLUSTER = os.environ.get("TF_CONFIG")'
    result = rewrite(program(extra=extra))
    assert any(d.code == "TFM701" and "--strategy parameter-server" in d.message for d in result.diagnostics)
    assert not any(d.code == "TFM701" for d in rewrite(program()).diagnostics)  # no hint of a cluster: no note


# ---- partitioners ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tf1, tf2", [
    ("tf.compat.v1.fixed_size_partitioner(3)", "FixedShardsPartitioner(num_shards=3)"),
    ("tf.compat.v1.fixed_size_partitioner(num_shards=4, axis=0)", "FixedShardsPartitioner(num_shards=4)"),
    ("tf.compat.v1.min_max_variable_partitioner(max_partitions=2, min_slice_size=64)",
     "MinSizePartitioner(min_shard_bytes=64, max_shards=2)"),
    ("tf.compat.v1.min_max_variable_partitioner(4)", "MinSizePartitioner(min_shard_bytes=256 << 10, max_shards=4)"),
    ("tf.compat.v1.min_max_variable_partitioner()", "MinSizePartitioner(min_shard_bytes=256 << 10, max_shards=1)"),
    ("tf.compat.v1.variable_axis_size_partitioner(1 << 20, max_shards=8, bytes_per_string_element=32)",
     "MaxSizePartitioner(max_shard_bytes=1 << 20, max_shards=8, bytes_per_string=32)"),
])
def test_partitioner_arguments_map_exactly(tf1, tf2):
    forward = f'x = features["x"]\nwith tf.compat.v1.variable_scope("tower", partitioner={tf1}):\n' \
              '    logits = tf.compat.v1.layers.dense(x, 1)'
    out = converted(program(forward=forward), strategy="parameter-server")
    (assign,) = [n for n in ast.parse(out).body if isinstance(n, ast.Assign) and n.targets[0].id == "VARIABLE_PARTITIONER"]
    assert ast.unparse(assign.value) == ast.unparse(ast.parse(f"tf.distribute.experimental.partitioners.{tf2}"))
    assert "strategy = parameter_server_strategy(VARIABLE_PARTITIONER)" in out
    assert f"# TF1: {tf1}" in out


def test_non_zero_axis_is_blocked():
    forward = 'x = features["x"]\nwith tf.compat.v1.variable_scope("t", partitioner=tf.compat.v1.fixed_size_partitioner(2, axis=1)):\n' \
              '    logits = tf.compat.v1.layers.dense(x, 1)'
    result = blocked(program(forward=forward), strategy="parameter-server")
    assert codes(result) == {"TFM801"} and "axis 0" in result.diagnostics[0].message


def test_two_different_partitioners_are_blocked():
    forward = """\
    x = features["x"]
    with tf.compat.v1.variable_scope("a", partitioner=tf.compat.v1.fixed_size_partitioner(2)):
        net = tf.compat.v1.layers.dense(x, 8)
    with tf.compat.v1.variable_scope("b", partitioner=tf.compat.v1.fixed_size_partitioner(3)):
        logits = tf.compat.v1.layers.dense(net, 1)
    """
    result = blocked(program(forward=forward), strategy="parameter-server")
    assert codes(result) == {"TFM801"} and "one partitioner" in result.diagnostics[0].message


def test_partitioner_using_params_is_blocked():
    forward = 'x = features["x"]\nwith tf.compat.v1.variable_scope("t", partitioner=tf.compat.v1.fixed_size_partitioner(params["n"])):\n' \
              '    logits = tf.compat.v1.layers.dense(x, 1)'
    result = blocked(program(forward=forward), strategy="parameter-server")
    assert codes(result) == {"TFM801"} and "`params`" in result.diagnostics[0].message


def test_partitioner_dropped_under_mirrored_strategies_with_note():
    forward = 'x = features["x"]\nwith tf.compat.v1.variable_scope("t", partitioner=tf.compat.v1.fixed_size_partitioner(2)):\n' \
              '    logits = tf.compat.v1.layers.dense(x, 1)'
    result = rewrite(program(forward=forward, run_config=MWMS_CONFIG))
    out = result.output.decode()
    assert result.status == "changed" and "VARIABLE_PARTITIONER" not in out and "Partitioner" not in out
    (note,) = [d for d in result.diagnostics if d.code == "TFM801"]
    assert "dropped" in note.message and "TF1 ignored it too" in note.message


# ---- get_variable / embedding_lookup ------------------------------------------------------------------------
def test_get_variable_becomes_a_named_model_weight():
    out = converted(program(forward=table()), strategy="parameter-server")
    init = section(out, "    def __init__(self, params=None):", "    def call(")
    assert 'self.table = self.add_weight(' in init and 'name="item_embeddings"' in init
    assert "shape=[50, 8]" in init and "initializer=keras.initializers.RandomNormal(mean=0.0, stddev=0.1)" in init
    call = section(out, "    def call(", "class ModelTrainer")
    assert "tf.nn.embedding_lookup(self.table, tf1_mod_rows(features[\"ids\"], self.table, VARIABLE_PARTITIONER))" in call


def test_mod_lookup_on_partitioned_table_is_remapped_even_without_parameter_servers():
    # single-process TF1 graph mode honoured the partitioner, so the lookup order matters there too
    out = converted(program(forward=table()))
    assert "def tf1_mod_rows(ids, table, partitioner):" in out and "VARIABLE_PARTITIONER = " in out
    assert "parameter_server_strategy" not in out


@pytest.mark.parametrize("args", [', partition_strategy="div"', ', partition_strategy="div", validate_indices=True'])
def test_div_lookup_reads_the_natural_rows(args):
    out = converted(program(forward=table(args)), strategy="parameter-server")
    assert 'tf.nn.embedding_lookup(self.table, features["ids"])' in out and "tf1_mod_rows" not in out
    assert "partition_strategy" not in out and "validate_indices" not in out


def test_tf2_lookup_already_read_natural_rows():
    out = converted(program(forward=table().replace("tf.compat.v1.nn.embedding_lookup", "tf.nn.embedding_lookup")))
    assert 'tf.nn.embedding_lookup(self.table, features["ids"])' in out and "tf1_mod_rows" not in out


def test_v1_namespace_lookup_is_remapped():
    forward = table().replace("tf.compat.v1.", "tf.")
    out = converted(program(forward=forward, header="import tensorflow.compat.v1 as tf").replace("tf.compat.v1.", "tf."))
    assert "tf1_mod_rows(features[\"ids\"], self.table, VARIABLE_PARTITIONER)" in out


def test_lookup_under_mwms_needs_no_remap():
    out = converted(program(forward=table(), run_config=MWMS_CONFIG))  # TF1 did not partition there
    assert 'tf.nn.embedding_lookup(self.table, features["ids"])' in out and "tf1_mod_rows" not in out


def test_lookup_when_tf1_partitioning_varied_at_run_time_is_blocked():
    run_config = """\
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy() if CLUSTER else None
    config = tf.estimator.RunConfig(train_distribute=strategy)"""
    result = blocked(program(forward=table(), run_config=run_config, extra="CLUSTER = False"))
    assert codes(result) == {"TFM801"}


def test_get_variable_default_initializer_is_tf1_glorot_uniform():
    forward = 'w = tf.compat.v1.get_variable("w", [2, 1])\nlogits = tf.matmul(features["x"], w)'
    out = converted(program(forward=forward))
    assert "self.w = self.add_weight(name=\"w\", shape=[2, 1], initializer='glorot_uniform')" in out
    assert "logits = tf.matmul(features[\"x\"], self.w)" in out


@pytest.mark.parametrize("forward", [
    'w = tf.compat.v1.get_variable("w", [2, 1], regularizer=tf.keras.regularizers.l2(0.1))\nlogits = tf.matmul(features["x"], w)',
    'w = tf.compat.v1.get_variable(params["name"], [2, 1])\nlogits = tf.matmul(features["x"], w)',
    'w = tf.compat.v1.get_variable("w", [2, 1], dtype=tf.float64)\nlogits = tf.matmul(features["x"], w)',
    'w = tf.compat.v1.get_variable("w", [2, 1])\nlogits = tf.nn.embedding_lookup([w, w], features["ids"])',
    'x = features["x"]\nwith tf.compat.v1.variable_scope("s", reuse=True):\n    logits = tf.compat.v1.layers.dense(x, 1)',
    'x = features["x"]\nwith tf.compat.v1.variable_scope("s") as scope:\n    logits = tf.compat.v1.layers.dense(x, 1)',
])
def test_unconvertible_variables_are_blocked(forward):
    assert codes(blocked(program(forward=forward))) == {"TFM811"}


def test_variable_scope_is_flattened_with_note_and_comments_kept():
    forward = """\
    x = features["x"]
    # the tower
    with tf.compat.v1.variable_scope("tower"):
        logits = tf.compat.v1.layers.dense(x, 1)
    """
    result = rewrite(program(forward=forward))
    out = result.output.decode()
    assert "        # the tower\n        logits = self.dense(x)" in out
    assert any(d.code == "TFM811" and "flattened" in d.message for d in result.diagnostics)


def test_evaluator_task_evaluates_checkpoints_like_the_estimator_evaluator():
    out = converted(program(run_config=PS_CONFIG))
    train = section(out, "    def train(self", "        model, optimizer, loss_fn")
    assert 'if self._task_type() == "evaluator":' in train  # it does not train
    evaluate = section(out, "    def evaluate(self", "    def _evaluate_once(")
    assert "for path in tf.train.checkpoints_iterator(self.model_dir):" in evaluate
    assert 'if results["global_step"] >= getattr(self, "max_steps", 0):' in evaluate


class _Iterations:
    def __init__(self, step):
        self.value, self.pending = step, 0

    def numpy(self):
        return self.value


class _Coordinator:
    """Steps scheduled run when joined: the PS loop reads optimizer.iterations after join(). `nan_from`: the global
    step whose loss is the first NaN one (NaN weights: every later loss NaN too)."""

    def __init__(self, iterations, nan_from=None):
        self.iterations, self.nan_from, self.fetched = iterations, nan_from, 0

    def schedule(self, fn, args):
        self.iterations.pending += 1
        global_step = self.iterations.value + self.iterations.pending
        loss = float("nan") if self.nan_from is not None and global_step >= self.nan_from else 0.5

        def fetch(_):
            self.fetched += 1
            return loss

        return type("RemoteValue", (), {"fetch": fetch})()

    def join(self):
        self.iterations.value += self.iterations.pending
        self.iterations.pending = 0


def _scheduled_loop(start, every, nan_from=None):
    out = converted(program(run_config=PS_CONFIG))
    namespace: dict = {"tf": _TF}
    exec(textwrap.dedent(section(out, "    def _train_scheduled(", "\n    def evaluate(")), namespace)
    iterations = _Iterations(start)
    trainer = type("Trainer", (), {})()
    trainer.coordinator, trainer.optimizer = _Coordinator(iterations, nan_from), type("Optimizer", (), {})()
    trainer.optimizer.iterations = iterations
    trainer.log_step_count_steps, trainer.save_checkpoints_steps = 100, every
    saves = []
    manager = type("Manager", (), {"save": lambda self, checkpoint_number: saves.append(checkpoint_number)})()
    return namespace["_train_scheduled"], trainer, manager, saves


class _NanError(Exception):
    pass


class _TF:
    """What the loop's NaN path calls: tf.get_logger().error and tf.compat.v1.train.NanLossDuringTrainingError."""
    logged: list = []

    @classmethod
    def get_logger(cls):
        return type("Logger", (), {"error": lambda self, msg: cls.logged.append(msg)})()

    compat = type("compat", (), {"v1": type("v1", (), {"train": type("train", (), {
        "NanLossDuringTrainingError": _NanError})})})


@pytest.mark.parametrize("nan_from, saved, last_step, fetched", [
    (47, [20, 40], 60, 3 + 20),  # between checkpoints: raised at the boundary 60 without its checkpoint
    (60, [20, 40, 60], 60, 3 + 20),  # on a checkpoint step: TF1 saved it, then raised (its saver ran first)
    (100, [20, 40, 60, 80, 100], 100, 5 + 20),  # the log boundary 100 is a checkpoint step too
    (None, [20, 40, 60, 80, 100, 120], 120, 6),  # no NaN: one fetch per boundary, the last step's
])
def test_parameter_server_loop_nan_check_keeps_the_estimators_checkpoints(nan_from, saved, last_step, fetched):
    """NaN losses from step nan_from on (the steps run in the order scheduled, as with one worker): the chief sees
    the NaN at the next log/checkpoint boundary, reads that segment's losses to find the first NaN step, writes the
    boundary's checkpoint only when that step is the boundary's own (TF1's chief never reached a later step), then
    raises NanLossDuringTrainingError; the steps' losses are read only on that path."""
    loop, trainer, manager, saves = _scheduled_loop(0, 20, nan_from)
    _TF.logged.clear()
    if nan_from is None:
        loop(trainer, None, None, 0, 120, manager)
    else:
        with pytest.raises(_NanError):
            loop(trainer, None, None, 0, 120, manager)
        assert _TF.logged == ["Model diverged with loss = NaN."]
    assert saves == saved
    assert trainer.optimizer.iterations.value == last_step
    assert trainer.coordinator.fetched == fetched


@pytest.mark.parametrize("start, max_steps, every, saved", [
    (130, 300, 50, [180, 230, 280, 300]),  # measured on TF 2.15 (chief, worker, ps): 130, 180, 230, 280, 300
    (0, 300, 50, [50, 100, 150, 200, 250, 300]),  # the last step saved once
    (0, 250, 100, [100, 200, 250]),
    (40, 60, None, [60]),  # no save_checkpoints_steps: the last step only
    (60, 60, 50, []),  # max_steps reached already
])
def test_parameter_server_loop_saves_where_the_estimators_chief_saved(start, max_steps, every, saved):
    """The Estimator's chief saved whenever save_checkpoints_steps steps had passed since its last save (not at
    multiples of it: a resumed run's saves are offset) and at the last step unless saved there already; the one at
    the step training starts from is train's, before the scheduled loop."""
    loop, trainer, manager, saves = _scheduled_loop(start, every)
    loop(trainer, None, None, start, max_steps, manager)
    assert saves == saved
    assert trainer.optimizer.iterations.value == max(start, max_steps)
