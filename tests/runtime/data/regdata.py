"""Deterministic regression data shared by the test programs (no RNG: integer hashing only).

Identical bits on numpy 1.x and 2.x: only uint64 integer arithmetic, exact float64 scaling and
element-wise float64 arithmetic followed by one cast to float32.
"""
import numpy as np

_MASK = np.uint64(0xFFFFFFFF)


def _hash(i, salt):
    h = (i * np.uint64(2654435761) + np.uint64(salt) * np.uint64(40503)) & _MASK
    h = h ^ (h >> np.uint64(16))
    h = (h * np.uint64(0x45D9F3B)) & _MASK
    h = h ^ (h >> np.uint64(16))
    h = (h * np.uint64(0x45D9F3B)) & _MASK
    h = h ^ (h >> np.uint64(16))
    return h


def _uniform(i, salt):
    # in [-1, 1), exact in float64
    return _hash(i, salt).astype(np.float64) / 2.0**31 - 1.0


def make_data(n=1024):
    i = np.arange(n, dtype=np.uint64)
    x0 = _uniform(i, 1) * 1.7
    x1 = _uniform(i, 2) * 1.7
    noise = _uniform(i, 3)
    y = x0 * 2.0 - x1 * 3.0 + 0.5 + 0.1 * noise
    x = np.stack([x0, x1], axis=1).astype(np.float32)
    return x, y.astype(np.float32).reshape(n, 1)
