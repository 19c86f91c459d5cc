"""Generated models of qoder-agent-sdk, one subpackage per release."""
