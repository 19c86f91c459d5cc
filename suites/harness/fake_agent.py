"""A tiny stand-in for an agent CLI in print mode (`claude -p PROMPT --output-format json`), for the scripted model
endpoint's tests: it reads its model's base URL from `config.json` in its working folder (written by the scenario),
asks the Anthropic Messages endpoint there, runs a `Bash` tool call it is given (writes `ran.txt`), sends the tool's
result back, and prints one result line: the last answer's text, or the HTTP status of an error, or the connection
error. `--env NAME` prints the variable's value instead of asking anything."""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request


def ask(url: str, messages: list) -> tuple[int, list]:
    body = json.dumps({"model": "fake-model", "stream": True, "messages": messages}).encode()
    request = urllib.request.Request(f"{url}/v1/messages", body, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            data = answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, []
    blocks: dict[int, dict] = {}
    for event in data.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in event.splitlines() if ": " in line)
        if "data" not in fields:
            continue
        value = json.loads(fields["data"])
        if value["type"] == "content_block_start":
            blocks[value["index"]] = dict(value["content_block"], partial="")
        elif value["type"] == "content_block_delta":
            delta = value["delta"]
            block = blocks[value["index"]]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                block["partial"] += delta["partial_json"]
    return 200, [blocks[i] for i in sorted(blocks)]


def main() -> int:
    if "--env" in sys.argv:
        print(json.dumps({"type": "result", "env": os.environ.get(sys.argv[sys.argv.index("--env") + 1])}))
        return 0
    with open("config.json") as config:
        url = json.load(config)["url"]
    if "--warmup" in sys.argv:  # a request of another conversation first, as Claude Code 2.0.77's "Warmup"
        ask(url, [{"role": "user", "content": "Warmup"}])
    messages: list = [{"role": "user", "content": sys.argv[-1]}]
    for turn in range(1, 5):
        try:
            status, blocks = ask(url, messages)
        except urllib.error.URLError as error:
            print(json.dumps({"type": "result", "is_error": True, "result": f"connection failed: {error.reason}"}))
            return 1
        if status != 200:
            print(json.dumps({"type": "result", "is_error": True, "api_error_status": status}))
            return 1
        calls = [b for b in blocks if b["type"] == "tool_use"]
        if not calls:
            text = "".join(b.get("text", "") for b in blocks)
            print(json.dumps({"type": "result", "is_error": False, "num_turns": turn, "result": text}))
            return 0
        with open("ran.txt", "w") as ran:
            ran.write(json.loads(calls[0]["partial"])["command"])
        # the history as the Messages API has it: the model's answer, then the tool's result
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": c["id"], "name": c["name"],
                                                           "input": json.loads(c["partial"])} for c in calls]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": calls[0]["id"],
                                                      "content": "ok"}]})
    return 2


if __name__ == "__main__":
    sys.exit(main())
