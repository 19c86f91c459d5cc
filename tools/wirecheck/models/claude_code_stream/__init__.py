"""Generated models of claude-code-stream, one subpackage per release."""
