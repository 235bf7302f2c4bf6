"""Regenerates rules/facts/data/tf_v1_names.json from TensorFlow's own API metadata (never hand-typed).

Run with any Python; it runs two small readers in the TF environments (`tfmigrate env setup` makes them):
  - TF 2.15 (legacy): every public name under tf.compat.v1 and tf (v2 API), whether both export the same object
    (tf_export puts one object under its v1 and v2 names), and tf_upgrade_v2's own tables
    (all_renames_v2.symbol_renames, reorders, function_keyword_renames, function_warnings, module_deprecations,
    the to_* cast transformers);
  - TF 2.21 (target): which tf.compat.v1 names still exist, so a v1 name TF 2.21 dropped is blocked, not renamed.

    python tools/tf_v1_names.py            # writes rules/facts/data/tf_v1_names.json
    python tools/tf_v1_names.py --check    # exit 1 when the committed file differs from what it would write
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "rules" / "facts" / "data" / "tf_v1_names.json"
# handled by tfmigrate's Estimator/Keras rules, or identical in both APIs and huge (raw_ops): not in the table
SKIP = ("compat", "estimator", "keras", "raw_ops", "contrib")

# Runs inside a TF environment: {"v1": {path: kind}, "v2": {path: kind}, "same": [v1 paths exporting the v2 object]}
_WALK = r'''
import json, sys, types, warnings
warnings.simplefilter("ignore")
import tensorflow as tf
SKIP = set(sys.argv[1].split(","))

def walk(root):
    out, seen = {}, set()
    stack = [("", root)]
    while stack:
        prefix, mod = stack.pop()
        for name in dir(mod):
            if name.startswith("_"):
                continue
            path = f"{prefix}{name}"
            if path.split(".")[0] in SKIP:
                continue
            try:
                obj = getattr(mod, name)
            except Exception:
                continue
            if isinstance(obj, types.ModuleType):
                try:
                    mod_name = obj.__name__
                except Exception:  # (lazy Keras shims on TF 2.16+)
                    continue
                if not mod_name.startswith("tensorflow"):
                    continue
                out[path] = ("module", None)
                if id(obj) not in seen:  # (one module under two paths, tf.flags and tf.app.flags: read once)
                    seen.add(id(obj))
                    stack.append((path + ".", obj))
            else:
                out[path] = ("symbol", obj)
    return out

v1 = walk(tf.compat.v1)
doc = {"version": tf.__version__, "v1": sorted(v1), "modules": sorted(p for p, (k, _) in v1.items() if k == "module")}
if sys.argv[2] == "legacy":
    v2 = walk(tf)
    doc["v2"] = sorted(v2)
    # the same object exported under one path in both APIs: the v1 name means the same in TF2
    doc["same"] = sorted(p for p, (k, o) in v1.items() if k == "symbol" and p in v2 and v2[p][1] is o)
    from tensorflow.tools.compatibility import all_renames_v2, tf_upgrade_v2
    spec = tf_upgrade_v2.TFAPIChangeSpec()
    strip = lambda n: n[3:] if n.startswith("tf.") else n
    doc["renames"] = {strip(k): strip(v) for k, v in all_renames_v2.symbol_renames.items()}
    doc["keywords"] = {strip(k): v for k, v in spec.function_keyword_renames.items()}
    doc["reorders"] = {strip(k): v for k, v in spec.function_reorders.items()}
    doc["warnings"] = {strip(k): v[1] for k, v in spec.function_warnings.items()}
    doc["module_warnings"] = {strip(k): v[1] for k, v in spec.module_deprecations.items()}
    doc["transformed"] = sorted(strip(k) for k in spec.function_transformers)
    doc["casts"] = sorted(strip(k) for k, f in spec.function_transformers.items()
                          if getattr(f, "__name__", "") == "_cast_transformer")
json.dump(doc, sys.stdout)
'''


def read(env: str) -> dict:
    from tfmigrate.runtime.envs import env_python

    python = env_python(env)
    if not Path(python).exists():
        raise SystemExit(f"the {env} TensorFlow environment is missing ({python}): run `tfmigrate env setup`")
    done = subprocess.run([str(python), "-c", _WALK, ",".join(SKIP), env], capture_output=True, text=True,
                          env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    if done.returncode:
        raise SystemExit(f"reading TF in {env} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def build(legacy: dict, target: dict) -> dict:
    """The table the rules read: each TF 1.x name whose spelling must change → its TF2 spelling."""
    v2, same, have = set(legacy["v2"]), set(legacy["same"]), set(target["v1"])
    modules_v1 = {p.rsplit(".", 1)[0] for p in legacy["v1"] if "." in p} | set(legacy["modules"])
    renames, gone = {}, []
    for path in legacy["v1"]:
        if path in same or (path in modules_v1 and path in v2):
            continue  # the same object (or a module of that name) in TF2: nothing to rename
        new = legacy["renames"].get(path)
        if new is None and path in v2 and path not in legacy["transformed"] and \
                (path in legacy["reorders"] or path in legacy["keywords"]):
            new = path  # tf_upgrade_v2 keeps the TF2 function of that name, its arguments moved/renamed
        if new is None or (new.startswith("compat.v1.") and new[10:] != path):
            new = f"compat.v1.{path}"  # the very TF1 object, kept under compat.v1
        if new.startswith("compat.v1."):
            if new[10:] not in have:
                gone.append(path)  # TF 2.21 dropped it: no same-meaning name left
                continue
        elif new not in v2:
            new = f"compat.v1.{path}"
        renames[path] = new
    # tf_upgrade_v2's renames of names outside the walked API (tf.contrib.*, removed aliases) that land on TF2 names
    for old, new in legacy["renames"].items():
        if old not in renames and old.split(".")[0] not in ("estimator", "keras", "compat") and \
                (new in v2 or new.startswith("compat.v1.") and new[10:] in have) and old not in same:
            renames.setdefault(old, new)
    keep = lambda d: {k: v for k, v in sorted(d.items()) if k.split(".")[0] not in ("estimator", "keras")}
    return {
        "_about": "generated by tools/tf_v1_names.py from TF %s (v1/v2 exports, tf_upgrade_v2 tables) and TF %s "
                  "(tf.compat.v1 names still present); do not edit" % (legacy["version"], target["version"]),
        "renames": dict(sorted(renames.items())),
        "modules": sorted(m for m in modules_v1 if m in renames),
        "in_v2": sorted(p for p in renames if p in v2),  # a TF2 name too, of another object: changed meaning
        "gone": sorted(gone),
        # the same object (or module) under the same name in TF2: kept as written
        "same": sorted(p for p in same | (modules_v1 & v2) if p not in renames),
        "keywords": keep(legacy["keywords"]),
        "reorders": keep(legacy["reorders"]),
        "warnings": keep({k: v for k, v in legacy["warnings"].items() if not k.startswith("*")}),
        "module_warnings": keep(legacy["module_warnings"]),
        "transformed": [k for k in legacy["transformed"] if k.split(".")[0] not in ("estimator", "keras")],
        "casts": legacy["casts"],
    }


def render(doc: dict) -> str:
    return json.dumps(doc, indent=0, sort_keys=False, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    text = render(build(read("legacy"), read("target")))
    if "--check" in argv:
        if OUT.read_text() != text:
            print(f"{OUT} is out of date: run python tools/tf_v1_names.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
