"""Every test gets its own empty rewrite cache: no test reads another's results, none writes to the user's cache."""
import pytest


@pytest.fixture(autouse=True)
def _own_rewrite_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TFMIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("rewrite-cache")))
