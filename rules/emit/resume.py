"""The support functions a model class's restore methods delegate to (templates/estimator_resume.py.j2): written
once in the support module (or once in the file, without one) instead of in every model class."""
from __future__ import annotations

from .assembly import support

# the functions estimator_resume.py.j2 defines (a module defining one of them cannot take them: program.py blocks)
RESUME_NAMES = ("newest_checkpoint", "resume_model_dir", "restore_tf1_checkpoint")


def resume_support(wanted, support_done: set[str] | None) -> list[str]:
    """The parts of estimator_resume.py.j2 in `wanted` ("newest", "resume", "restore") not yet in this file."""
    out = []
    for part in wanted:
        if support_done is None or f"resume:{part}" not in support_done:
            out.append(support("estimator_resume.py.j2", part=part))
            if support_done is not None:
                support_done.add(f"resume:{part}")
    return out


def log_support(support_done: set[str] | None) -> list[str]:
    """The custom-loop trainer's Estimator log lines (templates/estimator_log.py.j2), once per file."""
    if support_done is not None and "log_estimator_step" in support_done:
        return []
    if support_done is not None:
        support_done.add("log_estimator_step")
    return [support("estimator_log.py.j2")]
