"""Issue #28: a package inside a directory without __init__.py (`official/resnet/__init__.py`, no
`official/__init__.py`), its files importing each other as `from official.resnet import run_loop` (PEP 420: `official`
is a namespace package on sys.path), run from that directory or above it. The run loop's callers, the model_fn a
caller hands it and the module it reaches are found by those names: no false "never called in the files given"."""
from __future__ import annotations

import textwrap
from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover, namespace_names

LOOP = '''
    import tensorflow as tf


    def fit_main(flags, model_function, input_function):
        config = tf.estimator.RunConfig(model_dir=flags.model_dir, tf_random_seed=3)
        classifier = tf.estimator.Estimator(model_fn=model_function, config=config, params={"rate": 0.1})
        classifier.train(input_fn=input_function, max_steps=flags.steps)
        return classifier.evaluate(input_fn=input_function, steps=2)
    '''

# the caller names its own model_fn (`fit_main(flags, bird_model_fn, ...)`) and builds a RunConfig-free flag object
CALLER = '''
    import argparse

    import tensorflow as tf

    from official.vision import fit_loop


    def bird_model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 3)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["rate"])
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def bird_input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [0, 1] * 4)).batch(4).repeat()


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--model_dir", default="/tmp/birds")
        parser.add_argument("--steps", type=int, default=10)
        fit_loop.fit_main(parser.parse_args(), bird_model_fn, bird_input_fn)


    if __name__ == "__main__":
        main()
    '''


def _layout(root: Path, callers: dict[str, str]) -> Path:
    """repo/official/vision/{__init__,fit_loop,<callers>}.py: no __init__.py in official/ (a namespace directory)."""
    package = root / "official" / "vision"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "fit_loop.py").write_text(textwrap.dedent(LOOP))
    for name, text in callers.items():
        (package / name).write_text(textwrap.dedent(text))
    return root / "official"


def _run(target: Path) -> dict:
    return {Path(r.path).name: r for r in migrate_paths(discover([str(target)]), Options(), jobs=1)}


def test_a_package_module_is_named_through_the_namespace_directories_above_it():
    assert namespace_names("repo/official/vision/fit_loop.py", "vision.fit_loop") == [
        "repo.official.vision.fit_loop", "official.vision.fit_loop"]
    assert namespace_names("repo/official/vision/__init__.py", "vision") == ["repo.official.vision", "official.vision"]
    assert namespace_names("repo/official/vision/fit_loop.py", "other.fit_loop") == []  # not its path
    assert namespace_names("my-repo/official/vision/fit_loop.py", "vision.fit_loop") == ["official.vision.fit_loop"]


def test_the_run_loop_called_through_the_namespace_name_converts_from_the_namespace_directory(tmp_path):
    official = _layout(tmp_path, {"bird_main.py": CALLER})
    results = _run(official)  # the run's root is the namespace directory itself (`tfmigrate rewrite official`)
    assert {n: r.status for n, r in results.items() if n != "__init__.py"} == {
        "bird_main.py": "changed", "fit_loop.py": "changed"}, {n: [d.message for d in r.diagnostics]
                                                               for n, r in results.items()}
    loop = results["fit_loop.py"].output.decode()
    assert "classifier = model_function(" in loop and "classifier.fit(" in loop
    assert "fit_loop.fit_main(parser.parse_args(), build_bird_model, bird_input_fn)" in \
        results["bird_main.py"].output.decode()


def test_two_callers_through_the_namespace_name_are_named_as_the_loops_callers(tmp_path):
    # the true reason, at the loop: it has two callers (no longer "never called in the files given")
    official = _layout(tmp_path, {"bird_main.py": CALLER, "fish_main.py": CALLER.replace("bird", "fish")})
    results = _run(official)
    assert results["fit_loop.py"].status == "blocked"
    finding = next(d for d in results["fit_loop.py"].diagnostics if d.code == "TFM601")
    assert "`model_function` is a parameter of `fit_main`, which is called from 2 places (" in finding.message
    assert "never called" not in finding.message


def test_the_caller_handing_module_dot_model_fn_through_the_namespace_name(tmp_path):
    # `nets.bird_model_fn`, nets imported as `from official.vision import nets`: the def by name, handed its builder
    model_fn = CALLER[CALLER.index("    def bird_model_fn"):CALLER.index("    def bird_input_fn")]
    nets = "\n    import tensorflow as tf\n\n\n" + model_fn
    # (the caller keeps a word of the prefilter, in its docstring: an entry point with none is not read at all)
    caller = ('\n    """Trains the bird Estimator."""' + CALLER.replace(model_fn, "")
              .replace("import fit_loop", "import fit_loop, nets")
              .replace("parse_args(), bird_model_fn,", "parse_args(), nets.bird_model_fn,"))
    _layout(tmp_path, {"bird_main.py": caller, "nets.py": nets})
    results = _run(tmp_path)  # from above the namespace directory this time
    assert results["fit_loop.py"].status == "changed", [d.message for d in results["fit_loop.py"].diagnostics]
    assert "fit_loop.fit_main(parser.parse_args(), nets.build_bird_model, bird_input_fn)" in \
        results["bird_main.py"].output.decode()
    assert "def build_bird_model(" in results["nets.py"].output.decode()


def test_a_checkout_renamed_owner_repo_is_also_named_by_the_repository():
    # `tensorflow__adanet/research/...` imported as `from adanet.research.improve_x.trainer import builder`
    names = namespace_names("tensorflow__ranger/research/trainer/builder.py", "trainer.builder")
    assert names == ["tensorflow__ranger.research.trainer.builder", "ranger.research.trainer.builder",
                     "research.trainer.builder"]
