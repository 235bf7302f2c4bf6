"""A model_fn's parameters in any order or subset (issue 12): TF 2.15's Estimator passes labels / mode / params /
config by name (`_call_model_fn` reads the signature), so each parameter is read by its name, never by position."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program

# mode tested, params read (the learning rate and a layer width) and labels read: each must be taken by its name
BODY = '''
def model_fn(SIGNATURE):
    logits = tf.compat.v1.layers.dense(features["x"], params["units"])
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": logits})
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''
PARAMS_ESTIMATOR = 'est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"lr": 0.1, "units": 1})'
NO_PARAMS = "est = tf.estimator.Estimator(model_fn=model_fn, config=config)"


def body(signature: str) -> str:
    return BODY.replace("SIGNATURE", signature)


@pytest.mark.parametrize("signature", [
    "features, labels, params, mode",  # was: params read as the mode (a silent wrong conversion)
    "features, mode, labels, params",
    "mode, features, labels, params",
    "params, labels, features, mode",
    "labels, mode, params, features, config",
    "features, labels, mode, params=None",
])
def test_parameters_in_any_order_convert_as_the_canonical_order_does(signature):
    canonical = converted(program(body("features, labels, mode, params"), estimator=PARAMS_ESTIMATOR))
    out = converted(program(body(signature), estimator=PARAMS_ESTIMATOR))
    assert out == canonical
    # the mode test became the predict branch, params the model's params dict
    assert 'self.dense = keras.layers.Dense(units=params["units"], name="dense")' in out
    assert 'learning_rate=params["lr"]' in out


@pytest.mark.parametrize("signature", ["mode, features, labels", "labels, features, mode", "features, mode, labels"])
def test_a_subset_without_params_converts_as_the_canonical_order_does(signature):
    src = body(signature).replace('params["units"]', "1").replace('params["lr"]', "0.1")
    assert "params" not in src
    canonical = converted(program(src.replace(f"({signature})", "(features, labels, mode)"), estimator=NO_PARAMS))
    assert converted(program(src, estimator=NO_PARAMS)) == canonical


def test_config_out_of_order_is_not_read_as_params():
    # (features, labels, mode, config) was read by position: `config` as the params dict
    src = body("features, labels, mode, config").replace('params["units"]', "1").replace('params["lr"]', "0.1")
    out = converted(program(src, estimator=NO_PARAMS))
    assert out == converted(program(src.replace("mode, config)", "mode)"), estimator=NO_PARAMS))


def test_params_by_name_feeds_input_layer_columns():
    # the columns of input_layer read from params["columns"] are looked up in the Estimator's params by name
    src = program('''
    def model_fn(params, mode, labels, features):
        net = tf.compat.v1.feature_column.input_layer(features, params["columns"])
        logits = tf.compat.v1.layers.dense(net, 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    ''', estimator='est = tf.estimator.Estimator(model_fn=model_fn, config=config, '
                     'params={"columns": [tf.feature_column.numeric_column("x", shape=(2,))]})')
    canonical = converted(src.replace("(params, mode, labels, features)", "(features, labels, mode, params)"))
    assert converted(src) == canonical


@pytest.mark.parametrize("signature, missing", [
    ("features, mode, params", ["labels"]),
    ("mode, params, features", ["labels"]),
    ("features, labels, params", ["mode"]),
    ("params, features", ["labels", "mode"]),
])
def test_a_model_fn_without_labels_or_mode_is_reported_with_what_to_add(signature, missing):
    [d] = blocked(program(body(signature), estimator=PARAMS_ESTIMATOR)).diagnostics
    assert (d.code, d.line) == ("TFM501", 13)
    assert d.message.startswith(f"model_fn({signature}) takes no " + " and no ".join(f"`{n}`" for n in missing))
    assert f"add {' and '.join(f'`{n}`' for n in missing)} (any position" in d.message
    assert ("input_fn that returns labels" in d.message) == ("labels" in missing)
    assert "write them in that order" not in d.message


def test_a_model_fn_without_features_is_reported():
    [d] = blocked(program(body("labels, mode, params"), estimator=PARAMS_ESTIMATOR)).diagnostics
    assert (d.code, d.line) == ("TFM501", 13)
    assert "takes no `features`" in d.message and "must include features argument" in d.message


@pytest.mark.parametrize("signature, names", [
    ("features, labels, *, mode, params", "`mode`, `params`"),
    ("features, labels, mode, *, params", "`params`"),
    ("features, *, labels, mode, params=None", "`labels`, `mode`, `params`"),
])
def test_keyword_only_parameters_are_reported_as_never_passed(signature, names):
    # TF 2.15 reads the model_fn's parameters with getfullargspec().args: keyword-only ones are never passed
    # (checked on TF 2.15: fn_args(def f(features, labels, *, mode, params)) == ("features", "labels"))
    [d] = blocked(program(body(signature).replace('params["units"]', "1").replace('params["lr"]', "0.1"),
                          estimator=NO_PARAMS)).diagnostics
    assert d.code == "TFM501" and d.line == 13
    assert d.message.startswith(f"model_fn takes {names} as keyword-only")
    assert "move them before the `*`" in d.message
    # with Estimator(params=...), TF1 raised when the Estimator was built: that is what is reported
    [d] = blocked(program(body(signature), estimator=PARAMS_ESTIMATOR)).diagnostics
    assert (d.code, d.line) == ("TFM501", 25) and "which takes no `params`" in d.message


@pytest.mark.parametrize("signature", ["features, labels, mode", "mode, features, labels", "labels, features, mode, config"])
def test_params_given_to_an_estimator_whose_model_fn_takes_none_is_reported_as_tf_raised(signature):
    # TF 2.15's _verify_model_fn_args: ValueError "model_fn (...) does not include params argument, but params (...)
    # is passed to Estimator" (checked on TF 2.15 with params={})
    src = body(signature).replace('params["units"]', "1").replace('params["lr"]', "0.1")
    converted(program(src, estimator=NO_PARAMS))
    for given in ('params={"lr": 0.1}', "params={}"):
        [d] = blocked(program(src, estimator=NO_PARAMS.replace("config=config", f"config=config, {given}"))).diagnostics
        assert (d.code, d.line) == ("TFM501", 25)
        assert d.message.startswith("Estimator(params=...) for model_fn `model_fn`, which takes no `params`: TF 2.15 "
                                    "raises")
    # params=None is what the Estimator's default is
    converted(program(src, estimator=NO_PARAMS.replace("config=config", "config=config, params=None")))
