"""One encoding path for every output (encoding.py): a lone surrogate, from a capture's `"\\ud800"`, a YAML file or
a file name that is not UTF-8, is written as `\\ud800` (a JSON escape in JSON, six visible characters elsewhere) in
every format, to standard output and to files alike, and never ends the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

SUITES = Path(__file__).parent
DEMO = str(SUITES / "data" / "contracts")
FAKE = str(SUITES / "harness" / "data" / "contracts")
NOT_UTF8 = os.fsdecode(b"caf\xe9")  # a Latin-1 name: Python holds the byte as the lone surrogate U+DCE9


def wirecheck(*args: str, contracts: str | None = DEMO, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """`python -m wirecheck ARGS` with the given contracts folder (None: the bundled contracts)."""
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    env.pop("WIRECHECK_CONTRACTS", None)
    if contracts is not None:
        env["WIRECHECK_CONTRACTS"] = contracts
    return subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, env=env, timeout=120,
                          cwd=cwd)


def assert_encoded(output: bytes, *, is_json: bool = False, jsonl: bool = False, surrogate: str = "\\udce9") -> str:
    """Strict UTF-8, the surrogates visible; JSON still JSON (read by the standard library, which takes the escape
    back to the character it stands for)."""
    text = output.decode("utf-8")  # strict: no surrogate bytes sneaked through
    assert surrogate in text, text[:2000]
    if is_json:
        json.loads(text)
    if jsonl:
        for line in text.splitlines():
            json.loads(line)
    return text


@pytest.fixture
def capture(tmp_path):
    """A capture named with a byte that is not UTF-8, holding lone surrogates in a value, a key and a type."""
    path = tmp_path / f"{NOT_UTF8}.jsonl"
    path.write_bytes(b'{"type":"hello","version":"\\ud800"}\n{"type":"hel\\ud800lo"}\n'
                     b'{"type":"hello","version":"1.0.0","\\udc00x":1}\n')
    return path


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "markdown"])
def test_validate_writes_every_format_to_stdout_and_to_a_file(capture, tmp_path, fmt):
    shown = wirecheck("validate", "demo@1.0.0", str(capture), "--format", fmt)
    assert shown.returncode == 1, shown.stderr
    text = assert_encoded(shown.stdout, is_json=fmt == "json")
    assert "a lone surrogate" in text and "INVALID_UTF8" in text
    written = wirecheck("validate", "demo@1.0.0", str(capture), "--format", fmt, "-o", str(tmp_path / "report"))
    assert written.returncode == 1, written.stderr
    assert (tmp_path / "report").read_bytes() == shown.stdout


def test_a_lone_surrogate_in_a_message_is_a_located_finding_and_the_rest_is_checked(demo, capture):
    from wirecheck.check.engine import check_captures

    result = check_captures(demo, [str(capture)])
    assert [(f.line, f.code, f.pointer) for f in result.findings] == [
        (1, "INVALID_UTF8", "/version"), (1, "SCHEMA_VIOLATION", "/version"),  # checked with U+FFFD in its place
        (2, "INVALID_UTF8", "/type"), (2, "UNKNOWN_MESSAGE_KIND", None),
        (3, "INVALID_UTF8", "/\udc00x"), (3, "UNKNOWN_FIELD", "/\ufffdx")]


def test_diff_schemas_writes_every_format(tmp_path):
    old, new = tmp_path / f"old-{NOT_UTF8}.json", tmp_path / f"new-{NOT_UTF8}.json"
    old.write_bytes(orjson.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    new.write_bytes(orjson.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}))
    for fmt in ("text", "markdown", "json", "junit", "sarif", "html"):
        proc = wirecheck("diff-schemas", str(old), str(new), "--format", fmt)
        assert proc.returncode == 1, (fmt, proc.stderr)
        assert_encoded(proc.stdout, is_json=fmt in ("json", "sarif"))


def test_certify_writes_every_format_with_a_surrogate_in_a_baseline_reason(tmp_path):
    capture = tmp_path / f"{NOT_UTF8}.framed.ndjson"
    capture.write_bytes(b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                        b'{"from": "cli", "message": {"type": "assistant", "session_id": 5, "message": {}}}\n')
    baseline = tmp_path / "baseline.yaml"  # the YAML loader that keeps lines reads "\udce9" as that character
    baseline.write_text('expected_failures:\n  - id: FAKEQODER-1.0.0-ASSISTANT-SCHEMA\n    reason: "caf\\udce9"\n')
    out = tmp_path / "out"
    proc = wirecheck("certify", "fakeqoder@1.0.0", str(capture), "--role", "cli", "--baseline", str(baseline),
                     "--out-dir", str(out), contracts=FAKE)
    assert proc.returncode in (0, 1), proc.stderr
    for name in ("certification.txt", "certification.md", "certification.junit.xml", "certification.html"):
        assert_encoded((out / name).read_bytes())
    assert_encoded((out / "certification.jsonl").read_bytes(), jsonl=True)
    assert_encoded(proc.stdout + proc.stderr)


def test_stdout_is_utf8_whatever_the_locale():
    """Under LANG=C Python would write stdout as ASCII; reports are UTF-8 everywhere."""
    env = {**os.environ, "WIRECHECK_CONTRACTS": DEMO, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
           "PYTHONIOENCODING": ""}
    proc = subprocess.run([sys.executable, "-m", "wirecheck", "validate", "demo@1.0.0", "-"],
                          input=b'{"type":"\xc3\xa9"}\n', capture_output=True, env=env, timeout=120)
    assert proc.returncode == 4, proc.stderr  # a capture of nothing the release knows: INCONCLUSIVE
    assert '{"type":"é"}' in proc.stdout.decode("utf-8")


# -- the stub and the probe: a lone surrogate from the other side of the wire ------------------------------------


def _strict_utf8_files(folder: Path) -> list[str]:
    names = sorted(p.name for p in folder.iterdir())
    for path in folder.iterdir():
        path.read_bytes().decode("utf-8")  # strict
    return names


def test_a_post_with_lone_surrogates_is_recorded_and_certified_not_a_crash(tmp_path):
    """One such POST to the stub ended the whole session with no certification written (issue 20)."""
    import urllib.error
    import urllib.request

    from wirecheck.contracts import load_registry
    from wirecheck.stub.server import StubServer
    from wirecheck.stub.xopc import AGENT_PATH, XopcPlatformStub

    release = load_registry().load("xopc@0.0.253")
    body = b'{"capabilities": {"engine": "\\ud800"}, "endpoint": "\\udfff", "\\udc00": 1}'
    with StubServer(XopcPlatformStub(release, commands=1)) as server:
        request = urllib.request.Request(server.base_url + AGENT_PATH + "/heartbeat", data=body, method="POST",
                                         headers={"content-type": "application/json",
                                                  "authorization": "Bearer xopc_rt_aaaaaaaaaaaa"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status = answer.status
        except urllib.error.HTTPError as error:
            status = error.code
        assert status < 500  # the stub answered: its handler did not die on the body
        har = server.recorder.write(tmp_path / f"{NOT_UTF8}.har")
    out = tmp_path / "out"
    proc = wirecheck("certify", "xopc@0.0.253", str(har), "--role", "runtime", "--out-dir", str(out),
                     contracts=None)
    assert proc.returncode == 1, proc.stderr
    assert "INVALID_UTF8" in (out / "certification.jsonl").read_text(encoding="utf-8")
    assert "certification.html" in _strict_utf8_files(out)


def test_the_probe_takes_an_answer_with_lone_surrogates_and_writes_every_report(tmp_path):
    from wirecheck.contracts import load_registry
    from wirecheck.stub.server import Reply, StubServer
    from wirecheck.stub.xopc import XopcPlatformStub

    class Surrogates:  # the stub, its discovery answer carrying lone surrogates in a value and a key
        def __init__(self, stub):
            self.stub = stub

        def handle(self, method, url, path, headers, body):
            reply = self.stub.handle(method, url, path, headers, body)
            if path.endswith("/.well-known/xopc-platform") and reply.body:
                edited = reply.body.replace(b'{', b'{"\\udc00":"\\ud800",', 1)
                return Reply(reply.status, edited, reply.headers)
            return reply

    with StubServer(Surrogates(XopcPlatformStub(load_registry().load("xopc@0.0.253"), commands=1))) as server:
        proc = wirecheck("probe", "xopc@0.0.253", server.base_url, "--out-dir", str(tmp_path / "out"),
                         contracts=None)
    assert proc.returncode == 1, proc.stderr
    assert_encoded(proc.stdout + proc.stderr, surrogate="\\udc00")  # the key is in the finding's pointer
    names = _strict_utf8_files(tmp_path / "out")
    assert "probe.har" in names and "certification.html" in names
    assert "\\ud800" in (tmp_path / "out" / "probe.har").read_text(encoding="utf-8")
