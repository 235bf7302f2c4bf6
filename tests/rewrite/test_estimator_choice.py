"""An Estimator chosen at run time by if/elif (issue 28): each branch's Estimator converted where it is built, the
`if` kept, the shared driver code written once (rules/planners/driver/_chosen.py). fixtures/estimator_choice_flag
runs and verifies it."""
import ast

from _helpers import blocked, converted, dotted_names

HEAD = '''import argparse

import tensorflow as tf


def input_fn(repeat):
    features = {"a": [[1.0], [2.0], [3.0], [4.0]], "b": [[0.5], [0.1], [0.2], [0.3]]}
    ds = tf.data.Dataset.from_tensor_slices((features, [[1], [0], [1], [0]])).batch(2)
    return ds.repeat() if repeat else ds


'''

ASSIGNED = HEAD + '''def main(args):
    wide = [tf.feature_column.numeric_column("a")]
    deep = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")]
    config = tf.estimator.RunConfig(tf_random_seed=3)
    if args.model_type == "wide":
        model = tf.estimator.LinearClassifier(feature_columns=wide, model_dir=args.model_dir, config=config)
    elif args.model_type == "deep":
        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=deep, model_dir=args.model_dir,
                                           config=config)
    else:
        model = tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=wide, dnn_feature_columns=deep,
                                                         dnn_hidden_units=[4], model_dir=args.model_dir, config=config)
    model.train(input_fn=lambda: input_fn(True), max_steps=args.steps)
    result = model.evaluate(input_fn=lambda: input_fn(False))
    print("final eval:", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_type", default="wide")
    parser.add_argument("--model_dir", default="/tmp/m")
    parser.add_argument("--steps", type=int, default=10)
    main(parser.parse_args())
'''

RETURNED = HEAD + '''def build_estimator(model_dir, model_type):
    wide = [tf.feature_column.numeric_column("a")]
    deep = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")]
    if model_type == "wide":
        return tf.estimator.LinearClassifier(feature_columns=wide, model_dir=model_dir)
    if model_type == "deep":
        return tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=deep, model_dir=model_dir)
    return tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=wide, dnn_feature_columns=deep,
                                                    dnn_hidden_units=[4], model_dir=model_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_type", default="wide")
    parser.add_argument("--model_dir", default="/tmp/m")
    args = parser.parse_args()
    estimator = build_estimator(args.model_dir, args.model_type)
    estimator.train(input_fn=lambda: input_fn(True), max_steps=10)
    print("final eval:", estimator.evaluate(input_fn=lambda: input_fn(False)))
'''


def _main_body(text: str, name: str) -> str:
    fn = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.unparse(fn)


def test_an_estimator_assigned_in_each_branch_of_an_if_elif_converts_each_and_drives_the_one_chosen():
    # was: TFM601 "`model` can hold different values here (assigned at lines ...), chosen by `args.model_type ==
    # "wide"` ...: tfmigrate converts such a choice for RunConfig settings, train_distribute and warm_start_from, not
    # for an Estimator"
    text = converted(ASSIGNED)
    assert not any(n.startswith("tf.estimator") for n in dotted_names(text))
    main = _main_body(text, "main")
    # the condition stays as written, each branch builds its own model
    assert "if args.model_type == 'wide':" in main and "elif args.model_type == 'deep':" in main
    for builder in ("build_linear_classifier", "build_dnn_classifier", "build_dnn_linear_combined_classifier"):
        assert main.count(f"model = {builder}(") == 1, main
    # the shared driver code once, after the `if`, on whichever model was built
    assert main.count("model.fit(") == 1 and main.count("model.evaluate(") == 1, main
    assert main.index("else:") < main.index("model.restore_model_dir(") < main.index("model.fit(")


def test_a_builder_returning_one_of_several_estimators_converts_each_return():
    # was: TFM601 "`build_estimator` returns one of 3 Estimators (lines ...), chosen at run time"
    text = converted(RETURNED)
    assert not any(n.startswith("tf.estimator") for n in dotted_names(text))
    builder = _main_body(text, "build_estimator")
    assert builder.count("return build_") == 3 and "if model_type == 'deep':" in builder, builder
    assert text.count("estimator.fit(") == 1 and text.count("estimator.evaluate(") == 1


def test_branches_whose_models_need_different_driver_code_block_naming_both_texts():
    # the wide model keeps its checkpoints in model_dir (resumed, restored), the deep one has none: the shared
    # train() would be written one way for one and another way for the other
    src = ASSIGNED.replace("hidden_units=[4], feature_columns=deep, model_dir=args.model_dir,",
                           "hidden_units=[4], feature_columns=deep,")
    [d] = blocked(src).diagnostics
    assert d.code == "TFM601" and d.line == src.split("\n").index(
        "    model.train(input_fn=lambda: input_fn(True), max_steps=args.steps)") + 1, d.format()
    assert d.message == ("`model` holds the Estimator built at line 17 or the one at line 19, whose migrated models "
                         "need different code here: `...steps_per_epoch=args.steps - initial_step, "
                         "callbacks=[EstimatorCheckpoints...` for the first, `...steps_per_epoch=args.steps, "
                         "callbacks=[NanLossCheck()])` for the second; drive each in its own branch"), d.message


def test_a_branch_assigning_something_else_than_an_estimator_is_named():
    src = ASSIGNED.replace('''    elif args.model_type == "deep":
        model = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=deep, model_dir=args.model_dir,
                                           config=config)
''', '''    elif args.model_type == "none":
        model = None
''')
    [d] = blocked(src).diagnostics
    assert d.code == "TFM601", d.format()
    assert "chosen by `args.model_type == \"wide\"` (line 16): tfmigrate converts a choice between Estimators it " \
           "builds, and `None` (line 19) is not one; assign an Estimator in every branch" in d.message, d.message


def test_a_choice_whose_else_raises_driven_by_train_and_evaluate_converts():
    # `else: raise ValueError(...)` (or `sys.exit(1)`) never reaches the driver: the other branches are the choice
    src = ASSIGNED.replace('''    else:
        model = tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=wide, dnn_feature_columns=deep,
                                                         dnn_hidden_units=[4], model_dir=args.model_dir, config=config)
    model.train(input_fn=lambda: input_fn(True), max_steps=args.steps)
    result = model.evaluate(input_fn=lambda: input_fn(False))
''', '''    else:
        raise ValueError(f"unknown model type {args.model_type}")
    result = tf.estimator.train_and_evaluate(model, tf.estimator.TrainSpec(lambda: input_fn(True), args.steps),
                                             tf.estimator.EvalSpec(lambda: input_fn(False)))
''')
    main = _main_body(converted(src), "main")
    assert "raise ValueError(f'unknown model type {args.model_type}')" in main
    assert main.count("model = build_linear_classifier(") == main.count("model = build_dnn_classifier(") == 1
    assert main.count("model.fit(") == 1 and main.count("model.evaluate(") == 1, main
    exits = src.replace('raise ValueError(f"unknown model type {args.model_type}")', "sys.exit(1)") \
        .replace("import argparse\n", "import argparse\nimport sys\n")
    assert _main_body(converted(exits), "main").count("model.fit(") == 1
