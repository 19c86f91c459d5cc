"""programs.tail: the one place a program's last stderr bytes are kept (certify --run, stub, fuzz-consumer and
programs.run all read stderr through it)."""

from __future__ import annotations

import os
import random
import sys
import tracemalloc

import pytest

from wirecheck.programs.program import Program, Scratch, run
from wirecheck.programs.tail import READ_BYTES, TAIL_BYTES, Tail, last_words


@pytest.mark.parametrize("limit", [1, 7, 4096])
@pytest.mark.parametrize("seed", range(5))
def test_the_last_bytes_are_kept_exactly_whatever_the_chunks(limit, seed):
    rng = random.Random(seed)
    written = bytes(rng.randrange(256) for _ in range(3 * limit + 1000))  # not UTF-8: bytes are bytes
    tail, at = Tail(limit), 0
    while at < len(written):
        size = rng.choice([0, 1, 2, limit - 1, limit, limit + 1, 5000])
        tail.add(written[at:at + size])
        at += size
    assert tail.data == written[-limit:] and tail.total == len(written)


def test_a_stream_shorter_than_the_limit_is_kept_whole():
    tail = Tail(100)
    tail.add(b"\x80 starts with a stray continuation byte")  # nothing was cut: shown as it is, not dropped
    assert tail.data == b"\x80 starts with a stray continuation byte"
    assert tail.text() == "\ufffd starts with a stray continuation byte"


@pytest.mark.parametrize("char", ["é", "€", "😀"])
def test_a_multibyte_character_cut_at_the_front_is_dropped_not_garbled(char):
    for limit in range(1, 12):
        tail = Tail(limit)
        tail.add((char * 10).encode())
        text = tail.text()
        assert "\ufffd" not in text and set(text) <= {char}
        assert len(text) == limit // len(char.encode())  # every whole character kept


def test_bytes_that_are_not_utf8_inside_the_tail_still_show_as_replacement_characters():
    tail = Tail(8)
    tail.add(b"x" * 20 + b"ab\xffcd\xc3")
    assert tail.text() == "xxab\ufffdcd\ufffd"


def test_memory_stays_bounded_however_much_is_added():
    tail = Tail(TAIL_BYTES)
    chunk = os.urandom(READ_BYTES)
    tracemalloc.start()
    try:
        for _ in range(1600):  # 100 MiB
            tail.add(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * READ_BYTES + 2 * TAIL_BYTES, peak
    assert tail.data == chunk[-TAIL_BYTES:] and tail.total == 1600 * READ_BYTES


def test_following_a_program_that_writes_64_mib_on_stderr_keeps_its_last_words_only(tmp_path):
    scratch = Scratch.create()
    code = ("import sys\nfor _ in range(1 << 15):\n    sys.stderr.buffer.write(('€' * 682 + '\\n').encode())\n"
            "sys.stderr.write('Not logged in · Please run /login\\n')\n")
    try:
        with Program([sys.executable, "-c", code], env=scratch.env(), stdout=-3) as program:
            tail = Tail().follow(program.stderr)
            assert program.wait(120) == 0
            assert tail.join(60)
    finally:
        scratch.remove()
    assert tail.total == (1 << 15) * 2047 + len("Not logged in · Please run /login\n".encode())
    assert len(tail.data) == TAIL_BYTES and tail.data.endswith(b"Please run /login\n")
    assert "\ufffd" not in tail.text()
    assert tail.last_words().endswith("€ / Not logged in · Please run /login")


def test_run_keeps_the_end_of_stderr_not_its_beginning():
    done = run([sys.executable, "-c", "import sys; sys.stderr.write('x' * 100000 + 'the end')"],
               env=dict(os.environ), timeout=60, max_output=1000)
    assert done.stderr == (b"x" * 100000 + b"the end")[-1000:]


def test_last_words_are_the_last_three_lines_that_say_something():
    assert last_words("a\n\n b \nc\n\nd\n  \n") == "b / c / d"
    assert last_words("one line") == "one line"
    assert last_words("") == ""
    assert last_words("x" * 600 + "\nend") == ("x" * 600 + " / end")[-500:]
    assert last_words("a\nb\nc", lines=1, chars=200) == "c"
