"""Planners: one module per construct family. Each reads facts (rules/facts) and the program model and decides
what a construct becomes, or blocks it with a rule code and a reason.

Families: the forward pass (`model_fn`, `layers`, `variables`, `losses`, `optimizers`, `metrics`, `partitioners`,
`hooks`, `export_outputs`), canned estimators (`canned`, `heads`, `feature_columns`), the driver (`driver`,
`strategy`, `receivers`, `numpy_inputs`, `tpu`, `keras_estimator`), and the file's imports (`imports`,
`generated_names`). A planner imports only planners below it (.importlinter lists the order) and no private name.
"""
