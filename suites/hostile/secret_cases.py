"""Secrets in every place wirecheck records (issue 41, 2 and 4): the credential headers of the services it models
(`x-api-key`, `x-goog-api-key`, `api-key`, `authorization` in any spelling), the values `certify --run` hands its
program (`--env`, `--pass-env`), and a token wrapped in encodings of any depth (`xopc%255Frt%255F<secret>`). Each case
echoes them every way it can (a credential header, bodies, stdout, stderr, values a certification quotes) and holds
every output (the capture, the HARs, every report format, stdout, stderr) to none of their spellings, and to
showing that something was cut. Registered with hostile_cases.case and run by the one runner (test_hostile.py).
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_cases import FAKE, Run, Workspace, case
from live_cases import SECONDS, echoing_platform, probe, runtime_posting, script, stub

ECHOING_AGENT = str(Path(__file__).with_name("echoing_agent.py"))
GITHUB_TOKEN = "ghs_S3cretGitHubToken0123456789abcdEF"  # an Actions token's shape
ANTHROPIC_KEY = "sk-ant-api03-AnthropicKey_0123-456789xyzABC"
XOPC_TOKEN = "xopc_rt_Double-Encoded_0123456789-abcdefXYZ"


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def _double_percent(token: str) -> str:
    """`xopc%255Frt%255F…`: the reserved characters percent-encoded twice, as a platform echoed it (issue 41, 4)."""
    return token.replace("_", "%255F").replace("-", "%252D")


def _needles(secret: str, kept: str) -> list[str]:
    """What of `secret` no output may hold, lower-cased: its part after the known prefix `kept`, as text, percent-
    encoded once and twice, as JSON escapes, and the characters of its base64 that only it decides."""
    part = secret.removeprefix(kept)
    return [n.lower() for n in (part, _percent(part), _percent(_percent(part)),
                                "".join(f"\\u{ord(c):04x}" for c in part),
                                base64.b64encode(b"user:" + secret.encode()).decode()[12:-4])]


def no_secret_in_any_output(secrets: dict[str, str], cut_in: tuple[str, ...]) -> Callable[[Any], None]:
    """No spelling of any secret (name → its known prefix) in stdout, stderr or any file under out/; a redaction in
    each of `cut_in` (names of files under out/, or "stderr"): the echoes reached them, and were cut."""
    needles = {secret: _needles(secret, kept) for secret, kept in secrets.items()}

    def check(finished: Any) -> None:
        written = {p.name: p.read_bytes().decode("utf-8", "replace") for p in (finished.root / "out").rglob("*")
                   if p.is_file()}
        outputs = {**written, "stdout": finished.stdout, "stderr": finished.stderr}
        leaked = {name: [n for found in needles.values() for n in found if n in text.lower()]
                  for name, text in outputs.items()}
        leaks = {name: found for name, found in leaked.items() if found}
        assert leaks == {}, f"secrets leaked: {leaks}"
        cut = {name for name, text in outputs.items() if "redacted " in text}  # `&lt;redacted ` in HTML and XML
        assert set(cut_in) <= cut, f"redacted in {sorted(cut)}, expected in {sorted(cut_in)}"
    return check


@case("certify", "--run: values of --pass-env and --env echoed to the model, on stdout and stderr, in every "
      "spelling, are in no output (GITHUB_TOKEN was quoted in certification.jsonl, x-api-key in the model HAR)",
      codes={1}, seconds=SECONDS)
def _(ws: Workspace) -> Run:
    scenario = ws.write("scenario.yaml", "scenario: 1\nroles: {harness: sdk, implementation: cli}\ntimeout: 60\n"
                        'files:\n  work/config.json: {url: "${model_url}"}\n'
                        "model: {api: anthropic-messages, turns: [{text: hello, times: always}]}\n"
                        "steps:\n  - expect: {match: {type: keep_alive}, timeout: 30}\n"
                        "  - expect: {match: {type: never}, timeout: 3}\n")
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", scenario, "--out-dir", str(ws.path("out")),
                "--format", "jsonl", "--pass-env", "GITHUB_TOKEN", "--env", f"MY_KEY={ANTHROPIC_KEY}", "--",
                sys.executable, ECHOING_AGENT, "GITHUB_TOKEN", "MY_KEY"],
               env={"GITHUB_TOKEN": GITHUB_TOKEN}, contracts=FAKE,
               expect=no_secret_in_any_output({GITHUB_TOKEN: "ghs_", ANTHROPIC_KEY: "sk-ant-api03-"}, (
                   "capture.framed.ndjson", "capture.model.har", "certification.jsonl", "certification.html",
                   "certification.md", "certification.txt", "certification.junit.xml", "stderr", "stdout")))


# A runtime that sends its xopc token as a bearer token and an Anthropic key in x-api-key, and quotes both,
# wrapped (the token double-percent-encoded, the key percent-encoded and escaped), in a value the certification
# quotes and on both its streams
WRAPPING_RUNTIME = """import json, sys, urllib.request
token, key = sys.argv[2], sys.argv[3]
wrapped = [token.replace("_", "%255F").replace("-", "%252D"), "".join("%%%02X" % b for b in key.encode()),
           "".join("\\\\u%04x" % ord(c) for c in key), key.upper()]
for spelled in wrapped:
    print("stdout:", spelled, flush=True)
    print("stderr:", spelled, file=sys.stderr, flush=True)
body = json.dumps({"leaseSeconds": ",".join(wrapped)}).encode()
request = urllib.request.Request(sys.argv[1] + "/agent/lease", data=body, method="POST", headers={
    "content-type": "application/json", "Authorization": "Bearer " + token, "X-Api-Key": key})
try:
    urllib.request.urlopen(request, timeout=30)
except Exception:
    pass
"""


@case("stub", "a runtime sending x-api-key and echoing it and its double-percent-encoded token everywhere",
      codes={1}, seconds=SECONDS)
def _(ws: Workspace) -> Run:
    return stub(ws, sys.executable, script(ws, "rt.py", WRAPPING_RUNTIME), "{url}", XOPC_TOKEN, ANTHROPIC_KEY,
                expect=no_secret_in_any_output({XOPC_TOKEN: "xopc_rt_", ANTHROPIC_KEY: "sk-ant-api03-"},
                                               ("stub.har", "certification.jsonl", "stderr")))


@case("probe", "a platform echoing the token double-percent-encoded (it reached certification.jsonl and stderr)",
      codes={1}, seconds=SECONDS)
def _(ws: Workspace) -> Run:
    return probe(ws, echoing_platform(_double_percent), "--token", XOPC_TOKEN,
                 expect=no_secret_in_any_output({XOPC_TOKEN: "xopc_rt_"}, ("probe.har", "certification.jsonl")))


@case("stub", "a runtime sending a key in every credential header, each echoed back in a body",
      codes={1}, seconds=SECONDS)
def _(ws: Workspace) -> Run:
    keys = {"x-goog-api-key": "AIzaSyGoogleKey0123456789abcdefGHIJ", "api-key": "azure0123456789abcdef0123456789",
            "Proxy-Authorization": "Basic " + base64.b64encode(b"proxy:proxy-password-123").decode()}
    body = "json.dumps(" + repr({"echo": " ".join(v.split(" ")[-1] for v in keys.values()) + " proxy-password-123"}) \
        + ").encode()"
    runtime = runtime_posting(body, XOPC_TOKEN, "/agent/heartbeat").replace(
        "'authorization': 'Bearer ' + token}", "'authorization': 'Bearer ' + token, **" + repr(keys) + "}")
    runtime = "import json\n" + runtime
    secrets = {value.split(" ")[-1]: "AIza" if value.startswith("AIza") else "" for value in keys.values()}
    return stub(ws, sys.executable, script(ws, "rt.py", runtime), "{url}",
                expect=no_secret_in_any_output({**secrets, "proxy-password-123": "", XOPC_TOKEN: "xopc_rt_"},
                                               ("stub.har",)))
