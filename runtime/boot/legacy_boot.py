"""Boot an unmodified TF1 Estimator program under capture (runs in the *legacy* env, TF 2.15).

Usage: python legacy_boot.py PROGRAM [ARGS...]

Environment:
  TFMIGRATE_MODEL_DIR    every Estimator's model_dir is redirected here (user's dir is never written)
  TFMIGRATE_CAPTURE_DIR  per-step records go to <dir>/<task_type><task_index>.jsonl
  TFMIGRATE_INIT_ONLY    "1": exit (code 0) right before the first training step, once model.ckpt-0 exists
                         (verify's canonical initial checkpoint for async PS)
  TFMIGRATE_WARM_START   checkpoint prefix: every Estimator warm-starts all trainable variables from it
                         (optimizer slots keep their constant initializers); the chief checks the result
  TFMIGRATE_READY_POLL_SECS  seconds between a TF1 worker's "is the model ready" checks (TF default 30);
                         timing only, it never changes what is computed

Each TRAIN EstimatorSpec gets one more SessionRunHook that appends per session.run:
  {"i": step counter of this task, "gs": global step, "loss": float (repr of float32 -> exact),
   "batch": leading dim of labels, "t": wall clock}
Estimator.evaluate's result dicts go to <task>.eval (boot/evaluations_capture.py).
This file must not import tfmigrate: it runs by path in a venv that does not have it.
"""
import json
import os
import runpy
import sys
import time


def _task_name():
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        return "chief0"
    task = json.loads(raw).get("task", {})
    return "%s%d" % (task.get("type", "chief"), int(task.get("index", 0)))


def _write_meta(path, **fields):
    """Merge fields into the task's meta json (the boot's notes for verify)."""
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        doc = {}
    doc.update(fields)
    with open(path + ".tmp", "w") as fh:
        json.dump(doc, fh)
    os.replace(path + ".tmp", path)


def _check_warm_start(tf, session, prefix):
    """Compare the session's trainable variables with the checkpoint they were warm-started from.

    Partitioned variables (embeddings/part_0, part_1) are one full tensor in a checkpoint: compare slices.
    """
    import numpy as np

    reader = tf.compat.v1.train.load_checkpoint(prefix)
    gs = tf.compat.v1.train.get_global_step()
    vs = tf.compat.v1.trainable_variables()
    values, step = session.run([vs, gs] if gs is not None else [vs, tf.constant(-1)])
    checked, bad = 0, []
    for v, val in zip(vs, values):
        info = getattr(v, "_save_slice_info", None)
        name = info.full_name if info else v.op.name
        if not reader.has_tensor(name):
            bad.append(name + " (not in checkpoint)")
            continue
        want = reader.get_tensor(name)
        if info:
            want = want[tuple(slice(o, o + n) for o, n in zip(info.var_offset, info.var_shape))]
        checked += 1
        if want.shape != val.shape or not np.array_equal(want, val):
            bad.append(v.op.name)
    return {"checkpoint": prefix, "global_step": int(step), "checked": checked, "mismatched": bad}


def _install():
    import tensorflow as tf
    from tensorflow_estimator.python.estimator import estimator as est_mod
    from tensorflow_estimator.python.estimator import model_fn as model_fn_lib
    from tensorflow_estimator.python.estimator import util as est_util

    model_dir = os.environ["TFMIGRATE_MODEL_DIR"]
    capture_dir = os.environ["TFMIGRATE_CAPTURE_DIR"]
    os.makedirs(capture_dir, exist_ok=True)
    task = _task_name()
    out_path = os.path.join(capture_dir, task + ".jsonl")
    meta_path = os.path.join(capture_dir, task + ".meta.json")
    init_only = os.environ.get("TFMIGRATE_INIT_ONLY") == "1"
    warm_start = os.environ.get("TFMIGRATE_WARM_START")
    poll = os.environ.get("TFMIGRATE_READY_POLL_SECS")
    if poll:
        _shorten_ready_poll(float(poll))
        _write_meta(meta_path, ready_poll_secs=float(poll))

    class _CaptureHook(tf.compat.v1.train.SessionRunHook):
        def __init__(self, loss, batch):
            self._loss = loss
            self._batch = batch
            self._i = 0
            self._fh = None

        def begin(self):
            self._gs = tf.compat.v1.train.get_global_step()
            # init-only: a saver of our own in case the program saves no checkpoint at step 0
            self._saver = tf.compat.v1.train.Saver() if init_only else None

        def after_create_session(self, session, coord):
            if warm_start and task.startswith("chief"):
                _write_meta(meta_path, warm_start=_check_warm_start(tf, session, warm_start))
            self._fh = open(out_path, "a", buffering=1)

        def before_run(self, run_context):
            if init_only:
                if not os.path.exists(os.path.join(model_dir, "model.ckpt-0.index")):
                    self._saver.save(run_context.session, os.path.join(model_dir, "model.ckpt"), global_step=0)
                _exit_after_ckpt0(model_dir)
            fetches = {"loss": self._loss, "batch": self._batch}
            if self._gs is not None:
                fetches["gs"] = self._gs
            return tf.compat.v1.train.SessionRunArgs(fetches)

        def after_run(self, run_context, run_values):
            r = run_values.results
            rec = {
                "i": self._i,
                "gs": int(r["gs"]) if "gs" in r else None,
                "loss": float(r["loss"]),  # float32 -> float64 is exact; json keeps it exact
                "batch": int(r["batch"]),
                "t": time.time(),
            }
            self._fh.write(json.dumps(rec) + "\n")
            self._i += 1

        def end(self, session):
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def _batch_tensor(features, labels):
        src = labels
        if src is None or isinstance(src, dict):
            src = features if not isinstance(features, dict) else next(iter(features.values()))
        if isinstance(src, dict):
            src = next(iter(src.values()))
        return tf.shape(src, out_type=tf.int64)[0]

    def _wrap_model_fn(model_fn):
        accepted = set(est_util.fn_args(model_fn))

        def model_fn_with_capture(features, labels, mode, params, config):
            kwargs = {"features": features}
            if "labels" in accepted:
                kwargs["labels"] = labels
            if "mode" in accepted:
                kwargs["mode"] = mode
            if "params" in accepted:
                kwargs["params"] = params
            if "config" in accepted:
                kwargs["config"] = config
            spec = model_fn(**kwargs)
            # (an Estimator over another's model_fn, tf.estimator.add_metrics': the inner one captured already)
            if mode == tf.estimator.ModeKeys.TRAIN and isinstance(spec, model_fn_lib.EstimatorSpec) \
                    and not any(isinstance(h, _CaptureHook) for h in spec.training_hooks or ()):
                hook = _CaptureHook(spec.loss, _batch_tensor(features, labels))
                spec = spec._replace(training_hooks=tuple(spec.training_hooks or ()) + (hook,))
            return spec

        return model_fn_with_capture

    orig_init = est_mod.Estimator.__init__

    def patched_init(self, model_fn, model_dir_arg=None, config=None, *args, **kwargs):
        model_dir_arg = kwargs.pop("model_dir", model_dir_arg)
        if config is not None and getattr(config, "model_dir", None) not in (None, model_dir):
            config = config.replace(model_dir=model_dir)
        if config is not None and getattr(config, "keep_checkpoint_max", None):
            # keep every checkpoint: model.ckpt-0 holds the initial weights verify hands to the migrated side
            config = config.replace(keep_checkpoint_max=None)
        if warm_start:
            # all trainable variables; optimizer slots keep their constant initializers on both sides
            ws = tf.estimator.WarmStartSettings(ckpt_to_initialize_from=warm_start, vars_to_warm_start=".*")
            if len(args) >= 2:  # (params, warm_start_from) passed positionally
                args = (args[0], ws) + tuple(args[2:])
            else:
                kwargs["warm_start_from"] = ws
        _write_meta(meta_path, model_dir=model_dir, user_model_dir=model_dir_arg, task=task)
        orig_init(self, _wrap_model_fn(model_fn), model_dir, config, *args, **kwargs)

    est_mod.Estimator.__init__ = patched_init
    from predictions_capture import recording  # this boot script's own directory

    est_mod.Estimator.predict = recording(est_mod.Estimator.predict, capture_dir, task)
    import evaluations_capture  # every evaluate() result dict (train_and_evaluate's evaluations call it too)

    est_mod.Estimator.evaluate = evaluations_capture.recording(est_mod.Estimator.evaluate, capture_dir, task)


def _exit_after_ckpt0(model_dir):
    """Init-only run: model.ckpt-0 exists (the Estimator's saver or ours); stop before any update."""
    ok = os.path.exists(os.path.join(model_dir, "model.ckpt-0.index"))
    if not ok:
        sys.stderr.write("tfmigrate: init-only run reached the first step without model.ckpt-0 in %s\n" % model_dir)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0 if ok else 3)  # no clean shutdown needed: the checkpoint files are closed


def _shorten_ready_poll(secs):
    """TF1 workers re-check "is the model initialized" every recovery_wait_secs (30 s by default)."""
    from tensorflow.python.training import session_manager as sm

    orig = sm.SessionManager.__init__

    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        self._recovery_wait_secs = min(self._recovery_wait_secs, secs)

    sm.SessionManager.__init__ = __init__


def _tf1_names():
    """Two TF 1.x names TF 2.15 lacks, as TF 1.15 had them, so a TF 1.x program using them runs here:
    tf.contrib.learn.ModeKeys (TF 1.15: TRAIN = 'train', EVAL = 'eval', INFER = 'infer'), and the program's own
    imports of tensorflow.python.keras.X, which in TF 1.x were tf.keras.X (TF 2.15 keeps an older private Keras
    there, whose models cannot go through model_to_estimator). TF's own modules import what they always did."""
    import builtins
    import importlib
    import types

    import tensorflow as tf

    if not hasattr(tf, "contrib"):
        contrib, learn = types.ModuleType("tensorflow.contrib"), types.ModuleType("tensorflow.contrib.learn")
        learn.ModeKeys = type("ModeKeys", (), {"TRAIN": "train", "EVAL": "eval", "INFER": "infer"})
        contrib.learn = learn
        tf.contrib = contrib
        sys.modules.setdefault("tensorflow.contrib", contrib)
        sys.modules.setdefault("tensorflow.contrib.learn", learn)
    private, public, libraries = "tensorflow.python.keras", tf.keras.__name__, ("tensorflow", "keras", "absl")
    original = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        caller = (globals or {}).get("__name__") or ""
        if level == 0 and fromlist and (name == private or name.startswith(private + ".")) \
                and caller.split(".")[0] not in libraries and not caller.startswith("tensorflow_"):
            return importlib.import_module(public + name[len(private):])
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = __import__


def _written_for_tf1(program):
    """Whether the program (its file and the .py files beside it) names, through `import tensorflow [as X]`,
    something TF 2.15's tensorflow lacks and its tf.compat.v1 has (`tf.train.AdamOptimizer`, `tf.logging`): then it
    was written for TF 1.x, whose `tensorflow` was that API."""
    import ast

    import tensorflow as tf

    def has(module, parts):
        for part in parts:
            try:
                module = getattr(module, part)
            except AttributeError:
                return False
        return True

    folder = os.path.dirname(program)
    files = [program] + sorted(os.path.join(folder, f) for f in os.listdir(folder)
                               if f.endswith(".py") and os.path.join(folder, f) != program)
    for path in files:
        try:
            with open(path) as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            continue
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                   for a in n.names if a.name == "tensorflow"}
        for node in ast.walk(tree):
            parts = []
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            if parts and isinstance(node, ast.Name) and node.id in aliases:
                parts.reverse()
                if not has(tf, parts) and has(tf.compat.v1, parts):
                    return True
    return False


def _tf1_namespace():
    """The program's own `import tensorflow` gives TF 1.x's API as TF 2.15 keeps it (tf.compat.v1): there
    `tf.estimator.DNNClassifier` is the v1 canned class and `tf.train.AdamOptimizer` exists, as on TF 1.x.
    TF's own modules import what they always did."""
    import builtins

    import tensorflow as tf

    v1, libraries = tf.compat.v1, ("tensorflow", "keras", "absl")
    original = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        caller = (globals or {}).get("__name__") or ""
        if level == 0 and name == "tensorflow" and caller.split(".")[0] not in libraries \
                and not caller.startswith("tensorflow_"):
            original(name, globals, locals, fromlist, level)  # (imported as usual first)
            return v1
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = __import__


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: legacy_boot.py PROGRAM [ARGS...]\n")
        return 2
    program = os.path.abspath(sys.argv[1])
    _install()
    _tf1_names()
    if _written_for_tf1(program):
        sys.stderr.write("tfmigrate: %s names TF 1.x-only names through `import tensorflow`: it runs with TF 1.x's "
                         "API as TF 2.15 keeps it (tf.compat.v1)\n" % program)
        _tf1_namespace()
    sys.argv = [program] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
