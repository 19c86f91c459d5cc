"""The corruption wrappers (suites/harness/wrappers/, test data of the corpus in fixtures/live/corruptions/) each
change the real CLI's output in the one way they say, and nothing else: here in front of a fake "real CLI" that
prints a fixed transcript and its own arguments, so the corpus's recordings show what the wrappers' names claim."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WRAPPERS = Path(__file__).resolve().parent / "wrappers"
LINES = [
    {"type": "system", "subtype": "init"},
    {"type": "step_start"},
    {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1"}]}},
    {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]}},
    {"type": "text"},
    {"type": "step_finish"},
    {"type": "control_response", "response": {"request_id": "req_2_interrupt", "subtype": "success"}},
    {"type": "control_response", "response": {"request_id": "req_3_skills", "subtype": "success"}},
    {"type": "result", "subtype": "success"},
]
S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS, RESULT = (json.dumps(v) for v in LINES)


def run(tmp_path: Path, wrapper: str, code: int = 0, args: tuple[str, ...] = ("-p", "hi", "--output-format", "json"),
        timeout: float = 30) -> tuple[list[str], bytes, int]:
    real, transcript = tmp_path / "real", "\n".join([S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS,
                                                     RESULT])
    real.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\nprint({transcript!r})\n"
                    f"sys.exit({code})\n")
    real.chmod(0o755)
    done = subprocess.run([sys.executable, str(WRAPPERS / f"{wrapper}.py"), *args], capture_output=True,
                          timeout=timeout, env={**os.environ, "WIRECHECK_REAL_CLI": str(real)},
                          stdin=subprocess.DEVNULL)
    lines = done.stdout.decode().split("\n")
    argv = next(line for line in lines if line.startswith("["))  # the fake's first line: where the wrapper put it
    return [json.loads(argv)] + [line for line in lines if line != argv], done.stdout, done.returncode


@pytest.mark.parametrize(("wrapper", "expected"), [
    ("result_twice", [S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS, RESULT, RESULT]),
    ("result_first", [RESULT, S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS]),
    ("repeat_tool_use", [S, START, USE, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS, RESULT]),
    ("repeat_tool_result", [S, START, USE, RESULT_OF_TOOL, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS, RESULT]),
    ("step_finish_first", [S, FINISH, START, USE, RESULT_OF_TOOL, TEXT, INTERRUPTED, SKILLS, RESULT]),
    ("drop_interrupt_response", [S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, SKILLS, RESULT]),
    ("rename_result_subtype", [S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS,
                               json.dumps({"type": "result", "subtype": "succeeded"}, separators=(",", ":"))]),
    ("exit_1", [S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS, RESULT]),
])
def test_each_wrapper_changes_the_output_in_its_one_way(tmp_path, wrapper, expected):
    lines, raw, code = run(tmp_path, wrapper)
    assert lines[1:] == [*expected, ""] and raw.endswith(b"\n")
    assert code == (1 if wrapper == "exit_1" else 0)
    stream = wrapper == "result_first"
    assert lines[0] == ["-p", "hi", "--output-format", *(["stream-json", "--verbose"] if stream else ["json"])]


def test_the_format_wrapper_asks_for_stream_json_and_changes_nothing_else(tmp_path):
    lines, _, code = run(tmp_path, "stream_json")
    assert lines[0] == ["-p", "hi", "--output-format", "stream-json", "--verbose"] and code == 0
    assert lines[1:] == [S, START, USE, RESULT_OF_TOOL, TEXT, FINISH, INTERRUPTED, SKILLS, RESULT, ""]


def test_the_last_line_loses_its_newline_and_a_failing_cli_keeps_its_status(tmp_path):
    _, raw, code = run(tmp_path, "no_final_newline", code=3)
    assert raw.endswith(RESULT.encode()) and raw.count(b"\n") == 9 and code == 3
    assert run(tmp_path, "exit_1", code=3)[2] == 3  # only a success is turned into a failure


def test_the_hanging_wrapper_writes_everything_and_stays(tmp_path):
    with pytest.raises(subprocess.TimeoutExpired) as stayed:
        run(tmp_path, "hang_after_result", timeout=3)
    assert stayed.value.stdout.decode().rstrip("\n").endswith(RESULT)


def test_without_the_real_cli_a_wrapper_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_REAL_CLI"}
    done = subprocess.run([sys.executable, str(WRAPPERS / "exit_1.py")], capture_output=True, env=env, timeout=30)
    assert done.returncode == 2 and b"set WIRECHECK_REAL_CLI" in done.stderr
