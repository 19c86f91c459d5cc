"""The live stdio harness: start an implementation (no shell, scratch HOME, bounded buffers, timeouts), drive a
scenario, record both directions as a framed NDJSON capture, then certify it.

scenario.py (the file format) → process.py (the child process) → runner.py (drive + record) → certify."""
