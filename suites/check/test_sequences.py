"""Behaviour obligations (contracts/behaviour.py, check/sequences.py, check/outcome.py): every form kept and broken,
on the demo contract with a behaviour.yaml written for each test. A breach names its obligation, at its level."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from wirecheck.check.engine import CheckOptions, check_captures
from wirecheck.contracts import ContractError, load_registry
from wirecheck.findings import Severity

DEMO = Path(__file__).resolve().parents[1] / "data" / "contracts"
READER = {"consumer": "client", "reaction": "misreads",
          "provenance": {"source": "test", "at": ["suites/data/contracts: the demo's reader"]}}
HELLO = {"type": "hello", "version": "1.0.0"}
TEXT = {"type": "event", "payload": {"kind": "text", "text": "hi"}}
PROCESS = {"role": "server", "exit_status": 0, "signal": None, "stopped_by_harness": False, "ended_by": None,
           "stopped_at": None, "input_closed_at": 0.5, "last_output_at": 1.0, "exited_at": 1.2, "final_newline": True}


def job(job_id: str, copy: str | None = None) -> dict:
    return {"type": "job", "id": job_id, "payload": {"id": copy or job_id}}


def ping(request_id: str) -> dict:
    return {"type": "request", "request_id": request_id, "request": {"subtype": "ping"}}


def pong(request_id: str, value: int = 1) -> dict:
    return {"type": "response", "response": {"request_id": request_id, "subtype": "success",
                                             "payload": {"pong": value}}}


def release_with(tmp_path: Path, obligations: list[dict], keys: dict | None = None):
    root = tmp_path / "contracts"
    shutil.copytree(DEMO, root)
    behaviour = {"obligations": [{"id": f"OB-{i}", "level": "MUST", "subject": "server", "says": "a test",
                                  "reader": READER, **o} for i, o in enumerate(obligations)]}
    if keys:
        behaviour["keys"] = keys
    (root / "demo" / "1.0.0" / "behaviour.yaml").write_bytes(orjson.dumps(behaviour))
    return load_registry(root).load("demo@1.0.0")


def plain(tmp_path: Path, messages: list[dict], name: str = "c.jsonl") -> str:
    path = tmp_path / name
    path.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in messages))
    return str(path)


def framed(tmp_path: Path, frames: list[tuple[str, dict]], process: dict | None = None) -> str:
    lines = [{"wirecheck_capture": 1, "framing": "directed"}] + [{"from": s, "message": m} for s, m in frames]
    if process is not None:
        lines.append({"process": process})
    return plain(tmp_path, lines, "f.framed.ndjson")


def breaches(release, capture: str, whole: bool = False):
    result = check_captures(release, [capture], CheckOptions(whole=whole))
    return [f for f in result.findings if f.obligation is not None], result


def test_first(tmp_path):
    release = release_with(tmp_path, [{"first": {"kinds": ["hello"]}}])
    assert breaches(release, plain(tmp_path, [HELLO, TEXT]))[0] == []
    (found,), result = breaches(release, plain(tmp_path, [TEXT, HELLO]))
    assert (found.code, found.obligation, found.line, found.found) == ("ORDER", "OB-0", 1, "event")
    assert result.judged == {"OB-0": 1}


def test_last_presence_on_any_capture_absence_on_a_whole_one(tmp_path):
    release = release_with(tmp_path, [{"last": {"kinds": ["hello"]}}])
    assert breaches(release, plain(tmp_path, [TEXT, HELLO]))[0] == []
    (after,), _ = breaches(release, plain(tmp_path, [HELLO, TEXT, TEXT]))
    assert (after.code, after.line) == ("ORDER", 2)  # reported once, at the first message after it
    # a capture that may be cut short: its last message being no `hello` is not known to be wrong
    assert breaches(release, plain(tmp_path, [TEXT]))[0] == []
    (missing,), _ = breaches(release, plain(tmp_path, [TEXT]), whole=True)
    assert "the last message from server is event" in missing.message
    # a message of no kind after it counts: the reader takes whatever comes last
    (unknown,), _ = breaches(release, plain(tmp_path, [HELLO, {"type": "mystery"}]))
    assert unknown.line == 2


def test_count_at_most_and_at_least(tmp_path):
    release = release_with(tmp_path, [{"count": {"kinds": ["hello"], "exactly": 1}}])
    assert breaches(release, plain(tmp_path, [HELLO, TEXT]), whole=True)[0] == []
    (second,), _ = breaches(release, plain(tmp_path, [HELLO, TEXT, HELLO, HELLO]))
    assert (second.code, second.line, second.severity) == ("COUNT", 3, Severity.ERROR)
    assert breaches(release, plain(tmp_path, [TEXT]))[0] == []  # not whole: too few is not judged
    (none,), _ = breaches(release, plain(tmp_path, [TEXT]), whole=True)
    assert none.found == "0" and "no hello" in none.message


def test_count_per_key_for_each(tmp_path):
    keys = {"job": {"job": "/id", "event": "/payload/id"}}
    release = release_with(tmp_path, [{"count": {"kinds": ["event"], "where": {"/payload/kind": "text"},
                                                 "exactly": 1, "per": "job", "for_each": {"kinds": ["job"]}}}], keys)
    done = {"type": "event", "payload": {"kind": "text", "text": "x", "id": "a"}}
    # the demo's event union has no member with an id: the key is read all the same (the schema is another check)
    found, _ = breaches(release, plain(tmp_path, [job("a"), done, job("b")]), whole=True)
    assert [(f.code, f.line) for f in found] == [("COUNT", 3)]  # job b never got its event
    assert "of job \"b\"" in found[0].message


def test_alternates(tmp_path):
    release = release_with(tmp_path, [{"alternates": {"open": {"kinds": ["hello"]}, "close": {"kinds": ["job"]}}}])
    assert breaches(release, plain(tmp_path, [HELLO, TEXT, job("a"), HELLO, job("b")]), whole=True)[0] == []
    found, _ = breaches(release, plain(tmp_path, [job("a"), HELLO, HELLO]), whole=True)
    assert [(f.code, f.line) for f in found] == [("ORDER", 1), ("ORDER", 3), ("ORDER", 3)]
    assert "without an open" in found[0].message and "still open" in found[1].message
    assert "never followed" in found[2].message


def test_unique_over_array_items(tmp_path):
    release = release_with(tmp_path, [{"unique": {"kinds": ["hello"], "at": {"each": "/features", "at": ""}}}])
    with_features = [{**HELLO, "features": ["a", "b"]}, {**HELLO, "features": ["c"]}]
    assert breaches(release, plain(tmp_path, with_features))[0] == []
    (dup,), _ = breaches(release, plain(tmp_path, [*with_features, {**HELLO, "features": ["b"]}]))
    assert (dup.code, dup.line, dup.found) == ("UNIQUE", 3, '"b"') and "line 1" in dup.message


def test_refers_and_once(tmp_path):
    release = release_with(tmp_path, [{"refers": {"kinds": ["event"], "at": "/payload/id",
                                                  "to": {"kinds": ["job"], "at": "/id"}, "once": True}}])
    about = {"type": "event", "payload": {"kind": "text", "text": "x", "id": "a"}}
    assert breaches(release, plain(tmp_path, [job("a"), about]))[0] == []
    found, _ = breaches(release, plain(tmp_path, [about, job("a"), about, about]))
    assert [(f.code, f.line) for f in found] == [("REFERENCE", 1), ("REFERENCE", 4)]
    assert "names no job seen before it" in found[0].message and "a second time" in found[1].message


def test_negotiated_message_and_reply(tmp_path):
    release = release_with(tmp_path, [{"negotiated": {"kinds": ["hello"], "at": "/version"}},
                                      {"negotiated": {"kinds": ["request.ping"], "at": "/response/payload/pong",
                                                      "reply": True, "equals": ["7"]}, "subject": "server"}])
    (version,), _ = breaches(release, plain(tmp_path, [{**HELLO, "version": "2.0.0"}]))
    assert (version.code, version.obligation, version.expected) == ("NEGOTIATED_VERSION", "OB-0", "1.0.0")
    found, _ = breaches(release, framed(tmp_path, [("server", HELLO), ("client", ping("1")), ("server", pong("1"))]))
    assert [(f.obligation, f.line, f.found) for f in found] == [("OB-1", 4, "1")]


def test_leads_to_per_key_tied_through_another_message(tmp_path):
    keys = {"run": {"job": "/payload/id", "event": "/payload/id"}, "ticket": {"job": "/id"}}
    cancel = {"kinds": ["job"]}
    ends = {"kinds": ["event"], "where": {"/payload/kind": "text"}}
    then = {"kinds": ["event"], "where": {"/payload/text": "cancelled"}}
    release = release_with(tmp_path, [{"leads_to": {"after": cancel, "then": then, "ends": ends, "per": "run"}}],
                           keys)

    def end(run: str, text: str) -> dict:
        return {"type": "event", "payload": {"kind": "text", "text": text, "id": run}}

    assert breaches(release, plain(tmp_path, [job("t1", "r1"), end("r1", "cancelled")]), whole=True)[0] == []
    (wrong,), _ = breaches(release, plain(tmp_path, [job("t1", "r1"), end("r2", "done"), end("r1", "done")]))
    assert (wrong.code, wrong.line) == ("LEADS_TO", 3) and 'run "r1"' in wrong.message
    (never,), _ = breaches(release, plain(tmp_path, [job("t1", "r1")]), whole=True)
    assert "never ends" in never.message


def test_leads_to_during_counts_an_after_only_while_its_thing_is_under_way(tmp_path):
    """ACP's AGENT-HONOURS-CANCEL: a cancel (here a hello naming the run) asks the end of a turn under way (a job
    began it, an event ends it) to be `cancelled`; one sent before the turn began or after it ended asks nothing."""
    keys = {"run": {"job": "/payload/id", "event": "/payload/id", "hello": "/run"}}
    ends = {"kinds": ["event"], "where": {"/payload/kind": "text"}}
    then = {"kinds": ["event"], "where": {"/payload/text": "cancelled"}}
    release = release_with(tmp_path, [{"leads_to": {"after": {"kinds": ["hello"]}, "during": {"kinds": ["job"]},
                                                    "then": then, "ends": ends, "per": "run"}}], keys)

    def end(run: str, text: str) -> dict:
        return {"type": "event", "payload": {"kind": "text", "text": text, "id": run}}

    cancel = {**HELLO, "run": "r1"}
    assert breaches(release, plain(tmp_path, [job("t1", "r1"), cancel, end("r1", "cancelled")]), whole=True)[0] == []
    # before the turn began, and after it ended: no turn under way, nothing asked (nor owed at the end)
    assert breaches(release, plain(tmp_path, [cancel, job("t1", "r1"), end("r1", "done")]), whole=True)[0] == []
    assert breaches(release, plain(tmp_path, [job("t1", "r1"), end("r1", "done"), cancel]), whole=True)[0] == []
    (wrong,), result = breaches(release, plain(tmp_path, [job("t1", "r1"), cancel, end("r1", "done")]))
    assert (wrong.code, wrong.line) == ("LEADS_TO", 3) and result.judged == {"OB-0": 1}
    # the next turn of the same run is under way again
    (again,), _ = breaches(release, plain(tmp_path, [job("t1", "r1"), end("r1", "done"), job("t2", "r1"), cancel,
                                                     end("r1", "done")]))
    assert again.line == 5
    (never,), _ = breaches(release, plain(tmp_path, [job("t1", "r1"), cancel]), whole=True)
    assert "never ends" in never.message


def test_a_turn_ends_with_the_answer_to_its_own_request_only(tmp_path):
    """ACP's cancel obligations follow a prompt turn from its session/prompt to the answer to that request (and a
    permission request to its answer): the monitor is shown those answers by the correlation, not every agent or
    client response. So answers to other requests stay the correlation's alone (a worker settles them: check/parts.py),
    and an answer to a later request that reuses a finished prompt's id ends nothing: it was read as the end of the
    cancelled turn (the session named through the old prompt id), a false AGENT-HONOURS-CANCEL breach."""
    from wirecheck.check.sequences import Sequences

    release = load_registry().load("acp@2.4.0")
    sequences = Sequences(release, lambda *a: [], lambda *a, **k: None)
    assert not {"agent.response", "client.response"} & sequences.watched
    assert sequences.replies_read == {"agent.session.prompt", "client.session.request_permission"}
    lines = (Path(__file__).resolve().parents[2] / "fixtures" / "acp" / "2.4.0" / "valid" / "cancel.ndjson") \
        .read_bytes().splitlines()
    cancelled = lines.pop()
    assert b'"stopReason": "cancelled"' in cancelled
    reused = [{"from": "client", "message": {"jsonrpc": "2.0", "id": 3, "method": "session/new",
                                             "params": {"cwd": "/tmp", "mcpServers": []}}},
              {"from": "agent", "message": {"jsonrpc": "2.0", "id": 3, "result": {"sessionId": "s-2"}}}]
    capture = tmp_path / "reused.ndjson"
    capture.write_bytes(b"\n".join([*lines, *map(orjson.dumps, reused), cancelled]) + b"\n")
    found, result = breaches(release, str(capture), whole=True)
    assert found == [] and result.judged["AGENT-HONOURS-CANCEL"] == 1
    # the answer to the cancelled prompt itself still ends it, and is judged
    capture.write_bytes(b"\n".join([*lines, cancelled.replace(b'"cancelled"', b'"end_turn"')]) + b"\n")
    (wrong,), _ = breaches(release, str(capture), whole=True)
    assert (wrong.obligation, wrong.line) == ("AGENT-HONOURS-CANCEL", len(lines) + 1)

def test_answered_at_its_level_and_only_for_its_sender(tmp_path):
    release = release_with(tmp_path, [{"answered": {"from": "client"}, "subject": "server", "level": "MUST"}])
    found, result = breaches(release, framed(tmp_path, [("client", ping("1")), ("client", ping("2")),
                                                        ("server", pong("1"))]))
    assert [(f.code, f.obligation, f.severity, f.line) for f in found] == [
        ("REQUEST_WITHOUT_RESPONSE", "OB-0", Severity.ERROR, 3)]
    assert result.judged == {"OB-0": 2}
    # without the obligation the same capture gets the built-in warning, no obligation
    plain_release = load_registry(DEMO).load("demo@1.0.0")
    result = check_captures(plain_release, [framed(tmp_path, [("client", ping("1"))])])
    (finding,) = [f for f in result.findings if f.code == "REQUEST_WITHOUT_RESPONSE"]
    assert finding.obligation is None and finding.severity is Severity.WARNING


def test_process_obligations(tmp_path):
    release = release_with(tmp_path, [
        {"exit_status": {"equals": 0, "when": {"kinds": ["hello"]}}},
        {"exits": {"within": 5, "after": "end_of_input"}},
        {"final_newline": {}, "level": "SHOULD", "reader": {**READER, "reaction": "tolerates"}}])
    ok, result = breaches(release, framed(tmp_path, [("server", HELLO)], PROCESS))
    assert ok == [] and result.judged == {"OB-0": 1, "OB-1": 1, "OB-2": 1}
    bad = {**PROCESS, "exit_status": 1, "final_newline": False, "exited_at": 9.0}
    found, _ = breaches(release, framed(tmp_path, [("server", HELLO)], bad))
    assert [(f.code, f.severity) for f in found] == [
        ("EXIT_STATUS", Severity.ERROR), ("EXIT", Severity.ERROR), ("FINAL_NEWLINE", Severity.WARNING)]
    assert "exited 8.5 s after the end of its input" in found[1].message
    # the last message is not a `when` one: the status is not judged
    _, result = breaches(release, framed(tmp_path, [("server", TEXT)], bad))
    assert "OB-0" not in result.judged
    hung = {**PROCESS, "exit_status": None, "stopped_by_harness": True, "ended_by": "SIGTERM", "stopped_at": 60.0,
            "exited_at": None}
    found, _ = breaches(release, framed(tmp_path, [("server", HELLO)], hung))
    assert [f.code for f in found] == ["EXIT_STATUS", "EXIT"] and "did not exit" in found[1].message
    crashed = {**PROCESS, "exit_status": None, "signal": "SIGSEGV", "exited_at": 1.0}
    found, _ = breaches(release, framed(tmp_path, [("server", HELLO)], crashed))
    assert "killed by SIGSEGV" in found[1].message
    # a harness that waited less than the bound cannot show a hang
    found, result = breaches(release, framed(tmp_path, [("server", HELLO)], {**hung, "stopped_at": 2.0}))
    assert [f.code for f in found] == ["EXIT_STATUS"] and "OB-1" not in result.judged
    # no process record: nothing judged, nothing broken
    found, result = breaches(release, framed(tmp_path, [("server", HELLO)]))
    assert found == [] and result.judged == {}


@pytest.mark.parametrize("process, problem", [
    ({**PROCESS, "exit_status": "0"}, "process/exit_status"),
    ({**PROCESS, "exited_at": -1.0}, "process/exited_at"),
    ({k: v for k, v in PROCESS.items() if k != "signal"}, "lacks signal"),
    ({**PROCESS, "extra": 1}, "unknown member"),
    # (attack-input F1) a status no program can exit with; a record that says no way, or two ways, of ending
    ({**PROCESS, "exit_status": -9}, "an exit status is 0 to 255"),
    ({**PROCESS, "exit_status": 256}, "an exit status is 0 to 255"),
    ({**PROCESS, "exit_status": None}, "says none of exit_status, signal and stopped_by_harness"),
    ({**PROCESS, "signal": "SIGKILL"}, "says exit_status and signal"),
    ({**PROCESS, "exit_status": None, "signal": "SIGTERM", "stopped_by_harness": True}, "signal and stopped_by"),
    ({**PROCESS, "role": "nobody"}, "process/role 'nobody' is not a role"),
])
def test_a_bad_process_record_is_a_located_capture_format_finding(tmp_path, process, problem):
    release = release_with(tmp_path, [{"exits": {"within": 5, "after": "end_of_input"}}])
    result = check_captures(release, [framed(tmp_path, [("server", HELLO)], process)])
    (finding,) = [f for f in result.findings if f.code == "CAPTURE_FORMAT"]
    assert problem in finding.message and finding.line == 3


@pytest.mark.parametrize("obligation, problem", [
    ({"level": "SHOULD", "first": {"kinds": ["hello"]}}, "a reader that misreads a breach makes it a MUST"),
    ({"first": {"kinds": ["nothing*"]}}, "matches no kind"),
    ({"subject": "nobody", "first": {"kinds": ["hello"]}}, "is not one of the roles"),
    ({"count": {"kinds": ["hello"], "exactly": 1, "per": "run"}}, "no key 'run'"),
    ({"answered": {"kinds": ["hello"]}}, "no response kind answers hello"),
    ({"answered": {"from": "nobody"}}, "'nobody' is not one of the roles"),
    ({"first": {"kinds": ["hello"]}, "count": {"kinds": ["hello"], "exactly": 1}}, "/obligations/0"),
])
def test_a_broken_behaviour_file_is_a_located_contract_error(tmp_path, obligation, problem):
    with pytest.raises(ContractError) as caught:
        release_with(tmp_path, [obligation])
    assert problem in str(caught.value)
    assert "behaviour.yaml" in str(caught.value)


def test_a_message_projected_to_what_the_monitors_read_is_judged_as_the_whole_one():
    """check/parts.py sends a worker's message of a kind only the monitors read projected to their places:
    Qoder's tool_use ids in an assistant's content, a tool_result's tool_use_id, with the conditions that pick
    them; everything else is left out, and what the places give is the same."""
    from wirecheck.check.sequences import Projection, read_paths
    from wirecheck.contracts import load_registry

    release = load_registry(Path(__file__).resolve().parents[2] / "contracts").load("qoder-agent-sdk@1.0.23")
    paths = read_paths(release, release.obligations)
    assistant = {"type": "assistant", "session_id": "s", "message": {"id": "m", "role": "assistant", "content": [
        {"type": "text", "text": "long text " * 50},
        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}}
    small = Projection(paths)(assistant)
    assert small == {"message": {"content": [{"type": "text"}, {"type": "tool_use", "id": "toolu_1"}]}}
    for obligation in release.obligations:
        for place in (v for v in obligation.params.values() if hasattr(v, "each")):
            assert place.values(small) == place.values(assistant)
    assert Projection((("0",),))([1, {"a": 2}]) == [1, {"a": 2}]  # an index into an array keeps the array whole
    assert Projection(())({"a": 1}) == {}


@pytest.mark.parametrize("seed", range(4))
def test_a_compiled_projection_gives_what_projected_gives(seed):
    """A worker projects with its paths compiled once (sequences.Projection): on random JSON values and random
    sets of paths (keys, `*`, indices, paths that end inside others, none at all) it gives what `projected` gives,
    and on every release's own read paths over its fixtures' messages."""
    import random

    from wirecheck.check.sequences import Projection, read_paths
    from wirecheck.contracts import load_registry

    rng = random.Random(seed)
    tokens = ["a", "b", "c", "*", "0", "1"]

    def value(depth: int):
        if depth > 3 or rng.random() < 0.25:
            return rng.choice([1, "x", None, True, 2.5])
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice(tokens): value(depth + 1) for _ in range(rng.randrange(5))}

    for _ in range(300):
        paths = tuple(tuple(rng.choice(tokens) for _ in range(rng.randrange(4))) for _ in range(rng.randrange(5)))
        compiled = Projection(paths)
        for _ in range(5):
            sample = value(0)
            assert compiled(sample) == projected(sample, paths), (paths, sample)
    registry = load_registry(Path(__file__).resolve().parents[2] / "contracts")
    for spec in ("qoder-agent-sdk@1.0.23", "acp@2.4.0"):
        release = registry.load(spec)
        paths = read_paths(release, release.obligations)
        package, version = spec.split("@")
        for capture in (Path(__file__).resolve().parents[2] / "fixtures" / package / version).rglob("*.ndjson"):
            for line in capture.read_bytes().splitlines():
                try:
                    sample = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                sample = sample.get("message", sample) if isinstance(sample, dict) else sample
                assert Projection(paths)(sample) == projected(sample, paths)


def projected(value: Any, paths: tuple[tuple[str, ...], ...]) -> Any:
    """The reference the compiled projection (sequences.Projection) is held to: `value` with only what lies on
    `paths` (a leaf kept whole; an array met by a token that is not `*`, whole), grouped again at every level."""
    if not paths:
        return {} if isinstance(value, dict) else value
    if isinstance(value, dict):
        heads: dict[str, list[tuple[str, ...]]] = {}
        for path in paths:
            if path:
                heads.setdefault(path[0], []).append(path[1:])
        out = {}
        for key, rests in heads.items():
            if key in value:
                out[key] = value[key] if any(not rest for rest in rests) else projected(value[key], tuple(rests))
        return out
    if isinstance(value, list):
        if all(path and path[0] == "*" for path in paths):
            inner = tuple(path[1:] for path in paths)
            return [item if any(not rest for rest in inner) else projected(item, inner) for item in value]
        return value
    return value


@pytest.mark.parametrize("seed", range(3))
def test_a_compiled_place_and_match_read_what_their_reference_reads(seed):
    """behaviour.Place and Match compile their pointers and conditions once; on random values they give what the
    uncompiled reading gives (kept here as the reference), and they pickle to an equal, working copy (a -j worker
    may be sent one)."""
    import pickle
    import random

    from wirecheck.contracts.behaviour import Match, Place, conditions
    from wirecheck.pointer import MISSING, resolve

    def holds(where, value):
        for tokens, accepted in where:
            found = resolve(value, tokens, MISSING)
            if found is MISSING or isinstance(found, dict | list) or (
                    ("bool", found) if isinstance(found, bool) else found) not in accepted:
                return False
        return True

    def at(value, tokens):
        if "*" not in tokens:
            found = resolve(value, tokens, MISSING)
            return [] if found is MISSING else [found]
        star = tokens.index("*")
        items = resolve(value, tokens[:star], MISSING)
        return [] if not isinstance(items, list) else [f for item in items for f in at(item, tokens[star + 1:])]

    def reference(place, value):
        if place.each is None:
            return at(value, place.tokens or ())
        items = resolve(value, place.each, MISSING)
        if not isinstance(items, list):
            return []
        return [f for item in items if holds(place.each_where, item) for f in at(item, place.tokens or ())]

    rng = random.Random(seed)
    names = ["a", "b", "type", "0"]
    scalars = [1, True, "x", "tool_use", None, 0, False]

    def value(depth: int):
        if depth > 3 or rng.random() < 0.2:
            return rng.choice(scalars)
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice(names): value(depth + 1) for _ in range(rng.randrange(5))}

    def pointer(most: int, star: bool = False) -> tuple[str, ...]:
        return tuple(rng.choice(names + ["*"] * star) for _ in range(rng.randrange(most)))

    matched = 0
    for _ in range(300):
        where = conditions({"/" + "/".join(pointer(2) or ("type",)): rng.sample(scalars, rng.randrange(1, 3))})
        place = rng.choice([Place(tokens=pointer(4, star=True)),
                            Place(tokens=pointer(3), each=pointer(3), each_where=where)])
        match = Match(frozenset({"k"}), where)
        copied = pickle.loads(pickle.dumps(place))
        assert copied == place and pickle.loads(pickle.dumps(match)) == match
        for _ in range(5):
            sample = value(0)
            expected = reference(place, sample)
            assert place.values(sample) == expected == copied.values(sample), (place, sample)
            assert match.matches("k", sample) is holds(where, sample), (where, sample)
            assert not match.matches("other", sample)
            matched += bool(expected)
    assert matched > 100


def test_the_process_line_is_the_last_and_only_one(tmp_path):
    """A process line in the middle, or a second one, was dropped without a word and only the last judged
    (attack-input F1): each is a located CAPTURE_FORMAT error; the first one says how the program ended."""
    release = release_with(tmp_path, [{"exit_status": {"equals": 0}}])
    lines = [{"wirecheck_capture": 1, "framing": "directed"}, {"from": "server", "message": HELLO},
             {"process": PROCESS}, {"from": "server", "message": TEXT}, {"process": {**PROCESS, "exit_status": 7}}]
    result = check_captures(release, [plain(tmp_path, lines, "f.framed.ndjson")])
    assert sorted((f.code, f.line, f.message.split(":")[0]) for f in result.findings) == [
        ("CAPTURE_FORMAT", 3, "a message on line 4 follows the process line (line 3), which says how the program "
                              "ended and must be the last"),
        ("CAPTURE_FORMAT", 5, "a second process line")]
