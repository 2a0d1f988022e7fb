"""Operations of the emulated resource types that the emulator refuses on purpose: azmc never calls them, and
answering them half-way would let a script pass here that fails on Azure. They answer as ARM answers a request
it serves no provider for (404 `InvalidResourceType`, recorded answers in cloudquery issue 6629), naming the
operation, so a user learns at once that the emulator, not their request, is the limit.
"""

from __future__ import annotations

from aiohttp import web

from emulator.arm import errors
from emulator.arm.routing import COMPUTE, NETWORK, Call, Handler, Route, route

_VM = COMPUTE + "/virtualMachines/{name}"
_VM_ACTIONS = ("assessPatches", "attachDetachDataDisks", "capture", "convertToManagedDisks", "generalize",
               "installPatches", "migrateToVirtualMachineScaleSet", "performMaintenance", "reapply", "reimage",
               "runCommand", "simulateEviction")
# (method, path template, Azure's operation id)
NOT_EMULATED: list[tuple[str, str, str]] = [
    *[("POST", f"{_VM}/{verb}", f"VirtualMachines_{verb[0].upper()}{verb[1:]}") for verb in _VM_ACTIONS],
    ("GET", f"{_VM}/vmSizes", "VirtualMachines_ListAvailableSizes"),
    ("POST", COMPUTE + "/disks/{name}/beginGetAccess", "Disks_GrantAccess"),
    ("POST", COMPUTE + "/disks/{name}/endGetAccess", "Disks_RevokeAccess"),
    ("POST", NETWORK + "/networkInterfaces/{name}/effectiveRouteTable", "NetworkInterfaces_GetEffectiveRouteTable"),
    ("POST", NETWORK + "/networkInterfaces/{name}/effectiveNetworkSecurityGroups",
     "NetworkInterfaces_ListEffectiveNetworkSecurityGroups"),
    ("PATCH", NETWORK + "/virtualNetworks/{name}", "VirtualNetworks_UpdateTags"),
    ("GET", NETWORK + "/virtualNetworks/{name}/CheckIPAddressAvailability",
     "VirtualNetworks_CheckIPAddressAvailability"),
    ("GET", NETWORK + "/virtualNetworks/{name}/usages", "VirtualNetworks_ListUsage"),
]


def _refuse(template: str, azure: str) -> Handler:
    namespace, _, rest = template.partition("/providers/")[2].partition("/")
    resource_type = "/".join(part for part in rest.split("/")[::2])

    async def handler(call: Call) -> web.StreamResponse:
        version = call.query("api-version") or ""
        raise errors.ArmError(404, "InvalidResourceType",
                              f"The resource type '{resource_type}' could not be found in the namespace "
                              f"'{namespace}' for api version '{version}'. ({azure} is not emulated by the azmc "
                              "emulator.)")

    return handler


def routes() -> list[Route]:
    return [route(method, template, "notEmulated", azure, _refuse(template, azure), azure=azure)
            for method, template, azure in NOT_EMULATED]
