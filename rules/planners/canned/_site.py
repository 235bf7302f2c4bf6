"""A canned estimator call → a driver Site: its class and arguments, the network they describe (columns, head,
hidden units, optimizer), under parameter servers what TF1 partitioned, the target sparse columns need."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Binding, FileIndex

from .. import feature_columns as fcols
from .. import heads, partitioners
from ...emit.wrap import generated
from ...facts.calls import is_literal
from ._head_estimator import HEAD_ESTIMATORS, read as read_head_estimator
from ._model import CODE, CODE_COLUMNS, CODE_TREES, CannedModel
from ._reader import Reader
from ._tf1_meaning import file_evidence, note as tf1_note, optimizer_evidence


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


# ---- the Estimator site -------------------------------------------------------------------------------------------
def site(analysis, call: cst.Call, file: FileIndex, path: str) -> None:
    """A canned estimator call → a driver Site (registered on `analysis`), or Blocked."""
    from .. import strategy as strategies
    from ...facts.sites import Site, bind_values

    name = path.split(".")[-1]
    if name.startswith("BoostedTrees"):
        raise Blocked(CODE_TREES, f"tf.{path}: gradient boosted trees have no exact TF2 equivalent. TF Decision "
                                  "Forests (tfdf.keras.GradientBoostedTreesModel, the migration guide's substitute) "
                                  "grows different trees and its latest release pins tensorflow==2.19.0, so it does "
                                  "not install beside TF 2.21. Keep this job on TF 2.15, or retrain with ydf / TF "
                                  "Decision Forests and compare evaluation metrics, not losses", call)
    if name not in _CLASSES and name not in HEAD_ESTIMATORS:
        from ...facts.sites import CODE_KIND, kind_message

        raise Blocked(CODE_KIND, kind_message(path), call)
    program = analysis.program
    qualified = program.qualified(call.func, file) or ""
    v1 = ".compat.v1." in qualified or "._v1." in qualified
    # tf.estimator.<Canned> in a TF 1.x program is the v1 class (_tf1_meaning.py)
    tf1_public = not v1 and name in _CLASSES and qualified.startswith("tensorflow.estimator.")
    evidence = file_evidence(file) if tf1_public else None
    v1 = v1 or evidence is not None
    reader = Reader(analysis, call, file)
    if name in HEAD_ESTIMATORS:  # read as the canned class that builds the same head
        family, kind, args = read_head_estimator(analysis, name, v1, call, file, reader)
    else:
        family, kind = _CLASSES[name]
        args = bind_values(call, _SIGNATURES[(name, v1)], name, file, rule=CODE)
    # every argument's blockers are collected (each column's too), each at its own line; what depends on a blocked
    # value is not checked (its findings would follow from that blocker)
    errors: list[Blocked] = []

    def attempt(fn, *fn_args, default=None):
        try:
            return fn(*fn_args)
        except Blocked as blocked:
            errors.append(blocked)
            return default

    model = _network(name, v1, family, kind, args, reader, call, file, errors, attempt)
    if tf1_public and not v1:  # a TF 1.x optimizer given (through a variable, helper, other module): read again as v1
        evidence = optimizer_evidence(errors)
        if evidence is not None:
            v1, reader, errors[:] = True, Reader(analysis, call, file), []
            args = bind_values(call, _SIGNATURES[(name, v1)], name, file, rule=CODE)
            model = _network(name, v1, family, kind, args, reader, call, file, errors, attempt)
    if evidence is not None:
        model.notes.append(tf1_note(name, evidence, call))
    run_trail: list[Binding] = []
    run_config = analysis.run_config(args, call, file, run_trail, unconverted=errors)
    params = "{" + ", ".join(f'"{k}": {v}' for k, v in reader.params.items()) + "}"
    s = Site(call, file, model, call, params, None, run_config)
    s.consumed.extend(run_trail)
    s.removable.extend(reader.removable())
    analysis.strategy_or_default(s, errors)
    sparse = [c for c in (*model.dnn_columns, *model.linear_columns) if c.embedding is not None
              or (c.categorical is not None and not c.indicator and c in model.linear_columns)]
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


def _network(name: str, v1: bool, family: str, kind: str, args: dict, reader: Reader, call: cst.Call,
             file: FileIndex, errors: list, attempt) -> CannedModel:
    """The network a canned estimator's arguments describe: columns, head, hidden layers, optimizer. Each blocker
    goes to `errors` (`attempt` runs a reader collecting them); what depends on a blocked value is not checked."""
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
    return model


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
