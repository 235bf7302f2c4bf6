"""Convert an Estimator's TF1 checkpoint into a TF2 checkpoint of a migrated program's model (target env).

Usage: python checkpoint_boot.py PROGRAM [ARGS...]   (for `tfmigrate checkpoint convert`)

Environment:
  TFMIGRATE_CONVERT_FROM    the TF1 checkpoint prefix (model_dir/model.ckpt-N)
  TFMIGRATE_CONVERT_OUT     directory the TF2 checkpoint is written to (convert mode)
  TFMIGRATE_CONVERT_DUMP    instead of converting: restore the latest TF2 checkpoint of TFMIGRATE_CONVERT_OUT as
                            the program's own restore does and write every value by TF1 name to this .npz (a check)
  TFMIGRATE_CONVERT_REPORT  the JSON report: every TF1 name mapped (TF2 variable, shape, value read back equal),
                            the missing / shape-mismatched / extra names, the step

The program runs unchanged until it has built its model and optimizer, which is the first of: the generated
`restore_model_dir(model_dir, optimizer)` (it restores before training), `tf.train.Checkpoint(model=...,
optimizer=...)` (the generated custom loop creates it once both are built), `Model.fit`. There the checkpoint is
converted and the process exits: nothing trains. Names: a weight's TF1 name is its path inside the model (the
migrated layers keep TF1's names: "dense_1/kernel"); its optimizer slots are "<name>/<slot>" (the program's own
_estimator_slots when it has one, else the same table); global_step becomes optimizer.iterations. A partitioned
TF1 variable (fixed_size_partitioner & co.) is saved as one full tensor under its name (the parts carry a
save_slice_info): it fills the full variable, or the shards of a ShardedVariable slice by slice along axis 0.
Nothing is guessed: a missing name, another shape or a checkpoint variable nothing took is reported and no
checkpoint is written.
This file must not import tfmigrate: it runs by path in a venv that does not have it.
"""
import json
import os
import runpy
import sys

_EXIT_MISMATCH = 3
_EXIT_NO_MODEL = 4
_DONE = []  # set once the conversion ran (our own tf.train.Checkpoint must not trigger it again)


def _report(doc):
    path = os.environ.get("TFMIGRATE_CONVERT_REPORT")
    if path:
        with open(path + ".tmp", "w") as fh:
            json.dump(doc, fh, indent=1)
        os.replace(path + ".tmp", path)


def tf1_name(model, variable):
    """The TF1 name of a model weight: its path inside the model (Keras 3 `path`; tf_keras `name` without ":0")."""
    path = getattr(variable, "path", None) or variable.name.split(":")[0]
    prefix = model.name + "/"
    return path[len(prefix):] if path.startswith(prefix) else path


def _variable_label(variable):
    return getattr(variable, "path", None) or variable.name.split(":")[0]


def builtin_slots(optimizer):
    """(attribute with one slot per variable, TF1 slot name, conversion or None): the table of the generated
    _estimator_slots, for Keras 3 and tf_keras optimizers (same attribute names), for programs without one."""
    names = [c.__name__ for c in type(optimizer).__mro__]

    def isa(name):
        return name in names

    if isa("Adam"):
        return [("_momentums", "Adam", None), ("_velocities", "Adam_1", None)]
    if isa("Adagrad"):
        return [("_accumulators", "Adagrad", None)]
    if isa("Ftrl"):
        return [("_accumulators", "Ftrl", None), ("_linears", "Ftrl_1", None)]
    if isa("Adadelta"):
        return [("_accumulated_grads", "Adadelta", None), ("_accumulated_delta_vars", "Adadelta_1", None)]
    if isa("RMSprop"):
        slots = [("_velocities", "RMSProp", None)]
        if optimizer.centered:
            slots.append(("_average_gradients", "RMSProp_1", None))
        if optimizer.momentum > 0:
            slots.append(("_momentums", "RMSProp_2" if optimizer.centered else "RMSProp_1", None))
        return slots
    if isa("SGD"):
        if not optimizer.momentum:
            return []
        if isa("TF1Momentum"):
            return [("momentums", "Momentum", None)]
        rate = float(optimizer.learning_rate)
        return [("momentums", "Momentum", lambda accum: (-rate * accum).astype(accum.dtype))]
    raise ValueError("the TF1 slot names of %s are not known" % type(optimizer).__name__)


def _slot_table(model, optimizer):
    module = sys.modules.get(type(model).__module__) or sys.modules.get("__main__")
    program_slots = getattr(module, "_estimator_slots", None)
    return (program_slots or builtin_slots)(optimizer)


def _slot_index(optimizer, variable):
    if hasattr(optimizer, "_get_variable_index"):  # Keras 3
        return optimizer._get_variable_index(variable)
    return optimizer._index_dict[optimizer._var_key(variable)]  # tf_keras


def _shards(variable):
    return (getattr(variable, "variables", None) or None) if type(variable).__name__ == "ShardedVariable" else None


def _build_optimizer(model, optimizer):
    built = getattr(optimizer, "built", None)
    if built is None:
        built = getattr(optimizer, "_built", False)
    if not built:
        with model.distribute_strategy.scope():
            optimizer.build(model.trainable_variables)


def targets(model, optimizer):
    """[(TF1 name, TF2 variable, label, conversion)] of everything the Estimator saved for this model."""
    out = []
    for weight in model.weights:
        out.append((tf1_name(model, weight), weight, _variable_label(weight), None))
    if optimizer is None:
        return out
    _build_optimizer(model, optimizer)
    table = _slot_table(model, optimizer)
    for weight in model.trainable_variables:
        name, index = tf1_name(model, weight), _slot_index(optimizer, weight)
        for attribute, slot, convert in table:
            out.append(("%s/%s" % (name, slot), getattr(optimizer, attribute)[index],
                        "optimizer.%s[%d]" % (attribute, index), convert))
    if hasattr(optimizer, "beta_1_power"):  # generated TF1Adam keeps TF1's running beta**t
        out.append(("beta1_power", optimizer.beta_1_power, "optimizer.beta_1_power", None))
        out.append(("beta2_power", optimizer.beta_2_power, "optimizer.beta_2_power", None))
    out.append(("global_step", optimizer.iterations, "optimizer.iterations", None))
    return out


def _value(variable):
    import numpy as np

    shards = _shards(variable)
    if shards:
        return np.concatenate([np.asarray(v.numpy()) for v in shards], axis=0)
    return np.asarray(variable.numpy())


def _assign(variable, value):
    """The full value into a variable, or slice by slice (axis 0) into the shards of a ShardedVariable."""
    shards = _shards(variable)
    if not shards:
        variable.assign(value)
        return len([variable])
    offset = 0
    for shard in shards:
        rows = int(shard.shape[0])
        shard.assign(value[offset:offset + rows])
        offset += rows
    return len(shards)


def convert(model, optimizer, prefix, out_dir):
    import numpy as np
    import tensorflow as tf

    reader = tf.train.load_checkpoint(prefix)
    saved = {n: list(s) for n, s in reader.get_variable_to_shape_map().items()}
    if "_CHECKPOINTABLE_OBJECT_GRAPH" in saved:
        raise ValueError("%s is a TF2 checkpoint (object-based), not an Estimator's: the migrated program reads "
                         "it as it is" % prefix)
    mapped, missing, mismatched, used = [], [], [], set()
    for name, variable, label, convert_value in targets(model, optimizer):
        shape = [int(d) for d in variable.shape]
        if name not in saved:
            missing.append({"tf1": name, "tf2": label, "shape": shape})
            continue
        used.add(name)
        if saved[name] != shape:
            mismatched.append({"tf1": name, "tf2": label, "shape": shape, "saved_shape": saved[name]})
            continue
        value = reader.get_tensor(name)
        value = np.asarray(value if convert_value is None else convert_value(value))
        parts = _assign(variable, value)
        back = _value(variable)
        mapped.append({"tf1": name, "tf2": label, "shape": shape, "exact": bool(np.array_equal(back, value)),
                       **({"shards": parts} if parts > 1 else {}), **({"converted": True} if convert_value else {})})
    extra = [{"tf1": n, "saved_shape": s} for n, s in sorted(saved.items()) if n not in used]
    doc = {"checkpoint": prefix, "out": out_dir, "model": type(model).__name__,
           "optimizer": type(optimizer).__name__ if optimizer is not None else None,
           "mapped": mapped, "missing": missing, "shape_mismatch": mismatched, "extra": extra,
           "step": int(reader.get_tensor("global_step")) if "global_step" in saved else None, "written": None}
    if missing or mismatched or extra or not all(m["exact"] for m in mapped):
        return doc  # nothing guessed: no checkpoint
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(checkpoint, out_dir, max_to_keep=1)
    doc["written"] = manager.save(checkpoint_number=doc["step"])
    return doc


def dump(model, optimizer, out_dir, path):
    """Restore the converted checkpoint as the migrated program does and write every value by TF1 name."""
    import numpy as np
    import tensorflow as tf

    _build_optimizer(model, optimizer)
    tf.train.Checkpoint(model=model, optimizer=optimizer).restore(tf.train.latest_checkpoint(out_dir))
    values = {name: _value(variable) for name, variable, _, _ in targets(model, optimizer)}
    np.savez(path, **{name.replace("/", "|"): v for name, v in values.items()})
    return {"dumped": sorted(values)}


def _run(model, optimizer):
    if _DONE:
        return
    _DONE.append(True)
    sys.stdout.flush()
    try:
        if not model.weights:
            raise ValueError("%s has no variables yet where the program hands it over with its optimizer: build it "
                             "(call it on a batch) before restore_model_dir / tf.train.Checkpoint / fit"
                             % type(model).__name__)
        if os.environ.get("TFMIGRATE_CONVERT_DUMP"):
            doc = dump(model, optimizer, os.environ["TFMIGRATE_CONVERT_OUT"], os.environ["TFMIGRATE_CONVERT_DUMP"])
            code = 0
        else:
            doc = convert(model, optimizer, os.environ["TFMIGRATE_CONVERT_FROM"], os.environ["TFMIGRATE_CONVERT_OUT"])
            code = 0 if doc["written"] else _EXIT_MISMATCH
    except Exception as exc:  # a failure to convert is reported, not a traceback lost in the program's output
        import traceback

        traceback.print_exc()
        doc, code = {"error": "%s: %s" % (type(exc).__name__, exc)}, 2
    _report(doc)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the program has built what we need; it must not train


def _is_model(obj):
    return any(c.__name__ == "Model" for c in type(obj).__mro__) and hasattr(obj, "weights")


def _patch(tf):
    import keras

    def __init_subclass__(cls, **kwargs):
        super(keras.Model, cls).__init_subclass__(**kwargs)
        if "restore_model_dir" in cls.__dict__:
            def restore_model_dir(self, model_dir, optimizer=None, *args, **kw):
                _run(self, optimizer)

            cls.restore_model_dir = restore_model_dir

    keras.Model.__init_subclass__ = classmethod(__init_subclass__)

    original_init = tf.train.Checkpoint.__init__

    def __init__(self, root=None, **kwargs):
        model, optimizer = kwargs.get("model"), kwargs.get("optimizer")
        if not _DONE and model is not None and optimizer is not None and _is_model(model):
            _run(model, optimizer)
        original_init(self, root, **kwargs) if root is not None else original_init(self, **kwargs)

    tf.train.Checkpoint.__init__ = __init__

    def patch_fit(model_cls):
        original_fit = model_cls.fit

        def fit(self, *args, **kwargs):
            _run(self, self.optimizer)
            return original_fit(self, *args, **kwargs)

        model_cls.fit = fit

    patch_fit(keras.Model)  # tf_keras programs (parameter servers) are custom loops: the Checkpoint hook


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: checkpoint_boot.py PROGRAM [ARGS...]\n")
        return 2
    program = os.path.abspath(sys.argv[1])
    import tensorflow as tf

    _patch(tf)
    sys.argv = [program] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(program))
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit:
        pass
    _report({"error": "the program ended without building its model and optimizer (no restore_model_dir, "
                      "tf.train.Checkpoint(model=..., optimizer=...) or fit): nothing to convert"})
    return _EXIT_NO_MODEL


if __name__ == "__main__":
    sys.exit(main())
