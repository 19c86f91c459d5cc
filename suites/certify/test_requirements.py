"""Requirement sets: the shipped files cover their releases; broken files are reported where they break."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wirecheck.certify.generate import draft, generate, merge, render
from wirecheck.certify.generate import main as generate_main
from wirecheck.certify.requirements import KIND_CODES, Link, default_requirements_path, load_requirements
from wirecheck.contracts import ContractError, load_registry
from wirecheck.findings import Finding, Severity
from wirecheck.rules.catalogue import rule_catalogue

HARNESS_CONTRACTS = Path(__file__).parents[1] / "harness" / "data" / "contracts"


def _releases():
    return load_registry().load_all()[0]  # a release still being written: the contract self-tests report it


RELEASES = _releases()


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.name)
def test_every_release_has_a_requirement_set_linking_every_kind_and_rule(release):
    requirements = load_requirements(release.root / "requirements.yaml", release)
    kinds = {r.link.kind for r in requirements if r.link.kind}
    assert kinds == {k.id for k in release.kinds}
    rules = {r.link.rule for r in requirements if r.link.rule}
    assert rules == {use.id for use in release.rules}
    builtins = {code for r in requirements for code in r.link.builtin}
    assert {"PARSE_ERROR", "SCHEMA_VIOLATION"} - builtins == {"SCHEMA_VIOLATION"}  # schema is per kind
    assert all(r.id.startswith(_prefix(release)) for r in requirements)


def _prefix(release):
    from wirecheck.certify.generate import prefix_of

    return prefix_of(release)


def test_shipped_requirement_files_are_current():
    """`python -m wirecheck.certify.generate --all --check`: no kind or rule is missing a requirement."""
    assert generate_main(["--all", "--check"]) == 0


def test_generator_keeps_reviewed_entries_and_adds_drafts(tmp_path):
    registry = load_registry(HARNESS_CONTRACTS)
    release = registry.load("fakeqoder@1.0.0")
    text, dropped = generate(release)
    assert dropped == []
    data = yaml.safe_load(text)
    keep_alive = next(r for r in data["requirements"] if r["checks"] == {"kind": "keep_alive"})
    assert keep_alive["level"] == "MAY" and "reviewed" not in keep_alive  # the reviewed edit survives
    drafts = draft(release)
    assert len(drafts) == len(data["requirements"])
    rule = next(d for d in drafts if d["checks"] == {"rule": "FIRST_MESSAGE_IS"})
    assert rule["id"] == "FAKEQODER-1.0.0-SYSTEM-INIT-FIRST" and rule["subject"] == "cli"



def test_a_draft_keeps_the_exercise_a_reviewer_set():
    """A draft's text is refreshed from the contract, but `exercise: optional` is a reviewer's decision (a kind the
    subject need not send: Codex's file change updated): regenerating kept the text and lost it."""
    release = load_registry(HARNESS_CONTRACTS).load("fakeqoder@1.0.0")
    drafts = draft(release)
    first = next(d for d in drafts if "kind" in d["checks"])
    existing = [{**d, "reviewed": False} for d in drafts if not d.get("derived")]
    for entry in existing:
        if entry["checks"] == first["checks"]:
            entry["exercise"] = "optional"
    merged, _ = merge(release, existing)
    kept = next(r for r in merged if r["checks"] == first["checks"])
    assert kept["exercise"] == "optional" and kept["reviewed"] is False
    assert "exercise: optional" in render(release, merged)
    assert all("exercise" not in r for r in merged if r["checks"] != first["checks"] and "kind" in r["checks"])

def _write(tmp_path, requirements, contract="fakeqoder@1.0.0"):
    path = tmp_path / "requirements.yaml"
    path.write_text(yaml.safe_dump({"requirements_format": 1, "contract": contract, "requirements": requirements}))
    return path


GOOD = {"id": "FAKEQODER-1.0.0-X", "level": "MUST", "subject": "cli", "text": "the init is valid",
        "checks": {"kind": "system.init"}}


@pytest.mark.parametrize(
    ("change", "pointer", "text"),
    [
        ({"level": "SHALL"}, "/requirements/0/level", 'found "SHALL" (a string)'),
        ({"id": "lower-case"}, "/requirements/0/id", "expected a string matching"),
        ({"checks": {"kind": "nope"}}, "/requirements/0/checks/kind", "has no kind 'nope'"),
        ({"checks": {"rule": "FIELDS_EQUAL"}}, "/requirements/0/checks/rule", "does not turn on rule"),
        ({"checks": {"builtin": ["FIELDS_EQUAL"]}}, "/requirements/0/checks/builtin/0", "is not a built-in check"),
        ({"checks": {"rule": "FIRST_MESSAGE_IS", "kinds": ["nope"]}}, "/requirements/0/checks/kinds/0", "no kind"),
        ({"subject": "server"}, "/requirements/0/subject", "unknown role 'server'"),
        ({"checks": {"kind": "result", "rule": "FIRST_MESSAGE_IS"}}, "/requirements/0/checks", ""),
    ],
)
def test_broken_requirement_files_are_located(tmp_path, change, pointer, text):
    release = load_registry(HARNESS_CONTRACTS).load("fakeqoder@1.0.0")
    path = _write(tmp_path, [{**GOOD, **change}])
    with pytest.raises(ContractError) as info:
        load_requirements(path, release)
    problems = info.value.problems
    assert any(p.file == str(path) and p.pointer == pointer and text in p.message for p in problems), problems


def test_duplicate_ids_and_links_are_reported(tmp_path):
    release = load_registry(HARNESS_CONTRACTS).load("fakeqoder@1.0.0")
    path = _write(tmp_path, [GOOD, GOOD])
    with pytest.raises(ContractError) as info:
        load_requirements(path, release)
    messages = [(p.pointer, p.message) for p in info.value.problems]
    assert ("/requirements/1/id", "duplicate id FAKEQODER-1.0.0-X (also at /requirements/0)") in messages
    assert any(p == "/requirements/1/checks" and "already checked by FAKEQODER-1.0.0-X" in m for p, m in messages)


def test_contract_mismatch_and_missing_file(tmp_path):
    release = load_registry(HARNESS_CONTRACTS).load("fakeqoder@1.0.0")
    with pytest.raises(ContractError, match=r"/contract: expected fakeqoder@1\.0\.0, found xopc@0\.0\.253"):
        load_requirements(_write(tmp_path, [GOOD], contract="xopc@0.0.253"), release)
    with pytest.raises(ContractError, match="file not found"):
        load_requirements(tmp_path / "none.yaml", release)
    bad = tmp_path / "bad.yaml"
    bad.write_text("requirements: [\n")
    with pytest.raises(ContractError, match="not valid YAML"):
        load_requirements(bad, release)


def test_a_requirement_links_exactly_the_findings_of_its_element():
    def finding(code, kind=None, severity=Severity.ERROR):
        return Finding(code=code, severity=severity, message="m", file="f", kind=kind)

    from wirecheck.certify.requirements import Requirement

    kind_req = Requirement("A-1-X", "MUST", "cli", "t" * 10, Link(kind="result"))
    assert all(kind_req.matches(finding(code, "result")) for code in KIND_CODES)
    assert not kind_req.matches(finding("SCHEMA_VIOLATION", "assistant"))
    assert not kind_req.matches(finding("UNKNOWN_FIELD", "result", Severity.WARNING))  # strictness is separate
    assert kind_req.matches(finding("UNKNOWN_FIELD", "result"))  # ... but one its real reader rejects fails the kind
    rule_req = Requirement("A-1-Y", "MUST", "any", "t" * 10, Link(rule="FIELDS_EQUAL", kinds=("job",)))
    assert rule_req.matches(finding("FIELDS_EQUAL", "job")) and not rule_req.matches(finding("FIELDS_EQUAL", "x"))
    builtin_req = Requirement("A-1-Z", "MUST", "any", "t" * 10, Link(builtin=("PARSE_ERROR",)))
    assert builtin_req.matches(finding("PARSE_ERROR")) and not builtin_req.matches(finding("NOT_AN_OBJECT"))
    assert all(rule_catalogue()[code].group == "built-in" for code in KIND_CODES)


@pytest.mark.parametrize("version", ["1.0.13", "1.0.21", "1.0.23", "1.0.34", "1.0.39"])
def test_qoder_init_first_is_no_stricter_than_the_sdks_readers(version):
    """Issue 29, finding 4: the SDKs take system/init wherever it comes (readMessages validates it on arrival; the
    Python SDK reads no protocol_version), so a CLI answering initialize first (qodercli 1.1.23) fails no MUST."""
    release = load_registry().load(f"qoder-agent-sdk@{version}")
    requirements = load_requirements(default_requirements_path(release), release)
    (first,) = [r for r in requirements if r.link.rule == "FIRST_MESSAGE_IS"]
    assert first.level == "SHOULD" and "validateProtocolHandshake" in first.text


def test_qodercli_1_1_23_answering_initialize_first_fails_no_must():
    from wirecheck.certify.pipeline import certify_captures

    capture = Path(__file__).parents[2] / "fixtures/live/qodercli@1.1.23/qoder-session-tools.framed.ndjson"
    assert b'"type":"control_response"' in capture.read_bytes().split(b"\n")[2]  # the CLI's first line
    cert = certify_captures(load_registry().load("qoder-agent-sdk@1.0.23"), [capture], role="cli")
    first = next(r for r in cert.results if r.requirement.id == "QODER-1.0.23-INIT-FIRST")
    assert first.status == "fail" and first.requirement.level == "SHOULD"
    assert not [r for r in cert.results if r.requirement.level == "MUST" and r.status == "fail"]


def test_a_selector_value_is_written_as_json_writes_it_not_as_python_does():
    """A requirement's text named Qoder's replayed user message `/isReplay=True` (Python's spelling) in every
    report; a message says `true`."""
    from wirecheck.contracts.model import condition_text

    assert condition_text(("isReplay",), frozenset({True})) == "/isReplay=true"
    assert condition_text(("a", "b"), frozenset({None, 1.5})) == "/a/b=1.5|null"
    assert condition_text(("type",), frozenset({"user", "assistant"})) == "/type=assistant|user"
    text, _ = generate(load_registry().load("qoder-agent-sdk@1.0.23"))
    assert "/isReplay=true" in text and "=True" not in text
