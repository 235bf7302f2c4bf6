"""TFM620 canned estimators, TFM622 feature columns, TFM623 boosted trees → Keras models that train the same.

Converts `DNNClassifier`, `DNNRegressor`, `LinearClassifier`, `LinearRegressor`,
`DNNLinearCombinedClassifier`/`Regressor` (wide & deep) and `BaselineClassifier`/`Regressor` (a bias per output,
`baseline/bias`, logits bias * ones([batch, units]); optimizer strings at baseline.py's 0.3), v2 (`tf.estimator.*`) and v1
(`tf.compat.v1.estimator.*`, also `tf.estimator.*` under `import tensorflow.compat.v1 as tf`), built anywhere the
driver (TFM601) finds Estimators, arguments positional or by keyword. The canned class becomes a Site of the
driver whose model is generated here instead of read from a model_fn; RunConfig, strategy, specs, `train`,
`evaluate`, `train_and_evaluate` and the input functions go through the driver unchanged.

The generated model is the graph the canned estimator built (tensorflow_estimator 2.15 sources, checked with
TF 2.15 runs):
- Input (TFM622): `tf.feature_column.numeric_column(key, shape, default_value, dtype, normalizer_fn)`. Like TF1's
  input_layer, the columns are taken in name order; each value gets a last axis if it has rank 1, then
  `normalizer_fn` (a lambda or a function visible at module level, carried as written) on the value as given,
  then float32, reshaped to [batch, prod(shape)]; DNN inputs are concatenated on the last axis. `default_value`
  and `dtype` only steer tf.Example parsing, which a features dict skips, so they change nothing here.
  `bucketized_column(numeric, boundaries)` in a DNN (name `<key>_bucketized`): the Bucketize op TF1 ran on the
  numeric value, one-hot over len(boundaries) + 1 buckets, flattened — dense, so its numerics are TF1's.
  `indicator_column(categorical_column_with_vocabulary_list(key, vocabulary, default_value, num_oov_buckets))` in
  a DNN (name `<key>_indicator`): each value's index in the vocabulary, else an OOV bucket from
  `to_hash_bucket_fast` (the hasher TF1's id table used; integers as strings) or default_value; "" (strings) and
  -1 (integers) dropped as TF1 dropped them; one-hot over vocabulary + OOV ids summed per example.
  Categorical columns (rules/planners/feature_columns.py, templates/feature_columns.py.j2): `embedding_column(categorical,
  dimension, combiner, max_norm, trainable)` in a DNN (layer `<col>_embedding`, variable `embedding_weights`, TF1's
  truncated-normal 1/sqrt(dimension) init), `indicator_column` over any of them, and in a linear model (and the
  wide part) the categorical columns themselves plus `bucketized_column` (`<col>/weights` [num_buckets, units],
  `sparse_combiner`). Categorical: `categorical_column_with_vocabulary_list`, `_with_hash_bucket`
  (`to_hash_bucket_fast`, integers as strings), `_with_identity` (default_value, or TF1's range assertion),
  `crossed_column` (nested crosses flattened, `tf.sparse.cross_hashed` = TF1's SparseCrossHashed, hash_key).
  Exact because the generated code runs TF1's ops: "" / -1 dropped, ids, `tf.nn.safe_embedding_lookup_sparse`
  (checked: TF 2.15 input_layer / linear_model vs the generated functions with the same weights, bit-equal for
  sum/mean/sqrtn). Their IndexedSlices gradients go through the dense Keras update; measured against TF1's sparse
  kernels: legacy Adagrad and SGD bit-equal (zero rows unchanged), Ftrl bit-equal on zero-initialised linear
  weights only, v1 AdagradOptimizer last bits (TF1's sparse kernel uses rsqrt: TFM622 note); other optimizers
  (Ftrl on an embedding, Adam, RMSProp, momentum, Ftrl l2 shrinkage) block. Fixtures canned_embedding (100/100
  steps bit-equal) and canned_wide_deep_crossed (91/100 bit-equal, max rel Δ 9.4e-8: the logistic head's kernels).
  Values known only at run time (a vocabulary read from a file, `categorical_column_with_vocabulary_file`, a flag's
  num_buckets or dimension, boundaries from the data) are computed where the Estimator is built and passed in params
  (rules/planners/feature_columns.py; fixture canned_runtime_vocab: 72/100 bit-equal, max rel Δ 1.9e-7, the logistic head's).
  Blocked at their line: weighted_categorical_column, shared_embedding(s), integer or tfrecord vocabulary files,
  sequence columns, embedding initializer / ckpt_to_load_from / use_safe_embedding_lookup=False, a bare categorical
  column in a DNN, indicator/embedding columns in a linear model.
  Under MirroredStrategy they convert (DNN, linear, wide & deep), to the custom loop where --target is auto. With
  several local CPUs both TF versions (the same mirrored_strategy.py) pick CollectiveAllReduce (RING), the MWMS code
  below: the replicas' IndexedSlices rows all-gathered in replica order and summed per row. Measured with 2 logical
  CPUs on both sides (`tf.config.set_logical_device_configuration` before the strategy; TF 2.15's Estimator also
  needs `RunConfig(session_config=ConfigProto(device_count={"CPU": 2}))`, without it the first step hangs in the
  collective), num_replicas_in_sync 2, 32 examples per replica, 80 steps, the Estimator's model.ckpt-0 as the
  migrated start: DNN over embedding columns (Adagrad 0.05), LinearClassifier over categorical columns (default
  Ftrl), wide & deep (Adagrad + Ftrl) and a v1 DNNClassifier (SUM loss, tf.compat.v1.train.GradientDescentOptimizer:
  the v1 optimizers' merge_call path): 80/80 steps bit-equal (the first replica's loss: the Estimator ran the
  first device's hooks only, runtime/boot/target_boot.py records the same) and every weight bit-equal after 80
  steps, max rel Δ 0; with one replica the same for the first three, and for the DNN under Keras fit as well
  (fixture canned_embedding_mirrored, its test tests/fixtures_run/test_mirrored_replicas.py, 2 and 1 replicas;
  evaluate() bit-equal). As under MWMS, TF 2.15
  aborts ("Shape mismatch in the collective instance") on a step whose replicas' sparse gradients have different
  row counts; the migrated program trains there. Keras 3's fit fails on more than one replica when the input has
  string features (its _maybe_symbolic_build reduces the first distributed batch with strategy.reduce("MEAN")):
  auto picks the custom loop, --target keras gets a TFM622 note. Not measured: GPUs (TF picks NcclAllReduce there;
  2.15 and 2.21 run the same distribute code: mirrored_strategy.py, cross_device_ops.py and cross_device_utils.py
  differ in comments only); a cross_device_ops object passed to MirroredStrategy blocks (TFM701).
  Under MultiWorkerMirroredStrategy they convert (DNN, linear, wide & deep): both sides all-gather the workers'
  IndexedSlices rows in worker order with the same collective code and sum them per row in that order (TF1's
  sparse apply deduplicates, the migrated update densifies). Fixtures, chief + worker: canned_embedding_mwms (80/80
  steps bit-equal on both workers; at a per-worker batch of 24 every weight and Adagrad slot still bit-equal after
  80 steps, the recorded loss 1 ulp off on some steps: TF 2.21's grappler rewrites the capture's sum / 24 as
  sum * (1/24); the same program as a v1 DNNClassifier with tf.compat.v1.train.GradientDescentOptimizer, whose
  gradients take the v1 optimizers' merge_call path: 80/80 bit-equal), canned_linear_categorical_mwms (Ftrl: every variable bit-equal after step 1; 38/60 and 31/60
  steps bit-equal, max rel 2.8e-7; one process 39/60, 2.35e-7) and canned_wide_deep_mwms (50-54/60 bit-equal,
  max rel 1.3e-7 over two runs; one process 44/60, 1.4e-7): the residual last bits are there on one process too.
  TF 2.15's Estimator itself aborts under MWMS ("Shape mismatch in the collective instance") on a step where the
  workers' sparse gradients have different row counts (distinct ids per batch), so only programs whose workers
  look up equally many rows ran there; the migrated loop pads the gather and trains.
  The columns are read from the source: a list, a comprehension or loop (`.append`/`.extend`) over names the
  file lists, a dict of columns and its `.values()`, `+`, a helper that returns them. A loop or comprehension
  over keys known only at run time (`for key in train_x.keys(): columns.append(numeric_column(key))`, the
  premade-estimators tutorial) passes those keys to the model (params, evaluated where the Estimator was built,
  after the loop ran on the same value), which sorts its inputs by column name at run time as TF1 did.
  The statements that only built columns go away with the Estimator.
- DNN: `keras.layers.Dense` layers named `hiddenlayer_<i>` and `logits`, so their variables match the Estimator's
  `dnn/hiddenlayer_<i>/kernel` … `dnn/logits/bias` by name (verify's weight transfer, loading a model_dir);
  `activation_fn` and `dropout` carried (dropout masks come from another random stream: TFM620 note);
  `batch_norm=True`: a generated TF1BatchNormalization named `batchnorm_<i>` after each hidden layer and its dropout
  (rules/planners/heads.py).
- Linear: a generated `LinearModel` layer with one `<column>/weights` variable per column and `bias_weights`
  (`linear/linear_model/<column>/weights`), output `bias_add(add_n(column @ weights), bias)` as TF1 computed it.
- Wide & deep: the DNN's logits plus the linear model's; its two optimizers (DNN strings at 0.001, linear strings at
  min(0.005, 1/sqrt(linear columns))) each update their own part's variables through a generated
  `WideDeepOptimizer` that hands every variable to its part's optimizer (Adagrad, Ftrl, SGD; optimizers with
  per-step state like Adam block there). One column list empty (`[]`, `()`, `list()`, `tuple()`) or None: TF 2.15
  built no such part (`dnn_logits` / `linear_logits` None) and trained the other alone with its own optimizer at
  the combined defaults (a TFM620 note names the unused arguments); fixture canned_wide_only
  (dnn_feature_columns=[], 100/100 steps, 97 bit-equal). Both empty: TF1's ValueError, blocked.
- Head: n_classes 2 → sigmoid cross-entropy on one logit, > 2 → sparse softmax cross-entropy, regressors → squared
  error (`label_dimension` d > 1: logits [batch, d] and a generated `SquaredError` loss, one value per label, since
  the head reduced the [batch, d] squared errors as one set: measured on TF 2.15, v2 SUM_OVER_BATCH_SIZE =
  sum(w * sq) / (batch * d) with [batch, 1] weights broadcast over the labels, v1 SUM the weighted sum; Keras'
  MeanSquaredError would average each example's labels first; the custom loop passes the [batch, d] losses
  to compute_average_loss with global_batch_size = batch * d * replicas; average_loss, label/mean, prediction/mean
  average every label. Fixture canned_multi_regressor (Keras fit): 100/100 steps bit-equal, evaluate() within
  1.2e-7; the same program on the custom loop 100/100 within 1.1e-7 (82 bit-equal); a v1 LinearRegressor with
  label_dimension=3 (SUM, Ftrl) 100/100 bit-equal on both targets; under MWMS (chief + worker, train_and_evaluate)
  the DNNRegressor 60/60 steps on both workers within rel 1.1e-7, 53 bit-equal; BaselineRegressor(label_dimension=3)
  100/100 bit-equal; DNNLinearCombinedRegressor(label_dimension=3, Adagrad + default Ftrl) 100/100 within rel
  3.2e-7, 47 bit-equal); the reduction the
  class used (v2 default SUM_OVER_BATCH_SIZE, v1 default SUM, or `loss_reduction`):
  SUM_OVER_BATCH_SIZE is the per-replica mean averaged over the global batch (the custom loop's
  `compute_average_loss`, Keras' default), SUM each replica's plain sum with gradients summed over replicas (no
  1/replicas scaling: TF1 scaled only mean reductions). `weight_column`, `label_vocabulary` and the metrics
  evaluate() returns are the head's, generated by rules/planners/heads.py (its doc says how): binary accuracy,
  accuracy_baseline, auc, auc_precision_recall, average_loss, label/mean, loss, precision, prediction/mean, recall,
  global_step; multi-class accuracy, average_loss, loss, global_step; regression average_loss, label/mean, loss,
  prediction/mean, global_step. `predict()` after training yields the head's PREDICT keys (rules/planners/heads.py).
- Export: `export_saved_model` and EvalSpec exporters after training write the head's signatures as TF 2.15's
  heads exported them (rules/planners/heads.py): serving_default / classification (classify: `inputs` → `classes`,
  `scores`), regression (binary logistic, regressor predictions), predict (every PREDICT key), through the same
  export methods as a model_fn's export_outputs (templates/export_methods.py.j2), with the Estimator's SignatureDef
  method names (tensorflow/serving/classify / regress / predict, rules/planners/export_outputs.py). With
  `build_parsing_serving_input_receiver_fn(spec)` (a spec written out or `make_parse_example_spec(columns)`: the
  column statements it reads stay) every signature; with a raw receiver (`build_raw_serving_input_receiver_fn`) or a
  hand-written one that is not a lone string tensor, `predict` alone and no serving_default, as the Estimator left
  out the signatures that take one string tensor (written with tf.saved_model.save: keras.export would add a
  default). Fixtures canned_export (120/120 steps bit-equal), canned_export_binary (100/100 within 2.4e-7),
  canned_export_regressor (v1, within 1.2e-6), canned_export_raw (100/100 bit-equal): the SavedModels compared by
  tests/fixtures_run/test_export_signatures.py.
- An Estimator model_dir (given): the Estimator resumed training from its latest checkpoint, and predict /
  evaluate / export_saved_model with nothing trained first restored it. The migrated model does the same with the
  model_fn path's code (templates/estimator_restore.py.j2, rules/planners/driver.py): `restore_model_dir` before fit (Keras:
  fit trains max_steps minus the restored global step, none when reached; custom loop: the trainer's _build) and
  `restore_checkpoint` before predict / evaluate / export. The canned model's `tf1_variables()` gives every
  weight the name the canned estimator gave it (`dnn/hiddenlayer_<i>/kernel`, `dnn/logits/bias`,
  `dnn/hiddenlayer_<i>/batchnorm_<i>/gamma`, `dnn/input_from_feature_columns/input_layer/<col>_embedding/
  embedding_weights`, `linear/linear_model/<col>/weights`, `linear/linear_model/bias_weights`, `baseline/bias`);
  optimizer slots: v2 (tf.keras.optimizers.legacy, graph mode) `training/<Adagrad|Ftrl|SGD>/<name>/<accumulator|
  linear|momentum>`, and the optimizer settings saved beside them (`training/<X>/learning_rate`, `decay`,
  `momentum`, Ftrl's powers and strengths) must equal the migrated optimizer's, since the Estimator went on with
  the saved ones; v1 (tf.compat.v1.train, partitioned variables in one part) the name TF1's slot_creator cut from
  `<scope>/<name>/part_0/<slot>` (`dnn/hiddenlayer_0/kernel/t_0/Adagrad`); wide & deep: each part's optimizer for
  its variables. A name missing, a shape or setting that differs, or a checkpoint variable nothing takes is an
  error listing them, never a fresh start. fixtures/canned_model_dir; tests/fixtures_run/test_canned_model_dir.py
  predicts from a model_dir the Estimator trained (DNN with an embedding, wide & deep with Ftrl + SGD momentum;
  Keras and custom loop) and resumes training from one, step for step against the Estimator's continuation.
  Measured: predictions from the Estimator's model_dir bit-equal (64 examples, logits and probabilities, max |Δ| 0,
  both models, both targets); resumed 40 → 100: DNN (Keras) 60/60 steps bit-equal, wide & deep max rel Δ 3.5e-7
  (Keras and custom loop; the logistic head's last bits, as in training from scratch). The Keras fit writes the
  Estimator's checkpoints (EstimatorCheckpoints: model.ckpt-<step> at the start, every save_checkpoints_steps since
  the last save, at the end) and a later run resumes from them: 40 → 70 → 100 against the Estimator's own, DNN
  predictions bit-equal, wide & deep within 1.9e-6 (test_migrated_canned_program_resumes_its_own_checkpoints).
- Parameter servers (an async job: TF_CONFIG with ps tasks and `--strategy parameter-server`, or
  `RunConfig(train_distribute=tf.compat.v1.distribute.experimental.ParameterServerStrategy())`): DNNClassifier and
  DNNRegressor, v1 and v2, over numeric, bucketized and vocabulary-list indicator columns convert to the PS target
  (tf_keras, `parameter_server_strategy()`, ClusterCoordinator loop; rules/planners/strategy.py). v1 (`_dnn_model_fn`)
  partitioned the `dnn` scope implicitly with min_max_variable_partitioner(max_partitions=num_ps_replicas) (256 KiB
  slices; the input layer's own 64 MiB partitioner has no variable to split for these columns): the strategy gets
  `MinSizePartitioner(min_shard_bytes=256 << 10, max_shards=max(1, ps_task_count()))`, the ps tasks counted from
  TF_CONFIG as RunConfig.num_ps_replicas was, so every variable has TF1's shard count (`<name>/part_<i>`, checked
  against the original's graph: `dnn/hiddenlayer_1/kernel/part_0..1` on both sides). v2 (`dnn_model_fn_v2`)
  partitions nothing: no partitioner. Optimizers on tf_keras: v1 `tf.train` Adagrad / GradientDescent / Ftrl /
  Adam as rules/planners/optimizers.py converts them there (its TFM302 notes); v2 `tf.keras.optimizers.legacy.*` objects and
  strings stay tf_keras' own legacy class (what the v2 Estimator ran; slots made by `_create_all_weights`). The
  logistic and regression heads reshape labels to [batch, 1] (tf_keras' losses would squeeze the logits and
  average over the batch first). Measured (`tfmigrate verify`): fixtures canned_dnn_ps (v1 DNNClassifier, 3
  classes, 2 ps: hiddenlayer_1 in 2 shards) and canned_dnn_regressor_ps (v2 DNNRegressor, legacy SGD with
  momentum): 200/200 steps bit-equal in one process, evaluate() bit-equal; statistically equivalent on chief + 2
  workers + 2 ps (3 original runs, 600 steps); a v1 binary DNNClassifier in one process: max rel Δ 5.2e-7 (the
  logistic kernels, as above). Blocked under parameter servers, each with its reason: Linear (TF1's 64 MiB
  partitioner over a LinearModel not verified on tf_keras), DNNLinearCombined (two partitioners, TF2 has one per
  strategy), Baseline, embedding and categorical columns in a DNN (64 MiB input-layer partitioner vs 256 KiB hidden
  layers), weight_column / label_vocabulary, dropout, optimizers that need a generated Keras 3 class.
- Optimizer: the object the Estimator built. v1 strings → `tf.compat.v1.train.<X>Optimizer` at the DNN rate 0.05
  or the linear rate 0.2, converted by TFM301; v2 strings → `tf.keras.optimizers.legacy.<X>()` (DNN: the class's
  own default rate, Adagrad 0.001; linear: 0.2), converted exactly (optimizers.legacy: LegacyAdagrad, SGD,
  TF1Ftrl); `optimizer=None` on a linear model → Ftrl at min(0.2, 1/sqrt(number of columns)); instances of
  `tf.compat.v1.train.*` (v1) or `tf.keras.optimizers.legacy.*` (v2) are converted with their arguments; `lambda: X(...)` (the Estimator calls it once, without arguments) as `X(...)`; a v2 legacy class
  `tf.keras.optimizers.legacy.X` as `X()` (v2 calls it without arguments; a v1 class would fail there).
Argument values the generated module-level code cannot see (a local of `main`) travel in the `params` dict the
builder receives at the Estimator's place (`params["hidden_units"]`).

Measured with `tfmigrate verify` (fixtures canned_*): relu networks, linear models and bucketized inputs are
bit-identical step for step (2-worker MWMS and one process); tanh networks and the logistic head differ in the last
bits because TF 2.21's elementwise kernels (tanh, sigmoid, log1p) round differently from TF 2.15's on many inputs
(max rel Δ 1.1e-6 and 8e-8, within verify's 1e-5). `evaluate()` returns the keys TF 2.15 returned with its values
(verify compares losses, not evaluation results; compared from both sides' logs: canned_wide_deep and
canned_dnn_classifier bit-equal, canned_weighted_vocab / canned_v1_head_metrics / canned_dnn_regressor_v1 within
rel 3e-7 on average_loss, loss and prediction/mean, the rest bit-equal). Weighted, string-labelled heads:
canned_weighted_vocab (v2) and canned_v1_head_metrics (v1), max rel Δ 4.5e-7 and 3.4e-7 step for step.

Example (`fixtures/canned_dnn_classifier`, chief + worker):

    columns = [tf.feature_column.numeric_column("position", shape=(2,))]
    for name in ["width", "height", "age"]:
        columns.append(tf.feature_column.numeric_column(name))
    classifier = tf.estimator.DNNClassifier(hidden_units=[16, 8], feature_columns=columns, n_classes=3,
                                            config=tf.estimator.RunConfig(train_distribute=strategy))
    →
    class DNNClassifierModel(keras.Model):  # Dense "hiddenlayer_0", "hiddenlayer_1", "logits"
        def call(self, features, training=False):
            net = tf.concat([numeric_input(features, "age", 1), numeric_input(features, "height", 1),
                             numeric_input(features, "position", 2), numeric_input(features, "width", 1)], axis=-1)
            ...
    classifier = DNNClassifierTrainer(strategy, {}, ...)  # LegacyAdagrad(0.001), sparse softmax cross-entropy

Blocked, each at its line with what to do: `BoostedTreesClassifier/Regressor` (TFM623: no exact TF2 equivalent;
TF Decision Forests — the migration guide's substitute — grows different trees, and its latest release (1.12.0,
checked with `pip download`) requires tensorflow==2.19.0, so it cannot be installed beside TF 2.21: keep TF 2.15
for such jobs, or retrain with ydf / TF-DF and compare evaluation metrics; converting with a "verify
statistically" note would promise a check the target stack cannot run), RNN estimators (TFM603, not converted
yet), the column kinds listed above as blocked, `batch_norm=True` under a distribution strategy (one process
converts: rules/planners/heads.py), weight columns and label vocabularies rules/planners/heads.py does not read,
`warm_start_from`, explicit `partitioner` / `input_layer_partitioner` arguments,
`label_dimension` < 1 (TF raised) or not readable from the source (a literal or an expression over the program's
constants, `len(TARGETS)`), `label_dimension` > 1 with an export or under parameter servers, a callable optimizer
other than `lambda: X(...)`, legacy Adam/RMSprop (v2), n_classes not readable from the source, and under
parameter-server strategies what the Parameter servers item above lists.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import shared
from tfmigrate.model import Binding, FileIndex, Value, code

from . import feature_columns as fcols
from ..emit import codewords
from . import heads, optimizers, partitioners
from ..emit.wrap import generated, wrap_call
from ..facts.calls import is_literal, literal

CODE = "TFM620"
CODE_COLUMNS = "TFM622"
CODE_TREES = "TFM623"

_CLASSES = {  # class → (family, head kind)
    "DNNClassifier": ("dnn", "classifier"), "DNNRegressor": ("dnn", "regressor"),
    "LinearClassifier": ("linear", "classifier"), "LinearRegressor": ("linear", "regressor"),
    "DNNLinearCombinedClassifier": ("combined", "classifier"), "DNNLinearCombinedRegressor": ("combined", "regressor"),
    "BaselineClassifier": ("baseline", "classifier"), "BaselineRegressor": ("baseline", "regressor"),
}
_COMBINED_HEAD = ["model_dir", "linear_feature_columns", "linear_optimizer", "dnn_feature_columns", "dnn_optimizer",
                  "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout"]
_COMBINED_TAIL = ["warm_start_from", "loss_reduction", "batch_norm", "linear_sparse_combiner"]
_TAIL_V2 = ["config", "warm_start_from", "loss_reduction"]
_SIGNATURES = {  # (class, v1?) → positional order of the constructor (tensorflow_estimator 2.15)
    ("DNNClassifier", False): ["hidden_units", "feature_columns", "model_dir", "n_classes", "weight_column",
                               "label_vocabulary", "optimizer", "activation_fn", "dropout", *_TAIL_V2, "batch_norm"],
    ("DNNClassifier", True): ["hidden_units", "feature_columns", "model_dir", "n_classes", "weight_column",
                              "label_vocabulary", "optimizer", "activation_fn", "dropout", "input_layer_partitioner",
                              *_TAIL_V2, "batch_norm"],
    ("DNNRegressor", False): ["hidden_units", "feature_columns", "model_dir", "label_dimension", "weight_column",
                              "optimizer", "activation_fn", "dropout", *_TAIL_V2, "batch_norm"],
    ("DNNRegressor", True): ["hidden_units", "feature_columns", "model_dir", "label_dimension", "weight_column",
                             "optimizer", "activation_fn", "dropout", "input_layer_partitioner", *_TAIL_V2,
                             "batch_norm"],
    ("LinearClassifier", False): ["feature_columns", "model_dir", "n_classes", "weight_column", "label_vocabulary",
                                  "optimizer", *_TAIL_V2, "sparse_combiner"],
    ("LinearClassifier", True): ["feature_columns", "model_dir", "n_classes", "weight_column", "label_vocabulary",
                                 "optimizer", "config", "partitioner", "warm_start_from", "loss_reduction",
                                 "sparse_combiner"],
    ("LinearRegressor", False): ["feature_columns", "model_dir", "label_dimension", "weight_column", "optimizer",
                                 *_TAIL_V2, "sparse_combiner"],
    ("LinearRegressor", True): ["feature_columns", "model_dir", "label_dimension", "weight_column", "optimizer",
                                "config", "partitioner", "warm_start_from", "loss_reduction", "sparse_combiner"],
    ("DNNLinearCombinedClassifier", False): [*_COMBINED_HEAD, "n_classes", "weight_column", "label_vocabulary",
                                             "config", *_COMBINED_TAIL],
    ("DNNLinearCombinedClassifier", True): [*_COMBINED_HEAD, "n_classes", "weight_column", "label_vocabulary",
                                            "input_layer_partitioner", "config", *_COMBINED_TAIL],
    ("DNNLinearCombinedRegressor", False): [*_COMBINED_HEAD, "label_dimension", "weight_column", "config",
                                            *_COMBINED_TAIL],
    ("DNNLinearCombinedRegressor", True): [*_COMBINED_HEAD, "label_dimension", "weight_column",
                                           "input_layer_partitioner", "config", *_COMBINED_TAIL],
    **{("BaselineClassifier", v1): ["model_dir", "n_classes", "weight_column", "label_vocabulary", "optimizer",
                                    "config", "loss_reduction"] for v1 in (False, True)},
    **{("BaselineRegressor", v1): ["model_dir", "label_dimension", "weight_column", "optimizer", "config",
                                   "loss_reduction"] for v1 in (False, True)},
}
_NONE_ONLY = {  # arguments converted only at their default, with what the user can do
    "warm_start_from": "warm starts are not converted yet: load the checkpoint into the migrated model by name "
                       "(tf.train.load_checkpoint) after building it",
    "input_layer_partitioner": "partitioners are not converted for canned estimators yet",
    "partitioner": "partitioners are not converted for canned estimators yet",
}
_V1_TRAIN = {"Adagrad": "AdagradOptimizer", "Adam": "AdamOptimizer", "Ftrl": "FtrlOptimizer",
             "RMSProp": "RMSPropOptimizer", "SGD": "GradientDescentOptimizer"}
_V2_LEGACY = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl", "RMSProp": "RMSprop", "SGD": "SGD"}
_RATE = {"dnn": "0.05", "linear": "0.2", "baseline": "0.3"}  # the learning rate canned estimators give string optimizers (v1; v2 linear)
_NUMERIC = ["key", "shape", "default_value", "dtype", "normalizer_fn"]
_SUPPORT_NAMES = ("numeric_input", "bucketized_input", "indicator_input", "LinearModel", "ColumnWeights", "SquaredError",
                  *fcols.SUPPORT_PARTS)
_OPTIMIZER_NAMES = ("TF1Ftrl", "LegacyAdagrad", "WideDeepOptimizer", "TF1Adam", "TF1Momentum")
_PS_NAMES = ("parameter_server_strategy", "VARIABLE_PARTITIONER", "ps_task_count")  # generated under parameter servers
LABEL_DIMENSION = "@label_dimension"  # in a file's support_done: a regressor there has label_dimension > 1
_BUILTIN_SEQUENCES = ("list", "tuple", "sorted", "set", "reversed")


@dataclass(frozen=True)
class Column:
    key: str  # the feature key (numeric_column's name)
    size: int  # prod(shape) of the numeric source
    normalizer: str | None  # code of the normalizer_fn, valid at module level
    boundaries: tuple | str | None = None  # bucketized_column over the numeric source (str: run-time code)
    vocabulary: tuple | None = None  # indicator_column(categorical_column_with_vocabulary_list)
    num_oov_buckets: int = 0
    default_value: int = -1
    runtime: str | None = None  # numeric columns, one per key of this run-time iterable (code valid in the model)
    categorical: fcols.Categorical | None = None  # a categorical column (linear), or under indicator/embedding
    embedding: fcols.Embedding | None = None  # embedding_column(categorical) (DNN)
    indicator: bool = False  # indicator_column(categorical) other than over a vocabulary list

    @property
    def name(self) -> str:  # what TF1 sorted the columns by
        if self.categorical is not None:
            suffix = "_embedding" if self.embedding is not None else "_indicator" if self.indicator else ""
            return self.categorical.name + suffix
        if self.vocabulary is not None:
            return f"{self.key}_indicator"
        return f"{self.key}_bucketized" if self.boundaries is not None else self.key

    @property
    def boundaries_code(self) -> str:
        return self.boundaries if isinstance(self.boundaries, str) else repr(list(self.boundaries))

    @property
    def dense_only(self) -> bool:  # a one-hot input: exact in a DNN, a sparse weight lookup in a linear model
        return self.boundaries is not None or self.vocabulary is not None

    def input_code(self, key: str | None = None) -> str:
        if self.embedding is not None:
            return f'self.embedding_columns["{fcols.scope_name(self.name)}"]({self.categorical.ids})'
        if self.categorical is not None:
            return self.categorical.indicator() if self.indicator else self.categorical.ids
        if self.runtime is not None:
            return (f"numeric_input(features, {key}, {self.size}"
                    + (f", normalizer_fn={self.normalizer})" if self.normalizer else ")"))
        if self.vocabulary is not None:
            extra = "".join([f", num_oov_buckets={self.num_oov_buckets}" if self.num_oov_buckets else "",
                             f", default_value={self.default_value}" if self.default_value != -1 else ""])
            return f'indicator_input(features, "{self.key}", {list(self.vocabulary)!r}{extra})'
        head = (f'numeric_input(features, "{self.key}", {self.size}' if self.boundaries is None else
                f'bucketized_input(features, "{self.key}", {self.size}, {self.boundaries_code}')
        return head + (f", normalizer_fn={self.normalizer})" if self.normalizer else ")")


@dataclass(eq=False)
class CannedModel:
    """Stands in for a Site's model_fn: the canned estimator call whose network this module generates."""

    node: cst.Call
    file: FileIndex
    name: str  # DNNClassifier, …
    v1: bool
    family: str  # dnn | linear | combined
    head: str  # multi_class | binary | regression
    units: int
    dnn_columns: list[Column]
    linear_columns: list[Column]
    hidden_units: str = ""
    activation: str = ""
    dropout: str | None = None
    optimizer: optimizers.OptimizerPlan | None = None
    support: list[str] = field(default_factory=list)  # the optimizer classes the plan needs
    reduction: str = "sum_over_batch_size"  # or "sum"
    anchor: cst.CSTNode | None = None  # the module-level statement the generated code goes above
    notes: list = field(default_factory=list)
    bound: tuple = ()
    sparse_combiner: str = "sum"  # the linear model's, for categorical columns
    head_plan: heads.Head | None = None  # weights, label vocabulary, evaluate() metrics (rules/planners/heads.py)
    batch_norm: bool = False  # TF1BatchNormalization after each hidden layer (rules/planners/heads.py)
    parameter_server: bool = False  # trained by an async parameter-server job (tf_keras, ClusterCoordinator)
    partitioner: partitioners.PartitionerPlan | None = None  # what TF1 partitioned implicitly there (v1 DNN)

    @property
    def tf_name(self) -> str:
        return f"tf.{'compat.v1.' if self.v1 else ''}estimator.{self.name}"


def is_canned(site) -> bool:
    return isinstance(site.model_fn, CannedModel)


# ---- the Estimator site -------------------------------------------------------------------------------------------
def site(analysis, call: cst.Call, file: FileIndex, path: str) -> None:
    """A canned estimator call → a driver Site (registered on `analysis`), or Blocked."""
    from . import strategy as strategies
    from ..facts.sites import Site, bind_values

    name = path.split(".")[-1]
    if name.startswith("BoostedTrees"):
        raise Blocked(CODE_TREES, f"tf.{path}: gradient boosted trees have no exact TF2 equivalent. TF Decision "
                                  "Forests (tfdf.keras.GradientBoostedTreesModel, the migration guide's substitute) "
                                  "grows different trees and its latest release pins tensorflow==2.19.0, so it does "
                                  "not install beside TF 2.21. Keep this job on TF 2.15, or retrain with ydf / TF "
                                  "Decision Forests and compare evaluation metrics, not losses", call)
    if name not in _CLASSES:
        from ..facts.sites import CODE_KIND, kind_message

        raise Blocked(CODE_KIND, kind_message(path), call)
    program = analysis.program
    qualified = program.qualified(call.func, file) or ""
    v1 = ".compat.v1." in qualified or "._v1." in qualified
    family, kind = _CLASSES[name]
    args = bind_values(call, _SIGNATURES[(name, v1)], name, file, rule=CODE)
    reader = Reader(analysis, call, file)
    # every argument's blockers are collected (each column's too), each at its own line; what depends on a blocked
    # value is not checked (its findings would follow from that blocker)
    errors: list[Blocked] = []

    def attempt(fn, *fn_args, default=None):
        try:
            return fn(*fn_args)
        except Blocked as blocked:
            errors.append(blocked)
            return default

    for key, why in _NONE_ONLY.items():
        if key in args and not is_literal(args[key].node, None):
            errors.append(Blocked(CODE, f"{name}({key}=...): {why}", args[key].node))
    batch_norm = attempt(heads.batch_norm, reader, args.get("batch_norm"), name, default=False)
    prefix = "dnn_" if family == "combined" else ""
    dnn_key = "dnn_feature_columns" if family == "combined" else "feature_columns" if family == "dnn" else None
    linear_key = "linear_feature_columns" if family == "combined" else "feature_columns" if family == "linear" else None
    given = lambda key: key is not None and key in args and not is_literal(args[key].node, None)  # noqa: E731
    if family != "baseline" and not (given(dnn_key) or given(linear_key)):
        raise Blocked(CODE, f"{name} needs feature columns", call)
    column_errors = len(errors)
    combined = family == "combined"  # (an empty list there is a part TF1 did not build, as None is)
    dnn_columns = attempt(reader.columns, args[dnn_key], False, combined, default=None) if given(dnn_key) else []
    dnn_read, dnn_columns = dnn_columns is not None, dnn_columns or []
    linear_columns = attempt(reader.columns, args[linear_key], True, combined, default=[]) if given(linear_key) else []
    columns_read = len(errors) == column_errors
    if combined and columns_read:
        one_part = attempt(_one_part, name, args, dnn_columns, linear_columns, call)
    if given(dnn_key) and (dnn_columns or not dnn_read) and f"{prefix}hidden_units" not in args:
        errors.append(Blocked(CODE, f"{name} needs {prefix}hidden_units", call))
    sparse = next((c for c in linear_columns if c.dense_only or c.indicator or c.embedding), None)
    if sparse is not None:
        errors.append(Blocked(CODE_COLUMNS, f"{name} over the dense column '{sparse.name}' (an indicator or embedding "
                                            "column) in its linear model is not converted yet: pass its categorical "
                                            "column itself (TF1 gave it one weight row per bucket)",
                              args[linear_key].node))
    model_combiner = attempt(reader.sparse_combiner,
                             args.get(f"{'linear_' if family == 'combined' else ''}sparse_combiner"), default="sum")
    n_classes = None
    if kind == "classifier":
        n_classes = attempt(reader.integer, args.get("n_classes"), 2, "n_classes", default=2)
        if n_classes < 2:
            errors.append(Blocked(CODE, f"{name}(n_classes={n_classes}): n_classes must be at least 2", call))
        head, units = ("binary", 1) if n_classes <= 2 else ("multi_class", n_classes)
    else:
        units = attempt(reader.integer, args.get("label_dimension"), 1, "label_dimension", default=1)
        if units < 1:  # the regression head's check when the Estimator was built
            errors.append(Blocked(CODE, f"{name}(label_dimension={units}): TF 2.15 raises \"ValueError: Invalid "
                                        f"label_dimension {units}\", so the original never trained",
                                  args["label_dimension"].node))
            units = 1
        head = "regression"
    model = CannedModel(call, file, name, v1, family, head, units, dnn_columns, linear_columns, anchor=reader.anchor)
    model.sparse_combiner = model_combiner
    model.reduction = attempt(reader.reduction, args.get("loss_reduction"), v1)
    model.head_plan = attempt(heads.read, reader, args, name, kind, head, v1, n_classes)
    model.batch_norm = batch_norm and bool(dnn_columns)
    if combined and columns_read and one_part is not None:
        model.notes.append(one_part)
    if dnn_columns or not columns_read and given(dnn_key):
        if f"{prefix}hidden_units" in args:
            model.hidden_units = attempt(reader.carry, "hidden_units", args[f"{prefix}hidden_units"])
        activation = args.get(f"{prefix}activation_fn")
        model.activation = attempt(reader.carry, "activation_fn", activation) if activation is not None else \
            generated("tf.nn.relu")
        dropout = args.get(f"{prefix}dropout")
        if dropout is not None and not is_literal(dropout.node, None, 0, 0.0):
            model.dropout = attempt(reader.carry, "dropout", dropout)
            model.notes.append((CODE, "dropout converted: Keras draws its dropout masks from another random "
                                      "stream than TF1, so `tfmigrate verify` cannot match such runs step by step; "
                                      "check the migration with dropout=None, then put it back", dropout.node))
    if family != "combined":
        columns = dnn_columns or linear_columns
        # (columns not read: their number is not known; the optimizer's own blockers are still reported)
        count = 1 if not columns_read else None if any(c.runtime for c in columns) else len(columns) or None
        model.optimizer = attempt(reader.optimizer, args.get("optimizer"), family, v1, count)
        if model.optimizer is not None:
            model.notes.extend(fcols.check_optimizer(model.optimizer.ctor, family, columns,
                                                     args["optimizer"].node if "optimizer" in args else call))
            model.support = [model.optimizer.support_code] if model.optimizer.support_code else []
    elif columns_read and (dnn_columns or linear_columns):  # (no columns at all: _one_part's blocker)
        model.optimizer, model.support = attempt(reader.combined_optimizer, args, v1, dnn_columns, linear_columns,
                                                 default=(None, []))
        model.notes.extend(reader.column_notes)
    else:  # each optimizer's own blockers; what reads a column list a blocker left unknown (a rate) is not checked
        attempt(reader.combined_optimizer, args, v1, dnn_columns, linear_columns,
                {"dnn": given(dnn_key), "linear": given(linear_key)})
    run_trail: list[Binding] = []
    run_config = analysis.run_config(args, call, file, run_trail, unconverted=errors)
    params = "{" + ", ".join(f'"{k}": {v}' for k, v in reader.params.items()) + "}"
    s = Site(call, file, model, call, params, None, run_config)
    s.consumed.extend(run_trail)
    s.removable.extend(reader.removable())
    analysis.strategy_or_default(s, errors)
    sparse = [c for c in (*dnn_columns, *linear_columns) if c.embedding is not None
              or (c.categorical is not None and not c.indicator and c in linear_columns)]
    if s.strategy.parameter_server and not errors:
        attempt(_parameter_server, model, reader, args)
    if model.batch_norm and s.strategy.kinds != {"default"}:
        errors.append(Blocked(CODE, f"{name}(batch_norm=True) under a distribution strategy is not converted yet: TF1 "
                                    "kept BatchNormalization's moving averages per replica and saved (and evaluated) "
                                    "their mean across workers, which the migrated loop does not reproduce; check the "
                                    "migration in one process, or drop batch_norm", args["batch_norm"].node))
    s.target = attempt(strategies.choose_target, _sparse_target(sparse, s.strategy.kinds, analysis.options.target,
                                                                model, call), s.strategy, call, default="ctl")
    analysis._site_by_call[id(call)] = s
    if errors:
        s.unconverted = True  # its uses are analysed (for their own blockers); nothing else sees it
        raise Blocked.many(errors)
    analysis.sites.append(s)


def _one_part(name: str, args: dict, dnn_columns: list, linear_columns: list, call: cst.Call):
    """A DNNLinearCombined estimator with one column list empty (or None): TF 2.15 built that part's logits as None
    and trained the other part alone, with its own optimizer (`_dnn_linear_combined_model_fn[_v2]`); the note
    saying so and which arguments went unused (None when both parts are there). Both empty: TF1 raised ValueError."""
    if dnn_columns and linear_columns:
        return None
    if not dnn_columns and not linear_columns:
        raise Blocked(CODE, f"{name} with no linear_feature_columns and no dnn_feature_columns: TF 2.15 raises "
                            "\"ValueError: Either linear_feature_columns or dnn_feature_columns must be defined.\", "
                            "so the original never trained; give it the columns of at least one part", call)
    gone, kept = ("dnn", "linear") if not dnn_columns else ("linear", "dnn")
    unused = {"dnn": ["dnn_optimizer", "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout", "batch_norm"],
              "linear": ["linear_optimizer", "linear_sparse_combiner"]}[gone]
    unused = [k for k in unused if k in args and not is_literal(args[k].node, None)]
    return (CODE, f"{name}: {gone}_feature_columns is empty, so TF 2.15 built no {gone.upper()} part and trained the "
                  f"{kept} part alone with {kept}_optimizer"
                  + (f" ({', '.join(unused)} unused, dropped)" if unused else "")
                  + f"; the migrated model is that {kept} part", args[f"{gone}_feature_columns"].node
            if f"{gone}_feature_columns" in args else call)


_PS_TASK_COUNT = '''
def ps_task_count():
    """The ps tasks TF_CONFIG lists: the Estimator's RunConfig.num_ps_replicas (0 outside a cluster)."""
    return len(tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec().as_dict().get("ps", ()))
'''


def _parameter_server(model: CannedModel, reader: "Reader", args: dict) -> None:
    """A canned DNN under an async parameter-server job → the PS target (tf_keras, ParameterServerStrategy,
    ClusterCoordinator), with what TF1 partitioned implicitly there; anything not verified there blocks.

    v1 (`tf.compat.v1.estimator.DNN*`, canned/dnn.py `_dnn_model_fn`): the `dnn` scope holds
    min_max_variable_partitioner(max_partitions=num_ps_replicas) (256 KiB slices) over the hidden layers and logits,
    the input layer its own at 64 MiB. Numeric, bucketized and indicator inputs create no input-layer variable, so
    one `MinSizePartitioner(min_shard_bytes=256 << 10, max_shards=<ps tasks>)` gives every variable TF1's shard count.
    v2 (`tf.estimator.DNN*`, `dnn_model_fn_v2`) partitions nothing: no partitioner."""
    name = model.name
    if model.family != "dnn":
        why = {"linear": "TF1 partitioned its linear model with a 64 MiB minimum slice; the generated LinearModel "
                         "has not been verified on tf_keras, which parameter-server programs run on",
               "combined": "TF1 partitioned its DNN (256 KiB slices) and its linear part and input layer (64 MiB) "
                           "with different partitioners, and TF2 applies one partitioner to every variable",
               "baseline": "its generated model has not been verified on tf_keras, which parameter-server programs "
                           "run on"}[model.family]
        raise Blocked(CODE, f"{name} under a parameter-server strategy is not converted yet: {why}; migrate it in "
                            "one process (--strategy default) or under MultiWorkerMirroredStrategy", model.node)
    sparse = next((c for c in model.dnn_columns if c.categorical is not None), None)
    if sparse is not None:
        raise Blocked(CODE_COLUMNS, f"{name} over the column '{sparse.name}' under a parameter-server strategy is not "
                                    "converted yet: TF1 partitioned input-layer variables with a 64 MiB minimum "
                                    "slice and the hidden layers with 256 KiB, and TF2 applies one partitioner to "
                                    "every variable (numeric, bucketized and vocabulary-list indicator columns "
                                    "convert)", model.node)
    if model.head == "regression" and model.units > 1:
        raise Blocked(CODE, f"{name}(label_dimension={model.units}) under a parameter-server strategy is not converted "
                            "yet: the tf_keras losses the PS target runs reshape the labels to [batch, 1]; migrate it in "
                            "one process or under MultiWorkerMirroredStrategy", args["label_dimension"].node)
    if model.head_plan.targets:
        raise Blocked(CODE, f"{name} with a weight_column or label_vocabulary under a parameter-server strategy is "
                            "not converted yet (its head's label mapping is not verified on tf_keras)", model.node)
    if model.dropout is not None:
        raise Blocked(CODE, f"{name}(dropout=...) under a parameter-server strategy is not converted yet: Keras "
                            "draws other dropout masks, and statistical verification of such a job is not built",
                      args["dropout"].node)
    reader.profile = "tf_keras"
    value = args.get("optimizer")
    columns = model.dnn_columns
    count = None if any(c.runtime for c in columns) else len(columns) or None
    at = value.node if value is not None else model.node
    plan = reader.optimizer(value, "dnn", model.v1, count)
    if plan.support_code or plan.after_build:
        raise Blocked(CODE, f"{name}'s optimizer converts to a generated Keras 3 optimizer ({plan.ctor.split('(')[0]}); "
                            "parameter-server programs run on tf_keras, where it is not available yet: pass a "
                            "tf.compat.v1.train Adagrad, GradientDescent or Ftrl optimizer (v1 estimators)", at)
    model.optimizer, model.support = plan, []
    # (no column-optimizer notes to redo: categorical columns blocked above)
    model.notes.append((CODE, f"{name} under parameter servers: trained asynchronously by a ClusterCoordinator "
                              "on tf_keras; compare it statistically (tfmigrate verify --ps)", model.node))
    model.parameter_server = True
    if model.head in ("binary", "regression"):
        model.head_plan.reshape_labels = True
    if model.v1:
        model.partitioner = partitioners.PartitionerPlan(
            f"{model.tf_name} partitioned its hidden layers and logits by "
            "min_max_variable_partitioner(max_partitions=<ps tasks>)",
            generated(f"{partitioners.CANNED_ESTIMATOR_PARTITIONING['hidden_layers']}".replace(
                "max_shards=num_ps", "max_shards=max(1, ps_task_count())")))


def _sparse_target(sparse: list, kinds: set[str], requested: str, model: CannedModel, call: cst.Call) -> str:
    """Sparse columns (IndexedSlices gradients) under MirroredStrategy: the custom loop where --target is auto.

    With several local devices MirroredStrategy (both TF versions: the same mirrored_strategy.py) combines the
    replicas with CollectiveAllReduce (RING) on CPUs, the code MultiWorkerMirroredStrategy uses: the replicas'
    IndexedSlices rows are all-gathered in replica order and summed per row, on both sides (TF1's sparse apply
    deduplicates, the migrated update densifies). Measured (fixture canned_embedding_mirrored, module doc).
    Keras 3's Model.fit cannot take such a program's input on more than one replica: its _maybe_symbolic_build
    reduces the first distributed batch with strategy.reduce("MEAN"), which fails on string features; one
    replica (the default on a CPU machine) trains the same as the custom loop."""
    if not sparse or "mirrored" not in kinds:
        return requested
    if requested == "auto":
        return "ctl"
    if requested == "keras":
        model.notes.append((CODE_COLUMNS, f"`{sparse[0].name}` under MirroredStrategy with --target keras: Keras 3's "
                                          "Model.fit raises on more than one local replica when the input has string "
                                          "features (its symbolic build reduces the first batch with "
                                          "strategy.reduce(\"MEAN\")); --target ctl (what auto picks) trains on any "
                                          "number of replicas", call))
    return requested


def _anchor(file: FileIndex, node: cst.CSTNode) -> cst.CSTNode:
    """The module-level statement that contains `node`."""
    while True:
        parent = file.parent(node)
        if parent is None or isinstance(parent, cst.Module):
            return node
        node = parent


class Reader:
    """Values of the canned estimator's arguments, read from the source through the program model."""

    def __init__(self, analysis, call: cst.Call, file: FileIndex):
        self.analysis, self.program, self.call, self.file = analysis, analysis.program, call, file
        self.anchor = _anchor(file, call)
        self.params: dict[str, str] = {}
        self.trail: list[Binding] = []
        self.runtime: dict[int, Value] = {}  # id(placeholder key) → the run-time iterable its loop went over
        self.column_notes: list = []
        self.profile = "keras3"  # the Keras the program runs on: "tf_keras" under parameter servers

    # ---- carried expressions ------------------------------------------------------------------------------------
    def carry(self, key: str, value: Value) -> str:
        """Code for `value` in the generated module-level code: written out where it means the same there, else
        passed in the builder's params from the Estimator's place."""
        text = self.program.render(value, self.anchor, self.file)
        if text is not None:
            return text
        why: list = []
        text = self.program.render(value, self.call, self.file, why)
        if text is None:
            name = why[0].value if why else code(value.node)
            raise Blocked(CODE, f"{key}=`{code(value.node)[:60]}` uses `{name}`, which tfmigrate cannot follow to "
                                "where the Estimator is built; pass the value explicitly", value.node)
        self.params[key] = text
        return f'params["{key}"]'

    def runtime_value(self, key: str, value: Value, check: str) -> str:
        """A column argument known only at run time, for the model: `check` (generated code, `{}` the value) of the
        value computed where the Estimator is built, in the builder's params (the column was built before it, on the
        same value, as runtime_keys passes a loop's keys). Blocked when the value is not visible there."""
        why: list = []
        text = self.program.render(value, self.call, self.file, why)
        if text is None:
            name = why[0].value if why else code(value.node)
            loop = self.rebinding_loop(why[0]) if why else None
            if loop is not None:
                loop_node, loop_file = loop
                head = code(loop_node).split("\n")[0].strip()
                before = (f"`{name}` takes a new run-time value on each pass of the loop at line "
                          f"{self.analysis.line(loop_node, loop_file)} (`{head[:60]}`), one per column built there; "
                          "the migrated model reads run-time column values where the ").replace("{", "{{").replace(
                    "}", "}}")
                after = (f"where `{name}` holds the last pass's value only: write each column's value as a literal (or "
                         "an expression over constants), or build the columns where the Estimator is built").replace(
                    "{", "{{").replace("}", "}}")
                # a column shared by several Estimators: one blocker naming each of them (Blocked.many)
                error = Blocked.at_places(CODE_COLUMNS, before + "Estimator is built (line {places}), " + after,
                                          before + "Estimators are built (lines {places}), " + after,
                                          str(self.analysis.line(self.call, self.file)), value.node)
                error.loop = True
                raise error
            raise Blocked(CODE_COLUMNS, f"`{code(value.node)[:60]}` uses `{name}`, which tfmigrate cannot follow to "
                                        "where the Estimator is built; build the column there or pass the value "
                                        "explicitly", value.node)
        base, n = key, 1
        while key in self.params:
            n += 1
            key = f"{base}_{n}"
        self.params[key] = check.replace("{}", text, 1)  # the first {}: a message may hold more
        return f'self.params["{key}"]'

    def rebinding_loop(self, name: cst.Name):
        """(the loop, its file) when `name` could not be rendered at the Estimator because a loop re-binds it."""
        from tfmigrate.model import rebinding_loop

        file = self.program.file_of(name)
        if file is None:
            return None
        loop = rebinding_loop(name, self.program.lookup(name.value, name, file), file, self.call, self.file)
        return (loop, file) if loop is not None else None

    def removable(self) -> list[Binding]:
        """Assignments and helpers that only fed static values to the model: they go if nothing else reads them."""
        from ..facts.sites import deletable, statement_bindings

        out, seen = [], set()
        for b in self.trail:
            if id(b) in seen or b.kind not in ("assign", "def") or b.unpack:
                continue
            seen.add(id(b))
            file = b.scope.file
            if b.scope.kind == "module" and self.named_elsewhere(b.name, file):
                continue  # another file of the program may import it: it stays
            if deletable(b.statement) and len(statement_bindings(b.statement, file)) == 1:
                out.append(b)
        return out

    def named_elsewhere(self, name: str, file: FileIndex) -> bool:
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        return any(other is not file and pattern.search(other.module.code) for other in self.program.files)

    # ---- static values --------------------------------------------------------------------------------------------
    def resolve(self, value: Value, what: str, rule: str = CODE_COLUMNS):
        r = self.program.resolve(value)
        if r.ambiguous:
            raise Blocked(rule, f"{what}: {self.analysis.why(r, 'value')}", value.node)
        self.trail.extend(b for b in r.trail if b.kind in ("assign", "def"))
        return r

    def literal(self, value: Value, what: str, rule: str = CODE_COLUMNS):
        r = self.resolve(value, what, rule)
        node = r.node
        if isinstance(node, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
            return [self.literal(Value(e.value, r.value.file, r.value.env), what, rule) for e in node.elements]
        try:
            return literal(node)
        except ValueError:
            pass
        try:  # an expression over the program's constants, as Python evaluated it: `list(range(24))`, `int(1e4)`
            return fcols.ColumnReader(self).constant(value, what)
        except Blocked:
            name = r.stopped_at.name.value if isinstance(r.stopped_at, cst.Param) else ""
            unfollowed = self.analysis._unfollowed_parameter(r, name, f"{what}'s value") if name else None
            if unfollowed:  # `n_classes=classes`, a parameter of a helper called nowhere in the run (or from several)
                raise Blocked(rule, f"{what} `{code(value.node)[:60]}`: {unfollowed}", value.node) from None
            raise Blocked(rule, f"{what} `{code(value.node)[:60]}` is not a value tfmigrate can read from the source "
                                "(a literal, a name assigned one once, or an expression over such values)",
                          value.node) from None

    def integer(self, value: Value | None, default: int, what: str) -> int:
        if value is None:
            return default
        try:
            got = self.literal(value, what, CODE)
        except Blocked as blocked:  # an expression over the program's constants: `len(TARGETS)`, `N + 1`
            try:
                got = fcols.ColumnReader(self).constant(value, what)
            except Blocked:
                raise blocked from None
        if not isinstance(got, int) or isinstance(got, bool):
            raise Blocked(CODE, f"{what} must be an integer tfmigrate can read from the source", value.node)
        return got

    def items(self, value: Value, what: str) -> list[Value]:
        """The elements of a sequence written in the source (displays, comprehensions, loops that append)."""
        r = self.resolve(value, what)
        node, file, env = r.node, r.value.file, r.value.env
        here = lambda n: Value(n, file, env)  # noqa: E731
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            out = []
            for el in node.elements:
                out.extend(self.items(here(el.value), what) if isinstance(el, cst.StarredElement) else [here(el.value)])
            return out + self.appended(r, what, value)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self.comprehension(node, node.elt, file, env, what)
        if isinstance(node, (cst.Dict, cst.DictComp)):
            return self.dict_part(r, "keys", what, value.node)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self.items(here(node.left), what) + self.items(here(node.right), what)
        if isinstance(node, cst.Call):
            func = node.func
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if isinstance(func, cst.Name) and func.value in _BUILTIN_SEQUENCES and len(node.args) == 1 \
                    and positional and not self.program.lookup(func.value, func, file):
                return self.items(here(positional[0].value), what) + self.appended(r, what, value)
            if isinstance(func, cst.Name) and func.value in ("list", "tuple") and not node.args \
                    and not self.program.lookup(func.value, func, file):  # `list()`: an empty list, as `[]` is
                return self.appended(r, what, value)
            if isinstance(func, cst.Name) and func.value == "range" and node.args and len(positional) == len(node.args) \
                    and not self.program.lookup("range", func, file):
                bounds = [self.literal(here(a.value), what) for a in positional]
                return [Value(cst.Integer(str(i)), file) for i in range(*bounds)]
            if isinstance(func, cst.Attribute) and func.attr.value in ("keys", "values") and not node.args:
                inner = self.resolve(Value(func.value, file, env), what)
                return self.dict_part(inner, func.attr.value, what, value.node)
        if isinstance(node, cst.Call) and (path := self.analysis.tf(node, file)):
            fcols.blocked_kind(path, node)  # shared_embeddings: a list of columns, not converted
        raise Blocked(CODE_COLUMNS, f"{what}: `{code(value.node)[:60]}` is not a list tfmigrate can read from the "
                                    "source (names known only at run time); the input layer's order is the sorted "
                                    "column names, so list the names in the program", value.node)

    def dict_part(self, r, part: str, what: str, shown: cst.CSTNode) -> list[Value]:
        node, file, env = r.node, r.value.file, r.value.env
        if isinstance(node, cst.Dict):
            if any(isinstance(e, cst.StarredDictElement) for e in node.elements):
                raise Blocked(CODE_COLUMNS, f"{what}: `**` in a dict of columns is not read", node)
            out = [Value(e.key if part == "keys" else e.value, file, env) for e in node.elements]
            if r.trail and r.trail[-1].kind == "assign" and r.trail[-1].value is node:
                self.mutations(r.trail[-1], what, "dict")
            return out
        if isinstance(node, cst.DictComp):
            if r.trail and r.trail[-1].kind == "assign" and r.trail[-1].value is node:
                self.mutations(r.trail[-1], what, "dict")
            return self.comprehension(node, node.key if part == "keys" else node.value, file, env, what)
        raise Blocked(CODE_COLUMNS, f"{what}: `{code(shown)[:60]}` is not a dict tfmigrate can read from the source "
                                    "(names known only at run time); the input layer's order is the sorted column "
                                    "names, so list the names in the program", shown)

    def comprehension(self, node, elt, file: FileIndex, env, what: str) -> list[Value]:
        for_in = node.for_in
        if for_in.inner_for_in is not None or for_in.ifs or for_in.asynchronous:
            raise Blocked(CODE_COLUMNS, f"{what}: only a comprehension with one `for` and no `if` is read", node)
        return [Value(elt, file, e) for e in self.loop_envs(for_in.target, for_in.iter, file, env, what)]

    def loop_envs(self, target, iterable, file: FileIndex, env, what: str) -> list[tuple]:
        """One environment per iteration of `for target in iterable` (names bound to the items' expressions). Over
        an iterable known only at run time (`train_x.keys()`), one environment whose name stands for every key."""
        envs = []
        try:
            items = self.items(Value(iterable, file, env), what)
        except Blocked:
            if not isinstance(target, cst.Name):
                raise
            key = cst.Name("__tfmigrate_runtime_key__")  # a fresh placeholder: the key of each iteration
            self.runtime[id(key)] = Value(iterable, file, env)
            return [((target.value, Value(key, file)), *env)]
        for item in items:
            if isinstance(target, cst.Name):
                envs.append(((target.value, item), *env))
                continue
            r = self.resolve(item, what)
            names = [e.value for e in getattr(target, "elements", [])]
            values = getattr(r.node, "elements", None)
            if not all(isinstance(n, cst.Name) for n in names) or values is None or len(values) != len(names):
                raise Blocked(CODE_COLUMNS, f"{what}: the loop target `{code(target)}` is not read", target)
            envs.append((*((n.value, Value(v.value, r.value.file, r.value.env)) for n, v in zip(names, values)), *env))
        return envs

    def appended(self, r, what: str, read: Value) -> list[Value]:
        """The items appended to the list `r` resolved to, when it is a name's assigned value (`cols = [...]`,
        `cols = list(other)`, `cols = list()`), before `read` reads it; a copy changes only the new list."""
        if r.trail and r.trail[-1].kind == "assign" and r.trail[-1].value is r.node:
            return self.mutations(r.trail[-1], what, "list", read)
        return []

    def mutations(self, binding: Binding, what: str, kind: str, read: Value | None = None) -> list[Value]:
        """Items added after `name = [...]`: `name.append(x)` / `name.extend(xs)`, also in `for` loops over
        readable values. Other changes to the list or dict block, and so does an append written after `read` (where
        a copy `list(name)` or the Estimator reads the list: TF1 took the items it had there, or, a v1 canned
        Estimator, when training started)."""
        file = binding.scope.file
        out = []
        for load in file.loads_of(self.program, binding):
            parent = file.parent(load)
            if isinstance(parent, cst.Attribute) and parent.value is load:
                grand = file.parent(parent)
                method = parent.attr.value
                if kind == "list" and method in ("append", "extend") and isinstance(grand, cst.Call) \
                        and grand.func is parent and len(grand.args) == 1 and not grand.args[0].star:
                    if read is not None and read.file is file \
                            and file.orders.get(id(grand), -1) > file.orders.get(id(read.node), 1 << 62):
                        raise Blocked(CODE_COLUMNS, f"{what}: `{binding.name}.{method}(...)` runs after the list is "
                                                    "read (copied with list(...), or given to the Estimator); which "
                                                    "items TF1 saw depends on when each ran: move it before that "
                                                    "point", grand)
                    for env in self.enclosing_loops(grand, binding, what):
                        arg = Value(grand.args[0].value, file, env)
                        out.extend([arg] if method == "append" else self.items(arg, what))
                    continue
                if method in ("keys", "values", "items", "get", "copy", "index", "count"):
                    continue
                raise Blocked(CODE_COLUMNS, f"{what}: `{binding.name}.{method}(...)` changes the columns in a way "
                                            "tfmigrate does not read", parent)
            if isinstance(parent, cst.Subscript) and isinstance(file.parent(parent), (cst.AssignTarget, cst.Del)):
                raise Blocked(CODE_COLUMNS, f"{what}: an item of `{binding.name}` is assigned; not read", parent)
        return out

    def enclosing_loops(self, call: cst.Call, binding: Binding, what: str) -> list[tuple]:
        """The environments an `append` runs in: one per iteration of the `for` loops around it (no ifs)."""
        file = binding.scope.file
        loops, node = [], file.statement_of(call)
        top = binding.scope.node
        while node is not None and node is not top:
            parent = file.parent(node)
            if isinstance(parent, cst.For) and node is parent.body:
                loops.append(parent)
            elif parent is not None and parent is not top and not isinstance(parent, (cst.IndentedBlock,
                                                                                      cst.SimpleStatementSuite)):
                raise Blocked(CODE_COLUMNS, f"{what}: `{binding.name}.append(...)` runs under a condition or in a "
                                            "nested function; not read", call)
            node = parent
        envs: list[tuple] = [()]
        for loop in reversed(loops):  # outermost first
            envs = [e for env in envs for e in self.loop_envs(loop.target, loop.iter, file, env, what)]
        return envs

    # ---- feature columns -----------------------------------------------------------------------------------------
    def columns(self, value: Value, linear: bool = False, empty: bool = False) -> list[Column]:
        """The columns of `value`, sorted as TF1 read them; none is an error unless `empty`."""
        out: dict[str, Column] = {}
        groups: list[Column] = []
        errors: list[Blocked] = []  # each column's blocker, at its own line
        for item in self.items(value, "feature_columns"):
            try:
                column = self.column(item, linear)
            except Blocked as blocked:
                errors.append(blocked)
                continue
            if column.runtime is not None:
                groups.append(column)
                continue
            if column.name in out:
                errors.append(Blocked(CODE_COLUMNS, f"feature column '{column.name}' is given twice (TF1 refused "
                                                    "duplicate column names)", item.node))
            out[column.name] = column
        if errors:
            raise Blocked.many(errors)
        if not out and not groups and not empty:
            raise Blocked(CODE_COLUMNS, "feature_columns is empty", value.node)
        return [*(out[k] for k in sorted(out)), *groups]  # input_layer and linear_model order: sorted by name

    def column(self, value: Value, linear: bool = False) -> Column:
        from ..facts.sites import bind_values

        r = self.resolve(value, "feature column")
        node, file, env = r.node, r.value.file, r.value.env
        path = self.analysis.tf(node, file) if isinstance(node, cst.Call) else None
        word = path.split(".")[-1] if path and path.startswith("feature_column.") else None
        if word is not None:
            fcols.blocked_kind(path, node)
        columns = fcols.ColumnReader(self)
        if word == "embedding_column":
            categorical, embedding = columns.embedding(node, r)
            return Column(categorical.name, 1, None, categorical=categorical, embedding=embedding)
        if word and (word.startswith("categorical_column_with_") or word == "crossed_column"
                     or word == "bucketized_column" and linear):
            if not linear:
                raise Blocked(CODE_COLUMNS, f"tf.{path} in a DNN: TF1's input layer takes dense columns only; wrap "
                                            "it in embedding_column or indicator_column", node)
            categorical = columns.categorical(value)
            return Column(categorical.name, 1, None, categorical=categorical)
        if path == "feature_column.indicator_column":
            args = bind_values(node, ["categorical_column"], "indicator_column", file, env, rule=CODE_COLUMNS)
            if "categorical_column" not in args:
                raise Blocked(CODE_COLUMNS, "indicator_column needs categorical_column", node)
            inner = self.resolve(args["categorical_column"], "categorical column")
            inner_path = self.analysis.tf(inner.node, inner.value.file) if isinstance(inner.node, cst.Call) else None
            if inner_path != "feature_column.categorical_column_with_vocabulary_list":
                categorical = columns.categorical(args["categorical_column"])
                return Column(categorical.name, 1, None, categorical=categorical, indicator=True)
            trail = len(self.trail)
            try:
                return self.vocabulary_column(args["categorical_column"])
            except Blocked as blocked:  # a vocabulary known only at run time: the categorical column's one-hot ids
                del self.trail[trail:]
                categorical = columns.categorical(args["categorical_column"])
                if not isinstance(categorical.num_buckets, str):
                    raise blocked from None
                return Column(categorical.name, 1, None, categorical=categorical, indicator=True)
        if path == "feature_column.bucketized_column":
            args = bind_values(node, ["source_column", "boundaries"], "bucketized_column", file, env, rule=CODE_COLUMNS)
            if "source_column" not in args or "boundaries" not in args:
                raise Blocked(CODE_COLUMNS, "bucketized_column needs source_column and boundaries", node)
            source = self.column(args["source_column"])
            if source.boundaries is not None:
                raise Blocked(CODE_COLUMNS, "bucketized_column's source must be a numeric_column", node)
            trail = len(self.trail)
            try:
                boundaries = self.literal(args["boundaries"], "bucketized_column boundaries")
            except Blocked as blocked:  # an expression over constants, or a list computed at run time
                del self.trail[trail:]
                try:
                    boundaries = fcols.ColumnReader(self).static_or_runtime(
                        args["boundaries"], "bucketized_column boundaries", f"boundaries_{_scope_name(source.key)}",
                        "column_boundaries")
                except Blocked as runtime:  # not visible where the Estimator is built, or not a plain value
                    raise (runtime if "run time" in runtime.message else blocked) from None
                if isinstance(boundaries, tuple):
                    boundaries = list(boundaries)
                if isinstance(boundaries, str):
                    return Column(source.key, source.size, source.normalizer, boundaries)
            if not isinstance(boundaries, list) or not all(isinstance(b, (int, float)) and not isinstance(b, bool)
                                                           for b in boundaries):
                raise Blocked(CODE_COLUMNS, "bucketized_column boundaries must be a list of numbers",
                              args["boundaries"].node)
            return Column(source.key, source.size, source.normalizer, tuple(float(b) for b in boundaries))
        if path != "feature_column.numeric_column":
            if path and path.startswith("feature_column."):
                raise Blocked(CODE_COLUMNS, f"tf.{path} is not converted yet (numeric_column and bucketized_column "
                                            "are); its Keras preprocessing equivalent must reproduce TF1's lookups "
                                            "and combiners exactly", node)
            raise Blocked(CODE_COLUMNS, f"feature column `{code(value.node)[:60]}`: not a tf.feature_column call "
                                        "tfmigrate can see", value.node)
        args = bind_values(node, _NUMERIC, "numeric_column", file, env, rule=CODE_COLUMNS)
        if "key" not in args:
            raise Blocked(CODE_COLUMNS, "numeric_column without a key", node)
        placeholder = self.resolve(args["key"], "numeric_column key").node
        runtime = self.runtime.get(id(placeholder))
        key = "" if runtime is not None else self.literal(args["key"], "numeric_column key")
        if not isinstance(key, str):
            raise Blocked(CODE_COLUMNS, "numeric_column key must be a string", args["key"].node)
        shape = self.literal(args["shape"], "numeric_column shape") if "shape" in args else 1
        dims = shape if isinstance(shape, list) else [shape]
        # shape=() (or []) is a scalar column, one value per example, as TF1 read it (math.prod(()) == 1)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
            raise Blocked(CODE_COLUMNS, f"numeric_column shape {shape!r} is not a positive integer or a list of "
                                        "them", args["shape"].node)
        normalizer = None
        fn = args.get("normalizer_fn")
        if fn is not None and not is_literal(fn.node, None):
            if self.program.function_of(fn) is None:
                raise Blocked(CODE_COLUMNS, f"normalizer_fn=`{code(fn.node)[:60]}` is not a function tfmigrate can "
                                            "carry (a lambda or a def)", fn.node)
            normalizer = self.program.render(fn, self.anchor, self.file)
            if normalizer is None:
                raise Blocked(CODE_COLUMNS, f"normalizer_fn=`{code(fn.node)[:60]}` uses names local to a function; "
                                            "define it (and what it reads) at module level so the model can call it",
                              fn.node)
            if runtime is not None and "__tfmigrate_runtime_key__" in normalizer:
                raise Blocked(CODE_COLUMNS, "a normalizer_fn that depends on the key of a run-time loop is not "
                                            "converted: give each column its own normalizer_fn", fn.node)
        if runtime is not None:
            return Column("", math.prod(dims), normalizer, runtime=self.runtime_keys(runtime))
        return Column(key, math.prod(dims), normalizer)

    def runtime_keys(self, iterable: Value) -> str:
        """The keys of a run-time loop over columns, for the model: written out where the model sees the same
        value, else in params from the Estimator's place (both programs iterate the same keys: the loop ran before
        the Estimator was built, on the same value)."""
        index = sum(1 for k in self.params if k.startswith("feature_keys"))
        key = "feature_keys" if not index else f"feature_keys_{index + 1}"
        try:
            text = self.carry(key, iterable)
        except Blocked as blocked:
            raise Blocked(CODE_COLUMNS, f"feature columns built over `{code(iterable.node)[:60]}`: {blocked.message}",
                          iterable.node) from None
        if text.startswith("params["):
            self.params[key] = f"list({self.params[key]})"  # iterated twice by the model (build and call)
            return f"self.{text}"
        return text

    def vocabulary_column(self, value: Value) -> Column:
        from ..facts.sites import bind_values

        r = self.resolve(value, "categorical column")
        node, file, env = r.node, r.value.file, r.value.env
        path = self.analysis.tf(node, file) if isinstance(node, cst.Call) else None
        if path != "feature_column.categorical_column_with_vocabulary_list":
            raise Blocked(CODE_COLUMNS, f"indicator_column over `{code(value.node)[:60]}` is not converted yet (over "
                                        "categorical_column_with_vocabulary_list it is)", value.node)
        args = bind_values(node, ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"],
                           "categorical_column_with_vocabulary_list", file, env, rule=CODE_COLUMNS)
        if "key" not in args or "vocabulary_list" not in args:
            raise Blocked(CODE_COLUMNS, "categorical_column_with_vocabulary_list needs key and vocabulary_list", node)
        key = self.literal(args["key"], "categorical column key")
        vocabulary = self.literal(args["vocabulary_list"], "vocabulary_list")
        if not isinstance(key, str) or not isinstance(vocabulary, list) or not vocabulary or not (
                all(isinstance(v, str) for v in vocabulary)
                or all(isinstance(v, int) and not isinstance(v, bool) for v in vocabulary)):
            raise Blocked(CODE_COLUMNS, "a vocabulary_list of strings or of integers, with a string key, is converted",
                          node)
        oov = self.literal(args["num_oov_buckets"], "num_oov_buckets") if "num_oov_buckets" in args else 0
        default = self.literal(args["default_value"], "default_value") if "default_value" in args else -1
        if not isinstance(oov, int) or not isinstance(default, int):
            raise Blocked(CODE_COLUMNS, "num_oov_buckets and default_value must be integers", node)
        return Column(key, 1, None, vocabulary=tuple(vocabulary), num_oov_buckets=oov, default_value=default)

    def sparse_combiner(self, value: Value | None) -> str:
        if value is None:
            return "sum"
        got = self.literal(value, "sparse_combiner")
        if got not in fcols.COMBINERS:
            raise Blocked(CODE_COLUMNS, f"sparse_combiner {got!r}: one of {fcols.COMBINERS} is converted", value.node)
        return got

    # ---- head and optimizer ----------------------------------------------------------------------------------------
    def reduction(self, value: Value | None, v1: bool) -> str:
        if value is None:
            return "sum" if v1 else "sum_over_batch_size"
        r = self.resolve(value, "loss_reduction", CODE)
        path = self.analysis.tf(r.node, r.value.file) if isinstance(r.node, cst.Attribute) else None
        word = path.split(".")[-1] if path and ".Reduction." in f".{path}" else None
        if word is None:
            try:
                word = {"sum": "SUM", "weighted_sum": "SUM", "sum_over_batch_size": "SUM_OVER_BATCH_SIZE",
                        "weighted_sum_over_batch_size": "SUM_OVER_BATCH_SIZE"}.get(literal(r.node))
            except ValueError:
                word = None
        if word == "SUM":
            return "sum"
        if word == "SUM_OVER_BATCH_SIZE":
            return "sum_over_batch_size"
        raise Blocked(CODE, f"loss_reduction=`{code(value.node)[:60]}` is not converted (SUM and "
                            "SUM_OVER_BATCH_SIZE are)", value.node)

    def combined_optimizer(self, args, v1: bool, dnn_columns, linear_columns, unread: dict | None = None):
        """DNNLinearCombined: the DNN optimizer (strings at 0.001) on the DNN's variables and the linear one (strings
        at min(0.005, 1/sqrt(linear columns))) on the linear model's, each its own object, as TF1 built them.
        `unread`: a column list was blocked; by part, whether its list was given: each given part's optimizer is
        checked for its own blockers only (its rate and column checks read the lists), and nothing is planned."""
        plans, errors = [], []
        runtime = any(c.runtime for c in linear_columns)
        for part, columns, default, rate in (
                ("dnn", dnn_columns, "Adagrad", "0.001"),
                ("linear", linear_columns, "Ftrl", repr(min(0.005, 1.0 / math.sqrt(max(len(linear_columns), 1)))))):
            if not (columns if unread is None else unread[part]):
                continue
            value = args.get(f"{part}_optimizer")
            at = value.node if value is not None else self.call
            try:
                if unread is None and part == "linear" and runtime and (
                        value is None or isinstance(self.resolve(value, part, CODE).node, cst.SimpleString)):
                    raise Blocked(CODE, "linear_optimizer: its rate min(0.005, 1/sqrt(number of linear columns)) "
                                        "depends on columns known only at run time; pass the optimizer object", at)
                plan = self.optimizer(value, part, v1, len(columns) if unread is None else None, rate=rate,
                                      default=default)
                if unread is None:
                    self.column_notes.extend(fcols.check_optimizer(plan.ctor, part, columns, at))
                if plan.after_build or plan.ctor.startswith(("TF1Adam(", "TF1Momentum(")):
                    raise Blocked(CODE, f"{part}_optimizer: in a DNNLinearCombined estimator only optimizers without "
                                        "per-step state beyond their slots (Adagrad, Ftrl, SGD) are converted yet", at)
                plans.append(plan)
            except Blocked as blocked:  # each optimizer's blocker, at its place
                errors.append(blocked)
        if errors:
            raise Blocked.many(errors)
        if unread is not None:
            return None, []
        support = [p.support_code for p in plans if p.support_code]
        notes = [n for p in plans for n in p.notes]
        if len(plans) == 1:
            return optimizers.OptimizerPlan(plans[0].ctor, notes=notes), support
        ctor = (f"WideDeepOptimizer({plans[0].ctor}, {plans[1].ctor}, "
                "lambda: __tfmigrate_model__.linear_model.trainable_variables)")
        return optimizers.OptimizerPlan(ctor, notes=notes), [*support, shared(generated(WIDE_DEEP_OPTIMIZER))]

    def optimizer(self, value: Value | None, family: str, v1: bool, n_columns: int | None, rate: str | None = None,
                  default: str | None = None) -> optimizers.OptimizerPlan:
        """`rate`: what a string gets (None: DNN's v1 0.05 / v2 class default, linear's 0.2)."""
        if rate is None:
            rate = _RATE[family] if v1 or family in ("linear", "baseline") else None
        if value is None:
            return self.named(default or ("Adagrad" if family == "dnn" else "Ftrl"), rate, v1, value)
        r = self.resolve(value, "optimizer", CODE)
        node, file = r.node, r.value.file
        if is_literal(node, None):
            if family in ("dnn", "baseline") or default is not None:
                raise Blocked(CODE, "optimizer=None: the DNN estimators need an optimizer", value.node)
            if n_columns is None:
                raise Blocked(CODE, "optimizer=None: its rate min(0.2, 1/sqrt(number of columns)) depends on columns "
                                    "known only at run time; pass the optimizer", value.node)
            rate = repr(min(0.2, 1.0 / math.sqrt(n_columns)))  # linear.py's default when no optimizer is given
            text = (f"tf.compat.v1.train.FtrlOptimizer(learning_rate={rate})" if v1
                    else f"tf.keras.optimizers.legacy.Ftrl(learning_rate={rate})")
            return self.instance(cst.parse_expression(text), v1, file, ())
        if isinstance(node, cst.SimpleString):
            return self.named(node.evaluated_value, rate, v1, value)
        if isinstance(node, cst.Call):
            return self.instance(node, v1, file, r.value.env, value)
        if isinstance(node, cst.Lambda) and _no_params(node.params) and isinstance(node.body, cst.Call):
            # get_optimizer_instance(_v2) calls a callable once, without arguments: the object its body builds
            return self.instance(node.body, v1, file, r.value.env, Value(node.body, file, r.value.env))
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            raise Blocked(CODE, "an optimizer given as a callable is converted when it is a lambda without parameters "
                                "returning the optimizer (`lambda: X(...)`); pass that, or the optimizer object",
                          value.node)
        path = self.analysis.tf(node, file) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if not v1 and path and path.rsplit(".", 1)[0] in ("keras.optimizers.legacy", "optimizers.legacy"):
            # a v2 class: get_optimizer_instance_v2 calls it without arguments (the class's defaults); a v1
            # tf.compat.v1.train class would fail there (learning_rate is required)
            return self.named_class(path, value)
        raise Blocked(CODE, f"optimizer=`{code(value.node)[:60]}`: {self.analysis.why(r, 'an optimizer')}",
                      value.node)

    def named_class(self, path: str, value: Value) -> optimizers.OptimizerPlan:
        text = f"tf.{path}()"
        try:
            return self.instance(cst.parse_expression(text), False, self.file, ())
        except Blocked as blocked:
            raise Blocked(blocked.code, f"optimizer class `{code(value.node)[:60]}` ({text}): {blocked.message}",
                          value.node) from None

    def named(self, name: str, rate: str | None, v1: bool, value: Value | None) -> optimizers.OptimizerPlan:
        if name not in _V1_TRAIN:
            raise Blocked(CODE, f"optimizer '{name}' is not one the canned estimators accept (TF raised ValueError): "
                                f"name one of {', '.join(map(repr, _V1_TRAIN))}, or pass the optimizer object",
                          value and value.node)
        if v1:  # optimizers.get_optimizer_instance: the class at the estimator's rate
            text = f"tf.compat.v1.train.{_V1_TRAIN[name]}(learning_rate={rate})"
        elif rate is None:  # get_optimizer_instance_v2 without a rate: the legacy class's own default
            text = f"tf.keras.optimizers.legacy.{_V2_LEGACY[name]}()"
        else:
            text = f"tf.keras.optimizers.legacy.{_V2_LEGACY[name]}(learning_rate={rate})"
        call = cst.parse_expression(text)
        try:
            return self.instance(call, v1, self.file, ())
        except Blocked as blocked:
            raise Blocked(blocked.code, f"optimizer '{name}' ({text}): {blocked.message}",
                          value.node if value is not None else self.call) from None

    def instance(self, call: cst.Call, v1: bool, file: FileIndex, env, value: Value | None = None):
        path = self.analysis.tf(call, file) if file.contains(call) else _path_of(call)
        at = value.node if value is not None else call
        name = optimizers.optimizer_name(path)
        legacy = path.split(".")[-1] if path and path.rsplit(".", 1)[0] in ("keras.optimizers.legacy",
                                                                            "optimizers.legacy") else None
        if not v1 and legacy is None and name is not None:
            # a TF 1.x optimizer: the program ran on TF 1.x, where tf.estimator.<Canned> was the v1 class taking it
            canned_path = self.analysis.tf(self.call, self.file) or "estimator.<canned>"
            raise Blocked(CODE, f"optimizer `{code(call)[:60]}` is TF 1.x's, where tf.{canned_path} was the v1 "
                                f"canned estimator that took it (a v2 one takes tf.keras.optimizers.legacy.*): spell "
                                f"it tf.compat.v1.{canned_path} and the optimizer tf.compat.v1.{path}, then re-run",
                          at)
        if not v1 and legacy is None and path and path.startswith(("keras.optimizers.", "optimizers.")) \
                and path.count(".") == path.startswith("keras.") + 1:
            # TF 2.15's canned get_optimizer_instance_v2, in the Estimator's graph: ValueError for a Keras 2.11+
            # optimizer ("Please set your optimizer as an instance of `tf.keras.optimizers.legacy.Optimizer`")
            raise Blocked(CODE, f"optimizer `{code(call)[:60]}`: TF 2.15's v2 canned estimators raise ValueError for "
                                "this Keras optimizer (they take tf.keras.optimizers.legacy.* only), so the original "
                                f"does not run there: write tf.keras.optimizers.legacy.{path.rsplit('.', 1)[-1]}(...) "
                                f"(tfmigrate converts the legacy {', '.join(optimizers.LEGACY)})", at)
        if v1 and name is None or not v1 and legacy is None:
            want = "tf.compat.v1.train.*Optimizer" if v1 else "tf.keras.optimizers.legacy.*"
            raise Blocked(CODE, f"optimizer `{code(call)[:60]}`: a {'v1' if v1 else 'v2'} canned estimator takes "
                                f"{want} objects; this one is not converted", at)
        args = []
        for i, arg in enumerate(call.args):
            if arg.star or not file.contains(call):
                args.append(arg)
                continue
            key = f"optimizer_{arg.keyword.value if arg.keyword else i}"
            if name is not None and arg.keyword is None:
                key = f"optimizer_{optimizers.OPTIMIZERS[name][i]}" if i < len(optimizers.OPTIMIZERS[name]) else key
            if legacy is not None and arg.keyword is None and legacy in optimizers.LEGACY:
                signature = optimizers.LEGACY[legacy][0]
                key = f"optimizer_{signature[i]}" if i < len(signature) else key
            inner = self.program.resolve(Value(arg.value, file, env))
            if isinstance(inner.node, cst.Call) and optimizers.decay_name(self.analysis.tf(inner.node, inner.value.file)):
                raise Blocked(CODE, "a learning-rate decay built outside the model_fn is not converted (TF1 "
                                    "evaluated it once, before training)", arg.value)
            text = self.carry(key, Value(arg.value, file, env))
            args.append(arg.with_changes(value=cst.parse_expression(text)))
        call = call.with_changes(args=args)
        if v1:
            return optimizers.convert(call, name, None, False, self.profile)
        return optimizers.legacy(call, legacy, CODE, self.profile)


def _no_params(params: cst.Parameters) -> bool:
    return not (params.params or params.kwonly_params or params.posonly_params or params.star_kwarg
                or isinstance(params.star_arg, (cst.Param, cst.ParamStar)))


def _path_of(call: cst.Call) -> str | None:
    """The normalised TF path of a call tfmigrate wrote itself (`tf.compat.v1.train.X(...)`)."""
    from libcst.helpers import get_full_name_for_node

    from ..facts.tfnames import normalise

    full = get_full_name_for_node(call.func) or ""
    return normalise("tensorflow" + full[len("tf"):]) if full.startswith("tf.") else None


# ---- the plan the templates render ------------------------------------------------------------------------------
@dataclass
class _Loss:
    keras_class: str
    args: list[str]
    reduction: str  # what the head used: "sum_over_batch_size" | "sum"
    # the generated SquaredError: one loss per label (not per example), reduced over all of them as TF1 did
    elementwise: bool = False

    def ctor(self, reduction: str | None = None) -> str:
        args = list(self.args)
        if reduction:
            args.append(f'reduction="{reduction}"')
        elif self.reduction == "sum":
            args.append('reduction="sum"')
        module = "" if self.elementwise else "keras.losses."
        return f"{module}{self.keras_class}({', '.join(args)})"


@dataclass
class CannedPlan:
    """What keras_build.py.j2 / ctl_trainer.py.j2 read (the model_fn plan's names), plus the canned model."""

    model: CannedModel
    class_name: str
    fn_name: str
    loss: _Loss
    metrics: list[str]
    optimizer: optimizers.OptimizerPlan
    params: str = "params"
    partitioner: partitioners.PartitionerPlan | None = None  # under parameter servers (v1 DNN)
    mod_rows: bool = False
    predictions: str | None = None  # "head" when predict() reads the head's PREDICT outputs (rules/planners/heads.py)
    export_outputs: None = None
    export_methods: None = None
    export_blocked: None = None
    notes: list = field(default_factory=list)
    head_targets: bool = False  # the model's head_targets maps labels / reads weights (rules/planners/heads.py)
    weighted_metrics: bool = False  # Keras passes sample weights only to compile(weighted_metrics=...)
    predicting: bool = False  # predict() after training: the model gets predictions() and predict_examples()
    exporting: frozenset = frozenset()  # export receivers ("parsing"): the head's export_outputs() and export methods
    until_end: bool = False  # trained without max_steps: the custom loop stops where the input ends
    resuming: bool = False  # training resumes from model_dir: the Estimator's checkpoint by its names, or this program's
    restoring: bool = False  # predict / evaluate / export with nothing trained first restore model_dir's checkpoint


_HEADS = {  # head → (loss class, loss args); the metrics are the head's (rules/planners/heads.py)
    "multi_class": ("SparseCategoricalCrossentropy", ["from_logits=True"]),
    # the loss object reshapes labels of rank 1 against [batch, 1] logits, as TF1's binary head did
    "binary": ("BinaryCrossentropy", ["from_logits=True"]),
    "regression": ("MeanSquaredError", []),
}


def model_plan(sites: list, context):
    """(plan, target, builder name, parameter server?, notes) for one canned estimator, like program._model_plan."""
    from ..facts.words import ROOTS as TF_ROOTS
    from ..facts.reading import export_kinds, module_level_names, reading_sites
    from tfmigrate.names import build_import_table

    model: CannedModel = sites[0].model_fn
    key = ("canned-plan", id(model.node), context.options)
    cache = context.program.cache
    if key in cache:
        return cache[key]
    predicts, exports = reading_sites(sites)
    exporting = export_kinds(exports)
    if exporting and model.head == "regression" and model.units > 1:
        raise Blocked(CODE, f"export_saved_model of a {model.name} with label_dimension={model.units} is not "
                            "converted yet: its [batch, label_dimension] regression signatures are not compared with "
                            "TF 2.15's; export from the Estimator, or migrate the program without the export and "
                            "write the SavedModel with tf.saved_model.save", model.node)
    module = model.file.module
    module_names = module_level_names(module, build_import_table(module, TF_ROOTS))
    taken = cache.setdefault(("canned-names", id(model.file)), set(module_names))
    ps_names = _PS_NAMES if model.parameter_server else ()
    for name in (*_SUPPORT_NAMES, *_OPTIMIZER_NAMES, *heads.HEAD_PARTS, *ps_names):
        if name in module_names:
            raise Blocked(CODE, f"`{name}` is taken in this module; the generated model code needs the name", model.node)
    stem = model.name
    class_name = _free(f"{stem}Model", taken)
    target = sites[0].target
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", stem.replace("DNN", "Dnn")).lower()
    builder = _free(f"build_{snake}" if target == "keras" else f"{stem}Trainer", taken)
    loss_class, loss_args = _HEADS[model.head]
    loss = _Loss(loss_class, loss_args, model.reduction)
    if model.head == "regression" and model.units > 1:
        # label_dimension > 1: the head reduced the [batch, label_dimension] squared errors as one set (divided by
        # batch * label_dimension), Keras' MeanSquaredError averages each example's first
        loss = _Loss("SquaredError", [], model.reduction, elementwise=True)
    plan = CannedPlan(model, class_name, model.tf_name, loss,
                      model.head_plan.metrics(target), model.optimizer, head_targets=model.head_plan.targets,
                      weighted_metrics=model.head_plan.weight is not None, predicting=bool(predicts),
                      exporting=exporting)
    if predicts or exports:
        plan.predictions = "head"  # the head's PREDICT outputs, generated by rules/planners/heads.py
    plan.partitioner = model.partitioner
    notes = [*model.notes, *((c, m, model.node) for c, m in model.optimizer.notes)]
    cache[key] = (plan, target, builder, model.parameter_server, notes)
    return cache[key]


def _free(base: str, taken: set[str]) -> str:
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    taken.add(name)
    return name


def render(items: list[tuple[CannedPlan, str, str]], support_done: set[str], blocks=None,
           words=(), quiet: dict | None = None) -> list[cst.BaseStatement]:
    """Module-level statements for the canned models of one anchor: support code not yet emitted in the file, then
    each model class and its builder (Keras) or trainer (custom loop)."""
    from ..emit.assembly import template_env, support

    env = template_env()
    parts = []
    needed = []
    for plan, _, _ in items:
        if plan.model.family != "baseline" or plan.model.head_plan.weight is not None:
            needed.append("numeric_input")
        if any(c.boundaries is not None for c in plan.model.dnn_columns):
            needed.append("bucketized_input")
        if any(isinstance(c.boundaries, str) for c in (*plan.model.dnn_columns, *plan.model.linear_columns)):
            needed.append("column_boundaries")  # run-time boundaries, checked as TF1 checked them
        if any(c.vocabulary is not None for c in plan.model.dnn_columns):
            needed.append("indicator_input")
        if plan.model.linear_columns:
            needed.extend(["LinearModel", "ColumnWeights"])
        if plan.loss.elementwise:
            needed.append("SquaredError")
        needed.extend(_column_parts(plan.model))
        needed.extend(plan.model.support)
    for plan, _, target in items:
        needed.extend(plan.model.head_plan.support(target))
        if plan.resuming or plan.restoring:  # the optimizer slots' names in the Estimator's checkpoint
            needed.append("legacy_slots" if not plan.model.v1 else "estimator_slots")
        if plan.resuming and target == "keras":  # the Estimator's model.ckpt-<step> checkpoints (driver.py)
            needed.append("EstimatorCheckpoints")
        if plan.model.family == "baseline":
            needed.append("BaselineBias")
        if plan.model.batch_norm:
            needed.append("TF1BatchNormalization")
    for item in dict.fromkeys(needed):
        if item in support_done:
            continue
        support_done.add(item)
        if item in fcols.SUPPORT_PARTS:
            parts.append(support("feature_columns.py.j2", part=item))
        elif item in _SUPPORT_NAMES:
            parts.append(support("canned_support.py.j2", part=item))
        elif item in heads.HEAD_PARTS:
            # labels of [batch, label_dimension] in HeadMetric when a regressor of this file has more than one
            parts.append(support("canned_head.py.j2", part=item, label_dimension=LABEL_DIMENSION in support_done))
        elif item == "EstimatorCheckpoints":
            parts.append(support("estimator_checkpoints.py.j2").strip("\n"))
        elif item in ("legacy_slots", "estimator_slots"):
            parts.append(support("estimator_restore.py.j2", part="slots",
                                 canned="v2" if item == "legacy_slots" else "v1").strip("\n"))
        else:
            parts.append(item.strip("\n"))
    for plan, builder, target in items:
        model = plan.model
        inputs = lambda columns: [c.input_code() for c in columns]  # noqa: E731
        by_name = lambda columns: [  # noqa: E731  (run-time keys: a dict of the inputs, sorted by name at run time)
            f"**{{key: {c.input_code('key')} for key in {c.runtime}}}" if c.runtime else f'"{c.name}": {c.input_code()}'
            for c in columns]
        runtime = any(c.runtime for c in model.linear_columns)
        sizes = "{" + ", ".join(f"**{{key: {c.size} for key in {c.runtime}}}" if c.runtime else
                                f'"{c.name if runtime else _scope_name(c.key)}": {_weights(c, model)}'
                                for c in model.linear_columns) + "}"
        if runtime:  # the weights in column-name order, like the inputs
            sizes = f"dict(sorted({sizes}.items()))"
        # Keras' evaluate() loss weighs batches by size; the Estimator's was the mean of the batches' losses
        test_step = env.get_template("test_step.py.j2").render() if target == "keras" else ""
        restore = dict(canned="v1" if model.v1 else "v2", resuming=plan.resuming, restoring=plan.restoring,
                       # the variable scope a v1 canned model_fn created its optimizer's slots in
                       v1_scope={"dnn": "dnn/", "linear": "linear/", "baseline": "baseline/"}.get(model.family, ""))
        if model.family == "baseline":  # no feature columns: a bias per output (rules/planners/heads.py)
            # heads.py writes its code as Python strings: `generated` marks their `tf.` like the templates' own
            parts.append(generated(heads.baseline_class(plan.class_name, plan.fn_name, model.units)
                                   + model.head_plan.methods(target) + _head_outputs(plan))
                         + test_step
                         + (env.get_template("predict_examples.py.j2").render(predicting=True) if plan.predicting
                            else "")
                         + _export_methods(env, plan)
                         + env.get_template("estimator_restore.py.j2").render(part="methods", model=model, **restore))
        else:
            parts.append(env.get_template("canned_model.py.j2").render(
                plan=plan, model=model, dnn_inputs=inputs(model.dnn_columns),
                linear_inputs=inputs(model.linear_columns),
                dnn_by_name=by_name(model.dnn_columns) if any(c.runtime for c in model.dnn_columns) else None,
                linear_by_name=by_name(model.linear_columns) if any(c.runtime for c in model.linear_columns) else None,
                sizes=sizes, literal_dropout=_is_number(model.dropout),
                embeddings=[(fcols.scope_name(c.name), fcols.layer_code(c.categorical, c.embedding))
                            for c in model.dnn_columns if c.embedding is not None],
                keep_input_dtype=any(c.normalizer for c in (*model.dnn_columns, *model.linear_columns)),
                head_methods=generated(model.head_plan.methods(target) + _head_outputs(plan))
                + test_step
                + (env.get_template("predict_examples.py.j2").render(predicting=True) if plan.predicting else "")
                + _export_methods(env, plan), **restore))
        view = _Wrapped(plan, "model" if target == "keras" else "self.model")
        if target == "keras":
            parts.append(env.get_template("keras_build.py.j2").render(plan=view, build_fn=builder))
        else:
            if model.partitioner is not None:
                parts.append(shared(generated(_PS_TASK_COUNT)).strip("\n"))
                parts.append(f"VARIABLE_PARTITIONER = {wrap_call(model.partitioner.tf2, width=96)}")
            parts.append(env.get_template("ctl_trainer.py.j2").render(plan=view, trainer=builder,
                                                                      parameter_server=model.parameter_server,
                                                                      predicting=plan.predicting, exporting=(),
                                                                      warm_starting=False, resuming=plan.resuming,
                                                                      until_end=plan.until_end, callbacks=False,
                                                                      saver=False))
            if model.parameter_server:
                parts.append(support("ps_strategy.py.j2"))
    from ..emit.assembly import emit_parts, quiet_generated

    # parts naming none of the file's TF bindings may stay text (program.emit_parts): nothing later changes them
    named = codewords.code_words(words)  # the words in code, not in docstrings or comments
    items = emit_parts(parts, blocks, named)
    body = [stmt for stmt, _, _ in items]
    body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)])
    if quiet is not None and named is not None:  # code the leftover-name pass need not enter
        quiet_generated([(stmt, kind, text) for stmt, (_, kind, text) in zip(body, items)], named, quiet)
    return body


def _head_outputs(plan: CannedPlan) -> str:
    """The head's predictions() (predict or export) and export_outputs() (export) methods (rules/planners/heads.py)."""
    head = plan.model.head_plan
    return ((head.predictions_method() if plan.predicting or plan.exporting else "")
            + (head.export_outputs_method() if plan.exporting else ""))


def _export_methods(env, plan: CannedPlan) -> str:
    """export_parsing_saved_model and write_signatures (templates/export_methods.py.j2, as a model_fn's model
    with export_outputs has them): one signature per key of the head's EXPORT_OUTPUTS."""
    if not plan.exporting:
        return ""
    view = {"export_outputs": True, "fn_name": plan.fn_name}
    return env.get_template("export_methods.py.j2").render(plan=view, exporting=plan.exporting)


def _column_parts(model: CannedModel) -> list[str]:
    """The feature-column support code a model's columns call (feature_columns.py.j2)."""
    out = []
    for c in (*model.dnn_columns, *model.linear_columns):
        if c.categorical is None:
            continue
        out.extend(c.categorical.parts)
        out.extend(c.embedding.parts if c.embedding is not None else ())
        out.append("EmbeddingColumn" if c.embedding is not None else "indicator_of" if c.indicator else
                   "CategoricalWeights")
    return [p for p in fcols.SUPPORT_PARTS if p in out]  # a fixed order: the module reads the same every run


def _weights(column: Column, model: CannedModel) -> str:
    """A linear column's entry in LinearModel's dict: its size (dense) or its categorical weights layer."""
    if column.categorical is None:
        return str(column.size)
    return (f'CategoricalWeights({column.categorical.num_buckets}, {model.units}, "{model.sparse_combiner}", '
            f'name="{fcols.scope_name(column.name)}")')


class _Wrapped:
    """The plan with its long generated calls laid out one argument per line (as program._render_model does)."""

    def __init__(self, plan: CannedPlan, model: str):
        self._plan = plan
        self.optimizer = _OptimizerView(plan.optimizer, model)
        one = ", ".join(plan.metrics)
        self.metrics = [one if len(one) <= 70 else "\n" + "".join(f"    {m},\n" for m in plan.metrics)]

    def __getattr__(self, name):
        return getattr(self._plan, name)


class _OptimizerView:
    def __init__(self, optimizer: optimizers.OptimizerPlan, model: str):
        self._optimizer = optimizer
        self.ctor = wrap_call(optimizer.ctor.replace("__tfmigrate_model__", model), width=76)

    def __getattr__(self, name):
        return getattr(self._optimizer, name)


def _scope_name(key: str) -> str:
    """TF1's variable scope for a column (feature_column_v2._sanitize_column_name_for_variable_scope)."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", key)


WIDE_DEEP_OPTIMIZER = '''
class WideDeepOptimizer(keras.optimizers.Optimizer):
    """The two optimizers of a DNNLinearCombined estimator in one: each variable is updated by the optimizer of
    its part (the linear model's or the DNN's), with that optimizer's rate and slots, as the Estimator's two train
    ops did with the same gradients."""

    def __init__(self, dnn_optimizer, linear_optimizer, linear_variables, name="wide_deep"):
        super().__init__(learning_rate=0.0, name=name)
        self.dnn_optimizer, self.linear_optimizer = dnn_optimizer, linear_optimizer
        self.linear_variables = linear_variables  # a callable: the linear model's variables

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        linear = {id(v) for v in self.linear_variables()}
        self.dnn_optimizer.build([v for v in var_list if id(v) not in linear])
        self.linear_optimizer.build([v for v in var_list if id(v) in linear])

    def part_of(self, variable):
        """The optimizer that updates `variable`: the linear model's or the DNN's."""
        if self._var_key(variable) in self.linear_optimizer._trainable_variables_indices:
            return self.linear_optimizer
        return self.dnn_optimizer

    def update_step(self, gradient, variable, learning_rate):
        optimizer = self.part_of(variable)
        optimizer.update_step(gradient, variable, optimizer.learning_rate)
'''


def _is_number(text: str | None) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True
