"""A tiny stand-in for `qodercli --print --output-format stream-json --input-format stream-json`.

Behaves like the real 1.1.23 binary's opening (system/init first), answers control requests by request_id, and
answers a user prompt with an assistant message and a result. `--mode` makes it misbehave:
ok | hang (never answers) | flood (prints without end) | crash (dies after init, once it has the first request)
| badline (a broken JSON line) | longline (one huge line) | signal (kills itself with SIGKILL) | noinit (skips
system/init) | wrongid | linger (keeps running after end of input, exits with status 1 on SIGTERM, as qodercli
does) | stubborn (keeps running after end of input and ignores SIGTERM).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

INIT = {"type": "system", "subtype": "init", "session_id": "s-1", "uuid": "00000000-0000-4000-8000-000000000001",
        "apiKeySource": "none", "cwd": "/work", "tools": [], "mcp_servers": [], "model": "auto",
        "permissionMode": "default", "slash_commands": [], "output_style": "default",
        "qodercli_version": "1.1.23", "protocol_version": "1.2.0"}


def emit(message) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "ok"
    # the harness gives a scratch HOME; prove it by writing there like the real CLI does
    home = os.environ.get("HOME", "")
    os.makedirs(os.path.join(home, ".qoder"), exist_ok=True)
    with open(os.path.join(home, ".qoder", "fake.log"), "w") as log:
        log.write("started\n")
    if mode == "flood":
        line = json.dumps({"type": "keep_alive"}) + "\n"
        while True:
            sys.stdout.write(line * 1000)
    if mode == "longline":
        sys.stdout.write('{"type": "keep_alive", "pad": "' + "x" * 300_000 + '"}\n')
        sys.stdout.flush()
    if mode != "noinit":
        emit(INIT)
    if mode == "crash":
        # take the initialize request first: a CLI gone before the harness wrote it would fail step 1 (its stdin
        # closed) instead of the step this mode means to break, as it did under load
        sys.stdin.readline()
        sys.stderr.write("fake_qoder: simulated crash\n")
        return 3
    if mode == "signal":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "badline":
        sys.stdout.write('{"type": "assistant", "message": \n')
        sys.stdout.flush()
    for raw in sys.stdin:
        if not raw.strip():
            continue
        message = json.loads(raw)
        if mode == "hang":
            time.sleep(3600)
        if message.get("type") == "control_request":
            request_id = message["request_id"] if mode != "wrongid" else "not-" + message["request_id"]
            subtype = message["request"].get("subtype") or message["request"].get("type")
            payload = {}
            if subtype == "initialize":
                payload = {"commands": [], "models": [], "account": {}}
            emit({"type": "control_response",
                  "response": {"subtype": "success", "request_id": request_id, "response": payload}})
        elif message.get("type") == "user":
            emit({"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002", "session_id": "s-1",
                  "parent_tool_use_id": None,
                  "message": {"id": "m1", "type": "message", "role": "assistant", "model": "<synthetic>",
                              "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn",
                              "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}})
            emit({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1,
                  "duration_api_ms": 0, "num_turns": 1, "result": "hello", "session_id": "s-1",
                  "total_cost_usd": 0, "usage": {"input_tokens": 0, "output_tokens": 0},
                  "uuid": "00000000-0000-4000-8000-000000000003", "permission_denials": []})
    if mode in ("linger", "stubborn"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN if mode == "stubborn" else lambda *_: sys.exit(1))
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
