"""VM extensions (`Microsoft.Compute/virtualMachines/extensions`): kept with their VM (they go when it goes), shown
in its GET (`resources`) and instance view (`extensions`, the agent's `extensionHandlers`), installed by a
long-running operation that holds the VM as any write to it does. Protected settings are write-only, as in Azure:
kept, never answered. The emulated guest runs no extension code: an installed extension reports `Provisioning
succeeded`, as a healthy one does."""

from __future__ import annotations

import copy
from typing import Any

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import ensure_idle, get_existing, start_operation
from emulator.arm.outcome import Outcome
from emulator.arm.store import Resource
from emulator.compute.vm_model import VM_TYPE
from emulator.state import EmulatorState

EXTENSION_TYPE = f"{VM_TYPE}/extensions"
_WRITE_ONLY = ("protectedSettings",)
_READ_ONLY = ("provisioningState", "instanceView")


def extensions_of(vm: Resource) -> list[dict[str, Any]]:
    """The VM's extensions as GET answers them, oldest first."""
    return [_answer(body) for body in vm.extra.get("extensions", {}).values()]


def instance_views(vm: Resource) -> list[dict[str, Any]]:
    """Each extension's instance view (the VM instance view's `extensions`)."""
    return [_instance_view(body) for body in vm.extra.get("extensions", {}).values()]


def handlers(vm: Resource) -> list[dict[str, Any]]:
    """The VM agent's extension handlers: one per extension type the VM has."""
    found: dict[str, dict[str, Any]] = {}
    for body in vm.extra.get("extensions", {}).values():
        view = _instance_view(body)
        found.setdefault(view["type"].lower(), {
            "type": view["type"], "typeHandlerVersion": view["typeHandlerVersion"],
            "status": {"code": "ProvisioningState/succeeded", "level": "Info", "displayStatus": "Ready"}})
    return list(found.values())


class VmExtensionsBackend:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    def put(self, scope: Scope, vm_name: str, name: str, request: dict[str, Any]) -> Outcome:
        vm = self._vm(scope, vm_name)
        existing = vm.extra.setdefault("extensions", {}).get(name.lower())
        props = {k: copy.deepcopy(v) for k, v in (request.get("properties") or {}).items() if k not in _READ_ONLY}
        body: dict[str, Any] = {"name": name, "id": f"{vm.id}/extensions/{name}", "type": EXTENSION_TYPE,
                                "location": request.get("location") or vm.body.get("location"),
                                "properties": {**props, "provisioningState": "Updating" if existing else "Creating"}}
        if request.get("tags") is not None:
            body["tags"] = dict(request["tags"])
        return self._write(vm, name, body, 200 if existing else 201, "virtualMachineExtensions.put")

    def update(self, scope: Scope, vm_name: str, name: str, request: dict[str, Any]) -> Outcome:
        """`virtual_machine_extensions.begin_update`: the given properties and tags merged in."""
        vm = self._vm(scope, vm_name)
        body = copy.deepcopy(self._existing(vm, name))
        body["properties"].update({k: copy.deepcopy(v) for k, v in (request.get("properties") or {}).items()
                                   if k not in _READ_ONLY})
        body["properties"]["provisioningState"] = "Updating"
        if request.get("tags") is not None:
            body["tags"] = dict(request["tags"])
        return self._write(vm, name, body, 200, "virtualMachineExtensions.patch")

    def get(self, scope: Scope, vm_name: str, name: str, expand: str | None) -> dict[str, Any]:
        body = self._existing(get_existing(self.state, scope, VM_TYPE, vm_name), name)
        return _answer(body, with_instance_view=(expand or "").lower() == "instanceview")

    def list(self, scope: Scope, vm_name: str, expand: str | None) -> list[dict[str, Any]]:
        vm = get_existing(self.state, scope, VM_TYPE, vm_name)
        view = (expand or "").lower() == "instanceview"
        return [_answer(body, with_instance_view=view) for body in vm.extra.get("extensions", {}).values()]

    def delete(self, scope: Scope, vm_name: str, name: str) -> Outcome:
        vm = self._vm(scope, vm_name)
        if name.lower() not in vm.extra.get("extensions", {}):
            return Outcome(204)

        async def work() -> None:
            vm.extra["extensions"].pop(name.lower(), None)
            self.state.store.changed(vm)

        return Outcome(202, None, start_operation(self.state, vm, "virtualMachineExtensions.delete", work))

    def _vm(self, scope: Scope, vm_name: str) -> Resource:
        vm = get_existing(self.state, scope, VM_TYPE, vm_name)
        ensure_idle(self.state, vm.id)
        return vm

    def _existing(self, vm: Resource, name: str) -> dict[str, Any]:
        body = vm.extra.get("extensions", {}).get(name.lower())
        if body is None:
            raise errors.resource_not_found(EXTENSION_TYPE, name, vm.resource_group)
        return body

    def _write(self, vm: Resource, name: str, body: dict[str, Any], status: int, op_name: str) -> Outcome:
        vm.extra.setdefault("extensions", {})[name.lower()] = body
        self.state.store.changed(vm)

        async def work() -> None:
            body["properties"]["provisioningState"] = "Succeeded"
            self.state.store.changed(vm)

        def failed(_: errors.ArmError) -> None:
            body["properties"]["provisioningState"] = "Failed"
            self.state.store.changed(vm)

        return Outcome(status, _answer(body), start_operation(self.state, vm, op_name, work, failed))


def _answer(body: dict[str, Any], with_instance_view: bool = False) -> dict[str, Any]:
    answer = copy.deepcopy(body)
    for secret in _WRITE_ONLY:
        answer["properties"].pop(secret, None)
    if with_instance_view:
        answer["properties"]["instanceView"] = _instance_view(body)
    return answer


def _instance_view(body: dict[str, Any]) -> dict[str, Any]:
    props = body["properties"]
    kind = ".".join(part for part in (props.get("publisher"), props.get("type")) if part)
    state = str(props.get("provisioningState", "Succeeded"))
    return {"name": body["name"], "type": kind, "typeHandlerVersion": props.get("typeHandlerVersion", ""),
            "statuses": [{"code": f"ProvisioningState/{state.lower()}", "level": "Info",
                          "displayStatus": f"Provisioning {state.lower()}",
                          # What the extension's handler says: its own words in Azure; here the common one.
                          "message": "Enable succeeded" if state == "Succeeded" else state}]}
