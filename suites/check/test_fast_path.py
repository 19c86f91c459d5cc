"""The engine's fast path (valid messages counted in the line loop, observing rules fed without a Message) must give
exactly the findings and coverage of the general path, on real contracts and mixed captures."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from wirecheck.bench import generated_messages, sample_messages
from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry

ROOT = Path(__file__).resolve().parents[2]


def _brief(result):
    findings = sorted((f.code, f.severity.value, f.line or 0, f.pointer or "", f.kind or "") for f in result.findings)
    coverage = {k: (c.seen, c.errors, c.warnings) for k, c in result.coverage.items()}
    return findings, coverage, result.messages, result.unclassified


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.13"])
def test_fast_and_general_paths_agree(spec, tmp_path, monkeypatch):
    release = load_registry(ROOT / "contracts").load(spec)
    samples = sample_messages(release, ROOT / "fixtures") + generated_messages(release, per_kind=3, seed=5)
    rng = random.Random(11)
    lines = []
    for _ in range(600):
        value, _kind = samples[rng.randrange(len(samples))]
        if rng.random() < 0.1:  # break some: a wrong type somewhere near the top, or an unknown field
            value = {**value, "type": 7} if rng.random() < 0.5 else {**value, "zz_extra": True}
        lines.append(orjson.dumps(value))
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    general_calls = []
    real_check = Engine.check_message

    def counted(self, message, *args):  # type: ignore[no-untyped-def]
        general_calls.append(message.line)
        return real_check(self, message, *args)

    monkeypatch.setattr(Engine, "check_message", counted)
    fast = _brief(Engine(release).run([CaptureFile(str(path))]))
    # the fast path is really taken, from the second line on, even in a capture shorter than one read chunk:
    # only the first line, the broken ones and kinds with more than a schema to check take the general path
    assert 0 < len(general_calls) < len(lines) - 100, len(general_calls)  # (all 600 before)
    monkeypatch.setattr(Engine, "_fast_validators", lambda self, run: {})
    general = _brief(Engine(release).run([CaptureFile(str(path))]))
    assert fast == general
    assert fast[0], "the capture should draw some findings"


def _framed_fixture_runs():
    registry = load_registry(ROOT / "contracts")
    for package in registry.packages.values():
        for version in package.releases:
            folder = ROOT / "fixtures" / package.name / version
            captures = sorted(str(p) for p in folder.rglob("*.ndjson")
                              if p.read_bytes()[:200].lstrip().startswith(b'{"wirecheck_capture"'))
            if captures:
                yield pytest.param(f"{package.name}@{version}", captures, id=f"{package.name}@{version}")


FRAMED_FIXTURES = list(_framed_fixture_runs())


@pytest.mark.parametrize(("spec", "captures"), FRAMED_FIXTURES)
def test_framed_fast_path_and_general_path_agree_on_every_framed_fixture(spec, captures, monkeypatch):
    """Issue 43: a framed capture's valid messages of fast kinds are taken in the line loop (Engine._frame_acceptor),
    shown to the ordered step with their sender or counted, their senders noted as having spoken; every framed
    fixture of every release gets exactly the answer of the general path (findings in order, coverage, verdict)."""
    from .test_result import snapshot

    registry = load_registry(ROOT / "contracts")
    taken = []
    real = Engine._frame_acceptor

    def counting(self, *args):  # type: ignore[no-untyped-def]
        accept = real(self, *args)
        return lambda frame, line: accept(frame, line) and not taken.append(line)

    monkeypatch.setattr(Engine, "_frame_acceptor", counting)
    fast = Engine(registry.load(spec), load_release=registry.load).run([CaptureFile(c) for c in captures])
    monkeypatch.setattr(Engine, "_frame_acceptor", lambda self, *args: lambda frame, line: False)
    general = Engine(registry.load(spec), load_release=registry.load).run([CaptureFile(c) for c in captures])
    assert snapshot(fast) == snapshot(general)
    assert general.messages == 0 or fast.findings or taken  # something took the fast path, or findings were made


def test_the_framed_fast_path_is_taken_on_request_and_reply_traffic():
    """Every framed fixture together: most valid messages are taken by the framed fast path."""
    registry = load_registry(ROOT / "contracts")
    spec, captures = next((p.values[0], p.values[1]) for p in FRAMED_FIXTURES if p.values[0] == "acp@2.4.0")
    engine, taken = _counting(Engine(registry.load(spec), load_release=registry.load))
    result = engine.run([CaptureFile(c) for c in captures])
    assert result.messages > 20 and len(taken) > result.messages // 3, (len(taken), result.messages)


def test_a_message_the_framed_fast_path_takes_is_its_senders_last(tmp_path):
    """What the process record is judged after is the role's last message, whichever path took it: a step_finish
    followed by a `text` the fast path takes is no longer the last (EXIT-ZERO-ON-SUCCESS is then not judged, as the
    general path has it); a step_finish last, it is (the real OpenCode's recorded run, its exit status made 1)."""
    from .test_result import snapshot

    spec = "opencode-run@1.0.0"
    release = load_registry(ROOT / "contracts").load(spec)
    source = ROOT / "fixtures" / "live" / "opencode@1.18.33" / "opencode-run-plain.framed.ndjson"
    header, start, text, finish, process = source.read_bytes().splitlines()
    record = orjson.loads(process)
    record["process"]["exit_status"] = 1
    found = []
    for lines in ([start, text, finish, text], [start, text, finish]):
        path = tmp_path / "capture.ndjson"
        path.write_bytes(b"\n".join([header, *lines, orjson.dumps(record)]) + b"\n")
        engine, taken = _counting(Engine(release))
        fast = engine.run([CaptureFile(str(path))])
        general = Engine(release)
        general._frame_acceptor = lambda *args: lambda frame, line: False  # type: ignore[method-assign]
        assert snapshot(fast) == snapshot(general.run([CaptureFile(str(path))]))
        assert 3 in taken  # the text
        found.append({f.obligation for f in fast.findings})
    assert "EXIT-ZERO-ON-SUCCESS" not in found[0] and "EXIT-ZERO-ON-SUCCESS" in found[1]


def _counting(engine: Engine) -> tuple[Engine, list[int]]:
    """The engine, its framed fast path noting the line of every frame it takes in the list beside it."""
    taken: list[int] = []
    real = engine._frame_acceptor

    def acceptor(*args):  # type: ignore[no-untyped-def]
        accept = real(*args)
        return lambda frame, line: accept(frame, line) and not taken.append(line)

    engine._frame_acceptor = acceptor  # type: ignore[method-assign]
    return engine, taken


def test_a_rule_settled_on_the_ordered_step_is_shown_no_more_messages(tmp_path, monkeypatch):
    """Issue 43: a capture whose every line holds never hands the engine's loop a message, so the fast path must
    widen where a rule settles, on the ordered step too: QODER_RESULT_ENDS_TURN settles on the first turn message of
    a capture without senders, and was then still shown every later turn message (a Message built for each, a
    quarter of the fixture corpus's messages), the widening only ever asked after a message of the general path."""
    from wirecheck.capture import FORM_LOOKAHEAD
    from wirecheck.rules.qoder import ResultEndsTurn

    release = load_registry(ROOT / "contracts").load("qoder-agent-sdk@1.0.23")
    turn = {"result.success", "result.error", "stream_event", "assistant", "sdk.user", "system.task_notification"}
    samples = sample_messages(release, ROOT / "fixtures")
    # the lines the reader reads ahead for the capture's form take the general path: none of them a turn message
    ahead = [value for value, kind in samples if kind.startswith("system.") and kind not in turn][:FORM_LOOKAHEAD]
    samples = [value for value, kind in samples if kind in turn]
    rng = random.Random(3)
    path = tmp_path / "turns.jsonl"
    path.write_bytes(b"".join(orjson.dumps(value) + b"\n"
                              for value in ahead + [samples[rng.randrange(len(samples))] for _ in range(400)]))
    shown = []
    real = ResultEndsTurn.on_message
    monkeypatch.setattr(ResultEndsTurn, "on_message", lambda self, message: shown.append(message.line)
                        or real(self, message))
    fast = _brief(Engine(release).run([CaptureFile(str(path))]))
    assert shown == [FORM_LOOKAHEAD + 1], shown[:5]  # the first turn message settles it (then all 400 were)
    monkeypatch.setattr(Engine, "_fast_validators", lambda self, run: {})
    assert fast == _brief(Engine(release).run([CaptureFile(str(path))]))


def test_a_plain_stream_takes_a_kind_asked_about_only_as_the_last_message_without_the_ordered_step(tmp_path,
                                                                                                  monkeypatch):
    """Issue 43: result.success needs the ordered state only as what EXIT-ZERO-ON-SUCCESS asks about, a role's last
    message before the process record, which only a framed capture has: in a plain stream the fast path counts it
    and shows it to its observing rules (QODER_TURN_UNFINISHED), with the general path's findings and coverage."""
    from wirecheck.capture import FORM_LOOKAHEAD

    release = load_registry(ROOT / "contracts").load("qoder-agent-sdk@1.0.23")
    engine = Engine(release)
    assert "result.success" in engine._last_only
    samples = sample_messages(release, ROOT / "fixtures")
    results = [value for value, kind in samples if kind == "result.success"]
    turns = [value for value, kind in samples if kind in ("assistant", "stream_event")]
    rng = random.Random(5)
    lines = [rng.choice(turns) for _ in range(FORM_LOOKAHEAD)] + [
        rng.choice(results if rng.random() < 0.5 else turns) for _ in range(300)]
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"".join(orjson.dumps(value) + b"\n" for value in [*lines[:-1], turns[0]]))  # ends in a turn
    ordered = []
    real = Engine._ordered
    monkeypatch.setattr(Engine, "_ordered", lambda self, message, kind, *args, **kw: ordered.append(kind.id)
                        or real(self, message, kind, *args, **kw))
    fast = _brief(engine.run([CaptureFile(str(path))]))
    assert "result.success" not in ordered[FORM_LOOKAHEAD:]
    assert any(f[0] == "QODER_TURN_UNFINISHED" for f in fast[0])  # at a line that counts the results it saw
    monkeypatch.setattr(Engine, "_fast_validators", lambda self, run: {})
    assert fast == _brief(Engine(release).run([CaptureFile(str(path))]))
