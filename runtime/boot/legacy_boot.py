"""Boot an unmodified TF1 Estimator program under capture (runs in the *legacy* env, TF 2.15).

Usage: python legacy_boot.py PROGRAM [ARGS...]

Environment:
  TFMIGRATE_MODEL_DIR    every Estimator's model_dir is redirected here (user's dir is never written)
  TFMIGRATE_CAPTURE_DIR  per-step records go to <dir>/<task_type><task_index>.jsonl

Each TRAIN EstimatorSpec gets one more SessionRunHook that appends per session.run:
  {"i": step counter of this task, "gs": global step, "loss": float (repr of float32 -> exact),
   "batch": leading dim of labels, "t": wall clock}
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

    class _CaptureHook(tf.compat.v1.train.SessionRunHook):
        def __init__(self, loss, batch):
            self._loss = loss
            self._batch = batch
            self._i = 0
            self._fh = None

        def begin(self):
            self._gs = tf.compat.v1.train.get_global_step()

        def after_create_session(self, session, coord):
            self._fh = open(out_path, "a", buffering=1)

        def before_run(self, run_context):
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
            if mode == tf.estimator.ModeKeys.TRAIN and isinstance(spec, model_fn_lib.EstimatorSpec):
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
        with open(meta_path, "w") as fh:
            json.dump({"model_dir": model_dir, "user_model_dir": model_dir_arg, "task": task}, fh)
        orig_init(self, _wrap_model_fn(model_fn), model_dir, config, *args, **kwargs)

    est_mod.Estimator.__init__ = patched_init


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: legacy_boot.py PROGRAM [ARGS...]\n")
        return 2
    program = os.path.abspath(sys.argv[1])
    _install()
    sys.argv = [program] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
