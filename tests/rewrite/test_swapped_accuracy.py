"""`tf.compat.v1.metrics.accuracy(predictions, labels)` with the arguments swapped (TFM401).

TF 2.15's accuracy(labels, predictions) casts `predictions` to `labels`' dtype and counts equal elements, so the
swapped call casts the real labels to the prediction's dtype. Measured in the legacy env (4 examples): argmax vs
int32 / int64 / integral float labels 0.75 both ways, vs fractional float labels 0.25 unswapped, 1.0 swapped;
`logits > 0` vs 0/1 labels 0.75 both ways, vs labels {0, 1, 2} 0.75 unswapped, 1.0 swapped; the raw output vs
int labels 1.0 unswapped, 0.25 swapped. So argmax / decision forms convert with a note naming the labels they
count the same for, and the raw-output form blocks."""
from __future__ import annotations

import pytest

from _helpers import blocked, codes, rewrite
from test_rules import metric_list, with_metrics


def _notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "TFM401" and d.severity == "note"]


@pytest.mark.parametrize("call", ["tf.compat.v1.metrics.accuracy(tf.argmax(logits, 1), labels)",
                                  "tf.compat.v1.metrics.accuracy(predictions=labels, labels=tf.argmax(logits, 1))"])
def test_swapped_argmax_accuracy_converts_with_a_note(call):
    result = rewrite(with_metrics(f'{{"acc": {call}}}', "sparse_softmax_cross_entropy"))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert 'keras.metrics.SparseCategoricalAccuracy(name="acc")' in metric_list(result.output.decode())
    [note] = _notes(result)
    assert "arguments swapped" in note and "integer class ids" in note and "fractional part" in note


def test_swapped_decision_accuracy_converts_with_a_note():
    src = with_metrics('{"acc": tf.compat.v1.metrics.accuracy(logits > 0, labels)}', "sigmoid_cross_entropy")
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert 'keras.metrics.BinaryAccuracy(threshold=0.0, name="acc")' in metric_list(result.output.decode())
    [note] = _notes(result)
    assert "arguments swapped" in note and "0/1 labels" in note


def test_swapped_raw_output_accuracy_is_blocked_precisely():
    src = with_metrics('{"acc": tf.compat.v1.metrics.accuracy(logits, labels)}')
    result = blocked(src)
    assert codes(result) == {"TFM401"}
    [diagnostic] = result.diagnostics
    assert "arguments swapped" in diagnostic.message and "accuracy(labels, predictions)" in diagnostic.message
    assert "tf.compat.v1.metrics.accuracy(logits, labels)" in src.splitlines()[diagnostic.line - 1]


def test_unswapped_accuracy_has_no_swap_note():
    result = rewrite(with_metrics('{"acc": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}',
                                  "sparse_softmax_cross_entropy"))
    assert result.status == "changed" and not [n for n in _notes(result) if "swapped" in n]


def test_accuracy_without_the_labels_computes_what_tf1_did():  # rules/planners/metric_expressions.py
    result = rewrite(with_metrics('{"acc": tf.compat.v1.metrics.accuracy(tf.argmax(logits, 1), tf.argmax(logits, 1))}',
                                  "sparse_softmax_cross_entropy"))
    got = metric_list(result.output.decode()).replace(" ", "").replace("\n", "")
    assert ('TF1Mean(lambdalabels,logits:TF1MetricValues.correct(tf.argmax(logits,1),tf.argmax(logits,1)),'
            'name="acc")') in got
