"""Every ACP release holds the agent to a cancelled turn's stop reason (AGENT-HONOURS-CANCEL) and the client to
cancelling its pending permission requests (CLIENT-CANCELS-PENDING-PERMISSIONS): each release's schema.json carries
the same MUST (StopReason `cancelled`, RequestPermissionOutcome `cancelled`), and until now only 2.4.0 stated them, so
acp@1.9.0 certified an agent that answered a cancelled turn end_turn (attack-cert finding 3). Proved on the real
example agent of @agentclientprotocol/sdk 1.9.0 as the live tier recorded it, and its broken twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirecheck.check.engine import check_captures
from wirecheck.contracts import load_registry

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "suites/harness/data/live-jsonrpc/acp-example-agent/capture.framed.ndjson"
RELEASES = ["acp@0.5.1", "acp@0.8.0", "acp@0.15.0", "acp@0.18.2", "acp@0.23.0", "acp@1.9.0", "acp@2.4.0"]


@pytest.mark.parametrize("spec", RELEASES)
def test_a_cancelled_turn_answered_end_turn_breaks_the_obligation_on_every_release(spec, tmp_path):
    release = load_registry(ROOT / "contracts").load(spec)
    assert {"AGENT-HONOURS-CANCEL", "CLIENT-CANCELS-PENDING-PERMISSIONS"} <= {o.id for o in release.obligations}
    real = RUN.read_text()
    cancelled = '{"jsonrpc":"2.0","id":4,"result":{"stopReason":"cancelled"}}'
    assert real.count(cancelled) == 1
    twin = tmp_path / "twin.framed.ndjson"
    twin.write_text(real.replace(cancelled, cancelled.replace("cancelled", "end_turn")))

    def honoured(path: Path) -> list[tuple[str, int | None]]:
        return [(f.code, f.line) for f in check_captures(release, [str(path)]).findings
                if f.obligation == "AGENT-HONOURS-CANCEL"]

    assert honoured(RUN) == []
    assert honoured(twin) == [("LEADS_TO", 20)]
