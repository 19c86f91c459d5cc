"""Every URL field of the bundled contracts, reviewed: where the source parses it with the WHATWG URL parser it has
one of wirecheck's URL formats (`whatwg-url`, `zod-url`, `zod-url-since-<version>`) with the source line in
x-provenance, and the issue's examples get the reader's verdict through the field's own schema (its pattern
included); every `format: uri` left is listed here with the reason."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from wirecheck.contracts import load_registry
from wirecheck.contracts.formats import URL_FORMATS, fast_validator
from wirecheck.contracts.loader import DIALECT
from wirecheck.contracts.reference import reference_validator
from wirecheck.pointer import format_pointer

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
RELEASES = [f"{p.name}@{v}" for p in REGISTRY.packages.values() for v in p.releases]

# the issue's examples: what the real (WHATWG) reader says of each
ISSUE = [("https://例え.jp/", True), ("https://a.test/a b", True), ("https://a.test/%zz", True),
         ("https:\\\\a.test\\x", True), ("https://a.\ttest/", True), ("https://a.test/ü/路径", True),
         ("https://a.test:99999/", False)]
# upload_url must also match its presigned-R2 pattern: the same cases, written on that shape
R2 = "https://acct.r2.cloudflarestorage.com"
SIGNED = "?X-Amz-Signature=0a"
ISSUE_ON_R2 = [("https://例え.r2.cloudflarestorage.com/t" + SIGNED, True), (R2 + "/a b" + SIGNED, True),
               (R2 + "/%zz" + SIGNED, True), (R2 + "/a\\b" + SIGNED, True),
               ("https://ac\tct.r2.cloudflarestorage.com/t" + SIGNED, True), (R2 + "/ü/路径" + SIGNED, True),
               ("https://a%00b.r2.cloudflarestorage.com/t" + SIGNED, False)]  # a port cannot match the pattern
SIGN = "/storage/v1/object/upload/sign/"  # 0.1.51: a signed Supabase Storage URL
ISSUE_ON_SUPABASE = [("https://例え.jp" + SIGN + "t?token=x", True), ("https://a.test" + SIGN + "a b?token=x", True),
                     ("https://a.test" + SIGN + "%zz?token=x", True), ("https://a.test" + SIGN + "a\\b?token=x", True),
                     ("https://a.\ttest" + SIGN + "t?token=x", True),
                     ("https://a.test" + SIGN + "ü/路径?token=x", True),
                     ("https://a.test:99999" + SIGN + "t?token=x", False)]

# ACP's SDK reads ElicitationUrlMode.url with zod's z.url() under a peer zod range (importer/zod_urls.py): every zod
# in the range must accept. 2.0.0 raised the floor to 3.25.76, so an IPv6 host (refused by 3.25.0-3.25.28's
# hostname test) is only accepted from there; a no-break space before the URL only zod 4.0.6+ trims away.
ACP_ELICITATION = "schema.json#/$defs/ElicitationUrlMode/properties/url"
ZOD_RANGE_FROM_3_25_0 = [*ISSUE, ("http://[::1]:8080/cb", False), ("\u00a0https://a.test/", False)]
ZOD_RANGE_FROM_3_25_76 = [*ISSUE, ("http://[::1]:8080/cb", True), ("\u00a0https://a.test/", False)]

URL_FIELDS: dict[tuple[str, str], tuple[str, list[tuple[str, bool]]]] = {
    **{(f"acp@{v}", ACP_ELICITATION): ("zod-url-since-3.25.0", ZOD_RANGE_FROM_3_25_0)
       for v in ("0.18.2", "0.23.0", "1.9.0")},
    ("acp@2.4.0", ACP_ELICITATION): ("zod-url-since-3.25.76", ZOD_RANGE_FROM_3_25_76),
    ("xopc@0.0.251", "common.json#/$defs/Url"): ("zod-url", ISSUE),
    ("xopc@0.0.253", "common.json#/$defs/Url"): ("zod-url", ISSUE),
    **{(f"navarch-runtime@{v}", "identity.json#/$defs/MachineIdentity/properties/api_base"): ("whatwg-url", ISSUE)
       for v in ("0.1.51", "0.1.53")},
    ("navarch-runtime@0.1.51", "dispatch.json#/$defs/TranscriptUploadUrl/properties/upload_url"):
        ("whatwg-url", ISSUE_ON_SUPABASE),
    ("navarch-runtime@0.1.53", "dispatch.json#/$defs/TranscriptUploadUrl/properties/upload_url"):
        ("whatwg-url", ISSUE_ON_R2),
}
# `format: uri` kept, and why (issue 18 item 5's review): "<package>/<file>#<pointer>" in any of its releases
KEPT_URI = {
    "opencode-config/config.json#/$defs/McpRemote/properties/url":
        "OpenCode's config loader types McpRemote.url as z.string() and checks nothing; only the MCP client's later "
        "new URL(mcp.url) parses it, and that source is not at hand to cite",
    "navarch-runtime/opencode-config.json#/$defs/RemoteServer/properties/url":
        "written for OpenCode, read as opencode-config's McpRemote.url (above)",
    "navarch-runtime/dispatch.json#/$defs/TranscriptUploadUrl/properties/public_url":
        "no reader in the seed: a legacy locator (README) the runtime does not parse",
    "navarch-runtime/dispatch.json#/$defs/ExitReport/properties/evidenceUrls/items":
        "read by the control plane, whose source is not in the seed",
    "qoder-agent-sdk/runtime-manifest.schema.json#/properties/workerRuntime/properties/url":
        "the SDK's own install manifest; the code that downloads from it is not in the seed",
}


def _nodes(node: Any, pointer: tuple[Any, ...] = ()):
    if isinstance(node, dict):
        yield pointer, node
        for key, value in node.items():
            yield from _nodes(value, (*pointer, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _nodes(value, (*pointer, index))


def _url_nodes(spec: str, formats: frozenset[str]):
    release = REGISTRY.load(spec)
    for uri, schema in release.resources.items():
        for pointer, node in _nodes(schema):
            if isinstance(node.get("format"), str) and node["format"] in formats:
                yield f"{uri.rsplit('/', 1)[1]}#{format_pointer(pointer)}", node


def test_the_url_fields_found_are_the_reviewed_ones():
    found = {(spec, where): node["format"] for spec in RELEASES for where, node in _url_nodes(spec, URL_FORMATS)}
    assert found == {key: fmt for key, (fmt, _) in URL_FIELDS.items()}


@pytest.mark.parametrize("spec", RELEASES)
def test_every_uri_left_is_a_reviewed_one(spec):
    package = spec.split("@")[0]
    for where, _node in _url_nodes(spec, frozenset({"uri"})):
        assert f"{package}/{where}" in KEPT_URI, f"{spec} {where}: format uri nobody reviewed"


@pytest.mark.parametrize(("spec", "where"), sorted(URL_FIELDS))
def test_a_url_field_says_which_source_line_parses_it(spec, where):
    release = REGISTRY.load(spec)
    node = dict(_url_nodes(spec, URL_FORMATS))[where]
    provenance = node.get("x-provenance")
    assert provenance and provenance.get("at"), f"{spec} {where}: no source line"
    sources = provenance["source"] if isinstance(provenance["source"], list) else [provenance["source"]]
    assert set(sources) <= set(release.sources)


@pytest.mark.parametrize(("spec", "where"), sorted(URL_FIELDS))
def test_the_issue_examples_get_the_readers_verdict(spec, where):
    release = REGISTRY.load(spec)
    file, _, pointer = where.partition("#")
    base = next(uri for uri in release.resources if uri.endswith("/" + file))
    root = {"$schema": DIALECT, "$ref": f"{base}#{pointer}"}

    fast = fast_validator(root, jsonschema_rs.Registry(list(release.resources.items())))
    reference = reference_validator(root, dict(release.resources))
    for text, accepted in URL_FIELDS[(spec, where)][1]:
        assert fast.is_valid(text) is accepted, (spec, where, text)
        assert reference.is_valid(text) is accepted, (spec, where, text)


@pytest.mark.parametrize(("text", "accepted"), ISSUE)
def test_validate_judges_a_discovery_endpoint_as_the_runtime_does(tmp_path, text, accepted):
    """End to end: the worker run fixture with its a2aApi endpoint replaced; the runtime's zod parse of discovery
    decides (an invalid endpoint fails the whole answer)."""
    capture = (ROOT / "fixtures/xopc/0.0.253/valid/worker-run.jsonl").read_text(encoding="utf-8")
    written = '"a2aApi":"https://platform.test/api/v1/a2a"'
    assert written in capture
    path = tmp_path / "run.jsonl"
    path.write_text(capture.replace(written, '"a2aApi":' + json.dumps(text)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "wirecheck", "validate", "xopc@0.0.253", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == (0 if accepted else 1), done.stdout + done.stderr
    assert ("/endpoints/a2aApi" in done.stdout) is not accepted
