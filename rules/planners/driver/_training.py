"""What a site's training does, read by the analysis, the emitter and rules/program.py: where it stops
(max_steps, a StopAtStepHook, the end of the input), whether it resumes from model_dir and writes the Estimator's
checkpoints, which calls train."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import FileIndex, Value

from ...facts.calls import is_literal
from ...facts.sites import Site
from ...facts.estimator import CODE
from ._values import Least


def resumes(site: Site) -> bool:
    """The Estimator resumed from the latest checkpoint in its model_dir (one was given): the migrated program
    restores it too (restore_model_dir: its own TF2 checkpoint, else the Estimator's TF1 one by name; a canned model
    by the names its estimator gave the variables). model_to_estimator models and parameter servers keep today's
    restore of their own checkpoints only."""
    model_dir = site.run_config.get("model_dir")
    if model_dir is None or (isinstance(model_dir, Value) and is_literal(model_dir.node, None)):
        return False
    if site.strategy is not None and site.strategy.parameter_server:
        return False
    from .. import keras_estimator

    return not keras_estimator.is_keras(site)


def loop_writes_checkpoints(site: Site) -> bool:
    """Custom loop target, a model_fn Estimator resuming from its model_dir (not canned, not parameter servers):
    the generated trainer writes the Estimator's checkpoints, or a CheckpointSaverHook's (rules/planners/hooks.py)."""
    from .. import canned

    return site.target != "keras" and resumes(site) and not canned.is_canned(site)


def training_calls(analysis, file: FileIndex) -> list[cst.Call]:
    """The calls of `file` that train an Estimator on the Keras target (each becomes a fit whose callbacks end with
    the generated NanLossCheck)."""
    return [u.call for s in analysis.sites if s.target == "keras" for u in s.uses if u.file is file and u.train]


def writes_checkpoints(site: Site) -> bool:
    """Keras target, a model_fn or canned Estimator resuming from its model_dir: the generated EstimatorCheckpoints
    callback writes the Estimator's checkpoints (steps, names, how many kept) instead of a BackupAndRestore backup.
    Canned models too, now that they name the layers they hold in lists and restore_model_dir builds the optimizer
    before reading its slots (tests/fixtures_run/test_canned_model_dir.py: a canned program resuming its own
    model.ckpt-<step> matches the Estimator step for step, DNN and wide & deep). model_to_estimator fits too
    (keras_resumes)."""
    return site.target == "keras" and (resumes(site) or keras_resumes(site))


def keras_resumes(site: Site) -> bool:
    """A model_to_estimator Estimator with a model_dir: its fit writes the Estimator's checkpoints (measured on TF
    2.15: model.ckpt-<step> at the first step, every save_checkpoints_steps after the last save and at the last step,
    keep_checkpoint_max kept, as a model_fn Estimator's) with EstimatorCheckpoints, and the generated
    `restore_model_dir(model, model_dir)` resumes from the newest of them (tests/fixtures_run/
    test_model_to_estimator_checkpoints.py); a checkpoint the Estimator itself wrote is not read (an error)."""
    from .. import keras_estimator

    model_dir = site.run_config.get("model_dir")
    return keras_estimator.is_keras(site) and model_dir is not None and not (
        isinstance(model_dir, Value) and is_literal(model_dir.node, None))


def stop_at(steps: Value | None, stop: dict[str, Value]):
    """max_steps combined with a StopAtStepHook: training ended at whichever came first."""
    hook = stop.get("last_step") or stop.get("num_steps")
    if hook is None:
        return steps
    if steps is None:
        return hook
    return Least(steps, hook, steps.node)


def check_end_of_input(site: Site, node) -> None:
    """Training without max_steps ran until the input_fn's data ended (forever on a repeated dataset): one Keras
    epoch over the same data does the same; the custom loop trains until its distributed iterator ends. Under
    MultiWorkerMirroredStrategy every worker reads its own shard and the Estimator's workers stopped together only
    when the shards gave the same number of batches (a shorter one stopped and the others waited in the next
    all-reduce); the distributed iterator ends when every worker's shard has ended, so equal shards give the same
    steps. Parameter servers: each worker ended on its own, asynchronously; not converted."""
    if site.strategy is not None and site.strategy.parameter_server:
        raise Blocked(CODE, "training without max_steps runs until the input data ends; under parameter servers "
                            "each worker ended on its own, which the coordinator's scheduled steps do not "
                            "reproduce: give max_steps", node)


def until_end_of_input(sites) -> bool:
    """Some training of these Estimators has no max_steps: the custom loop must stop where the input ends."""
    return any(use.train and "max_steps" not in use.train for site in sites for use in site.uses)
