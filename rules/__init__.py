"""tfmigrate's rules: one module per construct family, each with its code, docs (module docstring) and fixtures.

The engine runs `MIGRATIONS` in one pass per file; `PREFILTER` (the union of the rules' `triggers`) lets it skip,
after one byte scan and with no decode or parse, every file none of the words appears in.

Why these words suffice (tests/speed/test_prefilter.py checks it on fixtures, generated programs and mutants):
rules/program.py changes or flags a file only when (1) an Estimator the program builds is built, configured or
driven in it (every model_fn rule — layers, losses, optimizers, metrics, partitioners, variables, strategy, imports —
acts only on a model_fn reached from such an Estimator), (2) the driver analysis reports an Estimator-API call
(canned/TPU estimators, model_to_estimator, train_and_evaluate, an Estimator use it cannot follow), or (3) the
leftover check finds a TF path under `estimator` or, for TFM604, an unbound dotted name with one of
`_ESTIMATOR_WORDS` in it. Every one of those resolves a dotted name whose parts come from the file's text or, for
a relative import, from the file's package path (the engine scans that path too for files with relative imports).
(1) and (2) need a path part `estimator` / `...Estimator` / `...EstimatorSpec` (`tensorflow_estimator` normalises
to `estimator`), all spelled with b"stimator"; (3) adds RunConfig, TrainSpec, EvalSpec and train_and_evaluate,
and the canned class names (`CANNED_WORDS`) for tf.contrib.learn's Estimators (TFM603) and unbound roots (TFM604),
and `CONTRIB_LEARN_WORDS` for the rest of tf.contrib.learn (TFM603 in a file that builds no Estimator; the engine
matches a dotted word against an attribute chain's last two names and an import's `module.name`).
For the same reason a file whose words occur only in strings and comments (no identifier holds one:
`tfmigrate.engine.identifiers_skip`, one `ast` parse) is treated as a file without them: skipped when migrated
alone, and not a program file (PROJECT_WORDS in an identifier) when the engine groups files into units; a file
without them is in an Estimator file's unit only when that unit's program files import it.

Files that import no TensorFlow (`ROOTS`, `tfmigrate.engine.NO_ROOTS`: no import of them in any scope, no star
import, no relative import inside a package named for one). Every TF path the rules resolve comes from the file's own
imports (`Program.qualified` follows a name to its binding in that file, never into another file), so such a file
takes program.migrate's first branch: no edit, and only the leftover check, which reads that file only — a TFM604
dotted name with one of `NAMES` as an attribute under a root bound nowhere. Hence (a) alone, such a file with none
of `NAMES` as an attribute (`NO_NAMES`) is unchanged with no finding (scikit-learn's `BaseEstimator`, a parameter
named `estimator`), and (b) an Estimator site (a call resolving to `estimator.Estimator`, a canned, Keras or TPU
Estimator, or a subclass of one) needs a word in an identifier and a TF path, so it lies in a program file that
imports TensorFlow: a unit none of whose program files does holds no site, so every file of it changes nothing
and gets the findings it gets alone (none for a joined file the byte scan skips) — the engine migrates such a unit
file by file (the Keras 3 scikit-learn wrappers and the ~25 Keras modules they import). A unit with one program file that
imports TensorFlow is kept whole (an Estimator built in a helper module that the driver imports).
"""
from __future__ import annotations

from tfmigrate.records import record

from .facts.words import CANNED_NAMES, ESTIMATOR_NAMES, ROOTS  # noqa: F401 (the engine reads ROOTS here)


@record(frozen=True)
class Rule:
    code: str
    name: str
    module: str
    summary: str
    fixtures: tuple[str, ...] = ()
    # the byte words without which this rule cannot change or flag a file (API names as source text spells them,
    # alias and `from`-import spellings included); a rule acting only inside a converted Estimator program
    # (a model_fn, its RunConfig) needs the Estimator itself, so it declares ESTIMATOR_WORDS
    triggers: tuple[bytes, ...] = ()


# b"stimator": Estimator, estimator, tf_estimator, tensorflow_estimator, EstimatorSpec, TPUEstimator,
# model_to_estimator, DNNClassifier's `estimator.` path, `from tensorflow import estimator as E`
ESTIMATOR_WORDS = (b"stimator",)
# names the unresolved-name check (TFM604) also reads without an `estimator` part: `contrib.RunConfig(...)`
SPEC_WORDS = (b"RunConfig", b"TrainSpec", b"EvalSpec", b"train_and_evaluate")
_SPEC = ESTIMATOR_WORDS + SPEC_WORDS
# canned Estimator classes spelled without `estimator` (tf.contrib.learn.DNNClassifier, `from tensorflow.contrib.learn
# import LinearRegressor`): TFM603 reports contrib.learn, TFM604 an unbound root (DNNLinearCombined covers both kinds)
CANNED_WORDS = (b"DNNClassifier", b"DNNRegressor", b"LinearClassifier", b"LinearRegressor", b"DNNLinearCombined")
# the rest of tf.contrib.learn (ModeKeys, Experiment, learn_runner, MetricSpec, datasets): TF 2 has no contrib, so a
# file using them is reported (TFM603) even when it builds no Estimator; `a.b` words also match an attribute chain
CONTRIB_LEARN_WORDS = (b"contrib.learn", b"learn_runner", b"contrib import learn")


RULES = (
    Rule("TFM001", "tf2-imports", "planners.imports", "TF1 imports/aliases → `import tensorflow as tf` + keras; leftover v1 names checked",
         ("classifier_metrics", "momentum_decay", "tf1_namespace", "keras2_premade_beside"), triggers=ESTIMATOR_WORDS),
    Rule("TFM101", "keras-layers", "planners.layers", "tf.compat.v1.layers (functional and class) → keras.layers with TF1 names",
         ("regression_adagrad", "cnn", "adam_mae", "classifier_metrics"), triggers=ESTIMATOR_WORDS),
    Rule("TFM201", "keras-losses", "planners.losses", "tf.compat.v1.losses → keras.losses, TF1 reduction kept",
         ("regression_adagrad", "classifier_metrics", "cnn", "momentum_decay", "adam_mae", "rmsprop_binary"),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM301", "keras-optimizers", "planners.optimizers", "tf.compat.v1.train optimizers → Keras with TF1 numerics",
         ("regression_adagrad", "classifier_metrics", "cnn", "momentum_decay", "adam_mae", "rmsprop_binary"),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM302", "tf1-exact-optimizer", "planners.optimizers",
         "note: stock Keras differs from TF1 here (TF1Adam/TF1Momentum/TF1Ftrl/LegacyAdagrad generated)",
         ("momentum_decay", "adam_mae", "classifier_metrics", "classifier_mwms", "canned_dnn_classifier",
          "canned_linear_regressor"), triggers=ESTIMATOR_WORDS),
    Rule("TFM311", "keras-schedules", "planners.optimizers", "v1 learning-rate decays on global_step → Keras schedules", ("momentum_decay",), triggers=ESTIMATOR_WORDS),
    Rule("TFM401", "keras-metrics", "planners.metrics", "eval_metric_ops of tf.compat.v1.metrics → Keras metrics",
         ("regression_adagrad", "classifier_metrics", "rmsprop_binary", "metric_mean", "metric_cast"), triggers=ESTIMATOR_WORDS),
    Rule("TFM501", "model-fn-to-keras-model", "planners.model_fn", "model_fn → keras.Model subclass + loss/optimizer/metrics",
         ("regression_adagrad", "classifier_metrics", "cnn", "adam_mae", "unsupported_hook", "mode_branches",
          "bert_logging_loops", "unpacked_helper", "assign_step",
          "assign_step_checkpoint"),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM502", "model-mapping-shim", "planners.shim",
         "a model_fn forward pass the native conversion cannot re-express runs as written under TF's "
         "track_tf1_style_variables (tf_keras, TF1 variable names)",
         ("shim_get_variable", "shim_regularized_layers", "shim_batch_norm", "shim_fm_l2"), triggers=ESTIMATOR_WORDS),
    Rule("TFM600", "migrated-as-a-unit", "planners.driver",
         "files linked through one Estimator (model_fn, driver, specs) change together or not at all", (),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM601", "estimator-driver", "planners.driver",
         "Estimator/RunConfig/TrainSpec/EvalSpec/train_and_evaluate/train/evaluate/predict/export, wherever and however written",
         ("regression_adagrad", "momentum_decay", "mwms_input_context", "classifier_mwms", "module_level",
          "absl_helpers", "params_input_fn", "trainer_class", "closure_model_fn", "subclass_estimator", "tf1_app",
          "predict_after_train", "export_parsing", "export_receiver", "numpy_input", "warm_start", "early_stop_loop"),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM603", "other-estimator-kinds", "planners.keras_estimator",
         "model_to_estimator becomes the compiled Keras model (legacy optimizer kept exact); RNN estimators and "
         "tf.contrib's TPUEstimator are reported with what to do (TPUEstimator on CPU: TFM605)",
         ("model_to_estimator", "model_to_estimator_sgd"), triggers=ESTIMATOR_WORDS + CANNED_WORDS + CONTRIB_LEARN_WORDS),
    Rule("TFM604", "unresolved-estimator-name", "program",
         "an Estimator-looking name rooted in nothing the file binds is reported, never passed over", (),
         triggers=_SPEC + CANNED_WORDS),
    Rule("TFM605", "tpu-estimator-on-cpu", "planners.tpu",
         "TPUEstimator(use_tpu=False) → the Estimator it was on CPU (per-mode params batch_size, eval_metrics "
         "inlined, use_tpu branches dropped); use_tpu possibly True and TPU-only features are reported with what to do",
         ("tpu_estimator_cpu",), triggers=ESTIMATOR_WORDS),
    Rule("TFM611", "session-run-hooks", "planners.hooks",
         "hooks on train/TrainSpec/EvalSpec/EstimatorSpec: observing hooks dropped with a note, StopAtStepHook → the "
         "step training stops at, user SessionRunHook subclasses holding Python state → keras callbacks (Keras "
         "target), early-stopping hooks → EstimatorEarlyStopping; other hooks block by name",
         ("observing_hooks", "custom_hook", "unsupported_hook", "early_stop_loop", "spec_stop_hook"),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM620", "canned-estimators", "planners.canned",
         "DNN/Linear/DNNLinearCombined Classifier/Regressor (v1 and v2) → Keras model with the Estimator's layer "
         "and variable names, head, loss reduction and optimizer(s); DNN/Linear/DNNLinearCombined Estimators over a "
         "Binary/MultiClass/Regression head as the canned class that builds that head",
         ("canned_dnn_classifier", "canned_linear_regressor", "canned_dnn_regressor_v1", "canned_wide_deep",
          "canned_runtime_keys", "canned_weighted_vocab", "canned_v1_head_metrics",
          "canned_batch_norm", "canned_predict", "canned_baseline",
          "canned_weighted_mwms", "head_dnn_multiclass", "head_linear_regression", "canned_tf1_names_wide_deep"),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM622", "feature-columns", "planners.canned",
         "numeric, and in DNNs bucketized and indicator(vocabulary list) feature columns → the input layer TF1 "
         "built (name order, normalizer_fn, Bucketize/vocabulary + OOV hash one-hot)",
         ("canned_dnn_classifier", "canned_linear_regressor", "canned_dnn_regressor_v1", "canned_wide_deep",
          "canned_runtime_keys", "canned_embedding_mwms", "canned_linear_categorical_mwms",
          "canned_wide_deep_mwms"), triggers=ESTIMATOR_WORDS),
    Rule("TFM623", "boosted-trees", "planners.canned",
         "BoostedTreesClassifier/Regressor: blocked with advice (no exact TF2 equivalent; no TF-DF for TF 2.21)", (), triggers=ESTIMATOR_WORDS),
    Rule("TFM701", "tf2-strategy", "planners.strategy",
         "train_distribute → TF2 strategy (parameter server: role bootstrap + ClusterCoordinator); input_fn kept per replica",
         ("mwms_input_context", "classifier_mwms", "ps_embedding", "ps_min_max"), triggers=ESTIMATOR_WORDS),
    Rule("TFM702", "refused-combination", "planners.strategy", "target/strategy combinations that do not run on TF 2.21 are refused", (),
         triggers=ESTIMATOR_WORDS),
    Rule("TFM801", "tf2-partitioners", "planners.partitioners",
         "v1 partitioners → tf.distribute.experimental.partitioners on the PS strategy; 'mod' embedding lookups remapped",
         ("ps_embedding", "ps_min_max"), triggers=ESTIMATOR_WORDS),
    Rule("TFM811", "tf1-variables", "planners.variables",
         "get_variable → model weight (add_weight), variable_scope flattened, embedding_lookup kept",
         ("ps_embedding", "ps_min_max"), triggers=ESTIMATOR_WORDS),
)

# the words any rule can react to: a file none of them appears in is unchanged without being parsed
PREFILTER = tuple(dict.fromkeys(word for rule in RULES for word in rule.triggers))
# Files whose text has one of these may take part in a multi-file migration (a model_fn in one file, the
# Estimator that uses it in another): the engine indexes them together as one program.
PROJECT_WORDS = ESTIMATOR_WORDS
# a notebook whose converted code cells cannot be put back into the cells ({why}: tfmigrate.notebooks)
NOTEBOOK_FINDING = ("TFM601", "the converted notebook cannot be mapped back to its cells: {why}; export it (`jupyter "
                              "nbconvert --to script {name}`) and run tfmigrate on the .py")
NAMES = ESTIMATOR_NAMES | CANNED_NAMES


def _migrate(module, context):
    from .program import migrate  # imported lazily: `tfmigrate rules` and skipped files never load LibCST rules

    return migrate(module, context)


MIGRATIONS = (_migrate,)


def prepare() -> None:
    """Import what MIGRATIONS run (LibCST, the rule modules, the templates' jinja2): the engine calls it before it
    forks workers, so they inherit the imports instead of each paying for them."""
    from .emit.assembly import template_env

    template_env()


def explain(program, options) -> list[dict]:
    """The migration plan of a program as plain data (`tfmigrate rewrite --explain`)."""
    from tfmigrate.engine import position_in

    from .planners.driver import explain as _explain
    from .program import analysis_for

    class _Context:  # what analysis_for (and the model plans, for the forward pass) read
        def __init__(self):
            self.program, self.options = program, options
            self.module = self.text = None

    def locate(node) -> str:
        file = program.file_of(node) if node is not None else None
        if file is None:
            return "?"
        return f"{file.path}:{position_in(file.module, node)[0]}"

    context = _Context()
    analysis = analysis_for(context)
    out = _explain(analysis, locate)
    from .program import forward_pass

    for site, entry in zip(analysis.sites, out):  # how each model_fn's forward pass converts: native or shim
        style = forward_pass(site, context)
        if style is not None:
            entry["forward_pass"] = style
            entry["target"] = site.target  # (a shim model trains in the custom loop)
    return out
