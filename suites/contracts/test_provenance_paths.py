"""Provenance a user of the wheel can follow (issue 42, 6): the wheel ships contracts/, not fixtures/, so a contract
that cites a recording under fixtures/ says that it is in wirecheck's source repository."""

from __future__ import annotations

import re
from pathlib import Path

CONTRACTS = Path(__file__).resolve().parents[2] / "contracts"


def test_every_fixtures_path_a_contract_cites_is_said_to_be_in_the_source_repository():
    cited = []
    for path in sorted(CONTRACTS.rglob("*")):
        if path.suffix not in (".yaml", ".json") or path.name in ("checked.json",):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in re.finditer(r"fixtures/", line):
                cited.append((path.relative_to(CONTRACTS).as_posix(), number))
                # as written, or inside a single-quoted YAML scalar (wirecheck''s: the dumper's quoting)
                assert re.search(r"wirecheck'?'s source repository: $", line[:match.start()]), \
                    f"{path}:{number}: {line.strip()[:200]}"
    assert cited  # the bundled contracts do cite recordings: the check ran
