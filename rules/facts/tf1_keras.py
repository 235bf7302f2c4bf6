"""TF 1.x's `tensorflow.python.keras`: the module tf.keras exported (TF 1.x up to 2.5: `tf.keras` was
`tensorflow.python.keras`, the same module objects), read as tf.keras. From TF 2.6 Keras is its own package and
`tensorflow.python.keras` an older private copy (TF 2.15: its models cannot go through model_to_estimator, measured),
so planners/private_keras.py rewrites such imports only in a TF 1.x program.

Only the modules tf.keras exports are mapped (TF 1.15's tf.keras API); private ones (`engine`, `optimizer_v2`,
`saving`, `layers.core`, ...) have no tf.keras name and stay as they are (blocked where imported).
"""
from __future__ import annotations

PREFIX = "python.keras"
# tf.keras's public submodules and top-level names in TF 1.15
PUBLIC = frozenset({
    "activations", "applications", "backend", "callbacks", "constraints", "datasets", "estimator", "experimental",
    "initializers", "layers", "losses", "metrics", "mixed_precision", "models", "optimizers", "preprocessing",
    "regularizers", "utils", "wrappers", "Model", "Sequential", "Input",
})


def public(path: str) -> str | None:
    """`keras.<rest>` for a normalised `python.keras.<rest>` tf.keras exports (`python.keras` itself: `keras`),
    None for any other path."""
    if path == PREFIX:
        return "keras"
    if not path.startswith(PREFIX + "."):
        return None
    rest = path[len(PREFIX) + 1:]
    parts = rest.split(".")
    # a public module's own names only (`layers.Dense`), not a private module inside it (`layers.core.Dense`)
    if parts[0] not in PUBLIC or len(parts) > 2 and parts[1][:1].islower() and parts[0] != "backend":
        return None
    return f"keras.{rest}"
