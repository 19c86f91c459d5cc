"""Load `contracts/`: the package registry and one release at a time, validating everything on the way in.

Every problem is collected with its file and JSON pointer and raised together as one `ContractError`, so a
reviewer sees all of a broken catalog at once.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

import jsonschema_rs
import orjson

from wirecheck import input_files
from wirecheck.contracts.errors import ContractError, ContractProblem, for_people, not_the_format
from wirecheck.contracts.model import (
    ABSENT,
    PRESENT,
    Base,
    Consumer,
    ContractRelease,
    FieldConditions,
    HttpSelector,
    JsonBodyReading,
    MemberReading,
    MessageKind,
    NonJsonReading,
    Provenance,
    Reply,
    RuleUse,
    SchemaLink,
    Source,
    UnknownKindReading,
)
from wirecheck.contracts.stamps import VERSION_STAMP, stamp_problems
from wirecheck.contracts.views import count_values, ref_loops, ref_target, subschemas
from wirecheck.data_files import YamlFileError, read_text
from wirecheck.json_text import parse_json
from wirecheck.limits import MAX_FILE_BYTES
from wirecheck.pointer import format_pointer, parse_pointer, resolve

ID_BASE = "https://contracts.wirecheck.invalid"
READERS_FILE = "readers.yaml"
BEHAVIOUR_FILE = "behaviour.yaml"  # contracts/behaviour.py
DIALECT = "https://json-schema.org/draft/2020-12/schema"
_OWN_SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
BUNDLED_PACKAGE = "wirecheck._contracts"  # the top-level contracts/, shipped in the wheel (pyproject.toml maps it)
PACK_GROUP = "wirecheck.contracts"  # entry points of installed contract packs


def bundled_contracts_dir() -> Path:
    """The contracts shipped inside the package: its folder, as the import system finds it (an installed wheel, an
    editable install). Not through importlib.resources, whose import (zipfile, tempfile, random) was a fifth of the
    instructions of a one-message `validate` (issue 42, 5)."""
    from importlib.util import find_spec

    spec = find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:  # an editable install made before contracts/ was mapped
        return Path(__file__).resolve().parents[3] / "contracts"
    return Path(next(iter(spec.submodule_search_locations)))


def default_contracts_dir() -> Path:
    """Where a new release is written by default (`wirecheck import`): the first folder of `$WIRECHECK_CONTRACTS`,
    else the bundled contracts."""
    first = os.environ.get("WIRECHECK_CONTRACTS", "").split(os.pathsep)[0]
    return Path(first) if first else bundled_contracts_dir()


@dataclass(frozen=True)
class ContractSource:
    """One folder with a registry.yaml: the bundled contracts, an installed pack, or a folder the user names."""

    root: Path
    origin: str  # "bundled", "folder", or "pack <distribution> <version>"
    listed: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (package, releases) as this folder's registry lists them


@dataclass(frozen=True)
class _Packs:
    """Where the installed packs come in a lookup order: found (entry points) and located when a lookup reaches
    them, never before."""


def contract_sources(spec: str | None) -> list[ContractSource | _Packs]:
    """The contract folders `spec` names, in the order their packages are looked up (the first to list a package
    has it). `spec` is `--contracts` / `$WIRECHECK_CONTRACTS`: folders separated by the path separator, where an
    empty entry (a leading or trailing separator, as in MANPATH) stands for the installed contracts: the bundled
    ones and every installed pack (`_Packs`: each located when a lookup reaches it). None or "" is the installed
    contracts alone. Each folder is `input_files.confine`d: no file is read through a symbolic link out of it."""
    sources: list[ContractSource | _Packs] = []
    for entry in (spec or "").split(os.pathsep):
        if entry:
            sources.append(ContractSource(Path(entry), "folder"))
        elif not any(isinstance(source, _Packs) for source in sources):
            sources += [ContractSource(bundled_contracts_dir(), "bundled"), _Packs()]
    for source in sources:
        if isinstance(source, ContractSource):
            input_files.confine(source.root)
    return sources


def _surely_no_pack() -> bool:
    """True when no installed distribution can declare a contract pack, found without importlib.metadata, whose
    import alone costs ~25 ms CPU of every command that reads the installed contracts (issue 30, 6). It answers
    True only where importlib.metadata's own search (MetadataPathFinder: the `*.dist-info` / `*.egg-info` folders
    of each sys.path entry) could find nothing: the only finder on sys.meta_path that lists distributions is the
    standard PathFinder, every sys.path entry is a folder (or absent; "" is the working folder) and none is an
    `.egg`, and no `entry_points.txt` in those folders' distributions mentions the group. Anything else (a zip on
    sys.path, another distribution finder, a mention of the group anywhere in an entry_points.txt): False, and
    importlib.metadata is asked as before."""
    import sys
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return False
    for entry in sys.path:
        if not isinstance(entry, str):
            return False
        folder = entry or "."
        if not os.path.exists(folder):
            continue
        if not os.path.isdir(folder) or os.path.basename(folder).lower().endswith(".egg"):
            return False
        try:
            children = os.listdir(folder)
        except OSError:
            return False
        for child in children:
            if not child.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, child, "entry_points.txt"), encoding="utf-8", errors="replace") as f:
                    if PACK_GROUP in f.read():
                        return False
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError:
                return False
    return True


def _packs() -> list[ContractSource | ContractProblem]:
    """Each installed pack (entry point group `wirecheck.contracts`: a name and the package whose folder holds the
    pack's registry.yaml), in entry-point name order: its folder (confined: `contract_sources`), or the problem
    that keeps it from being found. A pack is data: its folder is found as the import system would find the
    package, but nothing of it is imported (`pack_folder`)."""
    if _surely_no_pack():
        return []
    from importlib.metadata import entry_points

    found: list[ContractSource | ContractProblem] = []
    for point in sorted(entry_points(group=PACK_GROUP), key=lambda p: p.name):
        dist = point.dist
        origin = f"pack {dist.name} {dist.version}" if dist is not None else f"pack {point.name}"
        where = f"{origin} (entry point {PACK_GROUP}: {point.name} = {point.value})"
        if point.attr:
            found.append(ContractProblem(where, "", "the entry point must name a package (whose folder holds "
                                         "registry.yaml), not an attribute"))
            continue
        try:
            root = pack_folder(point.module)
        except (LookupError, ImportError) as exc:  # ImportError: a finder's own
            found.append(ContractProblem(where, "", f"cannot find the pack's package: {exc}"))
            continue
        input_files.confine(root)
        found.append(ContractSource(root, origin))
    return found


def pack_folder(module: str) -> Path:
    """The folder of the package `module` (dotted) names, found without importing it or any package it is in (a
    pack's `__init__.py` is never run: a pack is data, issue 41): each finder on sys.meta_path is asked for the
    name's spec, as importlib does before it loads anything, a dotted name's parent's search locations handed on
    to its child. LookupError says why there is none: no such module, a module and not a package, a package that
    is not a folder of files (zipped), or several folders of a namespace package none of which holds registry.yaml."""
    import sys

    locations: list[str] | None = None
    name = ""
    for part in module.split("."):
        name = f"{name}.{part}" if name else part
        spec = next((spec for finder in sys.meta_path if hasattr(finder, "find_spec")
                     for spec in [finder.find_spec(name, locations)] if spec is not None), None)
        if spec is None:
            raise LookupError(f"No module named {name!r}")
        if spec.submodule_search_locations is None:
            raise LookupError(f"{name!r} is a module, not a package (a folder that holds registry.yaml)")
        locations = list(spec.submodule_search_locations)
    folders = [Path(location) for location in locations or () if Path(location).is_dir()]
    if not folders:
        raise LookupError(f"{module!r} is not installed as files (zipped?)")
    holding = [folder for folder in folders if (folder / "registry.yaml").exists()]
    return (holding or folders)[0]


@cache
def own_schema(name: str) -> dict[str, Any]:
    """One of wirecheck's own format schemas (catalog, registry, report, expectations)."""
    return orjson.loads((_OWN_SCHEMAS / name).read_bytes())


def schema_id(package: str, version: str, relpath: str) -> str:
    return f"{ID_BASE}/{package}/{version}/{relpath}"


@dataclass(frozen=True)
class PackageInfo:
    name: str
    title: str
    releases: tuple[str, ...]
    npm: str | None = None
    pypi: str | None = None
    external: bool = False
    description: str | None = None
    root: Path | None = None  # the contracts folder that lists it (None: the registry's first)
    origin: str = "folder"  # of that folder: bundled, folder, or pack <distribution> <version>


class PackageRegistry:
    """The packages of a run's contract folders (`contract_sources`), looked up in order: the first folder whose
    registry lists a package has it. The folders before the installed packs are read at once; the packs, and what
    comes after them, only when a lookup reaches them (a package the folders before do not list) or every package
    is asked for (`packages`, `sources`): `wirecheck validate` of a bundled release never even lists the packs."""

    def __init__(self, sources: list[ContractSource | _Packs]):
        self.root = next(s.root for s in sources if isinstance(s, ContractSource))  # the first folder (--against)
        self._pending = list(sources)
        self._read: list[ContractSource] = []
        self._packages: dict[str, PackageInfo] = {}
        while self._pending and not isinstance(self._pending[0], _Packs):
            self._read_next()

    def _read_next(self) -> None:
        source = self._pending.pop(0)
        if isinstance(source, _Packs):
            found = _packs()
            problems = [p for p in found if isinstance(p, ContractProblem)]
            if problems:
                raise ContractError(problems)
            self._pending[:0] = [p for p in found if isinstance(p, ContractSource)]
            return
        data = _read_registry(source.root)
        listed = tuple((name, tuple(entry["releases"])) for name, entry in data["packages"].items())
        self._read.append(ContractSource(source.root, source.origin, listed))
        for name, entry in data["packages"].items():
            self._packages.setdefault(name, PackageInfo(
                name=name,
                title=entry["title"],
                releases=tuple(entry["releases"]),
                npm=entry.get("npm"),
                pypi=entry.get("pypi"),
                external=entry.get("external", False),
                description=entry.get("description"),
                root=source.root,
                origin=source.origin,
            ))

    def _read_all(self) -> None:
        while self._pending:
            self._read_next()

    @property
    def packages(self) -> MappingProxyType[str, PackageInfo]:
        """Every package of every folder (the packs found and read now, if they were not)."""
        self._read_all()
        return MappingProxyType(self._packages)

    @property
    def sources(self) -> tuple[ContractSource, ...]:
        self._read_all()
        return tuple(self._read)

    def resolve(self, spec: str) -> tuple[str, str]:
        """`xopc@0.0.253` or `@xopcai/xopc@0.0.253` → ("xopc", "0.0.253"); a ContractError names what exists."""
        name, sep, version = spec.rpartition("@")
        if not sep or not name or not version:
            raise ContractError(f"expected <package>@<version>, got {spec!r}")
        package = self.package(name)
        if version not in package.releases:
            raise ContractError(
                f"unknown release {version!r} of {package.name}; known: {', '.join(package.releases)}"
            )
        return package.name, version

    def package(self, name: str) -> PackageInfo:
        """The package `name` (or its npm or PyPI name) names: the folders are read in order until one lists it."""
        while True:
            found = next((info for info in self._packages.values() if name in (info.name, info.npm, info.pypi)), None)
            if found is not None or not self._pending:
                break
            self._read_next()
        if found is None:
            raise ContractError(f"unknown package {name!r}; known: {', '.join(self._packages)}")
        return found

    def previous(self, package: str, version: str) -> str | None:
        releases = self.package(package).releases
        index = releases.index(version)
        return releases[index - 1] if index > 0 else None

    def load(self, spec: str) -> ContractRelease:
        package, version = self.resolve(spec)
        return self._load_listed(package, version)

    def _load_listed(self, package: str, version: str) -> ContractRelease:
        """A release the registry lists; one without a catalog is an error in the registry, where it is listed."""
        info = self.package(package)
        root = info.root or self.root
        catalog = root / package / version / "catalog.yaml"
        if not (catalog.exists() or catalog.is_symlink()):  # a device, a pipe, a link loop: said when it is read
            index = info.releases.index(version)
            raise ContractError(ContractProblem(
                str(root / "registry.yaml"), format_pointer(["packages", package, "releases", index]),
                f"{version} is listed, but {package}/{version}/catalog.yaml does not exist"))
        return load_release(root, package, version)

    def unlisted(self) -> list[ContractProblem]:
        """Release folders (with a catalog) their folder's registry does not list: no command can reach them."""
        listings = [(s.root, s.listed) for s in self.sources]
        return [
            ContractProblem(str(root / "registry.yaml"), format_pointer(["packages", name, "releases"]),
                            f"{catalog.parent.name} is not listed, but {name}/{catalog.parent.name}/catalog.yaml "
                            "exists (add it in release order)")
            for root, listed in listings
            for name, releases in listed
            for catalog in sorted((root / name).glob("*/catalog.yaml"))
            if catalog.parent.name not in releases
        ]

    def load_all(self) -> tuple[list[ContractRelease], list[tuple[str, ContractError]]]:
        """Every release that loads (packages in registry order, releases in release order), and the
        `package@version` and error of every one that does not: a caller reports those, or leaves it to the
        contract self-tests."""
        loaded, failed = [], []
        for name, info in self.packages.items():
            for version in info.releases:
                try:
                    loaded.append(self._load_listed(name, version))
                except ContractError as exc:
                    failed.append((f"{name}@{version}", exc))
        return loaded, failed


def _read_yaml(path: Path) -> Any:
    try:
        return contract_yaml(path, what="contract file")
    except YamlFileError as exc:
        raise ContractError(ContractProblem(exc.file, "", exc.message)) from None


PARSED_FILE = "parsed.jsonl"  # in the bundled contracts: one line per YAML file the loader reads (contracts/checked.py)
_NOT_STORED = object()


def contract_yaml(path: Path, what: str = "file") -> Any:
    """A contract YAML file's data, as `yaml_lines.read_yaml_file` gives it (same data, same errors). A file of the
    bundled contracts whose bytes PARSED_FILE holds the data of (by SHA-256) is served from there: the same bytes
    parse to the same data, and PyYAML is then not even imported (its import and the five YAML files of a `wirecheck
    diff` of two releases were ~150 M instructions, issue 30, 6). Any other file (edited since the file was written,
    a user's contracts folder, a pack, a YAML value JSON cannot hold) is parsed."""
    stored = _parsed_of(path)
    if stored is None:
        from wirecheck.yaml_lines import read_yaml_file

        return read_yaml_file(path, what=what)
    text = read_text(path, what)  # the errors read_yaml_file gives; strict UTF-8: encoding it again gives the bytes
    data = _served(stored, parsed_key(text.encode("utf-8")))
    if data is not _NOT_STORED:
        return data
    from wirecheck.yaml_lines import parse_yaml

    return parse_yaml(text, str(path))


def parsed_key(raw: bytes) -> str:
    """What PARSED_FILE keys a YAML file's data by: the SHA-256 of its bytes (the writer and the reader both ask
    here, so they cannot drift apart)."""
    return hashlib.sha256(raw).hexdigest()


def _parsed_of(path: Path) -> bytes | None:
    """PARSED_FILE's bytes when `path` is in the bundled contracts (b"" when it cannot be read), else None."""
    root = bundled_contracts_dir().resolve()
    if root not in Path(path).resolve().parents:
        return None
    return _parsed_bytes(root)


@cache
def _parsed_bytes(root: Path) -> bytes:
    try:
        return input_files.read_bytes(root / PARSED_FILE, "parsed contract data")
    except input_files.Unreadable:
        return b""


def _served(stored: bytes, digest: str) -> Any:
    """The data of PARSED_FILE's line for `digest`, parsed afresh (a caller may keep or change it, as it may a YAML
    load's), or _NOT_STORED. A line is `{"sha256":"<digest>","file":...,"data":...}`: the key, found at a line's
    start, cannot be text inside a line (JSON escapes quotes in strings, and a line holds no newline)."""
    key = b'{"sha256":"' + digest.encode("ascii") + b'"'
    if stored.startswith(key):
        start = 0
    else:
        start = stored.find(b"\n" + key) + 1
        if start == 0:
            return _NOT_STORED
    end = stored.find(b"\n", start)
    try:
        return orjson.loads(stored[start:end if end >= 0 else None])["data"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return _NOT_STORED


@cache
def _fast(name: str) -> Any:
    """The jsonschema-rs validator for one of wirecheck's own schemas, or (`meta`) for the 2020-12 metaschema (which
    jsonschema-rs carries: nothing is fetched) with its formats asserted, `regex` meaning an ECMA-262 pattern as
    JSON Schema readers compile it (contracts.reference.meta_validator, the screen `diff-schemas` uses): a
    contract's pattern is checked once, here, not found broken by the fuzzer or the diff later."""
    if name == "meta":
        from wirecheck.contracts.reference import meta_validator

        return meta_validator(DIALECT)
    return jsonschema_rs.validator_for(own_schema(name))


@cache
def _screened(name: str) -> tuple[Any, Any]:
    """(jsonschema-rs, python-jsonschema) validators for one of wirecheck's own schemas or the metaschema.
    jsonschema-rs screens every document (a thousandth of python-jsonschema's time on the bundled contracts);
    python-jsonschema, the reference, words the problems of a document it refuses, and is imported only then (it
    is a fifth of a `wirecheck validate`'s start-up). A test checks the two agree on what is valid."""
    import jsonschema

    if name == "meta":
        from wirecheck.contracts.reference import FORMAT_CHECKER

        meta = jsonschema.Draft202012Validator.META_SCHEMA
        return _fast(name), jsonschema.Draft202012Validator(meta, format_checker=FORMAT_CHECKER)
    return _fast(name), jsonschema.Draft202012Validator(own_schema(name))


def _problems(document: Any, name: str) -> list[Any]:
    """python-jsonschema's errors for `document` against `name` (see `_screened`), in document order."""
    try:
        if _fast(name).is_valid(document):
            return []
    except ValueError:  # a string jsonschema-rs cannot take (a lone surrogate): python-jsonschema judges alone
        pass
    _, reference = _screened(name)
    return sorted(reference.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))


def _schema_problems(document: Any, name: str, file: str) -> list[ContractProblem]:
    """`document`'s problems against one of wirecheck's own formats, located; one that is not that format at all is
    one problem that quotes nothing of it (errors.not_the_format)."""
    problems = _problems(document, name)
    if not problems:
        return []
    wrong = not_the_format(document, own_schema(name), file)
    if wrong is not None:
        return [wrong]
    return [ContractProblem(file, format_pointer(error.absolute_path), for_people(error)) for error in problems]


def load_registry(root: Path | str | None = None) -> PackageRegistry:
    """The packages of the contract folders `root` names (see `contract_sources`; default `$WIRECHECK_CONTRACTS`,
    else the installed contracts). Loaded once per process for each spelling."""
    spec = os.environ.get("WIRECHECK_CONTRACTS") if root is None else str(root)
    return _load_registry(spec or None)


@cache
def _load_registry(spec: str | None) -> PackageRegistry:
    return PackageRegistry(contract_sources(spec))


load_registry.cache_clear = _load_registry.cache_clear  # type: ignore[attr-defined]


def _read_registry(root: Path) -> Any:
    if not root.is_dir():
        raise ContractError(ContractProblem(str(root), "", "not a contracts folder (a directory with registry.yaml)"))
    path = root / "registry.yaml"
    data = _read_yaml(path)
    problems = _schema_problems(data, "registry.schema.json", str(path))
    if problems:
        raise ContractError(problems)
    return data


MAX_RELEASE_VALUES = 50_000  # JSON values in one release's schema files: 6x the largest bundled release (8,207)
MAX_RELEASE_BYTES = MAX_FILE_BYTES  # bytes of one release's schema files, in all


def _load_resources(folder: Path, package: str, version: str, trusted: Callable[[dict[str, Any]], bool]
                    ) -> tuple[dict[str, Any], list[ContractProblem], bool]:
    """The release's schema files, each read through input_files (devices, named pipes, symbolic-link loops
    refused), and all of them together within MAX_RELEASE_BYTES and MAX_RELEASE_VALUES: every command holds a
    release's schemas several times over (Python values, validators, the views), about 10 KiB per value at worst
    (a `fuzz --invalid` of 25,000 `anyOf` members peaks at 375 MiB): past the limits the release is refused, before
    its schemas are checked or compiled. Then checked (`$schema`, `$id`, the meta-schema, legacy keywords, version
    stamps, where each `$ref` leads) unless `trusted` says the schemas read were checked before (then the third
    value is True). Problems come file by file, in file order."""
    read: list[tuple[Path, str, Any]] = []  # (file, expected $id, schema) of the files that parse
    found: dict[Path, list[ContractProblem]] = {}
    read_bytes = values = 0
    for path in sorted(folder.rglob("*.json")):
        relpath = path.relative_to(folder).as_posix()
        problems = found.setdefault(path, [])
        try:
            data = input_files.read_bytes(path, "contract schema file", MAX_RELEASE_BYTES - read_bytes)
        except input_files.Unreadable as exc:
            if not exc.too_large:
                problems.append(ContractProblem(str(path), "", exc.reason))
                continue
            whole = input_files.size_text(MAX_RELEASE_BYTES)
            problems.append(ContractProblem(str(path), "", exc.reason if not read_bytes else
                                            f"the release's schema files hold more than {whole}, the most "
                                            "wirecheck reads of a contract release (see Limits in the README)"))
            return {}, [p for ps in found.values() for p in ps], False  # nothing more is read past the limits
        read_bytes += len(data)
        # exact: duplicate keys and integers beyond 64 bits show; a file that is no JSON is not quoted
        schema, problem = parse_json(data, quoted=False)
        del data
        if problem is not None:
            problems.append(ContractProblem(str(path), problem.pointer or "", problem.message))
            continue
        values += count_values(schema, MAX_RELEASE_VALUES - values + 1)
        if values > MAX_RELEASE_VALUES:
            problems.append(ContractProblem(str(path), "", f"the release's schema files hold more than "
                                            f"{MAX_RELEASE_VALUES:,} JSON values, the most wirecheck loads of a "
                                            "contract release (see Limits in the README)"))
            return {}, [p for ps in found.values() for p in ps], False
        if not isinstance(schema, dict):
            problems.append(ContractProblem(str(path), "", "a schema file must hold a JSON object"))
            continue
        read.append((path, schema_id(package, version, relpath), schema))
    resources = {expected_id: schema for _, expected_id, schema in read}
    if not any(found.values()) and trusted(resources):
        return resources, [], True
    for path, expected_id, schema in read:
        found[path] += _schema_file_problems(str(path), expected_id, schema)
    files = {expected_id: str(path) for path, expected_id, _ in read}
    problems = [p for ps in found.values() for p in ps]
    return resources, problems + _ref_problems(resources, files) + _cycle_problems(resources, files), False


def _schema_file_problems(file: str, expected_id: str, schema: dict[str, Any]) -> list[ContractProblem]:
    from wirecheck.contracts.drafts import legacy_keywords  # imports python-jsonschema: a trusted load needs neither

    problems = []
    if schema.get("$schema") != DIALECT:
        problems.append(ContractProblem(file, "/$schema", f"expected {DIALECT!r}, found {schema.get('$schema')!r}"))
    if schema.get("$id") != expected_id:
        problems.append(ContractProblem(file, "/$id", f"expected {expected_id!r}, found {schema.get('$id')!r}"))
    problems.extend(_meta_problem(file, e) for e in _problems(schema, "meta"))
    problems.extend(ContractProblem(file, where, why) for where, why in legacy_keywords(schema))
    problems.extend(ContractProblem(file, format_pointer(where), f"{VERSION_STAMP}: {why}")
                    for where, why in stamp_problems(schema))
    return problems


def _meta_problem(file: str, error: Any) -> ContractProblem:
    """A schema's problem against the 2020-12 meta-schema (python-jsonschema's error), located
    (`reference.meta_error`: a pattern that is not ECMA-262 said so)."""
    from wirecheck.contracts.reference import meta_error

    path, message = meta_error(error)
    return ContractProblem(file, format_pointer(path), f"not a valid 2020-12 schema: {message}")


def _ref_problems(resources: dict[str, Any], files: dict[str, str]) -> list[ContractProblem]:
    """Each `$ref` that leads nowhere, where it is written: a file the release lacks, or a JSON pointer its file
    does not have. (Compiling a kind's schema would only say that the kind's schema does not resolve, once per
    kind that reaches it.)"""
    problems = []
    for uri, schema in resources.items():
        for node, path in subschemas(schema):
            ref = node.get("$ref")
            if not isinstance(ref, str):
                continue
            target, _, fragment = ref_target(uri, ref).partition("#")
            where = format_pointer((*path, "$ref"))
            if target not in resources:
                wanted = target.rsplit("/", 1)[-1] if target.startswith(uri.rsplit("/", 1)[0]) else target
                problems.append(ContractProblem(files[uri], where, f"{ref!r}: no schema file {wanted!r} in the "
                                                "release (references resolve offline, within the release)"))
            elif fragment.startswith("/"):
                try:
                    resolve(resources[target], parse_pointer(unquote(fragment)))
                except (KeyError, IndexError, ValueError):
                    problems.append(ContractProblem(files[uri], where, f"{ref!r}: {target.rsplit('/', 1)[-1]} "
                                                    f"has nothing at #{fragment}"))
    return problems


def _cycle_problems(resources: dict[str, Any], files: dict[str, str]) -> list[ContractProblem]:
    return [ContractProblem(files[uri], format_pointer((*path, "$ref")),
                            f"a $ref loop that reads no part of the message: {loop}")
            for uri, path, loop in ref_loops(resources)]


def _fields(raw: dict[str, Any]) -> FieldConditions:
    conditions = []
    for pointer, accepted in sorted(raw.items()):
        values = accepted if isinstance(accepted, list) else [accepted]
        conditions.append((parse_pointer(pointer), frozenset(values)))
    return tuple(conditions)


def _alternative(raw: dict[str, Any], outer: dict[str, Any]) -> FieldConditions:
    """One selector alternative: equality tests (`fields`), members that must be there (`present`) and members that
    must not (`absent`); `outer`'s `present` and `absent` (the selector's own) hold for every alternative. An
    alternative is a Fields map, or `{fields?, present?, absent?}`."""
    if not any(key in raw for key in ("fields", "present", "absent")):
        raw = {"fields": raw}
    conditions = list(_fields(raw.get("fields") or {}))
    conditions += [(parse_pointer(p), PRESENT) for p in sorted({*raw.get("present", ()), *outer.get("present", ())})]
    conditions += [(parse_pointer(p), frozenset({ABSENT}))
                   for p in sorted({*raw.get("absent", ()), *outer.get("absent", ())})]
    return tuple(conditions)


def _selector_problems(selector: dict[str, Any], file: str, where: str) -> list[ContractProblem]:
    """A pointer tested twice in one alternative (a value and present, present and absent, ...) can never, or
    always, hold: a contract error, not a kind that matches nothing."""
    keys = ("fields", "present", "absent")
    outer = [*selector.get("present", ()), *selector.get("absent", ())]
    if "any" in selector:
        alternatives = [(f"{where}/selector/any/{i}", alt if any(k in alt for k in keys) else {"fields": alt}, outer)
                        for i, alt in enumerate(selector["any"]) if isinstance(alt, dict)]
    else:
        alternatives = [(f"{where}/selector", selector, [])]
    problems = []
    for at, alt, more in alternatives:
        named = [*(alt.get("fields") or {}), *alt.get("present", ()), *alt.get("absent", ()), *more]
        twice = sorted({p for p in named if named.count(p) > 1})
        if twice:
            problems.append(ContractProblem(file, at, f"{', '.join(twice)} tested twice in one alternative "
                                                      "(fields, present, absent): it can never or always hold"))
    return problems


def _selector_key(kind: MessageKind) -> tuple[Any, ...]:
    if kind.http is not None:
        path = re.sub(r"\{[^}]*\}", "{}", kind.http.path)
        return ("http", kind.http.method, path, kind.http.status, kind.http.base, kind.producer)
    # Equal selectors are allowed for different producers: the capture's sender tells them apart.
    fields = frozenset(frozenset(alt) for alt in kind.fields)
    return (kind.channel, fields, kind.path_glob, kind.program, kind.producer)


def _link(ref: str, package: str, version: str, resources: dict[str, Any]) -> SchemaLink:
    file, _, fragment = ref.partition("#")
    return SchemaLink(ref=ref, uri=schema_id(package, version, file) + ("#" + fragment if fragment else ""))


def _check_link(link: SchemaLink, resources: dict[str, Any], file: str, where: str,
                registry: Any = None) -> list[ContractProblem]:
    """`registry`: the release's resources as jsonschema-rs holds them, built once for all its links (built per
    link, ACP's 69 links cost 0.16 s of every `wirecheck diff` of two releases)."""
    base, _, fragment = link.uri.partition("#")
    if base not in resources:
        return [ContractProblem(file, where, f"schema file {link.ref.partition('#')[0]!r} not found in the release")]
    try:
        jsonschema_rs.validator_for(
            {"$schema": DIALECT, "$ref": link.uri},
            registry=registry if registry is not None else jsonschema_rs.Registry(list(resources.items())),
        )
    except Exception as exc:  # jsonschema-rs raises ValueError / ReferencingError with a message
        return [ContractProblem(file, where, f"{link.ref!r} does not resolve: {exc}")]
    if fragment and not fragment.startswith("/"):
        return [ContractProblem(file, where, f"{link.ref!r}: fragments must be JSON pointers")]
    return []


def _build_kind(raw: dict[str, Any], package: str, version: str, resources: dict[str, Any]) -> MessageKind:
    selector = raw["selector"]
    http = selector.get("http")
    alternatives = tuple(_alternative(alt, selector) for alt in selector.get("any", [])) or (
        (_alternative({key: selector[key] for key in ("fields", "present", "absent") if key in selector}, {}),)
        if any(key in selector for key in ("fields", "present", "absent")) else ()
    )
    reply = raw.get("reply")
    correlate = raw.get("correlate")
    return MessageKind(
        id=raw["id"],
        title=raw["title"],
        channel=raw["channel"],
        producer=raw["producer"],
        consumer=raw["consumer"],
        provenance=_provenance(raw["provenance"]),
        schema=_link(raw["schema"], package, version, resources) if "schema" in raw else None,
        body=raw.get("body", "json"),
        headers=_link(raw["headers"], package, version, resources) if "headers" in raw else None,
        fields=alternatives,
        http=HttpSelector(
            method=http["method"],
            path=http["path"],
            status=str(http["status"]) if "status" in http else None,
            base=http.get("base"),
        )
        if http
        else None,
        path_glob=selector.get("path"),
        program=selector.get("program"),
        answers=raw.get("answers"),
        correlate=(parse_pointer(correlate["request"]), parse_pointer(correlate["response"])) if correlate else None,
        reply=Reply(parse_pointer(reply["at"]), _link(reply["schema"], package, version, resources)) if reply else None,
        argv_grammar=MappingProxyType(raw["argv_grammar"]) if "argv_grammar" in raw else None,
        description=raw.get("description"),
        deprecated=raw.get("deprecated", False),
    )


def _semantic_problems(release: ContractRelease, raw: dict[str, Any], file: str) -> list[ContractProblem]:
    from wirecheck.rules.catalogue import rule_catalogue
    from wirecheck.rules.registry import instantiate

    problems: list[ContractProblem] = []
    resources = dict(release.resources)
    try:
        registry: Any = jsonschema_rs.Registry(list(resources.items()))
    except Exception:  # each link then says what does not resolve
        registry = None
    ids = [k.id for k in release.kinds]
    seen_selectors: dict[tuple[Any, ...], str] = {}
    for index, kind in enumerate(release.kinds):
        where = f"/kinds/{index}"
        problems += _selector_problems(raw["kinds"][index]["selector"], file, where)
        if kind.argv_grammar is not None:
            problems += _argv_pattern_problems(kind.argv_grammar, file, f"{where}/argv_grammar")
        if ids.count(kind.id) > 1:
            problems.append(ContractProblem(file, f"{where}/id", f"duplicate kind id {kind.id!r}"))
        for role_field in ("producer", "consumer"):
            role = getattr(kind, role_field)
            if role not in release.roles:
                problems.append(ContractProblem(file, f"{where}/{role_field}", f"{role!r} is not one of roles"))
        for link_field in ("schema", "headers"):
            link = getattr(kind, link_field)
            if link is not None:
                problems += _check_link(link, resources, file, f"{where}/{link_field}", registry)
        if kind.reply is not None:
            problems += _check_link(kind.reply.schema, resources, file, f"{where}/reply/schema", registry)
        if kind.answers is not None and not fnmatch.filter(ids, kind.answers):
            problems.append(ContractProblem(file, f"{where}/answers", f"no kind matches {kind.answers!r}"))
        if kind.http is not None and kind.http.base not in (None, "*", *release.bases):
            problems.append(ContractProblem(file, f"{where}/selector/http/base", f"no base {kind.http.base!r}"))
        key = _selector_key(kind)
        if key in seen_selectors:
            problems.append(
                ContractProblem(file, f"{where}/selector", f"same selector as kind {seen_selectors[key]!r}")
            )
        seen_selectors.setdefault(key, kind.id)
        for source in kind.provenance.sources:
            if source not in release.sources:
                problems.append(ContractProblem(file, f"{where}/provenance/source", f"unknown source {source!r}"))
    known_rules = rule_catalogue()
    for index, use in enumerate(release.rules):
        if use.id not in known_rules:
            problems.append(ContractProblem(file, f"/rules/{index}/id", f"unknown rule {use.id!r}"))
            continue
        try:  # build the rule once: bad parameters are a located contract error, never a crash in a later command
            instantiate(use, release)
        except KeyError as exc:
            problems.append(ContractProblem(file, f"/rules/{index}/params", f"{use.id}: missing parameter {exc}"))
        except (ValueError, TypeError, AttributeError) as exc:
            problems.append(ContractProblem(file, f"/rules/{index}/params",
                                            f"{use.id}: parameters not usable: {exc!r}"))
        for kind_id in use.kinds:
            if kind_id not in ids:
                problems.append(ContractProblem(file, f"/rules/{index}/kinds", f"no kind {kind_id!r}"))
    for name, base in release.bases.items():
        if base.kind not in ids:
            problems.append(ContractProblem(file, f"/bases/{name}/kind", f"no kind {base.kind!r}"))
    for index, consumer in enumerate(release.consumers):
        if consumer.kind not in ids:
            problems.append(ContractProblem(file, f"/consumers/{index}/kind", f"no kind {consumer.kind!r}"))
        problems += _consumer_problems(release, consumer.contract, consumer.as_kind, file, f"/consumers/{index}")
    return problems


def _argv_pattern_problems(grammar: Any, file: str, where: str) -> list[ContractProblem]:
    """An argv grammar's `parse` patterns are ECMA-262 as a schema's are (`reference.regex_problem`), checked here
    once; capture/argv.py decodes with them through the same matcher (`ecma_regex.full_match`)."""
    from wirecheck.contracts.reference import regex_problem

    flags = grammar.get("flags", ()) if isinstance(grammar, dict | MappingProxyType) else ()
    problems = []
    for index, entry in enumerate(flags if isinstance(flags, list) else ()):
        pattern = entry.get("parse") if isinstance(entry, dict) else None
        if pattern is None:
            continue
        at = f"{where}/flags/{index}/parse"
        why = regex_problem(pattern) if isinstance(pattern, str) else "expected a string (an ECMA-262 pattern)"
        if why is not None:
            problems.append(ContractProblem(file, at, why))
    return problems


def _consumer_problems(
    release: ContractRelease, contract: str, as_kind: str, file: str, where: str
) -> list[ContractProblem]:
    """The consumer's release must exist and name the kind; its catalog is only read, not loaded (no cycles)."""
    try:
        package, version = load_registry(release.root.parent.parent).resolve(contract)
    except ContractError as exc:
        return [ContractProblem(file, f"{where}/contract", exc.problems[0].message)]
    kinds = _kind_ids(release.root.parent.parent / package / version / "catalog.yaml")
    if kinds is None:
        return [ContractProblem(file, f"{where}/contract", f"the catalog of {contract} cannot be read")]
    if as_kind not in kinds:
        return [ContractProblem(file, f"{where}/as", f"{contract} has no kind {as_kind!r}")]
    return []


@cache
def _kind_ids(catalog: Path) -> frozenset[Any] | None:
    """The kind ids a catalog names, read once however many consumer entries name its release; None when it
    cannot be read. Cached like `load_release`, for the life of the process."""
    try:
        return frozenset(kind.get("id") for kind in contract_yaml(catalog).get("kinds", []))
    except (YamlFileError, AttributeError):
        return None


@cache
def load_release(root: Path, package: str, version: str) -> ContractRelease:
    """A release, checked on the way in unless it is a bundled release exactly as the tests checked it
    (`checked_digests`); loaded once per process."""
    return read_release(root, package, version, trust=True)


def read_release(root: Path, package: str, version: str, *, trust: bool) -> ContractRelease:
    """A release of the contracts folder `root`, every problem raised together as one ContractError. With `trust`,
    a bundled release whose catalog and schemas are those CHECKED_FILE names skips the checks (the meta-schema,
    `$ref`s, legacy keywords, the catalog's semantics): 0.15 s of CPU a `wirecheck diff` of two ACP releases spent
    finding nothing, again on every run. Its readers.yaml is checked always (it is read as it is used)."""
    input_files.confine(root)  # as contract_sources does: however the release is reached, nothing is read out of it
    folder = Path(root) / package / version
    catalog_path = folder / "catalog.yaml"
    raw = _read_yaml(catalog_path)
    file = str(catalog_path)
    resources, problems, trusted = _load_resources(
        folder, package, version, lambda read: trust and _checked_before(Path(root), package, version, raw, read))
    if not trusted:
        problems = _catalog_problems(raw, package, version, file) + problems
    if problems:
        raise ContractError(problems)
    release = ContractRelease(
        package=package,
        version=version,
        title=raw["title"],
        root=folder,
        kinds=tuple(_build_kind(k, package, version, resources) for k in raw["kinds"]),
        sources=MappingProxyType(
            {sid: Source(sid, s["type"], s["ref"], s.get("note"), s.get("local")) for sid, s in raw["sources"].items()}
        ),
        roles=tuple(raw["roles"]),
        bases=MappingProxyType(
            {n: Base(n, b["kind"], parse_pointer(b["pointer"])) for n, b in raw.get("bases", {}).items()}
        ),
        rules=tuple(
            RuleUse(r["id"], tuple(r.get("kinds", [])), MappingProxyType(r.get("params", {})))
            for r in raw.get("rules", [])
        ),
        consumers=tuple(
            Consumer(c["kind"], c["contract"], c["as"], c.get("note")) for c in raw.get("consumers", [])
        ),
        resources=MappingProxyType(resources),
        wire_version=raw.get("wire_version"),
        description=raw.get("description"),
    )
    problems = [] if trusted else _semantic_problems(release, raw, file)
    readers_path = folder / READERS_FILE
    if readers_path.exists() or readers_path.is_symlink():  # read through input_files: a device is refused there
        release, reader_problems = _with_readers(release, readers_path)
        problems += reader_problems
    behaviour_path = folder / BEHAVIOUR_FILE
    if behaviour_path.exists() or behaviour_path.is_symlink():
        release, behaviour_problems = _with_behaviour(release, behaviour_path)
        problems += behaviour_problems
    if problems:
        raise ContractError(problems)
    return release


def _catalog_problems(raw: Any, package: str, version: str, file: str) -> list[ContractProblem]:
    problems = _schema_problems(raw, "catalog.schema.json", file)
    if isinstance(raw, dict):
        if raw.get("package") != package:
            problems.append(ContractProblem(file, "/package", f"expected {package!r}, found {raw.get('package')!r}"))
        if raw.get("version") != version:
            problems.append(ContractProblem(file, "/version", f"expected {version!r}, found {raw.get('version')!r}"))
    return problems


CHECKED_FILE = "checked.json"  # in the bundled contracts: {"package/version": release_digest} (contracts/checked.py)


def release_digest(raw: Any, resources: dict[str, Any]) -> str | None:
    """What a release's catalog and schema files say, as one digest (None when it cannot be serialised: then it is
    checked). Whitespace and YAML comments do not count: the checks read values, never layout."""
    try:
        return hashlib.sha256(orjson.dumps([raw, resources])).hexdigest()
    except (orjson.JSONEncodeError, TypeError):
        return None


def digest_of(release: ContractRelease) -> str | None:
    """`release_digest` of a loaded release (its catalog read again): what CHECKED_FILE records for it."""
    return release_digest(_read_yaml(release.root / "catalog.yaml"), dict(release.resources))


def _checked_before(root: Path, package: str, version: str, raw: Any, resources: dict[str, Any]) -> bool:
    digest = checked_digests(root).get(f"{package}/{version}")
    return digest is not None and digest == release_digest(raw, resources)


@cache
def checked_digests(root: Path) -> dict[str, str]:
    """The releases of `root` known to load without problems, by digest: only for the bundled contracts, whose
    CHECKED_FILE ships with them and is held current by suites/contracts/test_checked.py (a contracts folder of
    the user's, or a pack, is checked on every load whatever file it holds)."""
    if root.resolve() != bundled_contracts_dir().resolve():
        return {}
    try:
        found = orjson.loads((root / CHECKED_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return found if isinstance(found, dict) else {}


def _provenance(raw: dict[str, Any]) -> Provenance:
    sources = raw["source"] if isinstance(raw["source"], list) else [raw["source"]]
    return Provenance(tuple(sources), raw.get("note"), tuple(raw.get("at", ())), tuple(raw.get("local", ())))


def _own_sources(release: ContractRelease, raw: dict[str, Any], file: str,
                 problems: list[ContractProblem]) -> Callable[[dict[str, Any], str], Provenance]:
    """The `cited(entry, where)` of a file beside the catalog (readers.yaml, behaviour.yaml) that may add sources of
    its own: an entry's provenance, its unknown sources added to `problems`."""
    own_sources = raw.get("sources", {})
    problems += [ContractProblem(file, f"/sources/{sid}", f"source {sid!r} is the catalog's already")
                 for sid in own_sources if sid in release.sources]
    sources = {**release.sources, **{sid: Source(sid, s["type"], s["ref"], s.get("note"), s.get("local"))
                                     for sid, s in own_sources.items()}}

    def cited(entry: dict[str, Any], where: str) -> Provenance:
        provenance = _provenance(entry["provenance"])
        problems.extend(ContractProblem(file, f"{where}/provenance/source", f"unknown source {sid!r}")
                        for sid in provenance.sources if sid not in sources)
        return provenance

    return cited


def _with_behaviour(release: ContractRelease, path: Path) -> tuple[ContractRelease, list[ContractProblem]]:
    """The release with its behaviour.yaml (contracts/behaviour.py: the obligations its readers depend on)."""
    from wirecheck.contracts import behaviour

    file = str(path)
    raw = _read_yaml(path)
    problems = _schema_problems(raw, "behaviour.schema.json", file)
    if problems:
        return release, problems
    found, more = behaviour.build(raw, release, file, _own_sources(release, raw, file, problems))
    return dataclasses.replace(release, obligations=found.obligations, obligation_keys=found.keys), problems + more


def _with_readers(release: ContractRelease, path: Path) -> tuple[ContractRelease, list[ContractProblem]]:
    """The release with its readers.yaml (how its real consumers read it): every kind takes the first `readers`
    entry that matches it (one must), and every channel and consumer its kinds use has a default `unknown_kinds`
    entry (one without `when`)."""
    file = str(path)
    raw = _read_yaml(path)
    problems = _schema_problems(raw, "readers.schema.json", file)
    if problems:
        return release, problems
    cited = _own_sources(release, raw, file, problems)
    for index, entry in enumerate(raw.get("ranges", [])):  # the versions a range admits: data for people and tests
        cited(entry, f"/ranges/{index}")
    readers: dict[str, MemberReading] = {}
    for index, entry in enumerate(raw["readers"]):  # a kind takes the first entry that matches it
        where = f"/readers/{index}"
        closed_at = entry.get("closed_at")
        reading = MemberReading(
            closed=entry["members"] == "closed",
            closed_at=tuple(parse_pointer(p) for p in closed_at) if closed_at is not None else None,
            provenance=cited(entry, where),
        )
        if entry.get("consumer", release.roles[0]) not in release.roles:
            problems.append(ContractProblem(file, f"{where}/consumer", f"{entry['consumer']!r} is not one of roles"))
        matched = [kind.id for kind in release.kinds
                   if entry.get("consumer", kind.consumer) == kind.consumer
                   and entry.get("channel", kind.channel) == kind.channel
                   and any(fnmatch.fnmatchcase(kind.id, pattern) for pattern in entry.get("kinds", ["*"]))]
        if not matched:
            problems.append(ContractProblem(file, where, "matches no kind of the release"))
        for kind_id in matched:
            readers.setdefault(kind_id, reading)
    missing = [kind.id for kind in release.kinds if kind.id not in readers]
    if missing:
        problems.append(ContractProblem(file, "/readers", f"no reader for {', '.join(missing)}"))
    unknown = []
    for index, entry in enumerate(raw["unknown_kinds"]):
        where = f"/unknown_kinds/{index}"
        if entry["consumer"] not in release.roles:
            problems.append(ContractProblem(file, f"{where}/consumer", f"{entry['consumer']!r} is not one of roles"))
        when = entry.get("when", {})
        unknown.append(UnknownKindReading(
            channel=entry["channel"], consumer=entry["consumer"], reject=entry["reads"] == "reject",
            fields=_fields(when.get("fields", {})) if when.get("fields") else (),
            present=tuple(parse_pointer(p) for p in when.get("present", ())),
            provenance=cited(entry, where),
            absent=tuple(parse_pointer(p) for p in when.get("absent", ())),
            prefix=tuple((parse_pointer(p), text) for p, text in sorted(when.get("prefix", {}).items())),
            extension=entry["reads"] == "extension",
        ))
    defaults = {(u.channel, u.consumer) for u in unknown if not u.conditional}
    for channel, consumer in sorted({(k.channel, k.consumer) for k in release.kinds} - defaults):
        problems.append(ContractProblem(file, "/unknown_kinds", f"no entry without `when` for consumer "
                                        f"{consumer!r} on {channel}: what does a message of no kind meet there?"))
    non_json = []
    for index, entry in enumerate(raw.get("non_json_lines", [])):
        where = f"/non_json_lines/{index}"
        if entry["consumer"] not in release.roles:
            problems.append(ContractProblem(file, f"{where}/consumer", f"{entry['consumer']!r} is not one of roles"))
        non_json.append(NonJsonReading(entry["channel"], entry["consumer"], entry["reads"], cited(entry, where)))
    bodies = []
    for index, entry in enumerate(raw.get("json_bodies", [])):
        where = f"/json_bodies/{index}"
        if entry["consumer"] not in release.roles:
            problems.append(ContractProblem(file, f"{where}/consumer", f"{entry['consumer']!r} is not one of roles"))
        bodies.append(JsonBodyReading(entry["channel"], entry["consumer"], entry["reader"], entry["bom"],
                                      cited(entry, where)))
    tolerated = {}
    for index, entry in enumerate(raw.get("rules", [])):
        where = f"/rules/{index}"
        if entry["id"] not in {use.id for use in release.rules}:
            problems.append(ContractProblem(file, f"{where}/id", f"the catalog uses no rule {entry['id']!r}"))
        tolerated[entry["id"]] = cited(entry, where)
    return dataclasses.replace(release, readers=MappingProxyType(readers), unknown_kinds=tuple(unknown),
                               non_json_lines=tuple(non_json), json_bodies=tuple(bodies),
                               tolerated=MappingProxyType(tolerated)), problems
