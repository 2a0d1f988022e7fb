"""Everything the emulator knows, shared by backends, handlers and the control API."""

from __future__ import annotations

from collections import Counter

from emulator.arm import arm_ids
from emulator.arm.clock import Clock
from emulator.arm.faults import FaultRegistry
from emulator.arm.operations import OperationRegistry
from emulator.arm.store import Resource, ResourceStore
from emulator.compute.allocation.capacity import CapacityRegistry
from emulator.compute.allocation.quota import QuotaRegistry
from emulator.compute.capacity_reservations import CapacityReservations
from emulator.compute.guest_faults import GuestFaults
from emulator.compute.scheduled_events import EVENT_TABLE, ScheduledEvents, publishes
from emulator.compute.scheduled_events import graph_row as event_row
from emulator.compute.vm_catalog import VmCatalog
from emulator.compute.vm_deletions import VmDeletion
from emulator.graph.graph_index import GraphIndex
from emulator.health import resource_health, vm_annotations
from emulator.limits.gate import Limits
from emulator.pricing import spot_eviction
from emulator.pricing.retail_prices import RetailPrices
from emulator.settings import EmulatorConfig, LiveSettings


class EmulatorState:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.settings = LiveSettings(**config.start.as_dict())
        self.clock = Clock(self.settings)
        self.graph = GraphIndex(self.clock, self.settings)
        self.guest_faults = GuestFaults()
        # Resource Health states forced through the control API, the latest last (it wins).
        self.forced_health: list[resource_health.Forced] = []
        # What Azure announces of a VM: scheduled events and Resource Health annotations.
        self.scheduled_events = ScheduledEvents()
        self.annotations = vm_annotations.Annotations()
        # The Retail Prices API's prices and the Spot eviction buckets set through the control API (emulator/pricing/).
        self.retail_prices = RetailPrices()
        self.spot_eviction: dict[tuple[str, str], str] = {}
        self.store = ResourceStore(self._changed)
        # Failed requests (4xx/5xx answers) and operations that ended Failed, by "<resourceType>.<verb>".
        self.failed_counts: Counter[str] = Counter()
        # Of those, the 429s (a request limit refused it): what a bench of the fleet's pace counts.
        self.throttled_counts: Counter[str] = Counter()
        self.operations = OperationRegistry(self.clock, self.failed_counts)
        self.faults = FaultRegistry()
        self.capacity = CapacityRegistry()
        self.quotas = QuotaRegistry()
        self.limits = Limits()
        self.limits.configure(self.settings.limits_overrides)
        self.request_counts: Counter[str] = Counter()
        # Every accepted VM DELETE, oldest first: its forceDeletion as sent and whether it was forced.
        self.vm_deletions: list[VmDeletion] = []
        # Private IPs handed out per subnet (key: lower subnet id).
        self.next_ip: dict[str, int] = {}
        # Identities, images, agreements, Compute references and features VMs refer to (emulator/compute/vm_catalog.py).
        self.catalog = VmCatalog()
        # Capacity reservation groups and reservations (emulator/compute/capacity_reservations.py).
        self.reservations = CapacityReservations()
        self.seed_spot_rows()

    def _changed(self, key: str, resource: Resource | None) -> None:
        self.guest_faults.on_change(key, resource)
        if resource_health.is_vm(resource):
            assert resource is not None
            resource_health.observe(resource, self)
            self.publish_foresight(resource)
        elif resource is None:  # a VM's availability status, events and annotation go with it
            self.graph.record_row(resource_health.HEALTH_TABLE, resource_health.status_key(key), None)
            self._forget_foresight(key)
        self.graph.record(key, resource)

    def set_spot_eviction(self, vm_size: str, location: str, bucket: str) -> None:
        self.spot_eviction[(vm_size.lower(), location.lower())] = bucket
        self.seed_spot_rows()

    def seed_spot_rows(self) -> None:
        """SpotResources' rows: every known size and region's eviction bucket."""
        for key, row in spot_eviction.seed_rows(self.spot_eviction):
            self.graph.record_row(spot_eviction.SPOT_TABLE, key, row)

    def publish_foresight(self, vm: Resource) -> None:
        """The VM's scheduled events (when its policy publishes them) and its annotation, as graph rows."""
        for event in self.scheduled_events.of(vm):
            row = event_row(vm, event)
            self.graph.record_row(EVENT_TABLE, arm_ids.key(row["id"]), row if publishes(vm) else None)
        annotation = self.annotations.of(vm)
        row_key = arm_ids.key(vm_annotations.row_id(vm.id))
        self.graph.record_row(resource_health.HEALTH_TABLE, row_key,
                              vm_annotations.graph_row(vm, annotation) if annotation is not None else None)

    def _forget_foresight(self, vm_key: str) -> None:
        for event_id in self.scheduled_events.ids_of(vm_key):
            self.graph.record_row(EVENT_TABLE, arm_ids.key(f"{vm_key}/providers/Microsoft.Compute/scheduledEvents/"
                                                           f"{event_id}"), None)
        self.scheduled_events.forget(vm_key)
        self.graph.record_row(resource_health.HEALTH_TABLE, arm_ids.key(vm_annotations.row_id(vm_key)), None)
        self.annotations.forget(vm_key)

    async def reset(self) -> None:
        """Back to the start-up state: no resources, faults (guest faults too), capacity or quota entries,
        or counts; start settings."""
        await self.operations.cancel_all()
        self.store.clear()
        self.graph.clear()
        self.faults.clear()
        self.guest_faults.clear()
        self.forced_health.clear()
        self.scheduled_events.clear()
        self.annotations.clear()
        self.retail_prices.clear()
        self.spot_eviction.clear()
        self.seed_spot_rows()
        self.capacity.clear()
        self.quotas.clear()
        self.request_counts.clear()
        self.vm_deletions.clear()
        self.failed_counts.clear()
        self.throttled_counts.clear()
        self.next_ip.clear()
        self.catalog.clear()
        self.reservations.clear()
        self.settings.update(self.config.start.as_dict())
        self.limits.configure(self.settings.limits_overrides)  # every bucket full again
