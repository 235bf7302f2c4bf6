"""export_parsing, export_parsing_best, export_receiver, export_outputs, export_raw, canned_export*,
serving_functions_dict: the original's Estimator
SavedModels and the migrated program's SavedModels have the same serving signatures (keys, input and output names,
dtypes, shapes), the same SignatureDef method names (predict / classify / regress, valid for TF Serving's APIs) and,
from the same initial weights (verify's boot scripts), every signature returns the same outputs, loaded with
tf.saved_model.load and, for classify / regress, run in a TF1 session as TF Serving runs them.

Marked `tfenv` and `equivalence`: runs both programs (TF 2.15 + Estimator, TF 2.21) and loads both exports in TF 2.21.
"""
from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from tfmigrate.runtime import capture, envs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# Loads both SavedModels; prints JSON: each side's signatures (input/output names, dtypes, shapes, method names,
# SignatureDef TensorInfos) and every signature's outputs on the same serialized tf.Example protos.
COMPARE = textwrap.dedent('''
    import json, sys
    import numpy as np
    import tensorflow as tf

    def example(size, age):
        feature = {name: tf.train.Feature(float_list=tf.train.FloatList(value=[value]))
                   for name, value in (("size", size), ("age", age))}
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    rng = np.random.RandomState(5)
    # serialized tf.Example protos for a string input, raw measurements (one float per example) otherwise
    examples = tf.constant([example(float(a), float(b)) for a, b in rng.uniform(0, 1, size=(16, 2))])
    raw = {"height": tf.constant(rng.uniform(140, 200, size=16), tf.float32),
           "weight": tf.constant(rng.uniform(40, 120, size=16), tf.float32)}
    from tensorflow.core.protobuf import saved_model_pb2

    report = {}
    for side, path in (("original", sys.argv[1]), ("migrated", sys.argv[2])):
        proto = saved_model_pb2.SavedModel()
        with open(path + "/saved_model.pb", "rb") as f:
            proto.ParseFromString(f.read())
        methods = {k: v.method_name for k, v in proto.meta_graphs[0].signature_def.items() if v.method_name}
        # what TF Serving's Classify / Regress / Predict APIs accept: the method's input and output names and dtypes
        defs = {k: v for k, v in proto.meta_graphs[0].signature_def.items() if k != "__saved_model_init_op"}
        servable = {k: tf.compat.v1.saved_model.is_valid_signature(v) for k, v in defs.items()}
        # the SignatureDefs' TensorInfos as TF Serving reads them: names, dtypes, shapes (-1: any size)
        tensor_infos = {k: {part: {n: [t.dtype, [d.size for d in t.tensor_shape.dim]] for n, t in infos.items()}
                            for part, infos in (("inputs", v.inputs), ("outputs", v.outputs))}
                        for k, v in defs.items()}
        # fingerprint.pb hashes the SignatureDefs: the one written must be of the saved_model.pb beside it
        from tensorflow.python.saved_model import fingerprinting_utils
        fresh_fingerprint = (fingerprinting_utils.singleprint_from_fingerprint_proto(path)
                             == fingerprinting_utils.singleprint_from_saved_model_proto(path)
                             if tf.io.gfile.exists(path + "/fingerprint.pb") else None)
        loaded = tf.saved_model.load(path)
        signatures, outputs = {}, {}
        for key, fn in loaded.signatures.items():
            specs = fn.structured_input_signature[1]
            signatures[key] = {
                "inputs": {k: [v.dtype.name, v.shape.as_list()] for k, v in sorted(specs.items())},
                "outputs": {k: [v.dtype.name, v.shape.as_list()] for k, v in sorted(fn.structured_outputs.items())},
            }
            inputs = {k: examples if v.dtype == tf.string else tf.reshape(raw[k], [-1] + [1] * (v.shape.rank - 1))
                      for k, v in specs.items()}
            outputs[key] = {k: (v.numpy().astype(str).ravel().tolist() if v.dtype == tf.string
                                else v.numpy().astype("float64").ravel().tolist()) for k, v in fn(**inputs).items()}
        # as TF Serving's Classify / Regress APIs run a classify / regress signature: a TF1 session over the
        # SavedModel, serialized tf.Example protos fed to the lone "inputs" TensorInfo, the outputs fetched by name
        served = {}
        with tf.compat.v1.Session(graph=tf.Graph()) as session:
            meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], path)
            for key, signature in meta_graph.signature_def.items():
                if signature.method_name in ("tensorflow/serving/classify", "tensorflow/serving/regress"):
                    fetched = session.run({k: v.name for k, v in signature.outputs.items()},
                                          {signature.inputs["inputs"].name: examples.numpy()})
                    served[key] = {k: (v.astype(str).ravel().tolist() if v.dtype == object
                                       else v.astype("float64").ravel().tolist()) for k, v in fetched.items()}
        report[side] = {"signatures": signatures, "outputs": outputs, "methods": methods, "servable": servable,
                        "tensor_infos": tensor_infos, "fresh_fingerprint": fresh_fingerprint, "served": served}
    print(json.dumps(report))
''')


def _run(env: str, boot: Path, program: Path, work: Path, extra: dict) -> None:
    python = envs.ensure(env)
    environ = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "",
               "TFMIGRATE_CAPTURE_DIR": str(work / "capture"), "TFMIGRATE_MODEL_DIR": str(work / "model"), **extra}
    environ.pop("TF_CONFIG", None)
    # model_dir is the program's default: both boots move it (and the exporter's model_dir/export/...) under work/model
    result = subprocess.run([str(python), str(boot), str(program), "--steps", "20", "--export_dir", str(work / "export")],
                            cwd=work, env=environ, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


# per fixture: the exporter's name, and each signature the Estimator exported: its inputs and output keys
CASES = {
    "export_parsing": ("final", {"serving_default": ({"examples": ["string", [None]]}, ["rounded", "value"])}),
    # export_parsing_best: a BestExporter (its first export, unconditional, after the only evaluation) and
    # export_saved_model over one parsing receiver; the model_fn's predictions as the lone default signature
    "export_parsing_best": ("best", {"serving_default": ({"examples": ["string", [None]]}, ["positive", "probability"])}),
    "export_receiver": ("serving", {"serving_default": ({"height": ["float32", [None]], "weight": ["float32", [None]]},
                                                        ["class", "probabilities"])}),
    # export_outputs: ClassificationOutput as the default, PredictOutput and RegressionOutput (TF 2.15's export,
    # saved_model_cli checked: classify/regress take the lone string tensor as "inputs"; no extra "predict")
    "export_outputs": ("final", {"serving_default": ({"inputs": ["string", [None]]}, ["classes", "scores"]),
                                 "predict": ({"examples": ["string", [None]]}, ["class_ids", "probabilities"]),
                                 "confidence": ({"inputs": ["string", [None]]}, ["outputs"])}),
    # canned_export: a canned DNNClassifier's head (TF 2.15's multi_class_head): serving_default and
    # "classification" classify ("classes": the label vocabulary per example, "scores": probabilities), "predict"
    # returns every PREDICT key
    "canned_export": ("final", {
        **{key: ({"inputs": ["string", [None]]}, ["classes", "scores"])
           for key in ("serving_default", "classification")},
        "predict": ({"examples": ["string", [None]]},
                    ["all_class_ids", "all_classes", "class_ids", "classes", "logits", "probabilities"])}),
    # canned_export_binary: the binary head (a v2 LinearClassifier with a label vocabulary) adds "regression", the
    # logistic as "outputs"
    "canned_export_binary": ("final", {
        **{key: ({"inputs": ["string", [None]]}, ["classes", "scores"])
           for key in ("serving_default", "classification")},
        "regression": ({"inputs": ["string", [None]]}, ["outputs"]),
        "predict": ({"examples": ["string", [None]]},
                    ["all_class_ids", "all_classes", "class_ids", "classes", "logistic", "logits", "probabilities"])}),
    # canned_export_regressor: v1 canned/head.py's regression head: serving_default and "regression" regress
    "canned_export_regressor": ("final", {
        **{key: ({"inputs": ["string", [None]]}, ["outputs"]) for key in ("serving_default", "regression")},
        "predict": ({"examples": ["string", [None]]}, ["predictions"])}),
    # canned_export_raw: a raw receiver; the regression head's default and "regression" signatures take one string
    # tensor, so the Estimator wrote "predict" only, and no serving_default
    "canned_export_raw": ("final", {"predict": ({"height": ["float32", [None, 1]], "weight": ["float32", [None, 1]]},
                                                ["predictions"])}),
    # serving_functions_dict: SERVING_FUNCTIONS[args.export_format] at its default, "JSON" (float placeholders): a
    # receiver that is not one string tensor, so the binary head's "predict" alone
    "serving_functions_dict": ("census", {"predict": ({"height": ["float32", [None]], "weight": ["float32", [None]]},
                                                      ["all_class_ids", "all_classes", "class_ids", "classes",
                                                       "logistic", "logits", "probabilities"])}),
    # export_raw: build_raw_serving_input_receiver_fn({name: tf.zeros([1, 1])}); a lone export output "predict",
    # which the Estimator exported as serving_default too
    "export_raw": ("best", {key: ({"height": ["float32", [None, 1]], "weight": ["float32", [None, 1]]}, ["risk"])
                             for key in ("serving_default", "predict")}),
}

# the Estimator's SignatureDef method names other than predict
METHODS = {("export_outputs", "serving_default"): "classify", ("export_outputs", "confidence"): "regress",
           ("canned_export", "serving_default"): "classify", ("canned_export", "classification"): "classify",
           ("canned_export_binary", "serving_default"): "classify",
           ("canned_export_binary", "classification"): "classify", ("canned_export_binary", "regression"): "regress",
           ("canned_export_regressor", "serving_default"): "regress",
           ("canned_export_regressor", "regression"): "regress"}


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.parametrize("case", sorted(CASES))
def test_exported_signatures_and_outputs_match(tmp_path, case):
    fixture = FIXTURES / case
    original, migrated = tmp_path / "original", tmp_path / "migrated"
    original.mkdir()
    migrated.mkdir()
    _run("legacy", capture.LEGACY_BOOT, fixture / "original.py", original, {})
    ckpt0 = capture.find_ckpt0(original / "model")
    assert ckpt0 is not None
    _run("target", capture.TARGET_BOOT, fixture / "migrated.py", migrated, {"TFMIGRATE_INIT_CKPT": str(ckpt0)})
    # export_saved_model(export_dir) and the EvalSpec's exporter (model_dir/export/<name>)
    exporter = CASES[case][0]
    [final_a] = list(original.glob(f"model/export/{exporter}"))
    [final_b] = list(migrated.glob(f"model/**/export/{exporter}"))
    for base_a, base_b in ((original / "export", migrated / "export"), (final_a, final_b)):
        [a] = list(base_a.iterdir())
        [b] = list(base_b.iterdir())
        assert a.name.isdigit() and b.name.isdigit()  # <base>/<timestamp>, as the Estimator wrote it
        _compare(a, b, case)


def _compare(a: Path, b: Path, case: str) -> None:
    result = subprocess.run([str(envs.ensure("target")), "-c", COMPARE, str(a), str(b), case], capture_output=True,
                            text=True, timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    sig_a, sig_b = report["original"]["signatures"], report["migrated"]["signatures"]
    assert sig_a == sig_b
    expected = CASES[case][1]
    assert sorted(sig_a) == sorted(expected)
    for key, (inputs, outputs) in expected.items():
        assert sig_a[key]["inputs"] == inputs
        assert sorted(sig_a[key]["outputs"]) == outputs
    # SignatureDef method names: tf.saved_model.save writes tensorflow/serving/predict for every signature; the
    # migrated export rewrites saved_model.pb with the Estimator's classify / regress, so TF Serving's Classify and
    # Regress APIs serve the same signatures
    methods_a, methods_b = report["original"]["methods"], report["migrated"]["methods"]
    assert methods_a == {key: f"tensorflow/serving/{METHODS.get((case, key), 'predict')}" for key in expected}
    assert methods_b == methods_a
    assert report["original"]["servable"] == report["migrated"]["servable"] == {key: True for key in expected}
    assert report["original"]["tensor_infos"] == report["migrated"]["tensor_infos"]
    assert report["migrated"]["fresh_fingerprint"] is True
    out_a, out_b = report["original"]["outputs"], report["migrated"]["outputs"]
    assert sorted(out_a) == sorted(out_b) == sorted(expected)
    _same_outputs(out_a, out_b)
    # the classify / regress signatures run as TF Serving runs them (a TF1 session over the SignatureDef's tensors)
    served_a, served_b = report["original"]["served"], report["migrated"]["served"]
    assert sorted(served_a) == sorted(served_b) == sorted(key for (name, key) in METHODS if name == case)
    _same_outputs(served_a, served_b)


def _same_outputs(out_a: dict, out_b: dict) -> None:
    for signature in out_a:
        assert sorted(out_a[signature]) == sorted(out_b[signature])
        for key, values in out_a[signature].items():
            for x, y in zip(values, out_b[signature][key], strict=True):
                if isinstance(x, str):
                    assert x == y, (signature, key, x, y)
                else:  # the same tolerance as verify's stepwise loss comparison
                    assert abs(x - y) <= 1e-6 + 1e-5 * abs(x), (signature, key, x, y)
