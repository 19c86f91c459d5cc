"""Bearer tokens echoed in other spellings (stub/redaction.py): upper or mixed case, percent-encoded, JSON escapes,
hex, base64 (standard and URL-safe, padded or not, inside a `Basic user:token` credential) are cut from the HAR, the
reports and stderr, as the token itself is. Each spelling is checked in each output."""

from __future__ import annotations

import base64
import io
import json
import re

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.stub.har import Exchange, HarRecorder, now
from wirecheck.stub.redaction import Secrets, redact_token
from wirecheck.stub.server import Reply, StubServer
from wirecheck.stub.xopc import XopcPlatformStub

TOKEN = "xopc_rt_s3cr3t-probe-token-0123456789abcdef"
SECRET = TOKEN.removeprefix("xopc_rt_")


def _mixed(text: str) -> str:
    return "".join(c.upper() if i % 2 else c for i, c in enumerate(text))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# name → (the token as an echo spells it, what of it must not appear in any output: the secret part so spelled, or
# for base64 the characters between the first and last eight, which only the token's bytes decide)
SPELLINGS: dict[str, tuple[str, str]] = {
    "upper case": (TOKEN.upper(), SECRET.upper()),
    "mixed case": (_mixed(TOKEN), _mixed(TOKEN).removeprefix("xOpC_Rt_")),
    "percent-encoded, upper-case hex": ("".join(f"%{b:02X}" for b in TOKEN.encode()),
                                        "".join(f"%{b:02X}" for b in SECRET.encode())),
    "percent-encoded, lower-case hex": ("".join(f"%{b:02x}" for b in TOKEN.encode()),
                                        "".join(f"%{b:02x}" for b in SECRET.encode())),
    "JSON escapes": ("".join(f"\\u{ord(c):04X}" for c in TOKEN), "".join(f"\\u{ord(c):04X}" for c in SECRET)),
    "hex": (TOKEN.encode().hex(), SECRET.encode().hex()),
    "upper-case hex": (TOKEN.encode().hex().upper(), SECRET.encode().hex().upper()),
    "base64": (_b64(TOKEN.encode()), _b64(TOKEN.encode())[8:-8]),
    "base64 of Basic user:token": (_b64(b"runtime:" + TOKEN.encode()), _b64(b"runtime:" + TOKEN.encode())[16:-8]),
    "URL-safe base64, unpadded, one byte in": (_b64url(b"u" + TOKEN.encode()), _b64url(b"u" + TOKEN.encode())[8:-8]),
    "URL-safe base64, two bytes in": (base64.urlsafe_b64encode(b"us" + TOKEN.encode()).decode(),
                                      _b64url(b"us" + TOKEN.encode())[8:-8]),
}


def leaks(data: str | bytes) -> list[str]:
    """The spellings (and the plain token) whose secret part appears in `data`."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    found = [name for name, (_, needle) in SPELLINGS.items() if needle in text]
    return found + (["plain"] if SECRET in text else [])


@pytest.mark.parametrize("name", SPELLINGS)
def test_each_spelling_is_cut_and_the_text_around_it_kept(name):
    spelled, needle = SPELLINGS[name]
    assert needle not in TOKEN or name == "plain"
    cut = Secrets([TOKEN]).cut(f"before {spelled} after")
    assert leaks(cut) == [], cut
    assert cut.startswith("before ") and cut.endswith(" after")


def _spellings(text: str) -> dict[str, str]:
    """`text` spelled every way an echo may, character by character."""
    return {
        "as it is": text, "upper case": text.upper(), "mixed case": _mixed(text),
        "percent-encoded, upper-case hex": "".join(f"%{b:02X}" for b in text.encode()),
        "percent-encoded, lower-case hex": "".join(f"%{b:02x}" for b in text.encode()),
        "percent-encoded upper case": "".join(f"%{b:02x}" for b in text.upper().encode()),
        "JSON escapes": "".join(f"\\u{u:04x}" for u in _utf16(text)),
        "JSON escapes, upper-case hex": "".join(f"\\u{u:04X}" for u in _utf16(text)),
        "JSON escapes of upper case": "".join(f"\\u{u:04x}" for u in _utf16(text.upper())),
        "hex": text.encode().hex(), "upper-case hex": text.encode().hex().upper(),
        "base64": _b64(text.encode()), "URL-safe base64, one byte in": _b64url(b"u" + text.encode()),
    }


def _utf16(text: str) -> list[int]:
    units = text.encode("utf-16-be")
    return [int.from_bytes(units[i:i + 2], "big") for i in range(0, len(units), 2)]


# a token with upper-case letters and a character beyond the BMP: its encoded spellings keep the case of each
# character (`%53` is an `S`), which folding the text does not touch
CASED = "xopc_rt_S3CR3T-Probe-\U0001F600-Token-0123456789ABCdef"


@pytest.mark.parametrize("alone", [False, True], ids=["the token", "its secret part alone"])
@pytest.mark.parametrize("name", list(_spellings(CASED)))
def test_a_token_with_upper_case_letters_is_cut_in_every_spelling_and_so_is_its_secret_part(name, alone):
    secret = CASED.removeprefix("xopc_rt_")
    spelled = _spellings(secret if alone else CASED)[name]
    cut = Secrets([CASED]).cut(f"before {spelled} after")
    assert cut.startswith("before ") and cut.endswith(" after"), cut
    middle = cut.removeprefix("before ").removesuffix(" after")
    if "base64" in name:  # a character or two at each end hold bits of the token's neighbours too
        assert re.fullmatch(r"[A-Za-z0-9+/_-]{0,3}<redacted base64>[A-Za-z0-9+/_=-]{0,3}", middle), middle
    else:
        assert re.fullmatch(r"(xopc_rt_)?<redacted (\d+ chars|hex)>", middle), middle


def test_overlapping_matches_are_cut_once_named_by_the_longest():
    secret = CASED.removeprefix("xopc_rt_")
    secrets = Secrets([CASED, secret[:12] + "-other"])
    assert secrets.cut(f"<{CASED.upper()}|{secret}|{CASED.encode().hex()}>") == (
        f"<{redact_token(CASED)}|<redacted {len(secret)} chars>|<redacted hex>>")
    assert secrets.cut(CASED + CASED) == redact_token(CASED) * 2  # adjacent, not overlapping: two


def test_a_text_spelling_shows_as_the_token_redacted_and_encodings_are_named():
    secrets = Secrets([TOKEN])
    assert secrets.cut(TOKEN.upper()) == redact_token(TOKEN) == "xopc_rt_<redacted 35 chars>"
    assert secrets.cut(SPELLINGS["hex"][0]) == "<redacted hex>"
    # what is left of base64 is a character holding the last few bits of the token and padding
    assert re.fullmatch(r"<redacted base64>[A-Za-z0-9+/]?=*", secrets.cut(SPELLINGS["base64"][0]))


def test_an_echo_inside_a_json_body_leaves_it_json_with_the_same_shape():
    body = '{"n": 1.50, "t": "' + '", "u": "'.join(spelled for spelled, _ in SPELLINGS.values()) + '", "k": "\\ud800"}'
    cut = Secrets([TOKEN]).cut(body)
    assert leaks(cut) == [] and leaks(json.dumps(json.loads(cut), ensure_ascii=False)) == []
    assert json.loads(cut).keys() == json.loads(body).keys() and cut.startswith('{"n": 1.50, ') and "\\ud800" in cut


def test_text_without_a_token_is_left_as_it_is_and_short_tokens_are_not_cut():
    text = "Bearer xopc_rt_other-token, 78 6f %78 eG9wY19y, é İ \\u0078"
    assert Secrets([TOKEN]).cut(text) == text
    assert Secrets(["abc1234"]).cut("abc1234 ABC1234") == "abc1234 ABC1234"  # under MIN_SECRET_CHARS: noise
    assert not Secrets(["abc1234"])


def test_a_token_holding_another_is_cut_whole_and_every_string_of_a_value_is_cut():
    secrets = Secrets([SECRET[:10], TOKEN])
    assert secrets.cut(f"[{TOKEN.upper()}]") == f"[{redact_token(TOKEN)}]"
    value = {TOKEN: [SPELLINGS["hex"][0], 5, None, {"k": (SPELLINGS["base64"][0],)}]}
    assert leaks(json.dumps(secrets.cut_all(value))) == []


def test_the_har_cuts_every_spelling_in_a_url_a_header_and_both_bodies():
    recorder = HarRecorder(secrets=(TOKEN,))
    for spelled, _ in SPELLINGS.values():
        recorder.add(Exchange("POST", f"http://127.0.0.1:1/agent/x?t={spelled}", {"x-echo": spelled},
                              f'{{"t": "{spelled}"}}'.encode(), 200, {"x-echo": spelled},
                              f'{{"t": "{spelled}"}}'.encode(), now(), 1.0))
    document = recorder.document()
    assert len(document["log"]["entries"]) == len(SPELLINGS)
    assert leaks(orjson.dumps(document)) == [] and leaks(json.dumps(document, ensure_ascii=False)) == []


class _Echoing:
    """The stub as a platform that echoes the runtime token it is sent in every spelling: in headers, in a body,
    in a followed redirect's Location, in a value the certification quotes (a renewal's leaseExpiresAt, which is
    not a date) and, last, in a redirect to another host that ends the run (its URL is in the problem printed on
    stderr and written in every report)."""

    def __init__(self, release):
        self.stub, self.events = XopcPlatformStub(release, commands=1), 0

    def handle(self, method, url, path, headers, body):
        token = headers.get("authorization", "").removeprefix("Bearer ")
        spelled = [spelling.replace(TOKEN, token) for spelling, _ in SPELLINGS.values()] if token else []
        every = ",".join(spelled)
        echo = {f"x-echo-{n}": s for n, s in enumerate(spelled)}
        if path == "/agent/heartbeat":
            return Reply(302, None, {"location": f"/agent/heartbeat/again?t={every}", **echo})
        if path.startswith("/agent/heartbeat/again"):
            return Reply(200, f'{{"ok": true, "you": "{every}"}}'.encode(), {"content-type": "application/json"})
        if path.endswith("/renew"):
            return Reply(200, f'{{"leaseExpiresAt": "{every}", "cancelRequested": false}}'.encode(),
                         {"content-type": "application/json", **echo})
        if path == "/agent/events":
            self.events += 1
            if self.events == 2:
                return Reply(302, None, {"location": f"http://localhost:9/elsewhere?t={every}"})
        return self.stub.handle(method, url, path, headers, body)


def test_the_probe_cuts_every_spelling_from_the_har_every_report_and_stderr(tmp_path):
    release = load_registry().load("xopc@0.0.253")
    with StubServer(_Echoing(release)) as server:
        result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", server.base_url, "--token", TOKEN,
                                          "--max-leases", "1", "--out-dir", str(tmp_path), "--format", "jsonl"])
        server.recorder.write(tmp_path / "platform-side.har")  # the stub's own HAR learns the token and cuts it
    assert result.exit_code == 1, result.output
    written = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert {"probe.har", "platform-side.har", "certification.jsonl", "certification.md"} <= written.keys()
    assert {name: leaks(data) for name, data in written.items() if leaks(data)} == {}
    assert leaks(result.output) == []
    # the echoes were there to be cut: where each shows, redacted
    footer = orjson.loads(written["certification.jsonl"].splitlines()[-1])
    assert "redirected to another host" in footer["run"]["problem"] and "<redacted base64>" in footer["run"]["problem"]
    assert "redirected to another host" in result.output and "<redacted hex>" in result.output
    assert b"xopc_rt_<redacted 35 chars>" in written["certification.md"]
    har = orjson.loads(written["probe.har"])["log"]["entries"]
    assert any(h["name"] == "x-echo-0" for e in har for h in e["response"]["headers"])


RUNTIME = """import json, sys, urllib.request
token, spelled = json.loads(sys.argv[2])
body = ('{"leaseSeconds": "' + ",".join(spelled) + '"}').encode()
request = urllib.request.Request(sys.argv[1] + "/agent/lease", data=body, method="POST",
                                 headers={"content-type": "application/json", "authorization": "Bearer " + token})
try:
    urllib.request.urlopen(request, timeout=30)
except Exception:
    pass
for spelling in spelled:
    print("my token is", spelling, file=sys.stderr)
    print("on stdout, my token is", spelling, flush=True)
sys.exit(1)
"""


def test_the_stub_cuts_every_spelling_a_runtime_echoes_from_the_har_every_report_and_stderr(tmp_path):
    """A runtime sends its token where a number belongs, spelled every way (the stub's problem line on stderr and
    the certification quote it), then says it on its own stderr (relayed to wirecheck's, and quoted as its last
    words in every report) and on its stdout (relayed to wirecheck's stderr too)."""
    import subprocess
    import sys

    script = tmp_path / "runtime.py"
    script.write_text(RUNTIME)
    out = tmp_path / "out"
    spelled = json.dumps([TOKEN, [spelling for spelling, _ in SPELLINGS.values()]])
    result = subprocess.run([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--max-seconds", "60",
                             "--out-dir", str(out), "--format", "jsonl", "--", sys.executable, str(script), "{url}",
                             spelled], capture_output=True, timeout=180)
    assert result.returncode == 1, result.stderr[-3000:]
    written = {path.name: path.read_bytes() for path in out.iterdir()}
    assert {"stub.har", "certification.jsonl", "certification.md"} <= written.keys()
    assert {name: leaks(data) for name, data in written.items() if leaks(data)} == {}
    assert leaks(result.stdout) == [] and leaks(result.stderr) == []
    # the stub's problem line
    assert b'/leaseSeconds: expected a number, found the string "xopc_rt_<redacted 35 chars>' in result.stderr
    assert result.stderr.count(b"\nmy token is ") == len(SPELLINGS)  # relayed, cut
    assert result.stderr.count(b"\non stdout, my token is ") == len(SPELLINGS)
    footer = orjson.loads(written["certification.jsonl"].splitlines()[-1])
    assert "my token is <redacted base64>" in footer["run"]["stderr_tail"]


CUT_RUNTIME = """import sys, urllib.request
token, filler = sys.argv[2], int(sys.argv[3])
request = urllib.request.Request(sys.argv[1] + "/.well-known/xopc-platform",
                                 headers={"authorization": "Bearer " + token})
try:
    urllib.request.urlopen(request, timeout=30)
except Exception:
    pass
sys.stderr.write("my token is " + token + "\\n" + "." * filler + "\\n")
sys.exit(1)
"""


def test_a_quoted_stderr_tail_starting_inside_a_token_quotes_none_of_it(tmp_path):
    """The report quotes the last 4 KiB of the runtime's stderr. When that window starts inside a token, what is
    left of the token matches no spelling: the quote is taken from the stderr already cut, so none of it shows."""
    import subprocess
    import sys

    from wirecheck.programs.tail import TAIL_BYTES

    script = tmp_path / "runtime.py"
    script.write_text(CUT_RUNTIME)
    out = tmp_path / "out"
    filler = TAIL_BYTES - 2 - (len(TOKEN) - 12)  # the last TAIL_BYTES bytes start 12 characters into the token
    result = subprocess.run([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--max-seconds", "60",
                             "--out-dir", str(out), "--format", "jsonl", "--", sys.executable, str(script), "{url}",
                             TOKEN, str(filler)], capture_output=True, timeout=180)
    assert result.returncode in (1, 4, 5), result.stderr[-3000:]
    footer = orjson.loads((out / "certification.jsonl").read_bytes().splitlines()[-1])
    tail = footer["run"]["stderr_tail"]
    assert tail.endswith("." * 100 + "\n") or tail.endswith("." * 100)
    assert TOKEN[-20:] not in tail, tail[:200]
    assert all(TOKEN[-20:].encode() not in path.read_bytes() for path in out.iterdir())


@pytest.mark.parametrize("at", [1, 57329, 57340, 65535, 65540, 100000])
def test_a_long_line_relayed_in_pieces_never_passes_on_part_of_a_token(capsys, at):
    """A line longer than the relay's piece, written in chunks of any size, with a token in any spelling anywhere
    in it (across the boundary of a piece, of a chunk, of a UTF-8 character): what reaches stderr holds none of it."""
    from wirecheck.cli.stub_cmd import _Relay

    recorder = HarRecorder(secrets=(CASED,))
    for name, spelled in _spellings(CASED).items():
        line = ("\u00e9" * (at // 2) + "." * (at % 2) + spelled + "x" * 90000 + "\n").encode()
        relay = _Relay(recorder, "stderr")
        for size in (7, 4093, 65536):
            for i in range(0, len(line), size):
                relay(line[i:i + size])
        relay.flush()
        written = capsys.readouterr().err
        assert written.count("\n") == 3 and len(written) > 3 * 90000, name
        assert "S3CR3T" not in written.upper() and "%53%33" not in written.upper(), name
        assert spelled[12:40] not in written and _spellings(CASED.removeprefix("xopc_rt_"))[name][8:30] not in written


def test_what_a_runtime_writes_before_its_first_request_is_held_until_its_token_is_known(capsys, monkeypatch):
    from wirecheck.cli.stub_cmd import _Relay

    recorder = HarRecorder()
    relay = _Relay(recorder, "stdout")
    relay(f"starting with {CASED}\n".encode())
    relay(f"{CASED.upper()} again\n".encode())
    relay.release()  # no token known yet: nothing to cut it with, nothing passed on
    assert capsys.readouterr().err == ""
    recorder.learn({"authorization": f"Bearer {CASED}"})
    relay.release()
    assert capsys.readouterr().err == f"starting with {redact_token(CASED)}\n{redact_token(CASED)} again\n"
    relay(f"then {CASED}\n".encode())
    relay.flush()
    assert capsys.readouterr().err == f"then {redact_token(CASED)}\n"
    # more than it holds is left out, and said so; a stream that ends before any token was known goes on as it was
    monkeypatch.setattr(_Relay, "EARLY_CHARS", 12)
    monkeypatch.setattr(_Relay, "EARLY_MEMORY_CHARS", 4)
    relay = _Relay(HarRecorder(), "stderr")
    for line in (b"12345\n", b"67890\n", b"abcdef\n"):
        relay(line)
    relay.flush()
    assert capsys.readouterr().err == (
        "12345\n67890\nwirecheck: 7 more characters the runtime wrote on its stderr before its first request are not "
        "shown: the first 12 were held until a token to cut from them was known\n")


# -- issue 41: wrappers of any depth, every credential header, keys learnt late --------------------------------------


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def _escapes(text: str) -> str:
    return "".join(f"\\u{u:04x}" for u in _utf16(text))


def _wrapped(text: str) -> dict[str, str]:
    """`text` inside wrappers an echo nests: each encoder applied again and again, and one inside another."""
    from urllib.parse import quote

    return {
        "reserved characters percent-encoded twice (xopc%255Frt%255F…)": text.replace("_", "%255F").replace(
            "-", "%252D"),
        "reserved characters percent-encoded three times": text.replace("_", "%25255F").replace("-", "%25252d"),
        "urllib's quote twice": quote(quote(text, safe=""), safe=""),
        "every character percent-encoded twice": _percent(_percent(text)),
        "a JSON string in a JSON string": json.dumps(json.dumps(_escapes(text))[1:-1])[1:-1],
        "JSON escapes three strings deep": json.dumps(json.dumps(json.dumps(text)[1:-1])[1:-1])[1:-1],
        "percent-encoded JSON escapes": quote(_escapes(text), safe=""),
        "every character of JSON escapes percent-encoded": _percent(_escapes(text)),
        "\\x escapes": "".join(f"\\x{ord(c):02x}" if ord(c) < 0x100 else c for c in text),
        "HTML decimal references": "".join(f"&#{ord(c)};" for c in text),
        "HTML hex references, escaped again": "".join(f"&amp;#X{ord(c):X};" for c in text),
        "base64, its + and / percent-encoded twice": quote(quote(_b64(b"ab" + text.encode()), safe=""), safe=""),
    }


@pytest.mark.parametrize("alone", [False, True], ids=["the token", "its secret part alone"])
@pytest.mark.parametrize("name", list(_wrapped(CASED)))
def test_a_token_is_cut_by_its_distinctive_part_whatever_wraps_it(name, alone):
    """A double-percent-encoded xopc token (`xopc%255Frt%255F<secret>`) reached certification.jsonl and stderr: only
    one layer of each encoding was undone (issue 41, 4)."""
    secret = CASED.removeprefix("xopc_rt_")
    spelled = _wrapped(secret if alone else CASED)[name]
    cut = Secrets([CASED]).cut(f"before {spelled} after")
    assert cut.startswith("before ") and cut.endswith(" after"), cut
    middle = cut.removeprefix("before ").removesuffix(" after")
    if "base64" in name:
        assert "<redacted base64>" in middle and len(middle) < 40, middle
    else:
        assert re.fullmatch(r"(xopc(_|%255F|%25255F)rt(_|%255F|%25255F))?<redacted (\d+ chars|hex)>", middle), middle


@pytest.mark.parametrize(("kept", "secret"), [
    ("sk-ant-api03-", "Ab1_" * 20), ("sk-proj-", "Zz9-" * 12), ("ghs_", "x7Y" * 12), ("AIza", "Sy" * 17 + "Q"),
    ("", "plain-secret-value"),
])
def test_a_known_credential_prefix_is_kept_and_its_secret_part_cut_alone(kept, secret):
    """What kind of key it was stays readable (a report says an Anthropic key was echoed); the rest is cut, and cut
    wherever it is quoted without its prefix."""
    secrets = Secrets([kept + secret])
    assert secrets.cut(f"[{kept}{secret}]") == f"[{kept}<redacted {len(secret)} chars>]"
    assert secrets.cut(f"[{secret.upper()}]") == f"[<redacted {len(secret)} chars>]"


def _exchange(headers: dict[str, str], body: str = "", answer: str = "") -> Exchange:
    return Exchange("POST", "http://127.0.0.1:1/v1/messages", headers, body.encode(), 200,
                    {"content-type": "application/json"}, answer.encode(), now(), 1.0)


@pytest.mark.parametrize(("name", "value", "secret"), [
    ("x-api-key", "sk-ant-api03-AAAAbbbbCCCCdddd", "sk-ant-api03-AAAAbbbbCCCCdddd"),  # Anthropic (Claude Code)
    ("X-Api-Key", "sk-ant-api03-AAAAbbbbCCCCdddd", "sk-ant-api03-AAAAbbbbCCCCdddd"),
    ("x-goog-api-key", "AIzaSyAAAAbbbbCCCCddddEEEE", "AIzaSyAAAAbbbbCCCCddddEEEE"),  # Gemini
    ("api-key", "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),  # Azure OpenAI
    ("Authorization", "Bearer sk-proj-AAAAbbbbCCCCdddd", "sk-proj-AAAAbbbbCCCCdddd"),  # OpenAI
    ("AUTHORIZATION", "bearer sk-proj-AAAAbbbbCCCCdddd", "sk-proj-AAAAbbbbCCCCdddd"),
    ("authorization", "sk-no-scheme-AAAAbbbbCCCC", "sk-no-scheme-AAAAbbbbCCCC"),
    ("authorization", "Basic " + _b64(b"runtime:p4ssw0rd-of-the-user"), "p4ssw0rd-of-the-user"),
    ("Proxy-Authorization", "Basic " + _b64(b"proxy:hunter2-hunter2"), "hunter2-hunter2"),
])
def test_every_credential_header_is_redacted_learnt_and_cut_from_every_echo(name, value, secret):
    """`x-api-key` (the header Anthropic's API takes its key in) landed verbatim in the scripted model's HAR and in
    stub.har (issue 41, 2): every credential header the modelled services use is redacted, in any spelling of its
    name, and its value learnt as a secret, cut wherever it is echoed; a Basic credential's password too."""
    recorder = HarRecorder()
    recorder.add(_exchange({name: value, "openai-organization": "org-visible-identifier"},
                           f'{{"echo": "{_percent(secret)}"}}', f'{{"echo": "{secret.upper()}"}}'))
    (entry,) = recorder.document()["log"]["entries"]
    headers = {h["name"]: h["value"] for h in entry["request"]["headers"]}
    assert secret not in headers[name] and "<redacted" in headers[name], headers
    assert headers["openai-organization"] == "org-visible-identifier"  # an account's identifier, not a credential
    text = json.dumps(entry)
    assert secret not in text and secret.upper() not in text and _percent(secret) not in text, text
    assert "<redacted" in entry["request"]["postData"]["text"] and "<redacted" in entry["response"]["content"]["text"]


def test_an_echo_recorded_before_its_key_was_learnt_is_cut_when_the_har_is_written():
    """A program may quote its key in a request before it sends it in a credential header: the entry was written
    with the secrets known then, and is cut again once the key is known."""
    key = "sk-ant-api03-LateLateLate0123"
    recorder = HarRecorder()
    recorder.add(_exchange({}, f'{{"log": "my key is {_escapes(key)}"}}'))
    recorder.add(_exchange({"x-api-key": key}, '{"ok": true}'))
    written = io.BytesIO()
    recorder.write_to(written)
    assert key.encode() not in written.getvalue() and _escapes(key).encode() not in written.getvalue()
    entries = orjson.loads(written.getvalue())["log"]["entries"]
    assert entries[0]["request"]["postData"]["text"] == '{"log": "my key is sk-ant-api03-<redacted 16 chars>"}'
