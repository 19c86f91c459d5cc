"""A small stand-in for an ACP v1 agent or client on stdio (JSON-RPC 2.0, one message a line), for the default tests
of the live harness; the live tier (`nox -s certify-acp`) runs the real SDK examples instead.

`--role agent` behaves like the SDK 1.9.0 example agent (dist/examples/agent.js): initialize and session/new
answered (a random sessionId), a prompt gets session/update notifications, one session/request_permission (ids
from 0, as the SDK's jsonrpc.js numbers them) and end_turn; session/cancel ends a running turn with `cancelled`;
any other request is -32601 Method not found (core/jsonrpc.js). A prompt for a session it did not create is an error,
so a scenario that does not carry the returned sessionId fails. `--role client` plays the example client's flow:
initialize, session/new, one prompt, then exits once the turn ends; it answers fs/read_text_file and
fs/write_text_file."""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time

lock = threading.Lock()


def emit(message: dict) -> None:
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def update(session: str, text: str) -> None:
    emit({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": session, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text",
                                                                                           "text": text}}}})


class Agent:
    def __init__(self) -> None:
        self.sessions: set[str] = set()
        self.next_id = 0
        self.waiting: dict[int, threading.Event] = {}
        self.cancelled: dict[str, threading.Event] = {}

    def turn(self, request_id, session: str, cancel: threading.Event) -> None:
        update(session, "I'll help you with that.")
        if cancel.wait(0.3):
            emit({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "cancelled"}})
            return
        if self.next_id == 0:  # the first turn asks once, like the example
            asked = self.next_id
            self.next_id += 1
            answered = self.waiting[asked] = threading.Event()
            emit({"jsonrpc": "2.0", "id": asked, "method": "session/request_permission", "params": {
                "sessionId": session, "toolCall": {"toolCallId": "call_2", "title": "Edit", "kind": "edit",
                                                   "status": "pending"},
                "options": [{"kind": "allow_once", "name": "Allow", "optionId": "allow"},
                            {"kind": "reject_once", "name": "Skip", "optionId": "reject"}]}})
            answered.wait(10)
        update(session, "Done.")
        emit({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})

    def handle(self, message: dict) -> None:
        method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        if method is None:  # an answer to one of our requests
            event = self.waiting.get(request_id)
            if event is not None:
                event.set()
            return
        if method == "initialize":
            emit({"jsonrpc": "2.0", "id": request_id, "result": {"protocolVersion": 1,
                                                                 "agentCapabilities": {"loadSession": False}}})
        elif method == "session/new":
            session = secrets.token_hex(16)
            self.sessions.add(session)
            emit({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": session}})
        elif method == "session/prompt":
            session = params.get("sessionId")
            if session not in self.sessions:
                details = {"details": f"Session {session} not found"}
                emit({"jsonrpc": "2.0", "id": request_id,
                      "error": {"code": -32603, "message": "Internal error", "data": details}})
                return
            cancel = self.cancelled[session] = threading.Event()
            threading.Thread(target=self.turn, args=(request_id, session, cancel), daemon=True).start()
        elif method == "session/cancel":
            event = self.cancelled.get(params.get("sessionId"))
            if event is not None:
                event.set()
        elif request_id is not None:
            emit({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found",
                                                                "data": {"method": method}}})


def run_agent() -> int:
    agent = Agent()
    for line in sys.stdin:
        if line.strip():
            agent.handle(json.loads(line))
    return 0


def run_client() -> int:
    def request(request_id: int, method: str, params: dict) -> None:
        emit({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})

    def answer(expected_id: int) -> dict:
        for line in sys.stdin:
            message = json.loads(line)
            if message.get("id") == expected_id and "method" not in message:
                return message
            if message.get("method") == "fs/read_text_file":
                emit({"jsonrpc": "2.0", "id": message["id"], "result": {"content": "Mock file content"}})
            elif message.get("method") == "fs/write_text_file":
                emit({"jsonrpc": "2.0", "id": message["id"], "result": {}})
            elif "id" in message and "method" in message:
                emit({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601,
                                                                       "message": "Method not found"}})
        raise SystemExit(1)

    request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {
        "fs": {"readTextFile": True, "writeTextFile": True}}})
    answer(0)
    request(1, "session/new", {"cwd": "/tmp", "mcpServers": []})
    session = answer(1)["result"]["sessionId"]
    request(2, "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "Hello, agent!"}]})
    answer(2)
    time.sleep(0.05)
    return 0


if __name__ == "__main__":
    role = sys.argv[sys.argv.index("--role") + 1] if "--role" in sys.argv else "agent"
    sys.exit(run_agent() if role == "agent" else run_client())
