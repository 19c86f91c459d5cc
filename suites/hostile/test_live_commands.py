"""Hostile inputs for the commands that run someone else's program or serve a socket: `certify --run`, `stub`,
`probe`, `fuzz-consumer`, end to end. Each case runs `python -m wirecheck ...` under a memory budget (RLIMIT_AS,
inherited by whatever it starts) and a time budget, and asserts an exit code in the case's set (a subset of
{0, 1, 2, 5}: never 3, never a signal; 5, run failed, where nothing was heard from the program or platform), the
verdict where one is owed, and that nothing was left running: the case's
wirecheck is itself started as a `wirecheck.programs.Program`, whose reaper adopts and names every process left
behind once wirecheck has exited.

The cases are a table (`CASES`: id, arguments, exit codes, an optional check) run by `run_case`, so the
hostile-input framework can take them over as they are. Cheap cases run by default; `slow` ones in the slow tier.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from wirecheck.programs.program import Program

HERE = Path(__file__).resolve().parent
SUITES = HERE.parent
HOSTILE_CLI = str(SUITES / "harness" / "hostile_cli.py")
FAKE_CONTRACTS = str(SUITES / "harness" / "data" / "contracts")
DEMO_CONTRACTS = str(SUITES / "data" / "contracts")
MEMORY_BUDGET = 3 << 30  # address space, for wirecheck and all it starts (Python threads reserve 8 MiB of it each)
TIME_BUDGET = 240.0  # seconds for one case on a loaded machine; every case's own limits end it far sooner
NEVER = frozenset({3})

LAUNCH = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ["wirecheck", *sys.argv[2:]]
from wirecheck.cli.app import main
main()
"""


@dataclass
class Outcome:
    code: int | None
    stdout: bytes
    stderr: bytes
    left_behind: list[str]
    work: Path


@dataclass(frozen=True)
class Case:
    id: str
    argv: Callable[[Path, str], list[str]]  # (work folder, a URL the case's platform serves, if any) → arguments
    codes: frozenset[int]
    check: Callable[[Outcome], None] | None = None
    platform: Callable[[socket.socket, bytes], None] | None = None  # answers each connection (probe cases)
    slow: bool = False


def run_case(case: Case, work: Path) -> Outcome:
    with platform_server(case.platform) as url:
        argv = case.argv(work, url)
        out, err = (work / "wirecheck.out").open("wb"), (work / "wirecheck.err").open("wb")
        with out, err:
            wirecheck = Program([sys.executable, "-c", LAUNCH, str(MEMORY_BUDGET), *argv],
                                env={**__import__("os").environ, "WIRECHECK_CONTRACTS": FAKE_CONTRACTS},
                                cwd=work, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            code = wirecheck.wait(TIME_BUDGET)
            left_behind = wirecheck.stop(grace=5.0)  # wirecheck is gone: whatever the reaper still finds was left
    return Outcome(code, (work / "wirecheck.out").read_bytes(), (work / "wirecheck.err").read_bytes(), left_behind,
                   work)


# -- helpers the cases use ---------------------------------------------------------------------------------------


def script(work: Path, name: str, text: str) -> str:
    path = work / name
    path.write_text(text)
    return str(path)


def scenario(work: Path, *steps: str, timeout: float = 20) -> str:
    body = "\n".join(f"  - {step}" for step in steps)
    return script(work, "scenario.yaml", f"scenario: 1\nroles: {{harness: sdk, implementation: cli}}\n"
                                         f"timeout: {timeout}\nsteps:\n{body}\n")


def certify_run(work: Path, program: list[str], *steps: str, extra: tuple[str, ...] = ()) -> list[str]:
    return ["certify", "fakeqoder@1.0.0", "--run", "--scenario",
            scenario(work, *(steps or ("expect: {match: {type: keep_alive}, timeout: 5}", "wait_exit: {timeout: 5}"))),
            "--out-dir", str(work / "out"), "--format", "jsonl", *extra, "--", *program]


def printing(work: Path, output: bytes) -> list[str]:
    (work / "output.bin").write_bytes(output)
    return [sys.executable, "-c", f"import sys; sys.stdout.buffer.write(open({str(work / 'output.bin')!r}, 'rb')"
                                  ".read())"]


def footer(outcome: Outcome) -> dict:
    return orjson.loads((outcome.work / "out" / "certification.jsonl").read_bytes().splitlines()[-1])


def requirement(outcome: Outcome, suffix: str) -> dict:
    lines = (outcome.work / "out" / "certification.jsonl").read_bytes().splitlines()
    return next(r for r in map(orjson.loads, lines) if r.get("id", "").endswith(suffix))


def reports_written(outcome: Outcome) -> None:
    har = next((outcome.work / "out").glob("*.har"))
    assert orjson.loads(har.read_bytes())["log"]["entries"], "the HAR is empty"
    assert footer(outcome)["verdict"] in ("certified", "not certified")


@contextlib.contextmanager
def platform_server(answer: Callable[[socket.socket, bytes], None] | None) -> Iterator[str]:
    """A 127.0.0.1 server handing each connection's request head to `answer`; its base URL."""
    if answer is None:
        yield ""
        return
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    listener.settimeout(0.2)
    done = threading.Event()

    def serve_one(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.settimeout(30)
            head = b""
            while b"\r\n\r\n" not in head and (chunk := conn.recv(65536)):
                head += chunk
            answer(conn, head)

    def serve() -> None:
        while not done.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                threading.Thread(target=serve_one, args=(listener.accept()[0],), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(10)
        listener.close()


def http_answer(status: int, body: bytes, headers: str = "") -> Callable[[socket.socket, bytes], None]:
    def answer(conn: socket.socket, head: bytes) -> None:
        conn.sendall(f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
                     f"connection: close\r\n{headers}\r\n".encode() + body)

    return answer


def discovery(agent_api: str) -> bytes:
    from wirecheck.stub.xopc import discovery_document

    document = discovery_document("http://127.0.0.1:1")
    document["endpoints"]["agentApi"] = agent_api
    return orjson.dumps(document)


def probe(work: Path, url: str) -> list[str]:
    return ["probe", "xopc@0.0.253", url, "--timeout", "5", "--out-dir", str(work / "out"), "--format", "jsonl",
            "--contracts", str(SUITES.parent / "contracts")]


def stub(work: Path, *runtime: str, seconds: float = 60) -> list[str]:
    return ["stub", "xopc@0.0.253", "--max-seconds", str(seconds), "--out-dir", str(work / "out"), "--format",
            "jsonl", "--contracts", str(SUITES.parent / "contracts"), "--", *runtime]


def consumer(work: Path, body: str, *extra: str) -> list[str]:
    return ["fuzz-consumer", "demo@1.0.0", "--contracts", DEMO_CONTRACTS, "--kind", "hello", "--count", "2",
            "--valid-only", "--no-shrink", "--timeout", "1", *extra, "--", sys.executable,
            script(work, "consumer.py", body)]


PROBE_TOKEN = "xopc_rt_hostile-probe-secret-0123456789"


def echoing_token(conn: socket.socket, head: bytes) -> None:
    """A platform that echoes the bearer token it gets, spelled with JSON \\u escapes, in a field the
    certification quotes (a lease answer's expiry)."""
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    token = headers.get("authorization", "").removeprefix("Bearer ")
    if " /.well-known/" in lines[0]:
        http_answer(200, discovery(f"http://{headers.get('host', '')}/agent"))(conn, head)
    elif " /agent/lease " in lines[0]:
        escaped = "".join(f"\\u{ord(c):04x}" for c in token)
        http_answer(200, b'{"command": {"id": "c", "leaseExpiresAt": "%s"}}' % escaped.encode())(conn, head)
    else:
        http_answer(200, b'{"ok": true}')(conn, head)


def token_in_no_output(outcome: Outcome) -> None:
    secret = PROBE_TOKEN.removeprefix("xopc_rt_").encode()
    written = {path.name: path.read_bytes() for path in (outcome.work / "out").iterdir()}
    assert "certification.md" in written and any(name.endswith(".har") for name in written)
    assert [name for name, data in written.items() if secret in data] == []
    assert secret not in outcome.stdout and secret not in outcome.stderr


def fails_well_formed(outcome: Outcome) -> None:
    assert requirement(outcome, "-WELL-FORMED")["status"] == "fail"


DAEMON = """import os, sys, time
if os.fork() == 0:
    os.setsid()
    for fd in (0, 1, 2):
        os.close(fd)
    os.execve("/bin/sleep", ["sleep", "300"], {})
time.sleep(0.5)
"""

CASES = [
    # -- certify --run: the program under test is hostile ----------------------------------------------------
    Case("certify-run: a raw carriage return inside a JSON string",
         lambda w, _: certify_run(w, printing(w, b'{"type": "keep_alive", "text": "a\rb"}\n')),
         frozenset({1}), fails_well_formed),
    Case("certify-run: bytes that are not UTF-8, a NUL, a lone surrogate escape",
         lambda w, _: certify_run(w, printing(w, b'{"type": "keep_alive", "s": "\xff\xfe"}\n\x00\n'
                                                 b'{"type": "keep_alive", "s": "\\ud800"}\n')),
         frozenset({1}), fails_well_formed, slow=True),
    Case("certify-run: a 1 MiB send to a program that never reads",
         lambda w, _: certify_run(w, [sys.executable, "-c", "import time; time.sleep(300)"],
                                  "send: {type: user, text: " + "x" * (1 << 20) + "}", "close_stdin: true"),
         frozenset({5}), lambda o: "did not read its input" in footer(o)["run"]["problem"], slow=True),
    Case("certify-run: a setsid daemon that drops its whole environment",
         lambda w, _: certify_run(w, [sys.executable, script(w, "daemon.py", DAEMON)]),
         frozenset({5}), lambda o: "left its process group" in str(footer(o)["run"]["problems"])),
    Case("certify-run: a program that kills its parent",
         lambda w, _: certify_run(w, [sys.executable, "-c", "import os, signal, time; os.kill(os.getppid(), "
                                                            "signal.SIGKILL); time.sleep(300)"]),
         frozenset({5}), lambda o: "the reaper ended before the command" in str(footer(o)["run"]["problems"]),
         slow=True),
    Case("certify-run: children that leave the group as fast as they can",
         lambda w, _: certify_run(w, [sys.executable, "-c", "import os, time\nfor _ in range(40):\n"
                                      "    if os.fork() == 0:\n        os.setsid(); time.sleep(300); os._exit(0)\n"
                                      "print('{\"type\": \"keep_alive\"}', flush=True)\ntime.sleep(300)"]),
         frozenset({1}), slow=True),
    Case("certify-run: a flood of tiny lines",
         lambda w, _: certify_run(w, [sys.executable, HOSTILE_CLI, "tiny"], "sleep: 30", extra=(
             "--max-output-bytes", "1048576")), frozenset({1}), slow=True),
    Case("certify-run: a 100 MiB line",
         lambda w, _: certify_run(w, [sys.executable, "-c", "import sys; sys.stdout.write('x' * (100 << 20))"]),
         frozenset({1}), slow=True),
    # -- stub: the runtime client is hostile --------------------------------------------------------------------
    Case("stub: a runtime that posts a lone surrogate",
         lambda w, _: stub(w, sys.executable, script(w, "rt.py", (
             "import sys, urllib.request\n"
             "body = b'{\"capabilities\": {\"engine\": \"\\\\ud800\"}, \"endpoint\": \"\\\\udfff\"}'\n"
             "req = urllib.request.Request(sys.argv[1] + '/agent/heartbeat', data=body, method='POST', "
             "headers={'content-type': 'application/json', 'authorization': 'Bearer xopc_rt_aaaaaaaaaaaa'})\n"
             "try:\n    urllib.request.urlopen(req, timeout=30)\nexcept Exception:\n    pass\n")), "{url}"),
         frozenset({1}), reports_written, slow=True),
    Case("stub: a runtime quoting its own token where a number belongs",
         lambda w, _: stub(w, sys.executable, script(w, "rt.py", (
             "import sys, urllib.request\n"
             f"token = {PROBE_TOKEN!r}\n"
             "body = ('{\"leaseSeconds\": \"' + token + '\"}').encode()\n"
             "req = urllib.request.Request(sys.argv[1] + '/agent/lease', data=body, method='POST', "
             "headers={'content-type': 'application/json', 'authorization': 'Bearer ' + token})\n"
             "try:\n    urllib.request.urlopen(req, timeout=30)\nexcept Exception:\n    pass\n")), "{url}"),
         frozenset({1}), lambda o: token_in_no_output(o) is None and b'/leaseSeconds: "xopc_rt_<redacted' in o.stderr),
    Case("stub: a runtime that cannot be started",
         lambda w, _: stub(w, str(w)), frozenset({2}), slow=True),
    Case("stub: a runtime that daemonizes without environment",
         lambda w, _: stub(w, sys.executable, script(w, "daemon.py", DAEMON)),
         frozenset({5}), lambda o: b"left its process group" in o.stderr),
    Case("stub: a runtime that opens 200 connections and drips their headers",
         lambda w, _: stub(w, sys.executable, script(w, "rt.py", (
             "import socket, sys, time\n"
             "host, port = sys.argv[1].removeprefix('http://').split(':')\n"
             "socks = [socket.create_connection((host, int(port))) for _ in range(200)]\n"
             "for _ in range(200):\n"
             "    for s in socks:\n"
             "        try:\n            s.send(b'G')\n        except OSError:\n            pass\n"
             "    time.sleep(0.1)\n")), "{url}", seconds=15), frozenset({5}), slow=True),
    # -- probe: the platform is hostile -------------------------------------------------------------------------
    Case("probe: a platform redirecting to another host",
         lambda w, url: probe(w, url), frozenset({1}),
         lambda o: "redirected to another host" in footer(o)["run"]["problem"],
         platform=http_answer(302, b"", "location: http://localhost:9/elsewhere\r\n")),
    Case("probe: a platform announcing a plain-http agentApi elsewhere",
         lambda w, url: probe(w, url), frozenset({1}),
         lambda o: "not sent" in footer(o)["run"]["problem"],
         platform=http_answer(200, discovery("http://localhost:9/agent")), slow=True),
    Case("probe: a platform announcing an https agentApi on another host",
         lambda w, url: probe(w, url), frozenset({1}),
         lambda o: "another host than the base URL's" in footer(o)["run"]["problem"],
         platform=http_answer(200, discovery("https://localhost:9/agent")), slow=True),
    Case("probe: a platform echoing the token in JSON escapes",
         lambda w, url: [*probe(w, url), "--token", PROBE_TOKEN], frozenset({1}), token_in_no_output,
         platform=echoing_token),
    Case("probe: a platform answering 100 MiB",
         lambda w, url: probe(w, url), frozenset({1}),
         platform=http_answer(200, b"[" * (100 << 20)), slow=True),
    Case("probe: a platform that does not speak HTTP",
         lambda w, url: probe(w, url), frozenset({5}),
         platform=lambda conn, head: conn.sendall(b"\x00\xff" * 1000)),
    # -- fuzz-consumer: the consumer is hostile -----------------------------------------------------------------
    Case("fuzz-consumer: a consumer that never reads",
         lambda w, _: consumer(w, "import time\ntime.sleep(300)\n"), frozenset({5})),
    Case("fuzz-consumer: a consumer that prints without end",
         lambda w, _: consumer(w, "import sys\nwhile True:\n    sys.stdout.write('a' * 65536)\n"),
         frozenset({1}), slow=True),
    Case("fuzz-consumer: a consumer that daemonizes without environment",
         lambda w, _: consumer(w, DAEMON + "import sys\nfor line in sys.stdin:\n    print('accept', flush=True)\n"),
         frozenset({0, 1}), lambda o: b"left its process group" in o.stderr),
    Case("fuzz-consumer: a consumer that kills its parent",
         lambda w, _: consumer(w, "import os, signal, sys\nos.kill(os.getppid(), signal.SIGKILL)\n"
                                  "for line in sys.stdin:\n    print('accept', flush=True)\n"),
         frozenset({0, 1}), lambda o: b"the reaper ended before the command" in o.stderr, slow=True),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else [])
                                  for c in CASES])
def test_hostile_live_command(case: Case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    assert outcome.code is not None, f"still running after {TIME_BUDGET:g} s"
    assert outcome.code >= 0, f"killed by signal {-outcome.code}: {outcome.stderr[-2000:]!r}"
    assert outcome.code not in NEVER and b"Traceback" not in outcome.stderr, outcome.stderr[-3000:]
    assert outcome.code in case.codes, (outcome.code, outcome.stderr[-3000:])
    assert outcome.left_behind == [], outcome.left_behind
    if case.check is not None:
        assert case.check(outcome) is not False, outcome.stderr[-3000:]
