"""TFM501 tf.compat.v1.summary.scalar in a model_fn (rules/planners/model_fn.py `scalar_summary`): on the custom loop the
train step returns the summaries' values from the model output and the chief writes them, and the loss, to
model_dir's events file at the run's first step and every save_summary_steps; everything else keeps the note.
What is written is compared with the Estimator's events in tests/fixtures_run/test_summary_events.py."""
from __future__ import annotations

from _helpers import FORWARD, converted, program, rewrite, section

MEAN = 'tf.compat.v1.summary.scalar("logits/mean", tf.reduce_mean(logits))\n'
SUMMARY_CONFIG = ('config = tf.estimator.RunConfig(model_dir="/tmp/tfm-test", tf_random_seed=7, '
                  'save_summary_steps=5)')


def summary_notes(result) -> list[str]:
    return [d.message for d in result.diagnostics if "summary" in d.message]


def test_ctl_writes_the_scalar_from_the_model_output_every_save_summary_steps():
    result = rewrite(program(middle=MEAN, run_config=SUMMARY_CONFIG), target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = converted(program(middle=MEAN, run_config=SUMMARY_CONFIG), target="ctl")
    method = section(out, "    def summaries(self, logits):", "    def ")
    assert '"logits/mean": tf.reduce_mean(logits),' in method
    assert "summaries = model.summaries(outputs)" in out  # inside the tape: this step's forward values
    assert "if writer and (step - first_step) % self.save_summary_steps == 0:" in out
    assert 'for tag, value in [*summaries.items(), ("loss", loss)]:' in out
    assert "save_summary_steps=5" in section(out, "def main():", "if __name__")
    assert summary_notes(result) == []  # neither the summary nor save_summary_steps is dropped


def test_keyword_arguments_and_a_local_computed_from_the_output():
    forward = FORWARD + 'peak = tf.reduce_max(tf.abs(logits))\ntf.compat.v1.summary.scalar(tensor=peak, name="peak")\n'
    out = converted(program(forward=forward), target="ctl")
    assert '"peak": tf.reduce_max(tf.abs(logits)),' in section(out, "    def summaries(self, logits):", "    def ")
    assert "save_summary_steps=100" in out  # the Estimator's default


def test_keras_target_writes_from_compute_loss_while_the_callback_holds_a_writer():
    result = rewrite(program(middle=MEAN, run_config=SUMMARY_CONFIG))
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = converted(program(middle=MEAN, run_config=SUMMARY_CONFIG))
    assert '"logits/mean": tf.reduce_mean(logits),' in section(out, "    def summaries(self, logits):", "    def ")
    compute_loss = section(out, "    def compute_loss(self", "    def test_step")
    assert "loss = super().compute_loss(" in compute_loss and "if training and self.summary_writer is not None:" \
        in compute_loss
    assert "tf.summary.record_if((step - first) % every == 0)" in compute_loss
    assert 'EstimatorSummaries("/tmp/tfm-test", 5)' in section(out, "def main():", "if __name__")
    assert "class EstimatorSummaries(keras.callbacks.Callback):" in out
    assert "jit_compile=False" in section(out, "def build_model(", "class ")  # summary ops cannot be XLA-compiled
    assert summary_notes(result) == []


def test_without_model_dir_the_note_says_nothing_is_written():
    for target in ("keras", "ctl"):
        result = rewrite(program(middle=MEAN, run_config="config = tf.estimator.RunConfig(tf_random_seed=7)"),
                         target=target)
        assert result.status == "changed", [d.format() for d in result.diagnostics]
        notes = summary_notes(result)
        assert any('summary "logits/mean" not written: no model_dir' in n for n in notes), (target, notes)


def test_a_value_the_model_output_does_not_give_keeps_the_note():
    """`net` is a hidden layer: call() returns only the output, so the train step cannot see it."""
    result = rewrite(program(middle='tf.compat.v1.summary.scalar("net", tf.reduce_mean(net))\n',
                             run_config=SUMMARY_CONFIG), target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert "def summaries" not in out and "create_file_writer" not in out
    notes = summary_notes(result)
    assert any('summary "net" dropped' in n and "only the model output is available" in n for n in notes), notes
    assert any(n.startswith("RunConfig(save_summary_steps=...) dropped") for n in notes), notes


def test_tags_tf1_renamed_and_other_arguments_keep_the_note():
    middle = (MEAN + 'tf.compat.v1.summary.scalar("logits/mean", tf.reduce_max(logits))\n'  # TF1: logits/mean_1
              'tf.compat.v1.summary.scalar("loss", tf.reduce_min(logits))\n'  # TF1: loss_1, next to its own loss
              'tf.compat.v1.summary.scalar("fam", tf.reduce_min(logits), family="f")\n'
              'tf.compat.v1.summary.scalar("has space", tf.reduce_min(logits))\n')
    result = rewrite(program(middle=middle), target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    method = section(result.output.decode(), "    def summaries(self, logits):", "    def ")
    assert method.count(": tf.") == 1 and '"logits/mean": tf.reduce_mean(logits)' in method
    notes = summary_notes(result)
    assert len(notes) == 4, notes
    assert any("'logits/mean' is not written as TF1 renamed it" in n for n in notes)
    assert any("'loss' is not written" in n for n in notes)
    assert any("no collections or family" in n for n in notes)
    assert any("'has space' is not written" in n for n in notes)


def test_a_summary_in_the_eval_branch_keeps_the_note():
    middle = ('if mode == tf.estimator.ModeKeys.EVAL:\n'
              '    tf.compat.v1.summary.scalar("eval_mean", tf.reduce_mean(logits))\n'
              '    return tf.estimator.EstimatorSpec(mode, loss=loss)\n')
    result = rewrite(program(middle=middle), target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert "def summaries" not in result.output.decode()
    assert any('summary "eval_mean" dropped' in n for n in summary_notes(result))


def test_parameter_server_loop_keeps_the_note():
    result = rewrite(program(middle=MEAN), strategy="parameter-server")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    out = result.output.decode()
    assert "create_file_writer" not in out
    assert any('summary "logits/mean" dropped' in n and "parameter-server loop does not write it" in n
               for n in summary_notes(result))


def test_ctl_without_summaries_writes_none():
    out = converted(program(), target="ctl")
    assert "summar" not in out


def test_a_summary_of_the_loss_points_to_the_loss_tag():
    result = rewrite(program(middle='tf.compat.v1.summary.scalar("train_loss", loss)\n'), target="ctl")
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert "def summaries" not in result.output.decode()
    (note,) = summary_notes(result)
    assert 'summary "train_loss" dropped' in note and "writes the loss under the tag 'loss'" in note


def test_tf_compat_v1_imported_as_tf():
    src = program(header="import tensorflow.compat.v1 as tf", middle='tf.summary.scalar("m", tf.reduce_mean(logits))\n')
    out = converted(src, target="ctl")
    assert '"m": tf.reduce_mean(logits),' in section(out, "    def summaries(self, logits):", "    def ")


def test_training_until_the_input_ends_writes_after_each_step_too():
    drive = """
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn)
    tf.estimator.train_and_evaluate(est, train_spec, tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=2))
    """
    out = converted(program(middle=MEAN, drive=drive), target="ctl")
    loop = section(out, "        while max_steps is None or step < max_steps:", "        if manager:")
    assert "loss, summaries = train_step(iterator)" in loop and "except tf.errors.OutOfRangeError" in loop
    assert loop.index("step += 1") < loop.index("if writer and (step - first_step) % self.save_summary_steps == 0:")
