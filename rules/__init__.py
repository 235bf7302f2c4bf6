"""tfmigrate's rules: one module per construct family, each with its code, docs (module docstring) and fixtures.

The engine runs `MIGRATIONS` in one pass per file; `PREFILTER` lets it skip files that never mention
TensorFlow before parsing them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    module: str
    summary: str
    fixtures: tuple[str, ...] = ()


RULES = (
    Rule("TFM001", "tf2-imports", "imports", "TF1 imports/aliases → `import tensorflow as tf` + keras; leftover v1 names checked",
         ("classifier_metrics", "momentum_decay", "tf1_namespace")),
    Rule("TFM101", "keras-layers", "layers", "tf.compat.v1.layers (functional and class) → keras.layers with TF1 names",
         ("regression_adagrad", "cnn", "adam_mae", "classifier_metrics")),
    Rule("TFM201", "keras-losses", "losses", "tf.compat.v1.losses → keras.losses, TF1 reduction kept",
         ("regression_adagrad", "classifier_metrics", "cnn", "momentum_decay", "adam_mae", "rmsprop_binary")),
    Rule("TFM301", "keras-optimizers", "optimizers", "tf.compat.v1.train optimizers → Keras with TF1 numerics",
         ("regression_adagrad", "classifier_metrics", "cnn", "momentum_decay", "adam_mae", "rmsprop_binary")),
    Rule("TFM302", "tf1-exact-optimizer", "optimizers",
         "note: stock Keras differs from TF1 here (TF1Adam/TF1Momentum/TF1Ftrl/LegacyAdagrad generated)",
         ("momentum_decay", "adam_mae", "classifier_metrics", "classifier_mwms", "canned_dnn_classifier",
          "canned_linear_regressor")),
    Rule("TFM311", "keras-schedules", "optimizers", "v1 learning-rate decays on global_step → Keras schedules", ("momentum_decay",)),
    Rule("TFM401", "keras-metrics", "metrics", "eval_metric_ops of tf.compat.v1.metrics → Keras metrics",
         ("regression_adagrad", "classifier_metrics", "rmsprop_binary")),
    Rule("TFM501", "model-fn-to-keras-model", "model_fn", "model_fn → keras.Model subclass + loss/optimizer/metrics",
         ("regression_adagrad", "classifier_metrics", "cnn", "adam_mae", "unsupported_hook", "mode_branches")),
    Rule("TFM600", "migrated-as-a-unit", "driver",
         "files linked through one Estimator (model_fn, driver, specs) change together or not at all", ()),
    Rule("TFM601", "estimator-driver", "driver",
         "Estimator/RunConfig/TrainSpec/EvalSpec/train_and_evaluate/train/evaluate/predict/export, wherever and however written",
         ("regression_adagrad", "momentum_decay", "mwms_input_context", "classifier_mwms", "module_level",
          "absl_helpers", "params_input_fn", "trainer_class", "closure_model_fn", "subclass_estimator", "tf1_app",
          "predict_after_train", "export_parsing", "warm_start")),
    Rule("TFM603", "other-estimator-kinds", "driver",
         "Baseline/RNN estimators, TPUEstimator, model_to_estimator: reported with what to do (not converted yet)",
         ()),
    Rule("TFM604", "unresolved-estimator-name", "program",
         "an Estimator-looking name rooted in nothing the file binds is reported, never passed over", ()),
    Rule("TFM611", "session-run-hooks", "hooks",
         "hooks on train/TrainSpec/EvalSpec/EstimatorSpec: observing hooks dropped with a note, StopAtStepHook → the "
         "step training stops at; other hooks block by name", ("observing_hooks", "unsupported_hook")),
    Rule("TFM620", "canned-estimators", "canned",
         "DNN/Linear/DNNLinearCombined Classifier/Regressor (v1 and v2) → Keras model with the Estimator's layer "
         "and variable names, head, loss reduction and optimizer(s)",
         ("canned_dnn_classifier", "canned_linear_regressor", "canned_dnn_regressor_v1", "canned_wide_deep",
          "canned_runtime_keys")),
    Rule("TFM622", "feature-columns", "canned",
         "numeric, and in DNNs bucketized and indicator(vocabulary list) feature columns → the input layer TF1 "
         "built (name order, normalizer_fn, Bucketize/vocabulary + OOV hash one-hot)",
         ("canned_dnn_classifier", "canned_linear_regressor", "canned_dnn_regressor_v1", "canned_wide_deep",
          "canned_runtime_keys")),
    Rule("TFM623", "boosted-trees", "canned",
         "BoostedTreesClassifier/Regressor: blocked with advice (no exact TF2 equivalent; no TF-DF for TF 2.21)", ()),
    Rule("TFM701", "tf2-strategy", "strategy",
         "train_distribute → TF2 strategy (parameter server: role bootstrap + ClusterCoordinator); input_fn kept per replica",
         ("mwms_input_context", "classifier_mwms", "ps_embedding", "ps_min_max")),
    Rule("TFM702", "refused-combination", "strategy", "target/strategy combinations that do not run on TF 2.21 are refused", ()),
    Rule("TFM801", "tf2-partitioners", "partitioners",
         "v1 partitioners → tf.distribute.experimental.partitioners on the PS strategy; 'mod' embedding lookups remapped",
         ("ps_embedding", "ps_min_max")),
    Rule("TFM811", "tf1-variables", "variables",
         "get_variable → model weight (add_weight), variable_scope flattened, embedding_lookup kept",
         ("ps_embedding", "ps_min_max")),
)

PREFILTER = (b"tensorflow",)
# Files whose text has one of these may take part in a multi-file migration (a model_fn in one file, the
# Estimator that uses it in another): the engine indexes them together as one program.
PROJECT_WORDS = (b"stimator",)


def _migrate(module, context):
    from .program import migrate  # imported lazily: `tfmigrate rules` and skipped files never load LibCST rules

    return migrate(module, context)


MIGRATIONS = (_migrate,)


def explain(program, options) -> list[dict]:
    """The migration plan of a program as plain data (`tfmigrate rewrite --explain`)."""
    from tfmigrate.engine import position_in

    from .driver import explain as _explain
    from .program import analysis_for

    class _Context:  # what analysis_for reads
        def __init__(self):
            self.program, self.options = program, options

    def locate(node) -> str:
        file = program.file_of(node) if node is not None else None
        if file is None:
            return "?"
        return f"{file.path}:{position_in(file.module, node)[0]}"

    return _explain(analysis_for(_Context()), locate)
