"""Strategies for the `format`s our contracts assert; every value passes jsonschema's format checker."""

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
}
# A WHATWG URL reader (`whatwg-url`, `zod-url`): plain URLs, and as often the edge cases on which it and RFC 3986
# disagree that it accepts (an IDN host, a space or `%zz` in the path, backslashes, a tab in the host, ...).
FORMATS.update({fmt: st.one_of(FORMATS["uri"], st.sampled_from(conforming_samples(fmt))) for fmt in URL_FORMATS})
