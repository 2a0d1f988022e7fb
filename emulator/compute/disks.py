"""Managed disks: `managedBy`/`diskState` follow VM attachment; attached disks cannot be deleted."""

from __future__ import annotations

import builtins
import copy
import uuid
from typing import Any

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import (
    base_body,
    deletable,
    ensure_idle,
    get_existing,
    listed,
    prepare_put,
    require_location,
    start_operation,
)
from emulator.arm.outcome import Outcome
from emulator.arm.store import Resource
from emulator.state import EmulatorState

DISK_TYPE = "Microsoft.Compute/disks"
_TIER_SIZES = [(4, 1), (8, 2), (16, 3), (32, 4), (64, 6), (128, 10), (256, 15), (512, 20), (1024, 30),
               (2048, 40), (4096, 50), (8192, 60), (16384, 70), (32767, 80)]
_READ_ONLY = ("diskState", "LastOwnershipUpdateTime", "provisioningState", "uniqueId", "timeCreated")
_TIERS = {"Premium_LRS": "P", "Premium_ZRS": "P", "StandardSSD_LRS": "E", "StandardSSD_ZRS": "E"}


MAX_DISK_GB = 32767


def check_size(size_gb: int | None, target: str = "diskSizeGB") -> None:
    """A managed disk holds 1 GB to 32 TiB (None: not given)."""
    if size_gb is not None and not 1 <= size_gb <= MAX_DISK_GB:
        raise errors.out_of_range(target, size_gb, 1, MAX_DISK_GB)


def _sku(name: str) -> dict[str, str]:
    tier = "Premium" if name.startswith("Premium") else "Ultra" if name.startswith("UltraSSD") else "Standard"
    return {"name": name, "tier": tier}


class DisksBackend:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    def put(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        scope, _, existing = prepare_put(self.state, scope, DISK_TYPE, name)
        props = request.get("properties") or {}
        creation = props.get("creationData") or {}
        if existing is None and not creation.get("createOption"):
            raise errors.invalid("Required parameter 'creationData.createOption' is missing (null).",
                                 target="disk.creationData.createOption")
        size = props.get("diskSizeGB")
        check_size(size)
        if existing is None and creation.get("createOption") == "Empty" and not size:
            raise errors.invalid("Required parameter 'diskSizeGB' is missing (null).", target="diskSizeGB")
        if existing is not None:
            disk = existing
            for top in ("tags", "sku"):
                if top in request:
                    disk.body[top] = request[top]
            # A PUT of an existing disk updates what it names; how it was created stays.
            disk.properties.update({k: copy.deepcopy(v) for k, v in props.items()
                                    if k not in _READ_ONLY and k not in ("creationData", "diskSizeGB")})
            if size:
                self._size(disk, int(size))
            disk.properties["provisioningState"] = "Updating"
            self.state.store.changed(disk)
        else:
            disk = self.create(scope, name, require_location(request),
                               sku=(request.get("sku") or {}).get("name", "Standard_LRS"),
                               size_gb=int(size or 30), create_option=creation["createOption"],
                               request=request, state="Updating")
            if creation["createOption"] == "FromImage":
                # What Azure reads from the image's metadata; the emulator has no image catalogue, so Azure's
                # defaults for a platform image: generation V1 unless the request says, accelerated networking.
                disk.properties.setdefault("hyperVGeneration", "V1")
                disk.properties.setdefault("supportedCapabilities", {"acceleratedNetwork": True})

        async def work() -> None:
            disk.properties["provisioningState"] = "Succeeded"
            self.state.store.changed(disk)

        def failed(_: errors.ArmError) -> None:
            disk.properties["provisioningState"] = "Failed"
            self.state.store.changed(disk)

        op = start_operation(self.state, disk, "disks.put", work, failed)
        return Outcome(202 if existing is None else 200, disk.body, op)

    def patch(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        """Azure's disks update: the given fields are merged into the disk, `tags` replaced as a whole.

        The change lands when the operation succeeds, so a faulted update leaves the disk as it was. The 202
        answers with the disk as it is meanwhile (Microsoft's `Disk_Update_*` examples): `Updating`, and a
        performance tier on its way shown in `propertyUpdatesInProgress.targetTier` beside the current one."""
        disk = get_existing(self.state, scope, DISK_TYPE, name)
        ensure_idle(self.state, disk.id)
        props = dict(request.get("properties") or {})
        size = props.pop("diskSizeGB", None)
        check_size(size)
        for read_only in _READ_ONLY:
            props.pop(read_only, None)
        before = disk.properties.get("provisioningState", "Succeeded")
        disk.properties["provisioningState"] = "Updating"
        if props.get("tier") and props["tier"] != disk.properties.get("tier"):
            disk.properties["propertyUpdatesInProgress"] = {"targetTier": props["tier"]}
        self.state.store.changed(disk)

        async def work() -> None:
            if request.get("tags") is not None:
                disk.body["tags"] = dict(request["tags"])
            if (request.get("sku") or {}).get("name"):
                disk.body["sku"] = _sku(request["sku"]["name"])
            disk.properties.pop("propertyUpdatesInProgress", None)
            disk.properties.update(props)
            if size:
                self._size(disk, int(size))
            disk.properties["provisioningState"] = "Succeeded"
            self.state.store.changed(disk)

        def failed(_: errors.ArmError) -> None:
            disk.properties.pop("propertyUpdatesInProgress", None)
            disk.properties["provisioningState"] = before
            self.state.store.changed(disk)

        answer = copy.deepcopy(disk.body)
        return Outcome(202, answer, start_operation(self.state, disk, "disks.patch", work, failed))

    def get(self, scope: Scope, name: str) -> dict[str, Any]:
        return get_existing(self.state, scope, DISK_TYPE, name).body

    def list(self, subscription: str, resource_group: str | None) -> list[dict[str, Any]]:
        return [d.body for d in listed(self.state, DISK_TYPE, subscription, resource_group)]

    def delete(self, scope: Scope, name: str) -> Outcome:
        disk = deletable(self.state, scope, DISK_TYPE, name)
        if disk is None:
            return Outcome(204)
        if disk.body.get("managedBy"):
            raise errors.ArmError(
                409,
                "OperationNotAllowed",
                f"Disk {disk.name} is attached to VM {disk.body['managedBy']}.",
            )

        async def work() -> None:
            self.state.store.delete(disk.id)

        return Outcome(202, None, start_operation(self.state, disk, "disks.delete", work, None))

    # ---- used by the VM backend

    def create(self, scope: Scope, name: str, location: str, *, sku: str, size_gb: int, create_option: str,
               request: dict[str, Any] | None = None, state: str = "Succeeded",
               os_type: str | None = None, zones: builtins.list[str] | None = None) -> Resource:
        rid = scope.resource_id(DISK_TYPE, name)
        body = base_body(rid, name, DISK_TYPE, request or {}, location)
        body["sku"] = _sku(sku)
        if zones:
            body["zones"] = zones
        requested = copy.deepcopy((request or {}).get("properties") or {})
        for read_only in _READ_ONLY:
            requested.pop(read_only, None)
        creation = dict(requested.get("creationData") or {})
        creation["createOption"] = create_option
        body["properties"] = {
            **requested,
            "creationData": creation,
            "provisioningState": state,
            "diskState": "Unattached",
            "timeCreated": self.state.clock.utc_iso(),
            "uniqueId": str(uuid.uuid4()),
            "encryption": requested.get("encryption") or {"type": "EncryptionAtRestWithPlatformKey"},
            "networkAccessPolicy": requested.get("networkAccessPolicy", "AllowAll"),
            "publicNetworkAccess": requested.get("publicNetworkAccess", "Enabled"),
            "diskIOPSReadWrite": requested.get("diskIOPSReadWrite", 500),
            "diskMBpsReadWrite": requested.get("diskMBpsReadWrite", 60),
        }
        if os_type:
            body["properties"]["osType"] = os_type
        disk = Resource(DISK_TYPE, scope.subscription, scope.resource_group, body)
        self._size(disk, size_gb)
        return self.state.store.put(disk)

    def attach(self, disk: Resource, vm_id: str) -> None:
        disk.body["managedBy"] = vm_id
        disk.properties["diskState"] = "Attached"
        disk.properties["LastOwnershipUpdateTime"] = self.state.clock.utc_iso()
        self.state.store.changed(disk)

    def detach(self, disk: Resource) -> None:
        disk.body.pop("managedBy", None)
        disk.properties["diskState"] = "Unattached"
        disk.properties["LastOwnershipUpdateTime"] = self.state.clock.utc_iso()
        self.state.store.changed(disk)

    def _size(self, disk: Resource, size_gb: int) -> None:
        disk.properties["diskSizeGB"] = size_gb
        disk.properties["diskSizeBytes"] = size_gb * 1024**3
        letter = _TIERS.get(disk.body["sku"]["name"])
        if letter:
            tier = next((t for gb, t in _TIER_SIZES if size_gb <= gb), _TIER_SIZES[-1][1])
            disk.properties["tier"] = f"{letter}{tier}"

