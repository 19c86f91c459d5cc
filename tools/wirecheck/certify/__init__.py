"""Certification: requirement sets per contract release, evaluated against captures into publishable reports.

requirements.py (load + link) → pipeline.py (engine run) → evaluate.py (statuses, scores, badge) → report/*.
"""
