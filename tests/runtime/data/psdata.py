"""Deterministic id-bag regression data for the parameter-server test pair (integer hashing, no RNG)."""
import numpy as np

from regdata import _hash, _uniform

VOCAB = 50
IDS_PER_EXAMPLE = 4


def make_ids_data(n=1024):
    """ids int32 [n, IDS_PER_EXAMPLE] in [0, VOCAB); y float32 [n, 1] = 3 * mean(w[ids]) + 0.5 + noise."""
    flat = np.arange(n * IDS_PER_EXAMPLE, dtype=np.uint64)
    ids = (_hash(flat, 11) % np.uint64(VOCAB)).astype(np.int32).reshape(n, IDS_PER_EXAMPLE)
    w = _uniform(np.arange(VOCAB, dtype=np.uint64), 12)
    noise = _uniform(np.arange(n, dtype=np.uint64), 13)
    y = 3.0 * w[ids].mean(axis=1) + 0.5 + 0.05 * noise
    return ids, y.astype(np.float32).reshape(n, 1)
