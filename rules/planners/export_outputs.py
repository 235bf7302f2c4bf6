"""EstimatorSpec(export_outputs=...) (part of TFM501): the serving signatures an export writes.

In PREDICT mode the Estimator exported one signature per export_outputs key (TF 2.15 checked with saved_model_cli):
- `tf.estimator.export.PredictOutput(outputs)`: inputs are the receiver tensors by their keys ("examples" for a
  parsing receiver), outputs the dict's keys (a lone tensor is "output"); method tensorflow/serving/predict.
- `ClassificationOutput(scores=None, classes=None)`: input "inputs" (the receiver's lone string tensor), outputs
  "classes" (string) and/or "scores" (float); method tensorflow/serving/classify.
- `RegressionOutput(value)`: input "inputs", output "outputs" (float); method tensorflow/serving/regress.
A single key other than serving_default was exported under serving_default too; no "predict" signature is added
(canned heads add one, a model_fn does not). A classify/regress signature over a receiver that is not one string
tensor was left out of the export (logged, not raised; serving_default too when it was one: the SavedModel then
had no default signature, and the migrated one has none either); classes that are not strings, or scores/values
that are not floats, raised ValueError.

Converted: a dict literal (inline, or a name assigned one in PREDICT mode) with string-literal keys or
`tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY` (any spelling of signature_constants), whose values are those
three calls (inline or names assigned them), their tensors computed from the model output like `predictions`
(a PredictOutput of the predictions dict, or of `predictions["key"]`, included). The migrated model gets
`EXPORT_OUTPUTS = {key: method}` and `export_outputs(output)` → {key: outputs}; its export methods write one
signature per key with the Estimator's input names, output names and dtypes, leave out what the Estimator left out
and raise where it raised. What maps to what, per signature key (templates/export_methods.py.j2, shared by canned
heads' exports, rules/planners/heads.py):
    PredictOutput(outputs)                → tensorflow/serving/predict; inputs: the receiver tensors by key;
                                            outputs: the dict's keys ("output" for a lone tensor)
    ClassificationOutput(scores, classes) → tensorflow/serving/classify; inputs: "inputs", the lone string tensor;
                                            outputs: "classes" (string) and/or "scores" (float)
    RegressionOutput(value)               → tensorflow/serving/regress; inputs: "inputs", the lone string tensor;
                                            outputs: "outputs" (float)
tf.saved_model.save has no method_name argument and writes tensorflow/serving/predict for every signature, so the
generated `write_saved_model` (the one writer of every migrated export) saves into export_dir_base/temp-<timestamp>,
and `set_signature_methods` rewrites that saved_model.pb's SignatureDefs with tensorflow/serving/classify / regress
(and the fingerprint.pb that hashes it) before the directory is renamed to export_dir_base/<timestamp>, as the
Estimator renamed its temp- directory: a server polling the base never sees an unpatched export. The migrated
classify/regress signatures are then what TF Serving's Classify and Regress APIs accept (one DT_STRING input
"inputs"; classes DT_STRING / scores DT_FLOAT, or outputs DT_FLOAT: signature_def_utils.is_valid_signature holds,
checked by tests/fixtures_run/test_export_signatures.py with the Estimator's export).

Blocked, at the line, when the program exports or predicts (predict built the PREDICT-mode spec, which TF1
validated); otherwise dropped with a note (nothing reads them): export_outputs that is not a dict literal, keys that are not literals, values that are not
one of the three calls, several keys without serving_default (TF1 raised ValueError), tensors the model output
cannot give (labels, layers of the PREDICT branch).
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ..facts.calls import bind, code

CODE = "TFM501"
DEFAULT_KEY = "serving_default"
KINDS = {"estimator.export.PredictOutput": "predict", "estimator.export.ClassificationOutput": "classify",
         "estimator.export.RegressionOutput": "regress"}
_ARGS = {"predict": ["outputs"], "classify": ["scores", "classes"], "regress": ["value"]}


def is_export_output(path: str | None) -> bool:
    return path in KINDS


def signature_key(node, tf_path) -> str:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    path = tf_path(node) if isinstance(node, (cst.Attribute, cst.Name)) else None
    if path and path.startswith("saved_model.") and path.endswith(".DEFAULT_SERVING_SIGNATURE_DEF_KEY") \
            or path == "saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY":
        return DEFAULT_KEY
    raise Blocked(CODE, f"export_outputs key `{code(node)[:60]}` is not a string literal or "
                        "tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY", node)


def plan(table: cst.Dict, tf_path, resolve, to_output) -> tuple[dict[str, str], str]:
    """(key → method, code of the {key: outputs} dict). `resolve(node)` follows a name to what it was assigned in
    PREDICT mode (dicts and export output calls); `to_output(node, what)` writes a tensor in terms of the model output
    (or raises Blocked)."""
    methods: dict[str, str] = {}
    entries: list[str] = []
    for element in table.elements:
        if not isinstance(element, cst.DictElement):
            raise Blocked(CODE, "export_outputs with ** is not converted: write its keys out", table)
        key = signature_key(element.key, tf_path)
        if key in methods:
            raise Blocked(CODE, f"export_outputs names signature '{key}' twice", element.key)
        call = resolve(element.value)
        kind = KINDS.get(tf_path(call.func)) if isinstance(call, cst.Call) else None
        if kind is None:
            raise Blocked(CODE, f"export_outputs['{key}'] `{code(element.value)[:60]}` is not a PredictOutput, "
                                "ClassificationOutput or RegressionOutput call", element.value)
        args = bind(call, _ARGS[kind], kind, CODE)
        what = f"export_outputs['{key}']"
        if kind == "predict":
            if "outputs" not in args:
                raise Blocked(CODE, "PredictOutput() without outputs", call)
            outputs = resolve(args["outputs"])
            if isinstance(outputs, cst.Dict):
                items = []
                for item in outputs.elements:
                    if not (isinstance(item, cst.DictElement) and isinstance(item.key, cst.SimpleString)
                            and isinstance(item.key.evaluated_value, str)):
                        raise Blocked(CODE, f"{what}: PredictOutput keys must be string literals", outputs)
                    items.append(f"{item.key.value}: {to_output(item.value, what)}")
                text = "{" + ", ".join(items) + "}"
            else:
                text = "{" + f'"output": {to_output(outputs, what)}' + "}"
        elif kind == "classify":
            given = {name: args[name] for name in ("classes", "scores") if name in args
                     and not (isinstance(args[name], cst.Name) and args[name].value == "None")}
            if not given:
                raise Blocked(CODE, f"{what}: ClassificationOutput() without scores or classes (TF1 raised "
                                    "ValueError)", call)
            text = "{" + ", ".join(f'"{name}": {to_output(node, what)}' for name, node in given.items()) + "}"
        else:
            if "value" not in args:
                raise Blocked(CODE, "RegressionOutput() without value", call)
            text = "{" + f'"outputs": {to_output(args["value"], what)}' + "}"
        methods[key] = kind
        entries.append(f'"{key}": {text}')
    if not methods:
        raise Blocked(CODE, "export_outputs={} : the Estimator exported no signature", table)
    if len(methods) > 1 and DEFAULT_KEY not in methods:
        raise Blocked(CODE, "several export_outputs and none is serving_default: TF1 raised ValueError in PREDICT "
                            "mode; name one tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY", table)
    return methods, "{\n    " + ",\n    ".join(entries) + ",\n}"
