"""Issue #28: a helper's module that is a file of the run is never called "not among the migrated files"."""
from __future__ import annotations

from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import checkout_names, discover

NETS = '''import tensorflow as tf


class Tower(object):
    def __init__(self, x, is_training):
        self.out = tf.layers.dropout(tf.layers.dense(x, 4), 0.1, training=is_training)


def configure(flags):
    return tf.estimator.RunConfig(model_dir=flags)
'''

TRAIN = '''import tensorflow as tf

{imp}


def model_fn(features, labels, mode, params):
    is_training = mode == tf.estimator.ModeKeys.TRAIN
    net = nets.Tower(features["x"], is_training=is_training)
    loss = tf.losses.mean_squared_error(labels, net.out)
    train_op = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(model_dir):
    est = tf.estimator.Estimator(model_fn=model_fn, config=nets.configure(model_dir))
    est.train(lambda: tf.data.Dataset.from_tensors(({{"x": [[1.0]]}}, [[1.0]])), steps=1)
'''


def _messages(root: Path) -> dict[str, list[str]]:
    results = migrate_paths(discover([str(root)]), Options(), jobs=1)
    return {Path(r.path).name: [d.message for d in r.diagnostics] for r in results}


def test_a_renamed_checkout_answers_to_the_repository_name():
    assert checkout_names("google-research__albert.modeling") == ["albert.modeling"]
    assert checkout_names("tagger-master.nets.tower") == ["tagger.nets.tower"]
    assert checkout_names("tagger.nets") == [] and checkout_names("acme__class.nets") == []


def test_a_package_imported_by_its_repository_name_from_a_script_inside_it(tmp_path):
    root = tmp_path / "tagger-master"  # the checkout of the `tagger` package, renamed (a zip download)
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "nets.py").write_text(NETS)
    (root / "train.py").write_text(TRAIN.format(imp="from tagger import nets"))
    found = _messages(root)["train.py"]
    joined = "\n".join(found)
    assert "not among the migrated files" not in joined, joined
    # nets.py is read with train.py: the class is what is not followed
    assert any("`nets.Tower` is a class defined in " in m and "nets.py (a module of the run)" in m
               for m in found), found
    # and `nets.configure(...)` is followed into nets.py to its RunConfig: no finding about config=
    assert not any("config=" in m for m in found), found


def test_a_value_not_followed_through_a_module_of_the_run(tmp_path):
    (tmp_path / "nets.py").write_text("import tensorflow as tf\n\nsettings = None\n")
    (tmp_path / "train.py").write_text(TRAIN.format(imp="import nets").replace(
        "config=nets.configure(model_dir)", "config=nets.settings.make(model_dir)"))
    found = "\n".join(_messages(tmp_path)["train.py"])
    assert "not among the migrated files" not in found, found
    assert (f"`nets` is the module `nets` ({tmp_path / 'nets.py'}, migrated with this file), but tfmigrate does "
            "not follow this expression through it to the value it names") in found, found


def test_top_level_modules_side_by_side_imported_by_two_programs(tmp_path):
    for name in ("train_a.py", "train_b.py"):
        (tmp_path / name).write_text(TRAIN.format(imp="import nets"))
    (tmp_path / "nets.py").write_text(NETS.replace("tf.estimator.RunConfig", "dict"))  # no Estimator word
    found = _messages(tmp_path)
    for name in ("train_a.py", "train_b.py"):
        joined = "\n".join(found[name])
        assert "not among the migrated files" not in joined, joined
        assert f"is imported from `nets` ({tmp_path / 'nets.py'}), which tfmigrate does not read with this " \
               "file" in joined, joined


SCRIPT = '''import tensorflow as tf
import utils

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_bool("use_tpu", False, "TPU or not.")
flags.DEFINE_string("master", None, "Remote target.")


def main(_):
    config = tf.contrib.tpu.RunConfig(master=FLAGS.master)
    est = tf.contrib.tpu.TPUEstimator(model_fn=utils.model_fn_builder(), use_tpu=FLAGS.use_tpu, config=config,
                                      train_batch_size=8)
    est.train(utils.input_fn, max_steps=1)


if __name__ == "__main__":
    tf.app.run()
'''


def test_two_entry_scripts_of_one_unit_each_define_the_tpu_flag(tmp_path):
    (tmp_path / "utils.py").write_text('''import tensorflow as tf


def model_fn_builder():
    def model_fn(features, labels, mode, params):
        loss = tf.reduce_sum(tf.layers.dense(features["x"], 1))
        train_op = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def input_fn(params):
    return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[1.0]])).repeat().batch(params["batch_size"])
''')
    for name in ("run_a.py", "run_b.py"):
        (tmp_path / name).write_text(SCRIPT)
    found = _messages(tmp_path)
    for name in ("run_a.py", "run_b.py"):  # one definition per script, each its own process: not "defined 2 times"
        assert not any("is defined 2 times" in m or "master=" in m for m in found[name]), found[name]
