"""Bearer tokens cut from everything wirecheck writes: the HAR, the reports and its own stderr. A server (or a
runtime) may echo a token in another spelling, so each token, and its secret part alone (the token without a known
prefix such as `xopc_rt_`), is cut in every spelling an echo is likely to use:

- as text: any mix of upper and lower case, of percent-encoding (`%78`, `%2F` or `%2f`; `%53` and `%73` both, an
  upper- or lower-case `s`) and of JSON escapes (`\\u0053`, `\\u0073`, `\\/`, a surrogate pair beyond the BMP),
  character by character;
- as the hex of its UTF-8 bytes, in either case;
- inside base64, standard or URL-safe, padded or not, at any of the three byte alignments (a `Basic` credential
  `user:token` puts it anywhere), its `+` and `/` percent-encoded or not: every base64 character that depends on the
  token's bytes alone is cut.

`Secrets.cut` is the one redaction: the HAR recorder applies it to every string of an entry, the stub and probe to
every text they print or report. The text spelling becomes the token's redacted form (`redact_token`: what the
contract checks, a known prefix such as `xopc_rt_`, and the length, so a malformed token still shows as malformed),
the secret part's `<redacted N chars>`; hex and base64 become `<redacted hex>`, `<redacted base64>`. Tokens (and
secret parts) shorter than MIN_SECRET_CHARS are not cut alone (they would cut noise). The text is folded once, every
pattern of every token searched in it (a match cannot fail after a long partial match: no nested repetition, so the
time is linear in the text), and the matches spliced out in one pass, overlapping ones as one, named by the longest.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

KEPT_TOKEN_PREFIXES = ("xopc_rt_",)  # the part of a token its contract checks; the rest is a secret
MIN_SECRET_CHARS = 8  # a token learned from a request is cut wherever it appears; a shorter one would cut noise
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_BASE64_SPECIAL = {"+": r"(?:\+|%2[bB])", "/": r"(?:/|%2[fF]|\\/)"}


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


def _char(c: str) -> str:
    """One character of a token as an echo may spell it, in folded text: itself in any case (a non-ASCII letter in
    either: folding may leave it as it was), or any of its cases percent-encoded (its UTF-8 bytes; the hex folded
    to lower case) or as a JSON escape (a surrogate pair beyond the BMP). An encoded spelling keeps the case the
    echo gave the character, which folding does not touch: `%53` and `\\u0053` are an `S`, `%73` an `s`."""
    cases = sorted({c, c.lower(), c.upper()})
    literal = [c.lower()] if c.isascii() else cases
    alternatives = [re.escape(case) for case in literal]
    for case in cases:
        alternatives.append("".join(f"%{byte:02x}" for byte in case.encode()))
        if len(case) == 1:
            units = case.encode("utf-16-be", "surrogatepass")
            alternatives.append(re.escape("".join(f"\\u{units[i:i + 2].hex()}" for i in range(0, len(units), 2))))
    if c in "\"\\/":
        alternatives.append(re.escape("\\" + c))
    return f"(?:{'|'.join(dict.fromkeys(alternatives))})"


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


def _patterns(token: str) -> list[_Pattern]:
    """A token's patterns: its text spelling, and its secret part's (the token without a known prefix, which an
    echo may quote alone) in text, hex and base64; each its own pattern (one that starts with a literal is searched
    for quickly). A secret part shorter than MIN_SECRET_CHARS is cut only within the whole token (alone, it would
    cut noise)."""
    secret = _parts(token)[1]
    patterns = [_Pattern(re.compile("".join(_char(c) for c in token)), redact_token(token), True)]
    if secret != token and len(secret.encode()) >= MIN_SECRET_CHARS:
        patterns.append(_Pattern(re.compile("".join(_char(c) for c in secret)), f"<redacted {len(secret)} chars>",
                                 True))
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
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        if len(secret.encode()) < MIN_SECRET_CHARS or secret in self:
            return
        patterns = _patterns(secret)
        with self._lock:
            if secret not in self:
                self._patterns = (*self._patterns, *patterns)
                self._tokens = (*self._tokens, secret)

    def __contains__(self, secret: object) -> bool:
        return secret in self._tokens

    def __bool__(self) -> bool:
        return bool(self._tokens)

    @property
    def longest_spelling(self) -> int:
        """Characters of the longest text any token's spelling can take (12 per character: four UTF-8 bytes
        percent-encoded, or a surrogate pair as JSON escapes): a text cut in pieces (stub: a long line relayed as
        it comes) holds back this much so that no spelling is split between two pieces."""
        return 12 * max(map(len, self._tokens), default=0)

    def cut(self, text: str) -> str:
        """`text` with every spelling of every token replaced by its redacted form: one fold, every token's
        matches, one splice. Matches that overlap (a token holding another, the secret part within the whole
        token, a hex run that is also base64) are cut as one, shown as the longest of them."""
        patterns = self._patterns
        if not patterns:
            return text
        folded = _folded(text)
        spans = [(m.start(), -m.end(), pattern.shown) for pattern in patterns
                 for m in pattern.regex.finditer(folded if pattern.folded else text)]
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
