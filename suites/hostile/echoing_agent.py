"""A program under `certify --run` that echoes the secrets it was handed (the variables named on its command line)
in every spelling it can: to its scripted model (in a credential header and in a body), on stdout in values the
certification quotes, and on stderr, whose last lines a failed run's reports quote. None of it may reach an output.

    python echoing_agent.py VARIABLE...    (the scripted model's URL is in ./config.json, written by the scenario)
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import sys
import urllib.request


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def spellings(value: str) -> list[str]:
    escapes = "".join(f"\\u{ord(c):04x}" for c in value)
    return [value, value.upper(), _percent(value), _percent(_percent(value)),
            value.replace("_", "%255F").replace("-", "%252D"), escapes, json.dumps(json.dumps(escapes)[1:-1])[1:-1],
            "".join(f"&#{ord(c)};" for c in value), base64.b64encode(b"user:" + value.encode()).decode()]


def main() -> int:
    secrets = [os.environ[name] for name in sys.argv[1:]]
    every = [spelled for secret in secrets for spelled in spellings(secret)]
    with open("config.json") as config:
        url = json.load(config)["url"]
    body = json.dumps({"model": "m", "stream": False, "messages": [{"role": "user", "content": " ".join(every)}]})
    request = urllib.request.Request(f"{url}/v1/messages", body.encode(),
                                     {"content-type": "application/json", "x-api-key": secrets[-1]})
    with contextlib.suppress(OSError):
        urllib.request.urlopen(request, timeout=30).read()
    print(json.dumps({"type": "keep_alive"}), flush=True)
    for spelled in every:  # a session_id that is no string: its value is quoted in a finding
        print(json.dumps({"type": "assistant", "session_id": {"echo": spelled}, "message": {}}), flush=True)
    for spelled in every:
        print("my secret is", spelled, file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
