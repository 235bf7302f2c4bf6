"""TFM301 a training op built by a helper in another module (BERT's `optimization.create_optimizer(...)` shape;
rules/planners/optimizer_helpers.py): blocked at the call, naming the helper and its tf.compat.v1.train.Optimizer
subclass (and why it cannot run eagerly), and at the helper's def; nothing is written."""
from __future__ import annotations

from _helpers import program

OPTIMIZATION = '''\
import tensorflow as tf


def build_train_op(loss, base_rate, total_steps):
    step = tf.compat.v1.train.get_or_create_global_step()
    rate = tf.compat.v1.train.polynomial_decay(base_rate, step, total_steps, end_learning_rate=0.0)
    opt = DecayingAdam(rate)
    tvars = tf.compat.v1.trainable_variables()
    grads = tf.gradients(loss, tvars)
    grads, _ = tf.clip_by_global_norm(grads, clip_norm=1.0)
    update = opt.apply_gradients(zip(grads, tvars), global_step=step)
    return tf.group(update, [step.assign(step + 1)])


class DecayingAdam(tf.compat.v1.train.Optimizer):
    def __init__(self, rate):
        super().__init__(False, "DecayingAdam")
        self.rate = rate

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        ops = []
        for g, v in grads_and_vars:
            m = tf.compat.v1.get_variable(v.name.split(":")[0] + "/m", shape=v.shape, initializer=tf.zeros_initializer())
            m_new = 0.9 * m + 0.1 * g
            ops += [v.assign(v - self.rate * m_new), m.assign(m_new)]
        return tf.group(*ops, name=name)
'''


def _run(tmp_path, optimization: str):
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "optimization.py").write_text(optimization)
    task = program(extra="from trainer import optimization\n",
                   optimizer="", minimize="train_op = optimization.build_train_op(loss, 0.1, 100)\n")
    (pkg / "task.py").write_text(task)
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    return task, results


def test_a_foreign_create_optimizer_with_a_get_variable_optimizer_blocks_named(tmp_path):
    task_src, results = _run(tmp_path, OPTIMIZATION)
    task, helper = results["task.py"], results["optimization.py"]
    assert task.status == "blocked" and task.output == task_src.encode(), task.status
    hits = [d for d in task.diagnostics if d.code == "TFM301" and "builds the training op in another module" in d.message]
    assert hits, [d.format() for d in task.diagnostics]
    message = hits[0].message
    assert "optimization.build_train_op()" in message and "optimization.py:4)" in message
    assert "DecayingAdam (" in message and "optimization.py:15)" in message
    assert "get_variable" in message and "restart each step" in message
    assert task_src.splitlines()[hits[0].line - 1].strip().startswith("train_op = optimization.build_train_op(")
    assert helper.status == "blocked" and helper.output == OPTIMIZATION.encode()
    assert any(d.code == "TFM301" and d.line == 4 and "builds the training op of the model_fn" in d.message
               for d in helper.diagnostics), [d.format() for d in helper.diagnostics]


def test_a_foreign_helper_with_a_tf1_optimizer_blocks_without_the_get_variable_reason(tmp_path):
    src = OPTIMIZATION.replace("opt = DecayingAdam(rate)", "opt = tf.compat.v1.train.AdamOptimizer(rate)")
    _, results = _run(tmp_path, src)
    hits = [d for d in results["task.py"].diagnostics if d.code == "TFM301"]
    assert hits and "builds the training op in another module" in hits[0].message
    assert "DecayingAdam" not in hits[0].message and "restart each step" not in hits[0].message
