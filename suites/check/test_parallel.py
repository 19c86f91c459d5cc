"""`-j N`: captures checked by worker processes, and large streams split into parts, give exactly what one process
gives — on every bundled fixture, on generated corpora, and on streams whose line ends fall everywhere."""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import re
import signal
from pathlib import Path

import orjson
import pytest
import yaml

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.check.parallel import Plan, ReleaseSource, check
from wirecheck.contracts import load_registry

from .test_result import snapshot

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CONTRACTS = ROOT / "contracts"
REGISTRY = load_registry(CONTRACTS)
RELEASES = [f"{p.name}@{v}" for p in REGISTRY.packages.values() for v in p.releases]
# every part as small as a line or two: each capture of more than a few lines is split, at every kind of boundary
TINY = Plan(jobs=2, forced=True, range_bytes=64, split_min_bytes=0)


def _fixture_runs():
    """Per release, its fixture captures grouped by the options they need."""
    for spec in RELEASES:
        package, version = spec.split("@")
        path = FIXTURES / package / version / "expectations.yaml"
        if not path.exists():
            continue
        groups: dict[str, tuple[dict, list[str]]] = {}
        for case in yaml.safe_load(path.read_text())["cases"]:
            options = case.get("options", {})
            key = orjson.dumps(options, option=orjson.OPT_SORT_KEYS).decode()
            groups.setdefault(key, (options, []))[1].append(str(path.parent / case["capture"]))
        for options, captures in groups.values():
            yield pytest.param(spec, options, captures, id=f"{spec}:{len(captures)}-captures")


def _both(spec, captures, options=None, plan=TINY, contracts=CONTRACTS):
    registry = load_registry(contracts)
    engine = Engine(registry.load(spec), options or CheckOptions(), registry.load)
    sequential = engine.run(CaptureFile(c) for c in captures)
    parallel = check(engine, ReleaseSource(str(contracts), spec), [CaptureFile(c) for c in captures], plan)
    return sequential, parallel


@pytest.mark.parametrize(("spec", "options", "captures"), list(_fixture_runs()))
def test_every_bundled_fixture_gets_the_same_answer_on_several_processes(spec, options, captures):
    check_options = CheckOptions(base_urls=options.get("base_url", {}),
                                 **({"max_line_bytes": options["max_line_bytes"]} if "max_line_bytes" in options
                                    else {}))
    sequential, parallel = _both(spec, captures, check_options)
    assert snapshot(parallel) == snapshot(sequential)


def test_split_streams_on_qoder_fixtures_joined_into_one_capture(tmp_path):
    """All of a release's stream fixtures as one capture: broken lines, unknown kinds, protocol rules, requests
    and responses, split into parts of a line or two."""
    folder = FIXTURES / "qoder-agent-sdk" / "1.0.23"
    data = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in sorted(folder.rglob("*.ndjson"))
                    if b"wirecheck_capture" not in p.read_bytes()[:200])
    path = tmp_path / "joined.ndjson"
    path.write_bytes(data)
    sequential, parallel = _both("qoder-agent-sdk@1.0.23", [str(path)])
    assert sequential.messages > 100 and sequential.findings
    assert snapshot(parallel) == snapshot(sequential)


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.23", "xopc@0.0.253", "acp@2.4.0"])
def test_generated_corpora_get_the_same_answer_split(tmp_path, spec):
    from wirecheck.fuzz.corpus import kind_corpus

    lines = []
    for _, entries in kind_corpus(REGISTRY.load(spec), count=3, seed=7, invalid=True, not_generated=lambda *_: None):
        lines.extend(orjson.dumps(entry.message) for entry in entries)
    path = tmp_path / "corpus.ndjson"
    path.write_bytes(b"\n".join(lines) + b"\n")
    sequential, parallel = _both(spec, [str(path)], plan=Plan(jobs=2, forced=True, range_bytes=512,
                                                             split_min_bytes=0))
    assert sequential.messages >= 10
    assert snapshot(parallel) == snapshot(sequential)


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.23", "acp@2.4.0"])
def test_framed_request_and_reply_traffic_is_split_and_agrees(tmp_path, spec, monkeypatch):
    """Issue 43: a framed capture of every kind, both directions (what `wirecheck fuzz --messages-only` writes:
    control requests and their responses, JSON-RPC calls and their results), broken in the ways correlation
    judges (an answer whose request is in an earlier part, answered twice, never answered, a reply that breaks its
    request's schema, messages of no kind), split into parts that workers check: the answer of one process."""
    import subprocess
    import sys

    from wirecheck.check import parallel

    out = subprocess.run([sys.executable, "-m", "wirecheck", "fuzz", spec, "--count", "4", "--seed", "3",
                          "--messages-only"], capture_output=True, check=True, timeout=600).stdout.splitlines()
    header, frames = out[0], out[1:]
    rng = random.Random(11)
    lines = frames * 3
    for _ in range(12):  # drop some lines, repeat others far from where they were, break a few
        at = rng.randrange(len(lines))
        what = rng.choice(["drop", "repeat", "break", "foreign"])
        if what == "drop":
            del lines[at]
        elif what == "repeat":
            lines.insert(rng.randrange(len(lines)), lines[at])
        elif what == "break":
            frame = orjson.loads(lines[at])
            message = frame["message"]
            for key in ("params", "message"):
                if isinstance(message.get(key), dict):
                    message[key] = {"broken": [1, 2]}
                    break
            lines[at] = orjson.dumps(frame)
        else:
            lines.insert(at, orjson.dumps({"from": "client" if spec.startswith("acp") else "sdk",
                                           "message": {"jsonrpc": "2.0", "id": 77, "method": "x/unknown"}}))
    if spec.startswith("acp"):  # a notification of a known kind whose params break its schema
        lines.insert(len(lines) // 2, orjson.dumps({"from": "client", "message": {
            "jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": 5}}}))
    answers = 0
    for at, line in enumerate(lines):  # every fifth answer's payload is an array: its reply schema's type breaks
        frame = orjson.loads(line)
        inner = frame["message"].get("response")
        holder = inner if isinstance(inner, dict) and "response" in inner else frame["message"]
        key = "response" if holder is inner else "result"
        if isinstance(holder, dict) and isinstance(holder.get(key), dict):
            answers += 1
            if answers % 5 == 0:
                holder[key] = [1, 2]
                lines[at] = orjson.dumps(frame)
    path = tmp_path / "traffic.ndjson"
    path.write_bytes(b"\n".join([header, *lines]) + b"\n")
    split = []
    ranges = parallel._ranges
    monkeypatch.setattr(parallel, "_ranges", lambda *args: split.append(ranges(*args)) or split[-1])
    plan = Plan(jobs=2, forced=True, range_bytes=2048, split_min_bytes=0)
    registry = load_registry(CONTRACTS)
    engine = Engine(registry.load(spec), CheckOptions(), registry.load)
    sequential = engine.run([CaptureFile(str(path))])
    stats = parallel.Stats()
    result = check(engine, ReleaseSource(str(CONTRACTS), spec), [CaptureFile(str(path))], plan, stats)
    codes = {f.code for f in sequential.findings}
    assert sequential.messages > 100 and "REPLY_VIOLATION" in codes and "SCHEMA_VIOLATION" in codes, codes
    assert snapshot(result) == snapshot(sequential)
    (form, parts), = split
    assert form == "framed" and len(parts) > 10 and stats.workers_used and not stats.workers_lost


NASTY = [  # lines that test what a part's reader must agree on with a whole-capture reader
    b'{"type":"hello","version":"1.0.0"}',
    b'\xef\xbb\xbf{"type":"hello","version":"1.0.0"}',  # a byte order mark mid-capture
    b'{"type":"hello","version":"1.0.0"}\r',  # CRLF
    b"",  # a blank line
    b"   ",
    b'{"type":"hello","version":"1.0.0","version":"2"}',  # a duplicate key
    b'{"type":"mystery"}',
    b'[1,2]',
    b"not json",
    b'{"type":"event","payload":{"kind":"count","count":-1}}',
    b'{"type":"event","payload":{"kind":"count","count":3}}',
    b'{"type":"request","request_id":"r1","request":{"subtype":"ping"}}',
    b'{"type":"response","response":{"request_id":"r1","subtype":"success","payload":{"pong":1}}}',
    b'{"type":"hello","version":"' + b"x" * 300 + b'"}',  # longer than the line limit below
    b"\xff\xfe not utf-8",
]


@pytest.mark.parametrize("seed", range(6))
def test_split_parts_agree_with_one_reader_wherever_line_ends_fall(demo_registry, tmp_path, seed):
    rng = random.Random(seed)
    lines = [rng.choice(NASTY) for _ in range(rng.randrange(20, 200))]
    data = b"\n".join(lines) + (b"\n" if rng.random() < 0.5 else b"")
    if rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data  # a byte order mark at the capture's start
    path = tmp_path / "nasty.ndjson"
    path.write_bytes(data)
    demo_contracts = Path(demo_registry.root)
    plan = Plan(jobs=2, forced=True, range_bytes=rng.choice([1, 7, 50, 300]), split_min_bytes=0)
    sequential, parallel = _both("demo@1.0.0", [str(path)], CheckOptions(max_line_bytes=1024), plan,
                                 contracts=demo_contracts)
    assert snapshot(parallel) == snapshot(sequential)


def test_many_captures_and_stdin_like_ones_are_merged_in_order(demo_registry, tmp_path):
    paths = []
    for i in range(30):
        path = tmp_path / f"c{i}.ndjson"
        path.write_bytes(b"\n".join(random.Random(i).choice(NASTY) for _ in range(5)) + b"\n")
        paths.append(str(path))
    paths.insert(7, str(tmp_path / "missing.ndjson"))
    sequential, parallel = _both("demo@1.0.0", paths, CheckOptions(max_line_bytes=1024),
                                 Plan(jobs=2, forced=True), contracts=Path(demo_registry.root))
    assert snapshot(parallel) == snapshot(sequential)
    assert sequential.unreadable_count == 1


def test_a_rule_still_waiting_when_a_part_is_handed_out_sees_its_messages_in_order(demo_registry, tmp_path):
    """The demo's FIRST_MESSAGE_IS waits for the first message. Values that are not messages settle the form but
    not the rule; the first message (an event, which a worker takes once the rule has settled) lies in a later
    part: the worker hands its events back, checked, and the rule sees them here in order, as in one process."""
    event = b'{"type":"event","payload":{"kind":"count","count":1}}'
    path = tmp_path / "late.ndjson"
    path.write_bytes(b"[1]\n" * 12 + event + b"\n" + (event + b"\n") * 50)
    sequential, parallel = _both("demo@1.0.0", [str(path)], plan=Plan(jobs=2, forced=True, range_bytes=16,
                                                                       split_min_bytes=0),
                                 contracts=Path(demo_registry.root))
    assert "FIRST_MESSAGE_IS" in {f.code for f in sequential.findings}
    assert snapshot(parallel) == snapshot(sequential)


@pytest.mark.parametrize("command", ["validate", "certify"])
def test_the_commands_report_the_same_on_one_and_several_processes(tmp_path, command):
    import subprocess
    import sys

    folder = FIXTURES / "xopc" / "0.0.253"
    captures = sorted(str(p) for p in folder.rglob("*") if p.suffix in (".jsonl", ".har", ".ndjson"))
    reports = []
    for jobs in ("1", "2"):
        out = tmp_path / f"{command}-{jobs}.json"
        args = [command, "xopc@0.0.253", *captures, "-j", jobs]
        args += ["--format", "json", "-o", str(out)] if command == "validate" else ["--format", "jsonl", "-o", str(out)]
        proc = subprocess.run([sys.executable, "-W", "default", "-m", "wirecheck", *args], capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 1, proc.stderr  # the invalid fixtures fail
        assert "multi-threaded" not in proc.stderr  # the CLI forks its workers from a process of one thread
        reports.append(out.read_bytes())
    if command == "certify":  # the identity block's timestamp differs between runs
        reports = [re.sub(rb'"timestamp":"[^"]*"', b"", r) for r in reports]
    assert reports[0] == reports[1]


def test_rules_that_judge_a_message_alone_still_report_on_the_fast_path(tmp_path):
    """Once the first message is seen, system/init takes the fast path (in this process and in workers) because its
    remaining rule, QODER_PROTOCOL_MAJOR, judges each message alone: an init whose major differs must still be
    reported, at its own line, however the capture is split."""
    folder = FIXTURES / "qoder-agent-sdk" / "1.0.23" / "protocol"
    good = (folder / "protocol-minor-ahead.ndjson").read_bytes().splitlines()[0]
    bad = (folder / "protocol-major-mismatch.ndjson").read_bytes().splitlines()[0]
    path = tmp_path / "inits.ndjson"
    path.write_bytes(b"\n".join([good] * 40 + [bad] + [good] * 40 + [bad]) + b"\n")
    for plan in (Plan(jobs=2, forced=True, range_bytes=4096, split_min_bytes=0), TINY):
        sequential, parallel = _both("qoder-agent-sdk@1.0.23", [str(path)], plan=plan)
        assert [f.line for f in sequential.findings if f.code == "QODER_PROTOCOL_MAJOR"] == [41, 82]
        assert snapshot(parallel) == snapshot(sequential)


DIE_AT_CAPTURE = 5  # the batch holding this capture kills its worker


def _dying_batch(first, paths):
    from wirecheck.check import parallel

    if first <= DIE_AT_CAPTURE < first + len(paths):
        os.kill(os.getpid(), signal.SIGKILL)
    # forked, the worker has this process's patch; from a fork server (pytest-xdist runs a thread), the real one
    return parallel.__dict__.get("_real_check_batch", parallel._check_batch)(first, paths)


def _dying_range(path, start, end, *rest):
    from wirecheck.check import parallel

    if start > 2 * 4096:  # the third part on: the pool breaks with parts in flight and parts not yet sent
        os.kill(os.getpid(), signal.SIGKILL)
    return parallel.__dict__.get("_real_check_range", parallel._check_range)(path, start, end, *rest)


@pytest.mark.parametrize("what", ["whole captures", "parts of one capture"])
def test_a_worker_that_dies_loses_nothing(tmp_path, monkeypatch, what):
    """A worker killed mid-run (the OOM killer, an operator) breaks the pool: every batch and part it or the others
    had not returned is checked in this process instead, and the answer is the sequential one."""
    from wirecheck.check import parallel

    folder = FIXTURES / "qoder-agent-sdk" / "1.0.23"
    streams = sorted(str(p) for p in folder.rglob("*.ndjson") if b"wirecheck_capture" not in p.read_bytes()[:200])
    if what == "whole captures":
        captures, plan = streams * 3, Plan(jobs=2, forced=True)
        monkeypatch.setattr(parallel, "_real_check_batch", parallel._check_batch, raising=False)
        monkeypatch.setattr(parallel, "_check_batch", _dying_batch)
    else:
        joined = tmp_path / "joined.ndjson"
        joined.write_bytes(b"".join(Path(p).read_bytes().rstrip(b"\n") + b"\n" for p in streams) * 3)
        captures, plan = [str(joined)], Plan(jobs=2, forced=True, range_bytes=4096, split_min_bytes=0)
        monkeypatch.setattr(parallel, "_real_check_range", parallel._check_range, raising=False)
        monkeypatch.setattr(parallel, "_check_range", _dying_range)
    registry = load_registry(CONTRACTS)
    engine = Engine(registry.load("qoder-agent-sdk@1.0.23"), CheckOptions(), registry.load)
    sequential = engine.run(CaptureFile(c) for c in captures)
    stats = parallel.Stats()
    result = check(engine, ReleaseSource(str(CONTRACTS), "qoder-agent-sdk@1.0.23"),
                   [CaptureFile(c) for c in captures], plan, stats)
    assert stats.workers_lost
    assert sequential.messages > 100 and sequential.findings
    assert snapshot(result) == snapshot(sequential)


FORKED_BESIDE_A_DISPLAY = """import json, sys, threading
from contextlib import contextmanager
import os
from wirecheck.capture import CaptureFile
from wirecheck.check import parallel
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.contracts import load_registry
forks, stop = [], threading.Event()
os.register_at_fork(before=lambda: forks.append(sorted(t.name for t in threading.enumerate())))

@contextmanager
def progress():
    thread = threading.Thread(target=stop.wait, name="progress-display")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()

registry = load_registry(sys.argv[1])
engine = Engine(registry.load("qoder-agent-sdk@1.0.23"), CheckOptions(), registry.load)
stats = parallel.Stats()
result = parallel.check(engine, parallel.ReleaseSource(sys.argv[1], "qoder-agent-sdk@1.0.23"),
                        [CaptureFile(path) for path in sys.argv[2:]], parallel.Plan(jobs=2, forced=True), stats,
                        around=progress)
print(json.dumps([stats.start_method, result.messages, forks]))
"""


def test_workers_are_forked_before_a_progress_display_starts_its_thread():
    """A thread alive at a fork may hold a lock (stderr's, rich's) that stays locked in the worker for ever, and
    Python 3.12 warns on every such fork: in a process of one thread (the CLI's) the workers are forked, and the
    display `around` the run starts only once they are up."""
    import subprocess
    import sys

    folder = FIXTURES / "qoder-agent-sdk" / "1.0.23"
    captures = [str(p) for p in sorted(folder.rglob("*.ndjson"))]
    done = subprocess.run([sys.executable, "-c", FORKED_BESIDE_A_DISPLAY, str(CONTRACTS), *captures],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "multi-threaded" not in done.stderr
    method, messages, forks = orjson.loads(done.stdout)
    assert method == "fork" and messages > 0
    assert forks == [["MainThread"], ["MainThread"]]


START_METHOD_HERE = """import threading
from wirecheck.check import parallel
alone = parallel.start_method()
stop = threading.Event()
other = threading.Thread(target=stop.wait)
other.start()
beside = parallel.start_method()
stop.set()
other.join()
# join() returns when Python is done with the thread; the kernel lists its task a moment longer (seen once in CI)
import time
deadline = time.monotonic() + 10
while parallel.threads_running() > 1 and time.monotonic() < deadline:
    time.sleep(0.01)
print(alone, beside, parallel.start_method())
"""


def test_workers_are_forked_only_by_a_process_of_one_thread(monkeypatch):
    """A fork copies the locks another thread holds, locked for good in the child: with a thread of someone else's
    alive (a library caller's, a test runner's, one Python does not know of), workers come from a fork server; a
    process of one thread forks them; where fork is not safe (macOS) or missing (Windows) they are spawned."""
    import subprocess
    import sys

    from wirecheck.check import parallel

    done = subprocess.run([sys.executable, "-c", START_METHOD_HERE], capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.split() == ["fork", "forkserver", "fork"]
    # this test process: what the kernel counts decides, threads Python does not know of included (xdist's)
    assert parallel.start_method() == ("fork" if parallel.threads_running() == 1 else "forkserver")
    monkeypatch.setattr(parallel, "FORK_SAFE_PLATFORM", False)
    assert parallel.start_method() == "spawn"


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_workers_that_load_the_release_themselves_agree(tmp_path, method):
    """Workers from a fork server (beside other threads) or spawned (macOS, Windows) load the release themselves:
    whole captures and a split stream get the sequential answer that way too."""
    from wirecheck.check import parallel

    folder = FIXTURES / "qoder-agent-sdk" / "1.0.23"
    streams = sorted(str(p) for p in folder.rglob("*.ndjson") if b"wirecheck_capture" not in p.read_bytes()[:200])
    joined = tmp_path / "joined.ndjson"
    joined.write_bytes(b"".join(Path(p).read_bytes().rstrip(b"\n") + b"\n" for p in streams))
    assert joined.stat().st_size > 4 * 8192  # split into several parts
    stats = parallel.Stats()
    registry = load_registry(CONTRACTS)
    engine = Engine(registry.load("qoder-agent-sdk@1.0.23"), CheckOptions(), registry.load)
    captures = [*streams, str(joined)]
    sequential = engine.run(CaptureFile(c) for c in captures)
    started = check(engine, ReleaseSource(str(CONTRACTS), "qoder-agent-sdk@1.0.23"),
                    [CaptureFile(c) for c in captures],
                    Plan(jobs=2, forced=True, range_bytes=4096, split_min_bytes=8192, start_method=method), stats)
    assert stats.start_method == method
    assert sequential.findings
    assert snapshot(started) == snapshot(sequential)


PARENT = """import os, signal, sys, time
from multiprocessing import active_children, get_context
from wirecheck.check import parallel
from wirecheck.check.engine import CheckOptions
source = parallel.ReleaseSource(sys.argv[2], "qoder-agent-sdk@1.0.23")
with parallel._workers(2, get_context(sys.argv[1]), source, CheckOptions()) as pool:
    pool.submit(time.sleep, 300)  # a worker busy for minutes, the other idle
    pool.submit(parallel._peak_kib).result()
    print(*[worker.pid for worker in active_children()], flush=True)
    if sys.argv[3] == "SIGKILL":
        os.kill(os.getpid(), signal.SIGKILL)
    print("waiting", flush=True)
    time.sleep(300)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads Linux /proc")
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_workers_end_with_their_parent_however_it_ends(method, how):
    """A parent killed (SIGKILL, the OOM killer) leaves no worker: each watches its parent's end of a pipe, forked or
    spawned (issue 31, defect 3). A SIGTERM ends the parent with 143, its workers killed, not waited for."""
    import subprocess
    import sys
    import time

    parent = subprocess.Popen([sys.executable, "-c", PARENT, method, str(CONTRACTS), how], stdout=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2
        if how == "SIGTERM":
            assert parent.stdout.readline() == "waiting\n"
            parent.send_signal(signal.SIGTERM)
        assert parent.wait(60) == (-signal.SIGKILL if how == "SIGKILL" else 143)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in workers if _alive(pid)] == []
    finally:
        with contextlib.suppress(OSError):
            os.killpg(parent.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("seed", range(4))
def test_framed_parts_agree_with_one_reader_wherever_line_ends_fall(demo_registry, tmp_path, seed):
    """The same nasty lines inside harness frames (a frame whose message is not JSON, breaks off, repeats `from`,
    names a role the release lacks, a process record, a second header), split anywhere: the answer of one reader."""
    rng = random.Random(100 + seed)
    roles = [b"server", b"client", b"nobody"]
    extra = [b'{"from": "server", "from": "client", "message": {"type":"hello","version":"1.0.0"}}',
             b'{"wirecheck_capture": 1, "framing": "directed"}',
             b'{"from": "server", "message": {"type":"hello","version":"1.0.0"}',
             b'{"from": "server", "message": {"type":"hello"}, "extra": 1}']
    lines = [b'{"wirecheck_capture": 1, "framing": "directed"}']
    for _ in range(rng.randrange(20, 150)):
        if rng.random() < 0.15:
            lines.append(rng.choice(extra))
        else:
            line = rng.choice(NASTY)
            lines.append(b'{"from": "' + rng.choice(roles) + b'", "message": ' + (line or b"null") + b"}")
    if rng.random() < 0.5:
        lines.append(b'{"process": {"role": "server", "exit_status": 0, "signal": null, "stopped_by_harness": false}}')
    path = tmp_path / "nasty.framed.ndjson"
    path.write_bytes(b"\n".join(lines) + b"\n")
    plan = Plan(jobs=2, forced=True, range_bytes=rng.choice([1, 40, 200, 900]), split_min_bytes=0)
    sequential, parallel = _both("demo@1.0.0", [str(path)], CheckOptions(max_line_bytes=1024), plan,
                                 contracts=Path(demo_registry.root))
    assert snapshot(parallel) == snapshot(sequential)


def test_a_worker_checks_a_part_with_the_collector_paused_and_frees_it_without_the_collector(tmp_path):
    """Issue 43: a worker checks a part with the cycle collector paused and leaves it paused while the part is sent
    (a batch of whole captures resumes it); nothing of a part waits for the collector to be freed (a closure of its
    fast path referred back to it: the next pass then traversed all its items). What the part finds is unchanged."""
    import gc

    from wirecheck.check import parallel
    from wirecheck.check.parts import PartChecks

    source = FIXTURES / "acp" / "2.4.0" / "valid" / "session.ndjson"
    header, *frames = source.read_bytes().splitlines()
    path = tmp_path / "session.ndjson"
    path.write_bytes(b"\n".join([header, *frames * 40]) + b"\n")
    spec = "acp@2.4.0"
    engine = Engine(REGISTRY.load(spec), CheckOptions(), REGISTRY.load)
    form, ranges = parallel._ranges(str(path), path.stat().st_size, 4096, 1 << 20)
    assert form == "framed" and len(ranges) > 3
    inherited, parallel._ENGINE[:] = parallel._ENGINE[:], [None, CheckOptions(), engine]
    try:
        gc.collect()
        parts = [parallel._check_range(str(path), *at, 1 << 20, form, frozenset()) for at in ranges[1:]]
        assert not gc.isenabled()
        assert sum(len(part.items) for part in parts) > 100
        del parts
        assert not [o for o in gc.get_objects() if isinstance(o, PartChecks)]
        parallel._check_batch(0, [str(source)])
        assert gc.isenabled()
    finally:
        parallel._ENGINE[:] = inherited
        gc.enable()
    sequential, split = _both(spec, [str(path)], plan=Plan(jobs=2, forced=True, range_bytes=4096, split_min_bytes=0))
    assert snapshot(split) == snapshot(sequential) and gc.isenabled()


@pytest.fixture(scope="module")
def fuzz_traffic():
    """`wirecheck fuzz SPEC --messages-only` (every kind, both directions, framed), per release: header, frames."""
    import subprocess
    import sys

    frames = {}
    for spec in ("qoder-agent-sdk@1.0.23", "acp@2.4.0"):
        out = subprocess.run([sys.executable, "-m", "wirecheck", "fuzz", spec, "--count", "4", "--seed", "3",
                              "--messages-only"], capture_output=True, check=True, timeout=600).stdout.splitlines()
        frames[spec] = out[0], out[1:]
    return frames


def _with_id(frame: bytes, new_id) -> bytes:
    """The frame with its request id (JSON-RPC's `id`, Qoder's `request_id`, a control response's inner one)
    replaced; a frame without one as it was."""
    value = orjson.loads(frame)
    message = value["message"]
    for holder, key in ((message, "id"), (message, "request_id"), (message.get("response"), "request_id")):
        if isinstance(holder, dict) and key in holder and (key != "id" or "jsonrpc" in message):
            holder[key] = new_id
            return orjson.dumps(value)
    return frame


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.23", "acp@2.4.0"])
def test_requests_answered_within_a_part_are_settled_there_and_agree(fuzz_traffic, tmp_path, monkeypatch, spec,
                                                                     seed):
    """A worker takes each request answered within its part, and the answer, out of what it sends back: the
    capture's engine runs only their steps on its correlation, in their place (check/parts.py PartChecks._settle).
    On traffic whose ids come from a handful (an id reused while its request still waits, answered twice, answers
    to nothing, requests of unknown methods with the same ids), with the correlation's bounds small enough that
    requests are dropped and answered ones forgotten, split into parts of a few lines: the answer of one process,
    and pairs were settled (with the usual bound)."""
    from wirecheck.check import correlation, parallel

    header, frames = fuzz_traffic[spec]
    rng = random.Random(seed)
    ids = ([0, "a", 1, 2, True] if spec.startswith("acp") else ["r0", "r1", "r2", "r3", "r4"])[: rng.choice([2, 3, 5])]
    lines = [_with_id(frame, rng.choice(ids)) for frame in frames * 2]
    unknown = {"from": "client", "message": {"jsonrpc": "2.0", "method": "x/unknown"}} if spec.startswith("acp") \
        else {"from": "sdk", "message": {"type": "control_request", "request": {"subtype": "x_unknown"}}}
    for _ in range(rng.randrange(0, 4)):
        lines.insert(rng.randrange(len(lines)), _with_id(orjson.dumps(unknown), rng.choice(ids)))
    for at in rng.sample(range(len(lines) - 1), 8):  # between a request and its answer: its id, of no kind
        asked = orjson.loads(lines[at])["message"]
        asked_id = asked.get("id" if spec.startswith("acp") else "request_id")
        if asked_id is not None and (b'"result"' in lines[at + 1] or b'"control_response"' in lines[at + 1]):
            lines.insert(at + 1, _with_id(orjson.dumps(unknown), asked_id))
    for _ in range(6):
        at = rng.randrange(len(lines))
        if rng.random() < 0.5:
            del lines[at]
        else:
            lines.insert(rng.randrange(len(lines)), lines[at])
    path = tmp_path / "traffic.ndjson"
    path.write_bytes(b"\n".join([header, *lines]) + b"\n")
    bound = rng.choice([4, 6, 100_000])
    monkeypatch.setattr(correlation, "MAX_AWAITING", bound)
    monkeypatch.setattr(correlation, "MAX_ANSWERED", rng.choice([2, 3, 100_000]))
    settled = []
    replay = parallel._Part.replay
    monkeypatch.setattr(parallel._Part, "replay",
                        lambda part, *args: settled.append(_steps(part)) or replay(part, *args))
    plan = Plan(jobs=2, forced=True, range_bytes=rng.choice([400, 900, 3000]), split_min_bytes=0)
    sequential, result = _both(spec, [str(path)], plan=plan)
    codes = {f.code for f in sequential.findings}
    assert codes & {"DUPLICATE_REQUEST_ID", "DUPLICATE_RESPONSE", "RESPONSE_WITHOUT_REQUEST"}, codes
    assert snapshot(result) == snapshot(sequential)
    assert len(settled) > 5
    assert sum(settled) > 0 or bound < 1000  # a small bound: pairs with as many requests between settle not


def _steps(part) -> int:
    """The settled correlation steps among a part's items (PartChecks._settle)."""
    return sum(1 for item in part.items if type(item) is tuple and len(item) in (3, 4))


@pytest.mark.parametrize("between", ["requests", "requests of unknown methods"])
def test_a_request_dropped_before_its_answer_in_the_same_part_is_not_settled(fuzz_traffic, tmp_path, monkeypatch,
                                                                           between):
    """Past MAX_AWAITING requests waiting at once, the oldest is dropped, and its answer then answers nothing
    known (counted in the CORRELATION_LIMIT note). A worker settles no pair with as many requests between them as
    the bound (PartChecks._settle; the bound is the capture's engine's, passed with each part): here each answer
    follows its request after six others (of its kind, or of methods the release lacks, which the capture's engine
    remembers too), with a bound of four, in parts of whole blocks."""
    from wirecheck.check import correlation, parallel

    header, frames = fuzz_traffic["acp@2.4.0"]
    request, answer = next((a, b) for a, b in itertools.pairwise(frames)
                           if b'"method"' in a and b'"id"' in a and b'"result"' in b)
    blocks = []
    for block in range(40):
        blocks.append(_with_id(request, f"k{block}"))
        filler = request if between == "requests" else orjson.dumps(
            {"from": "client", "message": {"jsonrpc": "2.0", "method": "x/unknown", "id": 0}})
        blocks.extend(_with_id(filler, f"f{block}-{at}") for at in range(6))
        blocks.append(_with_id(answer, f"k{block}"))
    path = tmp_path / "far.ndjson"
    path.write_bytes(b"\n".join([header, *blocks]) + b"\n")
    monkeypatch.setattr(correlation, "MAX_AWAITING", 4)
    replays = []
    replay = parallel._Part.replay
    monkeypatch.setattr(parallel._Part, "replay", lambda part, *args: replays.append(part) or replay(part, *args))
    sequential, result = _both("acp@2.4.0", [str(path)], plan=Plan(jobs=2, forced=True, range_bytes=3000,
                                                                    split_min_bytes=0))
    assert "CORRELATION_LIMIT" in {f.code for f in sequential.findings}
    assert snapshot(result) == snapshot(sequential)
    assert len(replays) > 5 and not any(_steps(part) for part in replays)


def test_a_settled_answer_can_be_its_senders_last_message(fuzz_traffic, tmp_path):
    """A process obligation's breach names the kind of the role's last message (check/outcome.py). The agent's
    last message here is an answer a worker settled, after a request of its own settled in the same part: the
    breach names the answer's kind, as in one process (PartChecks._settle notes the latest of each role)."""
    header, frames = fuzz_traffic["acp@2.4.0"]

    def pair(asker: bytes) -> tuple[bytes, bytes]:
        return next((a, b) for a, b in itertools.pairwise(frames)
                    if a.startswith(asker) and b'"method"' in a and b'"id"' in a and b'"result"' in b)

    request, answer = pair(b'{"from":"client"')
    asked, notice = pair(b'{"from":"agent"')
    notice = _with_id(asked, "y") + b"\n" + _with_id(notice, "y")
    record = orjson.dumps({"process": {"role": "agent", "exit_status": 0, "signal": None,
                                       "stopped_by_harness": False, "ended_by": None, "stopped_at": None,
                                       "input_closed_at": 1.0, "last_output_at": 1.0, "exited_at": 60.0,
                                       "final_newline": True}})
    from wirecheck.check import parallel

    path = tmp_path / "last.ndjson"
    tail = b"\n".join([notice, _with_id(request, "z"), _with_id(answer, "z"), record]) + b"\n"
    path.write_bytes(b"\n".join([header, *frames]) + b"\n" + tail)
    size = path.stat().st_size
    range_bytes = next(n for n in range(1500, size, 50)  # the tail within the last part, not the first
                       if 0 < parallel._ranges(str(path), size, n, 1 << 20)[1][-1][0] <= size - len(tail))
    sequential, result = _both("acp@2.4.0", [str(path)], plan=Plan(jobs=2, forced=True, range_bytes=range_bytes,
                                                                    split_min_bytes=0))
    engine = Engine(REGISTRY.load("acp@2.4.0"))
    answer_kind = engine.classifier.stream_message_kind(orjson.loads(answer)["message"], "agent")
    asked_kind = engine.classifier.stream_message_kind(orjson.loads(asked)["message"], "agent")
    assert answer_kind is not None and asked_kind is not None and answer_kind != asked_kind
    breach = [f for f in sequential.findings if f.line == len(frames) + 6]
    assert [f.kind for f in breach] == [answer_kind.id], breach
    assert snapshot(result) == snapshot(sequential)


@pytest.mark.parametrize("bound", [3, 100_000])
def test_a_run_of_settled_pairs_leaves_the_correlation_as_its_steps_one_by_one(monkeypatch, bound):
    """A worker sends requests answered by the very next message, in a row, as one run (sequences.SettledPairs);
    the capture's engine settles the run (SequenceRun.settled_pairs) with shapes looked up once. The correlation
    it leaves (requests awaiting and answered, with their places and answer counts, what was dropped and
    forgotten), the obligations' counts and the findings are those of each pair's two steps taken one by one
    (settled_request, settled_answer): with ids reused while a request still awaits its answer (the slow way:
    DUPLICATE_REQUEST_ID), bools and numbers as ids, and a bound on requests awaiting that is reached."""
    from wirecheck.check import correlation
    from wirecheck.check.sequences import SettledPairs

    monkeypatch.setattr(correlation, "MAX_AWAITING", bound)
    monkeypatch.setattr(correlation, "MAX_ANSWERED", 4)
    engine = Engine(REGISTRY.load("acp@2.4.0"))
    kinds = {kind.id: kind for kind in engine.release.kinds}
    shapes = [("agent.session.set_mode", "client", "agent.response"), ("agent.initialize", None, "agent.response"),
              ("client.fs.read_text_file", "agent", "client.response")]
    rng = random.Random(7)

    def runs():
        capture = CaptureFile("t.ndjson")
        capture.form = "framed"
        return engine.sequences.start(capture), engine.sequences.start(capture)

    batched, stepped = runs()
    found: tuple[list, list] = ([], [])
    for sequence, emit in ((batched, found[0].append), (stepped, found[1].append)):
        for line in range(5):  # requests awaiting their answers, some ids then reused by pairs
            sequence.settled_request(kinds["agent.session.set_mode"], line, "t.ndjson", 1000 + line, "client", emit)
    pairs = SettledPairs(shapes)
    for line in range(1, 80, 2):
        pairs.add(line, rng.randrange(len(shapes)), rng.choice([0, 1, 2, True, False, "a", 7.5, line, -line]))
    batched.settled_pairs(pairs, kinds, "t.ndjson", 100, found[0].append)
    for line, code, request_id in zip(pairs.lines, pairs.codes, pairs.ids, strict=True):
        kind_id, sender, answer_id = shapes[code]
        stepped.settled_request(kinds[kind_id], request_id, "t.ndjson", line + 100, sender, found[1].append)
        stepped.settled_answer(kinds[answer_id], request_id)

    def state(sequence):
        requests = sequence.requests
        return ({key: (r.kind.id, r.request_id, r.line, r.sender, r.answered) for key, r in requests.awaiting.items()},
                [(key, r.kind.id, r.request_id, r.line, r.sender, r.answered) for key, r in requests.answered.items()],
                requests.dropped, requests.forgotten, sequence.judged)

    assert state(batched) == state(stepped)
    assert found[0] == found[1] and "DUPLICATE_REQUEST_ID" in {f.code for f in found[0]}
    assert batched.requests.forgotten and (bound > 10 or batched.requests.dropped)


def test_requests_answered_in_a_row_cross_as_one_run(fuzz_traffic, tmp_path):
    """A part whose requests are each answered by the next message sends them back as runs of pairs
    (sequences.SettledPairs), one item each, not an item per pair (a request some monitor reads, such as ACP's
    session/request_permission, goes back whole and ends a run); the answer is the one process's."""
    from wirecheck.check import parallel
    from wirecheck.check.sequences import SettledPairs

    header, frames = fuzz_traffic["acp@2.4.0"]
    pairs = [(a, b) for a, b in itertools.pairwise(frames)
             if b'"method"' in a and b'"id"' in a and b'"result"' in b]
    lines = [frame for index in range(200) for frame in (_with_id(pairs[index % len(pairs)][0], f"q{index}"),
                                                        _with_id(pairs[index % len(pairs)][1], f"q{index}"))]
    path = tmp_path / "pairs.ndjson"
    path.write_bytes(b"\n".join([header, *lines]) + b"\n")
    replays = []
    replay = parallel._Part.replay
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel._Part, "replay", lambda part, *args: replays.append(part) or replay(part, *args))
        sequential, result = _both("acp@2.4.0", [str(path)], plan=Plan(jobs=2, forced=True, range_bytes=6000,
                                                                        split_min_bytes=0))
    assert snapshot(result) == snapshot(sequential)
    runs = [item for part in replays for item in part.items if type(item) is SettledPairs]
    assert runs and max(map(len, runs)) > 5 and sum(map(len, runs)) > 4 * len(runs)


def test_the_pool_is_no_larger_than_the_cpus_and_the_work_allow(tmp_path, monkeypatch):
    """`-j` asks at most for WORKERS_PER_CPU per CPU and one worker per piece of work: `-j 200` on a 17 KB capture
    started 200 processes (attack-input F5). Two stay two, as asked; an absurd -j is a usage error, not an
    OverflowError (exit 3)."""
    from typer.testing import CliRunner

    from wirecheck.check import parallel
    from wirecheck.cli.app import app

    sizes: list[int] = []
    workers = parallel._workers

    def counting(jobs, *rest):  # type: ignore[no-untyped-def]
        sizes.append(jobs)
        return workers(jobs, *rest)

    monkeypatch.setattr(parallel, "_workers", counting)
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    release = load_registry().load("qoder-agent-sdk@1.0.23")
    capture = Path(__file__).resolve().parents[2] / "fixtures/qoder-agent-sdk/1.0.23/real/stdout.ndjson"
    engine = Engine(release)
    source = ReleaseSource(None, release.name)
    one = check(engine, source, [CaptureFile(str(capture))], Plan(jobs=200, forced=True))
    assert sizes == [2] and one.messages == engine.run([CaptureFile(str(capture))]).messages
    copies = [tmp_path / f"{i}.ndjson" for i in range(20)]
    for path in copies:
        path.write_bytes(capture.read_bytes())
    check(engine, source, [CaptureFile(str(p)) for p in copies], Plan(jobs=200, forced=True))
    assert sizes[-1] == 8  # four a CPU, though twenty captures could use twenty
    check(engine, source, [CaptureFile(str(p)) for p in copies[:3]], Plan(jobs=200, forced=True))
    assert sizes[-1] == 3  # one a capture
    assert parallel._pool_size(Plan(jobs=2, forced=True), [100]) == 2
    for value in ("99999999999999999999", "2147483648", "1025"):
        done = CliRunner().invoke(app, ["validate", "qoder-agent-sdk@1.0.23", str(capture), "-j", value])
        assert done.exit_code == 2 and "less than or equal to 1024" in done.output, (value, done.output)


def test_a_plain_streams_workers_keep_what_only_a_process_record_reads(tmp_path, monkeypatch):
    """A plain stream has no process record, so messages a process obligation reads by their kind alone (Qoder's
    exit: the last of the results, user and assistant messages) need nothing of the capture's order there: a worker
    takes them as one process does (Engine._plain_entries) instead of sending each back, and the findings agree."""
    from wirecheck.check import parallel

    real = (Path(__file__).resolve().parents[2] / "fixtures/qoder-agent-sdk/1.0.23/real/stdout.ndjson").read_bytes()
    path = tmp_path / "stream.ndjson"
    path.write_bytes(real * 200)
    items: list = []
    replay = parallel._Part.replay
    monkeypatch.setattr(parallel._Part, "replay", lambda part, *args: items.extend(part.items) or replay(part, *args))
    release = load_registry().load("qoder-agent-sdk@1.0.23")
    engine = Engine(release)
    assert "result.success" in engine._last_only
    sequential = engine.run([CaptureFile(str(path))])
    split = check(engine, ReleaseSource(None, release.name), [CaptureFile(str(path))],
                  Plan(jobs=2, forced=True, range_bytes=2048, split_min_bytes=0))
    assert snapshot(split) == snapshot(sequential) and split.messages == 600
    back = {item[3] for item in items if type(item) is tuple and len(item) == 8}
    assert items and not back & engine._last_only, back
