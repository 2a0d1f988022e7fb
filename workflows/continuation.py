"""When a run's history is long enough to continue as new (even in the middle of a retry loop), and the limit
that says so: the memo's, or the default."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.undecodable import Undecodable

from workflows import policies
from workflows.errors import invalid_input
from workflows.refusals import refuse_input

# Memo key a starter (or a test) may set to continue-as-new after fewer history events.
HISTORY_LIMIT_MEMO = "azmc_history_limit"


class ContinueAsNewNeeded(Exception):
    """Raised by a retry loop (a NIC Azure refuses to delete for days) so the run can continue as new.

    Every step is idempotent and re-reads Azure, so the next run simply resumes the flow.
    """


def history_is_long(limit: int) -> bool:
    info = workflow.info()
    return info.is_continue_as_new_suggested() or (limit > 0 and info.get_current_history_length() > limit)


def history_limit_from_memo() -> tuple[int, str]:
    """The memo's history limit (or the default), and a note when the memo was not usable as given."""
    default = policies.DEFAULT_HISTORY_LIMIT
    try:
        value = workflow.memo_value(HISTORY_LIMIT_MEMO, None)
    except Exception as err:  # not JSON: a starter's mistake, not a reason to stop the machine
        return default, f"memo {HISTORY_LIMIT_MEMO} is not readable ({type(err).__name__}); using {default}"
    if isinstance(value, Undecodable):
        if value.depends_on_keys:  # decided as for the input it came with
            raise invalid_input(refuse_input(value, f"memo {HISTORY_LIMIT_MEMO}"))
        return default, f"memo {HISTORY_LIMIT_MEMO} is not readable ({value.reason}); using {default}"
    if value is None:
        return default, ""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return default, f"memo {HISTORY_LIMIT_MEMO}={value!r} is not a positive integer; using {default}"
    return value, ""


def bounded_history_limit(limit: int) -> tuple[int, str]:
    """At least policies.MIN_HISTORY_LIMIT (0, no own limit, stays 0)."""
    floor = policies.MIN_HISTORY_LIMIT
    if 0 < limit < floor:
        return floor, f"history limit {limit} is below the minimum; using {floor}"
    return limit, ""
