"""Azure's write budgets, and which activity spends which: the fleet is paced by them, not each machine.

Each budget is a task queue of its own (`<task queue>-<budget>`) whose activities Temporal hands out at most at
the budget's rate across every worker of the installation (`max_task_queue_activities_per_second`, enforced by
the server: docs/architecture.md, "Pacing"). Creations and deletions have budgets of their own, so a wave of one
never starves the other. ARM's own budgets (reads, writes, deletes) hold every request, reads and polls included,
in each worker's share (activities/arm_pace.py).
"""

from enum import StrEnum
from types import MappingProxyType

from models.activity_io import ActivityName


class Budget(StrEnum):
    NETWORK_WRITES = "network-writes"
    NETWORK_DELETES = "network-deletes"
    COMPUTE_WRITES = "compute-writes"
    COMPUTE_DELETES = "compute-deletes"


# The documented limits (Microsoft Learn, "Request limits and throttling", "Compute throttling limits"), per
# subscription and region: the network provider 1,000 writes and deletes per 5 minutes; compute PutVM and
# DeleteVM (deallocate included) 500 a minute; ARM 10 writes and 10 deletes a second.
NETWORK_PER_S = 1000 / 300
COMPUTE_PER_S = min(500 / 60, 10.0)
HEADROOM = 0.8  # an operator's portal and other tools still have a fifth of every budget
# ARM per subscription and region (token buckets of 250 reads, 200 writes, 200 deletes): reads, writes, deletes.
ARM_PER_S = MappingProxyType({"reads": 25.0, "writes": 10.0, "deletes": 10.0})
DEFAULT_ARM_PACES = MappingProxyType({kind: rate * HEADROOM for kind, rate in ARM_PER_S.items()})
DEFAULT_PACES = MappingProxyType({
    Budget.NETWORK_WRITES: round(NETWORK_PER_S * HEADROOM * 0.75, 2),  # a NIC per new machine
    Budget.NETWORK_DELETES: round(NETWORK_PER_S * HEADROOM * 0.25, 2),  # leftover NICs only: a VM takes its own
    Budget.COMPUTE_WRITES: round(COMPUTE_PER_S * HEADROOM, 2),
    Budget.COMPUTE_DELETES: round(COMPUTE_PER_S * HEADROOM, 2),
})

ACTIVITY_BUDGET = MappingProxyType({
    ActivityName.ENSURE_NIC: Budget.NETWORK_WRITES,
    ActivityName.DELETE_NIC: Budget.NETWORK_DELETES,
    ActivityName.ENSURE_VM: Budget.COMPUTE_WRITES,
    ActivityName.START_VM: Budget.COMPUTE_WRITES,
    ActivityName.RESTART_VM: Budget.COMPUTE_WRITES,
    ActivityName.REDEPLOY_VM: Budget.COMPUTE_WRITES,
    ActivityName.SET_DATA_DISK_DELETE_OPTION: Budget.COMPUTE_WRITES,
    ActivityName.DELETE_VM: Budget.COMPUTE_DELETES,
    ActivityName.DELETE_DISK: Budget.COMPUTE_DELETES,
    ActivityName.DEALLOCATE_VM: Budget.COMPUTE_DELETES,
    ActivityName.POWER_OFF: Budget.COMPUTE_DELETES,
})


def budget_task_queue(task_queue: str, budget: Budget) -> str:
    return f"{task_queue}-{budget}"
