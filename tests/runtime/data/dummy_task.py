"""Plain-python stand-in for a TF task (launcher tests). Behaviour per task type from DUMMY_<TYPE>:
ok | crash | hang | sleep:S | bind (bind own TF_CONFIG port, then ok) | child (spawn a hanging grandchild, then hang)
Writes its pid (and a grandchild pid) to $DUMMY_PIDS/<type>-<index>.pid.
"""
import json
import os
import resource
import socket
import subprocess
import sys
import time

cfg = json.loads(os.environ.get("TF_CONFIG") or '{"task": {"type": "chief", "index": 0}}')
task = cfg["task"]
name = "%s-%d" % (task["type"], task["index"])
mode = os.environ.get("DUMMY_" + task["type"].upper(), "ok")
pids = [os.getpid()]
if mode == "child":
    pids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid)
if os.environ.get("DUMMY_PIDS"):
    with open(os.path.join(os.environ["DUMMY_PIDS"], name + ".pid"), "w") as fh:
        fh.write(" ".join(map(str, pids)))
print("task", name, "mode", mode, "TF_CONFIG", os.environ.get("TF_CONFIG"), flush=True)
print("core file limit", resource.getrlimit(resource.RLIMIT_CORE)[0], flush=True)
if mode == "crash":
    print("Traceback: something went wrong in", name, flush=True)
    sys.exit(3)
if mode in ("hang", "child"):
    time.sleep(600)
if mode.startswith("sleep:"):
    time.sleep(float(mode.split(":")[1]))
if mode == "bind":
    host, port = cfg["cluster"][task["type"]][task["index"]].split(":")
    s = socket.socket()
    try:
        s.bind((host, int(port)))
    except OSError as exc:
        print("E UNKNOWN: Could not start gRPC server:", exc, flush=True)
        sys.exit(1)
    s.close()
print("done", name, flush=True)
