"""Issue #28: an Estimator of another library (`kestrel.Estimator(...)`, `heron.estimator.GANEstimator(...)`: packages
outside the run that subclass tf.estimator.Estimator and build their own model_fn), built where the value is
handed to train_and_evaluate, returned by a builder method of another file, or built by the function that calls a
config helper. The finding names that Estimator, its line and its library, instead of "not an Estimator tfmigrate
can see" / "built outside the migrated files" / "a file that builds no Estimator tfmigrate converts"."""
from __future__ import annotations

import textwrap
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

SPECS = textwrap.dedent('''
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0]] * 4}, [0, 1, 0, 1])).batch(2)


    train_spec = tf.estimator.TrainSpec(input_fn=input_fn, max_steps=4)
    eval_spec = tf.estimator.EvalSpec(input_fn=input_fn, steps=1)
    ''')


def _run(tmp_path: Path, files: dict) -> dict:
    for name, parts in files.items():  # each part dedented on its own (SPECS is shared)
        (tmp_path / name).write_text("".join(textwrap.dedent(p) for p in ([parts] if isinstance(parts, str) else parts)))
    return {Path(r.path).name: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}


def _findings(result) -> list:
    return [d for d in result.diagnostics if d.code == "TFM601"]


def test_a_library_estimator_handed_to_train_and_evaluate_is_named(tmp_path):
    results = _run(tmp_path, {"search.py": ('''
        import kestrel
        import tensorflow as tf
        ''', SPECS, '''

        estimator = kestrel.Estimator(head=None, max_iteration_steps=2)
        tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
        ''')})
    [finding] = [f for f in _findings(results["search.py"]) if "train_and_evaluate" in f.message]
    assert "it is `kestrel.Estimator(...)`, an Estimator of the library `kestrel`, not tf.estimator's" \
        in finding.message
    assert "pass kestrel.py" not in finding.message and "tfmigrate can see" not in finding.message


def test_a_builder_method_of_another_file_returning_one_is_followed_to_it(tmp_path):
    results = _run(tmp_path, {
        "nest.py": '''
            import kestrel


            class Nest(object):
                def estimator(self, config):
                    return kestrel.Estimator(head=None, config=config)
            ''',
        "task.py": ('''
            import tensorflow as tf

            import nest
            ''', SPECS, '''

            builder = nest.Nest()
            estimator = builder.estimator(config=tf.estimator.RunConfig(model_dir="/tmp/nest"))
            tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
            estimator.evaluate(input_fn=input_fn, steps=1)
            ''')})
    messages = [f.message for f in _findings(results["task.py"])]
    assert any("`builder.estimator(config=tf.estimator.RunConfig(model_dir=\"/` returns "
               f"`kestrel.Estimator(...)` ({tmp_path / 'nest.py'}:7), an Estimator of the library `kestrel`" in m
               for m in messages), messages
    assert not [m for m in messages if "built outside the migrated files" in m or "tfmigrate can see" in m], messages


def test_a_config_helper_called_where_a_library_estimator_is_built(tmp_path):
    results = _run(tmp_path, {
        "gan_lib.py": '''
            import heron
            import tensorflow as tf


            def run_config(model_dir):
                return tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=5)


            def gan_estimator(config):
                return heron.estimator.GANEstimator(generator_fn=None, discriminator_fn=None, config=config)
            ''',
        "experiment.py": '''
            import gan_lib


            def make_estimator(model_dir):
                config = gan_lib.run_config(model_dir)
                return gan_lib.gan_estimator(config)
            '''})
    [finding] = _findings(results["gan_lib.py"])
    assert finding.message.startswith("tf.estimator.RunConfig in `run_config`: this file builds no tf.estimator "
                                      f"Estimator; `run_config` is called at {tmp_path / 'experiment.py'}:6, in "
                                      "`make_estimator`, which builds `heron.estimator.GANEstimator(...)` ("
                                      f"{tmp_path / 'gan_lib.py'}:11), an Estimator of the library `heron`"), \
        finding.message


def test_a_function_building_one_with_a_run_config_is_named_at_the_config(tmp_path):
    # a test method of such a program: the RunConfig it builds serves the library's Estimator, built right there
    results = _run(tmp_path, {"search_test.py": '''
        import kestrel
        import tensorflow as tf


        def test_search():
            config = tf.estimator.RunConfig(model_dir="/tmp/search", tf_random_seed=1)
            return kestrel.Estimator(head=None, config=config)
        '''})
    [finding] = _findings(results["search_test.py"])
    assert finding.message.startswith("tf.estimator.RunConfig in `test_search`: this file builds no tf.estimator "
                                      "Estimator; `test_search` builds `kestrel.Estimator(...)` ("), finding.message
