"""tf.estimator.inputs.numpy_input_fn (rules/planners/numpy_inputs.py): shuffle=False becomes the tf.data pipeline with the
same batches wherever the input_fn is built; everything whose order TF1 did not fix is blocked with what to do."""
from __future__ import annotations

import textwrap

import pytest

from _helpers import blocked, converted, program, rewrite
from test_predict import PREDICT_MODEL_FN

NUMPY = "tf.compat.v1.estimator.inputs.numpy_input_fn"


def prog(drive: str, **kw) -> str:
    return program(PREDICT_MODEL_FN, drive=textwrap.dedent(drive), extra="import numpy as np\nX = np.zeros((10, 2), np.float32)\nY = np.zeros(10, np.int64)\n", **kw)


def test_named_positional_inline_and_defaults():
    out = converted(prog(f'''
    train_fn = {NUMPY}(x={{"x": X}}, y=Y, batch_size=4, num_epochs=None, shuffle=False)
    est.train(input_fn=train_fn, max_steps=10)
    est.evaluate({NUMPY}({{"x": X}}, Y, 3, 2, False))
    for p in est.predict({NUMPY}({{"x": X}}, shuffle=False)):
        print(p)
    '''))
    assert 'tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(4),' in out
    assert 'tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat(2).batch(3),' in out
    # one epoch and the default batch of 128; without y the features alone
    assert 'est.predict_examples(tf.data.Dataset.from_tensor_slices({"x": X}).batch(128))' in out
    assert "train_fn" not in out and "numpy_input_fn" not in out


def test_built_in_a_helper_with_defaults_and_a_v1_alias():
    src = prog('''
    def make_input(epochs, batch=16):
        return tf.estimator.inputs.numpy_input_fn(x={"x": X}, y=Y, batch_size=batch, num_epochs=epochs,
                                                  shuffle=False, num_threads=1)
    est.train(make_input(None), max_steps=10)
    est.evaluate(make_input(1, 5))
    ''', header="import tensorflow.compat.v1 as tf")
    out = converted(src)
    # the helper's parameters take the call's arguments, or their defaults; the helper goes with the Estimator
    assert 'tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat(None).batch(16),' in out
    assert 'tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat(1).batch(5),' in out
    assert "def make_input" not in out


@pytest.mark.parametrize("call, words", [
    (f'{NUMPY}({{"x": X}}, Y)', "needs shuffle=False written as a literal"),
    (f'{NUMPY}({{"x": X}}, Y, shuffle=SHUFFLE)', "needs shuffle=False written as a literal"),
    (f'{NUMPY}({{"x": X}}, Y, shuffle=False, num_threads=4)', "num_threads"),
    ('tf.compat.v1.estimator.inputs.pandas_input_fn(X, Y, shuffle=False)', "pandas_input_fn"),
])
def test_blocked(call, words):
    result = blocked(prog(f"SHUFFLE = False\nest.train(input_fn={call}, max_steps=10)\n"))
    assert any(words in d.message for d in result.diagnostics), [d.format() for d in result.diagnostics]


def test_shuffle_becomes_a_shuffle_buffer_of_the_queue_capacity_with_a_note(tmp_path):
    """shuffle=True: TF1's order was random from run to run, so the migrated one is too; the note says how to
    verify it (statistically) and appears once per numpy_input_fn call, wherever it is used."""
    src = prog(f'''
    def make_train(batch, capacity=1000):
        return {NUMPY}({{"x": X}}, Y, batch_size=batch, num_epochs=None, shuffle=True, queue_capacity=capacity)
    est.train(input_fn=make_train(4, 64), max_steps=10)
    est.evaluate({NUMPY}({{"x": X}}, Y, 5, 1, True))
    ''')
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert 'tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().shuffle(64).batch(4),' in out
    assert 'tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).shuffle(1000).batch(5),' in out  # the default capacity
    notes = [d for d in result.diagnostics if "verify --statistical" in d.message]
    assert len(notes) == 2 and all(d.severity == "note" for d in notes), [d.format() for d in result.diagnostics]


def test_under_a_distribution_strategy_is_blocked():
    run_config = ('config = tf.estimator.RunConfig(train_distribute='
                  'tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))')
    result = blocked(prog(f'est.train(input_fn={NUMPY}({{"x": X}}, Y, shuffle=False), max_steps=10)\n',
                          run_config=run_config))
    assert any("under a distribution strategy" in d.message for d in result.diagnostics)


def test_arrays_of_another_module_are_reached_through_its_import(tmp_path):
    """numpy_input_fn objects built in trainer/model.py from its own arrays, used in trainer/task.py: the dataset
    reads `model.X` there."""
    from tfmigrate.engine import Options, migrate_paths
    from tfmigrate.files import discover

    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text("import numpy as np\nimport tensorflow as tf\n\n" + textwrap.dedent(PREDICT_MODEL_FN) + textwrap.dedent('''

        X = np.zeros((10, 2), np.float32)
        Y = np.zeros(10, np.int64)
        TRAIN = tf.compat.v1.estimator.inputs.numpy_input_fn({"x": X}, Y, 5, None, False)
        '''))
    (pkg / "task.py").write_text(textwrap.dedent('''
        import tensorflow as tf

        from trainer import model

        est = tf.estimator.Estimator(model.model_fn)
        est.train(model.TRAIN, max_steps=4)
        ''').lstrip())
    results = {r.path.rsplit("/", 1)[-1]: r for r in migrate_paths(discover([str(tmp_path)]), Options(), jobs=1)}
    assert results["task.py"].status == "changed", [d.format() for r in results.values() for d in r.diagnostics]
    task = results["task.py"].output.decode()
    assert 'tf.data.Dataset.from_tensor_slices(({"x": model.X}, model.Y)).repeat().batch(5)' in task
    assert "TRAIN = " not in results["model.py"].output.decode()


def test_a_numpy_input_fn_feeding_nothing_is_reported_as_left_over():
    """Built and thrown away (no Estimator call takes it): the message says what tfmigrate converts, not that TF2
    lacks a name."""
    src = program(drive="est.train(input_fn=train_input_fn, max_steps=10)\n"
                        f'{NUMPY}({{"x": [[1.0, 2.0]]}})\n')
    result = rewrite(src)
    assert result.status == "blocked"
    assert any(d.code == "TFM001" and "is left over after the conversion" in d.message for d in result.diagnostics)
