"""A VM PUT's disk-encryption and placement fields, refused as Azure refuses them (docs/vm-features.md):

- encryption at host while the subscription feature is not registered: 400 InvalidParameter, target
  securityProfile.encryptionAtHost (Azure's message, seen by users of AKS, az and Bicep);
- a disk encryption set, capacity reservation group, proximity placement group or availability set that does not
  exist (emulator/compute/compute_references.py): 400 (a disk encryption set: BadRequest, "DiskEncryptionSet '<id>' was
  not found.", as az reports it; the others InvalidResourceReference, the code a missing NIC gets);
- a zonal VM in an availability set, and a Spot VM in one: 400 InvalidParameter;
- an ephemeral OS disk whose placement the size lacks, or which does not fit it: 409 NotSupported with Azure's
  messages (emulator/compute/allocation/vm_sizes.py local_disk_gb holds the sizes).

And automatic zone placement (`placement.zonePlacementPolicy: Any`): Azure puts a VM created without `zones` in a
zone of its choice among those `includeZones` allows and `excludeZones` does not; which one it picks is Azure's
to know, the emulator takes the lowest. Likewise flexible sizing (`hardwareProfile.flexProfile.enabled`, no
`vmSize`): Azure picks a size meeting the constraints by rules it does not publish; the emulator takes
`FLEX_SIZE` (its catalogue's sizes are all x64).
"""

from __future__ import annotations

from typing import Any

from emulator.arm import errors
from emulator.compute.allocation.size_capabilities import REGION_ZONES
from emulator.compute.allocation.vm_sizes import EPHEMERAL_PLACEMENTS, local_disk_gb
from emulator.compute.compute_references import ENCRYPTION_AT_HOST_FEATURE
from emulator.compute.vm_catalog import VmCatalog

_DEFAULT_EPHEMERAL_PLACEMENT = "CacheDisk"  # Azure's default when diffDiskSettings names none


def ephemeral_placement(props: dict[str, Any]) -> str | None:
    """The placement of the VM's ephemeral OS disk, None when its OS disk is a managed disk."""
    os_disk = (props.get("storageProfile") or {}).get("osDisk") or {}
    settings = os_disk.get("diffDiskSettings") or {}
    if str(settings.get("option", "")).lower() != "local":
        return None
    return str(settings.get("placement") or _DEFAULT_EPHEMERAL_PLACEMENT)


def _reference_ids(props: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, id) of every referenced Compute resource the request names."""
    found = []
    for where, section in (("capacityReservation.capacityReservationGroup", "capacityReservation"),
                           ("proximityPlacementGroup", "proximityPlacementGroup"),
                           ("availabilitySet", "availabilitySet")):
        ref = props.get(section) or {}
        if section == "capacityReservation":
            ref = ref.get("capacityReservationGroup") or {}
        if ref.get("id"):
            found.append((where, str(ref["id"])))
    return found


def _disk_encryption_sets(props: dict[str, Any]) -> list[str]:
    storage = props.get("storageProfile") or {}
    entries = [storage.get("osDisk") or {}, *(storage.get("dataDisks") or [])]
    return [str(des["id"]) for entry in entries
            if (des := ((entry.get("managedDisk") or {}).get("diskEncryptionSet") or {})).get("id")]


def _check_ephemeral(props: dict[str, Any], vm_size: str) -> None:
    placement = ephemeral_placement(props)
    if placement is None:
        return
    if placement.lower() not in [p.lower() for p in EPHEMERAL_PLACEMENTS]:
        raise errors.invalid(f"The value '{placement}' of parameter 'diffDiskSettings.placement' is invalid.",
                             target="diffDiskSettings.placement")
    local_gb = local_disk_gb(vm_size, placement)
    if local_gb is None:
        return
    if local_gb == 0:
        raise errors.ArmError(409, "NotSupported", f"The Diff Disk Placement of type '{placement}' is not supported "
                              f"for VM size {vm_size}. Please request with different DiffDiskPlacement or use a "
                              "different VM Sku which supports the current DiffDiskPlacement in the request.")
    size_gb = int(((props.get("storageProfile") or {}).get("osDisk") or {}).get("diskSizeGB") or 30)
    if size_gb > local_gb:
        raise errors.ArmError(409, "NotSupported", f"OS disk of Ephemeral VM with size greater than {local_gb} GB "
                              f"is not allowed for VM size {vm_size} when the DiffDiskPlacement is {placement}. "
                              "Please refer to https://aka.ms/Ephemeral for more details.")


FLEX_SIZE = "Standard_D2s_v5"


def with_flex_size(request: dict[str, Any]) -> dict[str, Any]:
    """The request with the size flexible sizing picks, when it enables that and names no size."""
    hardware = (request.get("properties") or {}).get("hardwareProfile") or {}
    if hardware.get("vmSize") or not (hardware.get("flexProfile") or {}).get("enabled"):
        return request
    properties = {**request["properties"], "hardwareProfile": {**hardware, "vmSize": FLEX_SIZE}}
    return {**request, "properties": properties}


def placed_zones(request: dict[str, Any]) -> list[str] | None:
    """The zones of a VM being created: those the request names, else the one automatic placement picks (None:
    a regional VM). A policy allowing no zone: 400 InvalidParameter."""
    if request.get("zones"):
        return list(request["zones"])
    placement = request.get("placement") or {}
    if str(placement.get("zonePlacementPolicy") or "").lower() != "any":
        return None
    excluded = {str(zone) for zone in placement.get("excludeZones") or []}
    allowed = [str(zone) for zone in placement.get("includeZones") or REGION_ZONES if str(zone) not in excluded]
    if not allowed:
        raise errors.invalid("The placement policy allows no availability zone: 'includeZones' and "
                             "'excludeZones' leave none.", target="placement")
    return [min(allowed)]


def check_disks_and_placement(catalog: VmCatalog, request: dict[str, Any]) -> None:
    """Raise ArmError for what Azure refuses in a VM PUT's encryption, ephemeral OS disk and placement fields."""
    props = request.get("properties") or {}
    if (props.get("securityProfile") or {}).get("encryptionAtHost") and not catalog.registered(
            ENCRYPTION_AT_HOST_FEATURE):
        raise errors.invalid("The property 'securityProfile.encryptionAtHost' is not valid because the "
                             f"'{ENCRYPTION_AT_HOST_FEATURE}' feature is not enabled for this subscription.",
                             target="securityProfile.encryptionAtHost")
    for des_id in _disk_encryption_sets(props):
        if not catalog.reference_exists(des_id):
            raise errors.invalid(f"DiskEncryptionSet '{des_id}' was not found.", code="BadRequest")
    for where, ref_id in _reference_ids(props):
        if not catalog.reference_exists(ref_id):
            raise errors.invalid(f"Resource {ref_id} referenced by resource {where} was not found. Please make "
                                 "sure that the referenced resource exists, and that both resources are in the "
                                 "same region.", target=where, code="InvalidResourceReference")
    if (props.get("availabilitySet") or {}).get("id"):
        if request.get("zones"):
            raise errors.invalid("The virtual machine cannot be created because both an Availability Zone and an "
                                 "Availability Set were specified. Deploying an Availability Set to an "
                                 "Availability Zone is not supported.", target="availabilitySet")
        if str(props.get("priority") or "").lower() == "spot":
            raise errors.invalid("Azure Spot Virtual Machine is not supported in Availability Set.",
                                 target="availabilitySet")
    _check_ephemeral(props, str((props.get("hardwareProfile") or {}).get("vmSize") or ""))


def refuse_deallocation_of_ephemeral(props: dict[str, Any], name: str) -> None:
    """Azure cannot deallocate a VM with an ephemeral OS disk: the disk lives on the host it would release."""
    if ephemeral_placement(props) is not None:
        raise errors.ArmError(409, "OperationNotAllowed", f"Operation 'deallocate' is not allowed on VM '{name}' "
                              "since the VM uses an ephemeral OS disk.")


def is_ephemeral_entry(entry: dict[str, Any]) -> bool:
    return str((entry.get("diffDiskSettings") or {}).get("option", "")).lower() == "local"


def ephemeral_os_entry(disk_id: str, entry: dict[str, Any], os_type: str) -> dict[str, Any]:
    """The osDisk an ephemeral VM echoes: no managed disk resource exists (a GET of its id is a 404, as
    Azure's is), read-only caching, deleted with the VM."""
    entry["name"] = disk_id.rsplit("/", 1)[-1]
    entry["caching"] = entry.get("caching") or "ReadOnly"
    entry["managedDisk"] = {**(entry.get("managedDisk") or {}), "id": disk_id}
    entry["managedDisk"].setdefault("storageAccountType", "Standard_LRS")
    entry["deleteOption"] = "Delete"
    entry["osType"] = os_type
    return entry


def encrypt_with_set(properties: dict[str, Any], entry: dict[str, Any]) -> None:
    """A disk the VM creates with a disk encryption set is encrypted with the customer's key (Azure's shape)."""
    des = ((entry.get("managedDisk") or {}).get("diskEncryptionSet") or {}).get("id")
    if des:
        properties["encryption"] = {"type": "EncryptionAtRestWithCustomerKey", "diskEncryptionSetId": des}
