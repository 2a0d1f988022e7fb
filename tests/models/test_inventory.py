"""The inventory contract that kills MCM's bug: a leftover NIC or disk is never a VM."""

from models.inventory import Inventory, VmState


def test_nic_only_is_a_partial_machine_not_a_vm() -> None:
    inventory = Inventory(nic_names=["vm1-nic"])
    assert not inventory.has_vm
    assert not inventory.vm_healthy
    assert not inventory.is_empty


def test_empty_inventory_means_nothing_exists() -> None:
    assert Inventory().is_empty
    assert not Inventory(disk_names=["vm1-os-disk"]).is_empty


def test_failed_vm_is_a_vm_but_not_healthy() -> None:
    inventory = Inventory(provider_id="azure:///x/vm1", node_name="vm1", vm_state=VmState(provisioning_state="Failed"))
    assert inventory.has_vm and inventory.vm_failed and not inventory.vm_healthy


def test_stopped_vm_is_not_healthy() -> None:
    state = VmState(provisioning_state="Succeeded", power_state="stopped")
    assert not Inventory(provider_id="azure:///x", node_name="vm1", vm_state=state).vm_healthy
    running = VmState(provisioning_state="Succeeded", power_state="running")
    assert Inventory(provider_id="azure:///x", node_name="vm1", vm_state=running).vm_healthy


def test_summary_reads_like_a_sentence() -> None:
    inventory = Inventory(nic_names=["vm1-nic"], disk_names=["vm1-os-disk"])
    assert inventory.summary() == "no VM; NICs: vm1-nic; disks: vm1-os-disk"


def test_a_powered_off_vm_is_stopped_even_after_a_failed_start() -> None:
    def vm(provisioning: str, power: str) -> Inventory:
        return Inventory(provider_id="azure:///x", node_name="vm1",
                         vm_state=VmState(provisioning_state=provisioning, power_state=power))

    assert vm("Succeeded", "deallocated").vm_stopped and vm("Succeeded", "stopped").vm_stopped
    # AllocationFailed on start leaves the VM Failed but deallocated: start it again, never rebuild it.
    assert vm("Failed", "deallocated").vm_stopped
    assert not vm("Failed", "").vm_stopped and not vm("Succeeded", "running").vm_stopped
    assert not Inventory(disk_names=["vm1-0-data-disk"]).vm_stopped


def test_data_disk_unique_ids_fill_in_from_an_earlier_read() -> None:
    from models.inventory import DataDiskRef

    read = Inventory(provider_id="azure:///x", data_disks=[DataDiskRef(name="d0", id="/x/DISKS/d0")])
    known = Inventory(data_disks=[DataDiskRef(name="d0", id="/x/disks/d0", unique_id="u-1")]).unique_ids()
    assert read.with_unique_ids(known).data_disks[0].unique_id == "u-1"
    fresh = Inventory(data_disks=[DataDiskRef(name="d0", id="/x/disks/d0", unique_id="u-2")])
    assert fresh.with_unique_ids(known).data_disks[0].unique_id == "u-2"  # a fresh read wins
