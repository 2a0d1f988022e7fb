"""Pure unit tests of the survey's join: whose rows are whose, and what counts as drift."""

from activities.reading.fleet import GraphMachine, split_fleet
from activities.sweep.survey import drift_of, power_state, resource_health
from models.status import Phase

OURS = "inst-a"


def _vm(name: str, owner: str | None, power: str = "running", state: str = "Succeeded") -> dict:
    tags = {"azmc-machine": name, **({"azmc-owner": owner} if owner else {})}
    return {"id": f"/subscriptions/s/resourceGroups/Azmc-Demo/providers/Microsoft.Compute/virtualMachines/{name}",
            "name": name, "type": "microsoft.compute/virtualmachines", "resourceGroup": "azmc-demo", "tags": tags,
            "properties": {"provisioningState": state,
                           "extended": {"instanceView": {"powerState": {"code": f"PowerState/{power}"}}},
                           "networkProfile": {"networkInterfaces": [{"id": f"/x/networkInterfaces/{name}-nic"}]},
                           "storageProfile": {"osDisk": {"name": f"{name}-os-disk",
                                                         "managedDisk": {"id": f"/x/disks/{name}-os-disk"}}}}}


def _nic(name: str, owner: str) -> dict:
    return {"id": f"/subscriptions/s/resourceGroups/azmc-demo/providers/Microsoft.Network/networkInterfaces/{name}",
            "name": name, "type": "microsoft.network/networkinterfaces", "resourceGroup": "azmc-demo",
            "tags": {"azmc-machine": name.removesuffix("-nic"), "azmc-owner": owner}, "properties": {}}


def test_rows_are_split_by_owner_and_vms_bring_their_nics_and_disks() -> None:
    fleet = split_fleet([
        _vm("vm1", f"{OURS}/machine/Azmc-Demo/vm1"),
        _nic("vm2-nic", f"{OURS}/machine/azmc-demo/vm2"),
        _vm("vm3", "inst-b/machine/azmc-demo/vm3"),
        _vm("vm4", None),
        {"name": "stray", "type": "microsoft.network/networkinterfaces", "tags": {"team": "x"}},
    ], OURS)
    assert sorted(fleet.ours) == ["machine/azmc-demo/vm1", "machine/azmc-demo/vm2"]
    vm1 = fleet.ours["machine/azmc-demo/vm1"].orphan()
    assert (vm1.workflow_id, vm1.resource_group, vm1.vm, vm1.nics, vm1.disks) == (
        "machine/Azmc-Demo/vm1", "Azmc-Demo", "vm1", ["vm1-nic"], ["vm1-os-disk"])
    assert fleet.ours["machine/azmc-demo/vm2"].orphan().nics == ["vm2-nic"]
    assert fleet.other_owners == 1 and list(fleet.legacy) == ["machine/azmc-demo/vm4"]


def test_drift_is_only_for_machines_that_believe_something_azure_contradicts() -> None:
    def machine(**vm: str) -> GraphMachine:
        return GraphMachine("vm1", "azmc-demo", "machine/azmc-demo/vm1", vm=_vm("vm1", None, **vm))

    assert power_state(_vm("vm1", None, power="deallocated")) == "deallocated"
    assert drift_of(Phase.RUNNING, machine()) == ""
    assert drift_of(Phase.RUNNING, machine(power="deallocated")) == "VM deallocated"
    assert drift_of(Phase.RUNNING, machine(power="stopped")) == "VM stopped"
    assert drift_of(Phase.RUNNING, machine(state="Failed")) == "VM Failed"
    assert drift_of(Phase.RUNNING, None) == "VM missing"
    assert drift_of(Phase.UNKNOWN, machine()) == "VM running again"
    assert drift_of(Phase.UNKNOWN, machine(power="deallocated")) == ""
    for busy in (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF, Phase.FAILED, Phase.TERMINATING):
        assert drift_of(busy, None) == "" and drift_of(busy, machine(power="deallocated")) == ""


def test_resource_health_drift_is_azures_outage_while_running_or_its_end_while_unhealthy() -> None:
    def machine(availability: str | None, context: str = "Platform Initiated", summary: str = "",
                **vm: str) -> GraphMachine:
        row = {**_vm("vm1", None, **vm), "availability": availability, "health_context": context,
               "health_summary": summary}
        return GraphMachine("vm1", "azmc-demo", "machine/azmc-demo/vm1", vm=row)

    outage = machine("Unavailable", summary="The host of this VM failed.")
    assert resource_health(outage.vm or {}) == ("Unavailable", "Platform Initiated", "The host of this VM failed.")
    assert drift_of(Phase.RUNNING, outage) == "Resource Health Unavailable: The host of this VM failed."
    assert drift_of(Phase.UNHEALTHY, outage) == ""  # it knows: its ladder runs
    # A stop someone asked for shows as Customer Initiated: drift of its own, once, by power state.
    stopped = machine("Unavailable", context="Customer Initiated", power="deallocated")
    assert drift_of(Phase.RUNNING, stopped) == "VM deallocated"
    assert drift_of(Phase.RUNNING, machine("Unavailable", context="Customer Initiated")) == ""
    assert drift_of(Phase.UNHEALTHY, machine("Available")) == "Resource Health Available again"
    for quiet in ("Available", "Degraded", "Unknown", None):  # shown by the machine, never repaired
        assert drift_of(Phase.RUNNING, machine(quiet)) == ""
    assert drift_of(Phase.UNHEALTHY, machine(None)) == "" and drift_of(Phase.UNHEALTHY, None) == ""
    for busy in (Phase.PENDING, Phase.CREATING, Phase.FAILED, Phase.TERMINATING):
        assert drift_of(busy, outage) == ""
