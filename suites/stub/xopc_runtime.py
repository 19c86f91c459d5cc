"""A small xopc runtime of our own, for certifying the stub's verdicts: `python xopc_runtime.py BASE_URL [options]`.

It does what the 0.0.253 worker does (xopcai/xopc d5c0989 src/platform/client.ts, worker.ts): discovery under the
base URL's path (query, fragment and trailing slashes dropped), optionally a heartbeat, then leases until the platform
has no work (204); for each command it reports `xopc.run.started` (sequence 1), renews every max(1 s, min(30 s, a
third of the time to the lease's expiry)) while it works (worker.ts:54), and reports one terminal event (sequence 2).
When it stops renewing is the variant under test:

- `first`: the renewal timer is stopped, and a renewal in flight awaited, before the terminal event is reported;
- `late`: as worker.ts at d5c0989: the terminal event is reported first and the timer stopped in `finally`
  (worker.ts:70, :79), so a renewal can fire while the terminal report waits for its answer;
- `never`: no renewal at all (correct only for runs shorter than their lease).

Broken twins of the worker, for the behaviour a certificate covers (issue 37), each one option:

- `--on-refusal retry`: a call the platform refuses (5xx) or leaves unanswered (a dropped connection) is sent again,
  the same body (the same eventId: the platform answers a re-delivery `duplicate`), until it is accepted; the default,
  `exit`, is the worker's (client.ts throws on any answer that is not ok, and the run ends with it: under
  `--fault events=503` the run is never terminated);
- `--renew-id run`: renewals name the run id instead of the command id (`/commands/{runId}/renew`, an id this
  runtime never leased), with the command's lease token;
- `--ignore-cancel N`: the run goes on past N renewal answers that ask for its cancellation and reports
  `xopc.run.succeeded`; by default a `cancelRequested: true` ends the work and the run reports `xopc.run.cancelled`
  (worker.ts:60 aborts the run's signal, :69 and :74-75 report it `xopc.run.cancelled`).

Exit status 0 when the platform went idle, 1 on any failure (printed on stderr).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

TOKEN = "xopc_rt_wirecheck_test_runtime_000000000000"
TERMINAL_OK = "xopc.run.succeeded"


RETRIES = 20  # `--on-refusal retry`: attempts per call before giving up
RETRY_SECONDS = 0.2


class Refused(RuntimeError):
    """A call the platform did not take: `passing` when sending it again may help (a 5xx, no answer at all)."""

    def __init__(self, text: str, passing: bool):
        super().__init__(text)
        self.passing = passing


class Client:
    def __init__(self, agent_api: str, timeout: float, retry: bool = False):
        self.agent_api = agent_api.rstrip("/")
        self.timeout = timeout
        self.retry = retry

    def post(self, path: str, body: object) -> tuple[int, object]:
        data = json.dumps(body).encode()  # once: a retry sends the same eventId
        for attempt in range(1, RETRIES + 1):
            try:
                return self._post(path, data)
            except Refused as refused:
                if not (self.retry and refused.passing) or attempt == RETRIES:
                    raise
                print(f"xopc_runtime: {refused}; sending it again", file=sys.stderr)
                time.sleep(RETRY_SECONDS)
        raise AssertionError("unreachable")

    def _post(self, path: str, data: bytes) -> tuple[int, object]:
        request = urllib.request.Request(
            self.agent_api + path, data=data, method="POST",
            headers={"authorization": f"Bearer {TOKEN}", "content-type": "application/json",
                     "accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, data = response.status, response.read()
        except urllib.error.HTTPError as error:
            raise Refused(f"POST {path}: HTTP {error.code}", error.code >= 500) from None
        except OSError as error:  # the connection dropped without an answer
            raise Refused(f"POST {path}: no answer ({error})", True) from None
        if not 200 <= status < 300:
            raise RuntimeError(f"POST {path}: HTTP {status}")
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None


def discover(base_url: str, timeout: float) -> str:
    parts = urllib.parse.urlsplit(base_url)
    url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/.well-known/xopc-platform",
                                   "", ""))
    with urllib.request.urlopen(urllib.request.Request(url, headers={"accept": "application/json"}),
                                timeout=timeout) as response:
        document = json.loads(response.read())
    if document["capabilities"].get("runtimeFleet") is not True or not document["endpoints"].get("agentApi"):
        raise RuntimeError("the platform provides no runtime fleet")
    return document["endpoints"]["agentApi"]


def event(command: dict, kind: str, sequence: int, payload: dict) -> dict:
    p = command["payload"]
    return {"schemaVersion": "1", "eventId": f"event_{uuid.uuid4()}", "type": kind,
            "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "organizationId": p["organizationId"], "workspaceId": p["workspaceId"], "runId": command["runId"],
            "traceId": p["traceId"], "sequence": sequence, "producer": p["runtimeId"], "payload": payload}


class Renewal:
    """The worker's renewal timer: a tick every `interval` seconds renews unless a renewal is in flight."""

    def __init__(self, client: Client, command: dict, interval: float, renew_id: str = "command"):
        self.client, self.command, self.interval = client, command, interval
        self.renewed = command["id"] if renew_id == "command" else command["runId"]
        self.stopped = threading.Event()
        self.in_flight = threading.Lock()
        self.cancel_requested = False
        self.cancels = 0  # renewal answers that asked for cancellation
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(self.interval):
            if not self.in_flight.acquire(blocking=False):
                continue  # `if (renewing) return`
            try:
                path = f"/commands/{urllib.parse.quote(self.renewed, safe='')}/renew"
                _, answer = self.client.post(path, {"leaseToken": self.command["leaseToken"], "leaseSeconds": 60})
                if isinstance(answer, dict) and answer.get("cancelRequested") is True:
                    self.cancel_requested = True
                    self.cancels += 1
            except Exception as exc:  # worker.ts:62 aborts the run, and :56 renews no more
                self.error = str(exc)
                self.stopped.set()
            finally:
                self.in_flight.release()

    def stop(self) -> None:
        """clearInterval, then `await renewalInFlight`."""
        self.stopped.set()
        with self.in_flight:
            pass


def run_command(client: Client, command: dict, args: argparse.Namespace) -> None:
    token = command["leaseToken"]
    client.post("/events", {"event": event(command, "xopc.run.started", 1, {}), "leaseToken": token})
    interval = max(1.0, min(30.0, (command["leaseExpiresAt"] - time.time() * 1000) / 3 / 1000))
    renewal = Renewal(client, command, interval, args.renew_id) if args.stop_renewing != "never" else None
    deadline = time.monotonic() + args.work_seconds
    # the work ends at its deadline, or once cancellation was asked (past --ignore-cancel such answers)
    enough = max(args.ignore_cancel, 1)
    while time.monotonic() < deadline and not (renewal and renewal.cancels >= enough):
        time.sleep(min(0.05, max(deadline - time.monotonic(), 0)))
    if renewal is not None and args.stop_renewing == "first":
        renewal.stop()
    elif renewal is not None:  # worker.ts:68 `await renewalInFlight`, the timer still running
        with renewal.in_flight:
            pass
    cancelled = renewal is not None and renewal.cancel_requested and not args.ignore_cancel
    if renewal is not None and renewal.error:
        terminal = event(command, "xopc.run.failed", 2, {"error": renewal.error})
    elif cancelled:
        terminal = event(command, "xopc.run.cancelled", 2, {})
    else:
        terminal = event(command, TERMINAL_OK, 2, {"output": {"text": "done"}})
    try:
        client.post("/events", {"event": terminal, "leaseToken": token})
    finally:
        if renewal is not None:
            renewal.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url")
    parser.add_argument("--stop-renewing", choices=("first", "late", "never"), default="first")
    parser.add_argument("--work-seconds", type=float, default=0.0, help="how long each run works")
    parser.add_argument("--heartbeat", action="store_true")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--max-leases", type=int, default=20)
    parser.add_argument("--on-refusal", choices=("exit", "retry"), default="exit")
    parser.add_argument("--renew-id", choices=("command", "run"), default="command")
    parser.add_argument("--ignore-cancel", type=int, default=0, metavar="N",
                        help="work on past N renewal answers asking for cancellation, then report succeeded")
    args = parser.parse_args(argv)
    try:
        client = Client(discover(args.base_url, args.timeout), args.timeout, args.on_refusal == "retry")
        if args.heartbeat:
            client.post("/heartbeat", {"capabilities": {"engine": "xopc"}, "endpoint": "test-runtime",
                                       "leaseSeconds": 30})
        for _ in range(args.max_leases):
            status, answer = client.post("/lease", {"leaseSeconds": 30})
            if status == 204:
                return 0
            run_command(client, answer["command"], args)
    except Exception as exc:
        print(f"xopc_runtime: {exc}", file=sys.stderr)
        return 1
    print("xopc_runtime: the platform never went idle", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
