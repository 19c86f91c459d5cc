"""Bearer tokens cut from everything wirecheck writes: the HAR, the reports and its own stderr. A server (or a
runtime) may echo a token in another spelling, so each token is cut in every spelling an echo is likely to use:

- as text: any mix of upper and lower case, of percent-encoding (`%78`, `%2F` or `%2f`) and of JSON escapes
  (`\\u0078`, `\\/`), character by character;
- as the hex of its UTF-8 bytes, in either case;
- inside base64, standard or URL-safe, padded or not, at any of the three byte alignments (a `Basic` credential
  `user:token` puts it anywhere), its `+` and `/` percent-encoded or not: every base64 character that depends on the
  token's bytes alone is cut.

`Secrets.cut` is the one redaction: the HAR recorder applies it to every string of an entry, the stub and probe to
every text they print or report. The text spelling becomes the token's redacted form (`redact_token`: what the
contract checks, a known prefix such as `xopc_rt_`, and the length, so a malformed token still shows as malformed);
hex and base64 become `<redacted hex>`, `<redacted base64>`. Tokens shorter than MIN_SECRET_CHARS are not cut (they
would cut noise). One pass over the text per token and spelling: a match cannot fail after a long partial match
(no nested repetition), so the time is linear in the text.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Iterable
from typing import Any

KEPT_TOKEN_PREFIXES = ("xopc_rt_",)  # the part of a token its contract checks; the rest is a secret
MIN_SECRET_CHARS = 8  # a token learned from a request is cut wherever it appears; a shorter one would cut noise
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_BASE64_SPECIAL = {"+": r"(?:\+|%2[bB])", "/": r"(?:/|%2[fF]|\\/)"}


def redact_token(token: str) -> str:
    """The token as every output shows it: its known prefix and its length."""
    kept = next((p for p in KEPT_TOKEN_PREFIXES if token.startswith(p)), "")
    secret = token[len(kept):]
    return f"{kept}<redacted {len(secret)} chars>" if secret else token


def _folded(text: str) -> str:
    """`text` with its letters lower-cased, every character where it was (the text and hex patterns match this)."""
    folded = text.lower()
    # lower() makes two characters of a few (İ): then only ASCII letters are folded, in place
    return folded if len(folded) == len(text) else text.translate(_ASCII_LOWER)


def _char(c: str) -> str:
    """One character of a token as an echo may spell it, in folded text: a non-ASCII letter in either case (folding
    may leave it as it was), percent-encoded (its UTF-8 bytes, lower-case hex) or a JSON escape."""
    cases = [c.lower()] if c.isascii() else sorted({c, c.lower(), c.upper()})
    alternatives: list[str] = []
    for case in cases:
        alternatives.append(re.escape(case))
        alternatives.append("".join(f"%{byte:02x}" for byte in case.encode()))
        if len(case) == 1 and ord(case) < 0x10000:
            alternatives.append(re.escape(f"\\u{ord(case):04x}"))
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


class _Token:
    """One token's patterns: the text and hex spellings over folded text, base64 over the text itself (each its own
    pattern: one that starts with a literal is searched for quickly)."""

    def __init__(self, secret: str):
        self.secret = secret
        self.shown = redact_token(secret)
        text = "".join(_char(c) for c in secret)
        self.text = re.compile(text)
        self.hex = re.compile(re.escape(secret.encode().hex()))
        cores = _base64_cores(secret.encode())  # never empty for a token of MIN_SECRET_CHARS
        self.base64 = re.compile("|".join("".join(_BASE64_SPECIAL.get(c, c) for c in core) for core in cores))

    def cut(self, text: str) -> str:
        folded = _folded(text)
        spans = [(m.start(), m.end(), self.shown) for m in self.text.finditer(folded)]
        spans += [(m.start(), m.end(), "<redacted hex>") for m in self.hex.finditer(folded)]
        spans += [(m.start(), m.end(), "<redacted base64>") for m in self.base64.finditer(text)]
        if not spans:
            return text
        parts, at = [], 0
        for start, end, shown in sorted(spans):
            if start < at:  # within a spelling already cut
                if end > at:
                    at = end
                continue
            parts += [text[at:start], shown]
            at = end
        parts.append(text[at:])
        return "".join(parts)


class Secrets:
    """The tokens to cut (added from any thread as they become known) and the one cut."""

    def __init__(self, secrets: Iterable[str] = ()):
        self._tokens: tuple[_Token, ...] = ()
        self._lock = threading.Lock()
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        if len(secret.encode()) < MIN_SECRET_CHARS or secret in self:
            return
        token = _Token(secret)
        with self._lock:
            if secret not in self:  # longest first: a token that holds another is cut whole
                self._tokens = tuple(sorted((*self._tokens, token), key=lambda t: -len(t.secret)))

    def __contains__(self, secret: object) -> bool:
        return any(token.secret == secret for token in self._tokens)

    def __bool__(self) -> bool:
        return bool(self._tokens)

    def cut(self, text: str) -> str:
        """`text` with every spelling of every token replaced by its redacted form."""
        for token in self._tokens:
            text = token.cut(text)
        return text

    def cut_all(self, value: Any) -> Any:
        """`value` (JSON-like: dicts, lists, strings) with `cut` applied to every string in it, keys included."""
        if not self._tokens:
            return value
        if isinstance(value, str):
            return self.cut(value)
        if isinstance(value, dict):
            return {self.cut_all(k): self.cut_all(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.cut_all(v) for v in value]
        return value
