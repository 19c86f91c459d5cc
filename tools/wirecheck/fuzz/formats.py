"""Strategies for every `format` the validators assert; every value passes both (jsonschema-rs and python-jsonschema
with wirecheck's checker, contracts/reference.py).

FORMATS covers each format JSON Schema 2020-12 defines (Validation §7.3: what jsonschema-rs asserts with
`validate_formats`, and python-jsonschema's checker where the library each check needs is installed) and
wirecheck's own URL formats: a kind with a format it lacked was filled with random text, which the validators
refuse, and `fuzz` ended "no message could be generated" (issue 41, 11: `format: idn-email`).
suites/fuzz/test_strategies.py iterates them all."""

from __future__ import annotations

import datetime as dt

from hypothesis import strategies as st

from wirecheck.contracts.formats import URL_FORMATS, conforming_samples

_UTC = dt.UTC
_LABEL = st.from_regex(r"[a-z][a-z0-9]{0,9}", fullmatch=True)
_SEGMENT = st.from_regex(r"[A-Za-z0-9._~-]{1,12}", fullmatch=True)


def _date_time(value: dt.datetime) -> str:
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond // 1000:03d}"
    return text + "Z"


_DATETIMES = st.datetimes(
    min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(2099, 12, 31), timezones=st.just(_UTC)
)

def _json_pointer(tokens: list[str]) -> str:
    return "".join("/" + token.replace("~", "~0").replace("/", "~1") for token in tokens)


_POINTERS = st.lists(st.one_of(_SEGMENT, st.sampled_from(["", "a/b", "~x", "0", "ä"])), max_size=3).map(_json_pointer)
_DURATIONS = st.one_of(
    st.builds(lambda y, m, d: f"P{y}Y{m}M{d}D", st.integers(0, 99), st.integers(0, 11), st.integers(0, 30)),
    st.builds(lambda d, h, m, s: f"P{d}DT{h}H{m}M{s}S", st.integers(0, 30), st.integers(0, 23), st.integers(0, 59),
              st.integers(0, 59)),
    st.builds(lambda h: f"PT{h}H", st.integers(0, 48)),
    st.builds(lambda w: f"P{w}W", st.integers(1, 52)),
)

# Values of the forms FORMATS draws: a contract pattern that accepts all of them refines the format, so
# drawing from the format and filtering by the pattern rarely rejects.
PROBES: dict[str, tuple[str, ...]] = {
    "date-time": ("1970-01-01T00:00:00Z", "2026-12-02T09:41:07.123Z"),
    "date": ("1970-01-01", "2026-12-02"),
    "uuid": ("e3e70682-c209-4cac-629f-6fbed82c07cd",),
    "uri": ("https://a.example/", "http://b0.example/x/y"),
    "email": ("a@b.example",),
    **{fmt: ("https://a.example/", "http://b0.example/x/y") for fmt in URL_FORMATS},
}

FORMATS: dict[str, st.SearchStrategy[str]] = {
    # RFC 3339 in the `Z` form JavaScript's Date.toISOString() writes (what the producers send).
    "date-time": _DATETIMES.map(_date_time),
    "date": st.dates(min_value=dt.date(1970, 1, 1), max_value=dt.date(2099, 12, 31)).map(dt.date.isoformat),
    "time": st.times().map(lambda t: t.strftime("%H:%M:%S") + "Z"),
    "uuid": st.uuids().map(str),
    "uri": st.builds(
        lambda scheme, host, path: f"{scheme}://{host}.example/{'/'.join(path)}",
        st.sampled_from(["https", "http"]),
        _LABEL,
        st.lists(_SEGMENT, max_size=3),
    ),
    "uri-reference": st.lists(_SEGMENT, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts)),
    "email": st.builds(lambda user, host: f"{user}@{host}.example", _LABEL, _LABEL),
    "hostname": st.lists(_LABEL, min_size=1, max_size=3).map(".".join),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "duration": _DURATIONS,
    "json-pointer": _POINTERS,
    "relative-json-pointer": st.builds(lambda up, rest: f"{up}{rest}", st.integers(0, 9),
                                       st.one_of(_POINTERS, st.just("#"))),
    "uri-template": st.builds(lambda host, name, op: f"https://{host}.example/{{{op}{name}}}", _LABEL, _LABEL,
                              st.sampled_from(["", "+", "#", "/", "?"])),
    # a valid ECMA-262 pattern (the `regex` format as wirecheck reads it: contracts/reference.py), the usual shapes
    "regex": st.sampled_from(["^[a-z]+$", "\\d{2,4}", "a|b", "^(?:x-)?[A-Z][a-z]*$", "(?<n>\\d)\\.\\k<n>", ".*"]),
}
# The internationalised forms: the ASCII ones, and as often ones whose Unicode the ASCII form cannot carry
FORMATS.update({
    "idn-email": st.one_of(FORMATS["email"], st.sampled_from(["用户@例子.广告", "δοκιμή@παράδειγμα.δοκιμή",
                                                               "ü@bücher.example"])),
    "idn-hostname": st.one_of(FORMATS["hostname"], st.sampled_from(["例え.jp", "bücher.example",
                                                                     "xn--bcher-kva.example"])),
    "iri": st.one_of(FORMATS["uri"], st.sampled_from(["https://例え.example/パス", "http://bücher.example/ä?q=ö#f"])),
    "iri-reference": st.one_of(FORMATS["uri-reference"], st.sampled_from(["/パス/ä", "../ä", "#frag"])),
})
# A WHATWG URL reader (`whatwg-url`, `zod-url`): plain URLs, and as often the edge cases on which it and RFC 3986
# disagree that it accepts (an IDN host, a space or `%zz` in the path, backslashes, a tab in the host, ...).
FORMATS.update({fmt: st.one_of(FORMATS["uri"], st.sampled_from(conforming_samples(fmt))) for fmt in URL_FORMATS})
