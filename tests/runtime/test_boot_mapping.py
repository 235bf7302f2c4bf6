"""target_boot's weight mapping helpers (pure Python + numpy; the boot script itself runs in the target env)."""
import importlib.util
import types

import numpy as np
import pytest

from tfmigrate.runtime import capture


@pytest.fixture(scope="module")
def boot():
    spec = importlib.util.spec_from_file_location("target_boot_under_test", capture.TARGET_BOOT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_exact_name_first(boot):
    free = ["dense/kernel", "tower/dense/kernel", "kernel"]
    assert boot._name_candidates("dense/kernel", "kernel", free)[0] == ("dense/kernel", "name")


def test_unique_scoped_suffix(boot):
    free = ["tower/dense/kernel", "tower/dense/bias", "tower/dense_1/kernel"]
    assert boot._name_candidates("dense/kernel", "kernel", free) == [("tower/dense/kernel", "scoped name")]
    # ambiguous scopes: no guess by name (creation order decides)
    assert boot._name_candidates("dense/kernel", "kernel", ["a/dense/kernel", "b/dense/kernel"]) == []


def test_bare_name_for_a_weight_on_the_model_itself(boot):
    free = ["embeddings", "dense/kernel"]
    assert boot._name_candidates("ps_model/embeddings", "embeddings", free) == [("embeddings", "bare name")]
    assert boot._name_candidates("ps_model/embeddings", "embeddings", ["dense/kernel"]) == []


def test_partitioned_tf1_variable_is_one_checkpoint_tensor(boot):
    assert boot._ckpt_name("embeddings/part_1:0") == "embeddings"
    assert boot._ckpt_name("tower/emb/part_12") == "tower/emb"
    assert boot._ckpt_name("dense/kernel:0") == "dense/kernel"
    assert boot._ckpt_name("part_1/kernel:0") == "part_1/kernel"


def test_shard_slices_the_checkpoint_value(boot):
    full = np.arange(13 * 2, dtype=np.float32).reshape(13, 2)
    # PSS "div" layout of 13 rows over 5 shards: 3,3,3,2,2
    offsets, sizes = [0, 3, 6, 9, 11], [3, 3, 3, 2, 2]
    parts = [boot._shard(full, (n, 2), (o, 0)) for o, n in zip(offsets, sizes)]
    assert np.array_equal(np.concatenate(parts), full)
    assert boot._shard(full, None, None) is full

    class Shape:  # tf.TensorShape-like (shard_info.shape)
        def as_list(self):
            return [2, 2]

    assert np.array_equal(boot._shard(full, Shape(), (11, 0)), full[11:13])


def test_add_weight_maps_model_weights_but_not_metric_state(boot):
    class Layer:
        def __init__(self, name):
            self.name = name

        def add_weight(self, name=None, shape=None, initializer=None, trainable=True):
            return ("var", name, initializer)

    class Metric(Layer):  # tf_keras metrics keep their running state in weights
        pass

    class FakeMapper:
        def __init__(self):
            self.taken, self.checked = [], []

        def take(self, layer, weight, shape, owner=None):
            self.taken.append(f"{layer}/{weight}")
            return np.zeros(shape, np.float32)

        def check(self, target, var, value):
            self.checked.append(target)

    mapper = FakeMapper()
    boot._patch_add_weight(Layer, mapper)
    var = Layer("dense").add_weight("kernel", (2, 3), initializer="glorot")
    assert isinstance(var[2], boot._ConstInit) and var[2].value.shape == (2, 3)
    assert Metric("mae").add_weight("total", ())[2] is None
    assert mapper.taken == ["dense/kernel"] and mapper.checked == ["dense/kernel"]


def test_the_other_keras_layers_keep_their_initializers(boot):
    """A program's own tf_keras models beside the converted Estimator's Keras 3 model (rules/planners/
    keras2_program.py): once Keras 3 weights were mapped, a tf_keras layer's are not the Estimator's, and the
    reverse."""
    class FakeMapper:
        def __init__(self):
            self.taken = []

        def take(self, layer, weight, shape, owner=None):
            self.taken.append(f"{layer}/{weight}")
            return np.zeros(shape, np.float32)

        def check(self, target, var, value):
            pass

    for tf_keras_first in (False, True):
        class Layer:
            def __init__(self, name):
                self.name = name

            def add_weight(self, name=None, shape=None, initializer=None, trainable=True):
                return ("var", name, initializer)

        TfKerasLayer = type("Layer", (Layer,), {"__module__": "tf_keras.src.engine.base_layer"})
        first, other = (TfKerasLayer, Layer) if tf_keras_first else (Layer, TfKerasLayer)
        mapper = FakeMapper()
        boot._patch_add_weight(Layer, mapper)
        assert isinstance(first("linear").add_weight("kernel", (2, 1), initializer="zeros")[2], boot._ConstInit)
        assert other("dense").add_weight("kernel", (2, 1), initializer="glorot")[2] == "glorot"
        assert isinstance(first("logits").add_weight("bias", (1,), initializer="zeros")[2], boot._ConstInit)
        assert mapper.taken == ["linear/kernel", "logits/bias"]


def test_a_second_instance_of_the_model_starts_from_the_same_values(boot):
    """A program that builds its model twice (train(), then predict() over the same model_dir): the second
    instance's weights start from the checkpoint values the first took, as the Estimator's second graph did; a
    second weight of the same name on the same layer is still an error."""
    values = {"dense/kernel": np.ones((2, 3), np.float32)}
    mapper = object.__new__(boot._WeightMapper)
    mapper.reader = types.SimpleNamespace(get_tensor=lambda name: values[name])
    mapper.shapes = {"dense/kernel": (2, 3)}
    mapper.order, mapper.used, mapper.mapped, mapper.unmatched = ["dense/kernel"], set(), [], []
    mapper.owners, mapper.write = {}, lambda: None
    failures = []
    mapper.fail = failures.append
    first, second = object(), object()
    assert mapper.take("dense", "kernel", (2, 3), owner=id(first)).sum() == 6
    assert mapper.take("dense", "kernel", (2, 3), owner=id(second)).sum() == 6
    assert not failures
    mapper.take("dense", "kernel", (2, 3), owner=id(first))
    assert failures and "no checkpoint variable" in failures[0]


def test_object_based_checkpoint_keys_in_layer_order(boot):
    """model_to_estimator's Estimator saves the Keras model by object graph: its weights are
    layer_with_weights-<i>/<weight>, mapped in layer order (numeric: 10 after 2), kernel before bias; optimizer slots,
    hyperparameters and the step are not model weights."""
    keys = [f"layer_with_weights-{k}/.ATTRIBUTES/VARIABLE_VALUE"
            for k in ("10/bias", "2/kernel", "2/bias", "0/bias", "0/kernel")]
    assert sorted(keys, key=boot._object_key) == [keys[4], keys[3], keys[1], keys[2], keys[0]]
    for other in ("layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
                  "optimizer/learning_rate/.ATTRIBUTES/VARIABLE_VALUE",
                  "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE",
                  "_CHECKPOINTABLE_OBJECT_GRAPH", "dense/kernel"):
        assert not boot._OBJECT_LAYER.match(other), other


def test_a_v2_estimators_keras_optimizer_variables_are_not_weights(boot):
    """A v2 canned Estimator's legacy Keras optimizer saves training/<optimizer>/... (slots, hyperparameters): they
    start from constants on both sides and must not be offered to the model's weights (nor reported unused)."""
    for name in ("training/Adagrad/dnn/hiddenlayer_0/kernel/accumulator", "training/Adagrad/decay",
                 "training/Adagrad/learning_rate", "training/Ftrl/linear/linear_model/a/weights/linear",
                 "dnn/hiddenlayer_0/kernel/Adagrad", "global_step"):
        assert boot._EXCLUDE.search(name), name
    for name in ("dnn/hiddenlayer_0/kernel", "dnn/logits/bias", "training_tower/dense/kernel", "tower/training/w"):
        assert not boot._EXCLUDE.search(name), name


def test_after_import_callbacks_chain(boot, monkeypatch):
    """Two patches of one module not imported yet (weights, sum losses: tf_keras) both run when it is imported."""
    import sys

    name = "tfmigrate_after_import_probe"
    monkeypatch.setattr(boot, "_AFTER_IMPORT", {})
    seen = []
    boot._on_import(name, lambda mod: seen.append(("a", mod.__name__)))
    boot._on_import(name, lambda mod: seen.append(("b", mod.__name__)))
    finder = boot._AFTER_IMPORT[name]
    assert finder.callbacks and sys.meta_path.count(finder) == 1
    try:
        finder.callback(types.SimpleNamespace(__name__=name))
    finally:
        sys.meta_path.remove(finder)
    assert seen == [("a", name), ("b", name)]
    boot._on_import("sys", lambda mod: seen.append(("now", mod.__name__)))  # imported already: runs at once
    assert seen[-1] == ("now", "sys")
