"""Report writers: JSONL validates against its published schema (and the schema rejects broken records), identity
digests are real, JUnit/Markdown/HTML say the same thing, the HTML page is self-contained."""

from __future__ import annotations

import hashlib
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import yaml

from wirecheck.certify.identity import sha256_release
from wirecheck.certify.pipeline import certify_captures
from wirecheck.certify.report import FORMATS
from wirecheck.certify.report.html import badge_svg
from wirecheck.contracts.loader import own_schema

from .conftest import GOOD_RUN, INIT, INITIALIZE, RESULT

SCHEMA = own_schema("certification.schema.json")
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def render(cert, name):
    out = io.StringIO()
    FORMATS[name](cert, out)
    return out.getvalue()


@pytest.fixture
def failing(fake, framed, tmp_path):
    bad = {**RESULT, "is_error": "no"}
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(yaml.safe_dump({"expected_failures": [
        {"id": "FAKEQODER-1.0.0-CLOSED-FIELDS", "reason": "<script>alert(1)</script> vendor extension"}]}))
    frames = [*GOOD_RUN[:-1], ("cli", bad), ("cli", {"type": "system", "subtype": "init", "session_id": "s",
                                                      "protocol_version": "1.2.0", "betas": []})]
    return certify_captures(fake, [framed(frames)], role="cli", baseline=baseline)


@pytest.fixture
def passing(fake, framed):
    return certify_captures(fake, [framed(GOOD_RUN)], role="cli")


def test_jsonl_every_line_validates_header_records_footer(failing):
    lines = [json.loads(line) for line in render(failing, "jsonl").splitlines()]
    for line in lines:
        VALIDATOR.validate(line)
    assert lines[0]["record"] == "header" and lines[-1]["record"] == "footer"
    assert [r["id"] for r in lines[1:-1]] == [r.requirement.id for r in failing.results]
    footer = lines[-1]
    assert footer["verdict"] == "not certified" and footer["blocking"] == ["FAKEQODER-1.0.0-RESULT-SCHEMA"]
    by_id = {r["id"]: r for r in lines[1:-1]}
    assert by_id["FAKEQODER-1.0.0-RESULT-SCHEMA"]["findings"][0]["pointer"] == "/is_error"
    assert by_id["FAKEQODER-1.0.0-CLOSED-FIELDS"]["status"] == "expected_fail"
    assert [s["level"] for s in footer["scores"]] == ["MUST", "SHOULD", "MAY"]


@pytest.mark.parametrize(
    ("index", "edit"),
    [
        (0, lambda r: r["identity"]["contract"].update(sha256="abc")),
        (0, lambda r: r["identity"].update(timestamp="yesterday")),
        (1, lambda r: r.update(status="passed")),
        (1, lambda r: r.update(status="fail", findings=[])),  # a failure must show its findings
        (1, lambda r: r.update(level="SHALL")),
        (-1, lambda r: r.update(verdict="ok")),
        (-1, lambda r: r["scores"].pop()),
        (-1, lambda r: r.update(extra=1)),
    ],
)
def test_the_schema_rejects_broken_records(passing, index, edit):
    lines = [json.loads(line) for line in render(passing, "jsonl").splitlines()]
    record = lines[index]
    VALIDATOR.validate(record)
    edit(record)
    assert list(VALIDATOR.iter_errors(record))


def test_expected_failure_records_need_their_reason(failing):
    lines = [json.loads(line) for line in render(failing, "jsonl").splitlines()]
    record = next(r for r in lines if r.get("status") == "expected_fail")
    del record["baseline_reason"]
    assert list(VALIDATOR.iter_errors(record))


def test_identity_digests_are_the_real_digests(passing, fake):
    identity = passing.identity
    capture = identity["captures"][0]
    assert capture["sha256"] == hashlib.sha256(Path(capture["path"]).read_bytes()).hexdigest()
    assert capture["form"] == "framed" and capture["messages"] == len(GOOD_RUN)
    assert identity["requirements"]["sha256"] == hashlib.sha256(
        (fake.root / "requirements.yaml").read_bytes()).hexdigest()
    assert identity["contract"]["sha256"] == sha256_release(fake.root)
    assert identity["timestamp"].endswith("Z") and identity["role"] == "cli"


def test_release_digest_covers_every_contract_file_but_not_the_requirements(tmp_path):
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / "catalog.yaml").write_text("a")
    (folder / "x.json").write_text("{}")
    first = sha256_release(folder)
    (folder / "requirements.yaml").write_text("reworded")
    assert sha256_release(folder) == first
    (folder / "x.json").write_text("{ }")
    assert sha256_release(folder) != first
    (folder / "x.json").write_text("{}")
    (folder / "x.json").rename(folder / "y.json")  # a renamed file is a different release
    assert sha256_release(folder) != first


def test_junit_one_case_per_requirement(failing):
    root = ET.fromstring(render(failing, "junit"))
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(failing.results)
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["FAKEQODER-1.0.0-RESULT-SCHEMA"]
    skipped = {c.get("name"): c.find("skipped").get("message") for c in cases if c.find("skipped") is not None}
    assert skipped["FAKEQODER-1.0.0-CLOSED-FIELDS"].startswith("expected failure: ")
    assert skipped["FAKEQODER-1.0.0-KEEP-ALIVE-SCHEMA"] == "not exercised"  # MAY: skipped, not failed
    assert suite.get("failures") == "1" and suite.get("tests") == str(len(cases))


def test_markdown_lists_scores_requirements_findings_and_identity(failing):
    text = render(failing, "markdown")
    assert "**not certified**" in text
    assert "| MUST | 6/7 | 1 | 0 |" in text
    assert "| `FAKEQODER-1.0.0-RESULT-SCHEMA` | MUST | ❌ fail |" in text
    assert "/is_error" in text and "sha256 `" in text


def test_html_is_self_contained_escaped_and_carries_the_badge(failing):
    page = render(failing, "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    lowered = page.lower()
    for external in ("<script", "<link", " src=", "@import", "url("):
        assert external not in lowered
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # baseline reasons are escaped
    assert badge_svg(failing.badge) in page and "incompatible" in page
    ET.fromstring(badge_svg(failing.badge))  # the badge is well-formed SVG on its own


def test_text_shows_every_non_passing_requirement(failing):
    text = render(failing, "text")
    assert text.startswith("fakeqoder@1.0.0 (role cli): NOT CERTIFIED")
    assert "FAIL            MUST   FAKEQODER-1.0.0-RESULT-SCHEMA" in text
    assert "baseline: <script>" in text


WORDS = "Not logged in · Please run /login"


def live(fake, framed, *, heard: bool, exit_code: int | None = 1):
    """A live run that failed: before the implementation wrote anything (`heard` false), or after it did."""
    frames = [("sdk", INITIALIZE), *([("cli", INIT)] if heard else [])]
    outcome = {"ok": False, "heard": heard, "exit_code": exit_code, "stderr_tail": f"starting\n{WORDS}\n",
               "problem": "scenario step 2 (expect) failed: stdout closed before a line matching {\"type\":\"result\"}"}
    return certify_captures(fake, [framed(frames)], role="cli", run={"identity": {"argv": ["qodercli"]},
                                                                     "outcome": outcome})


@pytest.fixture
def run_failed(fake, framed):
    return live(fake, framed, heard=False)


@pytest.fixture
def failed_after_speaking(fake, framed):
    return live(fake, framed, heard=True)


def test_a_run_that_heard_nothing_is_run_failed_in_every_format_with_the_programs_words(run_failed) -> None:
    """Issue 22: "stdout closed (exit status 1)" is not a verdict: exit 5, every format says the run failed and
    quotes what the program said (qodercli's "Not logged in")."""
    assert run_failed.exit_code == 5 and run_failed.verdict == "run failed" and not run_failed.passed
    assert run_failed.gate_line.startswith("gate --fail-on MUST: run failed (nothing was heard")
    for name in FORMATS:
        out = render(run_failed, name)
        if name == "json":
            footer = json.loads(out.splitlines()[-1])
            VALIDATOR.validate(footer)
            assert footer["verdict"] == "run failed" and footer["exit_code"] == 5, footer
            assert footer["program_said"] == f"starting / {WORDS}"
            continue
        assert re.search(r"run failed|RUN FAILED", out), name
        assert WORDS in out, name
        assert "stdout closed before a line matching" in out.replace("&quot;", '"'), name


def test_a_run_that_failed_after_the_program_spoke_is_not_certified(failed_after_speaking) -> None:
    cert = failed_after_speaking
    assert cert.exit_code == 1 and cert.verdict == "not certified"
    assert "the live run failed" in cert.gate_line
    assert WORDS in render(cert, "text")  # its words are quoted all the same


def test_no_python_value_in_any_format_of_a_live_run(fake, framed) -> None:
    """A probe has no exit status: no format says "exit status None" (nor any other Python repr)."""
    repr_ = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['|': ")
    for cert in (live(fake, framed, heard=False, exit_code=None), live(fake, framed, heard=True, exit_code=None)):
        for name in FORMATS:
            for line in render(cert, name).splitlines():
                assert not repr_.search(line), (name, line[:300])


@pytest.mark.parametrize("fixture", ["failing", "passing", "run_failed", "failed_after_speaking"])
def test_no_format_states_a_gate_that_disagrees_with_the_exit_code(request, fixture) -> None:
    """One decision (`Certification.passed`, `run_failed`): the exit code and every format's gate line come from
    it."""
    cert = request.getfixturevalue(fixture)
    expected = {0: "certified", 1: "not certified", 5: "run failed"}[cert.exit_code]
    assert (cert.exit_code == 0) == cert.passed
    for name in FORMATS:
        out = render(cert, name)
        if name == "json":
            footer = json.loads(out.splitlines()[-1])
            assert footer["exit_code"] == cert.exit_code and footer["verdict"] == expected
            continue
        if name == "junit":
            root = ET.fromstring(out.split("\n", 1)[1])
            suite = root.find("testsuite")
            assert suite is not None and (int(suite.get("failures", "0")) > 0) == (cert.exit_code != 0)
            out = suite.get("gate", "")
        stated = set(re.findall(r"gate --fail-on \w+: (certified|not certified|run failed)", out))
        assert stated == {expected}, (name, stated)


def test_markdown_never_renders_html_from_a_capture(failing) -> None:
    md = render(failing, "markdown")
    outside_code = re.sub(r"`+[^`]*`+", "", md)
    assert "<script" not in outside_code and "&lt;script&gt;" in md


def _bundled_captures() -> list[tuple[str, Path]]:
    """One conforming and one failing capture of each bundled package's newest release that has both."""
    from wirecheck.contracts import load_registry

    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    registry = load_registry()
    chosen = []
    for name in registry.packages:
        for version in reversed(registry.package(name).releases):
            folder = fixtures / name / version
            picks = [next(iter(sorted((folder / side).glob("*"))), None) for side in ("valid", "invalid")]
            if all(p is not None and p.is_file() for p in picks):
                chosen += [(f"{name}@{version}", p) for p in picks if p is not None]
                break
    return chosen


def test_no_python_repr_in_any_format_of_the_bundled_certify_runs() -> None:
    """Issue 22 item 5: every certification format of the bundled fixtures' runs, scanned for Python reprs."""
    from wirecheck.contracts import load_registry

    registry = load_registry()
    repr_ = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['|': |\bobject at 0x")
    runs = _bundled_captures()
    assert len(runs) >= 8, runs
    for spec, capture in runs:
        cert = certify_captures(registry.load(spec), [capture], load_release=registry.load)
        for name in FORMATS:
            for line in render(cert, name).splitlines():
                if name in ("json", "sarif") or "sha256" in line:
                    line = re.sub(r'"[^"]*"', '""', line)  # JSON strings hold captured text, not reprs
                assert not repr_.search(line), (spec, capture.name, name, line[:300])
