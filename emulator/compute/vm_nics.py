"""A VM's networkProfile: which NICs it may reference, and attaching/detaching them."""

from __future__ import annotations

from typing import Any

from emulator.arm import arm_ids, errors
from emulator.arm.store import Resource
from emulator.compute.vm_accelerated_networking import check_accelerated_networking
from emulator.network.network_interfaces import NetworkInterfacesBackend
from emulator.state import EmulatorState


def validate_nic_refs(state: EmulatorState, nics: NetworkInterfacesBackend, vm_id: str,
                      props: dict[str, Any]) -> list[dict[str, Any]]:
    """The NIC references of a VM body; raises Azure's error when one cannot be used by this VM."""
    network = props.get("networkProfile") or {}
    refs: list[dict[str, Any]] = network.get("networkInterfaces") or []
    if network.get("networkInterfaceConfigurations"):
        raise errors.invalid(
            "networkProfile.networkInterfaceConfigurations is not supported by the azmc emulator; "
            "create the NIC first and reference it in networkProfile.networkInterfaces.",
            target="networkInterfaceConfigurations",
        )
    if not refs:
        raise errors.invalid("The virtual machine must have at least one network interface.",
                             target="networkProfile.networkInterfaces")
    for ref in refs:
        nic = state.store.get(ref.get("id") or "")
        if nic is None:
            raise errors.invalid(
                f"Resource {ref.get('id')} referenced by resource {vm_id} was not found. Please make sure "
                "that the referenced resource exists, and that both resources are in the same region.",
                code="InvalidResourceReference",
            )
        nics.check_not_reserved(nic, for_vm=vm_id)
        owner = (nic.properties.get("virtualMachine") or {}).get("id")
        if owner and arm_ids.key(owner) != arm_ids.key(vm_id):
            raise errors.ArmError(
                400, "NicInUse",
                f"Network Interface {nic.id} is used by existing resource {owner}. A network interface "
                "can be attached to one virtual machine only.",
            )
    check_accelerated_networking(vm_id, props, [n for n in (state.store.get(r["id"]) for r in refs) if n])
    return refs


def attach_nics(state: EmulatorState, nics: NetworkInterfacesBackend, vm_id: str,
                refs: list[dict[str, Any]]) -> None:
    """Attach validated references; the first is primary unless one says otherwise."""
    for index, ref in enumerate(refs):
        nic_props = ref.setdefault("properties", {})
        nic_props.setdefault("deleteOption", "Detach")
        nic = state.store.get(ref["id"])
        assert nic is not None  # validated just before
        ref["id"] = nic.id
        nics.attach(nic, vm_id, primary=bool(nic_props.get("primary", index == 0)))


def attached_nics(state: EmulatorState, vm: Resource) -> list[Resource]:
    refs = vm.properties.get("networkProfile", {}).get("networkInterfaces", [])
    found = [state.store.get(ref["id"]) for ref in refs]
    return [nic for nic in found if nic is not None]


def nic_delete_option(vm: Resource, nic: Resource) -> str:
    refs = {arm_ids.key(ref["id"]): ref for ref in vm.properties["networkProfile"]["networkInterfaces"]}
    return str((refs.get(arm_ids.key(nic.id), {}).get("properties") or {}).get("deleteOption", "Detach"))
