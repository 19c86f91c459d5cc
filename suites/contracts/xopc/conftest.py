"""Lets the xopc tests import their fixture builder (xopc_fixtures, xopc_cases) from this folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
