"""Boot an unmodified migrated TF2 program under capture (runs in the *target* env, TF 2.21 / Keras 3).

Usage: python target_boot.py PROGRAM [ARGS...]

Environment:
  TFMIGRATE_CAPTURE_DIR  per-step local losses go to <dir>/<task>.loss, one line per step:
                         "<int32 bit pattern of the float32 local mean loss> <batch size>"
  TFMIGRATE_MODEL_DIR    CheckpointManager / BackupAndRestore / ModelCheckpoint paths (and the model_dir the
                         generated restore_model_dir / restore_checkpoint read) are moved under it
  TFMIGRATE_INIT_CKPT    optional TF1 checkpoint prefix (the original's model.ckpt-0): weights created
                         through Layer.add_weight start from its values (by name: exact, scoped or bare;
                         else creation order + shape), and each is read back and checked bit for bit

The loss is written in-graph with tf.print(tf.bitcast(x, tf.int32), ..., output_stream="file://...") and
the print op is also made a control dependency of the returned loss, so it runs inside tf.function,
strategy.run, MultiWorkerMirroredStrategy and ParameterServerStrategy. The int32 bit pattern makes the
float exact. A line is "<loss bits> <batch> <int64 bits of the float64 wall clock of the executing task>".
PrintV2 opens the file (O_APPEND), writes the line in one write() and closes it, at every step, in the
process that runs the op. Under ParameterServerStrategy that is a remote worker running a function the
coordinator traced, so the traced path is /proc/self/fd/N: N is the same fd number in every task, opened
on that task's own <task>.loss. Only losses computed under a GradientTape are training steps (an
evaluation through compute_average_loss is not recorded). Recorded: tf.nn.compute_average_loss (the local
mean), Model.compute_loss (fit), a Keras loss with reduction="sum" called directly (a custom loop that
sums its loss, as TF1's SUM reduction did: the local sum), and a generated loss class marked tf1_scalar_loss
(the model_fn's own scalar loss, with its labels' batch). Under MirroredStrategy over several local devices only
each worker's first replica records (the Estimator ran the hooks of its first device only).
evaluate()'s result dicts go to <task>.eval (boot/evaluations_capture.py).
This file must not import tfmigrate: it runs by path in a venv that does not have it.
"""
import importlib.abc
import importlib.util
import inspect
import json
import os
import re
import runpy
import sys
import threading

_STATE = threading.local()
_MAPPING_EXIT_CODE = 17


def _task_name():
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        return "chief0"
    task = json.loads(raw).get("task", {})
    return "%s%d" % (task.get("type", "chief"), int(task.get("index", 0)))


TASK = _task_name()


# --------------------------------------------------------------------------- per-step loss
_LOSS_PATH = os.path.join(os.environ.get("TFMIGRATE_CAPTURE_DIR", "."), TASK + ".loss")
_LOSS_FD = 1000  # fixed: the path is traced once (coordinator) and resolved in whichever task runs it
_LOSS_STREAM = ["file://" + _LOSS_PATH]


def _open_loss_sink():
    """Point /proc/self/fd/_LOSS_FD at this task's <task>.loss; keep the plain path where that fails."""
    try:
        fd = os.open(_LOSS_PATH, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if fd != _LOSS_FD:
            os.dup2(fd, _LOSS_FD, inheritable=False)
            os.close(fd)
        if os.path.exists("/proc/self/fd/%d" % _LOSS_FD):
            _LOSS_STREAM[0] = "file:///proc/self/fd/%d" % _LOSS_FD
    except OSError as exc:
        sys.stderr.write("tfmigrate: per-task loss file via fd %d failed (%s); using %s\n"
                         % (_LOSS_FD, exc, _LOSS_PATH))


def _taping():
    """True under a GradientTape: a training step, not an evaluation."""
    try:
        from tensorflow.python.eager import record

        return record.could_possibly_record()
    except Exception:  # pragma: no cover - private module moved: record everything
        return True


def _later_local_replica(tf):
    """True in a replica other than its worker's first (MirroredStrategy over several local devices): the TF1
    Estimator ran the hooks of its first device only (estimator.py get_hooks_from_the_first_device), so the
    original records that replica's loss; the others are not recorded here either."""
    try:
        context = tf.distribute.get_replica_context()
        if context is None:
            return False
        local = len(context.strategy.extended.worker_devices)
        if local <= 1:
            return False
        replica = tf.get_static_value(context.replica_id_in_sync_group)
        return replica is not None and int(replica) % local != 0
    except Exception:  # pragma: no cover - a strategy without worker_devices: record every replica
        return False


def _emit(tf, local_mean, batch, result):
    """Write the bit pattern of local_mean (float32 scalar) + batch + time; return `result` depending on it."""
    if _later_local_replica(tf):
        return result
    bits = tf.bitcast(tf.cast(local_mean, tf.float32), tf.int32)
    when = tf.bitcast(tf.timestamp(), tf.int64)
    op = tf.print(bits, tf.cast(batch, tf.int64), when, output_stream=_LOSS_STREAM[0])
    if op is None:  # eager: already printed
        return result
    with tf.control_dependencies([op]):
        return tf.nest.map_structure(tf.identity, result)


class _Guard:
    """Only the outermost captured loss call of a nest records (e.g. _compute_loss -> compute_loss)."""

    def __enter__(self):
        depth = getattr(_STATE, "depth", 0)
        _STATE.depth = depth + 1
        return depth == 0

    def __exit__(self, *exc):
        _STATE.depth -= 1
        return False


def _patch_compute_average_loss(tf):
    orig = tf.nn.compute_average_loss

    def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
        with _Guard() as outer:
            out = orig(per_example_loss, sample_weight=sample_weight, global_batch_size=global_batch_size)
            if not outer or not _taping():
                return out
            if getattr(_STATE, "scalar_recorded", False):  # the scalar loss inside was recorded (see below)
                _STATE.scalar_recorded = False
                return out
            pel = tf.convert_to_tensor(per_example_loss)
            if sample_weight is not None:
                pel = pel * tf.cast(sample_weight, pel.dtype)
            batch = tf.shape(pel)[0]
            # the local mean over every loss value: per example, or per label ([batch, label_dimension]: a canned
            # regressor's head averaged those, its recorded loss)
            local = tf.reduce_sum(pel) / tf.cast(tf.size(pel), pel.dtype)
            return _emit(tf, local, batch, out)

    compute_average_loss.__doc__ = orig.__doc__
    compute_average_loss = tf.autograph.experimental.do_not_convert(compute_average_loss)
    tf.nn.compute_average_loss = compute_average_loss
    try:  # some code paths reach it through nn_impl
        from tensorflow.python.ops import nn_impl

        nn_impl.compute_average_loss = compute_average_loss
    except Exception:
        pass


def _first_leading_dim(tf, *structs):
    for s in structs:
        if s is None:
            continue
        for t in tf.nest.flatten(s):
            if t is not None and hasattr(t, "shape"):
                return tf.shape(t)[0]
    return tf.constant(-1)


def _patch_keras_compute_loss(tf):
    import keras

    try:
        from keras.src.losses.loss import unscale_loss_for_distribution
    except Exception:  # pragma: no cover - older/newer keras layout
        def unscale_loss_for_distribution(v):
            n = tf.distribute.get_strategy().num_replicas_in_sync
            return v * n if n > 1 else v

    Model = keras.Model

    def wrap(name):
        orig = getattr(Model, name, None)
        if orig is None:
            return
        sig = inspect.signature(orig)

        def patched(self, *args, **kwargs):
            with _Guard() as outer:
                loss = orig(self, *args, **kwargs)
                if not outer or loss is None:
                    return loss
                try:
                    ba = sig.bind(self, *args, **kwargs)
                    ba.apply_defaults()
                    arguments = ba.arguments
                except TypeError:
                    arguments = dict(kwargs)
                if not arguments.get("training", True):
                    return loss
                if not tf.inside_function() and not tf.executing_eagerly():
                    return loss
                local = unscale_loss_for_distribution(loss)
                batch = _first_leading_dim(tf, arguments.get("y"), arguments.get("x"), arguments.get("y_pred"))
                return _emit(tf, local, batch, loss)

        setattr(Model, name, tf.autograph.experimental.do_not_convert(patched))

    wrap("_compute_loss")  # what the default train_step calls (covers user overrides of compute_loss)
    wrap("compute_loss")


def _patch_keras_sum_loss(tf):
    """A Keras loss with reduction="sum" called under a tape, outside Model.compute_loss: a custom loop's summed
    training loss (TF1's SUM reduction, e.g. v1 canned heads), each replica's sum over its batch. Record it.
    Keras 3's losses, and tf_keras' (parameter-server programs; reduction "sum" is its Reduction.SUM)."""
    import keras

    _patch_sum_loss_class(tf, keras.losses.Loss)
    _on_import("tf_keras", lambda mod: _patch_sum_loss_class(tf, mod.losses.Loss))


def _patch_sum_loss_class(tf, loss_cls):
    orig = loss_cls.__call__

    def __call__(self, y_true, y_pred, sample_weight=None):
        with _Guard() as outer:
            out = orig(self, y_true, y_pred, sample_weight=sample_weight)
            if not outer or getattr(self, "reduction", None) != "sum" or not _taping():
                return out
            if not tf.inside_function() and not tf.executing_eagerly():
                return out
            return _emit(tf, out, _first_leading_dim(tf, y_pred, y_true), out)

    loss_cls.__call__ = tf.autograph.experimental.do_not_convert(__call__)


def _patch_scalar_losses(tf):
    """A generated loss class marked `tf1_scalar_loss = True` returns the model_fn's own scalar loss; a custom loop
    calls it with reduction="none" and gets a vector of one, the replica's loss as the model_fn computed it, which
    it passes to compute_average_loss (or, for TF1's SUM reduction, with reduction="sum" and uses the value). Record that value with the batch of its labels, as the original's capture
    records the model_fn's loss and its labels' batch (compute_average_loss then records nothing)."""
    import keras

    base = keras.losses.Loss
    own = base.__dict__.get("__init_subclass__")

    def __init_subclass__(cls, **kwargs):
        if own is not None:
            own.__func__(cls, **kwargs)
        else:
            super(base, cls).__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is None or not cls.__dict__.get("tf1_scalar_loss"):
            return

        def __call__(self, y_true, y_pred, sample_weight=None):
            with _Guard() as outer:  # the Keras losses it calls inside are not recorded on their own
                out = call(self, y_true, y_pred, sample_weight=sample_weight)
                reduction = getattr(self, "reduction", None)
                if not outer or reduction not in ("none", "sum") or not _taping():
                    return out
                if not tf.inside_function() and not tf.executing_eagerly():
                    return out
                if reduction == "none":  # the custom loop averages it with compute_average_loss; "sum": as is
                    _STATE.scalar_recorded = True
                return _emit(tf, tf.reshape(out, []), _first_leading_dim(tf, y_true, y_pred), out)

        cls.__call__ = tf.autograph.experimental.do_not_convert(__call__)

    base.__init_subclass__ = classmethod(__init_subclass__)


# --------------------------------------------------------------------------- initial weights
_EXCLUDE = re.compile(
    r"(^|/)(global_step|beta1_power|beta2_power)$"
    r"|/(Adagrad|Adam|Adam_1|Momentum|RMSProp|RMSProp_1|Ftrl|Ftrl_1|Adadelta|Adadelta_1|"
    r"AdagradDA|ProximalAdagrad|ExponentialMovingAverage)(_\d+)?$"
    # a v2 Estimator's Keras legacy optimizer (canned v2 classes): its slots and hyperparameter variables
    r"|^training/(Adagrad|Adam|Ftrl|SGD|RMSprop|Adadelta|Adamax|Nadam)/"
)
_WITHIN = {"kernel": 0, "depthwise_kernel": 0, "embeddings": 0, "gamma": 0, "pointwise_kernel": 1,
           "beta": 1, "bias": 2, "moving_mean": 3, "moving_variance": 4}


_PART = re.compile(r"/part_\d+$")
_OBJECT_LAYER = re.compile(r"^((?:layer_with_weights-\d+/)+)([^/.][^/]*)/\.ATTRIBUTES/VARIABLE_VALUE$")


def _object_key(name):
    """Layer order of an object-based checkpoint key: layer_with_weights-<i> numerically, then kernel/bias."""
    m = _OBJECT_LAYER.match(name)
    return ([int(i) for i in re.findall(r"layer_with_weights-(\d+)", m.group(1))], _WITHIN.get(m.group(2), 9),
            m.group(2))


def _natural_key(name):
    scope, _, leaf = name.rpartition("/")
    parts = []
    for comp in scope.split("/"):
        m = re.match(r"^(.*?)(?:_(\d+))?$", comp)
        parts.append((m.group(1), int(m.group(2) or 0)))
    return (parts, _WITHIN.get(leaf, 9), leaf)


def _creation_order(tf, prefix, names):
    """Model variables in TF1 creation order, from the checkpoint's .meta graph when present."""
    meta = prefix + ".meta"
    ordered = []
    if os.path.exists(meta):
        try:
            from tensorflow.core.framework import variable_pb2
            from tensorflow.core.protobuf import meta_graph_pb2

            mg = meta_graph_pb2.MetaGraphDef()
            with open(meta, "rb") as fh:
                mg.ParseFromString(fh.read())
            for key in ("trainable_variables", "variables", "model_variables"):
                if key not in mg.collection_def:
                    continue
                for raw in mg.collection_def[key].bytes_list.value:
                    vd = variable_pb2.VariableDef()
                    vd.ParseFromString(raw)
                    n = _ckpt_name(vd.variable_name)
                    if n in names and n not in ordered:
                        ordered.append(n)
        except Exception as exc:  # fall back to a natural sort
            sys.stderr.write("tfmigrate: could not read %s (%s); using name order\n" % (meta, exc))
    rest = sorted((n for n in names if n not in ordered), key=_natural_key)
    return ordered + rest


def _name_candidates(target, weight_name, free):
    """Checkpoint names for weight `target` ("layer/weight"), best first, among the unused `free`: the
    exact name; the only "<scope>/layer/weight" (TF1 variable_scope around the layers); the bare weight
    name (add_weight on the Model itself, like a top-level tf.get_variable)."""
    out = [(target, "name")] if target in free else []
    scoped = [n for n in free if n.endswith("/" + target)]
    if len(scoped) == 1:
        out.append((scoped[0], "scoped name"))
    if weight_name != target and weight_name in free:
        out.append((weight_name, "bare name"))
    return out


def _ckpt_name(var_name):
    """Checkpoint key of a TF1 graph variable: a partitioned one is listed per part, saved as one tensor."""
    return _PART.sub("", var_name.split(":")[0])


class _WeightMapper:
    def __init__(self, tf, prefix):
        self.tf = tf
        self.prefix = prefix
        self.reader = tf.train.load_checkpoint(prefix)
        shapes = self.reader.get_variable_to_shape_map()
        self.shapes = {n: tuple(s) for n, s in shapes.items() if not _EXCLUDE.search(n)}
        if any(_OBJECT_LAYER.match(n) for n in self.shapes):
            # an object-based checkpoint (model_to_estimator's Estimator saved the Keras model by object graph):
            # the model's weights only, in layer order (the order Keras creates them in)
            self.shapes = {n: s for n, s in self.shapes.items() if _OBJECT_LAYER.match(n)}
            self.order = sorted(self.shapes, key=_object_key)
        else:
            self.order = _creation_order(tf, prefix, set(self.shapes))
        self.used = set()
        self.mapped = []  # (target, source, how)
        self.unmatched = []  # (target, shape)
        self.exact = {}  # target -> value equal to the checkpoint's after creation
        self.unchecked = []
        self.shards = {}  # target -> number of ShardedVariable parts
        self.owners = {}  # target -> id of the layer that first created it
        # whether the weights mapped so far are tf_keras layers' (None: none yet). A program can run its own Keras 2
        # code on tf_keras beside the converted Estimator's Keras 3 model (rules/planners/keras2_program.py): the other
        # Keras's layers cannot be part of that model, so they keep their own initializers
        self.tf_keras = None
        self.out = os.path.join(os.environ.get("TFMIGRATE_CAPTURE_DIR", "."), TASK + ".weights.json")

    def take(self, layer_name, weight_name, shape, owner=None, target=None):
        shape = tuple(int(d) for d in shape) if shape is not None else None
        target = target or "%s/%s" % (layer_name, weight_name)
        again = next((s for t, s, _ in self.mapped if t == target), None)
        if again is not None and self.owners.get(target) not in (None, owner) and self.shapes[again] == shape:
            # another instance of the same model (a predict() that builds its own, then restores model_dir):
            # the same start, as the Estimator's second graph initialised the same way
            return self.reader.get_tensor(again)
        for cand, how in self.candidates(target, weight_name):
            if self.shapes[cand] == shape:
                return self._use(target, cand, how, owner)
        for cand in self.order:  # next unused checkpoint variable in creation order
            if cand in self.used:
                continue
            if self.shapes[cand] == shape:
                return self._use(target, cand, "order", owner)
            break
        self.unmatched.append((target, shape))
        self.write()
        self.fail("no checkpoint variable for weight %r with shape %s" % (target, shape))

    def candidates(self, target, weight_name):
        return _name_candidates(target, weight_name, [n for n in self.order if n not in self.used])

    def check(self, target, var, value):
        """After creation: the weight must hold the checkpoint tensor bit for bit (else verify would
        compare runs from different starts). Only where values are readable (eager)."""
        import numpy as np

        try:
            with self.tf.init_scope():
                if not self.tf.executing_eagerly():
                    return
                got = _full_value(var)
        except Exception as exc:  # unreadable here (e.g. a lazily initialised variable): say so
            self.unchecked.append("%s (%s)" % (target, type(exc).__name__))
            self.write()
            return
        shards = _shards(var)
        if shards:
            self.shards[target] = len(shards)
        self.exact[target] = bool(got.shape == value.shape and np.array_equal(got, value.astype(got.dtype)))
        self.write()
        if not self.exact[target]:
            self.fail("weight %r does not hold its checkpoint value after creation" % target)

    def _use(self, target, source, how, owner=None):
        self.owners.setdefault(target, owner)
        self.used.add(source)
        self.mapped.append((target, source, how))
        self.write()
        return self.reader.get_tensor(source)

    def write(self):
        doc = {
            "checkpoint": self.prefix,
            "task": TASK,
            "mapped": [{"weight": t, "checkpoint_var": s, "by": h, "exact": self.exact.get(t),
                        **({"shards": self.shards[t]} if t in self.shards else {})}
                       for t, s, h in self.mapped],
            "unchecked": self.unchecked,
            "unmatched": [{"weight": t, "shape": list(s) if s else None} for t, s in self.unmatched],
            "unused_checkpoint_vars": [n for n in self.order if n not in self.used],
        }
        tmp = self.out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(doc, fh, indent=1)
        os.replace(tmp, self.out)

    def fail(self, why):
        lines = ["tfmigrate: cannot map initial weights from %s: %s" % (self.prefix, why),
                 "  migrated weights so far:"]
        lines += ["    %s <- %s (%s)" % m for m in self.mapped]
        lines += ["    %s %s  (UNMATCHED)" % (t, list(s) if s else s) for t, s in self.unmatched]
        lines.append("  checkpoint model variables (creation order):")
        lines += ["    %s %s%s" % (n, list(self.shapes[n]), "  (used)" if n in self.used else "")
                  for n in self.order]
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
        os._exit(_MAPPING_EXIT_CODE)


class _ConstInit:
    """The checkpoint value; under a variable partitioner only the asked-for shard (PSS calls the
    initializer per shard with partition_shape/partition_offset, or with shard_info)."""

    def __init__(self, value):
        self.value = value

    def __call__(self, shape=None, dtype=None, partition_shape=None, partition_offset=None, shard_info=None,
                 **kwargs):
        import tensorflow as tf

        if shard_info is not None:
            partition_shape, partition_offset = shard_info.shape, shard_info.offset
        value = _shard(self.value, partition_shape, partition_offset)
        return tf.constant(value, dtype=dtype if dtype is not None else self.value.dtype)

    def get_config(self):
        return {}


def _shard(value, shape, offset):
    if shape is None or offset is None:
        return value
    dims = [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]
    return value[tuple(slice(int(o), int(o) + d) for o, d in zip(offset, dims))]


def _shards(var):
    """The parts of a ShardedVariable (variable_partitioner under ParameterServerStrategy), else None."""
    return (getattr(var, "variables", None) or None) if type(var).__name__ == "ShardedVariable" else None


def _full_value(var):
    """Whole value of a created weight (a ShardedVariable is concatenated along axis 0)."""
    import numpy as np

    shards = _shards(var)
    if shards:
        return np.concatenate([np.asarray(v.numpy()) for v in shards], axis=0)
    return np.asarray(var.numpy())


def _patch_add_weight(layer_cls, mapper):
    orig = layer_cls.add_weight
    if getattr(orig, "_tfmigrate", False):
        return
    sig = inspect.signature(orig)

    def add_weight(self, *args, **kwargs):
        if any(c.__name__ == "Metric" for c in type(self).__mro__):
            return orig(self, *args, **kwargs)  # tf_keras metrics keep their state in weights; not model weights
        if any(c.__module__.endswith("legacy_tf_layers.base") for c in type(self).__mro__):
            # tf.compat.v1.layers (only under the model-mapping shim): their variables come from the shim's store
            # by full TF1 name (_patch_shim_store), not by this layer's short name on each call
            return orig(self, *args, **kwargs)
        try:
            ba = sig.bind(self, *args, **kwargs)
        except TypeError:
            return orig(self, *args, **kwargs)
        a = ba.arguments
        name = a.get("name")
        shape = a.get("shape")
        if shape is None and a.get("args"):
            shape = a["args"][0]
        if name is None or shape is None:
            return orig(self, *args, **kwargs)
        tf_keras = _PROGRAM_USES["tf_keras"] and any(c.__module__.split(".")[0] == "tf_keras" for c in type(self).__mro__)
        if getattr(mapper, "tf_keras", None) not in (None, tf_keras):
            return orig(self, *args, **kwargs)  # the other Keras: not the Estimator's model (see _WeightMapper)
        value = mapper.take(self.name, name, shape, owner=id(self))
        mapper.tf_keras = tf_keras
        if "initializer" in sig.parameters:
            # rebuild the call from the bound arguments with the initializer replaced
            a["initializer"] = _ConstInit(value)
            var = orig(*ba.args, **ba.kwargs)
            mapper.check("%s/%s" % (self.name, name), var, value)
            return var
        return orig(self, *args, **kwargs)

    add_weight._tfmigrate = True
    layer_cls.add_weight = add_weight


class _AfterImport(importlib.abc.MetaPathFinder):
    """Run callbacks right after a module (e.g. tf_keras) has been imported (one finder per module: `_on_import`)."""

    def __init__(self, name, callback):
        self.name = name
        self.callbacks = [callback]

    def callback(self, module):
        for callback in self.callbacks:
            callback(module)

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        orig_exec = loader.exec_module
        callback = self.callback
        _AFTER_IMPORT.pop(fullname, None)

        def exec_module(module):
            orig_exec(module)
            callback(module)

        loader.exec_module = exec_module
        return spec


_AFTER_IMPORT: dict = {}  # module name → its pending _AfterImport finder


def _on_import(name, callback):
    """Call `callback(module)` now if `name` is imported, else right after its import."""
    if name in sys.modules:
        callback(sys.modules[name])
    elif name in _AFTER_IMPORT:
        _AFTER_IMPORT[name].callbacks.append(callback)
    else:
        _AFTER_IMPORT[name] = _AfterImport(name, callback)
        sys.meta_path.insert(0, _AFTER_IMPORT[name])


def _install_weights(tf):
    prefix = os.environ.get("TFMIGRATE_INIT_CKPT")
    if not prefix:
        return
    mapper = _WeightMapper(tf, prefix)
    mapper.write()
    import keras

    _patch_add_weight(keras.layers.Layer, mapper)

    def patch_tf_keras(mod):
        try:
            from tf_keras.src.engine.base_layer import Layer as TfKerasLayer
        except Exception:
            TfKerasLayer = mod.layers.Layer
        _patch_add_weight(TfKerasLayer, mapper)

    _on_import("tf_keras", patch_tf_keras)
    _on_import("tf_keras", lambda mod: _patch_shim_store(mapper))


def _patch_shim_store(mapper):
    """The model-mapping shim (track_tf1_style_variables) creates a raw get_variable's variable in its store, not
    through add_weight: the checkpoint value by its full TF1 name (tf.compat.v1.layers' weights come through
    add_weight first, with the checkpoint value as initializer already)."""
    try:
        from tf_keras.src.legacy_tf_layers import variable_scope_shim
    except Exception:
        return
    store = variable_scope_shim._EagerVariableStore
    orig = store._get_single_variable
    if getattr(orig, "_tfmigrate", False):
        return

    def _get_single_variable(self, name, shape=None, *args, **kwargs):
        initializer = kwargs.get("initializer", args[1] if len(args) > 1 else None)
        if name in self._vars or isinstance(initializer, _ConstInit) or shape is None:
            return orig(self, name, shape, *args, **kwargs)
        scope, _, leaf = name.rpartition("/")
        value = mapper.take(scope, leaf, shape, owner=id(self), target=name)
        if len(args) > 1:
            args = (args[0], _ConstInit(value)) + tuple(args[2:])
        else:
            kwargs["initializer"] = _ConstInit(value)
        var = orig(self, name, shape, *args, **kwargs)
        mapper.check(name, var, value)
        return var

    _get_single_variable._tfmigrate = True
    store._get_single_variable = _get_single_variable


# --------------------------------------------------------------------------- checkpoint dirs
_REDIRECTS = {}


def _redirect(path):
    base = os.environ.get("TFMIGRATE_MODEL_DIR")
    if not base or path is None:
        return path
    path = os.fspath(path)
    if path in _REDIRECTS:
        return _REDIRECTS[path]
    if path.startswith(base):
        return path
    absp = os.path.abspath(path) if "://" not in path else path
    head, leaf = os.path.split(absp.rstrip("/"))
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", head).strip("_") or "root"
    new = os.path.join(base, TASK, safe, leaf)
    _REDIRECTS[path] = new
    try:
        d = os.environ.get("TFMIGRATE_CAPTURE_DIR")
        if d:
            with open(os.path.join(d, TASK + ".redirects.json"), "w") as fh:
                json.dump(_REDIRECTS, fh, indent=1)
    except OSError:
        pass
    return new


def _patch_path_arg(cls, arg):
    orig = cls.__init__
    sig = inspect.signature(orig)

    def __init__(self, *args, **kwargs):
        try:
            ba = sig.bind(self, *args, **kwargs)
        except TypeError:
            return orig(self, *args, **kwargs)
        if arg in ba.arguments:
            ba.arguments[arg] = _redirect(ba.arguments[arg])
        return orig(*ba.args, **ba.kwargs)

    cls.__init__ = __init__


def _under_redirected(path):
    """A path inside a model_dir already moved (an exporter's model_dir/export/<name>) moves with it."""
    path = os.fspath(path)
    for old, new in list(_REDIRECTS.items()):
        prefix = old.rstrip("/") + "/"
        if path.startswith(prefix):
            return os.path.join(new, path[len(prefix):])
    return path


def _patch_export_paths(model_cls):
    """The generated write_saved_model(export_dir_base, ...), which every export goes through, writes under the
    directory a model_dir was moved to (an exporter's model_dir/export/<name>)."""
    method = model_cls.__dict__.get("write_saved_model")
    if method is None or getattr(method, "_tfmigrate", False):
        return

    def redirected(self, export_dir_base, *args, _method=method, **kwargs):
        return _method(self, _under_redirected(export_dir_base), *args, **kwargs)

    redirected._tfmigrate = True
    model_cls.write_saved_model = redirected


def _patch_restore_model_dir(model_cls):
    """The generated restore_model_dir(model_dir, ...) and restore_checkpoint(model_dir, ...) read the directory
    the program's checkpoints were moved to (a checkpoint the user keeps in the program's own model_dir is never
    read by a verify run)."""
    for name in ("restore_model_dir", "restore_checkpoint"):
        method = model_cls.__dict__.get(name)
        if method is None or getattr(method, "_tfmigrate", False):
            continue

        def redirected(self, model_dir, *args, _method=method, **kwargs):
            if kwargs.get("checkpoint_path") is not None:  # a checkpoint inside a moved model_dir moves with it
                kwargs["checkpoint_path"] = _under_redirected(kwargs["checkpoint_path"])
            return _method(self, _redirect(model_dir) if model_dir is not None else None, *args, **kwargs)

        redirected._tfmigrate = True
        setattr(model_cls, name, redirected)


def _patch_dirs(tf):
    if not os.environ.get("TFMIGRATE_MODEL_DIR"):
        return
    _SUBCLASS_HOOKS.append(_patch_restore_model_dir)
    _SUBCLASS_HOOKS.append(_patch_export_paths)
    _patch_path_arg(tf.train.CheckpointManager, "directory")
    import keras

    _patch_path_arg(keras.callbacks.BackupAndRestore, "backup_dir")
    _patch_path_arg(keras.callbacks.ModelCheckpoint, "filepath")
    callback = keras.callbacks.Callback

    def __init_subclass__(cls, **kwargs):
        # the generated EstimatorEarlyStopping reads the eval_dir the (redirected) EvalSummaries writer wrote
        super(callback, cls).__init_subclass__(**kwargs)
        if cls.__name__ == "EstimatorEarlyStopping" and "eval_dir" in inspect.signature(cls.__init__).parameters:
            _patch_path_arg(cls, "eval_dir")

    callback.__init_subclass__ = classmethod(__init_subclass__)
    create_file_writer = tf.summary.create_file_writer

    def redirected_writer(logdir, *args, **kwargs):  # the custom loop's summaries go to model_dir's events file
        return create_file_writer(_redirect(logdir), *args, **kwargs)

    tf.summary.create_file_writer = redirected_writer


_SUBCLASS_HOOKS = []  # called with each keras.Model subclass the program defines


def _patch_predictions():
    """Record what the migrated model's predict_examples (tfmigrate's Estimator.predict) yields."""
    from predictions_capture import recording  # this boot script's own directory

    capture_dir = os.environ["TFMIGRATE_CAPTURE_DIR"]

    def record(cls):
        method = cls.__dict__.get("predict_examples")
        if method is not None:
            cls.predict_examples = recording(method, capture_dir, TASK)

    _SUBCLASS_HOOKS.append(record)


def _patch_evaluations():
    """Record what evaluate() returns: Keras Model.evaluate (fit target, return_dict=True), an evaluate a Model
    subclass of the program defines, and the generated custom training loop's trainer.evaluate."""
    import keras

    import evaluations_capture  # this boot script's own directory

    capture_dir = os.environ["TFMIGRATE_CAPTURE_DIR"]
    keras.Model.evaluate = evaluations_capture.recording(keras.Model.evaluate, capture_dir, TASK)

    def record(cls):
        method = cls.__dict__.get("evaluate")
        if method is not None:
            cls.evaluate = evaluations_capture.recording(method, capture_dir, TASK)

    _SUBCLASS_HOOKS.append(record)

    # The generated custom-loop trainer (rules/emit/templates/ctl_trainer.py.j2) is a plain class: recognise it, as
    # it is created, by the methods the template gives it (train, evaluate, _evaluate_once).
    import builtins

    build_class = builtins.__build_class__

    def __build_class__(func, name, *bases, **kwargs):
        cls = build_class(func, name, *bases, **kwargs)
        own = getattr(cls, "__dict__", {})
        if isinstance(cls, type) and all(m in own for m in ("train", "evaluate", "_evaluate_once")):
            record(cls)
        return cls

    builtins.__build_class__ = __build_class__


def _patch_assign_step(tf):
    """The generated module of a model_fn that trains by assignment (rules/emit/templates/assign_step.py.j2: a
    tf.Module, recognised as it is created by its model_fn and tf1_variables methods): the loss of each TRAIN spec
    its model_fn returns (what train() fetches with the train_op) is recorded with its labels' batch (its
    features' without labels), as the original's hook records the model_fn's loss; what its predict_examples
    yields is recorded too."""
    import builtins

    build_class = builtins.__build_class__

    def wrap(method):
        def model_fn(self, features, labels, mode):
            spec = method(self, features, labels, mode)
            if mode != "train" or not isinstance(spec, dict) or "loss" not in spec:
                return spec
            loss = tf.convert_to_tensor(spec["loss"])
            batch = _first_leading_dim(tf, labels, features)
            return dict(spec, loss=_emit(tf, tf.reshape(loss, []), batch, loss))

        return model_fn

    def __build_class__(func, name, *bases, **kwargs):
        cls = build_class(func, name, *bases, **kwargs)
        own = getattr(cls, "__dict__", {})
        if isinstance(cls, type) and os.environ.get("TFMIGRATE_MODEL_DIR") and "get_variable_value" in own \
                and "_restore" in own:  # its trainer: model_dir is where its CheckpointManager was moved to
            _patch_path_arg(cls, "model_dir")
        if isinstance(cls, type) and "model_fn" in own and "tf1_variables" in own:
            cls.model_fn = wrap(own["model_fn"])
            if os.environ.get("TFMIGRATE_CAPTURE_DIR") and "predict_examples" in own:
                from predictions_capture import recording  # this boot script's own directory

                cls.predict_examples = recording(own["predict_examples"], os.environ["TFMIGRATE_CAPTURE_DIR"], TASK)
        return cls

    builtins.__build_class__ = __build_class__


def _patch_model_subclasses():
    import keras

    def patch(base):
        def __init_subclass__(cls, **kwargs):
            super(base, cls).__init_subclass__(**kwargs)
            for hook in _SUBCLASS_HOOKS:
                hook(cls)

        base.__init_subclass__ = classmethod(__init_subclass__)

    patch(keras.Model)
    # a model under the model-mapping shim subclasses tf_keras' Model (TF_USE_LEGACY_KERAS=1), not Keras 3's
    _on_import("tf_keras", lambda mod: patch(mod.Model))


def _install():
    import tensorflow as tf

    if os.environ.get("TFMIGRATE_CAPTURE_DIR"):
        os.makedirs(os.environ["TFMIGRATE_CAPTURE_DIR"], exist_ok=True)
    _open_loss_sink()

    _patch_compute_average_loss(tf)
    _patch_keras_compute_loss(tf)
    _patch_keras_sum_loss(tf)
    _patch_scalar_losses(tf)
    if _PROGRAM_USES["assign_step"]:
        _patch_assign_step(tf)
    _install_weights(tf)
    _patch_dirs(tf)
    if os.environ.get("TFMIGRATE_CAPTURE_DIR"):
        _patch_predictions()
        _patch_evaluations()
    if _SUBCLASS_HOOKS:
        _patch_model_subclasses()


# what the migrated program's own text uses, read before the patches: the tf_keras weight check and the assign-step
# patches are installed only for programs that need them (every other program runs under the harness as before)
_PROGRAM_USES = {"tf_keras": True, "assign_step": True}


def _read_program(program, limit=2000):
    """The markers in the program's text and in the Python files beside it (a package's entry point imports its
    model from a sibling module); past `limit` files, or when nothing can be read, every patch stays installed."""
    texts, seen = [], 0
    for root, _, names in os.walk(os.path.dirname(program)):
        for name in names:
            if not name.endswith(".py"):
                continue
            seen += 1
            if seen > limit:
                return
            try:
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as fh:
                    texts.append(fh.read())
            except OSError:
                return
    if not texts:
        return
    _PROGRAM_USES["tf_keras"] = any("tf_keras" in t for t in texts)
    _PROGRAM_USES["assign_step"] = any("tf1_variables" in t for t in texts)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: target_boot.py PROGRAM [ARGS...]\n")
        return 2
    program = os.path.abspath(sys.argv[1])
    _read_program(program)
    _install()
    sys.argv = [program] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
