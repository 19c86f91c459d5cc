"""A real A2A exchange as a test subject: `nox -s certify-a2a` (opt-in: packages from npm, Node from the machine,
nothing else from the network; the server binds 127.0.0.1 only).

The A2A JavaScript SDK (@a2a-js/sdk 0.3.14, A2A v0.3) serves its README's streaming sample over HTTP
(suites/harness/data/live-a2a/a2a-js-server/server.mjs, copied beside the install, run by wirecheck.programs: no
shell, scratch HOME, reaped, a port of its own). The harness plays the A2A client over HTTP (stub/client.py, the one
HTTP client, every exchange recorded in a HAR by stub/har.py): it fetches the Agent Card, sends `message/send`, asks
`tasks/get` for the task it made, streams `message/stream` (Server-Sent Events), asks `tasks/cancel` of the finished
task (A2A's TaskNotCancelableError) and a method A2A lacks (-32601). The HAR is certified for the role `server` of
a2a@0.3.0 imported from fixtures/a2a-schema with its mapping (the Agent Card a document kind of its own), as
capture/http.py reads JSON-RPC over HTTP: each POST body a message from the client, each answer, and each event of a
streamed answer, a message from the server.

`--record` writes capture.har and outcome.json (package, version, command, date, script sha256, Node, the calls,
statuses) into the data folder; the default tests (suites/harness/test_live_a2a_recorded.py) replay them.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from wirecheck.certify.pipeline import certify_captures
from wirecheck.certify.report import FORMATS, write_folder
from wirecheck.contracts import load_registry
from wirecheck.harness.jsonrpc_live import Subject, install, node_version
from wirecheck.programs.program import Program, Scratch, resolve_program

DATA = Path("suites/harness/data/live-a2a/a2a-js-server")
A2A = Path("fixtures/a2a-schema")
SUBJECT = Subject("a2a-js-server", "@a2a-js/sdk", "0.3.14", "dist/server/index.js", [], "a2a@0.3.0", "server",
                  "a2a-http-session", script=DATA / "server.mjs", extras=("express@5.1.0",))
START_SECONDS = 30.0  # until the Agent Card is served
CALL_SECONDS = 30.0  # one call, a streamed answer included


def a2a_contracts(into: Path) -> Path:
    """a2a@0.3.0 imported from A2A's published schema with its mapping (the Agent Card, tasks/resubscribe)."""
    from wirecheck.importer.jsonrpc import import_schema

    import_schema(A2A / "0.3.0" / "a2a.json", package="a2a", version="0.3.0", out=into,
                  mapping_path=A2A / "0.3.0" / "mapping.yaml", license_path=A2A / "LICENSE",
                  source_ref="a2aproject/A2A v0.3.0 specification/json/a2a.json")
    return into


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rpc(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()


def _message(text: str, message_id: str) -> dict[str, Any]:
    return {"message": {"kind": "message", "messageId": message_id, "role": "user",
                        "parts": [{"kind": "text", "text": text}]}}


def converse(base: str, recorder: Any) -> list[dict[str, Any]]:
    """The client's side of the exchange; each call as the outcome records it."""
    from wirecheck.stub.client import HttpClient

    client = HttpClient(base, token="", timeout=CALL_SECONDS, recorder=recorder)
    json_headers = {"content-type": "application/json", "accept": "application/json"}
    calls: list[dict[str, Any]] = []

    def call(method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Any:
        answer = client.call(method, base + path, body, headers, auth=False)
        calls.append({"call": f"{method} {path} {json.loads(body)['method'] if body else ''}".strip(),
                      "status": answer.status, "content_type": answer.headers.get("content-type", "")})
        return answer

    call("GET", "/.well-known/agent-card.json", None, {"accept": "application/json"})
    sent = call("POST", "/", _rpc(1, "message/send", _message("hello from wirecheck", "m-1")), json_headers)
    task = json.loads(sent.body or b"{}").get("result", {}).get("id", "no-task")
    call("POST", "/", _rpc(2, "tasks/get", {"id": task}), json_headers)
    call("POST", "/", _rpc(3, "message/stream", _message("stream it", "m-2")),
         {"content-type": "application/json", "accept": "text/event-stream"})
    call("POST", "/", _rpc(4, "tasks/cancel", {"id": task}), json_headers)  # finished: not cancelable
    call("POST", "/", _rpc(5, "wirecheck/nothing", {}), json_headers)  # a method A2A lacks: -32601
    return calls


def run(out: Path, data: Path) -> dict[str, Any]:
    from wirecheck.stub.client import CallFailed, HttpClient
    from wirecheck.stub.har import HarRecorder

    folder = install(SUBJECT)
    assert SUBJECT.script is not None
    shutil.copy(SUBJECT.script, folder / SUBJECT.script.name)
    node = resolve_program("node")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    out.mkdir(parents=True, exist_ok=True)
    recorder = HarRecorder(creator="wirecheck a2a_live")
    problem = None
    with Scratch.create() as scratch, (out / "server.stderr").open("wb") as stderr:
        argv = [node, str(folder / SUBJECT.script.name)]
        with Program(argv, env=scratch.env({"A2A_PORT": str(port)}), cwd=folder, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=stderr, scratch=scratch) as server:
            started = time.monotonic()
            while True:  # until the Agent Card is served (these polls are not the exchange)
                try:
                    HttpClient(base, token="", timeout=2.0, recorder=HarRecorder()).call(
                        "GET", base + "/.well-known/agent-card.json", None, {}, auth=False)
                    break
                except CallFailed:
                    if server.poll() is not None or time.monotonic() - started > START_SECONDS:
                        problem = f"the server did not serve its Agent Card within {START_SECONDS:g} s"
                        break
                    time.sleep(0.2)
            calls: list[dict[str, Any]] = []
            if problem is None:
                try:
                    calls = converse(base, recorder)
                except CallFailed as exc:
                    problem = str(exc)
            server.stop()
    capture = recorder.write(out / "capture.har")
    contracts = a2a_contracts(Path(tempfile.mkdtemp(prefix="wirecheck-a2a-contracts-")))
    release = load_registry(contracts).load(SUBJECT.contract)
    scope = data / "scope.yaml"
    cert = certify_captures(release, [capture], role=SUBJECT.role, baseline=scope if scope.is_file() else None)
    write_folder(cert, out)
    shutil.rmtree(contracts, ignore_errors=True)
    manifest = json.loads((folder / "node_modules" / SUBJECT.package / "package.json").read_text(encoding="utf-8"))
    return {
        "subject": SUBJECT.name, "package": SUBJECT.package, "version": manifest.get("version"),
        "installed_with": f"npm install {SUBJECT.package}@{SUBJECT.version} {' '.join(SUBJECT.extras)} (express: the "
                          "SDK's optional peer dependency for its Express integration)",
        "command": ["node", SUBJECT.script.name], "listen": "127.0.0.1 (a free port)",
        "script_sha256": hashlib.sha256((folder / SUBJECT.script.name).read_bytes()).hexdigest(),
        "node": node_version(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "contract": SUBJECT.contract, "role": SUBJECT.role, "calls": calls, "run_problem": problem,
        "verdict": cert.verdict, "exit_code": cert.exit_code, "badge": cert.badge.message,
        "statuses": {r.requirement.id: r.status for r in cert.results},
        "_cert": cert,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.harness.a2a_live", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("reports/certify/live-a2a"))
    parser.add_argument("--data", type=Path, default=DATA, help="where the scope file is read and --record writes")
    parser.add_argument("--record", action="store_true", help="copy the capture and the outcome into --data")
    args = parser.parse_args(argv)
    try:
        outcome = run(args.out, args.data)
    except RuntimeError as exc:
        print(f"== {SUBJECT.name}: not run: {exc}")
        return 2
    cert = outcome.pop("_cert")
    print(f"== {SUBJECT.name} ({SUBJECT.package}@{outcome['version']}, {SUBJECT.contract}, role {SUBJECT.role}): "
          f"{cert.verdict} — {cert.badge.message}")
    if outcome["run_problem"]:
        print(f"   run problem: {outcome['run_problem']}")
    for call in outcome["calls"]:
        print(f"   {call['call']:<40} {call['status']} {call['content_type']}")
    FORMATS["text"](cert, sys.stdout)
    (args.out / "outcome.json").write_text(json.dumps(outcome, indent=2) + "\n", encoding="utf-8")
    if args.record:
        args.data.mkdir(parents=True, exist_ok=True)
        shutil.copy(args.out / "capture.har", args.data / "capture.har")
        (args.data / "outcome.json").write_text(json.dumps(outcome, indent=2) + "\n", encoding="utf-8")
    return 5 if outcome["run_problem"] else cert.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
