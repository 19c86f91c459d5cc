"""The fuzzer draws the URL edge cases of the issue for a field a WHATWG reader parses (`whatwg-url`, `zod-url`):
as valid values the ones the reader accepts, as format mutants the ones it refuses, each re-judged by the engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from wirecheck.contracts.formats import (
    URL_CASES,
    WHATWG_URL,
    ZOD_URL,
    conforming_samples,
    is_whatwg_url,
    is_zod_url,
    refused_samples,
)
from wirecheck.contracts.reference import FORMAT_CHECKER
from wirecheck.fuzz.mutants import MutantFactory
from wirecheck.fuzz.sampling import draw_examples

from .conftest import def_uri

ROOT = Path(__file__).resolve().parents[2]
CHECKS = {"web": is_whatwg_url, "zod": is_zod_url, "webHttps": is_whatwg_url}


def test_valid_values_include_the_edge_cases_the_reader_accepts(compiler):
    values = draw_examples(compiler.for_uri(def_uri("Formats")), 150, 0)
    for field, conforms in CHECKS.items():
        drawn = [v[field] for v in values if field in v]
        assert drawn and all(conforms(text) for text in drawn)
    edges = {v[f] for v in values for f in ("web", "zod")} & {c.text for c in URL_CASES}
    assert len(edges) >= 8, edges
    assert any(not FORMAT_CHECKER.conforms(text, "uri") for text in edges)  # what RFC 3986 would have refused
    assert any(text in conforming_samples(ZOD_URL) and text not in conforming_samples(WHATWG_URL)
               for text in (v["zod"] for v in values))  # only zod's trim() makes it a URL
    assert all(v["webHttps"].startswith(("https:", "http:")) for v in values if "webHttps" in v)


def test_format_mutants_are_the_edge_cases_the_reader_refuses(compiler, schemas):
    factory = MutantFactory(schemas, def_uri("Formats"))
    wrong: dict[str, set[str]] = {"/web": set(), "/zod": set()}
    for value in draw_examples(compiler.for_uri(def_uri("Formats")), 40, 1):
        for mutant in factory.mutants(value):
            if mutant.keyword == "format" and mutant.pointer in wrong:
                wrong[mutant.pointer].add(mutant.instance[mutant.pointer[1:]])
    assert wrong["/web"] <= set(refused_samples(WHATWG_URL)) and len(wrong["/web"]) >= 4, wrong
    assert wrong["/zod"] <= set(refused_samples(ZOD_URL)) and len(wrong["/zod"]) >= 4, wrong
    # among them, URLs RFC 3986 accepts: a `format: uri` check would have called these mutants valid
    assert any(FORMAT_CHECKER.conforms(text, "uri") for text in wrong["/web"] | wrong["/zod"])


def _wirecheck(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wirecheck", *argv], input=stdin, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_xopc_discovery_corpus_carries_url_edge_cases_and_the_engine_agrees(tmp_path):
    """xopc 0.0.253's endpoints are zod-url: the corpus has the edge cases, and `validate` (the engine, not the
    fuzzer's own validators) confirms every entry's expect, valid and invalid alike."""
    valid, invalid = tmp_path / "valid.jsonl", tmp_path / "invalid.jsonl"
    for path, extra in ((valid, ()), (invalid, ("--invalid",))):
        done = _wirecheck("fuzz", "xopc@0.0.253", "-k", "discovery.response", "-n", "25", "--seed", "5",
                          "-o", str(path), *extra)
        assert done.returncode == 0, done.stderr
        checked = _wirecheck("validate", "xopc@0.0.253", str(path))
        assert checked.returncode == 0, checked.stdout + checked.stderr
    endpoints = {url for line in valid.read_text(encoding="utf-8").split("\n") if line
                 for url in json.loads(line)["message"]["endpoints"].values()}
    assert len(endpoints & set(conforming_samples(ZOD_URL))) >= 5
    broken = [json.loads(line)["breaks"] for line in invalid.read_text(encoding="utf-8").split("\n") if line]
    assert any(b["keyword"] == "format" and b["pointer"].startswith("/endpoints/") for b in broken)
