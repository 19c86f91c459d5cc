"""A YAML capture (issue 42, 6): said once to be YAML, with the line that converts it, not one PARSE_ERROR per line
with no remedy."""

from __future__ import annotations

import subprocess
import sys

from wirecheck.capture import YAML_REMEDY, CaptureFile, read_capture
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry

YAML = b"type: result\nsubtype: success\nis_error: false\n"


def test_a_yaml_file_is_one_finding_with_the_way_to_convert_it(tmp_path):
    path = tmp_path / "result.yaml"
    path.write_bytes(YAML * 50)
    items = list(read_capture(CaptureFile(str(path))))
    assert [(f.code, f.severity.value, f.line) for f in items] == [("CAPTURE_FORMAT", "error", None)]
    assert items[0].message == f"the capture is a YAML file: {YAML_REMEDY}"


def test_yaml_lines_under_another_name_say_so_once_after_the_lines(tmp_path):
    path = tmp_path / "result.jsonl"
    path.write_bytes(YAML)
    items = list(read_capture(CaptureFile(str(path))))
    assert [f.code for f in items] == ["PARSE_ERROR"] * 3 + ["CAPTURE_FORMAT"]
    assert sum("convert it first" in f.message for f in items) == 1


def test_the_conversion_it_gives_works_as_written_and_the_result_is_checked(tmp_path):
    command = YAML_REMEDY.split("convert it first, one JSON line per YAML document: ", 1)[1]
    (tmp_path / "FILE.yaml").write_bytes(YAML)
    subprocess.run(["bash", "-c", command.replace("python3 ", f"{sys.executable} ", 1)], cwd=tmp_path, check=True)
    registry = load_registry()
    result = Engine(registry.load("claude-code-print@2.1.218")).run([CaptureFile(str(tmp_path / "FILE.jsonl"))])
    assert result.messages == 1 and result.unclassified == 0  # a result message now, judged as one
