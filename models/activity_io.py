"""Names and payloads of the driver activities: the contract between workflows and activities.

Workflows call activities by these names so they never import the Azure-side implementation.
"""

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

from models.inventory import DataDiskRef, Inventory
from models.spec import MachineSpec


class ActivityName(StrEnum):
    # MachineSpec -> Inventory; NotFound when nothing exists. The registered name predates "inventory": kept for replay.
    READ_INVENTORY = "get_machine_status"
    FIND_VM = "find_vm"  # MachineSpec -> Inventory of the VM alone (empty when no VM); one GET, for creation
    ENSURE_NIC = "ensure_nic"  # MachineSpec -> str (the NIC's ARM id)
    ENSURE_VM = "ensure_vm"  # EnsureVmInput -> Inventory
    DELETE_VM = "delete_vm"  # DeleteVmInput -> None
    DELETE_NIC = "delete_nic"  # DeleteResourceInput -> None
    DELETE_DISK = "delete_disk"  # DeleteResourceInput -> None
    DELETE_PUBLIC_IP = "delete_public_ip"  # DeleteResourceInput -> None (spec `public_ip`, after its NIC)
    POWER_OFF = "power_off"  # MachineRef -> None
    START_VM = "start_vm"  # MachineRef -> Inventory (the VM, running); a stopped VM is started, never rebuilt
    # The repair ladder (MachineRef -> Inventory, the VM running again): a guest rebooted, a VM moved to a new host
    RESTART_VM = "restart_vm"
    REDEPLOY_VM = "redeploy_vm"
    READ_RESOURCE_HEALTH = "read_resource_health"  # MachineRef -> models.health_io.ResourceHealthReading
    READ_PRICES = "read_prices"  # PricesInput -> models.prices.OfferingPrices (spec `capacity_order`)
    # models.reserved_room.ReservedRoomInput -> ReservedRoom (spec `capacity_reservation_group_id`)
    READ_RESERVED_ROOM = "read_reserved_room"
    GUEST_ADDRESS = "guest_address"  # MachineSpec -> str: the NIC's private IP, where probes go ("" when none)
    PROBE_GUEST = "probe_guest"  # models.health_io.ProbeInput -> ProbeResult; no Azure call
    DEALLOCATE_VM = "deallocate_vm"  # MachineRef -> Inventory (the VM, deallocated; empty without a VM): `preserve`
    # DataDiskDeleteOptionInput -> Inventory: VM PATCH of every data disk's deleteOption, before the VM
    # is deleted: Detach for a recovery (VMs of older azmc have Delete), Delete for `delete`
    SET_DATA_DISK_DELETE_OPTION = "set_data_disk_delete_option"
    LIST_MACHINES = "list_machines"  # ListMachinesInput -> list[MachineSummary]
    UPDATE_TAGS = "update_tags"  # UpdateTagsInput -> TagsUpdated (update_spec's tag changes)
    SURVEY_FLEET = "survey_fleet"  # None -> models.sweep.FleetSurvey (one graph query, one visibility listing)
    CHECK_ORPHAN = "check_orphan"  # OrphanCheckInput -> OrphanVerdict (ARM GETs + workflow describe)
    MARK_ORPHAN = "mark_orphan"  # OrphanMarkInput -> list[str]: tag azmc-orphan-seen written or removed
    LIST_OUTDATED = "list_outdated"  # OutdatedQuery -> Outdated: runs on an older Worker Deployment Version
    # A pool's machines as their workflows say (a describe; the status query when asked):
    # models.pool_io.MachinesOfPool -> list[MachineTruth]; no Azure call
    DESCRIBE_POOL_MACHINES = "describe_pool_machines"
    # A template change the machines take in place: update_spec to each (models.pool_io.InPlaceInput ->
    # list[InPlaceOutcome]); the machines' own workflows make the Azure calls
    UPDATE_POOL_MACHINES = "update_pool_machines"
    # Open machine workflows a pool's earlier life started (visibility, then describes, their status, their
    # spec; update_spec when they differ only in place): models.pool_io.AdoptionInput -> Adoption; no Azure call
    ADOPT_POOL_MACHINES = "adopt_pool_machines"
    # What Azure holds under a pool's tag (graph, then ARM GETs, describes): PoolLeftoversInput -> PoolLeftovers
    FIND_POOL_LEFTOVERS = "find_pool_leftovers"
    # The shared memory of refused offerings (the `Offerings` workflow), asked and told by a machine's creation:
    ASK_OFFERINGS = "ask_offerings"  # models.offering_claims.ClaimRequest -> Claim (the offering to try now)
    REPORT_REFUSAL = "report_refusal"  # models.offerings_memory.RefusalReport (an outcome) -> Refusal | None
    RELEASE_PROBES = "release_probes"  # models.offerings_memory.ProbeRelease (a machine stopped) -> int released
    # UsagesQuestion -> list[models.quota.QuotaUsage]: the vCPU quotas of a location (one ARM list). ask_offerings
    # reads them itself when the memory asks it to (models/quota.py).
    READ_USAGES = "read_usages"
    # MachineSpec -> str: a marketplace plan's terms read, and accepted when they are not (only with accept_terms)
    ACCEPT_MARKETPLACE_TERMS = "accept_marketplace_terms"
    # MachineSpec -> Inventory: update_spec's identity and boot diagnostics changes, one VM PATCH
    UPDATE_VM_IN_PLACE = "update_vm_in_place"


class _Io(BaseModel):
    model_config = ConfigDict(frozen=True)


class MachineRef(_Io):
    resource_group: str
    name: str


class EnsureVmInput(_Io):
    spec: MachineSpec
    nic_id: str
    # Data disks that exist already: attached (createOption Attach), never created again. The others of
    # the spec are created empty.
    attach: list[DataDiskRef] = []
    # The caller has just read that no VM of this name exists: create at once with a PUT that only creates
    # (If-None-Match: *), no GET first. Only a hint: a VM that appeared meanwhile is found by the PUT's 412.
    vm_absent: bool = False


class DeleteVmInput(_Io):
    machine: MachineRef
    force: bool = False
    owner_workflow_id: str = ""  # "" = the calling workflow; the fleet sweep names the closed machine workflow


class DataDiskDeleteOptionInput(_Io):
    machine: MachineRef
    delete_option: Literal["Detach", "Delete"]


class DeleteResourceInput(_Io):
    """Delete one NIC or disk by name; refused (NotOwned) unless it carries the machine's ownership tag."""

    machine: MachineRef
    name: str
    owner_workflow_id: str = ""  # as DeleteVmInput's


class UsagesQuestion(_Io):
    subscription: str
    location: str


class ListMachinesInput(_Io):
    resource_group: str = ""  # "" = every resource group of the subscription
    pool: str = ""


class MachineSummary(_Io):
    name: str
    resource_group: str
    pool: str = ""
    inventory: Inventory


class UpdateTagsInput(_Io):
    """Give the machine's VM, NICs and disks the spec's tags; `remove`: tag names the previous spec set."""

    spec: MachineSpec
    remove: list[str] = []


class TagsUpdated(_Io):
    changed: list[str] = []  # "VM vm1", "NIC vm1-nic", "disk vm1-os-disk"
    not_ours: list[str] = []  # resources under the machine's names that another owner holds: left alone
