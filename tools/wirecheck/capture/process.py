"""How the program that wrote a capture ended: the last line of a framed capture the live harness records.

    {"process": {"role": "claude-code", "exit_status": 0, "signal": null, "stopped_by_harness": false,
                 "ended_by": null, "stopped_at": null, "input_closed_at": 0.004, "last_output_at": 1.52,
                 "exited_at": 1.55, "final_newline": true}}

Times are seconds since the program started (the harness's clock). `exit_status` is null when the program did not
exit by itself (the harness stopped it: `stopped_by_harness`, from `stopped_at` on, with `ended_by` the signal it
took), or died of a
signal nobody sent it (`signal`, its name). `final_newline` says whether the last line it wrote on stdout ended with
a line feed (null: it wrote nothing). It is evidence like the messages (check/outcome.py judges it against the
release's process obligations), and a capture that carries it holds all the program wrote: a whole capture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KEY = "process"
_FIELDS = {"role": (str,), "exit_status": (int, type(None)), "signal": (str, type(None)),
           "stopped_by_harness": (bool,), "ended_by": (str, type(None)), "stopped_at": (int, float, type(None)),
           "input_closed_at": (int, float, type(None)),
           "last_output_at": (int, float, type(None)), "exited_at": (int, float, type(None)),
           "final_newline": (bool, type(None))}


@dataclass(frozen=True)
class ProcessRecord:
    role: str
    exit_status: int | None
    signal: str | None
    stopped_by_harness: bool
    ended_by: str | None
    stopped_at: float | None
    input_closed_at: float | None
    last_output_at: float | None
    exited_at: float | None
    final_newline: bool | None
    file: str = ""
    line: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {KEY: {name: getattr(self, name) for name in _FIELDS}}

    @property
    def how(self) -> str:
        """How it ended, for people: "exited with status 1", "killed by SIGSEGV", "still running; the harness ended
        it with SIGTERM"."""
        if self.stopped_by_harness:
            return "still running at the end of the run; the harness ended it" + (
                f" with {self.ended_by}" if self.ended_by else "")
        if self.signal is not None:
            return f"killed by {self.signal}"
        return f"exited with status {self.exit_status}"


def is_process_frame(frame: Any) -> bool:
    return isinstance(frame, dict) and KEY in frame and "from" not in frame


def read_process(frame: dict[str, Any], file: str, line: int) -> ProcessRecord | str:
    """The record in a `{"process": {...}}` line, or what is wrong with it."""
    body = frame[KEY]
    if len(frame) != 1 or not isinstance(body, dict):
        return 'a process line must be {"process": {...}} and nothing else'
    missing = [name for name in _FIELDS if name not in body]
    if missing:
        return f"the process line lacks {', '.join(missing)}"
    unknown = sorted(set(body) - set(_FIELDS))
    if unknown:
        return f"the process line has unknown member(s) {', '.join(unknown)}"
    for name, types in _FIELDS.items():
        value = body[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types) or (
                name.endswith("_at") and isinstance(value, (int, float)) and not value >= 0):  # NaN is not >= 0 either
            return f"process/{name} is {value!r}, not a {' or '.join(t.__name__ for t in types)}"
    status = body["exit_status"]
    if status is not None and not 0 <= status <= 255:
        return f"process/exit_status is {status}: an exit status is 0 to 255"
    endings = [name for name, how in (("exit_status", status is not None), ("signal", body["signal"] is not None),
                                      ("stopped_by_harness", body["stopped_by_harness"])) if how]
    if len(endings) != 1:
        return ("the process line says " + (" and ".join(endings) if endings else "none of exit_status, signal and "
                                             "stopped_by_harness") + ": a program ends one way")
    return ProcessRecord(**{name: body[name] for name in _FIELDS}, file=file, line=line)
