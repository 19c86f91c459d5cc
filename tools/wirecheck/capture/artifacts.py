"""Artifact captures: generated files, argv lists and environments, in wirecheck's JSON form.

One artifact per JSON document (a `.json` file) or per line (JSONL):
    {"wirecheck_artifact": 1, "channel": "file", "path": "machine.json", "content": {...}}
    {"wirecheck_artifact": 1, "channel": "file", "path": "x.opencode.json", "text": "{...raw file...}"}
    {"wirecheck_artifact": 1, "channel": "argv", "argv": ["opencode", "run", "prompt", "--format", "json"]}
    {"wirecheck_artifact": 1, "channel": "env", "env": {"NAVARCH_AGENT": "qoder"}}
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from typing import Any

from wirecheck.capture.ndjson import capture_finding
from wirecheck.check.message import ArtifactInfo, Message
from wirecheck.findings import Finding
from wirecheck.json_text import parse_json


def artifact_message(document: Any, file: str, line: int | None, where: str | None) -> Message | Finding:
    def bad(message: str) -> Finding:
        return capture_finding("CAPTURE_FORMAT", message, file, line, where)

    version = document.get("wirecheck_artifact") if isinstance(document, dict) else None
    if type(version) is not int or version != 1:  # `true == 1` in Python, not in the format
        return bad('an artifact must be {"wirecheck_artifact": 1, "channel": ...}')
    channel = document.get("channel")
    if channel == "file":
        path = document.get("path")
        if not isinstance(path, str):
            return bad("a file artifact needs a string path")
        if "content" in document and "text" in document:  # which one the file held is not ours to guess
            return bad("a file artifact holds content (parsed JSON) or text (the raw file), not both")
        if "content" in document:
            value = document["content"]
        elif isinstance(document.get("text"), str):
            value, problem = parse_json(document["text"].encode("utf-8", "surrogatepass"))
            if problem is not None:
                return capture_finding(problem.code, f"{path}: {problem.message}", file, line, where,
                                       pointer=problem.pointer)
        else:
            return bad("a file artifact needs content (parsed JSON) or text (the raw file)")
        return Message(value=value, file=file, line=line, where=where, artifact=ArtifactInfo("file", path=path))
    if channel == "argv":
        argv = document.get("argv")
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
            return bad("an argv artifact needs argv: a non-empty array of strings")
        program = posixpath.basename(argv[0].replace("\\", "/"))
        return Message(value=argv, file=file, line=line, where=where, artifact=ArtifactInfo("argv", program=program))
    if channel == "env":
        env = document.get("env")
        if not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
            return bad("an env artifact needs env: an object of strings")
        # optional "program": whose environment it is, so an env kind can select it with `program:`
        program = document.get("program")
        if program is not None and not isinstance(program, str):
            return bad("an env artifact's program must be a string (the program whose environment it is)")
        return Message(value=env, file=file, line=line, where=where, artifact=ArtifactInfo("env", program=program))
    return bad(f"unknown artifact channel {channel!r}; expected file, argv or env")


def read_artifacts(items: Iterable[tuple[int, Any] | Finding], file: str) -> Iterator[Message | Finding]:
    for item in items:
        if isinstance(item, Finding):
            yield item
        else:
            yield artifact_message(item[1], file, item[0], None)
