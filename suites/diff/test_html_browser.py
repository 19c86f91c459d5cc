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


# -- hostile names: shown as the literal value, never obeyed (issue 41, 9) -----------------------------------------

HOSTILE = "x\x1b]0;t\x07\x01 `code` <b>|</b> ]]> \u202eevil &amp; \u2028end"
SUITES = Path(__file__).resolve().parents[1]
CODES = "return [...document.querySelectorAll('code')].map(c => c.innerText)"
RAW = ["\x1b", "\x07", "\x01", "\u202e", "\u2028"]


def _wirecheck(*args: str, cwd: Path) -> None:
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_CONTRACTS"}
    done = subprocess.run([sys.executable, "-m", "wirecheck", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory) -> dict[str, Path]:
    """The diff report of two schemas with hostile file names and a hostile property name and enum value, and the
    certification report of a capture with a hostile name and a scope file with hostile reasons, each written by
    the CLI as a user gets it."""
    import json

    import orjson

    folder = tmp_path_factory.mktemp("hostile")
    old = {"type": "object", "required": ["keep"], "properties": {
        HOSTILE: {"type": "string"}, "keep": {"enum": [f"a`b{HOSTILE}", "c"]}}}
    new = {"type": "object", "required": ["keep", HOSTILE], "additionalProperties": False, "properties": {
        HOSTILE: {"type": "integer"}, "keep": {"enum": ["c"]}}}
    (folder / f"old {HOSTILE}.json".replace("/", "_")).write_bytes(orjson.dumps(old))
    (folder / f"new {HOSTILE}.json".replace("/", "_")).write_bytes(orjson.dumps(new))
    names = sorted(p.name for p in folder.iterdir())
    _wirecheck("diff-schemas", names[1], names[0], "--format", "html", "-o", "diff.html", cwd=folder)
    capture = folder / f"run {HOSTILE}.framed.ndjson".replace("/", "_")
    capture.write_bytes(b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                        b'{"from": "cli", "message": {"type": "assistant", "session_id": 5, "message": {}}}\n')
    scope = folder / "scope.yaml"  # JSON with every non-ASCII character escaped: YAML folds a raw U+2028
    scope.write_text(json.dumps({
        "expected_failures": [{"id": "FAKEQODER-1.0.0-ASSISTANT-SCHEMA", "reason": f"known: {HOSTILE}"}],
        "out_of_scope": [{"id": "FAKEQODER-1.0.0-RESULT-SCHEMA", "reason": f"unreached {HOSTILE}",
                          "evidence": f"see {HOSTILE}"}]}))
    _wirecheck("certify", "fakeqoder@1.0.0", capture.name, "--role", "cli", "--scope", "scope.yaml", "--contracts",
               str(SUITES / "harness" / "data" / "contracts"), "--out-dir", "cert", cwd=folder)
    return {"diff": folder / "diff.html", "certification": folder / "cert" / "certification.html"}


@pytest.mark.parametrize("report", ["diff", "certification"])
def test_hostile_names_are_shown_as_their_literal_value(hostile_pages, browser, report) -> None:
    """A file name, property name, enum value or scope reason holding ESC, BEL, \\x01, a bidirectional override, a
    line separator, markup, `]]>`, an entity and backticks is shown exactly as the text and Markdown reports show
    it (`printable`): the controls as escapes, the rest as written; no raw control character reaches the page
    (the HTML carried them raw), and backticks in a value are the value's (the diff turned them into <code>)."""
    from wirecheck.findings import printable

    browser.get(hostile_pages[report].as_uri())
    words = browser.execute_script("return document.body.innerText")
    shown = printable(HOSTILE)
    assert not [c for c in RAW if c in words], [c for c in RAW if c in words]
    assert shown in words, words[:3000]
    assert not browser.execute_script("return document.querySelectorAll('b b, code b, td b').length"), "markup ran"
    codes = browser.execute_script(CODES)
    if report == "diff":
        assert shown in codes  # the property name, one <code>, whole
        assert f"a`b{shown}" in " ".join(codes)  # the enum value with its backticks
        assert "code" not in codes  # no span made of the value's own backticks
    else:
        assert f"known: {shown}" in words and f"unreached {shown}" in words and f"see {shown}" in words
        assert any(printable(f"run {HOSTILE}.framed.ndjson".replace("/", "_")) in code for code in codes), codes
