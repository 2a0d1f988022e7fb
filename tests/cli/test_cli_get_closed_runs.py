"""`azmc get --all`: a run that ended shows how it ended; only an open run shows its phase as current (pure)."""

import pytest
from temporalio.client import WorkflowExecutionStatus as Status

from cli.machines import shown_phase


@pytest.mark.parametrize(("phase", "status", "shown"), [
    ("Running", Status.RUNNING, "Running"),
    ("", Status.RUNNING, "Pending"),  # started, its first task not run yet
    ("Deleted", Status.COMPLETED, "Deleted"),
    ("", Status.COMPLETED, "Deleted"),
    ("Running", Status.TERMINATED, "Terminated (was Running)"),  # terminated, or ended by a reset
    ("CrashLoopBackOff", Status.CANCELED, "Canceled (was CrashLoopBackOff)"),
    ("Creating", Status.TIMED_OUT, "Timed Out (was Creating)"),
    ("Pending", Status.FAILED, "Failed (was Pending)"),  # e.g. an input it refused
    ("", Status.TERMINATED, "Terminated (was Pending)"),
])
def test_a_closed_run_shows_how_it_ended_and_what_it_last_said(phase: str, status: Status, shown: str) -> None:
    assert shown_phase(phase, status) == shown
