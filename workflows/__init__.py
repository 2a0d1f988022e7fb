"""Deterministic workflow code only: it never imports activities/ (layers.toml). Empty on purpose:
importing any module of the package runs this file first, so it imports nothing (workflows/registry.py lists
the workflow types)."""
