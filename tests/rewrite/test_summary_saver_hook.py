"""TFM611 SummarySaverHook (rules/planners/hooks.py, model_fn.py `summary_hook`): in the model_fn's training hooks it becomes
the model's summary_hooks() (output_dir, save_steps, tags), which the Keras EstimatorSummaries callback and the
custom loop write at the hook's steps; what cannot be written is dropped with a note at its line (it only writes
summaries), a hook TF 1 itself could not run blocks. What is written is compared with TF 2.15's events in
tests/fixtures_run/test_summary_saver_hook_events.py."""
from __future__ import annotations

import pytest

from _helpers import blocked, converted, program, rewrite, section

MEAN = 'mean_op = tf.compat.v1.summary.scalar("logits/mean", tf.reduce_mean(logits))\n'
PEAK = 'tf.compat.v1.summary.scalar("logits/peak", tf.reduce_max(logits))\n'
CONFIG = 'config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", tf_random_seed=7, save_summary_steps=5)'


def spec(hooks: str, where: str = "training_hooks") -> str:
    return f"return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, {where}=[{hooks}])"


def hook_notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "TFM611" and "SummarySaverHook" in d.message]


def hooks_method(out: str) -> str:
    return section(out, "    def summary_hooks(self):", "    def ")


def test_inline_merge_all_in_training_hooks_keras():
    src = program(middle=MEAN + PEAK, run_config=CONFIG, spec=spec(
        'tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h", summary_op=tf.compat.v1.summary.merge_all())'))
    result = rewrite(src)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = converted(src)
    assert '("/tmp/h", 3, ["logits/mean", "logits/peak"]),' in hooks_method(out)
    compute_loss = section(out, "    def compute_loss(self", "    def test_step")
    assert "for writer, first, every, tags in self.summary_hook_writers:" in compute_loss
    assert "tf.summary.write(tag, tf.cast(summaries[tag], tf.float32), metadata=scalar)" in compute_loss
    callback = section(out, "class EstimatorSummaries(", "\nclass ")
    assert "for output_dir, save_steps, tags in self.model.summary_hooks():" in callback
    assert 'EstimatorSummaries("/tmp/tfm-test", 5)' in section(out, "def main():", "if __name__")
    assert "SummarySaverHook(" not in out  # the hook call itself is gone
    notes = hook_notes(result)
    assert len(notes) == 1 and notes[0].startswith("SummarySaverHook (training_hooks) converted"), notes
    assert "(logits/mean, logits/peak)" in notes[0] and "other workers" in notes[0]


def test_named_hook_with_positional_arguments_and_a_list_of_ops_in_chief_hooks_ctl():
    middle = MEAN + PEAK + 'peak_op = tf.compat.v1.summary.scalar("logits/min", tf.reduce_min(logits))\n' \
        'chief_hook = tf.estimator.SummarySaverHook(7, None, "/tmp/c", None, None, [peak_op, mean_op])\n'
    src = program(middle=middle, run_config=CONFIG, spec=spec("chief_hook", "training_chief_hooks"))
    result = rewrite(src, target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = converted(src, target="ctl")
    assert '("/tmp/c", 7, ["logits/min", "logits/mean"]),' in hooks_method(out)  # the list's order, its ops only
    assert "for output_dir, save_steps, tags in model.summary_hooks():" in out
    assert "if (step - first_step) % save_steps == 0:" in out
    assert "for open_writer in writers.values():" in out
    notes = hook_notes(result)
    assert len(notes) == 1 and notes[0].startswith("SummarySaverHook (training_chief_hooks) converted"), notes
    assert "other workers" not in notes[0]  # the chief alone ran it in TF 1 too


def test_merge_all_merges_the_summaries_built_before_it():
    middle = MEAN + 'merged = tf.compat.v1.summary.merge_all()\n' + PEAK + \
        'hook = tf.estimator.SummarySaverHook(save_steps=2, output_dir="/tmp/h", summary_op=merged)\n'
    out = converted(program(middle=middle, run_config=CONFIG, spec=spec("hook")))
    assert '("/tmp/h", 2, ["logits/mean"]),' in hooks_method(out)
    assert '"logits/peak": tf.reduce_max(logits),' in section(out, "    def summaries(self", "    def ")


def test_scaffold_summary_op_merge_of_a_list_and_params():
    middle = MEAN + PEAK + ('hook = tf.estimator.SummarySaverHook(save_steps=params["every"], output_dir=params["dir"], '
                            'scaffold=tf.compat.v1.train.Scaffold(summary_op=tf.compat.v1.summary.merge([mean_op])))\n')
    src = program(middle=middle, run_config=CONFIG, spec=spec("hook"),
                  estimator='est = tf.estimator.Estimator(model_fn=model_fn, config=config, '
                            'params={"every": 4, "dir": "/tmp/h"})')
    method = hooks_method(converted(src, target="ctl"))
    assert "params = self.params" in method
    assert '(params["dir"], params["every"], ["logits/mean"]),' in method


def test_a_summary_tfmigrate_does_not_write_is_named_in_the_note():
    middle = MEAN + 'tf.compat.v1.summary.histogram("logits", logits)\n' + \
        'hook = tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h", summary_op=tf.compat.v1.summary.merge_all())\n'
    result = rewrite(program(middle=middle, run_config=CONFIG, spec=spec("hook")))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert '("/tmp/h", 3, ["logits/mean"]),' in hooks_method(result.output.decode())
    notes = hook_notes(result)
    assert len(notes) == 1 and 'not written: "logits"' in notes[0], notes


@pytest.mark.parametrize("hook, why", [
    ('tf.estimator.SummarySaverHook(save_secs=30, output_dir="/tmp/h", summary_op=tf.compat.v1.summary.merge_all())',
     "save_secs= writes at wall-time steps"),
    ('tf.estimator.SummarySaverHook(save_steps=3, summary_writer=tf.compat.v1.summary.FileWriter("/tmp/w"), summary_op=tf.compat.v1.summary.merge_all())',
     "summary_writer= (a TF1 FileWriter)"),
    ('tf.estimator.SummarySaverHook(save_steps=3, summary_op=tf.compat.v1.summary.merge_all())',
     "without output_dir"),
    ('tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h", scaffold=tf.compat.v1.train.Scaffold())',
     "it wrote no summaries"),
    ('tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h", summary_op=net)',
     "only tf.compat.v1.summary.merge_all()"),
])
def test_hooks_that_are_not_written_are_dropped_with_a_note(hook, why):
    result = rewrite(program(middle=MEAN, run_config=CONFIG, spec=spec(hook)))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    notes = hook_notes(result)
    assert len(notes) == 1 and notes[0].startswith("SummarySaverHook not converted, dropped") and why in notes[0], notes
    assert "def summary_hooks" not in result.output.decode()


def test_a_summary_hook_on_evaluation_is_dropped_with_a_note():
    hook = 'tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h", summary_op=tf.compat.v1.summary.merge_all())'
    result = rewrite(program(middle=MEAN, run_config=CONFIG,
                             spec=f"return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, "
                                  f"evaluation_hooks=[{hook}])"))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert any("on evaluation_hooks it only observes evaluation" in n for n in hook_notes(result))


def test_tf1_errors_block():
    """Without save_steps/save_secs, or without exactly one of summary_op and scaffold, TF 1 raised ValueError."""
    for hook in ('tf.estimator.SummarySaverHook(output_dir="/tmp/h", summary_op=tf.compat.v1.summary.merge_all())',
                 'tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h")'):
        result = blocked(program(middle=MEAN, run_config=CONFIG, spec=spec(hook)))
        assert any("ValueError" in d.message for d in result.diagnostics)


def test_train_hooks_from_a_helper_with_a_fresh_scaffold_are_dropped():
    extra = '''
    def summary_hooks():
        return [tf.estimator.SummarySaverHook(save_steps=5, output_dir="/tmp/s", scaffold=tf.compat.v1.train.Scaffold())]
    '''
    drive = ("train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=10, hooks=summary_hooks())\n"
             "eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2)\n"
             "tf.estimator.train_and_evaluate(est, train_spec, eval_spec)\n")
    result = rewrite(program(extra=extra, drive=drive))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    notes = hook_notes(result)
    assert len(notes) == 1 and "it wrote no summaries" in notes[0], notes
    assert "SummarySaverHook(" not in result.output.decode()


def test_train_hooks_with_a_summary_op_or_neither_block():
    for hook in ('tf.compat.v1.train.SummarySaverHook(save_steps=5, output_dir="/tmp/s", '
                 'summary_op=tf.compat.v1.summary.merge_all())',
                 'tf.compat.v1.train.SummarySaverHook(save_steps=5, output_dir="/tmp/s", scaffold=None)'):
        drive = (f"est.train(train_input_fn, max_steps=10, hooks=[{hook}])\n")
        result = blocked(program(drive=drive))
        assert any("SummarySaverHook" in d.message and d.code == "TFM611" for d in result.diagnostics)


HOOK = 'tf.estimator.SummarySaverHook(save_steps=3, output_dir="/tmp/h", summary_op=tf.compat.v1.summary.merge_all())'


def test_parameter_servers_drop_the_hook_with_a_note():
    ps = ('config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", '
          'train_distribute=tf.compat.v1.distribute.experimental.ParameterServerStrategy())')
    result = rewrite(program(middle=MEAN, run_config=ps, spec=spec(HOOK)))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    notes = hook_notes(result)
    assert len(notes) == 1 and "parameter-server loop does not write summaries" in notes[0], notes
    assert "summary_hooks()" not in result.output.decode()


def test_without_model_dir_the_note_says_the_hook_is_not_written():
    for target in ("keras", "ctl"):
        result = rewrite(program(middle=MEAN, run_config="config = tf.estimator.RunConfig(tf_random_seed=7)",
                                 spec=spec(HOOK)), target=target)
        assert result.status == "changed", [d.format() for d in result.diagnostics]
        assert any("SummarySaverHooks are not written either: the migrated program writes them next to model_dir's"
                   in d.message for d in result.diagnostics), target
