"""wirecheck.output_files: every output file goes in place only once whole (a failed write leaves the old file, and
no temporary one); files written together go in place together; a named pipe is waited for its reader, within the
time an input's pipe is waited for its writer."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from wirecheck import output_files
from wirecheck.output_files import Unwritable, check_writable, together, write_bytes, write_text, writing

fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")


def test_a_file_is_replaced_whole_with_the_mode_it_had_and_encoded_as_every_output(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text("old")
    path.chmod(0o640)
    write_text(path, "new \u00e9 \ud800")
    assert path.read_bytes() == "new \u00e9 \\ud800".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]
    new = tmp_path / "deeper" / "new.json"
    write_bytes(new, b"{}")
    umask = os.umask(0)
    os.umask(umask)
    assert new.read_bytes() == b"{}" and stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("failure", ["an OSError while writing", "an exception of the writer's own", "a full disk"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path, failure):
    path = tmp_path / "report.json"
    path.write_text('{"good": true}')

    def write() -> None:
        with writing(path) as handle:
            handle.write('{"half": ')
            if failure == "an OSError while writing":
                raise OSError(28, "No space left on device")
            if failure == "an exception of the writer's own":
                raise KeyError("a bug")
            handle.flush()
            os.close(handle.fileno())  # the disk goes away under the writer: flushing the rest fails
            handle.write("x" * 100_000)

    with pytest.raises(KeyError if failure == "an exception of the writer's own" else Unwritable) as raised:
        write()
    if raised.type is Unwritable:
        assert str(raised.value).startswith(f"{path}: cannot write: ")
    assert path.read_text() == '{"good": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_file_size_limit_is_a_failed_write_that_leaves_the_old_file(tmp_path):
    """A full disk, as a process limit (RLIMIT_FSIZE: the write fails with EFBIG; Python ignores SIGXFSZ)."""
    import subprocess
    import sys

    path = tmp_path / "report.json"
    path.write_text('{"good": true}')
    code = ("import resource, sys\nfrom wirecheck.output_files import Unwritable, write_text\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))\n"
            f"try:\n    write_text({str(path)!r}, 'x' * 100000)\nexcept Unwritable as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == f"{path}: cannot write: File too large\n", done.stderr
    assert path.read_text() == '{"good": true}' and sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_files_written_together_go_in_place_only_when_every_one_is_whole(tmp_path):
    for name in ("a.txt", "b.jsonl"):
        (tmp_path / name).write_text("old " + name)
    with pytest.raises(Unwritable), together() as outputs:
        with outputs.writing(tmp_path / "a.txt") as handle:
            handle.write("new a")
        with outputs.writing(tmp_path / "b.jsonl") as handle:
            handle.write("half")
            raise OSError(28, "No space left on device")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.txt": "old a.txt", "b.jsonl": "old b.jsonl"}
    with together() as outputs:
        for name in ("a.txt", "b.jsonl", "c.svg"):
            with outputs.writing(tmp_path / name) as handle:
                handle.write("new " + name)
        assert {p.read_text() for p in tmp_path.iterdir() if not p.name.startswith(".")} == {"old a.txt",
                                                                                            "old b.jsonl"}
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {n: "new " + n for n in ("a.txt", "b.jsonl",
                                                                                             "c.svg")}


@pytest.mark.parametrize("target", ["a file", "nothing", "/dev/null", "a folder", "a named pipe"])
def test_a_symbolic_link_is_replaced_by_the_file_and_its_target_left_alone(tmp_path, target):
    """A link committed at `reports/stub/certification.txt` redirected CI's write to wherever it pointed (issue 41,
    7): the link is replaced, whatever it points to, its target left as it was."""
    real = tmp_path / "real.json"
    if target == "a file":
        real.write_text("the user's own file")
        real.chmod(0o600)
    elif target == "a folder":
        real.mkdir()
    elif target == "a named pipe":
        os.mkfifo(real)
    link = tmp_path / "out" / "link.json"
    link.parent.mkdir()
    link.symlink_to(os.devnull if target == "/dev/null" else real)
    check_writable(link)
    assert not output_files.written_in_place(link)
    write_text(link, "report")
    assert not link.is_symlink() and link.read_text() == "report"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(link.stat().st_mode) == 0o666 & ~umask  # not the mode of the link's target
    if target == "a file":
        assert real.read_text() == "the user's own file"
    assert sorted(p.name for p in link.parent.iterdir()) == ["link.json"]


def test_files_written_together_replace_their_links(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("kept")
    folder = tmp_path / "reports"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).symlink_to(victim)
    with together() as outputs:
        for name in ("a.txt", "b.txt"):
            with outputs.writing(folder / name) as handle:
                handle.write(name)
    assert [(p.name, p.is_symlink(), p.read_text()) for p in sorted(folder.iterdir())] == [
        ("a.txt", False, "a.txt"), ("b.txt", False, "b.txt")]
    assert victim.read_text() == "kept"


def test_a_loop_of_symbolic_links_is_refused_as_an_input_loop_is(tmp_path):
    """`-o` on a loop was a RuntimeError on Python 3.11 (validate compared Path.resolve()s: exit 3; issue 41, 8)."""
    from wirecheck.input_files import LOOP_REASON

    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for call in (check_writable, lambda p: write_text(p, "x"), output_files.written_in_place):
        with pytest.raises(Unwritable, match="is a loop of symbolic links"):
            call(tmp_path / "a")
    with pytest.raises(Unwritable, match="its folder is a loop of symbolic links"):
        write_text(tmp_path / "a" / "report.json", "x")
    assert str(Unwritable(tmp_path / "a", LOOP_REASON)) == f"{tmp_path / 'a'}: cannot write: {LOOP_REASON}"
    assert output_files.location(tmp_path / "a") == tmp_path / "a"  # never raises


def test_where_the_bytes_land(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "folder").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "link.json").symlink_to(tmp_path / "elsewhere.json")
    assert output_files.location(tmp_path / "folder" / "link.json") == tmp_path / "real" / "link.json"


def test_the_names_of_open_files_are_written_through(tmp_path):
    """`-o /dev/stdout` failed when stdout was a pipe (its link's target, /proc/PID/fd/pipe:[N], was taken for a
    file to replace); the system's names of open files are written through, in place, as a shell writes them."""
    import subprocess
    import sys

    script = ("from wirecheck.output_files import write_text, written_in_place\n"
              "assert written_in_place('/dev/stdout')\n"
              "write_text('/dev/stdout', 'through the pipe\\n')\n"
              "write_text('/proc/self/fd/2', 'through stderr\\n')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"through the pipe\n", b"through stderr\n")
    with (tmp_path / "redirected.txt").open("w") as out:
        done = subprocess.run([sys.executable, "-c", script], stdout=out, stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 0 and (tmp_path / "redirected.txt").read_text() == "through the pipe\n"
    assert not (tmp_path / "redirected.txt").is_symlink()


def test_a_failed_write_leaves_no_folder_it_made(tmp_path):
    """`import schema -o` onto a full disk left an empty `evil/1.0.0/` (issue 41, 8): the folders made on the way to
    outputs that do not go in place are removed again, those that were there and hold anything are not."""
    (tmp_path / "kept").mkdir()
    with pytest.raises(Unwritable, match="No space left on device"), together() as outputs:
        with outputs.writing(tmp_path / "kept" / "evil" / "1.0.0" / "schema.json") as handle:
            handle.write("{}")
        with outputs.writing(tmp_path / "kept" / "registry.yaml") as handle:
            raise OSError(28, "No space left on device")
    assert list(tmp_path.rglob("*")) == [tmp_path / "kept"]
    with pytest.raises(KeyError), writing(tmp_path / "new" / "deeper" / "report.json") as handle:
        raise KeyError("a bug of the writer's own")
    assert list(tmp_path.rglob("*")) == [tmp_path / "kept"]


def test_what_cannot_be_written_is_named(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("")
    with pytest.raises(Unwritable, match="it is a folder"):
        write_text(tmp_path / "folder", "x")
    with pytest.raises(Unwritable, match="a file stands where a folder of this path should be"):
        write_text(tmp_path / "file" / "report.json", "x")
    with pytest.raises(Unwritable, match="it is a folder"):
        check_writable(tmp_path / "folder")
    write_text(os.devnull, "written to the device as it is")
    assert Path(os.devnull).is_char_device()


@fifo
def test_a_named_pipe_nobody_reads_is_refused_within_the_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(output_files, "FIFO_WAIT_SECONDS", 0.5)
    pipe = tmp_path / "out.fifo"
    os.mkfifo(pipe)
    check_writable(pipe)  # not opened: a reader would see an empty output
    started = time.monotonic()
    with pytest.raises(Unwritable, match=r"named pipe \(FIFO\) and no process read from it within 0.5 s"):
        write_text(pipe, "report")
    assert time.monotonic() - started < 5
    assert stat.S_ISFIFO(pipe.stat().st_mode)  # still the pipe: never replaced by a file


@fifo
def test_a_named_pipe_with_a_reader_gets_the_output_as_it_is_written(tmp_path):
    pipe = tmp_path / "out.fifo"
    os.mkfifo(pipe)
    got: list[bytes] = []

    def read() -> None:
        time.sleep(0.3)  # the reader comes after the writer started waiting
        with open(pipe, "rb") as reader:
            got.append(reader.read())

    reader = threading.Thread(target=read)
    reader.start()
    write_text(pipe, "report\n" * 100_000)  # more than a pipe holds: written as it is read
    reader.join(30)
    assert got == [b"report\n" * 100_000] and stat.S_ISFIFO(pipe.stat().st_mode)


def test_outputs_wait_for_a_named_pipe_as_long_as_inputs_do():
    try:
        from wirecheck.input_files import FIFO_WAIT_SECONDS
    except ImportError:  # before the inputs' bounded reader: captures' own
        from wirecheck.capture.source import FIFO_WAIT_SECONDS
    assert output_files.FIFO_WAIT_SECONDS == FIFO_WAIT_SECONDS
