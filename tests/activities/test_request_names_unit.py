"""ARM request naming `<resourceType>.<verb>`, the emulator's operation names (pure)."""

import pytest

from activities.request_count import RequestCounter, operation_name

SUB = "https://h/subscriptions/0000/resourceGroups/rg/providers"


@pytest.mark.parametrize(
    ("method", "url", "name"),
    [
        ("GET", f"{SUB}/Microsoft.Compute/virtualMachines/vm1?$expand=instanceView", "virtualMachines.get"),
        ("PUT", f"{SUB}/Microsoft.Compute/virtualMachines/vm1?api-version=1", "virtualMachines.put"),
        ("DELETE", f"{SUB}/Microsoft.Compute/virtualMachines/vm1?forceDeletion=true", "virtualMachines.delete"),
        ("POST", f"{SUB}/Microsoft.Compute/virtualMachines/vm1/powerOff", "virtualMachines.powerOff"),
        ("GET", f"{SUB}/Microsoft.Compute/virtualMachines", "virtualMachines.list"),
        ("PUT", f"{SUB}/Microsoft.Network/networkInterfaces/vm1-nic", "networkInterfaces.put"),
        ("GET", f"{SUB}/Microsoft.Network/virtualNetworks/v/subnets/default", "subnets.get"),
        ("DELETE", f"{SUB}/Microsoft.Compute/disks/vm1-os-disk", "disks.delete"),
        ("POST", "https://h/providers/Microsoft.ResourceGraph/resources?api-version=2021-03-01",
         "resourceGraph.query"),
        ("GET", "https://h/subscriptions/0000/providers/Microsoft.Compute/locations/westeurope/operations/abc",
         "operations.poll"),
        ("GET", "https://h/subscriptions/0000/resourcegroups/rg", "resourceGroups.get"),
        ("GET", "https://h/subscriptions/0000/resourceGroups/rg/resources?$filter=tagName eq 'a'", "resources.list"),
    ],
)
def test_operation_names(method: str, url: str, name: str) -> None:
    assert operation_name(method, url) == name


def test_counter_counts_and_resets() -> None:
    counter = RequestCounter()
    counter.record("GET", f"{SUB}/Microsoft.Compute/disks/d1")
    counter.record("GET", f"{SUB}/Microsoft.Compute/disks/d2")
    assert counter.snapshot() == {"disks.get": 2}
    counter.reset()
    assert counter.snapshot() == {}
