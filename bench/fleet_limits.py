"""What Azure's budgets allow a fleet: the emulator's request counts sorted into the budgets they spend, and the
shortest time those counts could take at a set of rates (Azure's documented ones, or azmc's paces).

A request spends ARM's budget of its kind (reads, writes, deletes by HTTP method, operation-status polls among the
reads) and, for the network and compute providers, a provider budget too. The limit of a phase is its busiest
budget's count over that budget's rate: the budgets run side by side, so the slowest one sets the pace.
"""

from collections import Counter
from collections.abc import Mapping

from bench.arm_requests import is_read
from models.pace import ARM_PER_S, COMPUTE_PER_S, DEFAULT_ARM_PACES, DEFAULT_PACES, NETWORK_PER_S, Budget

_NETWORK_TYPES = frozenset({"networkInterfaces", "virtualNetworks", "subnets", "publicIPAddresses"})
_COMPUTE_TYPES = frozenset({"virtualMachines", "disks", "operations", "usages"})
# Compute's policies (Microsoft Learn, "Compute throttling limits"): which operation spends which.
_COMPUTE_POLICY = {"virtualMachines.put": "compute PutVM", "virtualMachines.delete": "compute DeleteVM",
                   "virtualMachines.deallocate": "compute DeleteVM"}
_UPDATE_VM_VERBS = frozenset({"patch", "start", "powerOff", "restart", "redeploy"})

# Azure's sustained rates a second (its buckets' refill; their bursts are left out, so a fleet larger than a burst
# is what is measured).
AZURE_RATES: Mapping[str, float] = {
    "ARM reads": ARM_PER_S["reads"], "ARM writes": ARM_PER_S["writes"], "ARM deletes": ARM_PER_S["deletes"],
    "network writes+deletes": NETWORK_PER_S, "compute PutVM": 500 / 60, "compute UpdateVM": 500 / 60,
    "compute DeleteVM": 500 / 60,
}


def azmc_rates(scale: float = 1.0) -> dict[str, float]:
    """The rates azmc's default paces allow each budget (AZMC_PACE_*), times `scale`."""
    paces = DEFAULT_PACES
    return {
        "ARM reads": DEFAULT_ARM_PACES["reads"] * scale, "ARM writes": DEFAULT_ARM_PACES["writes"] * scale,
        "ARM deletes": DEFAULT_ARM_PACES["deletes"] * scale,
        "network writes+deletes": paces[Budget.NETWORK] * scale,
        "compute PutVM": min(paces[Budget.COMPUTE_WRITES], COMPUTE_PER_S) * scale,
        "compute UpdateVM": min(paces[Budget.COMPUTE_UPDATES], COMPUTE_PER_S) * scale,
        "compute DeleteVM": min(paces[Budget.COMPUTE_DELETES], COMPUTE_PER_S) * scale,
    }


def arm_kind(operation: str) -> str:
    """"ARM reads", "ARM writes" or "ARM deletes" for an emulator operation name ("<resourceType>.<verb>")."""
    if is_read(operation):
        return "ARM reads"
    return "ARM deletes" if operation.endswith(".delete") else "ARM writes"


def provider(operation: str) -> str:
    resource_type = operation.split(".", 1)[0]
    if resource_type in _NETWORK_TYPES:
        return "network"
    return "compute" if resource_type in _COMPUTE_TYPES else "ARM"


def budgets_spent(by_operation: Mapping[str, int]) -> Counter[str]:
    """Requests per budget: every request in ARM's budget of its kind, provider writes in their provider's too."""
    spent: Counter[str] = Counter()
    for operation, count in by_operation.items():
        kind = arm_kind(operation)
        spent[kind] += count
        if kind == "ARM reads":
            continue
        if provider(operation) == "network":
            spent["network writes+deletes"] += count
        elif operation in _COMPUTE_POLICY:
            spent[_COMPUTE_POLICY[operation]] += count
        elif operation.startswith("virtualMachines.") and operation.rsplit(".", 1)[-1] in _UPDATE_VM_VERBS:
            spent["compute UpdateVM"] += count
    return spent


def binding(spent: Mapping[str, int], rates: Mapping[str, float]) -> tuple[str, float]:
    """The budget that takes longest to spend `spent` at `rates`, and how many seconds it takes."""
    name = max(rates, key=lambda budget: spent.get(budget, 0) / rates[budget])
    return name, spent.get(name, 0) / rates[name]


def by_kind_and_provider(by_operation: Mapping[str, int]) -> dict[str, int]:
    """Requests of a phase as the table shows them: reads, writes, deletes; and per provider."""
    shown: Counter[str] = Counter()
    for operation, count in by_operation.items():
        shown[arm_kind(operation).removeprefix("ARM ")] += count
        shown[provider(operation)] += count
    return dict(shown)


def unavoidable(phase: str, machines: int, data_disks: int = 0) -> Counter[str]:
    """The requests a phase cannot do without, by budget: a machine comes up with a NIC PUT and a VM PUT (its
    disks come with the VM) and goes with one VM DELETE (its NIC and OS disk go with it, deleteOption Delete),
    plus one DELETE per data disk; a roll does both."""
    spent: Counter[str] = Counter()
    if phase in ("up", "roll"):
        spent.update({"ARM writes": 2 * machines, "network writes+deletes": machines, "compute PutVM": machines})
    if phase in ("down", "roll"):
        spent.update({"ARM deletes": machines * (1 + data_disks), "compute DeleteVM": machines})
    return spent
