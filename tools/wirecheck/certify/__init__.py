"""Certification: requirement sets per contract release, evaluated against captures into publishable reports.

requirements.py (load + link) → pipeline.py (engine run) → evaluate.py (statuses, scores, badge) → report/*.
"""

from wirecheck.certify.evaluate import Certification, RequirementResult
from wirecheck.certify.pipeline import certify_captures, load_set

__all__ = ["Certification", "RequirementResult", "certify_captures", "load_set"]
