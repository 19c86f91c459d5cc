"""wirecheck: protocol conformance and contract diff for the wire protocols of AI coding-agent runtimes."""

from wirecheck import deferred_imports as _deferred_imports

__version__ = "0.1.0"

# before any module of wirecheck imports python-jsonschema, which imports these format libraries at its top
_deferred_imports.install()
