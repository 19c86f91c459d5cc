"""Contract registry: loading, validating and viewing versioned contracts (pure; no I/O beyond reading files).

The names below are imported on first use (PEP 562): `wirecheck diff-schemas` needs `contracts.drafts` and
`contracts.model`, not the loader (its validation, the YAML reader), which importing this package used to pull in.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "ContractError": "errors", "ContractProblem": "errors",
    "PackageRegistry": "loader", "default_contracts_dir": "loader", "load_registry": "loader", "load_release": "loader",
    "ContractRelease": "model", "HttpSelector": "model", "MessageKind": "model", "RuleUse": "model", "Source": "model",
}

if TYPE_CHECKING:
    from wirecheck.contracts.errors import ContractError, ContractProblem
    from wirecheck.contracts.loader import PackageRegistry, default_contracts_dir, load_registry, load_release
    from wirecheck.contracts.model import ContractRelease, HttpSelector, MessageKind, RuleUse, Source

__all__ = [
    "ContractError",
    "ContractProblem",
    "ContractRelease",
    "HttpSelector",
    "MessageKind",
    "PackageRegistry",
    "RuleUse",
    "Source",
    "default_contracts_dir",
    "load_registry",
    "load_release",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value
