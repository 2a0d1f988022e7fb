"""bench/fleet_limits.py sorts the emulator's counts into Azure's budgets the way Azure spends them, so the limit
bench.fleet_churn prints beside its times is the one the budgets imply."""

from bench.fleet_limits import AZURE_RATES, azmc_rates, binding, budgets_spent, by_kind_and_provider

# One lifecycle as the emulator counts it (bench.arm_requests, no data disk): creation, deletion, polls.
LIFECYCLE = {"resources.list": 2, "networkInterfaces.put": 1, "virtualMachines.put": 1, "disks.patch": 1,
             "virtualMachines.get": 2, "virtualMachines.powerOff": 1, "virtualMachines.delete": 1,
             "operations.get": 12}


def test_every_request_spends_arms_budget_of_its_kind_and_writes_their_providers_too() -> None:
    spent = budgets_spent(LIFECYCLE)
    assert spent["ARM reads"] == 16 and spent["ARM writes"] == 4 and spent["ARM deletes"] == 1
    assert spent["network writes+deletes"] == 1
    assert spent["compute PutVM"] == 1 and spent["compute UpdateVM"] == 1 and spent["compute DeleteVM"] == 1


def test_the_busiest_budget_binds() -> None:
    fleet = {operation: count * 1000 for operation, count in LIFECYCLE.items()}
    assert binding(budgets_spent(fleet), AZURE_RATES) == ("ARM reads", 16000 / 25)
    # A thousand NIC PUTs alone: the network provider's 1,000 per 5 minutes binds.
    assert binding(budgets_spent({"networkInterfaces.put": 1000}), AZURE_RATES) == ("network writes+deletes", 300)


def test_azmc_s_paces_stay_below_azures_rates() -> None:
    assert all(azmc_rates()[budget] < rate for budget, rate in AZURE_RATES.items())
    assert azmc_rates(5.0)["ARM reads"] == 5 * azmc_rates()["ARM reads"]


def test_the_table_shows_kinds_and_providers() -> None:
    shown = by_kind_and_provider(LIFECYCLE)
    assert (shown["reads"], shown["writes"], shown["deletes"]) == (16, 4, 1)
    assert (shown["network"], shown["ARM"], shown["compute"]) == (1, 2, 18)
