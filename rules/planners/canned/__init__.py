"""TFM620 canned estimators, TFM622 feature columns, TFM623 boosted trees → Keras models that train the same.

Converts `DNNClassifier`, `DNNRegressor`, `LinearClassifier`, `LinearRegressor`,
`DNNLinearCombinedClassifier`/`Regressor` (wide & deep) and `BaselineClassifier`/`Regressor` (a bias per output,
`baseline/bias`, logits bias * ones([batch, units]); optimizer strings at baseline.py's 0.3), v2 (`tf.estimator.*`) and v1
(`tf.compat.v1.estimator.*`, also `tf.estimator.*` under `import tensorflow.compat.v1 as tf`, and `tf.estimator.*` in a
TF 1.x program, which TF 1.x exported as the v1 class: its file names a TF1-only name through a plain `import
tensorflow as tf`, or an optimizer it is given (through a variable, lambda, helper or another module) is a TF 1.x
`tf.train.*Optimizer`; a note says so, _tf1_meaning.py; fixture canned_tf1_names_wide_deep, verified with the
original run on tf.compat.v1 as its `tensorflow`: 100/100 steps bit-equal), built anywhere the
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
  `filter(lambda c: isinstance(c, feature_column._DenseColumn), columns)` over such columns is read too: on TF 2.15
  every tf.feature_column column is an instance of the abstract TF 1 classes of its kind only (_FeatureColumn,
  _DenseColumn, _CategoricalColumn, _SequenceDenseColumn; measured, rules/facts/column_classes.py), so the filter
  keeps those; a concrete class (`_NumericColumn`, the GoogleCloudPlatform tutorials) is False for every column on
  TF 2, and is blocked saying so. A comprehension's `if` of the same isinstance tests of its item (`[c for c in
  columns if isinstance(c, feature_column_v2.NumericColumn) or ...]`, the cloudml-template census shape) is read
  the same way, each column's class known from the call that built it (fixture canned_tf1_names_wide_deep).
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
  `WideDeepOptimizer` that hands every variable to its part's optimizer (Adagrad, Ftrl, SGD; the legacy RMSprop
  and, as dnn_optimizer, the legacy Adam: TF 2.15 gave the DNN's optimizer the global step as its `iterations`,
  which its bias correction reads, so a generated `WideDeepSteps` sets it to the steps taken before each update;
  fixture canned_wide_deep_legacy_adam: 200/200 steps equivalent, 122 bit-equal, max 2e-7 relative, as the same
  model with legacy Adagrad (135/200); without the step count kept not equivalent from step 2; canned_wide_deep_legacy_adam_mwms, the same on
  two workers (custom loop): 52/60 and 48/60 bit-equal; other optimizers with per-step state like TF1's Adam block there;
  a decay on the global step in either optimizer callable: Keras schedules that a generated `WideDeepGlobalStep`
  gives the shared step before each update, as both TF1 decays read the one global step; fixtures
  canned_wide_deep_decay(_v1, _mwms)). One column list empty (`[]`, `()`, `list()`, `tuple()`) or None: TF 2.15
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
  TF1Ftrl, LegacyKerasAdam, LegacyRMSprop: the legacy arithmetic, e.g. Adam's float32 pow(β, step) and 1 - β,
  which stock keras.optimizers.Adam misses from the first step; fixtures canned_legacy_adam (DNNClassifier, legacy
  Adam from a helper) and canned_legacy_rmsprop (DNNRegressor): 150/150 steps bit-equal; measured over 200 steps:
  stock keras.optimizers.Adam 50/200 bit-equal (5.6e-7 relative), stock RMSprop 1/200 and not equivalent); `optimizer=None` on a linear model → Ftrl at min(0.2, 1/sqrt(number of columns)); instances of
  `tf.compat.v1.train.*` (v1) or `tf.keras.optimizers.legacy.*` (v2) are converted with their arguments; `lambda: X(...)` (the Estimator calls it once, without arguments) as `X(...)`, followed through a helper
  (`lambda: make_optimizer(args)`) or a def without required parameters passed itself (its one `return`); a v2 legacy class
  `tf.keras.optimizers.legacy.X` as `X()` (v2 calls it without arguments; a v1 class would fail there).
- Estimators over a head (v2 `tf.estimator.DNNEstimator` / `LinearEstimator` / `DNNLinearCombinedEstimator` with
  `head=tf.estimator.BinaryClassHead(...)`, `MultiClassHead(n_classes, ...)` or `RegressionHead(label_dimension,
  ...)`, the head inline, in a name assigned once or returned by a helper; canned/_head_estimator.py): TF 2.15's
  DNNClassifierV2 / DNNRegressorV2 (Linear, DNNLinearCombined alike) build exactly that head from n_classes /
  label_dimension, weight_column, label_vocabulary and loss_reduction and call the same model_fn with the other
  arguments, so the call is read as that class with the head's arguments: same network, loss, metric keys,
  predictions and export signatures (tests/rewrite/test_head_estimators.py: the migrated text is the canned
  class's, names aside). Fixture head_dnn_multiclass (DNNEstimator over MultiClassHead(4)): 100/100 steps
  bit-equal, evaluate()'s keys bit-equal; head_linear_regression (LinearEstimator over a helper's RegressionHead(2,
  SUM), positional arguments): 100/100 steps and evaluate() bit-equal. Blocked at the argument: a head's loss_fn, inverse_link_fn, thresholds
  (extra metrics) or name (renames the metric keys and signatures), which no canned class sets; MultiLabelHead,
  MultiHead, Poisson / LogisticRegressionHead; MultiClassHead(n_classes <= 2) (TF raised); a head not readable
  where it is built; the v1 classes (`tf.compat.v1.estimator.DNNEstimator`: TF1's v1 model_fn around the head given,
  which no canned class pairs with a tf.estimator head), naming the v2 class or v1 canned class to use instead.
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
constants, `len(TARGETS)`, also another module's `len(metadata.TARGETS)`), `label_dimension` > 1 with an export or under parameter servers, a callable optimizer
that takes arguments or returns from more than one `return`, legacy RMSprop with momentum or centered and legacy Adam with amsgrad
(v2; rules/planners/optimizers.py says why), legacy Adam or RMSprop as a DNNLinearCombined linear_optimizer (its own step count's checkpoint name is
not mapped), n_classes not readable from the source, and under
parameter-server strategies what the Parameter servers item above lists.
"""
from __future__ import annotations

from ._added_metrics import convert as convert_added_metrics
from ._model import CODE, CODE_COLUMNS, CODE_TREES, LABEL_DIMENSION, CannedModel, Column, is_canned
from ._optimizers import WIDE_DEEP_OPTIMIZER
from ._plan import CannedPlan, model_plan
from ._reader import Reader
from ._render import render
from ._site import site

# what rules/program.py and the driver read of the canned estimators
__all__ = ["convert_added_metrics", "CODE", "CODE_COLUMNS", "CODE_TREES", "LABEL_DIMENSION", "WIDE_DEEP_OPTIMIZER", "CannedModel", "CannedPlan",
           "Column", "Reader", "is_canned", "model_plan", "render", "site"]
