"""A consumer speaking wirecheck's line protocol, for the tests: its answer depends on the message."""

import json
import os
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    action = message.get("do") if isinstance(message, dict) else None
    if action == "hang":
        time.sleep(30)
    elif action == "exit":
        print("consumer gives up", file=sys.stderr, flush=True)
        sys.exit(3)
    elif action == "chatty":
        sys.stderr.write("log line\n" * 50_000)
        sys.stderr.flush()
        print("accept", flush=True)
    elif action == "garble":
        print("maybe", flush=True)
    elif action == "home":
        print("accept" if os.environ["HOME"].startswith(os.environ["TMPDIR"].rsplit("/", 1)[0]) else "reject",
              flush=True)
    elif action == "reject":
        print("reject because I was told to", flush=True)
    elif action == "ignore":
        print("ignore", flush=True)
    else:
        print("accept", flush=True)
