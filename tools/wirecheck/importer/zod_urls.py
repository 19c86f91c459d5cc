"""URL fields as a TypeScript SDK reads them: the fields its generated zod source parses with zod's URL check.

A package that ships its JSON Schema may also ship the zod schemas generated from it (ACP's SDK:
`dist/v1/schema/zod.gen.js`, @hey-api/openapi-ts). Where the schema says `format: uri` (RFC 3986) and the zod
source reads the same field with `z.url()` or `z.string().url()` (the WHATWG URL parser, contracts/formats.py),
the SDK's verdict is zod's, not RFC 3986's. The profile says where the source is and which format the SDK's zod
range reads as (data, `zod_urls:` in profiles/<package>.yaml):

    zod_urls:
      source:                                   # beside a schema path, the zod source generated from it
        package/schema/v1/schema.json: [package/dist/v1/schema/zod.gen.js]
      module: zod/v4                            # the zod module the source must import
      formats:                                  # the package's zod range (peerDependencies) → the format
        "^3.25.76 || ^4.0.0": zod-url-since-3.25.76

`read` (at `read_package`: it needs the tarball) finds every URL check in the source, the `$defs` entry and
property it belongs to (`export const z<Def> = ...` / `    <property>: z.url(),`), and the line; `apply` (pure,
in `assemble`) sets the field's `format` and an `x-provenance` naming the SDK file and line, the zod range and
the zod source lines of every reader in it. What it cannot read faithfully is refused with the file and line:
a URL check with options or wrapped in something that changes its verdict (`defaultOnError(z.url())` drops a
bad value instead of refusing the message), a module or zod range the profile does not list, a property that is
not exactly one string field of its definition. Node is not needed: the generated source is read as text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wirecheck.contracts.views import SCHEMA_MAPS, subschemas

# `z.url()` and `z.string().url()` without options, optionally made optional: the whole value of a property
_PLAIN_URL = re.compile(r"z\.(?:string\(\)\.)?url\(\)(?:\.(?:optional|nullable|nullish)\(\))*")
_URL_CALL = re.compile(r"\.url\(|\bhttpUrl\(")
_EXPORT = re.compile(r"^export const ([\w$]+)\s*=")
_GENERATED = re.compile(r"z([A-Z][A-Za-z0-9_]*)")  # @hey-api/openapi-ts names the schema of $defs/X `zX`
_PROPERTY = re.compile(r"^\s+(?:([A-Za-z_$][\w$]*)|\"((?:[^\"\\]|\\.)*)\"):\s*(.+?),?\s*$")
_IMPORT = re.compile(r"^import\s+(?:\{\s*z\s*\}|\*\s+as\s+z)\s+from\s+\"([^\"]+)\";?\s*$", re.M)


class ZodSourceRefused(ValueError):
    """A zod source (or its URL checks) that cannot be read faithfully; the message says where."""


@dataclass(frozen=True)
class UrlRead:
    definition: str  # the $defs entry (the zod const without its `z`)
    property: str
    line: int  # 1-based, in the zod source
    code: str  # `<property>: <the zod expression>` as written


@dataclass(frozen=True)
class ZodSource:
    """What an import takes from a package's zod source: facts, so `assemble` stays pure (and the committed
    releases can be re-assembled offline from import.yaml)."""

    path: str  # in the package (dist/v1/schema/zod.gen.js)
    sha256: str
    module: str | None  # the zod module it imports
    zod_range: str | None  # the package's zod range (package.json `dependency`)
    dependency: str | None  # peerDependencies.zod, or dependencies.zod
    reads: tuple[UrlRead, ...]


def source_path(profile: Mapping[str, Any], schema_path: str, present: Any) -> str | None:
    """The first zod source the profile lists beside `schema_path` (in the tarball) for which `present(path)`."""
    spec = profile.get("zod_urls")
    if not spec:
        return None
    listed = spec["source"].get(schema_path, [])
    return next((p for p in ([listed] if isinstance(listed, str) else listed) if present(p)), None)


def read(path: str, text: str, manifest: Mapping[str, Any]) -> ZodSource:
    """Every URL check of a generated zod source; ZodSourceRefused where one is not a plain field read."""
    modules = _IMPORT.findall(text)
    reads = []
    definition: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        export = _EXPORT.match(line)
        if export:
            generated = _GENERATED.fullmatch(export.group(1))
            definition = generated.group(1) if generated else None
        if not _URL_CALL.search(line):
            continue
        where = f"{path}:{number}"
        prop = _PROPERTY.match(line)
        if definition is None or prop is None or not _PLAIN_URL.fullmatch(prop.group(3)):
            raise ZodSourceRefused(
                f"{where}: {line.strip()!r} is not a property read with plain z.url() / z.string().url() in an "
                "`export const z<Definition>`: its verdict is not zod's URL check alone (options, a wrapper such "
                "as defaultOnError, or a shape this reader does not know); map it by hand")
        name = prop.group(1) if prop.group(1) is not None else json.loads(f'"{prop.group(2)}"')
        reads.append(UrlRead(definition, name, number, f"{name}: {prop.group(3)}"))
    if reads and len(set(modules)) != 1:
        raise ZodSourceRefused(f"{path}: imports zod as {modules or 'nothing'}; the URL checks' zod is unknown")
    key = next((k for k in ("peerDependencies", "dependencies") if "zod" in (manifest.get(k) or {})), None)
    return ZodSource(path, hashlib.sha256(text.encode()).hexdigest(), modules[0] if modules else None,
                     manifest[key]["zod"] if key else None, f"{key}.zod" if key else None, tuple(reads))


def _fields(node: Any, prop: str, at: tuple[str, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(pointer, subschema) of every `properties/<prop>` within `node`, outside `x-` extensions: the walk is
    contracts.views.subschemas (iterative, not through $ref, not into data keywords)."""
    for sub, path in subschemas(node):
        keywords = _keywords(path)
        if path[-2:] == ("properties", prop) and len(path) - 2 in keywords and not any(
                str(path[i]).startswith("x-") for i in keywords):
            yield (*at, *path), sub


def _keywords(path: tuple[Any, ...]) -> set[int]:
    """The places in a `subschemas` path that are keywords (not array indexes, not names in a schema map)."""
    keywords, name_next = set(), False
    for i, step in enumerate(path):
        if not name_next and isinstance(step, str):
            keywords.add(i)
            name_next = step in SCHEMA_MAPS
        else:
            name_next = False
    return keywords


def format_for(profile: Mapping[str, Any], zod: ZodSource, where: str) -> str:
    spec = profile["zod_urls"]
    if zod.module != spec.get("module"):
        raise ZodSourceRefused(f"{where} {zod.path}: reads URLs with zod from {zod.module!r}, not "
                               f"{spec.get('module')!r} (profile {profile['package']}, zod_urls.module)")
    formats = spec.get("formats", {})
    if zod.zod_range not in formats:
        raise ZodSourceRefused(
            f"{where} {zod.path}: the package's zod range is {zod.zod_range!r}, which profile "
            f"{profile['package']} (zod_urls.formats) does not map to a URL format: say which zod readers it "
            f"admits ({', '.join(map(repr, formats)) or 'none listed'})")
    return str(formats[zod.zod_range])


def apply(profile: Mapping[str, Any], schema: dict[str, Any], zod: ZodSource, *, npm_name: str,
          version: str, source: str) -> list[dict[str, Any]]:
    """Set each read field's format and provenance in `schema` (in place); the record for import.yaml."""
    from wirecheck.contracts.formats import zod_url_readers
    from wirecheck.pointer import format_pointer

    if not zod.reads:
        return []
    where = f"{npm_name}@{version}"
    fmt = format_for(profile, zod, where)
    readers = [r.at for r in zod_url_readers(fmt)]
    records = []
    for url in zod.reads:
        definition = schema.get("$defs", {}).get(url.definition)
        at = ("$defs", url.definition)
        fields = list(_fields(definition, url.property, at)) if definition is not None else []
        if len(fields) != 1 or not isinstance(fields[0][1], dict) or fields[0][1].get("type") != "string":
            found = "no $defs entry" if definition is None else f"{len(fields)} field(s) named {url.property!r}"
            raise ZodSourceRefused(f"{where} {zod.path}:{url.line}: {url.code!r} reads $defs/{url.definition}, "
                                   f"property {url.property!r}, but the schema has {found} (one string field "
                                   "expected)")
        pointer, field = fields[0]
        was = field.get("format")
        field["format"] = fmt
        field["x-provenance"] = {
            "source": source,
            "at": [f"{where} {zod.path}:{url.line}", f"{where} package.json {zod.dependency} {zod.zod_range}",
                   *readers],
            "note": f"the SDK parses it with `{url.code}` (from {zod.module}); its zod may be any version of "
                    f"{zod.zod_range}, so the value must pass every zod URL check in that range ({fmt}, "
                    f"contracts/formats.py); the published schema says "
                    f"{'format ' + repr(was) if was else 'no format'} (set by the import profile's zod_urls)",
        }
        records.append({"definition": url.definition, "property": url.property,
                        "field": "#" + format_pointer(pointer), "published_format": was, "format": fmt,
                        "line": url.line, "code": url.code})
    return records
