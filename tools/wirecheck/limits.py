"""Documented input limits every reader and command shares (light: the CLI shows them as option defaults)."""

DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024  # a longer capture line is reported and skipped, never held in memory
MAX_FILE_BYTES = 16 * 1024 * 1024  # a file read whole (a schema, a contract file, YAML data): larger is refused
# Any number of seconds wirecheck waits (a scenario's timeouts and sleeps, --timeout, --max-seconds): a day. Above it
# is a mistake (milliseconds?), not a plan; an infinity (`--timeout inf`) was an OverflowError, exit 3.
MAX_SECONDS = 86400.0
# An archive wirecheck unpacks (`import npm`'s tarball, `diff --against`'s `git archive`): past either, refused from
# its headers before anything is written. Ten times the largest npm package of a protocol SDK is far below both;
# a few MB of gzip holding 10 GB of zeros, or ten million empty files, is not.
MAX_ARCHIVE_BYTES = 1 << 30  # bytes of its files, in all (a hard link counts its target's bytes again)
MAX_ARCHIVE_MEMBERS = 100_000  # files, folders and links
