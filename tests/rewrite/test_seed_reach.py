"""`tf.compat.v1.set_random_seed(s)` is decided by where the call can run (issue 12). It sets the seed of the default
graph current at the call (TF 2.15, measured: tests/rewrite/test_all_blockers.py): code that only builds and drives
the Estimator never reaches the Estimator's graphs (dropped with a note), code the model_fn or an input_fn runs does
(blocked: the seed belongs in RunConfig(tf_random_seed=...)), and a function whose callers the tool cannot follow is
blocked saying why. The programs here are written for the tests."""
from __future__ import annotations

import textwrap

from _helpers import ESTIMATOR, FORWARD, INPUT_FNS, RUN_CONFIG, TRAIN_AND_EVALUATE, blocked, model_fn, rewrite

DROPPED = "never reached the Estimator"


def _indent(code: str) -> str:
    return textwrap.indent(textwrap.dedent(code).strip("\n") + "\n", "    ")


def _train_def() -> str:
    return "def train():\n" + _indent(RUN_CONFIG) + _indent(ESTIMATOR) + _indent(TRAIN_AND_EVALUATE)


def _program(main: str, *, helpers: str = "", tail: str = 'if __name__ == "__main__":\n    main()\n',
             forward: str = FORWARD, header: str = "import tensorflow as tf") -> str:
    parts = [header + "\n", INPUT_FNS, model_fn(forward=forward), _train_def(), helpers, main, tail]
    return "\n\n".join(textwrap.dedent(p).strip("\n") + "\n" for p in parts if p.strip())


def _dropped(src: str, seed: str = "tf.compat.v1.set_random_seed(1)") -> str:
    result = rewrite(src)
    assert result.status == "changed", (result.status, [d.format() for d in result.diagnostics])
    out = result.output.decode()
    assert seed not in out and "tf.random.set_seed" not in out
    assert "keras.utils.set_random_seed(7)" in out  # the RunConfig's seed, as the Estimator had
    notes = [d for d in result.diagnostics if DROPPED in d.message]
    assert [(d.code, d.severity, d.line) for d in notes] == [("TFM001", "note", _line(src, seed))]
    return out


def _line(src: str, text: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(src.splitlines(), 1) if text in line][nth]


def test_main_that_calls_the_helper_building_the_estimator_drops_the_seed():
    src = _program("def main():\n    tf.compat.v1.set_random_seed(1)\n    train()\n")
    _dropped(src)


def test_several_driver_levels_and_the_tf1_spellings():
    for seed in ("tf.set_random_seed(1)", "tf.compat.v1.random.set_random_seed(1)"):
        src = _program("def run():\n    train()\n\n\ndef main():\n    " + seed + "\n    run()\n")
        _dropped(src, seed)


def test_absl_app_run_main_drops_the_seed():
    src = _program("def main(argv):\n    del argv\n    tf.compat.v1.set_random_seed(1)\n    train()\n",
                   header="import tensorflow as tf\nfrom absl import app",
                   tail='if __name__ == "__main__":\n    app.run(main)\n')
    _dropped(src)


def test_tf_app_run_without_arguments_runs_main():
    src = _program("def main(_):\n    tf.compat.v1.set_random_seed(1)\n    train()\n",
                   tail='if __name__ == "__main__":\n    tf.compat.v1.app.run()\n')
    _dropped(src)


SET_SEEDS = "def set_seeds(seed):\n    tf.compat.v1.set_random_seed(seed)\n"


def test_a_seed_helper_called_from_main_is_dropped():
    src = _program("def main():\n    set_seeds(1)\n    train()\n", helpers=SET_SEEDS)
    _dropped(src, "tf.compat.v1.set_random_seed(seed)")


def test_a_seed_helper_called_from_the_model_fn_is_blocked_as_seeding_the_estimator():
    src = _program("def main():\n    train()\n", helpers=SET_SEEDS, forward="set_seeds(1)\n" + FORWARD)
    found = [d for d in blocked(src).diagnostics if "set_random_seed(seed)" in d.message]
    assert [(d.code, d.line) for d in found] == [("TFM001", _line(src, "tf.compat.v1.set_random_seed(seed)"))]
    message = found[0].message
    assert "runs inside the Estimator" in message and "`model_fn`" in message
    assert f"line {_line(src, 'set_seeds(1)')}" in message
    assert "RunConfig(tf_random_seed=...)" in message and "delete it" not in message


def test_a_seed_helper_called_from_an_input_fn_through_another_helper_is_blocked():
    helpers = SET_SEEDS + "\n\ndef prepare():\n    set_seeds(1)\n"
    src = _program("def main():\n    train()\n", helpers=helpers).replace(
        "def train_input_fn():\n", "def train_input_fn():\n    prepare()\n")
    [d] = [d for d in blocked(src).diagnostics if "set_random_seed(seed)" in d.message]
    assert "runs inside the Estimator" in d.message and "`train_input_fn`" in d.message


def test_a_seed_helper_called_from_main_and_from_the_model_fn_is_blocked_saying_both():
    src = _program("def main():\n    set_seeds(1)\n    train()\n", helpers=SET_SEEDS,
                   forward="set_seeds(1)\n" + FORWARD)
    [d] = [d for d in blocked(src).diagnostics if "set_random_seed(seed)" in d.message]
    assert "`main`" in d.message and "`model_fn`" in d.message and "both" in d.message


def test_a_seed_helper_passed_around_is_blocked_saying_why():
    src = _program("def main():\n    run_with(set_seeds)\n    train()\n",
                   helpers=SET_SEEDS + "\n\ndef run_with(fn):\n    fn(1)\n")
    [d] = [d for d in blocked(src).diagnostics if "set_random_seed(seed)" in d.message]
    assert "passed as a value" in d.message and f"line {_line(src, 'run_with(set_seeds)')}" in d.message
    assert "input_fn" in d.message and "delete it" in d.message  # the two cases


def test_two_files_seed_helper_in_a_module_called_from_main(tmp_path):
    results = _package(tmp_path, "def main():\n    seeds.set_seeds(1)\n    train()\n", FORWARD)
    task = results["task.py"]
    assert task.status == "changed", [d.format() for d in task.diagnostics]
    seeds = results["seeds.py"]
    assert seeds.status == "changed", [d.format() for d in seeds.diagnostics]
    assert "set_random_seed" not in seeds.output.decode()
    [note] = [d for d in seeds.diagnostics if DROPPED in d.message]
    assert (note.code, note.severity, note.line) == ("TFM001", "note", 5)


def test_two_files_seed_helper_in_a_module_called_from_the_model_fn(tmp_path):
    results = _package(tmp_path, "def main():\n    train()\n", "seeds.set_seeds(1)\n" + FORWARD)
    seeds = results["seeds.py"]
    assert seeds.status == "blocked" and seeds.output == seeds.source
    [d] = [d for d in seeds.diagnostics if "set_random_seed(seed)" in d.message]
    assert d.line == 5 and "runs inside the Estimator" in d.message and "`model_fn`" in d.message
    assert results["task.py"].status == "blocked"


def _package(tmp_path, main: str, forward: str) -> dict:
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "seeds.py").write_text("import tensorflow as tf\n\n\n" + SET_SEEDS)  # the call on line 5
    (pkg / "task.py").write_text(_program(main, header="import tensorflow as tf\n\nfrom trainer import seeds",
                                          forward=forward))
    return {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
