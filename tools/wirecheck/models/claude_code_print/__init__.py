"""Generated models of claude-code-print, one subpackage per release."""
