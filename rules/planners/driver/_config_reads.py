"""`config.model_dir` read from the RunConfig the conversion removes (part of TFM601).

The census shape: `run_config = run_config.replace(model_dir=args.job_dir)` then `print(run_config.model_dir)`. The
Estimator's RunConfig kept the model_dir it was given (a str stays the same str), so the read becomes that value,
written where the read is (`print(args.job_dir)`), when the read sees the binding the Estimator was configured with
(the last of its `.replace` chain in that scope, and no other) and model_dir is a setting known here. Any other read
of the config stays a blocker (_removal.py)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.model import Value


def model_dir_reads(analysis, b, stray: list) -> list:
    """The reads of `stray` (loads of the consumed binding `b`) that are `b.model_dir` of an Estimator's config;
    recorded in analysis.config_reads (attribute, file, model_dir Value) for the emitter; the others returned."""
    file = b.scope.file
    sites = [s for s in analysis.sites if any(c is b for c in s.consumed)]
    if len(sites) != 1 or "model_dir" not in sites[0].run_config \
            or not isinstance(sites[0].run_config["model_dir"], Value):
        return stray
    # `Estimator(model_dir=X, config=config)`: the Estimator kept X in a copy of the config; `config.model_dir` is
    # still the config's own (None when it set none: measured on TF 2.15)
    if any(a.value is sites[0].run_config["model_dir"].node for a in sites[0].call.args):
        return stray
    # the Estimator saw the last binding of the chain: the latest of this name in this scope it went through
    chain = [c for c in sites[0].consumed if c.name == b.name and c.scope is b.scope]
    if max(chain, key=lambda c: file.orders.get(id(c.statement), -1)) is not b:
        return stray
    rest = []
    for read in stray:
        parent = file.parent(read)
        if isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value == "model_dir" \
                and analysis.program.lookup(read.value, read, file) == [b] \
                and not isinstance(file.parent(parent), (cst.AssignTarget, cst.Del, cst.AugAssign)):
            analysis.config_reads.append((parent, file, sites[0].run_config["model_dir"]))
        else:
            rest.append(read)
    return rest
