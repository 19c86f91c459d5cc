"""Contract registry: loading, validating and viewing versioned contracts (pure; no I/O beyond reading files)."""

from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.contracts.loader import (
    PackageRegistry,
    default_contracts_dir,
    load_registry,
    load_release,
)
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
