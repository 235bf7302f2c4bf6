"""A name assigned in the branches of an if/elif/else, or assigned then reassigned under an `if` (issue 28,
migrator/choices.py): the readers that convert `x = A if c else B` read it as that expression; a test on a call's
literal argument picks its branch; anything else (a loop, a tensor test) stays blocked with its lines."""
from __future__ import annotations

import textwrap

import libcst as cst

from _helpers import blocked, converted
from tfmigrate.model import FileIndex, Program, Value, code
from tfmigrate.rules.facts.calls import computes_tensor


HEAD = '''\
import argparse

import tensorflow as tf


def model_fn(features, labels, mode):
    prediction = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]] * 8}, [[0.5]] * 8)).batch(4).repeat()


'''
TAIL = '''
    est = tf.estimator.Estimator(model_fn=model_fn, config=config)
    est.train(input_fn=input_fn, max_steps=args.steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--num_gpus", type=int, default=0)
    parser.add_argument("--one_device", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
'''


def _program(body: str) -> str:
    return HEAD + "def main(args):\n" + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", "    ") + TAIL


def _messages(src: str) -> list[str]:
    return [d.message for d in blocked(src).diagnostics if d.severity == "error"]


def test_a_strategy_set_in_if_else_branches_is_converted_in_each_branch():
    # was: "train_distribute: `strategy` can hold different values here (assigned at lines 21, 23)"
    text = converted(_program('''
        if args.num_gpus > 1:
            strategy = tf.distribute.MirroredStrategy()
        else:
            strategy = None
        config = tf.estimator.RunConfig(train_distribute=strategy)
    '''))
    assert ("    if args.num_gpus > 1:\n        strategy = tf.distribute.MirroredStrategy()\n    else:\n"
            "        strategy = tf.distribute.get_strategy()\n") in text, text
    assert "with strategy.scope():" in text  # the program's own name, holding either strategy
    assert "tf.estimator" not in text


def test_an_elif_chain_and_an_earlier_default_convert_each_value_where_it_is_assigned():
    text = converted(_program('''
        strategy = None
        if args.num_gpus > 1:
            strategy = tf.distribute.MirroredStrategy()
        elif args.one_device:
            strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        config = tf.estimator.RunConfig(train_distribute=strategy)
    '''))
    assert "    strategy = tf.distribute.get_strategy()\n    if args.num_gpus > 1:\n" in text, text
    assert '        strategy = tf.distribute.OneDeviceStrategy(device="/cpu:0")\n' in text
    assert "with strategy.scope():" in text


def test_a_branch_that_raises_is_no_value_of_the_choice():
    # `else: raise ValueError(...)` never reaches the RunConfig: the other branches are the whole choice (was: "can
    # hold different values here ...; assign it once")
    text = converted(_program('''
        if args.num_gpus > 1:
            strategy = tf.distribute.MirroredStrategy()
        elif args.num_gpus == 0:
            strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        else:
            raise ValueError("one GPU is not supported")
        config = tf.estimator.RunConfig(train_distribute=strategy)
    '''))
    assert '    else:\n        raise ValueError("one GPU is not supported")\n' in text, text
    assert '        strategy = tf.distribute.OneDeviceStrategy(device="/cpu:0")\n' in text
    assert "with strategy.scope():" in text and "tf.estimator" not in text


def test_a_run_config_replaced_under_an_if_reads_as_the_conditional_expression():
    # `config = RunConfig(...)` then `if flag: config = config.replace(...)`: each setting `x if flag else y`
    text = converted(_program('''
        config = tf.estimator.RunConfig(tf_random_seed=1)
        if args.seed:
            config = config.replace(tf_random_seed=args.seed)
    '''))
    assert "keras.utils.set_random_seed(args.seed if args.seed else 1)" in text, text
    assert "RunConfig" not in text


def test_a_strategy_reassigned_in_a_loop_stays_blocked_with_its_lines():
    messages = _messages(_program('''
        strategy = None
        for _ in range(args.num_gpus):
            strategy = tf.distribute.MirroredStrategy()
        config = tf.estimator.RunConfig(train_distribute=strategy)
    '''))
    assert messages == ["train_distribute: `strategy` can hold different values here (assigned at lines 19, 21): the "
                        "loop at line 20 assigns it on each iteration; build a strategy once, outside the loop"], messages


def test_a_strategy_chosen_by_a_tensor_value_stays_blocked():
    # the test is a tensor: not a setting the flags or the source give
    messages = _messages(_program('''
        if tf.reduce_sum(tf.ones([args.num_gpus])) > 1:
            strategy = tf.distribute.MirroredStrategy()
        else:
            strategy = None
        config = tf.estimator.RunConfig(train_distribute=strategy)
    '''))
    assert messages == ["train_distribute: `strategy` can hold different values here (assigned at lines 20, 22): the "
                        "`if` at line 19 tests `tf.reduce_sum(tf.ones([args.num_gpus]))`, a tensor whose value only the running graph "
                        "knows; choose a strategy by a flag or a setting of the program"], messages


def test_a_read_inside_the_if_itself_is_not_the_choice():
    program, index = _index('''
        flag = input()
        if flag:
            x = 1
        else:
            x = 2
            use(x)
        use(x)
    ''')
    inside, after = [n for n in index.loads["x"]]
    assert code(program.resolve_choice(Value(inside, index), computes_tensor).node) == "2"
    assert code(program.resolve_choice(Value(after, index), computes_tensor).node) == "1 if flag else 2"


def test_a_branch_without_an_assignment_and_no_earlier_value_is_not_a_choice():
    program, index = _index('''
        if a:
            x = 1
        elif b:
            x = 2
        use(x)
    ''')
    r = program.resolve_choice(Value(index.loads["x"][0], index), computes_tensor)
    assert r.ambiguous  # x may be unbound: nothing to choose


def test_a_test_on_a_literal_argument_picks_its_branch_for_each_call():
    # the migration guide's notebook: `create_sample_optimizer("tf1")` read through `if tf_version == "tf1":`
    program, index = _index('''
        def make(version):
            if version == "tf1":
                opt = "adagrad"
            elif version == "tf2":
                opt = "adam"
            return opt

        a = make("tf1")
        b = make("tf2")
        c = make(other)
    ''')
    calls = [c for c in index.calls if code(c.func) == "make"]
    picked = [program.resolve(Value(call, index)) for call in calls]
    assert [code(r.node) for r in picked[:2]] == ['"adagrad"', '"adam"']
    assert picked[2].ambiguous  # a value the source does not tell: still two


def _index(src: str):
    module = cst.parse_module(textwrap.dedent(src))
    index = FileIndex(module, "m.py", "m")
    return Program([index]), index


COLUMNS = '''\
import numpy as np
import tensorflow as tf

HASH_KEYS = {"city": 20, "shop": 10, "zone": 0}
NUMERIC = ["age", "income", "id"]


def input_fn():
    feats = {"age": np.ones(8, np.float32), "income": np.ones(8, np.float32), "id": np.ones(8, np.float32),
             "city": np.array(["a"] * 8), "shop": np.array(["b"] * 8), "zone": np.array(["c"] * 8)}
    return tf.data.Dataset.from_tensor_slices((feats, np.ones(8, np.int32))).batch(4).repeat()


def columns():
    cols = [tf.feature_column.numeric_column(k) for k in NUMERIC if k != "id"]
    cols += [tf.feature_column.indicator_column(tf.feature_column.categorical_column_with_hash_bucket(k, n))
             for k, n in HASH_KEYS.items() if n > 0]
    return cols


est = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=columns(),
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
est.train(input_fn, max_steps=5)
'''


def test_a_column_comprehension_with_an_if_over_static_data_keeps_the_items_it_tests_true():
    # was: TFM622 "feature_columns: only a comprehension with one `for` and no `if` is read"
    text = converted(COLUMNS)
    for kept in ('numeric_input(features, "age", 1)', 'numeric_input(features, "income", 1)',
                 'hash_bucket_ids(sparse_input(features, "city"), 20)', 'hash_bucket_ids(sparse_input(features, "shop"), 10)'):
        assert kept in text, text
    # the items the `if` drops
    assert 'numeric_input(features, "id"' not in text and 'sparse_input(features, "zone")' not in text


def test_a_column_comprehension_with_an_if_known_only_at_run_time_says_which_test():
    src = COLUMNS.replace('if k != "id"]', "if k in input()]")
    messages = _messages(src)
    assert messages == ["feature_columns: the comprehension's `if k in input()` is not known from the source for "
                        "each item (only tests of literals, module constants and the loop's own items are read); "
                        "list the columns it keeps"], messages


def test_a_branch_that_assigns_twice_holds_its_later_value():
    program, index = _index('''
        base = make()
        if flag:
            x = base
            x = x.replace(a=1)
        else:
            x = other
        use(x)
    ''')
    r = program.resolve_choice(Value(index.loads["x"][-1], index), computes_tensor)
    assert code(r.node) == "x.replace(a=1) if flag else other"


def test_a_strategy_chosen_in_a_config_helper_the_estimator_cannot_see_is_blocked():
    # the strategy would be built again where the Estimator is, from a test on names only the helper has
    src = HEAD + '''def make_config(gpus):
    if gpus > 1:
        strategy = tf.distribute.MirroredStrategy()
    else:
        strategy = None
    return tf.estimator.RunConfig(train_distribute=strategy)


def main(args):
    config = make_config(args.num_gpus)''' + TAIL
    messages = _messages(src)
    assert messages == ["train_distribute: `strategy` is chosen by an if/else where the Estimator cannot see it (a "
                        "helper's local); choose the strategy where the Estimator is built, or return it with the "
                        "config"], messages


def test_the_rules_predicate_decides_which_tested_calls_are_run_time_values():
    # the engine (migrator/choices.py) names no API: the caller's predicate says a test's call is a tensor
    program, index = _index('''
        import mylib
        if mylib.compute():
            x = 1
        else:
            x = 2
        use(x)
    ''')
    read = Value(index.loads["x"][-1], index)
    assert code(program.resolve_choice(read, lambda name: False).node) == "1 if mylib.compute() else 2"
    assert program.resolve_choice(read, lambda name: name.startswith("mylib.")).ambiguous
