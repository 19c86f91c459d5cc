"""wirecheck: protocol conformance and contract diff for the wire protocols of AI coding-agent runtimes."""

__version__ = "0.1.0"
