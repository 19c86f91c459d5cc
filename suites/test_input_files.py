"""input_files: the one way wirecheck opens a file it reads and reads a whole one. What would never end or never
start (a device, a named pipe nobody writes to, a loop of symbolic links) and what is larger than the limit is one
Unreadable with the reason in words, the same for every kind of file, never a hang, a MemoryError or another
exception."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import pytest

from wirecheck import input_files
from wirecheck.input_files import Unreadable, read_bytes, read_text


@pytest.fixture
def quick_fifo_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(input_files, "FIFO_WAIT_SECONDS", 0.3)


def _refused(path: str | Path, what: str = "waivers file", limit: int = 1 << 20) -> Unreadable:
    with pytest.raises(Unreadable) as raised:
        read_bytes(path, what, limit)
    assert raised.value.path == os.fspath(path)
    return raised.value


def test_a_device_is_refused_before_reading_and_dev_null_is_empty(tmp_path: Path) -> None:
    assert _refused("/dev/zero").reason == ("is a device, not a waivers file (a device such as /dev/zero never "
                                            "ends)")
    (tmp_path / "link.yaml").symlink_to("/dev/urandom")  # a symbolic link is followed to what it names
    assert "is a device, not a schema file" in _refused(tmp_path / "link.yaml", "schema file").reason
    assert read_bytes("/dev/null", "waivers file") == b""


def test_missing_a_directory_and_a_loop_of_links(tmp_path: Path) -> None:
    missing = _refused(tmp_path / "nope.yaml")
    assert missing.missing and missing.reason == "waivers file not found"
    assert _refused(tmp_path, "baseline file").reason == "is a directory, not a baseline file"
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert "loop of symbolic links" in _refused(tmp_path / "a").reason


def test_a_file_over_the_limit_is_refused_by_its_size_before_it_is_read(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as out:
        out.truncate(300 << 20)  # sparse: 300 MiB that take no disk
    monkeypatch.setattr(os, "read", None)  # reading any of it would fail here
    refused = _refused(path, "schema file", 16 << 20)
    assert refused.too_large
    assert refused.reason == ("is 300 MiB, more than the 16 MiB wirecheck reads of a schema file (see Limits in the "
                              "README)")
    path.write_bytes(b"x" * 1000)
    assert read_bytes(path, "schema file", 1000) == b"x" * 1000
    assert _refused(path, "schema file", 999).reason.startswith("is 1,000 bytes, more than the 999 bytes")


def test_a_named_pipe_nobody_writes_to_is_refused_after_the_wait(tmp_path: Path, quick_fifo_wait: None) -> None:
    fifo = tmp_path / "waivers.yaml"
    os.mkfifo(fifo)
    started = time.monotonic()
    refused = _refused(fifo)
    assert refused.reason == ("is a named pipe (FIFO) and no process wrote to it within 0.3 s (start the writer "
                              "first)")
    assert time.monotonic() - started < 5


def _writer(fifo: Path, parts: list[bytes], pause: float = 0.0) -> threading.Thread:
    def write() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb", buffering=0) as out:
            for part in parts:
                out.write(part)
                time.sleep(pause)
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_named_pipe_is_read_whole_however_its_writer_hands_it_over(tmp_path: Path, quick_fifo_wait: None) -> None:
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    writer = _writer(fifo, [b'{"type":', b' "object"', b"}"], pause=0.05)
    assert read_text(fifo, "schema file") == '{"type": "object"}'
    writer.join(5)


def test_a_named_pipe_whose_writer_stops_is_refused_not_waited_for(tmp_path: Path, quick_fifo_wait: None) -> None:
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    stop = threading.Event()

    def write() -> None:
        with open(fifo, "wb", buffering=0) as out:
            out.write(b'{"type":')
            stop.wait(10)  # holds the pipe open, sending nothing more
    threading.Thread(target=write, daemon=True).start()
    try:
        assert "whose writer sent nothing for 0.3 s" in _refused(fifo, "schema file").reason
    finally:
        stop.set()


def test_a_named_pipe_past_the_limit_is_refused_once_that_much_came(tmp_path: Path, quick_fifo_wait: None) -> None:
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    _writer(fifo, [b"x" * 4096] * 64)  # 256 KiB: the writer blocks once the reader stops; the daemon thread ends
    refused = _refused(fifo, "schema file", 64 << 10)
    assert refused.too_large
    assert refused.reason == ("holds more than 64 KiB, the most wirecheck reads of a schema file (see Limits in "
                              "the README)")


def test_text_that_is_not_utf8_says_where(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"reason: caf\xe9\n")
    with pytest.raises(Unreadable, match=r"not UTF-8 text \(byte 11: invalid continuation byte\)"):
        read_text(path, "waivers file")


def test_a_confined_folder_is_read_only_inside_itself(tmp_path: Path) -> None:
    """input_files.confine (contracts folders and packs: issue 41, 3): a file whose symbolic links lead out of the
    folder is refused before it is opened, whatever reads it and however the folder is named; links inside it, and
    files outside every confined folder, are read as before."""
    folder, outside = tmp_path / "contracts", tmp_path / "home"
    (folder / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret").write_text("ghp_TOKEN")
    (folder / "sub" / "data.yaml").write_text("a: 1\n")
    (folder / "out.yaml").symlink_to(outside / "secret")
    (folder / "in.yaml").symlink_to(Path("sub") / "data.yaml")
    (tmp_path / "alias").symlink_to(folder, target_is_directory=True)  # the folder by another name
    (outside / "back").symlink_to(folder / "out.yaml")  # outside every confined folder: not refused
    assert read_bytes(folder / "out.yaml", "contract file") == b"ghp_TOKEN"  # not confined yet
    input_files.confine(folder)
    for path in (folder / "out.yaml", tmp_path / "alias" / "out.yaml"):
        refused = _refused(path, "contract file")
        assert "is a symbolic link that leads out of" in refused.reason and "ghp_TOKEN" not in str(refused)
    assert read_bytes(folder / "in.yaml", "contract file") == b"a: 1\n"
    assert read_bytes(tmp_path / "alias" / "in.yaml", "contract file") == b"a: 1\n"
    assert read_bytes(outside / "back", "capture file") == b"ghp_TOKEN"
