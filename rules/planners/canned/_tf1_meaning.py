"""`tf.estimator.<Canned>` in a TF 1.x program is the v1 canned class (part of TFM620).

TF 1.x exported the v1 classes (`canned/dnn.py` `DNNClassifier`, loss SUM, tf.train optimizers) as
`tf.estimator.*`; the v2 ones exist only in TF 2. So a canned estimator spelled `tf.estimator.X` means the v1 class
when the program ran on TF 1.x: its file names a TF1-only name through a plain `import tensorflow as tf`
(planners/tf1_program.py), or an optimizer it is given, followed through variables, lambdas, helpers and other
modules of the run, is a TF 1.x optimizer (`tf.train.AdamOptimizer`)."""
from __future__ import annotations

from tfmigrate.model import FileIndex

from .. import tf1_program
from ._model import CODE


def file_evidence(file: FileIndex) -> str | None:
    """The TF1-only name the estimator's file names (`tf.train.FtrlOptimizer`), or None for a TF 2 file."""
    module = getattr(file, "module", None)
    return tf1_program.tf1_name(module) if module is not None else None


def optimizer_evidence(errors: list) -> str | None:
    """The TF 1.x optimizer a v2 reading of the call was refused for (set by _optimizers.instance), or None."""
    return next((x.tf1_optimizer for e in errors for x in e.errors if getattr(x, "tf1_optimizer", None)), None)


def note(name: str, evidence: str, call) -> tuple:
    return (CODE, f"tf.estimator.{name} in a TF 1.x program (it names {evidence}) is TF 1.x's v1 canned class: "
                  f"converted as tf.compat.v1.estimator.{name} (loss SUM, tf.train optimizers)", call)
