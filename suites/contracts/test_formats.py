"""wirecheck's own formats (`whatwg-url`, `zod-url`: wirecheck/contracts/formats.py): the verdict table, every
validator wirecheck builds asserting them alike, and (with Node.js, `slow`) the table against Node's `new URL`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema_rs
import pytest

from wirecheck.contracts.formats import (
    ADA_CASES,
    ADA_PARSERS,
    FORMATS,
    URL_CASES,
    URL_FORMATS,
    WHATWG_URL,
    ZOD_URL,
    ZOD_URL_SINCE_3_25_0,
    ZOD_URL_SINCE_3_25_76,
    conforming_samples,
    fast_validator,
    is_whatwg_url,
    is_zod_3_25_0_url,
    is_zod_url,
    refused_samples,
    url_verdict,
    usv_string,
    zod_url_readers,
)
from wirecheck.contracts.reference import FORMAT_CHECKER, reference_validator

ROOT = Path(__file__).resolve().parents[2]
DIALECT = "https://json-schema.org/draft/2020-12/schema"
ISSUE_EXAMPLES = {  # issue 18: the real side accepts these, RFC 3986 does not; and the port the real side refuses
    "https://例え.jp/": True, "https://a.test/a b": True, "https://a.test/%zz": True,
    "https:\\\\a.test\\x": True, "https://a.\ttest/": True, "https://a.test/ü/路径": True,
    "https://a.test:99999/": False,
}


@pytest.mark.parametrize("case", URL_CASES, ids=lambda c: c.why)
def test_the_table_is_what_ada_says(case):
    assert is_whatwg_url(case.text) is case.whatwg
    assert is_zod_url(case.text) is case.zod
    assert is_zod_3_25_0_url(case.text) is case.verdict("host")


def test_a_zod_format_asks_every_reader_from_its_first_version_on():
    assert [r.first for r in zod_url_readers(ZOD_URL)] == [(4, 0, 6)]
    assert [r.first for r in zod_url_readers(ZOD_URL_SINCE_3_25_76)] == [(3, 25, 29), (4, 0, 6)]
    assert [r.first for r in zod_url_readers(ZOD_URL_SINCE_3_25_0)] == [(3, 25, 0), (3, 25, 29), (4, 0, 6)]


def test_a_zod_range_format_is_what_every_reader_in_it_accepts():
    """`zod-url-since-3.25.76` refuses what zod 3.25.76 (no trim) or 4.0.6+ (trim) refuses; `-since-3.25.0` also
    what 3.25.0-3.25.28's hostname test refuses. Each differs from the others on at least one case."""
    by_text = {c.text: c for c in URL_CASES}
    nbsp, empty_host, ipv6 = "\u00a0https://a.test/", "a://@\u3000", "http://[::1]:8080/cb"
    assert url_verdict(by_text[nbsp], ZOD_URL) and not url_verdict(by_text[nbsp], ZOD_URL_SINCE_3_25_76)
    assert url_verdict(by_text[empty_host], WHATWG_URL) and not url_verdict(by_text[empty_host],
                                                                            ZOD_URL_SINCE_3_25_76)
    assert url_verdict(by_text[ipv6], ZOD_URL_SINCE_3_25_76) and not url_verdict(by_text[ipv6],
                                                                                 ZOD_URL_SINCE_3_25_0)
    verdicts = {fmt: tuple(url_verdict(c, fmt) for c in URL_CASES) for fmt in URL_FORMATS}
    assert len(set(verdicts.values())) == len(URL_FORMATS)


@pytest.mark.parametrize("case", URL_CASES, ids=lambda c: c.why)
def test_uri_column_is_what_both_validators_say_of_rfc_3986(case):
    """The `uri` column is not ours to decide: it is what `format: uri` does today in both validators."""
    assert jsonschema_rs.validator_for({"format": "uri"}, validate_formats=True).is_valid(case.text) is case.uri
    assert FORMAT_CHECKER.conforms(case.text, "uri") is case.uri


def test_the_issue_examples_are_in_the_table_with_the_real_verdict():
    table = {c.text: c for c in URL_CASES}
    for text, accepted in ISSUE_EXAMPLES.items():
        assert table[text].whatwg is table[text].zod is accepted
        assert table[text].uri is not accepted  # each is a case where RFC 3986 gives the wrong verdict


@pytest.mark.parametrize("fmt", sorted(URL_FORMATS))
@pytest.mark.parametrize("case", URL_CASES, ids=lambda c: c.why)
def test_fast_and_reference_validators_assert_the_format_alike(fmt, case):
    schema = {"$schema": DIALECT, "type": "string", "format": fmt}
    expected = url_verdict(case, fmt)
    assert fast_validator(schema).is_valid(case.text) is expected
    assert reference_validator(schema, {}).is_valid(case.text) is expected


def test_without_the_formats_jsonschema_rs_ignores_the_name():
    """Why every validator must come from fast_validator: a plain validator_for passes a refused URL."""
    schema = {"$schema": DIALECT, "format": ZOD_URL}
    assert jsonschema_rs.validator_for(schema, validate_formats=True).is_valid("https://a.test:99999/")
    assert not fast_validator(schema).is_valid("https://a.test:99999/")


def test_every_jsonschema_rs_validator_of_a_contract_is_built_with_the_formats():
    """A validator built elsewhere would silently ignore `whatwg-url` (a false green). The others judge schemas, not
    messages: the loader's (wirecheck's own schemas, a `$ref` resolution check) and the meta-schema screen."""
    allowed = {("contracts/formats.py", 1), ("contracts/loader.py", 2), ("contracts/reference.py", 1)}
    found = set()
    for path in (ROOT / "tools" / "wirecheck").rglob("*.py"):
        count = len(re.findall(r"jsonschema_rs\.(?:validator_for|validator_map_for|Draft\w+Validator)\(",
                               path.read_text()))
        if count:
            found.add((path.relative_to(ROOT / "tools" / "wirecheck").as_posix(), count))
    assert found == allowed


def test_non_strings_conform_and_usv_conversion():
    for conforms in FORMATS.values():
        assert conforms(5) and conforms(None) and conforms({"a": 1})
    assert usv_string("a\ud800b") == "a\ufffdb"  # a lone surrogate: what a JavaScript host hands the parser
    assert usv_string("\ud83d\ude00") == "\U0001f600"  # a pair is the code point it encodes
    assert is_whatwg_url("https://a.test/\ud800") and not is_whatwg_url("https://\ud800.test/")


def test_samples_split_the_table_by_verdict():
    for fmt in sorted(URL_FORMATS):
        assert set(conforming_samples(fmt)).isdisjoint(refused_samples(fmt))
        assert len(conforming_samples(fmt)) + len(refused_samples(fmt)) == len(URL_CASES)
        assert "https://a.test:99999/" in refused_samples(fmt) and "https://例え.jp/" in conforming_samples(fmt)
    assert conforming_samples("uri") == refused_samples("date-time") == ()


NODE = r"""
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ok = s => { try { new URL(s); return true } catch { return false } };
// zod 3.25.0-3.25.28's hostname test (dist/esm/v4/core/regexes.js:49) on what `new URL` parsed
const host = s => ok(s) && /^([a-zA-Z0-9-]+\.)*[a-zA-Z0-9-]+$/.test(new URL(s).hostname);
process.stdout.write(JSON.stringify(cases.map(s => [ok(s), ok(s.trim()), host(s)])));
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not on this machine")
def test_the_table_against_nodes_own_url_parser():
    """The verdicts come from outside the project: Node's `new URL` and `String.prototype.trim`."""
    texts = [c.text for c in URL_CASES]
    out = subprocess.run(["node", "-e", NODE], input=json.dumps(texts), capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert [tuple(v) for v in json.loads(out)] == [(c.whatwg, c.zod, c.verdict("host")) for c in URL_CASES]


# ---- every ada a supported Node runs (issue 28) ----------------------------------------------------------


@pytest.mark.parametrize("case", ADA_CASES, ids=lambda c: c.why)
def test_each_ada_binding_gives_its_measured_verdict_and_every_format_the_stricter(case):
    """The verdicts were measured with the Node binaries (ADA_CASES); the bindings must give them, and every URL
    format refuses what either supported ada refuses."""
    import ada_url
    import can_ada

    assert bool(can_ada.can_parse(case.text)) is case.ada_2_9_2
    assert bool(ada_url.check_url(case.text)) is case.ada_4_0_0
    assert case.ada_2_9_2 is not case.ada_4_0_0  # a case where they disagree, else it says nothing
    for fmt, conforms in FORMATS.items():
        assert conforms(case.text) is False, fmt


def test_the_bindings_bundle_the_ada_releases_the_parsers_name():
    from importlib.metadata import version

    assert [p.version for p in ADA_PARSERS] == ["4.0.0", "2.9.2"]
    assert version("ada-url").startswith("4.") and version("can-ada") == "2.0.0"


@pytest.mark.parametrize(("text", "limit", "problem"), [
    ("\U0001f600" * 60, 120, False), ("\U0001f600" * 61, 120, True), ("x" * 120, 120, False),
    ("x" * 121, 120, False),  # longer in code points: maxLength says so, once
    ("a\U0001f600" * 40, 120, False), ("a\U0001f600" * 41, 120, True), (17, 120, False), ("\ud800" * 121, 120, False),
])
def test_utf16_max_length_counts_what_javascript_counts(text, limit, problem):
    from wirecheck.contracts.formats import utf16_too_long

    assert (utf16_too_long(limit, text) is not None) is problem


def test_both_validators_assert_the_utf16_keyword():
    schema = {"$schema": DIALECT, "type": "string", "maxLength": 4, "x-wirecheck-utf16-max-length": 4}
    for validator in (fast_validator(schema), reference_validator(schema, {})):
        assert validator.is_valid("\U0001f600" * 2) and not validator.is_valid("\U0001f600" * 3)
