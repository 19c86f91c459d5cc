"""Hostile programs and platforms for the commands that run someone else's program or serve a socket: `certify
--run`, `stub`, `probe`, `fuzz-consumer`, end to end. Registered with hostile_cases.case and run by the one runner
(test_hostile.py), under the same guarantees as every other hostile case; these add exit code 5 (run failed) where
nothing was heard from the program or platform, and the verdict where one is owed. A case's program runs under
wirecheck's own reaper; whatever it starts and wirecheck fails to end is found by the runner's (a process that left
the group) or in the case's process group.
"""

from __future__ import annotations

import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from hostile_cases import FAKE, SUITES, Interrupt, Run, Workspace, case, stderr_says

HOSTILE_CLI = str(SUITES / "harness" / "hostile_cli.py")
DEMO_CONTRACTS = str(SUITES / "data" / "contracts")
SECONDS = 240.0  # a live case's budget on a loaded machine; every case's own limits end it far sooner


def live(command: str, name: str, codes: set[int], *, large: bool = False) -> Callable[..., Any]:
    return case(command, name, codes=codes, seconds=SECONDS, large=large)


# -- helpers the cases use -----------------------------------------------------------------------------------------


def script(ws: Workspace, name: str, text: str) -> str:
    return ws.write(name, text)


def scenario(ws: Workspace, *steps: str, timeout: float = 20) -> str:
    body = "\n".join(f"  - {step}" for step in steps)
    return ws.write("scenario.yaml", f"scenario: 1\nroles: {{harness: sdk, implementation: cli}}\n"
                                     f"timeout: {timeout}\nsteps:\n{body}\n")


def certify_run(ws: Workspace, program: list[str], *steps: str, extra: tuple[str, ...] = (),
                expect: Callable[[Any], object] | None = None) -> Run:
    steps = steps or ("expect: {match: {type: keep_alive}, timeout: 5}", "wait_exit: {timeout: 5}")
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", scenario(ws, *steps), "--out-dir",
                str(ws.path("out")), "--format", "jsonl", *extra, "--", *program], contracts=FAKE, expect=expect)


def printing(ws: Workspace, output: bytes) -> list[str]:
    path = ws.write("output.bin", output)
    return [sys.executable, "-c", f"import sys; sys.stdout.buffer.write(open({path!r}, 'rb').read())"]


def footer(finished: Any) -> dict:
    return orjson.loads((finished.root / "out" / "certification.jsonl").read_bytes().splitlines()[-1])


def requirement(finished: Any, suffix: str) -> dict:
    lines = (finished.root / "out" / "certification.jsonl").read_bytes().splitlines()
    return next(r for r in map(orjson.loads, lines) if r.get("id", "").endswith(suffix))


def reports_written(finished: Any) -> None:
    har = next((finished.root / "out").glob("*.har"))
    assert orjson.loads(har.read_bytes())["log"]["entries"], "the HAR is empty"
    assert footer(finished)["verdict"] in ("certified", "not certified")


def fails_well_formed(finished: Any) -> None:
    assert requirement(finished, "-WELL-FORMED")["status"] == "fail"


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


def probe(ws: Workspace, answer: Callable[[socket.socket, bytes], None], *extra: str,
          expect: Callable[[Any], object] | None = None) -> Run:
    return Run(["probe", "xopc@0.0.253", ws.platform(answer), "--timeout", "5", "--out-dir", str(ws.path("out")),
                "--format", "jsonl", "--contracts", str(SUITES.parent / "contracts"), *extra], expect=expect)


def stub(ws: Workspace, *runtime: str, seconds: float = 60, expect: Callable[[Any], object] | None = None) -> Run:
    return Run(["stub", "xopc@0.0.253", "--max-seconds", str(seconds), "--out-dir", str(ws.path("out")), "--format",
                "jsonl", "--contracts", str(SUITES.parent / "contracts"), "--", *runtime], expect=expect)


def consumer(ws: Workspace, body: str, expect: Callable[[Any], object] | None = None) -> Run:
    return Run(["fuzz-consumer", "demo@1.0.0", "--contracts", DEMO_CONTRACTS, "--kind", "hello", "--count", "2",
                "--valid-only", "--no-shrink", "--timeout", "1", "--", sys.executable,
                script(ws, "consumer.py", body)], expect=expect)


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


def token_in_no_output(finished: Any) -> None:
    secret = PROBE_TOKEN.removeprefix("xopc_rt_")
    written = {path.name: path.read_bytes() for path in (finished.root / "out").iterdir()}
    assert "certification.md" in written and any(name.endswith(".har") for name in written)
    assert [name for name, data in written.items() if secret.encode() in data] == []
    assert secret not in finished.stdout and secret not in finished.stderr


# a token with upper-case letters: its percent-encoded and \\u-escaped spellings leaked (issue 31, 2b); its secret
# part, quoted without the `xopc_rt_` prefix, leaked in every spelling (2c)
CASED_TOKEN = "xopc_rt_S3CRET-Hostile-Token-0123456789ABCdef"


def spellings(text: str) -> list[str]:
    """`text` as an echo may spell it: as it is, upper case, percent-encoded (either hex case), JSON escapes."""
    return [text, text.upper(), "".join(f"%{b:02X}" for b in text.encode()),
            "".join(f"%{b:02x}" for b in text.encode()), "".join(f"\\u{ord(c):04x}" for c in text),
            "".join(f"\\u{ord(c):04X}" for c in text)]


def echoed(token: str) -> list[str]:
    """Every spelling of the token and of its secret part alone."""
    return spellings(token) + spellings(token.removeprefix("xopc_rt_"))


def no_spelling_in_any_output(token: str, also_cut_in: tuple[str, ...] = ()) -> Callable[[Any], None]:
    """No spelling of `token`'s secret part in stdout, stderr or any file written to out/ (the HAR, every report)."""
    needles = [needle.lower() for needle in spellings(token.removeprefix("xopc_rt_"))]

    def check(finished: Any) -> None:
        written = {path.name: path.read_bytes() for path in (finished.root / "out").iterdir()}
        assert "certification.jsonl" in written and any(name.endswith(".har") for name in written)
        outputs = {**{name: data.decode("utf-8", "replace") for name, data in written.items()},
                   "stdout": finished.stdout, "stderr": finished.stderr}
        leaks = {name: [n for n in needles if n in text.lower()] for name, text in outputs.items()}
        leaked = {name: found for name, found in leaks.items() if found}
        assert leaked == {}, f"spellings of the token's secret part in {leaked}"
        cut = [name for name, text in outputs.items() if "<redacted" in text]  # the echoes were there, and were cut
        assert {"certification.jsonl", *also_cut_in} <= set(cut), f"what was redacted: {cut}"
    return check


ECHOING_RUNTIME = """import json, sys, urllib.request
token, spelled = sys.argv[2], json.loads(sys.argv[3])
for spelling in spelled:
    print("stdout: my token is", spelling, flush=True)
    print("stderr: my token is", spelling, file=sys.stderr, flush=True)
body = json.dumps({"leaseSeconds": ",".join(spelled)}).encode()
request = urllib.request.Request(sys.argv[1] + "/agent/lease", data=body, method="POST",
                                 headers={"content-type": "application/json", "authorization": "Bearer " + token})
try:
    urllib.request.urlopen(request, timeout=30)
except Exception:
    pass
for spelling in spelled:
    print("stdout: again", spelling, flush=True)
    print("stderr: again", spelling, file=sys.stderr, flush=True)
"""


def echoing_platform(spell: Callable[[str], str]) -> Callable[[socket.socket, bytes], None]:
    """A platform that echoes the bearer token it gets, as `spell` spells it, in a header and in the lease answer's
    expiry (a value the certification quotes)."""
    def answer(conn: socket.socket, head: bytes) -> None:
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        token = headers.get("authorization", "").removeprefix("Bearer ")
        echo = spell(token) if token else ""
        if " /.well-known/" in lines[0]:
            http_answer(200, discovery(f"http://{headers.get('host', '')}/agent"))(conn, head)
        elif " /agent/lease " in lines[0]:
            http_answer(200, orjson.dumps({"command": {"id": "c", "leaseExpiresAt": echo}}),
                        f"x-echo: {echo}\r\n")(conn, head)
        else:
            http_answer(200, b'{"ok": true}', f"x-echo: {echo}\r\n")(conn, head)
    return answer


# every spelling of the token, and of its secret part alone
echoing_cased_token = echoing_platform(lambda token: ",".join(echoed(token)))


DAEMON = """import os, sys, time
if os.fork() == 0:
    os.setsid()
    for fd in (0, 1, 2):
        os.close(fd)
    os.execve("/bin/sleep", ["sleep", "300"], {})
time.sleep(0.5)
"""


def runtime_posting(body: str, token: str = "xopc_rt_aaaaaaaaaaaa", path: str = "/agent/heartbeat") -> str:
    """A runtime that POSTs `body` (Python source of bytes) to the stub once, with `token`."""
    return ("import sys, urllib.request\n"
            f"token = {token!r}\nbody = {body}\n"
            f"req = urllib.request.Request(sys.argv[1] + {path!r}, data=body, method='POST', "
            "headers={'content-type': 'application/json', 'authorization': 'Bearer ' + token})\n"
            "try:\n    urllib.request.urlopen(req, timeout=30)\nexcept Exception:\n    pass\n")


# -- certify --run: the program under test is hostile --------------------------------------------------------------


@live("certify", "--run: a raw carriage return inside a JSON string", {1})
def _(ws: Workspace) -> Run:
    return certify_run(ws, printing(ws, b'{"type": "keep_alive", "text": "a\rb"}\n'), expect=fails_well_formed)


@live("certify", "--run: bytes that are not UTF-8, a NUL, a lone surrogate escape", {1}, large=True)
def _(ws: Workspace) -> Run:
    return certify_run(ws, printing(ws, b'{"type": "keep_alive", "s": "\xff\xfe"}\n\x00\n'
                                        b'{"type": "keep_alive", "s": "\\ud800"}\n'), expect=fails_well_formed)


@live("certify", "--run: a 1 MiB send to a program that never reads", {5}, large=True)
def _(ws: Workspace) -> Run:
    return certify_run(ws, [sys.executable, "-c", "import time; time.sleep(300)"],
                       "send: {type: user, text: " + "x" * (1 << 20) + "}", "close_stdin: true",
                       expect=lambda o: "did not read its input" in footer(o)["run"]["problem"])


@live("certify", "--run: a setsid daemon that drops its whole environment", {5})
def _(ws: Workspace) -> Run:
    return certify_run(ws, [sys.executable, script(ws, "daemon.py", DAEMON)],
                       expect=lambda o: "left its process group" in str(footer(o)["run"]["problems"]))


@live("certify", "--run: a program that kills its parent", {5}, large=True)
def _(ws: Workspace) -> Run:
    return certify_run(ws, [sys.executable, "-c", "import os, signal, time; os.kill(os.getppid(), signal.SIGKILL); "
                                                  "time.sleep(300)"],
                       expect=lambda o: "the reaper ended before the command" in str(footer(o)["run"]["problems"]))


@live("certify", "--run: children that leave the group as fast as they can", {1}, large=True)
def _(ws: Workspace) -> Run:
    return certify_run(ws, [sys.executable, "-c", "import os, time\nfor _ in range(40):\n"
                                                  "    if os.fork() == 0:\n        os.setsid(); time.sleep(300); "
                                                  "os._exit(0)\nprint('{\"type\": \"keep_alive\"}', flush=True)\n"
                                                  "time.sleep(300)"])


@live("certify", "--run: a flood of tiny lines", {1}, large=True)
def _(ws: Workspace) -> Run:
    return certify_run(ws, [sys.executable, HOSTILE_CLI, "tiny"], "sleep: 30", extra=("--max-output-bytes", "1048576"))


@live("certify", "--run: a 100 MiB line", {1}, large=True)
def _(ws: Workspace) -> Run:
    # written a MiB at a time: the peak measured is that of the largest process, and the program is one
    return certify_run(ws, [sys.executable, "-c",
                            "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * (1 << 20))"])


# -- stub: the runtime client is hostile ---------------------------------------------------------------------------


@live("stub", "a runtime that posts a lone surrogate", {1}, large=True)
def _(ws: Workspace) -> Run:
    body = "b'{\"capabilities\": {\"engine\": \"\\\\ud800\"}, \"endpoint\": \"\\\\udfff\"}'"
    return stub(ws, sys.executable, script(ws, "rt.py", runtime_posting(body)), "{url}", expect=reports_written)


@live("stub", "a runtime quoting its own token where a number belongs", {1})
def _(ws: Workspace) -> Run:
    body = "('{\"leaseSeconds\": \"' + token + '\"}').encode()"
    return stub(ws, sys.executable, script(ws, "rt.py", runtime_posting(body, PROBE_TOKEN, "/agent/lease")), "{url}",
                expect=lambda o: token_in_no_output(o) is None
                and '/leaseSeconds: expected a number, found the string "xopc_rt_<redacted' in o.stderr)


@live("stub", "a runtime echoing a mixed-case token, encoded and without its prefix, on stdout, stderr and in a body",
      {1})
def _(ws: Workspace) -> Run:
    return stub(ws, sys.executable, script(ws, "rt.py", ECHOING_RUNTIME), "{url}", CASED_TOKEN,
                orjson.dumps(echoed(CASED_TOKEN)).decode(), expect=no_spelling_in_any_output(CASED_TOKEN, ("stderr",)))


SLEEPER = """import pathlib, sys, time
pathlib.Path(sys.argv[1]).write_text("started")
time.sleep(300)
"""


def started(root: Path, pid: int) -> bool:
    return (root / "started").exists()


def no_scratch_left(finished: Any) -> None:
    left = sorted(path.name for path in (finished.root / "tmp").iterdir())
    assert left == [], f"left in TMPDIR: {left}"


@live("stub", "SIGKILL to wirecheck while its runtime runs: the reaper removes the scratch folder", {0})
def _(ws: Workspace) -> Run:
    ws.path("tmp").mkdir()
    run = stub(ws, sys.executable, script(ws, "rt.py", SLEEPER), str(ws.path("started")), expect=no_scratch_left)
    run.env["TMPDIR"] = str(ws.path("tmp"))
    run.interrupt = Interrupt(signal.SIGKILL, started)
    return run


@live("certify", "--run: SIGKILL to wirecheck while the program runs: the reaper removes the scratch folder", {0},
      large=True)
def _(ws: Workspace) -> Run:
    ws.path("tmp").mkdir()
    run = certify_run(ws, [sys.executable, script(ws, "rt.py", SLEEPER), str(ws.path("started"))], "sleep: 60",
                      expect=no_scratch_left)
    run.env["TMPDIR"] = str(ws.path("tmp"))
    run.interrupt = Interrupt(signal.SIGKILL, started)
    return run


@live("stub", "a runtime that cannot be started", {2}, large=True)
def _(ws: Workspace) -> Run:
    return stub(ws, str(ws.root))


@live("stub", "a runtime that daemonizes without environment", {5})
def _(ws: Workspace) -> Run:
    return stub(ws, sys.executable, script(ws, "daemon.py", DAEMON),
                expect=lambda o: "left its process group" in o.stderr)


@live("stub", "300 connections dripping their headers, then a real request: it reaches the stub at once", {1, 4})
def _(ws: Workspace) -> Run:
    # each dripping connection held one of the 32 workers until its header deadline: the real request came after
    # 89 s, past its own 50 s timeout (issue 31)
    return stub(ws, sys.executable, script(ws, "rt.py", (
        "import socket, sys, threading, time, urllib.request\n"
        "host, port = sys.argv[1].removeprefix('http://').split(':')\n"
        "socks = [socket.create_connection((host, int(port))) for _ in range(300)]\n"
        "def drip():\n"
        "    while True:\n"
        "        for s in socks:\n"
        "            try:\n                s.send(b'G')\n            except OSError:\n                pass\n"
        "        time.sleep(0.5)\n"
        "threading.Thread(target=drip, daemon=True).start()\n"
        "time.sleep(1)\n"
        "started = time.monotonic()\n"
        "try:\n"
        "    urllib.request.urlopen(sys.argv[1] + '/.well-known/xopc-platform', timeout=50).read()\n"
        "    print('the real request was answered after %.1f s' % (time.monotonic() - started), file=sys.stderr)\n"
        "except OSError as exc:\n"
        "    print('the real request failed:', exc, file=sys.stderr)\n")), "{url}",
        expect=stderr_says("the real request was answered"))


@live("stub", "a runtime that opens 200 connections and drips their headers", {5}, large=True)
def _(ws: Workspace) -> Run:
    return stub(ws, sys.executable, script(ws, "rt.py", (
        "import socket, sys, time\n"
        "host, port = sys.argv[1].removeprefix('http://').split(':')\n"
        "socks = [socket.create_connection((host, int(port))) for _ in range(200)]\n"
        "for _ in range(200):\n"
        "    for s in socks:\n"
        "        try:\n            s.send(b'G')\n        except OSError:\n            pass\n"
        "    time.sleep(0.1)\n")), "{url}", seconds=15)


# -- probe: the platform is hostile --------------------------------------------------------------------------------


@live("probe", "a platform redirecting to another host", {1})
def _(ws: Workspace) -> Run:
    return probe(ws, http_answer(302, b"", "location: http://localhost:9/elsewhere\r\n"),
                 expect=lambda o: "redirected to another host" in footer(o)["run"]["problem"])


@live("probe", "a platform announcing a plain-http agentApi elsewhere", {1}, large=True)
def _(ws: Workspace) -> Run:
    return probe(ws, http_answer(200, discovery("http://localhost:9/agent")),
                 expect=lambda o: "not sent" in footer(o)["run"]["problem"])


@live("probe", "a platform announcing an https agentApi on another host", {1}, large=True)
def _(ws: Workspace) -> Run:
    return probe(ws, http_answer(200, discovery("https://localhost:9/agent")),
                 expect=lambda o: "another host than the base URL's" in footer(o)["run"]["problem"])


@live("probe", "a platform echoing the token in JSON escapes", {1})
def _(ws: Workspace) -> Run:
    return probe(ws, echoing_token, "--token", PROBE_TOKEN, expect=token_in_no_output)


@live("probe", "a platform echoing a mixed-case token percent-encoded, \\u-escaped and without its prefix", {1})
def _(ws: Workspace) -> Run:
    return probe(ws, echoing_cased_token, "--token", CASED_TOKEN, expect=no_spelling_in_any_output(CASED_TOKEN))


@live("probe", "a platform answering 100 MiB", {1}, large=True)
def _(ws: Workspace) -> Run:
    return probe(ws, http_answer(200, b"[" * (100 << 20)))


@live("probe", "a platform that does not speak HTTP", {5})
def _(ws: Workspace) -> Run:
    return probe(ws, lambda conn, head: conn.sendall(b"\x00\xff" * 1000))


# -- fuzz-consumer: the consumer is hostile ------------------------------------------------------------------------


@live("fuzz-consumer", "a consumer that never reads", {5})
def _(ws: Workspace) -> Run:
    return consumer(ws, "import time\ntime.sleep(300)\n")


@live("fuzz-consumer", "a consumer that prints without end", {1}, large=True)
def _(ws: Workspace) -> Run:
    return consumer(ws, "import sys\nwhile True:\n    sys.stdout.write('a' * 65536)\n")


@live("fuzz-consumer", "a consumer that daemonizes without environment", {0, 1})
def _(ws: Workspace) -> Run:
    return consumer(ws, DAEMON + "import sys\nfor line in sys.stdin:\n    print('accept', flush=True)\n",
                    expect=lambda o: "left its process group" in o.stderr)


@live("fuzz-consumer", "a consumer that kills its parent", {0, 1}, large=True)
def _(ws: Workspace) -> Run:
    return consumer(ws, "import os, signal, sys\nos.kill(os.getppid(), signal.SIGKILL)\n"
                        "for line in sys.stdin:\n    print('accept', flush=True)\n",
                    expect=lambda o: "the reaper ended before the command" in o.stderr)
