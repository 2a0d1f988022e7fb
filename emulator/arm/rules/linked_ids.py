"""ARM's check of the resource ids a request links to: an id that does not start with `/subscriptions/<id>` or
`/providers/<namespace>/` is refused before the provider sees it, 400 LinkedInvalidPropertyId, "Property id '<id>'
at path '<path>' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}'
or '/providers/{resourceProviderNamespace}/'." (as users meet it: Azure/azure-cli#30560, Azure/avdaccelerator#84).
A well-formed id naming nothing is the provider's to refuse (InvalidResourceReference, a missing resource).
"""

from __future__ import annotations

from typing import Any

from emulator.arm.errors import ArmError

# Where each resource type's request links to other resources ("[]": every element of a list).
_LINKS: dict[str, tuple[str, ...]] = {
    "networkInterfaces": (
        "properties.networkSecurityGroup.id",
        "properties.ipConfigurations[].properties.subnet.id",
        "properties.ipConfigurations[].properties.publicIPAddress.id",
        "properties.ipConfigurations[].properties.applicationSecurityGroups[].id",
        "properties.ipConfigurations[].properties.loadBalancerBackendAddressPools[].id",
    ),
    "virtualMachines": (
        "properties.networkProfile.networkInterfaces[].id",
        "properties.availabilitySet.id",
        "properties.proximityPlacementGroup.id",
        "properties.capacityReservation.capacityReservationGroup.id",
        "properties.storageProfile.imageReference.id",
        "properties.storageProfile.osDisk.managedDisk.diskEncryptionSet.id",
        "properties.storageProfile.dataDisks[].managedDisk.id",
        "properties.storageProfile.dataDisks[].managedDisk.diskEncryptionSet.id",
    ),
}


def _found(value: Any, steps: list[str], path: str) -> list[tuple[str, Any]]:
    """(concrete path, value) of every place `steps` reach in `value`."""
    if not steps:
        return [(path, value)]
    step, rest = steps[0], steps[1:]
    listed = step.endswith("[]")
    key = step.removesuffix("[]")
    inner = value.get(key) if isinstance(value, dict) else None
    where = f"{path}.{key}" if path else key
    if inner is None:
        return []
    if listed:
        items = inner if isinstance(inner, list) else []
        return [hit for index, item in enumerate(items) for hit in _found(item, rest, f"{where}[{index}]")]
    return _found(inner, rest, where)


def check_linked_ids(resource_type: str, body: dict[str, Any]) -> None:
    for link in _LINKS.get(resource_type, ()):
        for path, value in _found(body, link.split("."), ""):
            if isinstance(value, str) and not value.lower().startswith(("/subscriptions/", "/providers/")):
                raise ArmError(400, "LinkedInvalidPropertyId",
                               f"Property id '{value}' at path '{path}' is invalid. Expect fully qualified resource "
                               "Id that start with '/subscriptions/{subscriptionId}' or "
                               "'/providers/{resourceProviderNamespace}/'.")
