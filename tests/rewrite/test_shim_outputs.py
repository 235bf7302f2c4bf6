"""TFM502: a forward pass that hands more than the model output to the rest of the model_fn
(rules/planners/shim_outputs.py): label-free loss terms on forward values become the shim model's losses, values
computed from the output at the end of the forward pass run after the call; what still reads two outputs blocks."""
from __future__ import annotations

from _helpers import blocked, converted, program, rewrite, section

NO_MODEL_DIR = 'config = tf.estimator.RunConfig(tf_random_seed=7)'
# the recommender shape: weights made with get_variable, read by embedding_lookup and again in the loss's L2 terms
FM = '''
l2_reg = params["l2"]
w = tf.compat.v1.get_variable("fm_w", [10], initializer=tf.compat.v1.glorot_normal_initializer())
v = tf.compat.v1.get_variable("fm_v", [10, 3], initializer=tf.compat.v1.glorot_normal_initializer())
ids = features["ids"]
with tf.compat.v1.variable_scope("first"):
    y_w = tf.reduce_sum(tf.nn.embedding_lookup(w, ids), 1)
with tf.compat.v1.variable_scope("deep"):
    net = tf.reshape(tf.nn.embedding_lookup(v, ids), [-1, 6])
    for units in params["layers"]:
        net = tf.compat.v1.layers.dense(net, units, activation=tf.nn.relu)
    y_d = tf.reshape(tf.compat.v1.layers.dense(net, 1), [-1])
with tf.compat.v1.variable_scope("out"):
    y = y_w + y_d
    pred = tf.sigmoid(y)
'''
L2_LOSS = ('loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels)) + \\\n'
           '    l2_reg * tf.nn.l2_loss(w) + l2_reg * tf.nn.l2_loss(v)')
METRICS = 'metrics = {"auc": tf.compat.v1.metrics.auc(labels, pred)}'
SPEC = "return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)"
ESTIMATOR = 'est = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"l2": 0.01, "layers": [4]})'


def _program(forward: str = FM, loss: str = L2_LOSS, **kw) -> str:
    return program(forward=forward, loss=loss, middle=METRICS, spec=SPEC, run_config=NO_MODEL_DIR,
                   estimator=ESTIMATOR, **kw)


def _call(out: str) -> str:
    return section(out, "    @tf.compat.v1.keras.utils.track_tf1_style_variables", "class ModelTrainer")


def test_explicit_l2_terms_on_forward_variables_become_the_models_losses():
    out = converted(_program())
    call = _call(out)
    # the terms, computed in the call from the same variables; the model output stays `y`
    assert "self.add_loss(l2_reg * tf.nn.l2_loss(w))\n            self.add_loss(l2_reg * tf.nn.l2_loss(v))" in call
    assert "        return y\n" in call
    # pred is computed from the output after the call (predictions, the metric), not in it
    assert "pred = tf.sigmoid(y)" not in call
    assert "keras.metrics.AUC(from_logits=True" in out
    # the loss class keeps the cross-entropy only: the loop adds model.losses to it
    loss_class = section(out, "class ModelLoss(", "class Model(keras.Model)")
    assert "l2_loss" not in loss_class and "sigmoid_cross_entropy_with_logits" in loss_class
    assert "tf.add_n(model.losses)" in out


def test_the_native_blocker_on_a_forward_value_read_by_the_loss_tries_the_shim():
    result = rewrite(_program())
    [note] = [d for d in result.diagnostics if d.code == "TFM502"]
    assert "the native conversion stopped at: `loss = ...` uses `v`, which the converted model cannot see" in note.message
    assert not [d for d in result.diagnostics if d.severity == "error"]


def test_under_style_native_the_value_still_blocks_with_a_note_that_the_shim_converts():
    result = blocked(_program(), style="native")
    assert any(d.code == "TFM502" and "--style auto" in d.message for d in result.diagnostics)


def test_a_term_on_a_value_computed_from_the_labels_is_not_moved():
    # `scale` comes from the labels: the term is not the model's alone, it stays in the loss (and blocks there)
    loss = ('scale = tf.cast(tf.shape(labels)[0], tf.float32)\n'
            'loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels)) + '
            'l2_reg * tf.nn.l2_loss(w) / scale')
    result = blocked(_program(loss=loss))
    assert "self.add_loss" not in (result.output or b"").decode()
    assert any(d.severity == "error" for d in result.diagnostics)


def test_a_loss_summed_over_the_batch_takes_the_term_once_per_batch():
    # a hand-written loss that is not a mean is one value per batch: the loop adds the model's losses to that value
    # once, (sum + term) / replicas per replica as TF1 scaled it
    loss = ('loss = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels)) + '
            'l2_reg * tf.nn.l2_loss(w)')
    out = converted(_program(loss=loss))
    assert "self.add_loss(l2_reg * tf.nn.l2_loss(w))" in _call(out)
    loss_class = section(out, "class ModelLoss(", "class Model(keras.Model)")
    assert "l2_loss" not in loss_class and "return tf.reshape(loss, [1])" in loss_class


def test_a_second_head_read_after_the_forward_pass_still_blocks_naming_it():
    # y2 makes variables (a layer): it cannot run after the call; the L2 term alone would have converted
    forward = FM.replace("    pred = tf.sigmoid(y)", "    y2 = tf.compat.v1.layers.dense(net, 1, name=\"aux\")")
    src = _program(forward=forward).replace("labels, pred)", "labels, tf.sigmoid(y2))")
    result = blocked(src)
    assert any(d.code == "TFM502" and "the forward pass hands `y`, `y2` to the rest of the model_fn" in d.message
               for d in result.diagnostics), [d.format() for d in result.diagnostics]


XENT = "tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels))"


def test_a_term_added_to_the_loss_afterwards_moves_too():
    out = converted(_program(loss=f"loss = {XENT}\nloss += l2_reg * tf.nn.l2_loss(w)"))
    assert "self.add_loss(l2_reg * tf.nn.l2_loss(w))" in _call(out)
    assert "l2_loss" not in section(out, "class ModelLoss(", "class Model(keras.Model)")


def test_a_term_added_after_the_loss_was_read_stays_and_blocks():
    # the hook logs the loss without the term (TF1's value at that point): moving the term would change it
    loss = (f"loss = {XENT}\nhook = tf.estimator.LoggingTensorHook({{'xent': loss}}, every_n_iter=1)\n"
            "loss += l2_reg * tf.nn.l2_loss(w)")
    src = _program(loss=loss).replace("train_op=train_op,", "train_op=train_op, training_hooks=[hook],")
    result = blocked(src)
    assert "self.add_loss" not in (result.output or b"").decode()


def test_a_named_term_moves_with_its_statement():
    loss = f"reg = l2_reg * (tf.nn.l2_loss(w) + tf.nn.l2_loss(v))\nloss = {XENT} + reg"
    call = _call(converted(_program(loss=loss)))
    assert ("reg = l2_reg * (tf.nn.l2_loss(w) + tf.nn.l2_loss(v))\n"
            "            # the loss's terms on forward values: the model's losses, which the loop adds to the loss\n"
            "            self.add_loss(reg)") in call


def test_a_named_term_read_besides_the_loss_stays_and_blocks():
    loss = f"reg = l2_reg * tf.nn.l2_loss(w)\nloss = {XENT} + reg"
    src = _program(loss=loss).replace('metrics = {"auc"', 'metrics = {"reg": tf.compat.v1.metrics.mean(reg), "auc"')
    result = blocked(src)
    assert "self.add_loss" not in (result.output or b"").decode()


def test_a_metric_converted_to_the_generated_tf1mean_runs_under_the_shim():
    # accuracy over tf.round(pred) becomes the generated TF1Mean; its variables are made by add_weight keywords,
    # which Keras 3 and tf_keras (the shim's Keras) both take (Keras 3's add_variable(shape, initializer) failed there)
    src = _program().replace('metrics = {"auc": tf.compat.v1.metrics.auc(labels, pred)}',
                             'metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.round(pred))}')
    out = converted(src)
    assert "track_tf1_style_variables" in out and "TF1Mean(" in out
    assert 'self.add_weight(name="total", shape=(), initializer="zeros", dtype="float32")' in out
    assert "add_variable(" not in out
