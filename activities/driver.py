"""AzureDriver: the worker's Azure side. One shared client set; every activity registered by ActivityName."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.common import MetricMeter
from temporalio.exceptions import ApplicationError

from activities import (
    data_disks,
    delete,
    marketplace_terms,
    nic,
    power,
    tags,
    vm,
    vm_in_place,
)
from activities.arm import heartbeating
from activities.arm_pace import ArmPace
from activities.clients import AzureClients, build_clients
from activities.config import AzureConfig
from activities.health import probe, repair, resource_health
from activities.metrics import AzureMetrics
from activities.offerings import memory as offerings_memory
from activities.pool import adoption, in_place, leftovers, machines
from activities.reading import fleet, inventory, prices, reserved_room, skus, usages
from activities.sweep import marks, orphans, outdated, survey
from models.activity_io import (
    ActivityName,
    DataDiskDeleteOptionInput,
    DeleteResourceInput,
    DeleteVmInput,
    EnsureVmInput,
    ListMachinesInput,
    MachineRef,
    MachineSummary,
    TagsUpdated,
    UpdateTagsInput,
    UsagesQuestion,
)
from models.health_io import ProbeInput, ProbeResult, ResourceHealthReading
from models.inventory import Inventory
from models.pool_io import (
    Adoption,
    AdoptionInput,
    InPlaceInput,
    InPlaceOutcome,
    MachinesOfPool,
    MachineTruth,
    PoolLeftovers,
    PoolLeftoversInput,
)
from models.prices import OfferingPrices, PricesInput
from models.quota import DEFAULT_READ_EVERY, QuotaUsage
from models.reserved_room import ReservedRoom, ReservedRoomInput
from models.spec import MachineSpec
from models.sweep import FleetSurvey, OrphanCheckInput, OrphanMarkInput, OrphanVerdict, Outdated, OutdatedQuery


class AzureDriver:
    def __init__(self, clients: AzureClients, force_delete_vms: bool = True) -> None:
        self._clients = clients
        self._force_delete_vms = force_delete_vms

    @classmethod
    async def open(cls, config: AzureConfig, meter: MetricMeter | None = None) -> "AzureDriver":
        """`meter`: the worker runtime's, where the Azure-side metrics go (activities/metrics.py); none: not kept."""
        if not config.installation_id:
            # Every write checks and sets the owner tag: without an installation id none could be safe.
            raise ValueError("the Azure driver needs an installation id (AzureConfig.installation_id)")
        return cls(build_clients(config, AzureMetrics(meter)), force_delete_vms=config.force_delete_vms)

    async def close(self) -> None:
        await self._clients.close()

    def request_counts(self) -> dict[str, int]:
        """ARM requests sent so far, by `<resourceType>.<verb>` (LRO polls as `operations.poll`)."""
        return self._clients.counter.snapshot()

    @property
    def pace(self) -> ArmPace:
        """This process's share of ARM's budgets: workers/replicas.py sets how many processes share them."""
        return self._clients.pace

    def reset_request_counts(self) -> None:
        self._clients.counter.reset()

    def activities(self, shared_offerings: bool = True,
                   quota_read_every: timedelta = DEFAULT_READ_EVERY) -> list[Callable[..., Any]]:
        """`shared_offerings=False`: each machine keeps its own memory of refused offerings (AZMC_SHARED_OFFERINGS);
        `quota_read_every`: how old the memory's reading of the usages may be (AZMC_QUOTA_READ_EVERY)."""
        return [
            self.read_inventory,
            self.find_vm,
            self.ensure_nic,
            self.ensure_vm,
            self.delete_vm,
            self.delete_nic,
            self.delete_public_ip,
            self.delete_disk,
            self.power_off,
            self.start_vm,
            self.deallocate_vm,
            self.restart_vm,
            self.redeploy_vm,
            self.read_resource_health,
            self.read_prices,
            self.read_reserved_room,
            self.guest_address,
            self.probe_guest,
            self.set_data_disk_delete_option,
            self.list_machines,
            self.update_tags,
            self.survey_fleet,
            self.check_orphan,
            self.mark_orphan,
            self.list_outdated,
            self.describe_pool_machines,
            self.update_pool_machines,
            self.find_pool_leftovers,
            self.adopt_pool_machines,
            self.read_usages,
            self.accept_marketplace_terms,
            self.update_vm_in_place,
            # The shared memory of refused offerings (a workflow), asked and told by creation; asking reads the
            # usages when the memory's reading is due (models/quota.py).
            *offerings_memory.activities(shared_offerings, self._usages, quota_read_every, self._skus,
                                         self._clients.metrics),
        ]

    async def _usages(self, question: UsagesQuestion) -> list[QuotaUsage]:
        return await usages.read_usages(self._clients, question)

    async def _skus(self, question: UsagesQuestion) -> dict[str, bool]:
        return await skus.read_accelerated_networking(self._clients, question)

    @activity.defn(name=ActivityName.READ_USAGES.value)
    async def read_usages(self, question: UsagesQuestion) -> list[QuotaUsage]:
        """The location's vCPU quotas: family, in use, limit."""
        return await heartbeating(self._usages(question))

    @activity.defn(name=ActivityName.READ_INVENTORY.value)
    async def read_inventory(self, spec: MachineSpec) -> Inventory:
        """Every resource of the machine; the empty Inventory when nothing exists."""
        return await heartbeating(inventory.read_inventory(self._clients, spec))

    @activity.defn(name=ActivityName.FIND_VM.value)
    async def find_vm(self, spec: MachineSpec) -> Inventory:
        """The VM and the NICs/disks it names (one GET); without a VM, the spec's data disks that exist."""
        return await heartbeating(inventory.find_vm(self._clients, spec))

    @activity.defn(name=ActivityName.ENSURE_NIC.value)
    async def ensure_nic(self, spec: MachineSpec) -> str:
        """The NIC's ARM id; NotOwned when a NIC of that name is someone else's."""
        return await nic.ensure_nic(self._clients, spec)

    @activity.defn(name=ActivityName.ENSURE_VM.value)
    async def ensure_vm(self, inp: EnsureVmInput) -> Inventory:
        """Create or adopt the VM; heartbeats its operation's continuation token while it runs. Its outcome is
        counted by size, zone and Azure's code (activities/metrics.py)."""
        try:
            created = await vm.ensure_vm(self._clients, inp)
        except ApplicationError as error:
            details = error.details[0] if error.details else None
            code = str(details.get("code") or "") if isinstance(details, dict) else ""
            self._clients.metrics.vm_create(inp.spec, code or str(error.type or "Error"))
            raise
        self._clients.metrics.vm_create(inp.spec, "")
        return created

    @activity.defn(name=ActivityName.DELETE_VM.value)
    async def delete_vm(self, inp: DeleteVmInput) -> None:
        """Delete the VM (its NIC and OS disk go with it; data disks per their deleteOption), force-deleted when
        it keeps no disk; a missing VM is success."""
        await delete.delete_vm(self._clients, inp, self._force_delete_vms)

    @activity.defn(name=ActivityName.DELETE_NIC.value)
    async def delete_nic(self, inp: DeleteResourceInput) -> None:
        await delete.delete_nic(self._clients, inp)

    @activity.defn(name=ActivityName.DELETE_PUBLIC_IP.value)
    async def delete_public_ip(self, inp: DeleteResourceInput) -> None:
        """The machine's public IP, once no NIC holds it (Azure refuses before: PublicIPAddressCannotBeDeleted)."""
        await delete.delete_public_ip(self._clients, inp)

    @activity.defn(name=ActivityName.DELETE_DISK.value)
    async def delete_disk(self, inp: DeleteResourceInput) -> None:
        await delete.delete_disk(self._clients, inp)

    @activity.defn(name=ActivityName.POWER_OFF.value)
    async def power_off(self, machine: MachineRef) -> None:
        await power.power_off(self._clients, machine)

    @activity.defn(name=ActivityName.START_VM.value)
    async def start_vm(self, machine: MachineRef) -> Inventory:
        """Start a stopped or deallocated VM (never rebuilt); CapacityExhausted when Azure has no room."""
        return await power.start_vm(self._clients, machine)

    @activity.defn(name=ActivityName.DEALLOCATE_VM.value)
    async def deallocate_vm(self, machine: MachineRef) -> Inventory:
        """Release the VM's compute, keeping the VM, its disks and NIC (a preserved machine)."""
        return await power.deallocate_vm(self._clients, machine)

    @activity.defn(name=ActivityName.RESTART_VM.value)
    async def restart_vm(self, machine: MachineRef) -> Inventory:
        """A repair step: Azure's restart (the same host, the guest rebooted)."""
        return await repair.restart_vm(self._clients, machine)

    @activity.defn(name=ActivityName.REDEPLOY_VM.value)
    async def redeploy_vm(self, machine: MachineRef) -> Inventory:
        """A repair step: Azure's redeploy (a new host; the VM, its disks and NIC unchanged)."""
        return await repair.redeploy_vm(self._clients, machine)

    @activity.defn(name=ActivityName.READ_RESOURCE_HEALTH.value)
    async def read_resource_health(self, machine: MachineRef) -> ResourceHealthReading:
        return await resource_health.read_resource_health(self._clients, machine)

    @activity.defn(name=ActivityName.READ_PRICES.value)
    async def read_prices(self, inp: PricesInput) -> OfferingPrices:
        """Spec `capacity_order`: the sizes' hourly prices (Retail Prices API, 12 h cache), Spot eviction buckets."""
        return await prices.read_prices(self._clients, inp)

    @activity.defn(name=ActivityName.READ_RESERVED_ROOM.value)
    async def read_reserved_room(self, inp: ReservedRoomInput) -> ReservedRoom:
        """Spec `capacity_reservation_group_id`: the room its reservations have left (30 s cache)."""
        return await reserved_room.read_reserved_room(self._clients, inp)

    @activity.defn(name=ActivityName.GUEST_ADDRESS.value)
    async def guest_address(self, spec: MachineSpec) -> str:
        return await probe.guest_address(self._clients, spec)

    @activity.defn(name=ActivityName.PROBE_GUEST.value)
    async def probe_guest(self, inp: ProbeInput) -> ProbeResult:
        return await probe.probe_guest(self._clients, inp)

    @activity.defn(name=ActivityName.SET_DATA_DISK_DELETE_OPTION.value)
    async def set_data_disk_delete_option(self, inp: DataDiskDeleteOptionInput) -> Inventory:
        """What deleting the VM does to its data disks: Detach (a recovery) or Delete (`delete`)."""
        return await data_disks.set_data_disk_delete_option(self._clients, inp)

    @activity.defn(name=ActivityName.LIST_MACHINES.value)
    async def list_machines(self, inp: ListMachinesInput) -> list[MachineSummary]:
        return await fleet.list_machines(self._clients, inp)

    @activity.defn(name=ActivityName.UPDATE_TAGS.value)
    async def update_tags(self, inp: UpdateTagsInput) -> TagsUpdated:
        """The spec's tags on the machine's own VM, NICs and disks (another owner's are left alone)."""
        return await tags.update_tags(self._clients, inp)

    @activity.defn(name=ActivityName.ACCEPT_MARKETPLACE_TERMS.value)
    async def accept_marketplace_terms(self, spec: MachineSpec) -> str:
        """Before a VM with a plan is created, when its spec says accept_terms: the plan's terms accepted."""
        return await marketplace_terms.accept_terms(self._clients, spec)

    @activity.defn(name=ActivityName.UPDATE_VM_IN_PLACE.value)
    async def update_vm_in_place(self, spec: MachineSpec) -> Inventory:
        """update_spec's identity and boot diagnostics: one VM PATCH, the VM kept."""
        return await vm_in_place.update_vm_in_place(self._clients, spec)

    @activity.defn(name=ActivityName.SURVEY_FLEET.value)
    async def survey_fleet(self) -> FleetSurvey:
        """The fleet sweep's input: one paged graph query, one paged listing of open machine workflows."""
        return await survey.survey_fleet(self._clients, activity.client())

    @activity.defn(name=ActivityName.CHECK_ORPHAN.value)
    async def check_orphan(self, inp: OrphanCheckInput) -> OrphanVerdict:
        """Right before the sweep deletes: describe the machine's workflow, GET each resource, apply the grace."""
        return await heartbeating(orphans.check_orphan(self._clients, activity.client(), inp))

    @activity.defn(name=ActivityName.LIST_OUTDATED.value)
    async def list_outdated(self, query: OutdatedQuery) -> Outdated:
        """Runs a deploy left on an older version: one visibility listing, for the sweep's `upgrade` signals."""
        return await outdated.list_outdated(activity.client(), query)

    @activity.defn(name=ActivityName.MARK_ORPHAN.value)
    async def mark_orphan(self, inp: OrphanMarkInput) -> list[str]:
        """Mark an orphan seen (tag azmc-orphan-seen) on what is its own, or remove the mark; owner-checked."""
        return await marks.mark_orphan(self._clients, inp)

    @activity.defn(name=ActivityName.DESCRIBE_POOL_MACHINES.value)
    async def describe_pool_machines(self, inp: MachinesOfPool) -> list[MachineTruth]:
        """A pool's machines as their own workflows say: describe each, and query the `status` of those that run."""
        return await machines.describe_pool_machines(activity.client(), inp)

    @activity.defn(name=ActivityName.UPDATE_POOL_MACHINES.value)
    async def update_pool_machines(self, inp: InPlaceInput) -> list[InPlaceOutcome]:
        """A template change every machine takes in place: `update_spec` to each machine's workflow."""
        return await in_place.update_pool_machines(activity.client(), inp)

    @activity.defn(name=ActivityName.ADOPT_POOL_MACHINES.value)
    async def adopt_pool_machines(self, inp: AdoptionInput) -> Adoption:
        """The open machines a pool's earlier life started: listed, confirmed by describes, compared with its
        template (update_spec when they differ only in place)."""
        return await adoption.adopt_pool_machines(activity.client(), inp)

    @activity.defn(name=ActivityName.FIND_POOL_LEFTOVERS.value)
    async def find_pool_leftovers(self, inp: PoolLeftoversInput) -> PoolLeftovers:
        """Before a pool says none of its machines is left: its tag in the graph, then ARM GETs and describes."""
        return await heartbeating(leftovers.find_pool_leftovers(self._clients, activity.client(), inp))
