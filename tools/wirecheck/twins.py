"""Every generated file that stands in for data people edit, written again in one go: `python -m wirecheck.twins`
after changing anything under contracts/, diff/rules.yaml or rules/texts/*.yaml.

- contracts/checked.json and contracts/parsed.jsonl (contracts/checked.py): the digest of each bundled release that
  loads with every check run, and the data of each YAML file the loader reads, keyed by the SHA-256 of its bytes;
- diff/rules.json (diff/catalogue.py): the diff rule catalogue, what every diff reads;
- rules/texts.json (rules/catalogue.py): the check texts, what every command reads.

They exist so a diff or a validate of the bundled contracts imports no YAML (issue 30, 6). Each is held current by a
test that fails, naming this command, when it is not what its sources say (suites/contracts/test_checked.py,
suites/diff/test_gate.py, suites/rules/test_catalogue.py).
"""

from __future__ import annotations

import sys


def main() -> int:
    from wirecheck.contracts import checked
    from wirecheck.diff import catalogue as diff_rules
    from wirecheck.rules import catalogue as check_texts

    checked.main()
    diff_rules.write_json_twin()
    check_texts.write_json_twin()
    print(f"wrote {diff_rules.RULES_JSON} and {check_texts.TEXTS_JSON}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
