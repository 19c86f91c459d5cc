"""Secrets cut from everything wirecheck writes: the HAR, the reports and its own stderr. A secret is a credential
(a bearer token, an API key: stub/har.py learns them from every credential header) or a value the user handed a
program (`certify --run --env`, `--pass-env`). A server (or a program) may echo one in another spelling, so each
secret, and its secret part alone (the secret without a known prefix such as `xopc_rt_` or `sk-ant-api03-`: what
distinguishes it), is cut in every spelling an echo is likely to use, whatever wraps it:

- as text: any mix of upper and lower case, of percent-encoding to any depth (`%78`, `%2F` or `%2f`; `%53` and `%73`
  both, an upper- or lower-case `s`; `%2553`, `%252553`: percent-encoded again and again), of escapes behind any
  number of backslashes, themselves percent-encoded or not (JSON's `\\u0053`, `\\\\u0053` inside a JSON string
  inside another, `%5Cu0053`; `\\x53`; `\\/`; a surrogate pair beyond the BMP) and of HTML character references
  (`&#83;`, `&#x53;`, `&amp;#x53;`), character by character;
- as the hex of its UTF-8 bytes, in either case;
- inside base64, standard or URL-safe, padded or not, at any of the three byte alignments (a `Basic` credential
  `user:token` puts it anywhere), its `+` and `/` percent-encoded or not: every base64 character that depends on the
  token's bytes alone is cut.

`Secrets.cut` is the one redaction: the HAR recorder applies it to every string of an entry, the stub and probe to
every text they print or report. The text spelling becomes the token's redacted form (`redact_token`: what the
contract checks, a known prefix such as `xopc_rt_`, and the length, so a malformed token still shows as malformed),
the secret part's `<redacted N chars>`; hex and base64 become `<redacted hex>`, `<redacted base64>`. Tokens (and
secret parts) shorter than MIN_SECRET_CHARS are not cut alone (they would cut noise). The text is folded once, every
pattern of every token searched in it (a match cannot fail after a long partial match: each repeated part is decided
by the character after it, so the time is linear in the text), and the matches spliced out in one pass, overlapping
ones as one, named by the longest.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# What a token's kind is written as, kept in its redacted form; the rest is its secret part, cut alone too. Longest
# first. xopc's runtime token (its contract checks the prefix); the published formats of the keys of the services the
# live tiers model and of the CI that runs them: Anthropic (sk-ant-api03- API keys, sk-ant-oat01- OAuth tokens,
# sk-ant-admin01- admin keys), OpenAI (sk-proj-, sk-svcacct-, sk-admin-, sk-), Google API keys (AIza), GitHub
# (github_pat_, ghp_, gho_, ghu_, ghs_: an Actions GITHUB_TOKEN, ghr_), npm (npm_).
KEPT_TOKEN_PREFIXES = ("xopc_rt_", "sk-ant-api03-", "sk-ant-oat01-", "sk-ant-admin01-", "sk-ant-", "sk-proj-",
                       "sk-svcacct-", "sk-admin-", "sk-", "AIza", "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
                       "npm_")
MIN_SECRET_CHARS = 8  # a token learned from a request is cut wherever it appears; a shorter one would cut noise
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_PERCENT = "%(?:25)*"  # a percent sign, itself percent-encoded any number of times (`%`, `%25`, `%2525`)
_MORE_BACKSLASHES = r"(?:\\|%(?:25)*5[cC])*"  # an escaping backslash is itself escaped, or percent-encoded, or not
_BACKSLASH = rf"(?:\\|%(?:25)*5[cC]){_MORE_BACKSLASHES}"
_BASE64_SPECIAL = {"+": rf"(?:\+|%(?:25)*2[bB]|{_BACKSLASH}u002[bB])",
                   "/": rf"(?:/|%(?:25)*2[fF]|{_BACKSLASH}(?:/|u002[fF]))"}


def _parts(token: str) -> tuple[str, str]:
    """The token's known prefix (the part its contract checks) and its secret part."""
    kept = next((p for p in KEPT_TOKEN_PREFIXES if token.startswith(p)), "")
    return kept, token[len(kept):]


def redact_token(token: str) -> str:
    """The token as every output shows it: its known prefix and its length."""
    kept, secret = _parts(token)
    return f"{kept}<redacted {len(secret)} chars>" if secret else token


def _folded(text: str) -> str:
    """`text` with its letters lower-cased, every character where it was (the text and hex patterns match this)."""
    folded = text.lower()
    # lower() makes two characters of a few (İ): then only ASCII letters are folded, in place
    return folded if len(folded) == len(text) else text.translate(_ASCII_LOWER)


def _literal(c: str) -> list[str]:
    """A character as folded text holds it: an ASCII letter lower-cased, any other in each of its cases (folding
    may leave one as it was)."""
    return [c.lower()] if c.isascii() else sorted({c, c.lower(), c.upper()})


def _encoded(c: str) -> str:
    """An ASCII character of an encoding (a hex digit, the `u` of `\\u`) as itself or percent-encoded to any depth,
    in folded text: what encoding every character of a spelling again (`%78` → `%25%37%38`) makes of it."""
    codes = dict.fromkeys(f"{ord(case):02x}" for case in (c, c.upper()))
    return f"(?:{re.escape(c)}|{_PERCENT}(?:{'|'.join(codes)}))"


def _hex(number: int, digits: int) -> str:
    return "".join(_encoded(d) for d in f"{number:0{digits}x}")


def _char(c: str) -> str:
    """One character of a token as an echo may spell it, in folded text: itself in any case (a non-ASCII letter in
    either: folding may leave it as it was), or any of its cases percent-encoded to any depth (its UTF-8 bytes; the
    hex folded to lower case; every character of `%78` encoded once more too), as an escape behind any number of
    backslashes, themselves escaped or percent-encoded (JSON's `\\uXXXX`, a surrogate pair beyond the BMP;
    `\\xXX`), or as an HTML character reference. An encoded spelling keeps the case the echo gave the character,
    which folding does not touch: `%53` and `\\u0053` are an `S`, `%73` an `s`. Each alternative starts with a
    literal character, one per kind of spelling (re skips to where one of those characters is, and tries each kind
    once there)."""
    cases = sorted({c, c.lower(), c.upper()})
    literal = _literal(c)
    single = [case for case in cases if len(case) == 1]
    in_bytes = "|".join(_PERCENT.join(_hex(byte, 2) for byte in case.encode()) for case in cases)
    escapes = []
    for case in single:
        units = case.encode("utf-16-be", "surrogatepass")
        escapes.append(_BACKSLASH.join(f"{_encoded('u')}{_hex(int.from_bytes(units[i:i + 2], 'big'), 4)}"
                                       for i in range(0, len(units), 2)))
        if ord(case) < 0x100:
            escapes.append(f"{_encoded('x')}{_hex(ord(case), 2)}")
    if c in "\"\\/":
        escapes.append(re.escape(c))
    escaped = f"{_MORE_BACKSLASHES}(?:{'|'.join(escapes)})"
    references = "|".join(f"0*{ord(case)}|x0*{ord(case):x}" for case in single)
    alternatives = [re.escape(case) for case in literal] + [
        rf"\\{escaped}", f"{_PERCENT}(?:5[cC]{escaped}|{in_bytes})", f"&(?:amp;)*#(?:{references});"]
    return f"(?:{'|'.join(alternatives)})"


def _base64_cores(secret: bytes) -> list[str]:
    """The base64 characters that depend on `secret`'s bytes alone, at each byte alignment, in both alphabets."""
    cores: list[str] = []
    for before in range(3):
        encoded = base64.b64encode(b"\0" * before + secret).decode().rstrip("=")
        first, end = -(-8 * before // 6), 8 * (before + len(secret)) // 6  # characters wholly within its bits
        core = encoded[first:end]
        for spelled in (core, core.translate(str.maketrans("+/", "-_"))):
            if len(spelled) >= MIN_SECRET_CHARS and spelled not in cores:
                cores.append(spelled)
    return cores


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    shown: str  # what a match becomes
    folded: bool  # matched against the folded text (else against the text itself)
    plain: re.Pattern[str] | None = None  # the spellings left where the text holds no `%`, `\\` or `&`: no escape


_ESCAPES = re.compile(r"[%\\&]")  # what every escaped spelling holds (an escape of an escape too)


def _text(token: str, shown: str) -> _Pattern:
    """A token's text spellings, and the literal ones alone: a text with nothing escaped in it (most lines of a
    program's output) is searched for those, a literal string, at a small part of the cost."""
    plain = "".join(f"(?:{'|'.join(re.escape(x) for x in _literal(c))})" for c in token)
    return _Pattern(re.compile("".join(_char(c) for c in token)), shown, True, re.compile(plain))


def _patterns(token: str) -> list[_Pattern]:
    """A token's patterns: its text spelling, and its secret part's (the token without a known prefix, which an
    echo may quote alone) in text, hex and base64; each its own pattern (one that starts with a literal is searched
    for quickly). A secret part shorter than MIN_SECRET_CHARS is cut only within the whole token (alone, it would
    cut noise)."""
    secret = _parts(token)[1]
    patterns = [_text(token, redact_token(token))]
    if secret != token and len(secret.encode()) >= MIN_SECRET_CHARS:
        patterns.append(_text(secret, f"<redacted {len(secret)} chars>"))
    for part in dict.fromkeys((token, secret)):
        if len(part.encode()) < MIN_SECRET_CHARS:
            continue
        patterns.append(_Pattern(re.compile(re.escape(part.encode().hex())), "<redacted hex>", True))
        cores = _base64_cores(part.encode())  # never empty for MIN_SECRET_CHARS bytes
        patterns.append(_Pattern(re.compile("|".join("".join(_BASE64_SPECIAL.get(c, c) for c in core)
                                                     for core in cores)), "<redacted base64>", False))
    return patterns


class Secrets:
    """The tokens to cut (added from any thread as they become known) and the one cut."""

    def __init__(self, secrets: Iterable[str] = ()):
        self._tokens: tuple[str, ...] = ()
        self._patterns: tuple[_Pattern, ...] = ()
        self._lock = threading.Lock()
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        """Cut these too, from now on: all of them at once (a request's credentials become known together, so no
        text is cut with one of them and not the others)."""
        new = [s for s in dict.fromkeys(secrets) if len(s.encode()) >= MIN_SECRET_CHARS and s not in self]
        if not new:
            return
        patterns = {secret: _patterns(secret) for secret in new}  # compiled before any is used
        with self._lock:
            for secret, compiled in patterns.items():
                if secret not in self:
                    self._patterns = (*self._patterns, *compiled)
                    self._tokens = (*self._tokens, secret)

    def __contains__(self, secret: object) -> bool:
        return secret in self._tokens

    def __bool__(self) -> bool:
        return bool(self._tokens)

    def __len__(self) -> int:
        return len(self._tokens)

    @property
    def longest_spelling(self) -> int:
        """Characters a token's spelling is held to take, to be cut whole when a text comes in pieces (stub: a long
        line relayed as it comes holds back this much, so that no spelling is split between two pieces): 64 per
        character, four UTF-8 bytes percent-encoded five times over, a surrogate pair behind five backslashes. A
        spelling wrapped deeper is still cut within one piece."""
        return 64 * max(map(len, self._tokens), default=0)

    def cut(self, text: str) -> str:
        """`text` with every spelling of every token replaced by its redacted form: one fold, every token's
        matches, one splice. Matches that overlap (a token holding another, the secret part within the whole
        token, a hex run that is also base64) are cut as one, shown as the longest of them."""
        patterns = self._patterns
        if not patterns:
            return text
        folded = _folded(text)
        escaped = _ESCAPES.search(text) is not None
        spans = [(m.start(), -m.end(), pattern.shown) for pattern in patterns
                 for m in (pattern.regex if escaped or pattern.plain is None else pattern.plain).finditer(
                     folded if pattern.folded else text)]
        if not spans:
            return text
        spans.sort()  # by start, the longest first
        parts, at = [], 0
        start, end, shown = spans[0][0], -spans[0][1], spans[0][2]
        longest = end - start
        for next_start, negated_end, next_shown in spans[1:]:
            next_end = -negated_end
            if next_start < end:  # overlaps the run being cut: joins it, and names it if it is the longest
                if next_end - next_start > longest:
                    shown, longest = next_shown, next_end - next_start
                end = max(end, next_end)
                continue
            parts += [text[at:start], shown]
            at, start, end, shown, longest = end, next_start, next_end, next_shown, next_end - next_start
        parts += [text[at:start], shown, text[end:]]
        return "".join(parts)

    def cut_all(self, value: Any) -> Any:
        """`value` (JSON-like: dicts, lists, strings) with `cut` applied to every string in it, keys included."""
        if not self._patterns:
            return value
        if isinstance(value, str):
            return self.cut(value)
        if isinstance(value, dict):
            return {self.cut_all(k): self.cut_all(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.cut_all(v) for v in value]
        return value
