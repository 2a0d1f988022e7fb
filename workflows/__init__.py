"""Deterministic workflow code only: it runs in Temporal's sandbox and never imports activities/."""

from workflows.lifecycle import MachineLifecycle

ALL_WORKFLOWS: list[type] = [MachineLifecycle]

__all__ = ["ALL_WORKFLOWS", "MachineLifecycle"]
