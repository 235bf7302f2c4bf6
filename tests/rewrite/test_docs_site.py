"""The docs site: `mkdocs build --strict` passes (mkdocs.yml makes a broken link or anchor and a page left out of
the nav warnings, which --strict turns into a failed build), every rule has its generated page, and the README
stays a landing page whose links lead into docs/."""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate import ruledoc

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


def test_every_rule_has_a_page_generated_from_its_docstring(site):
    index = _text(site / "rules" / "index.html")
    for rule in ruledoc.all_rules():
        page = site / "rules" / rule.code / "index.html"
        assert page.is_file(), rule.code
        text = " ".join(_text(page).split())
        # the docstring's words, not a hand-made copy: its first and last lines are on the page
        doc = [line.strip() for line in (ruledoc.module_of(rule).__doc__ or "").strip().splitlines() if line.strip()]
        for line in (doc[0], doc[-1]):
            words = " ".join(re.sub(r"[`*_]", "", line).split()[:6])
            assert words in re.sub(r"[`*_]", "", text), (rule.code, words)
        assert rule.code in index and rule.name in index, rule.code


def test_readme_is_a_landing_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    # the two commands come first (CI and first-time users copy them)
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    assert readme.index("```bash") < readme.index("\n## ")
    assert blocks[0].startswith("python3 -m pip install -e . && tfmigrate rewrite")
    assert blocks[1] == "python3 -m pip install -e '.[test]' && python3 -m pytest"
    assert ".ci/run" in readme and "python3 -m pytest" in (ROOT / ".ci" / "run").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link
