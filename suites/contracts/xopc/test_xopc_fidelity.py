"""Regex and format fidelity: the xopc schemas must mean, in both our validators, what zod means.

zod regexes are JavaScript regexes without flags, tested against the whole value: `$` never matches before a
trailing newline and `\\d` is ASCII only. The expected verdicts below are zod's (JavaScript semantics, zod >= 4.5
for date-times), written down by hand; each case is checked against jsonschema-rs (the checker) AND the reference
validator (python-jsonschema with ECMA regexes). Every `pattern` in the xopc schemas must have a table here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from wirecheck.contracts import load_registry
from wirecheck.contracts.formats import URL_CASES, fast_validator
from wirecheck.contracts.reference import reference_validator

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = load_registry(ROOT / "contracts")
NEW = REGISTRY.load("xopc@0.0.253")
OLD = REGISTRY.load("xopc@0.0.251")
BASE = "https://contracts.wirecheck.invalid/xopc/0.0.253/"

ARABIC_INDIC_3 = "\u0663"  # ٣: a Unicode decimal digit that Python's `\d` (str patterns) would accept
FULLWIDTH_A = "\uff41"

IDENTIFIER = [
    ("a", True), ("A.b_c:d-9", True), ("0", True), ("a" * 128, True),
    ("", False), ("a" * 129, False), ("abc\n", False), ("\nabc", False), ("ab c", False), ("-a", False),
    ("_a", False), ("." , False), (ARABIC_INDIC_3, False), ("a" + ARABIC_INDIC_3, False), (FULLWIDTH_A, False),
    ("a/b", False), ("é", False),
]
SHA256 = [("0" * 64, True), ("a" * 64, True), ("A" * 64, False), ("0" * 63, False), ("0" * 65, False),
          ("0" * 64 + "\n", False), ("g" * 64, False), ("0" * 63 + ARABIC_INDIC_3, False)]
EXACT_VERSION = [
    ("1.0.0", True), ("10.20.30", True), ("01.0.0", True), ("1.0.0-rc.1", True), ("1.0.0-x-y.z", True),
    ("1.0.0+build", False), ("1.0", False), ("1.0.0-", False), ("1.0.0\n", False), ("v1.0.0", False),
    ("\u0661.\u0660.\u0660", False), ("1.0.0-rc+1", False), ("1.0.0-ü", False),
]
EVENT_TYPE = [
    ("xopc.run.started", True), ("xopc.a_b-c.9", True), ("xopc." + "a" * 155, True),
    ("xopc." + "a" * 156, False), ("xopc.", False), ("xopc.Run", False), ("run.started", False),
    ("xopc.run\n", False), ("xopc.run.started ", False), ("xopc." + ARABIC_INDIC_3, False), ("", False),
]
DATE_TIME = [
    ("2026-12-02T09:00:00Z", True), ("2026-12-02T09:00:00.1Z", True), ("2026-12-02T09:00:00.123456789Z", True),
    ("2024-02-29T23:59:59Z", True), ("2026-12-02T00:00:00.000Z", True),
    ("2026-12-02T00:00Z", False),  # no seconds: zod 4.4.3 accepted it, zod >= 4.5 and RFC 3339 do not
    ("2026-12-02T09:00:00+00:00", False), ("2026-12-02T09:00:00-05:00", False),  # offsets: zod default rejects
    ("2026-12-02T09:00:00", False), ("2026-12-02t09:00:00z", False), ("2026-12-02 09:00:00Z", False),
    ("2026-02-30T09:00:00Z", False), ("2025-02-29T09:00:00Z", False), ("2026-12-02T24:00:00Z", False),
    ("2026-12-02T09:60:00Z", False), ("2026-12-02T23:59:60Z", False), ("2026-12-02T09:00:00Z\n", False),
    ("2026-12-02T09:00:00.Z", False), ("\u0662026-12-02T09:00:00Z", False), ("", False),
]
NON_BLANK = [  # JavaScript `text.trim()` is non-empty: ECMA \s is exactly what trim() removes
    ("a", True), (" a ", True), ("\x1c", True), ("\u200b", True),
    ("", False), (" ", False), (" \t\n\r\v\f", False), ("\u00a0", False), ("\u3000", False), ("\ufeff", False),
    ("\u2028\u2029", False), ("\u1680\u202f\u205f", False),
]
BEARER = [("Bearer xopc_rt_" + "a" * 43, True), ("Bearer xopc_rt_", True), ("Bearer xopc_rt_x y", True),
          ("bearer xopc_rt_x", False), ("Bearer  xopc_rt_x", False), ("Bearer sk-123", False),
          ("xopc_rt_x", False), (" Bearer xopc_rt_x", False), ("", False)]
CONTENT_TYPE = [("application/json", True), ("application/json; charset=utf-8", True),
                ("application/json;charset=UTF-8", True), ("text/plain", False), ("application/jsonx", False),
                ("application/json\n", False)]

# pattern → (a schema carrying it, its cases)
PATTERN_TABLES: dict[str, tuple[dict[str, Any], list[tuple[str, bool]]]] = {
    "^[A-Za-z0-9][A-Za-z0-9._:-]*$": ({"$ref": f"{BASE}common.json#/$defs/Identifier"}, IDENTIFIER),
    "^[a-f0-9]{64}$": ({"$ref": f"{BASE}common.json#/$defs/Sha256"}, SHA256),
    r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$": ({"$ref": f"{BASE}common.json#/$defs/ExactVersion"}, EXACT_VERSION),
    r"^xopc\.[a-z0-9_.-]+$": ({"$ref": f"{BASE}platform.json#/$defs/PlatformEvent/properties/type"}, EVENT_TYPE),
    r"^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?Z$":
        ({"$ref": f"{BASE}common.json#/$defs/DateTimeZ"}, DATE_TIME),
    r"\S": ({"type": "string", "pattern": r"\S"}, NON_BLANK),
    "^Bearer xopc_rt_": ({"$ref": f"{BASE}platform.json#/$defs/RuntimeRequestHeaders/properties/authorization"},
                         BEARER),
    r"^application/json(?:\s*;.*)?$":
        ({"$ref": f"{BASE}platform.json#/$defs/RuntimeRequestHeaders/properties/content-type"}, CONTENT_TYPE),
}


def _patterns(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return found.union(*(_patterns(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_patterns(v) for v in node))
    return set()


def _validators(schema: dict[str, Any]):
    resources = dict(NEW.resources)
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    fast = fast_validator(root, jsonschema_rs.Registry(list(resources.items())))
    return fast, reference_validator(root, resources)


def test_every_pattern_of_both_releases_has_a_fidelity_table():
    patterns = set().union(*(_patterns(s) for r in (OLD, NEW) for s in r.resources.values()))
    assert patterns - set(PATTERN_TABLES) == set()


def test_both_releases_share_the_scalar_definitions():
    old = {k: v for k, v in OLD.resources[BASE.replace("0.0.253", "0.0.251") + "common.json"]["$defs"].items()}
    assert old == NEW.resources[BASE + "common.json"]["$defs"]


CASES = [
    pytest.param(pattern, value, expected, id=f"{pattern[:24]}|{value[:30]!r}")
    for pattern, (_, table) in PATTERN_TABLES.items()
    for value, expected in table
]


@pytest.mark.parametrize(("pattern", "value", "zod_accepts"), CASES)
def test_both_validators_agree_with_zod(pattern, value, zod_accepts):
    fast, reference = _validators(PATTERN_TABLES[pattern][0])
    assert fast.is_valid(value) is zod_accepts, "jsonschema-rs"
    assert reference.is_valid(value) is zod_accepts, "reference validator"


def test_pythons_re_would_get_these_wrong():
    """Why the tables exist: Python's `re` differs from ECMA-262/zod on exactly these inputs."""
    assert re.search(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$", "abc\n")  # `$` before a trailing newline
    assert re.search(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$", "\u0661.\u0660.\u0660")  # Unicode digits
    assert re.search(r"\S", "\ufeff") and not re.search(r"\S", "\x1c")  # another whitespace set


# ---- numbers, URLs and the exhaustive record --------------------------------------------------------

SAFE = 2**53 - 1


@pytest.mark.parametrize(
    ("schema", "value", "zod_accepts"),
    [
        ("RuntimeCommand/properties/leaseExpiresAt", 1, True),
        ("RuntimeCommand/properties/leaseExpiresAt", SAFE, True),
        ("RuntimeCommand/properties/leaseExpiresAt", 1.0, True),  # JSON 1.0 is the integer 1 to JavaScript
        ("RuntimeCommand/properties/leaseExpiresAt", 0, False),
        ("RuntimeCommand/properties/leaseExpiresAt", -1, False),
        ("RuntimeCommand/properties/leaseExpiresAt", 1.5, False),
        ("RuntimeCommand/properties/leaseExpiresAt", SAFE + 1, False),  # zod .int() is a safe integer
        ("RuntimeCommand/properties/leaseExpiresAt", "1", False),
        ("PlatformEvent/properties/sequence", 0, True),
        ("PlatformEvent/properties/sequence", -1, False),
        ("PlatformEvent/properties/sequence", True, False),
        ("RenewResponse/properties/leaseExpiresAt", 0, False),
        ("PlatformDiscovery/properties/displayName", "x" * 120, True),
        ("PlatformDiscovery/properties/displayName", "x" * 121, False),
        ("PlatformDiscovery/properties/displayName", "", False),
        ("RuntimeCommand/properties/leaseToken", "t" * 512, True),
        ("RuntimeCommand/properties/leaseToken", "t" * 513, False),
        ("RuntimeCommand/properties/leaseToken", "", False),
    ],
)
def test_numbers_and_lengths(schema, value, zod_accepts):
    fast, reference = _validators({"$ref": f"{BASE}platform.json#/$defs/{schema}"})
    assert fast.is_valid(value) is zod_accepts
    assert reference.is_valid(value) is zod_accepts


@pytest.mark.parametrize(
    ("value", "zod_accepts"),
    [
        ("https://platform.test", True), ("https://runtime.test/api/v1/runtime/", True),
        ("http://127.0.0.1:8080/agent", True), ("wss://platform.test/realtime", True),
        ("runtime.test/api", False), ("/api/v1", False), ("", False), ("not a url", False),
        *((case.text, case.zod) for case in URL_CASES),
    ],
)
def test_urls(value, zod_accepts):
    """zod's `.url()` is `new URL(value.trim())`: the Url type is `format: zod-url` (verdicts checked against Node's
    URL parser in suites/contracts/test_formats.py)."""
    fast, reference = _validators({"$ref": f"{BASE}common.json#/$defs/Url"})
    assert fast.is_valid(value) is zod_accepts
    assert reference.is_valid(value) is zod_accepts


def test_every_discovery_endpoint_is_a_zod_url():
    """contracts.ts:25-33: every member of PlatformDiscoverySchema.endpoints is z.string().url()."""
    endpoints = NEW.resources[BASE + "platform.json"]["$defs"]["PlatformDiscovery"]["properties"]["endpoints"]
    assert len(endpoints["properties"]) == 9
    assert {p["$ref"] for p in endpoints["properties"].values()} == {"common.json#/$defs/Url"}
    assert NEW.resources[BASE + "common.json"]["$defs"]["Url"]["format"] == "zod-url"


CAPABILITIES = dict.fromkeys(
    ["models", "connectors", "tunnels", "shares", "managedRuntime", "runtimeFleet", "traceUpload", "a2a"], False)


@pytest.mark.parametrize(
    ("value", "strict_ok", "tolerant_ok"),
    [
        (CAPABILITIES, True, True),
        ({k: v for k, v in CAPABILITIES.items() if k != "a2a"}, False, False),  # exhaustive: every key required
        ({**CAPABILITIES, "billing": True}, False, True),  # unknown key: a closed-model warning
        ({**CAPABILITIES, "a2a": 1}, False, False),
        ({}, False, False),
    ],
)
def test_the_capability_record_is_exhaustive(value, strict_ok, tolerant_ok):
    from wirecheck.contracts.views import tolerant_view

    schema = {"$ref": f"{BASE}platform.json#/$defs/Capabilities"}
    fast, reference = _validators(schema)
    assert fast.is_valid(value) is strict_ok and reference.is_valid(value) is strict_ok
    tolerant = {u: tolerant_view(s) for u, s in NEW.resources.items()}
    assert reference_validator(schema, tolerant).is_valid(value) is tolerant_ok


# ---- documented divergences (what JSON Schema cannot say the way zod does) ---------------------------


def test_string_lengths_are_the_strictest_zod_in_range():
    """zod 4.4.3's .max(120) counts UTF-16 code units, zod 4.5 on count code points, and ^4.4.3 admits both: 61
    emoji (122 units, 61 code points) are refused as 4.4.3 refuses them, 60 pass as both pass them. Identifier
    patterns are ASCII, so only displayName and leaseToken can tell the difference (readers.yaml, ranges)."""
    fast, reference = _validators({"$ref": f"{BASE}platform.json#/$defs/PlatformDiscovery/properties/displayName"})
    for validator in (fast, reference):
        assert not validator.is_valid("\U0001f600" * 61) and validator.is_valid("\U0001f600" * 60)
        assert not validator.is_valid("x" * 121) and validator.is_valid("x" * 120)


