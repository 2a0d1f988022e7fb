"""Azure's write budgets, and which activity spends which: the fleet is paced by them, not each machine.

Each budget is a task queue of its own (`<task queue>-<budget>`) whose activities Temporal hands out at most at
the budget's rate across every worker of the installation (`max_task_queue_activities_per_second`, enforced by
the server: docs/architecture/pacing.md). VM creations, updates and deletions have budgets of their own at
Azure and here, so a wave of one never starves the others. ARM's own budgets (reads, writes, deletes) hold every
request, reads and polls included, in each worker's share (activities/arm_pace.py).
"""

from enum import StrEnum
from types import MappingProxyType

from models.activity_io import ActivityName


class Budget(StrEnum):
    """One per budget Azure keeps apart (compute's policies PutVM, UpdateVM, DeleteVM; the network provider's)."""

    NETWORK = "network"
    COMPUTE_WRITES = "compute-writes"
    COMPUTE_UPDATES = "compute-updates"
    COMPUTE_DELETES = "compute-deletes"


# The documented limits (Microsoft Learn, "Request limits and throttling", "Compute throttling limits"), per
# subscription and region: the network provider 1,000 writes and deletes per 5 minutes; compute's PutVM, UpdateVM
# (power operations, PATCH) and DeleteVM (deallocate included) 500 a minute each; ARM 10 writes and 10 deletes a
# second.
NETWORK_PER_S = 1000 / 300
COMPUTE_PER_S = min(500 / 60, 10.0)
HEADROOM = 0.8  # an operator's portal and other tools still have a fifth of every budget
# ARM per subscription and region (token buckets of 250 reads, 200 writes, 200 deletes): reads, writes, deletes.
ARM_PER_S = MappingProxyType({"reads": 25.0, "writes": 10.0, "deletes": 10.0})
DEFAULT_ARM_PACES = MappingProxyType({kind: rate * HEADROOM for kind, rate in ARM_PER_S.items()})
DEFAULT_PACES = MappingProxyType({
    # NIC creations and deletions share one budget at Azure, and one queue here: deletions are leftovers only
    # (a VM takes its own NIC along), so a queue of their own would idle a share the creations need.
    Budget.NETWORK: round(NETWORK_PER_S * HEADROOM, 2),
    Budget.COMPUTE_WRITES: round(COMPUTE_PER_S * HEADROOM, 2),
    Budget.COMPUTE_UPDATES: round(COMPUTE_PER_S * HEADROOM, 2),
    Budget.COMPUTE_DELETES: round(COMPUTE_PER_S * HEADROOM, 2),
})

ACTIVITY_BUDGET = MappingProxyType({
    ActivityName.ENSURE_NIC: Budget.NETWORK,
    ActivityName.DELETE_NIC: Budget.NETWORK,
    ActivityName.DELETE_PUBLIC_IP: Budget.NETWORK,
    ActivityName.ENSURE_VM: Budget.COMPUTE_WRITES,
    ActivityName.START_VM: Budget.COMPUTE_UPDATES,
    ActivityName.RESTART_VM: Budget.COMPUTE_UPDATES,
    ActivityName.REDEPLOY_VM: Budget.COMPUTE_UPDATES,
    ActivityName.SET_DATA_DISK_DELETE_OPTION: Budget.COMPUTE_UPDATES,
    ActivityName.POWER_OFF: Budget.COMPUTE_UPDATES,
    ActivityName.DELETE_VM: Budget.COMPUTE_DELETES,
    ActivityName.DELETE_DISK: Budget.COMPUTE_DELETES,
    ActivityName.DEALLOCATE_VM: Budget.COMPUTE_DELETES,
})


def budget_task_queue(task_queue: str, budget: Budget) -> str:
    return f"{task_queue}-{budget}"
