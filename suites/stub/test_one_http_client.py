"""wirecheck has one HTTP client (stub/client.py, with its redirect and token policy). Nothing else may speak HTTP:
no other module imports an HTTP client library, and a `$ref` to a URL in a contract or a schema given to
diff-schemas is refused, never fetched (jsonschema-rs fetches such a `$ref` itself, following redirects to any
host, unless its validator is given a retriever that refuses: contracts.formats.fast_validator gives one)."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import wirecheck
from wirecheck.cli.app import app
from wirecheck.contracts.formats import fast_validator
from wirecheck.stub.server import Reply, StubServer

PACKAGE = Path(wirecheck.__file__).parent
HTTP_CLIENTS = ("urllib.request", "http.client", "requests", "httpx", "aiohttp", "urllib3", "pycurl")
THE_CLIENT = PACKAGE / "stub" / "client.py"


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_only_the_client_module_imports_an_http_client():
    speaking = sorted(
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
        if path != THE_CLIENT and any(name == c or name.startswith(c + ".") for name in imported(path)
                                      for c in HTTP_CLIENTS)
    )
    assert speaking == []
    assert {"urllib.request", "http.client"} <= imported(THE_CLIENT)  # the scan sees imports where they are


class Counter:
    def __init__(self):
        self.paths: list[str] = []

    def handle(self, method, url, path, headers, body):
        self.paths.append(path)
        return Reply(302, None, {"location": "/schema.json"}) if path == "/moved" else Reply(
            200, b'{"type": "string"}', {"content-type": "application/schema+json"})


@pytest.fixture
def server():
    counter = Counter()
    with StubServer(counter) as running:
        running.counter = counter
        yield running


@pytest.mark.parametrize("draft", ["https://json-schema.org/draft/2020-12/schema",
                                   "http://json-schema.org/draft-07/schema#"])
def test_diff_schemas_never_fetches_a_ref(server, tmp_path, draft):
    for name, maximum in (("old", 1), ("new", 2)):
        (tmp_path / f"{name}.json").write_text(json.dumps({
            "$schema": draft, "type": "object",
            "properties": {"a": {"$ref": f"{server.base_url}/moved"}, "b": {"type": "integer", "maximum": maximum}},
        }))
    result = CliRunner().invoke(app, ["diff-schemas", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    assert result.exit_code == 2 and "never fetched" in result.output
    assert server.counter.paths == []


@pytest.mark.parametrize("command", [["validate", "demo@1.0.0", "CAPTURE"], ["fuzz", "demo@1.0.0"],
                                     ["diff", "demo@1.0.0", "demo@1.0.0"]])
def test_a_contract_ref_to_a_url_is_refused_not_fetched(server, tmp_path, command):
    contracts = tmp_path / "contracts"
    shutil.copytree(Path(__file__).parents[1] / "data" / "contracts", contracts)
    stream = contracts / "demo" / "1.0.0" / "stream.json"
    schema = json.loads(stream.read_text())
    name = next(iter(schema["$defs"]))
    schema["$defs"][name] = {"$ref": f"{server.base_url}/moved"}
    stream.write_text(json.dumps(schema))
    (tmp_path / "capture.jsonl").write_text("{}\n")
    argv = [str(tmp_path / "capture.jsonl") if part == "CAPTURE" else part for part in command]
    result = CliRunner().invoke(app, [*argv, "--contracts", str(contracts)])
    assert result.exit_code == 2 and "references resolve offline" in result.output
    assert server.counter.paths == []


def test_the_validator_builder_fetches_nothing_even_for_a_root_ref(server):
    # jsonschema-rs fetched this (through the redirect) with no registry, and with an empty one
    with pytest.raises(Exception, match="never fetched"):
        fast_validator({"$ref": f"{server.base_url}/moved"})
    assert server.counter.paths == []
