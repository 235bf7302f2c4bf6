"""Estimators over a head (`tf.estimator.DNNEstimator(head=tf.estimator.MultiClassHead(3), ...)`, LinearEstimator,
DNNLinearCombinedEstimator) read as the canned classifier or regressor that builds the same head.

tensorflow_estimator 2.15: DNNClassifierV2 builds `head_utils.binary_or_multi_class_head(n_classes, weight_column,
label_vocabulary, loss_reduction)` (BinaryClassHead for 2, else MultiClassHead) and DNNRegressorV2
`RegressionHead(label_dimension, weight_column, loss_reduction)`, then call the same dnn_model_fn_v2 /
_linear_model_fn_v2 / _dnn_linear_combined_model_fn_v2 as the *EstimatorV2 classes with the other arguments
unchanged. So a head given those arguments only (name, thresholds, loss_fn, inverse_link_fn left None) trains,
evaluates, predicts and exports as that classifier or regressor, and its arguments are read as theirs."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, code

from ...facts.calls import is_literal
from ._model import CODE


# each *EstimatorV2's positional order (tensorflow_estimator 2.15) and the family its canned classes share
_SIGNATURES = {
    "DNNEstimator": ("dnn", ["head", "hidden_units", "feature_columns", "model_dir", "optimizer", "activation_fn",
                             "dropout", "config", "warm_start_from", "batch_norm"]),
    "LinearEstimator": ("linear", ["head", "feature_columns", "model_dir", "optimizer", "config", "sparse_combiner",
                                   "warm_start_from"]),
    "DNNLinearCombinedEstimator": ("combined", ["head", "model_dir", "linear_feature_columns", "linear_optimizer",
                                                "dnn_feature_columns", "dnn_optimizer", "dnn_hidden_units",
                                                "dnn_activation_fn", "dnn_dropout", "config", "batch_norm",
                                                "linear_sparse_combiner"]),
}
HEAD_ESTIMATORS = tuple(_SIGNATURES)


_HEADS = {  # head → (canned kind, its positional order)
    "BinaryClassHead": ("classifier", ["weight_column", "thresholds", "label_vocabulary", "loss_reduction", "loss_fn",
                                       "name"]),
    "MultiClassHead": ("classifier", ["n_classes", "weight_column", "label_vocabulary", "loss_reduction", "loss_fn",
                                      "name"]),
    "RegressionHead": ("regressor", ["label_dimension", "weight_column", "loss_reduction", "loss_fn",
                                     "inverse_link_fn", "name"]),
}


# head arguments the canned classes never set, with what each changes
_UNMAPPED = {
    "loss_fn": "a custom loss replaces the head's own",
    "inverse_link_fn": "it changes the predictions the head returns",
    "thresholds": "it adds accuracy/precision/recall metrics at those thresholds to evaluate()",
    "name": "it renames evaluate()'s metric keys and the export signatures (`<key>/<name>`)",
}


_OTHER_HEADS = {  # heads no canned class builds: why
    "MultiLabelHead": "a sigmoid per class (several labels per example); no canned classifier builds it",
    "MultiHead": "several heads over one network; no canned estimator builds it",
    "PoissonRegressionHead": "a Poisson loss; no canned regressor builds it",
    "LogisticRegressionHead": "a logistic loss on a regression target; no canned regressor builds it",
}


def read(analysis, name: str, v1: bool, call: cst.Call, file: FileIndex, reader) -> tuple[str, str, dict]:
    """(family, kind, arguments) of the canned class a head estimator call equals: its own arguments plus the head's
    (n_classes / label_dimension, weight_column, label_vocabulary, loss_reduction). Blocked where that is not exact."""
    from ...facts.sites import bind_values

    tf_name = f"tf.{'compat.v1.' if v1 else ''}estimator.{name}"
    if v1:
        # (_dnn_model_fn & co. with the head given: v1 optimizers and partitioners around it; the v1 canned classes
        # build v1 heads, SUM by default, so no canned class pairs the two)
        raise Blocked(CODE, f"{tf_name} is not converted yet: the v1 class runs TF1's v1 model_fn (tf.compat.v1.train "
                            "optimizers at the v1 default rates, v1 partitioners) around the head it is given, and no "
                            "canned class pairs that with a tf.estimator head (the v1 canned classes build a v1 head, "
                            f"loss reduction SUM by default); use tf.estimator.{name} (v2), or the "
                            "tf.compat.v1.estimator.DNNClassifier / LinearClassifier / DNNLinearCombinedClassifier (or "
                            "the Regressor) given the head's arguments", call)
    family, signature = _SIGNATURES[name]
    args = bind_values(call, signature, name, file, rule=CODE)
    if "head" not in args:
        raise Blocked(CODE, f"{tf_name} needs head", call)
    given = args.pop("head")
    r = reader.resolve(given, f"{name}'s head", CODE)
    node = r.node
    path = analysis.tf(node, r.value.file) if isinstance(node, cst.Call) else None
    word = (path or "").rpartition(".")[2] if (path or "").startswith("estimator.") else None
    if word in _OTHER_HEADS:
        raise Blocked(CODE, f"{tf_name}(head=tf.{path}(...)) is not converted: {_OTHER_HEADS[word]}; write a model_fn "
                            "whose loss and metrics are that head's", given.node)
    if word not in _HEADS:
        raise Blocked(CODE, f"{tf_name}(head=`{code(given.node)[:60]}`): tfmigrate converts a head estimator only "
                            "over a tf.estimator.BinaryClassHead, MultiClassHead or RegressionHead it can read "
                            "where it is built (a call, or a name assigned one once); build the head there, or use "
                            "the canned classifier / regressor given the head's arguments", given.node)
    kind, head_signature = _HEADS[word]
    head_args = bind_values(node, head_signature, word, r.value.file, r.value.env, rule=CODE)
    errors = [Blocked(CODE, f"tf.{path}({key}=...) in {tf_name} is not converted: {why}, and no canned {kind} sets "
                            "it; drop the argument or write a model_fn", head_args[key].node)
              for key, why in _UNMAPPED.items() if key in head_args and not is_literal(head_args[key].node, None)]
    if errors:
        raise Blocked.many(errors)
    if word == "MultiClassHead":
        if "n_classes" not in head_args:
            raise Blocked(CODE, f"tf.{path} needs n_classes", node)
        n_classes = reader.integer(head_args["n_classes"], 3, "n_classes")
        if n_classes <= 2:  # (a canned classifier with 2 classes builds a BinaryClassHead: one logit, not two)
            raise Blocked(CODE, f"tf.{path}(n_classes={n_classes}): TF 2.15 raises \"ValueError: n_classes must be > "
                                f"2\", so the original never trained; use tf.estimator.BinaryClassHead for 2 classes",
                          head_args["n_classes"].node)
    overlap = sorted(set(head_args) & set(args))
    assert not overlap, overlap  # (the estimators' signatures hold no head argument)
    return family, kind, {**args, **head_args}

