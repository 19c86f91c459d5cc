"""Issue 38's false reds on real outputs, certified as the live tiers and a Navarch maintainer certify them: a
warning line before Claude Code's JSON result (2.1.259 prints one) is read one way in a plain capture and inside a
harness frame, and fails neither claude-code-print nor navarch-runtime; a result without the members Navarch never
reads (stop_reason, modelUsage) is no Navarch rejection. Each beside its broken twin, which must still fail."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from wirecheck.certify.evaluate import CERTIFIED, FAIL, NOT_CERTIFIED, PASS
from wirecheck.certify.pipeline import certify_captures
from wirecheck.contracts import load_registry
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
WARNING_FRAMED = ROOT / "fixtures/claude-code-print/2.1.332/valid/warning-line.framed.ndjson"
WARNING_PLAIN = ROOT / "fixtures/navarch-runtime/0.1.53/valid/claude-result-warning.ndjson"


def _certify(spec: str, capture: Path, role: str = "claude-code"):
    return certify_captures(REGISTRY.load(spec), [capture], role=role, load_release=REGISTRY.load)


def _well_formed(cert):
    return next(r for r in cert.results if r.requirement.id.endswith("-WELL-FORMED"))


@pytest.mark.parametrize(("spec", "capture"), [("claude-code-print@2.1.332", WARNING_FRAMED),
                                               ("claude-code-print@2.1.332", WARNING_PLAIN),
                                               ("navarch-runtime@0.1.53", WARNING_FRAMED),
                                               ("navarch-runtime@0.1.53", WARNING_PLAIN)])
def test_a_warning_line_before_the_result_is_a_warning_in_every_form(spec, capture):
    well_formed = _well_formed(_certify(spec, capture))
    assert well_formed.status == PASS and not well_formed.failures
    assert [f.severity for f in well_formed.notes] == [Severity.WARNING]
    assert "at column 1, found `⚠" in well_formed.notes[0].message  # said of the line as printed, not of its frame


def test_the_framed_real_answer_with_a_warning_line_is_certified():
    assert _certify("claude-code-print@2.1.332", WARNING_FRAMED).verdict == CERTIFIED


@pytest.mark.parametrize("line", [b'{"type":"res', b"{not json"])
def test_broken_json_after_the_warning_still_fails_well_formed(tmp_path, line):
    """The twin: a result that breaks off is no warning line, framed or plain."""
    broken = tmp_path / "broken.framed.ndjson"
    lines = WARNING_FRAMED.read_bytes().splitlines()
    lines[2] = b'{"from": "claude-code", "message": ' + line + b"}"
    broken.write_bytes(b"\n".join(lines) + b"\n")
    cert = _certify("claude-code-print@2.1.332", broken)
    assert (cert.verdict, _well_formed(cert).status) == (NOT_CERTIFIED, FAIL)


def test_a_result_without_what_navarch_never_reads_is_certified_for_navarch(tmp_path):
    cert = _certify("navarch-runtime@0.1.53", WARNING_PLAIN)  # one capture exercises a few of Navarch's MUSTs
    assert not [r.requirement.id for r in cert.results if r.status == FAIL] and not cert.unmapped
    # its own contract still says what Claude Code owes (the required set it infers): checked there, not here
    own = _certify("claude-code-print@2.1.332", WARNING_PLAIN)
    assert own.verdict == NOT_CERTIFIED
    # the twin: what Navarch does read, broken, is a Navarch rejection
    lines = WARNING_PLAIN.read_bytes().splitlines()
    result = orjson.loads(lines[1])
    result["api_error_status"] = "429"
    twin = tmp_path / "twin.ndjson"
    twin.write_bytes(lines[0] + b"\n" + orjson.dumps(result) + b"\n")
    assert _certify("navarch-runtime@0.1.53", twin).verdict == NOT_CERTIFIED
