"""The HTML diff report in a real browser: Debian's chromium, headless, driven by selenium through Debian's
chromedriver (never a downloaded browser). At 1400 and 800 px wide nothing sticks out of the page and every
in-page link leads somewhere; screenshots go to reports/browser/.

`.ci/run` installs chromium and chromium-driver with apt-get before the test run (about a minute on a fresh
machine); elsewhere, without them, the test is skipped, except under CI=true, where it fails."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff import DiffOptions
from wirecheck.diff.package import diff_package
from wirecheck.diff.report import write
from wirecheck.diff.run import DiffRun

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SHOTS = Path(__file__).resolve().parents[2] / "reports" / "browser"

if not (CHROMIUM and DRIVER):
    if os.environ.get("CI") == "true":
        pytest.fail("CI needs chromium and chromium-driver (.ci/run installs them)", pytrace=False)
    pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")

# elements whose right edge passes the viewport, and in-page links whose target does not exist
_OVERFLOW = """return [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 60))"""
_DANGLING = """return [...document.querySelectorAll('a[href^="#"]')]
  .filter(a => !document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1))))
  .map(a => a.getAttribute('href'))"""


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    registry = load_registry()
    packages = [diff_package(registry, name, DiffOptions()) for name in registry.packages]
    run = DiffRun(tuple(r for p in packages for r in p.consecutive), DiffOptions(), "breaking", (), tuple(packages))
    path = tmp_path_factory.mktemp("html") / "index.html"
    with path.open("w", encoding="utf-8") as out:
        write("html", run, out)
    return path


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="wirecheck-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.parametrize("width", [1400, 800])
def test_the_html_report_fits_the_page_and_its_links_resolve(page, browser, width) -> None:
    browser.set_window_size(width, 1000)
    browser.get(page.as_uri())
    client = browser.execute_script("return document.documentElement.clientWidth")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= client
    assert browser.execute_script(_OVERFLOW) == []
    links = browser.execute_script("return document.querySelectorAll('a[href^=\"#\"]').length")
    assert links > 20 and browser.execute_script(_DANGLING) == []
    # every matrix cell links to its pair's details, the transitive cells too
    cells = browser.execute_script("return [...document.querySelectorAll('td a')].map(a => a.getAttribute('href'))")
    assert "#qoder-agent-sdk-1.0.13-1.0.39" in cells
    assert browser.execute_script("return !!document.getElementById('qoder-agent-sdk-1.0.13-1.0.39')")
    words = browser.execute_script("return document.body.innerText")
    assert "one release" in words
    # issue 32: the gate line said once (it was `gate --fail-on breaking: fail (gate --fail-on breaking: fail (…))`)
    # and on the first screen; no raw Markdown backticks; every mark the page shows is in its legend
    assert words.count("gate --fail-on breaking:") == 1 and "(gate --fail-on" not in words
    gate_top = browser.execute_script("return [...document.querySelectorAll('p')].find(p => "
                                      "p.innerText.startsWith('gate --fail-on')).getBoundingClientRect().top")
    assert gate_top < 1000 / 2
    assert "`" not in words
    legend = browser.execute_script("return [...document.querySelectorAll('dt')].map(d => d.innerText).join(' ')")
    for mark in ("✗", "✓", "?", "←"):
        assert mark not in words or mark in legend, mark
    assert "F ✗ [" not in words and "old any" not in words and "none bump" not in words
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / f"diff-{width}.png"))
