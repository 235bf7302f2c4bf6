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
