"""The model side of a live run: what a scenario's `model:` script becomes while the command runs.

An HTTP script (`anthropic-messages`, `openai-chat`) is served by a stub server on 127.0.0.1 (stub/server.py with
stub/model.ModelApp) for the length of the run, and `${model_url}` is its base URL; with `refused: true` nothing
listens there (a port that was free a moment before), so the command's connection is refused. A
`qoder-fake-responses` script is written as the file `${model_file}` names. Afterwards the exchanges are kept beside
the capture as HAR (`<capture>.model.har`), the fake responses as `<capture>.model.jsonl`: evidence of what the
command asked its model, next to what it printed.
"""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path

from wirecheck.output_files import write_bytes
from wirecheck.programs.program import Scratch
from wirecheck.stub.har import HarRecorder
from wirecheck.stub.model import HTTP_APIS, ModelApp, ModelScript, fake_responses
from wirecheck.stub.redaction import Secrets
from wirecheck.stub.server import LOOPBACK, StubServer


def evidence_path(capture: Path, suffix: str) -> Path:
    """`run.framed.ndjson` → `run.model.har` (suffix ".model.har"): the model side's record beside the capture."""
    name = capture.name
    for ending in (".framed.ndjson", ".ndjson", ".jsonl"):
        if name.endswith(ending):
            name = name[: -len(ending)]
            break
    return capture.with_name(name + suffix)


def _free_port() -> int:
    """A port nothing listens on (it was free when asked; it is closed again at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


class ModelSide:
    """`with ModelSide(script, scratch, capture) as side:` — `side.places` holds `model_url` / `model_file` for the
    scenario's placeholders; `side.finish()` stops the server, writes the evidence and returns the problems (what
    the command asked for that the script did not expect). Without a script it does nothing. `secrets`: the run's,
    cut from the HAR; the credentials the command sends its model are learnt into it."""

    def __init__(self, script: ModelScript | None, scratch: Scratch, capture: Path, secrets: Secrets | None = None):
        self.script = script
        self.places: dict[str, str] = {}
        self.problems: list[str] = []
        self.evidence: Path | None = None
        self.requests = 0
        self.asides = 0  # requests of another conversation than the scripted one (ModelApp.asides)
        self._capture = capture
        self._app: ModelApp | None = None
        self._server: StubServer | None = None
        if script is None:
            return
        if script.api in HTTP_APIS:
            if script.refused:
                self.places["model_url"] = f"http://{LOOPBACK}:{_free_port()}"
                return
            self._app = ModelApp(script)
            # the HAR cuts the run's secrets (the values handed to the command) and the credentials it sees
            recorder = HarRecorder("wirecheck scripted model", secrets=secrets if secrets is not None else ())
            self._server = StubServer(self._app, recorder=recorder).start()
            self.places["model_url"] = self._server.base_url
        else:
            path = scratch.root / "model.jsonl"
            path.write_bytes(fake_responses(script))
            self.places["model_file"] = str(path)

    def __enter__(self) -> ModelSide:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def finish(self) -> list[str]:
        """Stop serving and keep the evidence; idempotent. The problems found (also in `problems`)."""
        if self._server is not None:
            server, self._server = self._server, None
            server.stop()
            self.evidence = evidence_path(self._capture, ".model.har")
            with contextlib.suppress(OSError):
                server.recorder.write(self.evidence)
            assert self._app is not None
            self.requests, self.asides = self._app.requests, self._app.asides
            self.problems.extend(self._app.problems)
        elif "model_file" in self.places and self.evidence is None:
            self.evidence = evidence_path(self._capture, ".model.jsonl")
            with contextlib.suppress(OSError):  # output_files: a symbolic link there is replaced, not written through
                write_bytes(self.evidence, Path(self.places["model_file"]).read_bytes())
        return self.problems
