"""`workflow.patched` ids: each marks a change in workflow logic that running machines must survive.

A machine whose history predates a patch replays the old branch; new work takes the new one. Remove a
branch only after no open workflow (and no history in tests/workflows/histories/) can still reach it.
Workflow code asks `patched(ID)` below, never `workflow.patched(ID)` itself: see ALL_OF_THE_ABOVE.
"""

from temporalio import workflow

# Creation and health checks read only the VM (find_vm, one ARM GET) instead of the full inventory
# (read_inventory, up to 5 requests when there is no VM): neither decision depends on a NIC or disk.
FIND_VM_FOR_DECISIONS = "find-vm-for-creation-and-health"

# A run whose workflow id is not `machine/<resource_group>/<name>` of its own spec fails at once: two
# workflows must never manage one machine. Checked only on a mismatch, so correct ids add no marker.
WORKFLOW_ID_MATCHES_SPEC = "workflow-id-matches-spec"

# A history limit (memo azmc_history_limit, or carried) below policies.MIN_HISTORY_LIMIT is raised to
# it, so a run cannot continue as new about once a second forever. Checked only for such a limit.
HISTORY_LIMIT_FLOOR = "history-limit-floor"

# A stopped or deallocated VM (out of band, a Spot eviction) is started (start_vm), never deleted and
# re-created; a failed start (AllocationFailed) waits in Unknown with the capacity backoff.
START_STOPPED_VM = "start-stopped-vm-never-rebuild"

# A VM that must be re-created keeps its data disks: it is deleted only after its data disks have
# deleteOption Detach (keep_data_disks), the new VM attaches the ones that exist, a failed attempt's
# compensation deletes only the disks that attempt created, and a creation timeout keeps them too.
KEEP_DATA_DISKS = "keep-data-disks-across-recovery"

# Deletion: NICs and disks that do not depend on each other are deleted concurrently, each step
# retrying on its own, so one that cannot be deleted never keeps the others alive.
INDEPENDENT_CLEANUP = "independent-cleanup-steps"

# A health check that finds another owner's VM under the machine's name makes the machine Unknown with
# the NotOwned reason (it used to stay Running, with the reason only in the last operation).
FOREIGN_VM_IS_UNKNOWN = "foreign-vm-is-unknown"

# Creation falls back across offerings (models/offerings.py): each attempt asks the shared memory (the
# `Offerings` workflow) which offerings to skip, tries the first of the others, tells the memory when
# Azure refuses it for capacity and starts the next attempt at once; it waits only when every offering
# is refused. Older runs keep one size and zone, and the 10-minute capacity backoff.
CAPACITY_FALLBACK = "capacity-fallback-across-offerings"

# A Spot machine with spot.fallback_to_regular whose Spot VM was evicted (deallocated or gone) tells the
# shared memory (SpotEvicted), deletes a deallocated VM keeping its data disks, and is re-created at once
# as the next offering (a regular VM). Checked only for such a machine, so other histories add no marker.
SPOT_EVICTION_FALLBACK = "spot-eviction-falls-back-to-regular"

# A `preserve` signal deallocates the VM (disks and NIC kept) and stops health checks, starts and
# re-creation for good; only `delete` ends it. Checked only when a machine is preserved.
PRESERVE_MACHINE = "preserve-machine"

# A machine started by a pool (its parent is `pool/...`) signals its pool each phase it enters
# (workflows/machine/pool_notice.py). Only children send, so standalone machines' histories are unchanged.
TELL_POOL_PHASE = "tell-pool-phase"

# Every patch above at once, and the search-attribute upserts a run can spare (Machine.announce, and a
# fresh creation showing Creating at once). Each patch id costs a run a marker and a TemporalChangeVersion
# upsert, and a workflow task with an upsert costs the server a visibility write (bench/visibility_cost.py):
# a run whose first patch check finds this id, every run begun on code
# that has it, takes every branch above without asking for it. A run begun before it asks for each id
# as it did, so its history replays unchanged. A new change still gets an id of its own, below.
ALL_OF_THE_ABOVE = "all-patches-through-tell-pool-phase"


# The wait before the next creation attempt is a timer of at least policies.SHORTEST_TIMER, also when
# compensating took longer than the backoff: the command no longer depends on the clock, which a worker
# reads differently in the task after a timed-out one than its replay does. Asked only after a failed attempt.
# Shipped implied by ALL_OF_THE_ABOVE (an oversight, kept: runs begun since replay so; docs/architecture.md).
BACKOFF_ALWAYS_WAITS = "creation-backoff-always-a-timer"

# What a run with ALL_OF_THE_ABOVE takes without asking. Never add to it: in a run begun before a new id, the
# umbrella's marker is there already, so an id it implied would take the new branch where that run did not.
COVERED_BY_ALL_OF_THE_ABOVE = frozenset({
    FIND_VM_FOR_DECISIONS, WORKFLOW_ID_MATCHES_SPEC, HISTORY_LIMIT_FLOOR, START_STOPPED_VM, KEEP_DATA_DISKS,
    INDEPENDENT_CLEANUP, FOREIGN_VM_IS_UNKNOWN, CAPACITY_FALLBACK, SPOT_EVICTION_FALLBACK, PRESERVE_MACHINE,
    TELL_POOL_PHASE, BACKOFF_ALWAYS_WAITS,
})


# The short calls (find_vm, read_inventory, ask_offerings, report_refusal) run as local activities: a marker
# in the workflow task that needs one, instead of an activity task and a workflow task more (about half the
# workflow tasks of a clean lifecycle). A dead worker's call is noticed by its workflow task's timeout (10 s).
LOCAL_SHORT_CALLS = "local-short-calls"

# The second umbrella: every id ALL_OF_THE_ABOVE covers, and LOCAL_SHORT_CALLS. A run begun on code that has
# it writes its marker alone. A run begun with ALL_OF_THE_ABOVE never finds it: the SDK remembers a patch's
# answer for the run from its first question, which a worker on new code asks while it replays.
THROUGH_LOCAL_SHORT_CALLS = "all-patches-through-local-short-calls"
COVERED_BY_THROUGH_LOCAL_SHORT_CALLS = COVERED_BY_ALL_OF_THE_ABOVE | {LOCAL_SHORT_CALLS}

# Each umbrella and the ids it stands for, the newest first: it is asked first, so a new run has its marker
# only. The next umbrella goes at the front, covering these ids and its own.
UMBRELLAS = (
    (THROUGH_LOCAL_SHORT_CALLS, COVERED_BY_THROUGH_LOCAL_SHORT_CALLS),
    (ALL_OF_THE_ABOVE, COVERED_BY_ALL_OF_THE_ABOVE),
)


# A machine that stops while the shared memory may hold its probe (deleted or continued as new mid-attempt,
# Failed, or a start that failed) releases it (release_probes), so others stop waiting for its outcome.
# Asked only when it may hold one, so other histories add no marker.
RELEASE_PROBES = "release-probes-when-a-machine-stops"

# A health check that finds the machine's resource group gone (ResourceGroupNotFound) makes the machine
# Unknown with the reason and never re-creates it (azmc creates no resource groups); it used to stay Running,
# and the fleet sweep signalled it every minute. Asked only on that error.
RESOURCE_GROUP_GONE_IS_UNKNOWN = "resource-group-gone-is-unknown"

# The fleet sweep marks an orphan whose owner workflow Temporal does not know (tag azmc-orphan-seen, written
# by mark_orphan) and collects it a grace after, and removes the marks of a machine that is open again.
# Asked only when there is a mark to write or remove.
ORPHAN_SEEN_MARKS = "orphan-seen-marks"


# A duration outside models/durations.py's bounds fails a new run's input (or refuses an update) naming the
# field and the bounds. Asked only for a value the bounds alone refuse: a run begun before takes it as it did.
DURATION_BOUNDS = "duration-bounds"


def patched(patch_id: str) -> bool:
    """`workflow.patched(patch_id)`, or True without a marker of its own in a run begun with an umbrella
    that covers the id."""
    if any(patch_id in covered and workflow.patched(umbrella) for umbrella, covered in UMBRELLAS):
        return True
    return workflow.patched(patch_id)


def fewer_upserts() -> bool:
    """The upserts the umbrellas spare (a run begun before the first upserts as it did)."""
    return any(workflow.patched(umbrella) for umbrella, _ in UMBRELLAS)


# A pool acts on a machine's `machine_phase` notice only once the machine's own workflow confirms it
# (describe_pool_machines, a local activity: describe and `status` query), and lists a notice it contradicts
# as ignored: anyone may signal the pool. While deleting, it asks its machines again each POOL_RECHECK.
POOL_CONFIRMS_NOTICES = "pool-confirms-machine-notices"

# A pool's deletion ends with Azure read by the pool's tag (find_pool_leftovers: graph, then GETs): lost
# machines of its own that run get `delete`, what its ended machines left is deleted, the rest is named.
POOL_DELETION_READS_AZURE = "pool-deletion-reads-azure-by-tag"
# A signal whose payload this worker cannot open (sealed with a key it lacks, which another worker may have) is
# refused and marked: a worker replaying the run, with the key or without, refuses it too (workflows/refusals.py).
# One marker per refused signal, named by the signal's number in the run (refused_signal); asked only on replay.
REFUSED_SIGNAL_PREFIX = "refused-signal-"

# A fresh start whose input or memo is sealed with a key this worker lacks fails at once, marked so that a worker
# replaying it (a query of the failed run), with the key or without, fails it the same way. Asked only on replay.
REFUSED_INPUT = "refused-input"


def refused_signal(number: int) -> str:
    return f"{REFUSED_SIGNAL_PREFIX}{number}"
