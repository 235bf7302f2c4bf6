"""Every blocker of a file is reported, each with its own code and line (issue 12): a user fixing them one at a time
and re-running is the workflow to avoid. Blockers that follow from another one are not reported again. The programs
here are written for the tests."""
from __future__ import annotations

from _helpers import FORWARD, RUN_CONFIG, blocked, program, rewrite

SEVERAL = '''\
import tensorflow as tf

SCOPE = "net" + "work"


class CountHook(tf.estimator.SessionRunHook):
    def after_run(self, run_context, run_values):
        pass


def train_input_fn():
    ds = tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]]))
    return ds.batch(1).repeat()


def model_fn(features, labels, mode, params):
    with tf.compat.v1.variable_scope(SCOPE):
        extra = tf.compat.v1.layers.dense(features["x"], 1)
    tf.compat.v1.add_to_collection("extras", extra)
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    while features is None:
        pass
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[CountHook()])


def main():
    config = tf.estimator.RunConfig(model_dir="/tmp/m", device_fn=lambda op: "", protocol="grpc")
    est = tf.estimator.Estimator(model_fn=model_fn, config=config)
    est.train(input_fn=train_input_fn, max_steps=10, hooks=[CountHook()])


if __name__ == "__main__":
    main()
'''


def found(src: str) -> list[tuple[str, int, int]]:
    """The errors (not the notes: why the model-mapping shim could not convert a model_fn either, TFM502)."""
    return sorted(((d.code, d.line, d.col) for d in blocked(src).diagnostics if d.severity == "error"),
                  key=lambda f: f[1:])


def test_independent_blockers_in_different_rules_are_each_reported_at_their_line():
    # the model_fn's variable_scope (TFM811), its while loop (TFM501), its EstimatorSpec hook (TFM611) and two
    # RunConfig settings (TFM601): before, the first RunConfig setting alone was reported (the Estimator was not
    # analysed further); `add_to_collection(..., extra)` reads the value the blocked scope builds: not reported again
    assert found(SEVERAL) == [("TFM811", 17, 37), ("TFM501", 22, 4), ("TFM611", 26, 90), ("TFM601", 30, 66),
                              ("TFM601", 30, 90)]
    messages = {d.col: d.message for d in blocked(SEVERAL).diagnostics if d.line == 30}
    assert "RunConfig(device_fn=...)" in messages[66] and "RunConfig(protocol=...)" in messages[90]


def test_a_model_fn_blocker_alone_is_still_the_only_diagnostic():
    # the others fixed, the last one left is reported alone (and the statement that read the blocked scope's value,
    # a blocker of its own, now shows: it was not reported while its input was blocked)
    assert ("TFM501", 19) in [(c, line) for c, line, _ in found(SEVERAL.replace("variable_scope(SCOPE)",
                                                                                'variable_scope("n")'))]
    src = SEVERAL.replace("variable_scope(SCOPE)", 'variable_scope("n")').replace(
        '    tf.compat.v1.add_to_collection("extras", extra)\n', "").replace(
        "    while features is None:\n        pass\n", "").replace(", training_hooks=[CountHook()]", "").replace(
        ', device_fn=lambda op: ""', "")
    assert [(c, line) for c, line, _ in found(src)] == [("TFM601", 27)]
    fixed = src.replace(', protocol="grpc"', "")
    assert rewrite(fixed).status == "changed"


def test_a_strategy_not_converted_does_not_hide_the_model_fn_blockers():
    src = SEVERAL.replace('device_fn=lambda op: "", protocol="grpc"',
                          "train_distribute=tf.contrib.distribute.MirroredStrategy()")
    assert [(c, line) for c, line, _ in found(src)] == [("TFM811", 17), ("TFM501", 22), ("TFM611", 26),
                                                        ("TFM701", 30)]


TRAIN_AND_EVALUATE = """\
train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10, saving_listeners=[object()])
exporter = tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None)
eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2, exporters=[exporter])
tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
"""


def test_train_and_evaluate_reports_its_train_spec_and_eval_spec_blockers_and_nothing_about_their_names():
    # both specs' blockers; the specs' names read by the reported call are not "also used here" again
    src = program(drive=TRAIN_AND_EVALUATE)
    diagnostics = blocked(src).diagnostics
    # TrainSpec(saving_listeners=...); the exporter's receiver (`lambda: None`), a blocker of its own, with it; the
    # BestExporter's check, which reads the TrainSpec's max_steps, only once the TrainSpec is read
    assert [(d.code, d.line) for d in diagnostics] == [("TFM601", 26), ("TFM601", 27)]
    assert "saving_listeners" in diagnostics[0].message and "serving_input_receiver_fn `lambda: None`" in \
        diagnostics[1].message
    # the TrainSpec fixed: the EvalSpec's BestExporter is what remains
    fixed = blocked(program(drive=TRAIN_AND_EVALUATE.replace(", saving_listeners=[object()]", ""))).diagnostics
    assert [(d.code, d.line) for d in fixed] == [("TFM601", 28)] and "BestExporter" in fixed[0].message
    # an EvalSpec blocker of its own (not through the exporters, which read the TrainSpec) beside the TrainSpec's
    both = blocked(program(drive=TRAIN_AND_EVALUATE.replace("exporters=[exporter]", "hooks=[CustomHook()]")))
    assert [(d.code, d.line) for d in both.diagnostics] == [("TFM601", 26), ("TFM611", 28)]


# ---- tf.compat.v1.set_random_seed ---------------------------------------------------------------------------------
# TF 2.15, measured (an Estimator trained 1 step at learning rate 0, its kernel read back, two processes each): with
# the call at module level the kernels differed between the runs; with it in the model_fn or the input_fn they were
# equal, and equal to those of RunConfig(tf_random_seed=1): the Estimator builds each graph with the RunConfig's seed.

def test_a_seed_set_in_the_driver_never_reached_the_estimator_and_is_dropped_with_a_note():
    for where in ("module", "main"):
        for call in ("tf.set_random_seed(1)", "tf.compat.v1.set_random_seed(1)", "tf.compat.v1.random.set_random_seed(1)"):
            src = program(extra=call) if where == "module" else program(run_config=call + "\n" + RUN_CONFIG)
            result = rewrite(src)
            assert result.status == "changed", (where, call)
            out = result.output.decode()
            assert "set_random_seed(1)" not in out and "tf.random.set_seed" not in out
            assert "keras.utils.set_random_seed(7)" in out  # the RunConfig's seed, as the Estimator had
            [note] = result.diagnostics
            assert (note.code, note.severity, note.line) == ("TFM001", "note", 4 if where == "module" else 24)
            assert "never reached the Estimator" in note.message


def test_a_seed_set_in_the_model_fn_is_reported_with_the_setting_to_use():
    found = blocked(program(forward="tf.compat.v1.set_random_seed(1)\n" + FORWARD)).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM501", 14)]
    assert "RunConfig(tf_random_seed=...)" in found[0].message and "seeds the Estimator's graph" in found[0].message


def test_a_seed_set_in_a_helper_function_is_reported_with_both_cases():
    found = blocked(program(extra="def seeded():\n    tf.compat.v1.set_random_seed(1)\n")).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM001", 5)]
    assert "in `seeded`" in found[0].message and "input_fn" in found[0].message and "delete it" in found[0].message


# ---- messages that say what the construct is ----------------------------------------------------------------------
LOOP_VOCABULARIES = '''\
import tensorflow as tf

KEYS = ["colour", "size"]
WORDS = open("/tmp/words.txt")  # one line per column: a second read gives the next line


def read_words(key):
    return WORDS.readline().split()


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"colour": ["red"], "size": ["big"]}, [1.0])).batch(1)


columns = []
for key in KEYS:
    words = read_words(key)
    columns.append(tf.feature_column.categorical_column_with_vocabulary_list(key, words))
regressor = tf.estimator.LinearRegressor(feature_columns=columns, model_dir="/tmp/m")
regressor.train(input_fn, max_steps=2)
'''


def test_a_run_time_vocabulary_computed_in_a_loop_is_reported_as_such():
    # each pass built its column on its own list; where the Estimator is built `words` holds the last one: the
    # migrated model was given that one for every column (a silent change of training before); a pass's own
    # expression is re-evaluated there only when a second evaluation gives the same list (_per_pass.py), not a
    # handle's next line
    found = blocked(LOOP_VOCABULARIES).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM622", 18)]
    assert "loop at line 16 (`for key in KEYS:`)" in found[0].message
    assert "Estimator is built (line 19)" in found[0].message and "last pass's value" in found[0].message
    # through a helper building the column from its parameter, the same
    helper = LOOP_VOCABULARIES.replace(
        "columns = []", "def column(key, vocabulary):\n    return tf.feature_column.categorical_column_with_vocabulary_list("
                        "key, vocabulary)\n\n\ncolumns = []").replace(
        "tf.feature_column.categorical_column_with_vocabulary_list(key, words)", "column(key, words)")
    found = blocked(helper).diagnostics
    assert [d.code for d in found] == ["TFM622"] and "`words` takes a new run-time value" in found[0].message
    # one run-time vocabulary computed once, before the loop: converted as before
    once = LOOP_VOCABULARIES.replace("    words = read_words(key)\n", "").replace(
        "columns = []", 'words = read_words("all")\ncolumns = []')
    assert rewrite(once).status == "changed"


HELPERS_ONLY = '''\
import tensorflow as tf


def make_config(model_dir):
    return tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=100)


def make_specs(train_fn, eval_fn):
    train = tf.estimator.TrainSpec(input_fn=train_fn, max_steps=1000)
    return train, tf.estimator.EvalSpec(input_fn=eval_fn, steps=10)
'''


def test_a_file_of_estimator_helpers_says_so_at_each_construct_and_where_their_user_would_be():
    found = blocked(HELPERS_ONLY).diagnostics
    assert [(d.code, d.line) for d in found] == [("TFM601", 5), ("TFM601", 9), ("TFM601", 10)]
    assert found[0].message.startswith("tf.estimator.RunConfig in `make_config`: this file builds no Estimator, and "
                                       "no file linked with it in this run calls `make_config`")
    assert found[1].message.startswith("tf.estimator.TrainSpec in `make_specs`")
    # no importer claimed (nor denied: one importing it by a path not resolved from the run's root is not linked)
    assert all("run tfmigrate from the directory where the program's import paths start, with the file that builds "
               "the Estimator it serves" in d.message for d in found)


ATTRIBUTE_HOLDER = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0]]}, [[2.0]])).batch(1)


class Trainer:
    def __init__(self, model_dir):
        self.regressor = tf.estimator.LinearRegressor(
            feature_columns=[tf.feature_column.numeric_column("x")], model_dir=model_dir)

    def fit(self, steps):
        self.regressor.train(input_fn=input_fn, steps=steps)


Trainer("/tmp/m").fit(3)
'''


def test_an_estimator_kept_in_an_object_attribute_is_reported_as_such():
    # was "the Estimator is used right where it is built ...; assign it to a name first": it is assigned, to an attribute
    [found] = blocked(ATTRIBUTE_HOLDER).diagnostics
    assert (found.code, found.line) == ("TFM601", 10)
    assert found.message.startswith("the Estimator is stored in the attribute `self.regressor` in class `Trainer`")


BASE_CLASS_MODEL_FN = '''\
import tensorflow as tf


class Base:
    def __init__(self, params):
        self.estimator = tf.estimator.Estimator(self.model_fn, params=params)

    def model_fn(self, features, labels, mode, params):
        """Subclasses build the model."""
        raise NotImplementedError
'''


def test_a_model_fn_that_is_an_abstract_method_is_reported_as_a_subclass_override():
    [found] = blocked(BASE_CLASS_MODEL_FN).diagnostics
    assert (found.code, found.line) == ("TFM601", 6)
    assert "`Base.model_fn` only raises" in found.message and "subclass's override" in found.message
    concrete = blocked(BASE_CLASS_MODEL_FN.replace("raise NotImplementedError", "return None")).diagnostics
    assert "`Base.model_fn`, which a subclass may override" in concrete[0].message


def test_a_local_assigned_again_by_an_augmented_assignment_is_reported_as_written():
    # `units *= 2` made `units` no static local: the message showed the substituted copy, "statement `4 *= 2`"
    forward = 'units = 4\nunits *= 2\n' + FORWARD
    [found] = blocked(program(forward=forward)).diagnostics
    assert (found.code, found.line) == ("TFM501", 15) and "`units *= 2`" in found.message


# ---- several blockers inside one block of the model_fn ------------------------------------------------------------
BLOCKS = '''\
import tensorflow as tf

HIDDEN = [8, 4]


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def model_fn(features, labels, mode, params):
    net = features["x"]
    with tf.compat.v1.variable_scope("tower"):
        tf.compat.v1.set_random_seed(3)
        net = tf.compat.v1.layers.dense(net, 4)
        counter = tf.Variable(0.0)
    for units in HIDDEN:
        net = tf.compat.v1.layers.dense(net, units)
        tf.compat.v1.add_to_collection("nets", net)
        weights = tf.compat.v1.get_variable("w", [units])
    logits = tf.compat.v1.layers.dense(net, 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        tf.compat.v1.set_random_seed(5)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        while train_op is None:
            pass
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


est = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m")
est.train(input_fn, max_steps=2)
'''
BLOCK_LINES = {13: "    with tf.compat.v1.variable_scope(\"tower\"):\n        tf.compat.v1.set_random_seed(3)\n",
               15: "        counter = tf.Variable(0.0)\n",
               18: "        tf.compat.v1.add_to_collection(\"nets\", net)\n",
               19: "        weights = tf.compat.v1.get_variable(\"w\", [units])\n",
               24: "        tf.compat.v1.set_random_seed(5)\n",
               27: "        while train_op is None:\n            pass\n"}


def test_each_blocker_inside_a_with_or_a_for_block_is_reported_at_its_own_line():
    # before, the variable_scope's first statement alone was reported: its other blocker, the loop's two and the
    # control_dependencies block's two were found one re-run at a time
    assert [(c, line) for c, line, _ in found(BLOCKS)] == [("TFM501", 13), ("TFM811", 15), ("TFM501", 18),
                                                          ("TFM501", 19), ("TFM501", 24), ("TFM501", 27)]


def test_fixing_one_blocker_of_a_block_leaves_exactly_the_others():
    # no blocker hid another or followed from one: each removed alone takes exactly its own diagnostic away
    for line, text in BLOCK_LINES.items():
        fixed = BLOCKS.replace(text, "    with tf.compat.v1.variable_scope(\"tower\"):\n" if line == 13 else "")
        shift = text.count("\n") - (1 if line == 13 else 0)
        want = sorted(n - (shift if n > line else 0) for n in BLOCK_LINES if n != line)
        assert [n for _, n, _ in found(fixed)] == want, line
    clean = BLOCKS
    for line, text in BLOCK_LINES.items():
        clean = clean.replace(text, "    with tf.compat.v1.variable_scope(\"tower\"):\n" if line == 13 else "")
    assert rewrite(clean).status == "changed"


# the end of the model_fns below: loss, training op, spec
TAIL = '''\
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''
MODE_ARMS = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def model_fn(features, labels, mode, params):
    net = tf.compat.v1.layers.dense(features["x"], 4)
    if mode == tf.estimator.ModeKeys.TRAIN:
        tf.compat.v1.set_random_seed(3)
        net = tf.compat.v1.layers.dropout(net, 0.5, training=True)
        while net is None:
            pass
    else:
        tf.compat.v1.set_random_seed(4)
    logits = tf.compat.v1.layers.dense(net, 1)
''' + TAIL + '''

def main():
    est = tf.estimator.Estimator(model_fn, model_dir="/tmp/m")
    est.train(input_fn, max_steps=2)


if __name__ == "__main__":
    main()
'''


def test_each_blocker_in_the_arms_of_a_mode_branch_is_reported_and_none_that_follows_from_one():
    # the seed (11), the layer built in TRAIN only (12) and the other arm's seed (16); the while loop reads the `net`
    # the blocked line 12 binds: what it would report follows from that blocker (it is reported once that is fixed)
    assert [(c, line) for c, line, _ in found(MODE_ARMS)] == [("TFM501", 11), ("TFM501", 12), ("TFM501", 16)]
    fixed = MODE_ARMS.replace("        net = tf.compat.v1.layers.dropout(net, 0.5, training=True)\n", "")
    assert [(c, line) for c, line, _ in found(fixed)] == [("TFM501", 11), ("TFM501", 12), ("TFM501", 15)]
    # the arm's layer read after the `if` (`logits` reads `net`): a statement reading a name the blocked line bound
    # is skipped, never reported for it
    assert "logits" not in " ".join(d.message for d in blocked(MODE_ARMS).diagnostics)


# ---- a canned Estimator: every column's blocker, and its other arguments' --------------------------------------
CANNED = '''\
import tensorflow as tf

SIZE = -1  # a shape TF 2.15 refuses too (a size computed at run time now converts: test_runtime_columns.py)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": [1.0], "b": [2.0], "c": [[3.0]]}, [1.0])).batch(1)


def feature_columns():
    return [
        tf.feature_column.numeric_column("a", shape=SIZE),
        tf.feature_column.numeric_column("b"),
        tf.feature_column.sequence_numeric_column("c"),
    ]


def main():
    regressor = tf.estimator.DNNRegressor(
        hidden_units=[4], feature_columns=feature_columns(), model_dir="/tmp/m",
        loss_reduction=tf.compat.v1.losses.Reduction.NONE)
    regressor.train(input_fn, max_steps=2, saving_listeners=[object()])


main()
'''


def test_a_canned_estimator_reports_each_column_and_each_argument_and_its_uses():
    # before: the first column alone (line 12); now the third column (14), the loss_reduction (21) and the train
    # call's saving_listeners (22), each at its line
    assert [(c, line) for c, line, _ in found(CANNED)] == [("TFM622", 12), ("TFM622", 14), ("TFM620", 21),
                                                          ("TFM601", 22)]
    # the good column and the rest convert once the blockers are gone
    fixed = CANNED.replace("shape=SIZE", "shape=1").replace(
        '        tf.feature_column.sequence_numeric_column("c"),\n', "").replace(
        ",\n        loss_reduction=tf.compat.v1.losses.Reduction.NONE", "").replace(
        ", saving_listeners=[object()]", "")
    assert rewrite(fixed).status == "changed"


def test_a_wide_and_deep_estimator_whose_columns_are_blocked_reports_them_not_an_internal_error():
    # both column lists blocked: the two optimizers' rates depend on lists left unknown (was an IndexError, the
    # file failed as tfmigrate's internal error; found on a public TFX trainer)
    src = CANNED.replace(
        "tf.estimator.DNNRegressor(\n        hidden_units=[4], feature_columns=feature_columns(),",
        "tf.estimator.DNNLinearCombinedRegressor(\n        dnn_hidden_units=[4], dnn_feature_columns=feature_columns(), "
        "linear_feature_columns=feature_columns()[:1],")
    assert "DNNLinearCombinedRegressor" in src
    assert ("TFM622", 12) in [(c, line) for c, line, _ in found(src)]


TWO_ESTIMATORS = LOOP_VOCABULARIES + '''
crossed = tf.feature_column.crossed_column(["colour", "size"], hash_bucket_size=10)
wide = tf.estimator.LinearClassifier(feature_columns=columns + [crossed], optimizer=make_optimizer())
wide.train(input_fn, max_steps=2, saving_listeners=[object()])
'''


def test_two_estimators_sharing_a_blocked_column_get_one_diagnostic_naming_both():
    # the loop's run-time vocabulary (line 18) blocks both Estimators: said once, with both Estimators' lines (was
    # once per Estimator, the same but for that line); the second one's own blockers each at their line
    found_ = blocked(TWO_ESTIMATORS).diagnostics
    assert [(d.code, d.line) for d in found_] == [("TFM622", 18), ("TFM620", 23), ("TFM601", 24)]
    assert "where the Estimators are built (lines 19, 23)" in found_[0].message
    assert "loop at line 16 (`for key in KEYS:`)" in found_[0].message
    # one Estimator, as before: its line alone
    [one] = blocked(LOOP_VOCABULARIES).diagnostics
    assert "where the Estimator is built (line 19)" in one.message


def test_no_file_gets_the_same_diagnostic_twice():
    for src in (SEVERAL, BLOCKS, MODE_ARMS, CANNED, TWO_ESTIMATORS, LOOP_VOCABULARIES, HELPERS_ONLY):
        found_ = [(d.code, d.line, d.col, d.message) for d in blocked(src).diagnostics]
        assert len(set(found_)) == len(found_)


# ---- a blocked model_fn or params does not hide the Estimator's uses -------------------------------------------
USES = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
''' + TAIL + '''

def build_estimator(hparams):
    config = tf.estimator.RunConfig(model_dir="/tmp/m", device_fn=lambda op: "")
    return tf.estimator.Estimator(model_fn=model_fn if hparams.deep else linear_fn, config=config)


def main(hparams):
    estimator = build_estimator(hparams)
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=3, saving_listeners=[Listener()])
    exporter = tf.estimator.LatestExporter("x", serving_input_receiver_fn=lambda: None, assets_extra={"a": "b"})
    eval_spec = tf.estimator.EvalSpec(input_fn, exporters=[exporter])
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
'''


def test_a_model_fn_chosen_at_run_time_does_not_hide_the_estimators_config_and_uses():
    # before: the RunConfig setting and the model_fn only; the specs' blockers came one re-run later, and the
    # exporter's with an "`exporter` is also used here" that its own blocker already said
    result = blocked(USES)
    assert [(d.code, d.line) for d in result.diagnostics] == [("TFM601", 17), ("TFM601", 18), ("TFM601", 23),
                                                              ("TFM601", 24)]
    assert "model_fn if hparams.deep else linear_fn" in result.diagnostics[1].message
    assert not any("also used here" in d.message for d in result.diagnostics)


def test_uses_of_an_estimator_with_a_partial_model_fn_in_main_are_each_reported():
    src = program(estimator="est = tf.estimator.Estimator(functools.partial(model_fn, scale=2), config=config)",
                  header="import functools\n\nimport tensorflow as tf",
                  drive="est.train(train_input_fn, max_steps=2, saving_listeners=[object()])\n"
                        "est.evaluate(eval_input_fn, steps=1, hooks=[CustomHook()])\n")
    # before: the model_fn's blocker alone (27); now the train call's saving_listeners (28) and evaluate's hook (29)
    assert [(d.code, d.line) for d in blocked(src).diagnostics] == [("TFM601", 27), ("TFM601", 28), ("TFM611", 29)]
    # the model_fn fixed, the uses' blockers are what remains
    fixed = src.replace("functools.partial(model_fn, scale=2)", "model_fn")
    assert [(d.code, d.line) for d in blocked(fixed).diagnostics] == [("TFM601", 28), ("TFM611", 29)]


def test_each_blocker_in_the_use_tpu_false_arm_of_a_tpu_model_fn_is_reported():
    from test_tpu_estimator import MODEL_FN, tpu_program

    cross_shard = "        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)\n"
    model_fn = MODEL_FN.replace(cross_shard, cross_shard + "    else:\n        tf.compat.v1.set_random_seed(1)\n"
                                                           "        while labels is None:\n            pass\n")
    assert [(c, line) for c, line, _ in found(tpu_program(model_fn=model_fn))] == [("TFM501", 27), ("TFM501", 28)]


HOOKS_AND_EXPORTERS = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions={"y": logits})


def serving():
    return tf.estimator.export.build_parsing_serving_input_receiver_fn(
        {"x": tf.io.FixedLenFeature([2], tf.float32)})()


est = tf.estimator.Estimator(model_fn, model_dir="/tmp/m")
hooks = [tf.compat.v1.train.FeedFnHook(lambda: {}), tf.compat.v1.train.FinalOpsHook(final_ops=[])]
train_spec = tf.estimator.TrainSpec(input_fn, max_steps=3, hooks=hooks)
exporters = [tf.estimator.LatestExporter("a", serving, assets_extra={"x": "y"}),
             tf.estimator.FinalExporter("b", serving, as_text=True)]
tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(input_fn, exporters=exporters))
'''


def test_each_hook_and_each_exporter_of_one_list_is_reported():
    # before: the first hook (22) and, the TrainSpec blocked, none of the exporters; now each at its own place
    assert [(c, line, col) for c, line, col in found(HOOKS_AND_EXPORTERS)] == [
        ("TFM611", 22, 9), ("TFM611", 22, 52), ("TFM601", 24, 68), ("TFM601", 25, 62)]


MODEL_TO_ESTIMATOR = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,), name="x")])
model.compile(optimizer="sgd", loss="mse")
model.compile(optimizer="adam", loss="mse")
config = tf.estimator.RunConfig(model_dir="/tmp/m", device_fn=lambda op: "")
est = tf.keras.estimator.model_to_estimator(keras_model=model, config=config)
est.train(input_fn, max_steps=2, saving_listeners=[object()])
'''


def test_a_model_to_estimator_whose_model_is_blocked_still_reports_its_config_and_uses():
    # before: the model compiled twice (12) alone; now its RunConfig setting (11) and its train call's (13) too
    assert [(c, line) for c, line, _ in found(MODEL_TO_ESTIMATOR)] == [("TFM601", 11), ("TFM603", 12), ("TFM601", 13)]


INLINED_HELPER = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def tower(inputs, units):
    tf.compat.v1.set_random_seed(1)
    hidden = tf.compat.v1.layers.dense(inputs, units)
    tf.compat.v1.add_to_collection("towers", hidden)
    return tf.compat.v1.layers.dense(hidden, 1)


def model_fn(features, labels, mode, params):
    logits = tower(features["x"], 4)
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


est = tf.estimator.Estimator(model_fn, model_dir="/tmp/m")
est.train(input_fn, max_steps=2)
'''


def test_each_blocker_of_a_network_helper_the_model_fn_inlines_is_reported_once():
    # before: the helper's seed alone, twice (the model_fn rule's TFM501 and the helper-seed TFM001 at one place);
    # now the seed once and the helper's other statement (11)
    found_ = blocked(INLINED_HELPER).diagnostics
    assert [(d.code, d.line) for d in found_] == [("TFM501", 9), ("TFM501", 11)]
    assert all("(in tower(), which the model_fn calls and tfmigrate inlines)" in d.message for d in found_)


def test_one_construct_blocking_at_several_places_is_one_blocker_naming_them():
    from tfmigrate.diagnostics import Blocked

    node, other = object(), object()
    one, several = "`{{v}}` read where the Estimator is built (line {places})", "`{{v}}` read where the " \
                                                                                 "Estimators are built (lines {places})"
    a, b, c = (Blocked.at_places("TFM622", one, several, line, node) for line in ("3", "7", "3"))
    d = Blocked.at_places("TFM622", one, several, "9", other)
    merged = Blocked.many([a, Blocked.many([b, d]), c])
    assert [(e.message, e.node) for e in merged.errors] == [
        ("`{v}` read where the Estimators are built (lines 3, 7)", node),
        ("`{v}` read where the Estimator is built (line 9)", other)]
    assert a.message == "`{v}` read where the Estimator is built (line 3)"  # the originals are left as they were
    wrapped = Blocked.many([b.wrapped("TFM622", "column {x}: ", ".", node), a.wrapped("TFM622", "column {x}: ", ".",
                                                                                      node)])
    assert [e.message for e in wrapped.errors] == ["column {x}: `{v}` read where the Estimators are built (lines 7, 3)."]


def test_a_warm_start_not_converted_does_not_hide_the_estimators_uses():
    src = program(estimator='est = tf.estimator.Estimator(model_fn=model_fn, config=config, warm_start_from='
                            'tf.estimator.WarmStartSettings("/tmp/w", var_name_to_vocab_info={"v": None}))',
                  drive="est.train(train_input_fn, max_steps=2, saving_listeners=[object()])\n")
    # before: the WarmStartSettings' blocker alone; now the train call's too
    found_ = blocked(src).diagnostics
    assert [(d.code, d.line) for d in found_] == [("TFM601", 25), ("TFM601", 26)]
    assert "var_name_to_vocab_info" in found_[0].message and "saving_listeners" in found_[1].message


def test_a_model_fn_signature_blocker_does_not_hide_the_body_blockers():
    # issue 12: model_fn(features, mode) was one blocker; the body's own went unreported until it was fixed
    from test_public_shapes import _TRAIN_HELPER

    src = (_TRAIN_HELPER.replace("def model_fn(features, labels, mode):", "def model_fn(mode, features, labels):")
           .replace('features["x"], 1)\n', 'features["x"], 1)\n    if prediction.shape[0] > 2:\n'
                    "        prediction = prediction * 2.0\n") + "\n\nfit_with(tf.estimator.RunConfig(), 3)\n")
    # parameters out of order are read by name (no signature blocker): the body's own blocker alone
    found = [(d.line, d.message) for d in blocked(src).diagnostics if d.severity == "error"]
    assert [line for line, _ in found] == [6], found
    assert found[0][1].startswith("`if prediction.shape[0] > 2:` is not converted")
    # no follow-on blocker for a name the signature would have bound: without `labels` among the parameters, the
    # body's `labels` is the one the signature blocker asks to add
    missing = blocked(src.replace("def model_fn(mode, features, labels):", "def model_fn(mode, features):"))
    lines = [d.line for d in missing.diagnostics if d.severity == "error"]
    assert missing.diagnostics[0].message.startswith("model_fn(mode, features) takes no `labels`")
    assert lines == [4, 6], [d.format() for d in missing.diagnostics]


# ---- an Estimator that fails before its analysis starts does not hide its uses' blockers --------------------------
FAILING_ESTIMATOR = '''\
import tensorflow as tf

SETTINGS = {"model_dir": "/tmp/m"}


class CountHook(tf.estimator.SessionRunHook):
    def after_run(self, run_context, run_values):
        pass


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
''' + TAIL + '''

def main():
    est = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m")
    est.train(input_fn, max_steps=2, saving_listeners=[object()])
    est.evaluate(input_fn, steps=1, hooks=[CountHook()])
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=3, saving_listeners=[object()])
    exporter = tf.estimator.LatestExporter("x", serving_input_receiver_fn=lambda: None, assets_extra={"a": "b"})
    tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(input_fn, exporters=[exporter]))
    est.predict(input_fn, hooks=[CountHook()])
'''
GOOD_ESTIMATOR = 'tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m")'
TPU_CONFIG = 'config=tf.compat.v1.estimator.tpu.RunConfig(model_dir="/tmp/m")'
# the Estimator's own error: (the Estimator expression, the error's code, a part of its message)
ESTIMATOR_FAILURES = {
    "unknown keyword": ('tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m", bogus=1)', "TFM601",
                        "Estimator has no argument 'bogus'"),
    "no model_fn": ('tf.estimator.Estimator(model_dir="/tmp/m")', "TFM601", "Estimator(...) without model_fn"),
    "too many positional": ('tf.estimator.Estimator(model_fn, "/tmp/m", None, None, None, 3)', "TFM601",
                            "too many positional arguments"),
    "keyword unpacking": ("tf.estimator.Estimator(model_fn, **SETTINGS)", "TFM601",
                          "cannot see which arguments `**SETTINGS` holds"),
    # (use_tpu=True converts since the TPU path maps to TPUStrategy, rules/planners/tpu_strategy.py)
    "tpu embeddings": (f"tf.compat.v1.estimator.tpu.TPUEstimator(model_fn, {TPU_CONFIG}, use_tpu=True, "
                       "embedding_config_spec=SPEC)", "TFM605", "embedding_config_spec=...) is not converted"),
    "tpu unknown keyword": (f"tf.compat.v1.estimator.tpu.TPUEstimator(model_fn, {TPU_CONFIG}, use_tpu=False, "
                            "bogus=2)", "TFM603", "TPUEstimator has no argument 'bogus'"),
}


def test_an_estimator_whose_arguments_fail_still_reports_each_use_at_its_line():
    # before: the Estimator's error alone; its train, evaluate, TrainSpec, exporter and predict blockers came one
    # re-run later. Now the Estimator's error and each use's, each once: exactly the fixed program's and that one
    uses = found(FAILING_ESTIMATOR)
    assert [(c, line) for c, line, _ in uses] == [("TFM601", 25), ("TFM611", 26), ("TFM601", 27), ("TFM601", 28),
                                                  ("TFM611", 30)]
    for case, (estimator, rule, message) in ESTIMATOR_FAILURES.items():
        src = FAILING_ESTIMATOR.replace(GOOD_ESTIMATOR, estimator)
        diagnostics = [d for d in blocked(src).diagnostics if d.line == 24]
        assert [d.code for d in diagnostics] == [rule], (case, [d.format() for d in blocked(src).diagnostics])
        assert message in diagnostics[0].message, (case, diagnostics[0].message)
        own = (diagnostics[0].code, 24, diagnostics[0].col)
        assert found(src) == sorted(uses + [own], key=lambda f: f[1:]), case


def test_an_estimator_subclass_that_is_not_converted_still_reports_each_use():
    subclass = FAILING_ESTIMATOR.replace("def input_fn():", '''\
class Trainer(tf.estimator.Estimator):
    def __init__(self, model_dir):
        super().__init__(model_fn=model_fn, model_dir=model_dir)

    def describe(self):
        return "trainer"


def input_fn():''').replace(GOOD_ESTIMATOR, 'Trainer("/tmp/m")')
    shifted = [(c, line + 8, col) for c, line, col in found(FAILING_ESTIMATOR)]
    # before: the subclass's error escaped the analysis: the only diagnostic of the file
    diagnostics = blocked(subclass).diagnostics
    assert [(d.code, d.line) for d in diagnostics if d.line < 32] == [("TFM601", 15)]
    assert "Estimator subclass Trainer defines `describe`" in diagnostics[0].message
    assert found(subclass) == [("TFM601", 15, diagnostics[0].col)] + shifted
    # without its extra method the subclass converts: its uses' blockers are what remains
    assert found(subclass.replace('\n    def describe(self):\n        return "trainer"\n', "")) == [
        (c, line - 3, col) for c, line, col in shifted]


def test_uses_that_depend_on_what_the_failed_estimator_left_unknown_get_no_follow_on_errors():
    # `**settings` may hold the model_dir: the exporters' and predict's "no model_dir" checks are not made
    src = FAILING_ESTIMATOR.replace(GOOD_ESTIMATOR, "tf.estimator.Estimator(model_fn, **SETTINGS)").replace(
        'serving_input_receiver_fn=lambda: None, assets_extra={"a": "b"}',
        'tf.estimator.export.build_parsing_serving_input_receiver_fn({"x": tf.io.FixedLenFeature([2], tf.float32)})')
    src = src.replace("    est.predict(input_fn, hooks=[CountHook()])\n", "") + '''

def predict_only():
    est = tf.estimator.Estimator(model_fn, **SETTINGS)
    return list(est.predict(input_fn))
'''
    assert [(c, line) for c, line, _ in found(src)] == [("TFM601", 24), ("TFM601", 25), ("TFM611", 26),
                                                        ("TFM601", 27), ("TFM601", 33)]
    # the same uses of an Estimator whose model_dir is known to be missing: those checks are made
    missing = src.replace("tf.estimator.Estimator(model_fn, **SETTINGS)", "tf.estimator.Estimator(model_fn, bogus=1)")
    messages = [d.message for d in blocked(missing).diagnostics]
    assert any(m.startswith("EvalSpec exporters without a model_dir") for m in messages)
    assert any(m.startswith("estimator.predict() with nothing trained before it") for m in messages)


# ---- a RunConfig or strategy in a helper nothing calls does not hide the model_fn's blockers ----------------------
DEAD_HELPERS = '''\
import tensorflow as tf


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [[1.0]])).batch(1)


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    while logits is None:
        pass
''' + TAIL + '''

def old_config():
    return tf.estimator.RunConfig(model_dir="/tmp/m", save_checkpoints_steps=10)


def old_strategy(devices):
    return tf.contrib.distribute.MirroredStrategy(devices)

''' + MODE_ARMS[MODE_ARMS.index("\ndef main():"):]


def test_a_helper_nothing_calls_reports_its_blockers_beside_the_model_fns():
    # before: the model_fn's while loop alone; the helpers' TF1 constructs (left as written: nothing calls them)
    # were found once it was fixed, one re-run for each
    assert [(c, line) for c, line, _ in found(DEAD_HELPERS)] == [("TFM501", 10), ("TFM001", 19), ("TFM001", 23)]
    messages = [d.message for d in blocked(DEAD_HELPERS).diagnostics]
    assert messages[1].startswith("tf.estimator.RunConfig is left over after the conversion")
    assert messages[2].startswith("tf.contrib.distribute.MirroredStrategy has no TF2 name: tf.contrib was removed")
    # the model_fn fixed: the helpers' blockers are exactly what remains, each at its line
    fixed = DEAD_HELPERS.replace("    while logits is None:\n        pass\n", "")
    assert [(c, line) for c, line, _ in found(fixed)] == [("TFM001", 17), ("TFM001", 21)]
    # the helpers removed too, it converts
    clean = fixed[:fixed.index("def old_config")] + fixed[fixed.index("def main"):]
    assert rewrite(clean).status == "changed"


def test_a_helper_that_is_called_is_not_reported_before_its_caller_converts():
    # `old_config()` read by the Estimator: the driver converts or reports it (its RunConfig goes with the
    # Estimator's conversion); no leftover finding in it while the model_fn blocks
    called = DEAD_HELPERS.replace('tf.estimator.Estimator(model_fn, model_dir="/tmp/m")',
                                  "tf.estimator.Estimator(model_fn, config=old_config())")
    assert [(c, line) for c, line, _ in found(called)] == [("TFM501", 10), ("TFM001", 23)]


# ---- a wide-and-deep Estimator whose columns are blocked still checks its optimizers ------------------------------
WIDE_DEEP = CANNED.replace(
    "tf.estimator.DNNRegressor(\n        hidden_units=[4], feature_columns=feature_columns(),",
    "tf.estimator.DNNLinearCombinedRegressor(\n        dnn_hidden_units=[4], dnn_feature_columns=feature_columns(), "
    "linear_feature_columns=[tf.feature_column.numeric_column(\"b\")],\n"
    "        dnn_optimizer=\"Momentum\", linear_optimizer=tf.keras.optimizers.Ftrl(0.1),")


def test_a_wide_and_deep_estimator_whose_columns_are_blocked_reports_its_optimizers_own_blockers():
    # before: the two columns (12, 14), the loss_reduction and the train call; the optimizers were not looked at (their
    # rates depend on the column lists) and their blockers came one re-run later. Now each optimizer's, at its place
    assert [(c, line) for c, line, _ in found(WIDE_DEEP)] == [("TFM622", 12), ("TFM622", 14), ("TFM620", 21),
                                                             ("TFM620", 21), ("TFM620", 22), ("TFM601", 23)]
    messages = sorted((d.col, d.message) for d in blocked(WIDE_DEEP).diagnostics if d.line == 21)
    assert messages[0][1].startswith("optimizer 'Momentum' is not one the canned estimators accept")
    assert "tf.keras.optimizers.legacy.Ftrl(...)" in messages[1][1]
    # the columns fixed: exactly the others remain
    fixed = WIDE_DEEP.replace("shape=SIZE", "shape=1").replace(
        '        tf.feature_column.sequence_numeric_column("c"),\n', "")
    assert found(fixed) == [(c, line - 1, col) for c, line, col in found(WIDE_DEEP) if line > 14]


def test_a_wide_and_deep_optimizer_check_that_reads_the_blocked_columns_is_not_made():
    # a string linear optimizer gets min(0.005, 1/sqrt(number of linear columns)): with the list blocked that is
    # unknown, and its "columns known only at run time" check would follow from the column's blocker
    src = WIDE_DEEP.replace('linear_feature_columns=[tf.feature_column.numeric_column("b")]',
                            "linear_feature_columns=feature_columns()").replace(
        'dnn_optimizer="Momentum", linear_optimizer=tf.keras.optimizers.Ftrl(0.1)',
        'dnn_optimizer="Adagrad", linear_optimizer="Ftrl"')
    assert [(c, line) for c, line, _ in found(src)] == [("TFM622", 12), ("TFM622", 14), ("TFM620", 22),
                                                        ("TFM601", 23)]
    # an unknown string for it is still its own blocker
    bad = src.replace('linear_optimizer="Ftrl"', 'linear_optimizer="Ftlr"')
    assert [(c, line) for c, line, _ in found(bad)] == [("TFM622", 12), ("TFM622", 14), ("TFM620", 21),
                                                        ("TFM620", 22), ("TFM601", 23)]


def test_an_estimator_not_converted_for_its_own_arguments_still_reports_its_model_fns_blockers():
    # the model_fn's interpretation reads none of the Estimator's failed arguments (a keyword it has no parameter
    # for, a warm start): its while loop (18) is reported with them; before, it came once they were fixed
    loop = FAILING_ESTIMATOR.replace('features["x"], 1)\n', 'features["x"], 1)\n    while logits is None:\n'
                                                            '        pass\n', 1)
    uses = [(c, line + 2, col) for c, line, col in found(FAILING_ESTIMATOR)]
    assert found(loop) == [("TFM501", 17, 4)] + uses
    for estimator in ('tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m", bogus=1)',
                      'tf.estimator.Estimator(model_fn, "/tmp/m", warm_start_from=tf.estimator.WarmStartSettings('
                      '"/tmp/w", var_name_to_vocab_info={"v": None}))'):
        both = found(loop.replace(GOOD_ESTIMATOR, estimator))
        assert [(c, line) for c, line, _ in both if line != 26] == [(c, line) for c, line, _ in found(loop)]
        assert [line for _, line, _ in both].count(26) == 1
    # nothing known of the model_fn (none given): nothing reported about it
    assert ("TFM501", 17) not in [(c, line) for c, line, _ in found(loop.replace(
        GOOD_ESTIMATOR, 'tf.estimator.Estimator(model_dir="/tmp/m")'))]
