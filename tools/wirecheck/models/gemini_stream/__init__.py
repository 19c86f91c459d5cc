"""Generated models of gemini-stream, one subpackage per release."""
