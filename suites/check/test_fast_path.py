"""The engine's fast path (valid messages counted in the line loop, observing rules fed without a Message) must give
exactly the findings and coverage of the general path, on real contracts and mixed captures."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from wirecheck.bench import generated_messages, sample_messages
from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry

ROOT = Path(__file__).resolve().parents[2]


def _brief(result):
    findings = sorted((f.code, f.severity.value, f.line or 0, f.pointer or "", f.kind or "") for f in result.findings)
    coverage = {k: (c.seen, c.errors, c.warnings) for k, c in result.coverage.items()}
    return findings, coverage, result.messages, result.unclassified


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.13"])
def test_fast_and_general_paths_agree(spec, tmp_path, monkeypatch):
    release = load_registry(ROOT / "contracts").load(spec)
    samples = sample_messages(release, ROOT / "fixtures") + generated_messages(release, per_kind=3, seed=5)
    rng = random.Random(11)
    lines = []
    for _ in range(600):
        value, _kind = samples[rng.randrange(len(samples))]
        if rng.random() < 0.1:  # break some: a wrong type somewhere near the top, or an unknown field
            value = {**value, "type": 7} if rng.random() < 0.5 else {**value, "zz_extra": True}
        lines.append(orjson.dumps(value))
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    general_calls = []
    real_check = Engine.check_message

    def counted(self, message, *args):  # type: ignore[no-untyped-def]
        general_calls.append(message.line)
        return real_check(self, message, *args)

    monkeypatch.setattr(Engine, "check_message", counted)
    fast = _brief(Engine(release).run([CaptureFile(str(path))]))
    # the fast path is really taken, from the second line on, even in a capture shorter than one read chunk:
    # only the first line, the broken ones and kinds with more than a schema to check take the general path
    assert 0 < len(general_calls) < len(lines) - 100, len(general_calls)  # (all 600 before)
    monkeypatch.setattr(Engine, "_fast_validators", lambda self, run: {})
    general = _brief(Engine(release).run([CaptureFile(str(path))]))
    assert fast == general
    assert fast[0], "the capture should draw some findings"
