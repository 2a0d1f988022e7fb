"""The limits profile: `none` (the default) enforces no provider limit and adds no provider header; `azure`
enforces Azure's documented numbers, which its answers show when no budget is overridden."""

from __future__ import annotations

from emulator.limits.budget import Budget
from emulator.limits.profile import AZURE_BUDGETS
from tests.emulator.builders import RG
from tests.emulator.limit_steps import Answers, azure_limits
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def test_the_azure_profile_has_azure_numbers() -> None:
    """Microsoft Learn: ARM's regional token bucket, "Network throttling", "Compute throttling limits"."""
    def minute(refill: int) -> Budget:  # Compute refills each minute into a bucket of three minutes
        return Budget(capacity=3 * refill, period_s=60, refill=refill)

    assert AZURE_BUDGETS == {
        "arm.reads": Budget(250, 1, 25), "arm.writes": Budget(200, 1, 10), "arm.deletes": Budget(200, 1, 10),
        "network.writes": Budget(1000, 300), "network.reads": Budget(10000, 300),
        "compute.PutVM.resource": minute(4), "compute.PutVM.subscription": minute(500),
        "compute.UpdateVM.resource": minute(4), "compute.UpdateVM.subscription": minute(500),
        "compute.DeleteVM.resource": minute(4), "compute.DeleteVM.subscription": minute(500),
        "compute.LowCostGet.resource": minute(12), "compute.LowCostGet.subscription": minute(8000),
        "compute.HighCostGet.subscription": minute(300),
        "compute.GetOperation.resource": minute(15), "compute.GetOperation.subscription": minute(5000),
    }
    assert minute(500) == Budget(capacity=1500, period_s=60, refill=500)


def test_azure_answers_count_from_azure_budgets(emulator: EmulatorHandle, clients: SyncClients) -> None:
    azure_limits(emulator)
    seen = Answers()
    make_vm(clients, emulator, "pvm")
    clients.compute.virtual_machines.get(RG, "pvm", raw_response_hook=seen)
    # The create's poller read the VM once already (its final GET).
    assert seen.header("GET") == "Microsoft.Compute/LowCostGetResource;34,Microsoft.Compute/LowCostGet3Min;23998"
    clients.compute.virtual_machines.begin_create_or_update(
        RG, "pvm", clients.compute.virtual_machines.get(RG, "pvm"), raw_response_hook=seen).result()
    assert seen.header("PUT") == "Microsoft.Compute/PutVMResource;10,Microsoft.Compute/PutVM3Min;1498"


def test_the_none_profile_enforces_no_provider_limit(emulator: EmulatorHandle, clients: SyncClients) -> None:
    assert emulator.settings()["limits"] == "none"
    make_vm(clients, emulator, "nvm")
    emulator.settings(limits_overrides={"compute.LowCostGet.resource": {"capacity": 1}})  # only read under azure
    seen = Answers()
    for _ in range(3):
        clients.compute.virtual_machines.get(RG, "nvm", raw_response_hook=seen)
    assert seen.statuses("GET") == [200, 200, 200]
    assert all("x-ms-ratelimit-remaining-resource" not in headers for _, _, headers in seen.seen)
    assert "x-ms-ratelimit-remaining-subscription-reads" in seen.seen[0][2]
