"""When a run's history is long enough to continue as new, even in the middle of a retry loop."""

from temporalio import workflow


class ContinueAsNewNeeded(Exception):
    """Raised by a retry loop (a NIC Azure refuses to delete for days) so the run can continue as new.

    Every step is idempotent and re-reads Azure, so the next run simply resumes the flow.
    """


def history_is_long(limit: int) -> bool:
    info = workflow.info()
    return info.is_continue_as_new_suggested() or (limit > 0 and info.get_current_history_length() > limit)
