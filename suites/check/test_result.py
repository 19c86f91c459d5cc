"""Results merge: any grouping and any order of per-capture results gives what one sequential run gives."""

from __future__ import annotations

import dataclasses
import random
from io import StringIO

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wirecheck.capture import CaptureFile
from wirecheck.check import engine as engine_module
from wirecheck.check import result as result_module
from wirecheck.check.engine import Engine
from wirecheck.check.result import merge
from wirecheck.report import FORMATS

HELLO = {"type": "hello", "version": "1.0.0"}
LINES = [  # a pool the captures are drawn from: valid, invalid, unknown and broken lines
    orjson.dumps(HELLO),
    orjson.dumps({"type": "hello", "version": 1}),
    orjson.dumps({"type": "mystery"}),
    orjson.dumps({"type": "event", "payload": {"kind": "count", "count": 2}}),
    orjson.dumps({"type": "event", "payload": {"kind": "count", "count": -1}}),
    orjson.dumps({"type": "request", "request_id": "r1", "request": {"subtype": "ping"}}),
    b"not json",
    b"[1, 2]",
]


def snapshot(result):
    """Everything a report can show of a result, as plain values."""
    return {
        "captures": [(c.index, c.file, c.form, c.messages, c.unreadable, [f.to_json() for f in c.findings])
                     for c in result.captures],
        "coverage": {k: (c.seen, c.errors, c.warnings) for k, c in result.coverage.items()},
        "messages": result.messages,
        "capture_count": (result.capture_count, result.unreadable_count),
        "unclassified": result.unclassified,
        "omitted": result.omitted,
        "findings": [f.to_json() for f in result.findings],
        "counts": [result.count(s) for s in result_module.Severity],
        "fails": result.fails(),
        "judged": result.judged,
    }


@pytest.fixture
def small_limit(monkeypatch):
    """A listing limit small enough that a few lines of one check reach it."""
    monkeypatch.setattr(result_module, "MAX_LISTED", 3)
    monkeypatch.setattr(engine_module, "MAX_LISTED", 3)


captures_strategy = st.lists(st.lists(st.integers(0, len(LINES) - 1), max_size=12), min_size=1, max_size=6)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)  # the limit is a constant
@given(captures=captures_strategy, seed=st.integers(0, 2**32 - 1), groups=st.integers(1, 6))
def test_any_grouping_and_order_of_merges_is_one_sequential_run(demo, tmp_path_factory, small_limit, captures,
                                                                  seed, groups):
    folder = tmp_path_factory.mktemp("captures")
    files = []
    for i, lines in enumerate(captures):
        path = folder / f"c{i}.jsonl"
        path.write_bytes(b"".join(LINES[n] + b"\n" for n in lines))
        files.append(str(path))
    engine = Engine(demo)
    whole = engine.run(CaptureFile(p) for p in files)
    parts = [engine.run([CaptureFile(p)], first_index=i) for i, p in enumerate(files)]
    rng = random.Random(seed)
    rng.shuffle(parts)
    while len(parts) > groups:  # merge random neighbours of a shuffled list: every grouping is reachable
        at = rng.randrange(len(parts) - 1)
        parts[at:at + 2] = [merge(parts[at:at + 2])]
    assert snapshot(merge(parts)) == snapshot(whole)


def test_merge_reads_every_field_of_a_result():
    """A field added to a result must be merged too: this fails until merge (and this list) names it."""
    assert {f.name for f in dataclasses.fields(result_module.CheckResult)} == {
        "release", "captures", "coverage", "messages", "unclassified", "fail_on", "omitted", "capture_count",
        "unreadable_count", "min_coverage", "judged"}
    assert {f.name for f in dataclasses.fields(result_module.CaptureSummary)} == {
        "file", "form", "messages", "index", "findings", "unreadable"}


def test_merging_results_of_different_releases_or_gates_is_refused(demo, write_lines):
    from wirecheck.findings import Severity

    path = write_lines([HELLO])
    a = Engine(demo).run([CaptureFile(path)])
    b = Engine(demo, engine_module.CheckOptions(fail_on=Severity.WARNING)).run([CaptureFile(path)], first_index=1)
    with pytest.raises(ValueError, match="cannot merge"):
        merge([a, b])
    c = Engine(demo, engine_module.CheckOptions(min_coverage=0.5)).run([CaptureFile(path)], first_index=1)
    with pytest.raises(ValueError, match="cannot merge"):  # judged against another coverage minimum
        merge([a, c])
    assert merge([c]).min_coverage == 0.5
    with pytest.raises(ValueError, match="more than one result"):
        merge([a, a])


def test_an_unreadable_capture_is_named_and_the_run_goes_on(demo, write_lines, tmp_path):
    good = write_lines([HELLO])
    result = Engine(demo).run([CaptureFile(str(tmp_path / "gone.jsonl")), CaptureFile(good)])
    assert [(c.file.endswith("gone.jsonl"), bool(c.unreadable), c.messages) for c in result.captures] == [
        (True, True, 0), (False, False, 1)]
    assert result.messages == 1 and [c.index for c in result.unreadable] == [0]


def test_a_run_with_an_unreadable_capture_says_so_in_every_report_as_its_exit_code_does(demo, write_lines, tmp_path):
    """A named pipe nobody wrote to gave exit 2 under a report that said NOTHING RECOGNISED (the exit code came from
    the command, the verdict from the result): the verdict is `unreadable`, exit 2, whatever the other captures
    showed, and each report format states it."""
    from wirecheck import exitcodes
    from wirecheck.report.summary import verdict_line

    result = Engine(demo).run([CaptureFile(str(tmp_path / "gone.jsonl")), CaptureFile(write_lines([HELLO]))])
    assert (result.verdict, result.exit_code) == ("unreadable", exitcodes.USAGE)
    assert verdict_line(result).startswith("UNREADABLE: 1 of 2 captures could not be read; 1 message (")
    written = {}
    for name in ("text", "json", "junit", "markdown"):
        out = StringIO()
        FORMATS[name](result, out)
        written[name] = out.getvalue()
    assert "UNREADABLE: 1 of 2 captures could not be read" in written["text"]
    assert orjson.loads(written["json"])["summary"]["verdict"] == "unreadable"
    assert '<failure message="1 of 2 captures could not be read" type="UNREADABLE">' in written["junit"]
    assert "**unreadable** — 1 of 2 captures could not be read" in written["markdown"]


def test_a_fleet_keeps_the_first_captures_those_with_findings_and_counts_the_rest(demo, tmp_path, small_limit):
    quiet, noisy = tmp_path / "quiet.jsonl", tmp_path / "noisy.jsonl"
    quiet.write_bytes(orjson.dumps(HELLO) + b"\n")
    noisy.write_bytes(b"not json\n")
    files = [quiet] * 5 + [noisy] + [tmp_path / "gone"] * 5 + [quiet]
    result = Engine(demo).run(CaptureFile(str(p)) for p in files)
    assert result.capture_count == 12 and result.unreadable_count == 5 and result.messages == 6
    # the first 3; the one with a finding; the first 3 unreadable (of which one is among the first 3 overall)
    assert [c.index for c in result.captures] == [0, 1, 2, 5, 6, 7, 8]
    text = StringIO()
    FORMATS["text"](result, text)
    assert "and 5 more captures" in text.getvalue() and "2 more captures that cannot be read" in text.getvalue()
