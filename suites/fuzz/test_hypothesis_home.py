"""fuzz and diff use Hypothesis; its storage (Unicode tables, examples) goes to the user's cache, never into the
folder wirecheck runs in (a pre-commit hook or CI step would leave `.hypothesis/` in the user's checkout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def run(args, cwd, cache):
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, "-m", "wirecheck", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=600, check=False)


def test_fuzz_and_diff_schemas_leave_no_hypothesis_folder_where_they_run(tmp_path):
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    fuzzed = run(["fuzz", "claude-code-print@2.1.218", "--count", "2", "--seed", "1"], work, cache)
    assert fuzzed.returncode == 0, fuzzed.stderr
    # a pattern whose example only Hypothesis's regex strategy finds (diff/regex_example.py)
    old = {"type": "object", "properties": {"a": {"type": "string"}}}
    new = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-f]{3}-(x|y)[0-9]{2}$"}}}
    (work / "old.json").write_text(json.dumps(old))
    (work / "new.json").write_text(json.dumps(new))
    diffed = run(["diff-schemas", "old.json", "new.json"], work, cache)
    assert diffed.returncode in (0, 1), diffed.stderr
    assert sorted(p.name for p in work.iterdir()) == ["new.json", "old.json"]
    assert (cache / "wirecheck" / "hypothesis").is_dir()
