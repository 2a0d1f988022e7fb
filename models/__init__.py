"""Pydantic types and pure rules shared by workflows, activities, the CLI and the workers, and the public
Temporal API by name (models/temporal_api.py). Pure: no I/O, safe in the workflow sandbox. Empty on purpose:
importing any module of the package runs this file first, so it imports nothing."""
