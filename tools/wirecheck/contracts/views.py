"""Strict and tolerant views of a schema.

Contracts are authored closed where the types are closed (the strict view). The tolerant view is derived by
dropping `additionalProperties: false` and `unevaluatedProperties: false` everywhere, so a message that carries
fields the published types lack still validates: those fields become warnings, not errors.
"""

from __future__ import annotations

from typing import Any

_CLOSING_KEYWORDS = ("additionalProperties", "unevaluatedProperties")


def tolerant_view(schema: Any) -> Any:
    """A copy of `schema` with every closing keyword removed; the input is not modified."""
    if isinstance(schema, dict):
        return {
            key: tolerant_view(value)
            for key, value in schema.items()
            if not (key in _CLOSING_KEYWORDS and value is False)
        }
    if isinstance(schema, list):
        return [tolerant_view(item) for item in schema]
    return schema
