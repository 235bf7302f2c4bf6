"""Shapes last session's rules missed (code review): each test writes the construct in a form its first test did
not, and checks it converts the same or blocks with the precise reason."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, rewrite
from test_canned_add_metrics import forwarding

KEYS = 'KEY = "id"\nKEYS = ["id"]\n'


def _named_keys(extra: str = "") -> str:
    src = forwarding(wrap="est = tf.contrib.estimator.forward_features(est, KEYS)")
    return src.replace('KEY = "id"\n', KEYS + extra, 1)


def test_forward_features_keys_given_as_a_named_list():
    out = converted(_named_keys())
    assert "outputs = {**outputs, **{name: features[name] for name in ('id',)}}" in out


def test_forward_features_keys_changed_in_place_block():
    result = blocked(_named_keys('KEYS.append("a")\n'))
    assert any("the keys `KEYS` are changed in place (`KEYS.append`)" in d.message for d in result.diagnostics), \
        [d.format() for d in result.diagnostics]


# serving_functions.py: the flag that picks the receiver, written with dest=, a short option first, or its choices
# and default held by module constants
@pytest.mark.parametrize("spelling", [
    '"--format", dest="export_format", choices=["JSON", "CSV"], default="JSON"',
    '"-f", "--export-format", choices=["JSON", "CSV"], default="JSON"',
    '"--export-format", choices=FORMATS, default=DEFAULT',
])
def test_serving_functions_flag_spellings_convert(spelling):
    from test_serving_functions import FLAG, prog

    flag = FLAG.replace('"--export-format", choices=["JSON", "CSV"], default="JSON"', spelling)
    result = rewrite(prog(flag='FORMATS = ["JSON", "CSV"]\nDEFAULT = "CSV"\n' + flag))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    # choices known: no "give the flag choices=" note
    assert not any("give the flag choices=" in d.message for d in result.diagnostics)


def test_serving_functions_named_choices_with_a_value_not_a_key_block():
    from test_serving_functions import FLAG, prog

    flag = 'FORMATS = ["JSON", "CSV", "XML"]\n' + FLAG.replace('choices=["JSON", "CSV"]', "choices=FORMATS")
    result = blocked(prog(flag=flag))
    assert any("the flag allows 'XML', not a key of the dict" in d.message for d in result.diagnostics)


def test_a_static_method_model_fn_is_not_told_to_drop_its_features():
    # driver/_object_method.py took the first parameter for `self`: "reads nothing of `features`: make it a
    # module-level function without `features`"
    from test_guide_constructs import METHOD

    src = METHOD.replace("    def model_fn(self, features", "    @staticmethod\n    def model_fn(features")
    found = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert [d.code for d in found] == ["TFM601"]
    assert found[0].message.startswith("model_fn=`wrapper.model_fn` is the static method `Wrapper.model_fn`")
    assert "without `features`" not in found[0].message


@pytest.mark.parametrize("old, new, runs", [
    ("loss=tf.constant(0.)", "loss=tf.constant(0., dtype=tf.float32)", "train_op=lambda: step.assign_add(1)"),
    ("loss=tf.constant(0.)", "loss=tf.constant(-1.)", "train_op=lambda: step.assign_add(1)"),
    ("train_op=step.assign_add(1)", "train_op=tf.compat.v1.assign_add(step, 1)", "train_op=lambda: step.assign_add(1)"),
    ("train_op=step.assign_add(1)", "train_op=tf.group([step.assign_add(1)])",
     "train_op=lambda: tf.group([step.assign_add(1)])"),
])
def test_a_constant_loss_and_assigned_train_op_in_other_spellings(old, new, runs):
    # model_fn/_assigned_training.py: these fell back to "is not the loss computed above" / the wrong wording; they
    # train by assignment, and convert so (planners/assign_step.py)
    from test_guide_constructs import EXPORT_ONLY

    out = converted(EXPORT_ONLY.replace(old, new))
    assert runs in out and "class ModelFnModule(tf.Module):" in out


@pytest.mark.parametrize("value", [
    "READERS.__next__()",  # next() spelled as the method
    "list(itertools.islice(READERS, 1))[0]",  # an iterator consumed by islice
    "[w for w, _ in zip(HANDLE, range(2))]",  # a file handle consumed by iterating it
    "[w for w, _ in zip(GEN, range(2))]",  # a generator function's result
])
def test_a_per_pass_value_consuming_a_module_iterator_keeps_the_loop_blocker(value):
    # canned/_per_pass.py converted these: evaluated again where the Estimator is built, each gave the next items
    from test_runtime_columns import _program

    src = _program(value).replace("import numpy as np", "import itertools\nimport numpy as np").replace(
        "HANDLE = open", "def words_of():\n    yield 'a'\n    yield 'b'\n\n\nGEN = words_of()\nHANDLE = open")
    found = blocked(src).diagnostics
    assert [d.code for d in found] == ["TFM622"], [d.format() for d in found]
    assert "`words` takes a new run-time value on each pass of the loop" in found[0].message


def test_config_model_dir_read_when_the_estimator_was_given_the_model_dir():
    # driver/_config_reads.py wrote `print("/tmp/est-dir")`: TF 2.15 prints None (the Estimator keeps its
    # model_dir in a copy of the config; measured)
    from _helpers import TRAIN_AND_EVALUATE, program

    src = program(run_config="config = tf.estimator.RunConfig(tf_random_seed=7)",
                  estimator='est = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/est-dir", config=config)',
                  drive=TRAIN_AND_EVALUATE + "print(config.model_dir)\n")
    found = [d for d in blocked(src).diagnostics if d.severity == "error"]
    assert [(d.code, d.line) for d in found] == [("TFM601", 29)], [d.format() for d in found]
    # the config's own model_dir is still read
    out = converted(src.replace('model_dir="/tmp/est-dir", ', "").replace("RunConfig(", 'RunConfig(model_dir="/tmp/a", '))
    assert 'print("/tmp/a")' in out


def test_a_method_model_fn_of_an_object_built_inline_or_a_class_of_another_module(tmp_path):
    # driver/_object_method.py named the method only for `obj = Cls()` with Cls in the same file
    from test_guide_constructs import METHOD
    from test_public_shapes import _migrate_package

    inline = METHOD.replace("wrapper = Wrapper()\n", "").replace("model_fn=wrapper.model_fn", "model_fn=Wrapper().model_fn")
    found = [d for d in blocked(inline).diagnostics if d.severity == "error"]
    assert found[0].message.startswith("model_fn=`Wrapper().model_fn` is the method `Wrapper.model_fn` of the object "
                                       "`Wrapper()`: tfmigrate converts a model_fn that is a function"), found[0].message
    head, tail = METHOD.split("\n\nclass Wrapper:\n")
    cls, drive = tail.split("\n\n\n", 1)
    results = _migrate_package(tmp_path / "trainer", {
        "wrapper.py": "import tensorflow as tf\n\n\nclass Wrapper:\n" + cls + "\n",
        "task.py": head + "\n\nfrom trainer.wrapper import Wrapper\n\n\n" + drive})
    found = [d for d in results["task.py"].diagnostics if d.severity == "error"]
    assert any(d.message.startswith("model_fn=`wrapper.model_fn` is the method `Wrapper.model_fn` of the object "
                                    "`wrapper` (`Wrapper()`)") for d in found), [d.format() for d in found]
