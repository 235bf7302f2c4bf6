"""The TPU branch of a migrated TPUEstimator program (rules/planners/tpu_strategy.py) run without a TPU: the TPU
system calls are replaced by a stand-in whose "TPUStrategy" is a MirroredStrategy over two logical CPUs, so the
branch's own code (the resolver built from the program's flags, the core-count checks, the model built and trained
in the strategy's scope, each global batch split over two replicas and their gradients averaged) runs on TF 2.21.
Its training must match the CPU path's (one replica, the whole batch). This is not a TPU verification: TPU
arithmetic (bfloat16 matmul passes), XLA compilation and the real TPUStrategy are not exercised here.

Marked `tfenv`: needs the bundled TF 2.21 environment.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tfmigrate.runtime import envs

pytestmark = pytest.mark.tfenv

MIGRATED = Path(__file__).resolve().parents[2] / "fixtures" / "tpu_strategy_flag" / "migrated.py"
STAND_IN = '''\
import runpy, sys
import tensorflow as tf

tf.config.set_logical_device_configuration(tf.config.list_physical_devices("CPU")[0],
                                           [tf.config.LogicalDeviceConfiguration()] * 2)
seen = {}


class Resolver:  # records the arguments the program built its TPUClusterResolver with
    def __init__(self, *args, **kwargs):
        seen["resolver"] = (args, kwargs)


def connect(resolver):
    seen["connected"] = isinstance(resolver, Resolver)


def initialize(resolver):
    seen["initialized"] = isinstance(resolver, Resolver)


class _Real(type):  # isinstance(x, tf.distribute.TPUStrategy) (Keras asks) stays the real class's answer
    def __instancecheck__(cls, obj):
        return isinstance(obj, REAL_TPU_STRATEGY)


class StandIn(metaclass=_Real):
    def __new__(cls, resolver):
        seen["strategy"] = isinstance(resolver, Resolver)
        return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


REAL_TPU_STRATEGY = tf.distribute.TPUStrategy


tf.distribute.cluster_resolver.TPUClusterResolver = Resolver
tf.config.experimental_connect_to_cluster = connect
tf.tpu.experimental.initialize_tpu_system = initialize
tf.distribute.TPUStrategy = StandIn
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as exit:
    if exit.code:
        raise
print("stand-in:", sorted(seen.items()))
'''


def _run(tmp_path: Path, *flags: str) -> str:
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    argv = [str(envs.env_python("target")), str(script), str(MIGRATED), "--steps", "40",
            "--model_dir", str(tmp_path / ("tpu" if "--use_tpu" in flags else "cpu")), *flags]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _eval(out: str) -> dict:
    line = next(x for x in out.splitlines() if x.startswith("final eval:"))
    return {k: float(v) for k, v in re.findall(r"'(\w+)': ([-0-9.e]+)", line)}


def test_tpu_branch_trains_like_the_cpu_path_on_two_replicas(tmp_path):
    cpu = _run(tmp_path)
    tpu = _run(tmp_path, "--use_tpu", "--tpu", "my-tpu", "--tpu_zone", "z1", "--gcp_project", "p1",
               "--num_shards", "2")
    assert "stand-in: []" in cpu  # the CPU path touches none of the TPU calls
    seen = tpu[tpu.index("stand-in:"):]
    assert "('resolver', (('my-tpu',), {'zone': 'z1', 'project': 'p1'}))" in seen, seen
    assert "('connected', True)" in seen and "('initialized', True)" in seen and "('strategy', True)" in seen
    a, b = _eval(cpu), _eval(tpu)
    assert a.keys() == b.keys() and a["global_step"] == b["global_step"] == 40
    for key in a:  # the same examples per step, the two halves' gradients averaged: the whole batch's
        assert b[key] == pytest.approx(a[key], rel=1e-5, abs=1e-6), (key, a, b)


def test_tpu_branch_raises_as_tf1_did_when_num_shards_is_not_the_cores(tmp_path):
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    done = subprocess.run([str(envs.env_python("target")), str(script), str(MIGRATED), "--use_tpu", "--steps", "2",
                           "--model_dir", str(tmp_path / "m")], capture_output=True, text=True, timeout=600,
                          env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode != 0 and "TPUConfig(num_shards=8) is not the 2 TPU cores" in done.stderr, done.stderr[-2000:]
