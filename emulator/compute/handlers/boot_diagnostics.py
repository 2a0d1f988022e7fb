"""HTTP: `retrieveBootDiagnosticsData` (Azure's SAS URIs of a VM's screenshot and serial console log, managed
storage) and those blobs themselves, which the emulator serves on its own address without ARM's auth, as a SAS
URI needs none."""

from __future__ import annotations

import base64

from aiohttp import web

from emulator.arm.common import get_existing
from emulator.arm.errors import ArmError
from emulator.arm.responses import json_response
from emulator.arm.routing import Call, Route, route
from emulator.compute.guest_console import serial_log
from emulator.compute.handlers.virtual_machines import VM
from emulator.compute.virtual_machines import VM_TYPE
from emulator.state import EmulatorState

BLOBS = "/_emulator/blobs/bootdiagnostics"
# A 1x1 white PNG: the console screenshot of a Linux guest with nothing to show.
_SCREENSHOT = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==")


def enabled(properties: dict) -> bool:
    return bool(((properties.get("diagnosticsProfile") or {}).get("bootDiagnostics") or {}).get("enabled"))


async def retrieve(call: Call) -> web.StreamResponse:
    vm = get_existing(call.backends.state, call.scope, VM_TYPE, call.params["name"])
    if not enabled(vm.properties):
        raise ArmError(409, "OperationNotAllowed",
                       f"Boot diagnostics is not enabled for virtual machine '{vm.name}'. Enable boot diagnostics "
                       "(diagnosticsProfile.bootDiagnostics.enabled) to retrieve its boot diagnostics data.")
    base = f"{call.request.scheme}://{call.request.host}{BLOBS}/{vm.properties['vmId']}"
    expiry = call.query("sasUriExpirationTimeInMinutes") or "120"
    sas = f"?sv=2022-11-02&se={expiry}m&sr=b&sp=r&sig=emulator"
    return json_response(200, {"consoleScreenshotBlobUri": f"{base}/{vm.name}.screenshot.png{sas}",
                               "serialConsoleLogBlobUri": f"{base}/{vm.name}.serialconsole.log{sas}"})


def add_blob_routes(app: web.Application, state: EmulatorState) -> None:
    async def blob(request: web.Request) -> web.StreamResponse:
        vm_id, file = request.match_info["vm_id"], request.match_info["file"]
        vm = next((v for v in state.store.of_type(VM_TYPE) if v.properties.get("vmId") == vm_id), None)
        if vm is None or not enabled(vm.properties):
            return web.Response(status=404, text="BlobNotFound")
        if file.endswith(".serialconsole.log"):
            return web.Response(text=serial_log(vm, state), content_type="text/plain")
        return web.Response(body=_SCREENSHOT, content_type="image/png")

    app.router.add_get(BLOBS + "/{vm_id}/{file}", blob)


def routes() -> list[Route]:
    return [route("POST", VM + "/retrieveBootDiagnosticsData", "virtualMachines", "retrieveBootDiagnosticsData",
                  retrieve, azure="VirtualMachines_RetrieveBootDiagnosticsData")]
