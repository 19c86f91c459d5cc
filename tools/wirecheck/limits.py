"""Documented input limits every reader and command shares (light: the CLI shows them as option defaults)."""

DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024  # a longer capture line is reported and skipped, never held in memory
MAX_FILE_BYTES = 16 * 1024 * 1024  # a file read whole (a schema, a contract file, YAML data): larger is refused
