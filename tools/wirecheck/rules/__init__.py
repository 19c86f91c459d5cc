"""Protocol rules: checks JSON Schema cannot express, registered once, described as data (texts/*.yaml)."""
