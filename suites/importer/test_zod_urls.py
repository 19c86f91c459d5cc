"""URL fields as the SDK's zod source reads them (importer/zod_urls.py, the ACP profile's `zod_urls`): a field the
generated zod parses with `z.url()` gets the zod format of the SDK's zod range, with the SDK file and line; what
cannot be read faithfully is refused with where. Offline: packages are folders built here, the zod source written
in the shape @hey-api/openapi-ts generates."""

from __future__ import annotations

import json

import jsonschema_rs
import pytest
import yaml
from suites.importer.test_shipped import D2020, package

from wirecheck.contracts.formats import fast_validator
from wirecheck.contracts.loader import load_release
from wirecheck.importer.profile import load_profile
from wirecheck.importer.shipped import ImportRefused, import_package_dir

SCHEMA = {
    "$schema": D2020,
    "$defs": {
        "InitializeRequest": {"type": "object", "x-method": "initialize", "x-side": "agent",
                              "properties": {"link": {"$ref": "#/$defs/Link"}}},
        "InitializeResponse": {"type": "object", "x-method": "initialize", "x-side": "agent"},
        "Link": {"type": "object", "required": ["url"],
                 "properties": {"url": {"type": "string", "format": "uri"}, "label": {"type": "string"}}},
    },
}
ZOD = """import * as z from "zod/v4";
/**
 * A link.
 */
export const zLink = z.object({
    url: z.url(),
    label: z.string().optional(),
});
export const zInitializeRequest = z.object({
    link: zLink.optional(),
});
"""
PEER = {"zod": "^3.25.76 || ^4.0.0"}


def _import(tmp_path, *, schema=SCHEMA, zod=ZOD, peer=PEER):
    root = package(tmp_path / "pack", schema, name="@agentclientprotocol/sdk", version="9.0.0",
                   path="schema/v1/schema.json", zod=zod, peer=peer)
    folder, _ = import_package_dir(load_profile("acp"), root, contracts_root=tmp_path / "contracts")
    return folder


def test_a_field_zod_reads_with_url_gets_the_zod_format_and_the_source_line(tmp_path):
    folder = _import(tmp_path)
    field = json.loads((folder / "schema.json").read_text())["$defs"]["Link"]["properties"]["url"]
    assert field["format"] == "zod-url-since-3.25.76"
    assert field["x-provenance"]["source"] == "sdk"
    assert field["x-provenance"]["at"][:2] == [
        "@agentclientprotocol/sdk@9.0.0 dist/v1/schema/zod.gen.js:6",
        "@agentclientprotocol/sdk@9.0.0 package.json peerDependencies.zod ^3.25.76 || ^4.0.0"]
    assert any(at.startswith("zod@4.0.6 ") for at in field["x-provenance"]["at"])
    record = yaml.safe_load((folder / "import.yaml").read_text())["zod_urls"]
    assert record["fields"] == [{"definition": "Link", "property": "url", "field": "#/$defs/Link/properties/url",
                                 "published_format": "uri", "format": "zod-url-since-3.25.76", "line": 6,
                                 "code": "url: z.url()"}]
    assert record["source"] == "dist/v1/schema/zod.gen.js" and record["module"] == "zod/v4"
    # the release loads and its validator reads the field as every zod of the range does
    release = load_release(tmp_path / "contracts", "acp", "9.0.0")
    link = {"$schema": D2020, "$ref": "https://contracts.wirecheck.invalid/acp/9.0.0/schema.json#/$defs/Link"}
    validator = fast_validator(link, jsonschema_rs.Registry(list(release.resources.items())))
    assert validator.is_valid({"url": "https://例え.jp/"})  # no RFC 3986 URI: format uri refused it
    assert not validator.is_valid({"url": "https://a.test:99999/"})  # an RFC 3986 URI no zod accepts
    assert not validator.is_valid({"url": "\u00a0https://a.test/"})  # zod 4.0.6+ trims it, 3.25.76 does not


def test_the_older_range_asks_for_zod_3_25_0s_hostname_test_too(tmp_path):
    folder = _import(tmp_path, peer={"zod": "^3.25.0 || ^4.0.0"})
    field = json.loads((folder / "schema.json").read_text())["$defs"]["Link"]["properties"]["url"]
    assert field["format"] == "zod-url-since-3.25.0"
    assert any(at.startswith("zod@3.25.28 ") for at in field["x-provenance"]["at"])


def test_a_source_without_url_checks_changes_nothing_and_says_it_was_read(tmp_path):
    folder = _import(tmp_path, zod=ZOD.replace("z.url()", "z.string()"), peer={"zod": "^9"})
    field = json.loads((folder / "schema.json").read_text())["$defs"]["Link"]["properties"]["url"]
    assert field == {"type": "string", "format": "uri"}
    assert yaml.safe_load((folder / "import.yaml").read_text())["zod_urls"]["fields"] == []


def test_string_url_and_quoted_property_names_are_read():
    from wirecheck.importer.zod_urls import UrlRead, read

    text = ('import { z } from "zod/v4";\nexport const zA = z.looseObject({\n    "a-b": z.string().url().nullish(),\n'
            '});\n')
    assert read("x.js", text, {}).reads == (UrlRead("A", "a-b", 3, "a-b: z.string().url().nullish()"),)


@pytest.mark.parametrize(("zod", "peer", "message"), [
    (ZOD.replace("url: z.url(),", "url: defaultOnError(z.url(), () => undefined),"), PEER,
     r"dist/v1/schema/zod.gen.js:6: 'url: defaultOnError\(z.url\(\), \(\) => undefined\),' is not a property read "
     r"with plain z.url\(\)"),
    (ZOD.replace("z.url()", 'z.url({ protocol: /^https$/ })'), PEER, r"zod.gen.js:6: .* map it by hand"),
    (ZOD.replace("z.url()", "z.httpUrl()"), PEER, r"zod.gen.js:6: 'url: z.httpUrl\(\),'"),
    (ZOD, {"zod": "^4.1.0"}, r"the package's zod range is '\^4.1.0', which profile acp \(zod_urls.formats\) does "
                             r"not map"),
    (ZOD, None, r"the package's zod range is None"),
    (ZOD.replace('"zod/v4"', '"zod"'), PEER, r"reads URLs with zod from 'zod', not 'zod/v4'"),
    (ZOD.replace("url: z.url()", "href: z.url()"), PEER,
     r"zod.gen.js:6: 'href: z.url\(\)' reads \$defs/Link, property 'href', but the schema has 0 field\(s\)"),
    (ZOD.replace("zLink", "zLinks"), PEER, r"reads \$defs/Links, property 'url', but the schema has no \$defs entry"),
    (ZOD.replace("export const zLink", "export const linkSchema"), PEER,
     r"zod.gen.js:6: 'url: z.url\(\),' is not a property read with plain z.url\(\) / z.string\(\).url\(\) in an "
     r"`export const z<Definition>`"),
])
def test_what_cannot_be_read_faithfully_is_refused_with_where(tmp_path, zod, peer, message):
    with pytest.raises(ImportRefused, match=message):
        _import(tmp_path, zod=zod, peer=peer)
    assert not (tmp_path / "contracts").exists()


def test_a_missing_zod_source_is_refused(tmp_path):
    with pytest.raises(ImportRefused, match=r"no zod source beside schema/v1/schema.json at "
                                            r"\['package/dist/v1/schema/zod.gen.js'\]"):
        _import(tmp_path, zod=None)


def test_a_url_field_that_is_not_one_string_is_refused(tmp_path):
    schema = json.loads(json.dumps(SCHEMA))
    schema["$defs"]["Link"]["properties"]["url"] = {"type": ["string", "null"]}
    with pytest.raises(ImportRefused, match=r"one string field expected"):
        _import(tmp_path, schema=schema)


def test_the_field_walk_skips_extensions_and_names_and_goes_as_deep_as_the_schema():
    """`properties/url` is found as a keyword only: not inside an `x-` extension, not where `properties` is a
    property's name; and a definition nested deeper than Python's recursion limit is walked, not a crash."""
    from wirecheck.importer.zod_urls import _fields

    definition = {"type": "object", "properties": {
        "url": {"type": "string"},
        "properties": {"type": "object", "url": {"type": "string"}},  # a property named `properties`
    }, "x-example": {"properties": {"url": {"type": "string"}}}}
    assert [pointer for pointer, _ in _fields(definition, "url", ("$defs", "D"))] == [
        ("$defs", "D", "properties", "url")]
    deep: dict = {"type": "object", "properties": {"url": {"type": "string"}}}
    for _ in range(5000):
        deep = {"allOf": [deep]}
    assert len(list(_fields(deep, "url", ()))) == 1
