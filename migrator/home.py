"""tfmigrate's home: $TFMIGRATE_HOME, else the user cache dir (platformdirs: ~/.cache/tfmigrate on Linux). The
runtime keeps its TF environments there and `rewrite` its result cache, so this module stays light: a cached
`rewrite --check` asks for it on every run and must not import the runtime (subprocess, locking, ~15 ms) for it."""
from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    h = os.environ.get("TFMIGRATE_HOME")
    if h:
        return Path(h)
    import platformdirs

    return Path(platformdirs.user_cache_dir("tfmigrate"))
