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


X, Q = "xopc@0.0.253", "qoder-agent-sdk@1.0.39"


@pytest.mark.parametrize(("spec", "edit", "expected"), [
    (X, lambda t: t.replace("kinds: [renew.response]", "kinds: [renew.nothing]"), "matches no kind"),
    (X, lambda t: t.replace("      source: client\n      at: [\"src/platform/client.ts:104\"]",
                            "      source: nowhere\n      at: [\"src/platform/client.ts:104\"]"),
     "unknown source 'nowhere'"),
    (X, lambda t: t.replace("  - kinds: [heartbeat.response]\n", "  - kinds: [heartbeat.responses]\n"),
     "no reader for heartbeat.response"),
    (X, lambda t: t.replace("    consumer: runtime\n    reads: reject",
                            "    consumer: runtime\n    when: {present: [/x]}\n    reads: reject"),
     "no entry without `when` for consumer 'runtime' on http"),
    (X, lambda t: t.replace("members: closed", "members: sometimes", 1), "readers.yaml#/readers/0/members"),
    (X, lambda t: t.replace("sources:\n", "sources:\n  zod: {type: inferred, ref: x}\n", 1),
     "source 'zod' is the catalog's already"),
    (X, lambda t: t.replace("      source: [package-json, zod-lib]", "      source: [package-jsn, zod-lib]"),
     "readers.yaml#/ranges/0/provenance/source: unknown source 'package-jsn'"),
    # `rules`: a catalog rule whose breach the readers go on past
    (Q, lambda t: t.replace("  - id: FIRST_MESSAGE_IS", "  - id: FIRST_MESSAGE_WAS"),
     "readers.yaml#/rules/0/id: the catalog uses no rule 'FIRST_MESSAGE_WAS'"),
    (Q, lambda t: t.replace("    reads: tolerate", "    reads: shrug"), "readers.yaml#/rules/0/reads"),
    (Q, lambda t: t.replace("      source: [ts-sdk-1.0.39, py-sdk]", "      source: [ts-sdk-9, py-sdk]"),
     "readers.yaml#/rules/0/provenance/source: unknown source 'ts-sdk-9'"),
])
def test_a_broken_readers_file_is_a_located_contract_error(tmp_path, spec, edit, expected):
    root, package, version = _copy(tmp_path, spec)
    path = root / package / version / READERS_FILE
    path.write_text(edit(path.read_text()))
    load_release.cache_clear()
    with pytest.raises(ContractError) as caught:
        load_release(root, package, version)
    assert expected in str(caught.value)


# ---- a line that is not JSON (issue 32 item 2) --------------------------------------------------------------

WARNING_LINE = "⚠ claude.ai connectors are disabled because you are not logged in to claude.ai"


LIVE_RESULT = "fixtures/live/claude-code@2.1.332/claude-print-plain.framed.ndjson"


def _result_line(fixture: str) -> bytes:
    """The fixture's first result line: a plain capture's first line, a framed capture's result message."""
    lines = (ROOT / fixture).read_bytes().split(b"\n")
    if not lines[0].startswith(b'{"wirecheck_capture"'):
        return lines[0]
    return next(orjson.dumps(frame["message"]) for frame in map(orjson.loads, filter(None, lines[1:]))
                if frame.get("message", {}).get("type") == "result")


def _printed_before_the_result(tmp_path: Path, fixture: str) -> str:
    """What Claude Code 2.1.259 prints on stdout in print mode: a warning line, then its JSON result."""
    result = _result_line(fixture)
    path = tmp_path / "stdout.json"
    path.write_bytes(WARNING_LINE.encode() + b"\n" + result + b"\n")
    return str(path)


@pytest.mark.parametrize("spec", ["claude-code-print@2.1.332", "claude-code-print@2.1.218", "qoder-print@1.1.56"])
def test_a_warning_line_before_the_result_is_judged_as_its_reader_reads_it(tmp_path, spec):
    """The seed shows Navarch calling parseClaudeJsonResult on stdout, then stderr, not what it does with a line
    that is not JSON: the finding says so and the result is not failed on it (it was a PARSE_ERROR error, FAILS)."""
    fixtures = {"claude-code-print@2.1.332": LIVE_RESULT,
                "claude-code-print@2.1.218": "fixtures/claude-code-print/2.1.218/valid/results-1.ndjson",
                "qoder-print@1.1.56": "fixtures/qoder-print/1.1.56/valid/results-1.ndjson"}
    fixture = fixtures[spec]
    if not (ROOT / fixture).is_file():
        fixture = next(str(p.relative_to(ROOT)) for p in sorted((ROOT / "fixtures" / spec.replace("@", "/")).rglob(
            "valid/*.ndjson")))
    result = check_captures(REGISTRY.load(spec), [_printed_before_the_result(tmp_path, fixture)])
    (finding,) = [f for f in result.findings if f.code == "PARSE_ERROR"]
    assert finding.severity.value == "warning" and finding.line == 1
    assert "is not shown (@sagentlab/navarch-runtime@0.1.53 dist/adapter-capacity.cjs:15-16" in finding.message
    assert "the line does not fail the result" in finding.message
    assert result.exit_code == 0 and result.coverage["result"].seen == 1


def test_json_that_breaks_off_is_no_warning_line(tmp_path):
    """Only a line that does not start as JSON is the warning a CLI prints; a result cut short is broken JSON, which
    parseClaudeJsonResult cannot read whatever it does with text: still an error."""
    result = _result_line(LIVE_RESULT)
    path = tmp_path / "stdout.json"
    path.write_bytes(result[:40] + b"\n")
    checked = check_captures(REGISTRY.load("claude-code-print@2.1.332"), [str(path)])
    (finding,) = [f for f in checked.findings if f.code == "PARSE_ERROR"]
    assert finding.severity.value == "error" and "not shown" not in finding.message
    assert checked.exit_code != 0


def test_a_reader_that_skips_or_rejects_such_a_line_and_one_the_file_says_nothing_about(tmp_path):
    import dataclasses

    from wirecheck.contracts.model import NonJsonReading, Provenance

    release = REGISTRY.load("claude-code-print@2.1.332")
    capture = _printed_before_the_result(tmp_path, LIVE_RESULT)
    cited = Provenance(("seed",), "n", ("pkg@1.0.0 dist/read.cjs:3",))
    for reads, severity, said in (("skip", "info", "reader skips lines that are not JSON (pkg@1.0.0 dist/read.cjs:3)"),
                                  ("reject", "error", "reader fails on a line that is not JSON"), (None, "error", "")):
        readings = () if reads is None else (NonJsonReading("stdio-ndjson", "reader", reads, cited),)
        result = check_captures(dataclasses.replace(release, non_json_lines=readings), [capture])
        (finding,) = [f for f in result.findings if f.code == "PARSE_ERROR"]
        assert finding.severity.value == severity and said in finding.message, (reads, finding.message)
        assert result.exit_code == (1 if severity == "error" else 0)


# ---- provenance a user can open (issue 32 item 4) ----------------------------------------------------------

# this project's own copies of the published diffs, where a developer has them (beside the checkout, or beside the
# folder of worktrees)
SEEDS = next((p / "shared" / "seeds" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared" / "seeds").is_dir()),
             ROOT / "shared" / "seeds")


def _seed_place(name: str, number: int) -> tuple[str, str]:
    """(`package@version`, `file:line`) of line `number` of a seed diff (`@scope/name OLD → NEW`, `package/<file>`
    headers, unified hunks): a removed line is the old release's, any other the new one's; a hunk header, the
    hunk's first new line."""
    import re

    lines = (SEEDS / name).read_text(encoding="utf-8").split("\n")
    package, old, _, new = lines[0].split(" ")
    file, old_at, new_at = "", 0, 0
    for text in lines[:number - 1]:
        hunk = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", text)
        if text.startswith("package/"):
            file = text.removeprefix("package/")
        elif hunk:
            old_at, new_at = int(hunk[1]), int(hunk[2])
        elif text.startswith("+"):
            new_at += 1
        elif text.startswith("-"):
            old_at += 1
        else:
            old_at, new_at = old_at + 1, new_at + 1
    target = lines[number - 1]
    hunk = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", target)
    if hunk:
        return f"{package}@{new}", f"{file}:{hunk[2]}"
    if target.startswith("-"):
        return f"{package}@{old}", f"{file}:{old_at}"
    return f"{package}@{new}", f"{file}:{new_at}"


def test_readers_cite_what_a_user_can_open_and_keep_the_local_copy_for_developers():
    """Findings cite a reader's `at`: a package and the file in it, never this repository's own seed copies (a user
    has neither `shared/seeds/001_…txt:245`); the seed line stays in `local`, and where a developer has the seeds,
    each names the same package, file and line."""
    cited = 0
    for spec in RELEASES:
        release = REGISTRY.load(spec)
        for reading in [*release.readers.values(), *release.unknown_kinds, *release.non_json_lines]:
            provenance = reading.provenance
            assert not any("shared/" in at for at in provenance.at), (spec, provenance.at)
            assert len(provenance.local) <= len(provenance.at), spec
            if not SEEDS.is_dir():
                continue
            for at, local in zip(provenance.at, provenance.local, strict=False):
                name, number = local.removeprefix("shared/seeds/").split(":")
                package, place = _seed_place(name, int(number))
                assert at.startswith(f"{package} {place}"), (spec, at, package, place)
                cited += 1
    assert cited > 10 or not SEEDS.is_dir()


def test_sources_name_what_a_user_can_open_and_keep_the_local_copy_apart(tmp_path):
    """`wirecheck show` printed `seed  seed-diff  shared/seeds/001_33cd195a40b46cbf.txt`: a path only this project
    has. A source's `ref` names the published packages (or says a note is not published); the project's copy is
    `local`, which exists where the shared folder is at hand. A `ref` starting `shared/` is a contract error."""
    locals_seen = 0
    for spec in RELEASES:
        for source in REGISTRY.load(spec).sources.values():
            assert not source.ref.startswith("shared/"), (spec, source.id, source.ref)
            if source.local is not None:
                locals_seen += 1
                if SEEDS.is_dir():
                    assert (SEEDS.parent.parent / source.local).is_file(), (spec, source.local)
    assert locals_seen >= 15
    root, package, version = _copy(tmp_path, "xopc@0.0.253")
    catalog = root / package / version / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace('ref: "npm @xopcai/xopc 0.0.251 → 0.0.253: the published '
                                                   'packages, diffed"', 'ref: "shared/seeds/002.txt"', 1))
    load_release.cache_clear()
    with pytest.raises(ContractError) as caught:
        load_release(root, package, version)
    assert "catalog.yaml#/sources/seed/ref" in str(caught.value)
