"""The TF package roots and the Estimator API names the engine and the rules look for in a program's text."""
from __future__ import annotations

# The packages through which a file can name a TensorFlow API (program.TF_ROOTS): a file that imports none of them
# (in any scope), star-imports nothing and has no relative import inside a package named for one (engine.NO_ROOTS)
# gets only findings of its own (see the module docstring); a unit none of whose program files imports one holds
# no Estimator, so its files are migrated one by one.
ROOTS = ("tensorflow", "tensorflow_estimator")
# the name parts TFM604 reports under a root bound nowhere (`x.estimator.Estimator`, `contrib.RunConfig`): a file
# that imports no root and has none of them as an attribute (engine.NO_NAMES) is unchanged with no finding
ESTIMATOR_NAMES = frozenset({"estimator", "Estimator", "EstimatorSpec", "TPUEstimator", "TPUEstimatorSpec",
                             "model_to_estimator", "train_and_evaluate", "TrainSpec", "EvalSpec", "RunConfig"})
CANNED_NAMES = frozenset({"DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
                          "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor"})
