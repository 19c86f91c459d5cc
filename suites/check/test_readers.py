"""Reading models (readers.yaml): severities follow how the real consumer reads, and every bundled release has them."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from wirecheck.check.engine import check_captures
from wirecheck.check.message import HttpInfo, Message
from wirecheck.check.readers import unknown_kind_reading
from wirecheck.contracts import ContractError, load_registry
from wirecheck.contracts.loader import READERS_FILE, load_release

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
RELEASES = [f"{p.name}@{v}" for p in REGISTRY.packages.values() for v in p.releases]


@pytest.mark.parametrize("spec", RELEASES)
def test_every_bundled_release_has_reading_models_with_provenance(spec):
    release = REGISTRY.load(spec)
    assert (release.root / READERS_FILE).is_file(), f"{spec} has no {READERS_FILE}"
    assert set(release.readers) == {k.id for k in release.kinds}
    for reading in [*release.readers.values(), *release.unknown_kinds]:
        assert reading.provenance.sources and reading.provenance.note
    # a reading chosen without a source that shows it says so
    for reading in release.readers.values():
        if not reading.provenance.at:
            assert any(word in reading.provenance.note for word in ("not", "Conservative", "reads", "never")), (
                spec, reading.provenance.note)


def _line(tmp_path: Path, *values) -> str:
    path = tmp_path / "capture.jsonl"
    path.write_bytes(b"".join(orjson.dumps(v) + b"\n" for v in values))
    return str(path)


def _discovery_with(extra: dict) -> dict:
    """A discovery exchange from the fixtures, with its one unknown endpoint taken out and `extra` put in."""
    exchange = orjson.loads((ROOT / "fixtures/xopc/0.0.253/invalid/discovery-unknown-endpoint.jsonl").read_bytes())
    del exchange["response"]["body"]["endpoints"]["billingApi"]
    exchange["response"]["body"].update(extra)
    return exchange


def test_an_unknown_member_sent_to_a_strict_zod_reader_is_an_error(tmp_path):
    """The issue's example: xopc 0.0.253's runtime parses discovery with `.strict()`; an unknown member made it throw,
    and wirecheck reported a warning and exited 0."""
    result = check_captures(REGISTRY.load("xopc@0.0.253"), [_line(tmp_path, _discovery_with({"billing": True}))])
    (finding,) = [f for f in result.findings if f.code == "UNKNOWN_FIELD"]
    assert finding.severity.value == "error" and finding.pointer == "/billing"
    assert "src/platform/client.ts:35" in finding.message
    assert result.exit_code == 1


def test_an_unknown_member_sent_to_an_open_reader_stays_a_warning(tmp_path):
    """The Qoder SDK reads named keys only: the real CLI's extra `betas` is a warning, the run conforms."""
    init = orjson.loads((ROOT / "fixtures/qoder-agent-sdk/1.0.23/real/stdout.ndjson").read_bytes().split(b"\n")[0])
    result = check_captures(REGISTRY.load("qoder-agent-sdk@1.0.23"), [_line(tmp_path, {**init, "novel": 1})])
    unknown = [f for f in result.findings if f.code == "UNKNOWN_FIELD"]
    assert unknown and all(f.severity.value == "warning" for f in unknown)


def test_closed_at_rejects_only_where_the_reader_is_strict():
    release = REGISTRY.load("qoder-agent-sdk@1.0.39")
    reading = release.readers["control_request.interrupt"]
    assert reading.closed and reading.closed_at == ((),)
    assert reading.rejects_at(()) and not reading.rejects_at(("request",))
    assert not release.readers["sdk.user"].closed


def _stream(value, sender=None) -> Message:
    return Message(value=value, file="f", line=1, sender=sender)


@pytest.mark.parametrize(("spec", "value", "sender", "reject"), [
    # Qoder: an unknown control request subtype is answered with an error; an unknown type is skipped
    ("qoder-agent-sdk@1.0.23", {"type": "control_request", "request_id": "r", "request": {"subtype": "x"}}, None,
     True),
    ("qoder-agent-sdk@1.0.23", {"type": "bridge_state"}, None, False),
    ("qoder-agent-sdk@1.0.23", {"type": "bridge_state"}, "cli", False),
    # ACP: a request for an unknown method is -32601; an unknown notification is dropped
    ("acp@2.4.0", {"jsonrpc": "2.0", "id": 1, "method": "x/y"}, None, True),
    ("acp@2.4.0", {"jsonrpc": "2.0", "method": "x/y"}, None, False),
    ("acp@2.4.0", {"jsonrpc": "2.0", "id": 1, "method": "_x/y"}, None, False),  # an extension: see below
    # JSON true is not 1: a `fields` condition on a boolean does not hold for a number
    ("qoder-agent-sdk@1.0.23", {"type": True}, None, False),
])
def test_unknown_kinds_meet_their_consumers_reading(spec, value, sender, reject):
    reading = unknown_kind_reading(REGISTRY.load(spec), _stream(value, sender))
    assert reading is not None and reading.reject is reject


def test_acp_reserves_underscore_methods_for_extensions():
    release = REGISTRY.load("acp@2.4.0")
    for value in ({"jsonrpc": "2.0", "id": 1, "method": "_zed.dev/workspace/buffers"},
                  {"jsonrpc": "2.0", "method": "_zed.dev/file_opened"}):
        reading = unknown_kind_reading(release, _stream(value, "client"))
        assert reading is not None and reading.extension and not reading.reject
        assert "extensibility.mdx:43" in reading.cited
    assert not unknown_kind_reading(release, _stream({"jsonrpc": "2.0", "id": 1, "method": "zed/x"})).extension


def test_an_unknown_http_route_is_refused_by_the_server():
    release = REGISTRY.load("xopc@0.0.253")
    request = Message(value=None, file="f", http=HttpInfo("POST", "https://g.test/api/nope", "/api/nope", None))
    reading = unknown_kind_reading(release, request)
    assert reading is not None and reading.reject and reading.consumer in ("gateway", "platform")


def test_an_unknown_kind_an_open_consumer_ignores_is_a_warning(tmp_path):
    init = (ROOT / "fixtures/qoder-agent-sdk/1.0.23/real/stdout.ndjson").read_bytes().split(b"\n")[0]
    path = tmp_path / "c.jsonl"
    path.write_bytes(init + b'\n{"type":"bridge_state","state":"x"}\n')
    result = check_captures(REGISTRY.load("qoder-agent-sdk@1.0.23"), [str(path)])
    (finding,) = [f for f in result.findings if f.code == "UNKNOWN_MESSAGE_KIND"]
    assert finding.severity.value == "warning" and "ignores messages it has no kind for" in finding.message


# ---- the file's own checks -----------------------------------------------------------------------------


def _copy(tmp_path: Path, spec: str) -> tuple[Path, str, str]:
    package, version = spec.split("@")
    root = tmp_path / "contracts"
    shutil.copytree(ROOT / "contracts" / package / version, root / package / version)
    return root, package, version


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda t: t.replace("kinds: [renew.response]", "kinds: [renew.nothing]"), "matches no kind"),
    (lambda t: t.replace("      source: client\n      at: [\"src/platform/client.ts:104\"]",
                         "      source: nowhere\n      at: [\"src/platform/client.ts:104\"]"),
     "unknown source 'nowhere'"),
    (lambda t: t.replace("  - kinds: [heartbeat.response]\n", "  - kinds: [heartbeat.responses]\n"),
     "no reader for heartbeat.response"),
    (lambda t: t.replace("    consumer: runtime\n    reads: reject",
                         "    consumer: runtime\n    when: {present: [/x]}\n    reads: reject"),
     "no entry without `when` for consumer 'runtime' on http"),
    (lambda t: t.replace("members: closed", "members: sometimes", 1), "readers.yaml#/readers/0/members"),
    (lambda t: t.replace("sources:\n", "sources:\n  zod: {type: inferred, ref: x}\n", 1),
     "source 'zod' is the catalog's already"),
    (lambda t: t.replace("      source: [package-json, zod-lib]", "      source: [package-jsn, zod-lib]"),
     "readers.yaml#/ranges/0/provenance/source: unknown source 'package-jsn'"),
])
def test_a_broken_readers_file_is_a_located_contract_error(tmp_path, edit, expected):
    root, package, version = _copy(tmp_path, "xopc@0.0.253")
    path = root / package / version / READERS_FILE
    path.write_text(edit(path.read_text()))
    load_release.cache_clear()
    with pytest.raises(ContractError) as caught:
        load_release(root, package, version)
    assert expected in str(caught.value)
