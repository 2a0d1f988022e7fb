"""Timeouts, retry policies and backoff for every Azure call the workflow makes.

Activity-level retries absorb short blips (a dropped connection, one 429); anything that needs a
longer wait comes back to the workflow, which waits visibly (current details, next_retry_at) and
decides: back off a creation, or retry a deletion stage forever.
"""

from datetime import timedelta

from temporalio.common import RetryPolicy

from models.errors import NON_RETRYABLE, ErrorType

# Creation retry (MCM's CrashLoopBackOff): 5 s doubling to 3 min; capacity problems wait 10 min (MCM's
# back-off for allocation failures). The one home of this wait: activities report capacity, never a delay.
CREATION_BACKOFF_START = timedelta(seconds=5)
CREATION_BACKOFF_CAP = timedelta(minutes=3)
CAPACITY_BACKOFF = timedelta(minutes=10)
# The shortest timer a workflow starts for a moment it waits for (the next creation attempt, a health check
# due, a pool's next decision): no such moment needs sub-second precision, and a shorter timer would cost a
# workflow task for a wait nobody can see.
SHORTEST_TIMER = timedelta(seconds=1)
# A name held by another owner (NotOwned), or a VM Azure refuses for what the spec names (InvalidSpec: an image,
# identity or plan's terms that are not there), is fixed only when a person acts: retrying sooner would change
# nothing; `reconcile` cuts the wait short once they have.
OPERATOR_BACKOFF = timedelta(minutes=10)
# A pool whose replacements keep failing without ever running (a resource group or template an operator must fix)
# replaces the next one only after this, doubling to the cap; one machine Running ends it.
UNRAN_REPLACEMENT_BACKOFF_START = timedelta(seconds=30)
UNRAN_REPLACEMENT_BACKOFF_CAP = timedelta(minutes=10)

# Deletion stages and compensations retry forever with this capped backoff.
CLEANUP_BACKOFF_START = timedelta(seconds=5)
CLEANUP_BACKOFF_CAP = timedelta(minutes=3)

# An activity whose every attempt met workers lacking the codec key its input is sealed with is scheduled again,
# for a worker that has it (workflows/azure_calls.py): after this capped backoff, never counted as a failure.
KEY_WAIT_START = timedelta(seconds=5)
KEY_WAIT_CAP = timedelta(minutes=2)

# Fallback history length that triggers continue-as-new when the server has not suggested it yet.
DEFAULT_HISTORY_LIMIT = 10_000
# The lowest limit a starter may set (memo azmc_history_limit): a run's first workflow tasks alone
# write a few dozen events, so a lower limit would continue as new again and again, doing nothing else.
MIN_HISTORY_LIMIT = 100


def capped_backoff(attempt: int, start: timedelta, cap: timedelta) -> timedelta:
    """Delay before retry number `attempt` (1 = first retry): start doubling, never above cap."""
    delay = start * (2 ** max(attempt - 1, 0)) if attempt < 32 else cap
    return min(delay, cap)


def creation_backoff(attempt: int, error_type: str, suggested: timedelta | None) -> timedelta:
    """How long CrashLoopBackOff waits after failed attempt number `attempt` (and Unknown after a failed
    start of a stopped VM: the same capacity wait).

    Azure's own hint (Retry-After, a NIC reservation) wins when it is longer than our backoff.
    """
    if error_type == ErrorType.CAPACITY_EXHAUSTED:
        delay = CAPACITY_BACKOFF
    elif error_type in (ErrorType.NOT_OWNED, ErrorType.INVALID_SPEC):
        delay = OPERATOR_BACKOFF
    else:
        delay = capped_backoff(attempt, CREATION_BACKOFF_START, CREATION_BACKOFF_CAP)
    if suggested is not None and suggested > delay:
        delay = suggested
    return delay


def cleanup_backoff(attempt: int, error_type: str, suggested: timedelta | None) -> timedelta:
    """How long a deletion stage or compensation waits after failed try number `attempt`.

    Capacity waits CAPACITY_BACKOFF, as in creation; Azure's hint (Retry-After, a NIC reservation) wins
    when it is longer than our backoff, but never beyond CAPACITY_BACKOFF.
    """
    if error_type == ErrorType.CAPACITY_EXHAUSTED:
        return CAPACITY_BACKOFF
    delay = capped_backoff(attempt, CLEANUP_BACKOFF_START, CLEANUP_BACKOFF_CAP)
    if suggested is not None and suggested > delay:
        delay = min(suggested, CAPACITY_BACKOFF)
    return delay


def _policy(*extra_non_retryable: str, attempts: int, max_interval: timedelta) -> RetryPolicy:
    return RetryPolicy(
        initial_interval=timedelta(seconds=1),
        backoff_coefficient=2.0,
        maximum_interval=max_interval,
        maximum_attempts=attempts,
        non_retryable_error_types=sorted(NON_RETRYABLE | set(extra_non_retryable)),
    )


# Reads: a few quick retries; the caller's loop owns anything longer.
READ_RETRY = _policy(attempts=5, max_interval=timedelta(seconds=30))

# Creation steps: capacity and NIC-reservation failures return at once, so the saga compensates
# and backs off (10 min for capacity) instead of hammering Azure from inside one attempt.
CREATE_RETRY = _policy(
    ErrorType.CAPACITY_EXHAUSTED, ErrorType.NIC_RESERVED, attempts=3, max_interval=timedelta(seconds=30)
)

# Deletes (compensations and deletion stages): what needs a longer wait - a NIC reservation, a disk
# still attached (Conflict), anything Azure calls capacity - returns to the workflow, which waits where
# an operator sees the error and the next retry time; the workflow loop retries everything forever.
DELETE_RETRY = _policy(ErrorType.NIC_RESERVED, ErrorType.CONFLICT, ErrorType.CAPACITY_EXHAUSTED,
                       attempts=4, max_interval=timedelta(seconds=30))

# Starting a stopped VM: AllocationFailed returns at once; the workflow waits (10 min) visibly, in Unknown.
START_RETRY = CREATE_RETRY

# A probe of the guest is one try: its failure is an answer the failure threshold counts.
NO_RETRY = RetryPolicy(maximum_attempts=1)
PROBE_SLACK = timedelta(seconds=2)  # beyond the probe's own timeout: the worker's time to run it

# Drain is best effort: bounded by the drain timeout, then deletion proceeds.
DRAIN_RETRY = _policy(attempts=3, max_interval=timedelta(seconds=30))

# A worker that dies mid-call is noticed within these: reads are short, and every call that polls an
# Azure operation heartbeats (the driver heartbeats its continuation token while it polls).
READ_TIMEOUT = timedelta(seconds=30)
# Short calls run as activities (check_orphan, and every short call of a run begun before LOCAL_SHORT_CALLS)
# heartbeat once they run past a second (activities/arm.py, heartbeating), so a worker that dies mid-call is
# noticed within this rather than at READ_TIMEOUT, which would hold the machine (and a prober, every machine
# waiting for it). As local activities, they end with their workflow task's timeout (10 s).
SHORT_HEARTBEAT = timedelta(seconds=10)
OPERATION_HEARTBEAT = timedelta(seconds=30)
NIC_TIMEOUT = timedelta(minutes=3)
# VM operations take minutes on Azure; the driver heartbeats while it polls, so a dead worker is
# noticed within the heartbeat timeout rather than at the end of the start-to-close timeout.
VM_TIMEOUT = timedelta(minutes=20)
VM_HEARTBEAT = OPERATION_HEARTBEAT
DISK_TIMEOUT = timedelta(minutes=3)
