"""`verify --html`: the page a person opens. Charts are matplotlib SVG inline; the page is checked as HTML and as a
screenshot taken by headless Chromium (skipped, with the reason, where no chromium is installed)."""
from __future__ import annotations

import math
import re
import shutil
import subprocess

import pytest

pytest.importorskip("matplotlib", reason="the HTML report needs tfmigrate[report] (matplotlib)")

from tfmigrate.runtime import compare, compare_stat, report  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _curve(n: int, seed: int, drift_from: int | None = None) -> list[float]:
    out = []
    for i in range(n):
        v = 3.0 * math.exp(-0.03 * i) + 0.05 + 0.02 * math.sin(i * 0.7 + seed)
        if drift_from is not None and i >= drift_from:
            v *= 1 + 2e-4 * (i - drift_from) ** 1.3
        out.append(v)
    return out


def _stepwise(broken: bool) -> dict:
    a = {"chief0": _curve(200, 0), "worker0": _curve(200, 1)}
    b = {"chief0": [v * (1 + 1e-7 * (i % 3 != 0)) for i, v in enumerate(a["chief0"])],
         "worker0": _curve(200, 1, 120) if broken else list(a["worker0"])}
    cmp = compare.compare_sync({w: [(x, 32) for x in v] for w, v in a.items()},
                               {w: [(x, 32) for x in v] for w, v in b.items()}, 1e-5, 1e-6)
    return {"settings": {"original": "orig.py", "migrated": "migr.py", "workers": 2, "ps": 0, "steps": None,
                         "args": ["--steps", "200"]},
            "versions": {"legacy": {"tensorflow-cpu": "2.15.1"}, "target": {"tensorflow-cpu": "2.21.0"}},
            "run_dir": "/tmp/run", "timings": {"original_total": 12.0},
            "verdict": "equivalent" if cmp["equivalent"] else "NOT equivalent",
            "losses": {"original": a, "migrated": b}, "comparison": cmp}


def _statistical() -> dict:
    orig = [[1.0 / (1 + i / 50) + 0.01 * ((i * 7 + k) % 5) for i in range(300)] for k in range(3)]
    mig = [[1.0 / (1 + i / 50) + 0.01 * ((i * 3) % 5) for i in range(290)]]
    cmp = compare_stat.compare_statistical(orig, mig)
    return {"settings": {"original": "o.py", "migrated": "m.py", "workers": 2, "ps": 1}, "versions": {},
            "run_dir": "/tmp/x", "timings": {}, "verdict": "equivalent" if cmp["equivalent"] else "NOT equivalent",
            "losses": {"original_runs": orig, "migrated_runs": mig}, "comparison": cmp}


def _svgs(html: str) -> list[str]:
    return re.findall(r"<svg.*?</svg>", html, flags=re.S)


def test_broken_run_shows_both_curves_delta_tolerance_and_first_break(tmp_path):
    res = _stepwise(broken=True)
    assert res["comparison"]["first_break"]["worker"] == "worker0"
    step = res["comparison"]["first_break"]["step"]
    out = tmp_path / "r.html"
    report.write_html(res, out)
    html = out.read_text()
    svgs = _svgs(html)
    assert len(svgs) == 2 and all('class="chart"' in s for s in svgs)  # one panel per worker
    chief, worker = svgs
    for svg in svgs:  # both sides, |Δ|, the tolerance line and step ticks, as text a reader (and search) sees
        assert "original (TF 1 Estimator)" in svg and "migrated (TF 2)" in svg
        assert "|original − migrated|" in svg and "tolerance 1e-06 + 1e-05·|original|" in svg
        assert ">step<" in svg and ">150<" in svg
    assert f"first break: step {step}" in worker and "first break" not in chief
    assert "bit-equal (67 of 200 steps)" in chief  # Δ = 0 steps are ticked, not lost on the log axis
    # verdict, configuration, first divergence
    assert 'class="verdict bad"' in html and ">NOT equivalent<" in html
    assert 'id="config"' in html and "|Δ| ≤ 1e-06 + 1e-05·|original|" in html and "--steps 200" in html
    assert re.search(rf'id="first-break">worker0, step <b>{step}</b>', html)
    # self-contained: nothing fetched, no script
    assert "<script" not in html and 'href="http' not in html and 'src="http' not in html
    assert "<?xml" not in html and "<metadata>" not in html


def test_equivalent_run_says_so(tmp_path):
    out = tmp_path / "r.html"
    report.write_html(_stepwise(broken=False), out)
    html = out.read_text()
    assert 'class="verdict ok"' in html and "none: every compared step is within tolerance" in html
    assert "first break: step" not in html


def test_statistical_panel(tmp_path):
    out = tmp_path / "r.html"
    res = _statistical()
    report.write_html(res, out)
    (svg,) = _svgs(out.read_text())
    assert "original runs (3)" in svg and "original band (mean ± margin)" in svg and "migrated bin mean" in svg
    assert "training progress" in svg


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")
@pytest.mark.parametrize("kind", ["stepwise", "statistical"])
def test_page_renders_in_headless_chromium(tmp_path, kind):
    pytest.importorskip("PIL", reason="pillow reads the screenshot (it comes with matplotlib)")
    from PIL import Image

    page = tmp_path / "r.html"
    report.write_html(_stepwise(broken=True) if kind == "stepwise" else _statistical(), page)
    shot = tmp_path / "r.png"
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
         f"--screenshot={shot}", "--window-size=1000,1800", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    console = [ln for ln in proc.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert not console, console
    import numpy as np

    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img.shape == (1800, 1000, 3)
    inked = (img.min(axis=2) < 200).mean()
    assert inked > 0.02, f"the page looks blank ({inked:.1%} of it inked)"

    charts = img[500:]  # below the verdict banner (a red of its own), the settings and the first-divergence box

    def count(colour, d=40):  # pixels within d of a chart colour on every channel
        return int((np.abs(charts - np.array(colour)).max(axis=2) <= d).sum())

    # the chart colours are on screen: the migrated curve's red and the original's blue
    assert count((0xc6, 0x28, 0x28)) > 200, "no migrated (red) curve drawn"
    assert count((0x7f, 0xb2, 0xe5)) > 200, "no original (blue) curve drawn"
    if kind == "stepwise":
        assert count((0xef, 0x6c, 0x00)) > 100, "no first-break marker drawn"
