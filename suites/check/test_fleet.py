"""The Dask path: the same per-capture check as Dask tasks on a real local cluster of worker processes, merged into
the answer one sequential run gives — with unreadable captures and workers killed mid-run."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from pathlib import Path

import pytest

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.check.parallel import ReleaseSource

from .test_parallel import NASTY
from .test_result import snapshot

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
fleet = pytest.importorskip("wirecheck.check.fleet")

OPTIONS = CheckOptions(max_line_bytes=1024)


@pytest.fixture(scope="module", autouse=True)
def no_dask_thread_outlives_the_module():
    """distributed keeps one offload thread for the rest of the process (distributed/utils.py `_offload_executor`,
    started by the first cluster). Left in the test process, every later fork (test_parallel's workers) is a fork of
    a multi-threaded process: it can deadlock the child, and Python 3.12+ warns on each (82 warnings on 3.13). Ended
    here, with a fresh executor in its place, whose thread starts only if Dask is used again."""
    yield
    from concurrent.futures import ThreadPoolExecutor

    utils = distributed.utils
    utils._offload_executor.shutdown(wait=True)
    utils._offload_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="Dask-Offload")
    assert [t.name for t in threading.enumerate() if t.name.startswith(("Dask", "Profile"))] == []


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    # distributed's profiler samples each server's event loop from a thread of its own ("Profile", distributed/core.py,
    # on every Python but 3.11) that ends only when that loop closes: this process forks after the module
    folder = str(tmp_path_factory.mktemp("dask"))
    with dask.config.set({"distributed.worker.profile.enabled": False}), fleet.local_cluster(3, folder) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def engine_and_source(demo_registry):
    return Engine(demo_registry.load("demo@1.0.0"), OPTIONS, demo_registry.load), \
        ReleaseSource(str(demo_registry.root), "demo@1.0.0")


def _folder(tmp_path, count, lines=5):
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(count):
        rng = random.Random(i)
        (folder / f"run-{i:04d}.ndjson").write_bytes(b"\n".join(rng.choice(NASTY) for _ in range(lines)) + b"\n")
    return folder


def _sequential(engine, captures):
    return engine.run(CaptureFile(label) for _, label in captures)


def test_a_folder_of_captures_with_unreadable_ones_merges_to_the_sequential_answer(client, engine_and_source,
                                                                                   tmp_path):
    engine, source = engine_and_source
    folder = _folder(tmp_path, 150)
    os.symlink(tmp_path / "nowhere", folder / "run-0042b.ndjson")  # a dangling link: cannot be read
    (folder / "run-0077b.ndjson").mkdir()  # a folder that looks like a capture: not one, left out by the glob
    captures = fleet.expand([f"{folder}/*.ndjson"])
    assert len(captures) == 151 and all(url.startswith("file://") for url, _ in captures)
    result = fleet.check_fleet(engine, source, captures, client, batch=8)
    expected = _sequential(engine, captures)
    assert result.capture_count == 151 and result.unreadable_count == 1
    assert [c.file for c in result.unreadable] == [str(folder / "run-0042b.ndjson")]
    assert snapshot(result) == snapshot(expected)


def _kill_a_busy_worker(client, killed: list[float]):
    """Kill (SIGKILL) the first worker seen running a task, from another thread, while the run goes on."""
    pids = client.run(os.getpid)  # worker address → its process

    def kill() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            busy = [worker for worker, keys in client.processing().items() if keys]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(time.monotonic())
                return
            time.sleep(0.005)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


def test_a_worker_killed_mid_run_has_its_captures_retried(client, engine_and_source, tmp_path):
    engine, source = engine_and_source
    captures = fleet.expand([f"{_folder(tmp_path, 40, lines=200)}/*.ndjson"])
    killed: list[float] = []
    thread = _kill_a_busy_worker(client, killed)
    result = fleet.check_fleet(engine, source, captures, client, batch=2)
    ended = time.monotonic()
    thread.join(30)
    assert killed and killed[0] < ended, "the worker was not killed while the run went on"
    assert result.unreadable_count == 0
    assert snapshot(result) == snapshot(_sequential(engine, captures))


def test_captures_whose_worker_dies_more_often_than_allowed_are_named_not_lost(engine_and_source, tmp_path):
    import dask

    engine, source = engine_and_source
    captures = fleet.expand([f"{_folder(tmp_path, 40, lines=200)}/*.ndjson"])
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            fleet.local_cluster(2, str(tmp_path / "dask")) as cluster, distributed.Client(cluster) as client:
        killed: list[float] = []
        thread = _kill_a_busy_worker(client, killed)
        result = fleet.check_fleet(engine, source, captures, client, batch=2)
        thread.join(30)
    assert killed
    lost = result.unreadable
    assert lost and all(c.unreadable.startswith("lost: its Dask worker died") for c in lost)
    assert result.capture_count == 40 and result.unreadable_count == len(lost)
    # everything else is exactly what a sequential run finds in those captures
    rest = [(u, label) for u, label in captures if label not in {c.file for c in lost}]
    assert result.messages == _sequential(engine, rest).messages


def test_no_match_and_a_missing_extra_are_usage_errors(tmp_path):
    with pytest.raises(fleet.FleetUnavailable, match="no captures match"):
        fleet.expand([f"{tmp_path}/*.har"])


def test_expand_keeps_plain_paths_and_sorts_each_glob(tmp_path):
    folder = _folder(tmp_path, 3)
    one = str(folder / "run-0001.ndjson")
    assert [label for _, label in fleet.expand([one, f"{folder}/run-000[02].ndjson"])] == [
        one, str(folder / "run-0000.ndjson"), str(folder / "run-0002.ndjson")]
    assert Path(one).exists()
