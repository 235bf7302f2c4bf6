"""The model_fn's signature as the Estimator read it (which parameter is features, labels, mode, params,
config) and the name of the Keras model class made from it."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ._constants import CODE


def class_name_for(fn_name: str, taken: frozenset[str]) -> str:
    stem = fn_name[:-3] if fn_name.endswith("_fn") else fn_name
    words = [w for w in stem.split("_") if w]
    name = "".join(w[:1].upper() + w[1:] for w in words)
    if not name.lower().endswith("model"):
        name += "Model"
    while name in taken:
        name += "_"
    return name


MODEL_FN_ARGS = ("features", "labels", "mode", "params", "config")


def signature(fn: cst.FunctionDef) -> tuple[dict[str, str], Blocked | None]:
    """The model_fn's parameter for each of features, labels, mode[, params][, config] (what the Estimator passes →
    the parameter's name) and the Blocked its signature gets.

    TF 2.15's Estimator calls `model_fn(features=..., **kwargs)` with labels / mode / params / config each passed by
    name when the signature has it (`_call_model_fn`, reading `getfullargspec(model_fn).args`), so when every
    parameter has one of those names each is read by its name, in any order. A missing `labels` or `mode` is
    reported (the body is still walked with it added, so its own blockers are reported too); keyword-only ones are
    parameters the Estimator never passed."""
    p = fn.params
    given = [x.name.value for x in p.params]
    shape = "model_fn must take (features, labels, mode[, params[, config]])"
    if isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None or p.posonly_params:
        raise Blocked(CODE, shape, fn)
    if p.kwonly_params:
        kwonly = [x.name.value for x in p.kwonly_params]
        raise Blocked(CODE, f"model_fn takes {', '.join(f'`{n}`' for n in kwonly)} as keyword-only: the Estimator "
                            "passes only the parameters listed before the `*` (TF 2.15 reads them with "
                            "getfullargspec().args), so TF1 never passed "
                            + ("them" if len(kwonly) > 1 else "it") + " and raised TypeError (a keyword-only "
                            "parameter without a default) or ValueError (Estimator(params=...) for a model_fn "
                            "without a `params` argument); move them before the `*`", p.kwonly_params[0])
    if not set(given) <= set(MODEL_FN_ARGS):
        if not 3 <= len(given) <= 5:
            raise Blocked(CODE, shape, fn)
        # (read by position; TF1 rejected names other than these when given to an Estimator)
        return dict(zip(MODEL_FN_ARGS, given)), None
    missing = [n for n in ("features", "labels", "mode") if n not in given]
    if "features" in missing:
        raise Blocked(CODE, f"model_fn({', '.join(given)}) takes no `features`: TF1 raised ValueError (\"model_fn "
                            "must include features argument\"); add it", fn)
    blocked = None
    if missing:
        blocked = Blocked(CODE, f"model_fn({', '.join(given)}) takes no "
                          + " and no ".join(f"`{n}`" for n in missing) + ": the conversion reads "
                          + ("the mode's branches from tests on `mode`" if missing == ["mode"] else
                             "the loss's labels from `labels`" if missing == ["labels"] else
                             "the labels from `labels` and the mode's branches from tests on `mode`")
                          + f", add {' and '.join(f'`{n}`' for n in missing)} (any position: the Estimator passes "
                          "each by name)"
                          + (" (without `labels`, the Estimator raised ValueError for an input_fn that returns "
                             "labels; with one that does not, labels is None)" if "labels" in missing else ""),
                          fn)
    return {n: n for n in MODEL_FN_ARGS if n in given or n in missing}, blocked


def params_not_taken(fn: cst.FunctionDef, params: cst.CSTNode) -> list[Blocked]:
    """Estimator(params=...) (not None) for a model_fn that has no `params` among the parameters the Estimator reads
    (before any `*`): TF 2.15's _verify_model_fn_args raised ValueError when the Estimator was built."""
    if "params" in (x.name.value for x in fn.params.params):
        return []
    return [Blocked(CODE, f"Estimator(params=...) for model_fn `{fn.name.value}`, which takes no `params`: TF 2.15 "
                          "raises \"ValueError: model_fn (...) does not include params argument, but params (...) is "
                          "passed to Estimator\", so the original never trained; add `params` to the model_fn (any "
                          "position: the Estimator passes it by name) or drop params=", params)]


def params_name(fn: cst.FunctionDef) -> str | None:
    """The model_fn's parameter the Estimator passes its params dict to (None: it takes none)."""
    given = [x.name.value for x in fn.params.params]
    if set(given) <= set(MODEL_FN_ARGS):
        return "params" if "params" in given else None
    return given[3] if len(given) > 3 else None
