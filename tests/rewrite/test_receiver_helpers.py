"""build_parsing_serving_input_receiver_fn reached through the program's helpers (TFM601, rules/planners/receivers.py): a
helper returning the receiver, a feature_spec built in a helper (make_parse_example_spec or a dict), a spec local
to the receiver's helper. The export gets the same feature_spec the Estimator parsed with; the helper returning
the receiver goes when nothing else calls it."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted
from test_predict import SPEC, TRAIN, prog

EXPORT = 'est.export_saved_model("/tmp/e", {receiver})\n'


def _export_line(out: str) -> str:
    [line] = [l.strip() for l in out.splitlines() if "export_parsing_saved_model(\"" in l]
    return line


@pytest.mark.parametrize("extra, receiver, spec", [
    # the receiver returned from a helper
    ("def serving_input_fn():\n    return tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC)\n\n\n"
     + SPEC, "serving_input_fn()", "SPEC"),
    ("def serving_input_fn(spec):\n    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)\n\n\n"
     + SPEC, "serving_input_fn(SPEC)", "SPEC"),
    # the spec local to that helper: its value
    ('def serving_input_fn():\n    spec = {"x": tf.io.FixedLenFeature([2], tf.float32)}\n'
     "    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)\n",
     "serving_input_fn()", '{"x": tf.io.FixedLenFeature([2], tf.float32)}'),
    # the spec built by make_parse_example_spec in a helper, with or without a receiver helper
    ('def feature_spec():\n    columns = [tf.feature_column.numeric_column("x", shape=(2,))]\n'
     "    return tf.feature_column.make_parse_example_spec(columns)\n",
     "tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec())", "feature_spec()"),
    ('def feature_spec():\n    columns = [tf.feature_column.numeric_column("x", shape=(2,))]\n'
     "    return tf.feature_column.make_parse_example_spec(columns)\n\n\n"
     "def serving_input_fn():\n    return tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec())\n",
     "serving_input_fn()", "feature_spec()"),
])
def test_parsing_receiver_through_helpers_converts(extra, receiver, spec):
    out = converted(prog(TRAIN + EXPORT.format(receiver=receiver), extra=extra))
    assert _export_line(out) == f'est.export_parsing_saved_model("/tmp/e", {spec})'
    assert "def serving_input_fn" not in out and "tf.estimator.export" not in out
    if "def feature_spec" in extra:
        assert "return tf.feature_column.make_parse_example_spec(columns)" in out  # the spec helper stays


def test_helper_called_elsewhere_stays_and_blocks_as_a_leftover():
    extra = ("def serving_input_fn():\n    return tf.estimator.export.build_parsing_serving_input_receiver_fn(SPEC)\n\n\n"
             + SPEC + "\nOTHER = serving_input_fn()")
    result = blocked(prog(TRAIN + EXPORT.format(receiver="serving_input_fn()"), extra=extra))
    assert any("build_parsing_serving_input_receiver_fn" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("body, name", [
    # mutated after its assignment: not one value, the name is kept and means nothing at the export
    ('    spec = {"x": tf.io.FixedLenFeature([2], tf.float32)}\n'
     '    spec["y"] = tf.io.FixedLenFeature([1], tf.float32)\n', "`spec`"),
    # built from another local of the helper
    ('    columns = [tf.feature_column.numeric_column("x", shape=(2,))]\n'
     "    spec = tf.feature_column.make_parse_example_spec(columns)\n", "`columns`"),
])
def test_spec_the_export_cannot_read_blocks_precisely(body, name):
    extra = ("def serving_input_fn():\n" + body
             + "    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)\n")
    result = blocked(prog(TRAIN + EXPORT.format(receiver="serving_input_fn()"), extra=extra))
    assert any(name in d.message and "local to another function" in d.message for d in result.diagnostics)
