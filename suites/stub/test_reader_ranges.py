"""The strictest supported reader decides (issue 28): the 11 platform answers on which wirecheck and the readers
that xopc 0.0.253's ranges admit disagreed. Each is served by the stub to the probe, and `wirecheck probe` (the
certification of the probe's HAR, role platform) and `wirecheck validate` (of the same HAR) must agree on it, with
the real readers' verdict:

- 7 that a supported reader refuses and wirecheck passed: string lengths zod 4.4.3 counts in UTF-16 code units
  (contracts.ts:21, client.ts:42), URLs Node 22's ada 2.9.2 refuses and ada 4.0.0 accepts (contracts.ts:25-33);
- 4 that every reader accepts and wirecheck refused: a lease answered with another 2xx than 200 (client.ts:109-111
  checks response.ok), a heartbeat answer that is no object (client.ts:104 returns it unchecked).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.certify.pipeline import certify_captures
from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.stub.probe import XopcProbe
from wirecheck.stub.server import Reply, StubServer
from wirecheck.stub.xopc import XopcPlatformStub

EMOJI = "\U0001f600"


@pytest.fixture(scope="module")
def release():
    return load_registry().load("xopc@0.0.253")


class Answering:
    """The stub, with one route's answer changed: `edit(value) -> value` on its JSON, and/or another status."""

    def __init__(self, stub: XopcPlatformStub, route: str, edit=None, status: int | None = None):
        self.stub, self.route, self.edit, self.status = stub, route, edit, status

    def handle(self, method, url, path, headers, body):
        reply = self.stub.handle(method, url, path, headers, body)
        if not path.endswith(self.route) or reply.status == 204:
            return reply
        value = orjson.loads(reply.body) if reply.body else None
        if self.edit is not None:
            value = self.edit(value)
        return Reply(self.status or reply.status, orjson.dumps(value), dict(reply.headers))


def endpoint(name: str, url: str):
    def edit(document: dict[str, Any]) -> dict[str, Any]:
        document["endpoints"][name] = url
        return document
    return edit


def set_member(name: str, value: Any):
    def edit(document: dict[str, Any]) -> dict[str, Any]:
        document[name] = value
        return document
    return edit


def lease_token(token: str):
    def edit(answer: dict[str, Any]) -> dict[str, Any]:
        answer["command"]["leaseToken"] = token
        return answer
    return edit


DISCOVERY = "/.well-known/xopc-platform"
# (id, route, edit, status, a supported reader accepts it, what decides)
CASES = [
    ("display-name-61-emoji", DISCOVERY, set_member("displayName", EMOJI * 61), None, False,
     "zod 4.4.3 .max(120) counts 122 UTF-16 units"),
    ("lease-token-257-emoji", "/lease", lease_token(EMOJI * 257), None, False,
     "zod 4.4.3 .max(512) counts 514 UTF-16 units"),
    ("url-xn--a", DISCOVERY, endpoint("modelApi", "https://xn--a.test/"), None, False, "Node 22 (ada 2.9.2)"),
    ("url-xn--", DISCOVERY, endpoint("storeApi", "https://xn--/"), None, False, "Node 22 (ada 2.9.2)"),
    ("url-u180e", DISCOVERY, endpoint("shareApi", "https://a.test\u180e"), None, False, "Node 22 (ada 2.9.2)"),
    ("url-palochka", DISCOVERY, endpoint("tunnelApi", "https://a\u04c0b.test/"), None, False, "Node 22 (ada 2.9.2)"),
    ("url-u088f", DISCOVERY, endpoint("a2aApi", "https://a\u088fb.test/"), None, False, "Node 22 (ada 2.9.2)"),
    ("lease-201", "/lease", None, 201, True, "client.ts:110 checks response.ok"),
    ("lease-203", "/lease", None, 203, True, "client.ts:110 checks response.ok"),
    ("heartbeat-array", "/heartbeat", lambda _: ["ok"], None, True, "client.ts:104 returns the body unchecked"),
    ("heartbeat-string", "/heartbeat", lambda _: "alive", None, True, "client.ts:104 returns the body unchecked"),
]


def test_there_are_the_seven_and_the_four():
    assert [accepted for *_, accepted, _ in CASES].count(False) == 7
    assert [accepted for *_, accepted, _ in CASES].count(True) == 4


@pytest.mark.parametrize(("name", "route", "edit", "status", "accepted", "why"), CASES, ids=[c[0] for c in CASES])
def test_probe_and_validate_agree_with_the_strictest_reader(release, tmp_path, name, route, edit, status,
                                                            accepted, why):
    platform = Answering(XopcPlatformStub(release), route, edit, status)
    with StubServer(platform) as server:
        probe = XopcProbe(server.base_url, timeout=10, max_leases=3)
        outcome = probe.run()
    har = probe.recorder.write(tmp_path / "probe.har")
    assert outcome.ok, outcome.problems  # the probe reads on, as the client does where it accepts
    cert = certify_captures(release, [har], role="platform")
    validated = CliRunner().invoke(app, ["validate", "xopc@0.0.253", str(har), "--format", "json"])
    assert validated.exit_code in (0, 1), validated.output
    assert cert.passed is accepted, (why, [r.failures for r in cert.blocking()])
    assert (validated.exit_code == 0) is accepted, (why, validated.output[-2000:])


def test_the_probe_command_and_validate_agree_on_a_201_lease(release, tmp_path):
    """The commands themselves, end to end: `wirecheck probe` against a platform answering leases 201."""
    platform = Answering(XopcPlatformStub(release), "/lease", None, 201)
    with StubServer(platform) as server:
        probed = CliRunner().invoke(app, ["probe", "xopc@0.0.253", server.base_url, "--out-dir", str(tmp_path)])
    assert probed.exit_code == 0, probed.output
    validated = CliRunner().invoke(app, ["validate", "xopc@0.0.253", str(Path(tmp_path) / "probe.har")])
    assert validated.exit_code == 0, validated.output


class AnsweringText:
    """The stub, with the heartbeat answered by a body that is not JSON (written as it comes)."""

    def __init__(self, stub: XopcPlatformStub, body: bytes, content_type: str):
        self.stub, self.body, self.content_type = stub, body, content_type

    def handle(self, method, url, path, headers, body):
        reply = self.stub.handle(method, url, path, headers, body)
        if not path.endswith("/heartbeat"):
            return reply
        return Reply(200, self.body, {"content-type": self.content_type})


@pytest.mark.parametrize(("body", "content_type"), [(b"alive", "text/plain"), (b"<html>ok</html>", "text/html"),
                                                     (b"{not json", "application/json")],
                         ids=["text", "html", "broken-json"])
def test_a_heartbeat_answer_that_is_not_json_is_accepted_by_probe_and_validate(release, tmp_path, body,
                                                                                 content_type):
    """client.ts:104 returns responseJson(response), which reads a body that is not JSON as null (client.ts:22):
    any heartbeat answer is fine. The probe read on; its HAR's certification and validate called the body a
    PARSE_ERROR when it was read, before its kind (body: any) was known."""
    platform = AnsweringText(XopcPlatformStub(release), body, content_type)
    with StubServer(platform) as server:
        probe = XopcProbe(server.base_url, timeout=10, max_leases=3)
        outcome = probe.run()
    har = probe.recorder.write(tmp_path / "probe.har")
    assert outcome.ok, outcome.problems
    entries = orjson.loads(har.read_bytes())["log"]["entries"]
    answers = [e["response"]["content"].get("text") for e in entries if e["request"]["url"].endswith("/heartbeat")]
    assert answers == [body.decode()]  # recorded as it came
    cert = certify_captures(release, [har], role="platform")
    assert cert.passed, [r.failures for r in cert.blocking()]
    validated = CliRunner().invoke(app, ["validate", "xopc@0.0.253", str(har)])
    assert validated.exit_code == 0, validated.output[-2000:]
