"""Network interfaces: provisioned in the PUT's own answer, attachment to a VM (NicInUse) and Azure's 180 s
reservation after a failed VM."""

from __future__ import annotations

import copy
import math
import uuid
from typing import Any

from emulator.arm import arm_ids, errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import (
    base_body,
    deletable,
    ensure_idle,
    etag,
    get_existing,
    listed,
    prepare_put,
    start_operation,
)
from emulator.arm.outcome import Outcome
from emulator.arm.store import Resource
from emulator.network.nic_references import check_nic_references
from emulator.network.private_ips import next_private_ip
from emulator.state import EmulatorState

NIC_TYPE = "Microsoft.Network/networkInterfaces"
RESERVATION_AZURE_S = 180.0
# Computed by Azure: never taken from a PUT body.
_READ_ONLY = {"virtualMachine", "macAddress", "primary", "resourceGuid", "provisioningState", "hostedWorkloads",
              "tapConfigurations", "vnetEncryptionSupported"}


def nic_reserved_error(vm_id: str, remaining_s: int) -> errors.ArmError:
    return errors.ArmError(
        400,
        "NicReservedForAnotherVm",
        f"Nic(s) in request is reserved for another Virtual Machine for {remaining_s} seconds. "
        f"Please provide another nic(s) or retry after {remaining_s} seconds. Reserved VM: {vm_id}",
    )


class NetworkInterfacesBackend:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    def put(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        scope, rid, existing = prepare_put(self.state, scope, NIC_TYPE, name)
        props = request.get("properties") or {}
        check_nic_references(self.state, rid, props)
        body = base_body(rid, name, NIC_TYPE, request)
        body["etag"] = etag()
        old = existing.properties if existing else {}
        ip_configs = props.get("ipConfigurations") or []
        # Azure gives secondary ip configurations the primary's subnet when they name none.
        default_subnet = next(((c.get("properties") or {}).get("subnet") for c in ip_configs
                               if (c.get("properties") or {}).get("subnet")), None)
        echoed = {k: v for k, v in copy.deepcopy(props).items() if k not in _READ_ONLY}
        body["properties"] = {
            **echoed,
            "provisioningState": "Updating",
            "resourceGuid": old.get("resourceGuid") or str(uuid.uuid4()),
            "ipConfigurations": [self._ip_config(rid, ipc, old, index, default_subnet)
                                 for index, ipc in enumerate(ip_configs)],
            "dnsSettings": {"dnsServers": (props.get("dnsSettings") or {}).get("dnsServers", []),
                            "appliedDnsServers": [],
                            "internalDomainNameSuffix": f"{uuid.uuid4().hex[:26]}.ax.internal.cloudapp.net"},
            "enableAcceleratedNetworking": bool(props.get("enableAcceleratedNetworking", False)),
            "enableIPForwarding": bool(props.get("enableIPForwarding", False)),
            "disableTcpStateTracking": bool(props.get("disableTcpStateTracking", False)),
            "hostedWorkloads": [],
            "tapConfigurations": [],
            "nicType": props.get("nicType", "Standard"),
            "auxiliaryMode": props.get("auxiliaryMode", "None"),
            "vnetEncryptionSupported": False,
        }
        for kept in ("virtualMachine", "macAddress", "primary"):
            if kept in old:
                body["properties"][kept] = old[kept]
        nic = Resource(NIC_TYPE, scope.subscription, scope.resource_group, body,
                       extra=dict(existing.extra) if existing else {})
        self.state.store.put(nic)

        def provisioned() -> None:
            nic.properties["provisioningState"] = "Succeeded"
            for ipc in nic.properties["ipConfigurations"]:
                ipc["properties"]["provisioningState"] = "Succeeded"
            self.state.store.changed(nic)

        async def work() -> None:
            provisioned()

        def failed(_: errors.ArmError) -> None:
            nic.properties["provisioningState"] = "Failed"
            self.state.store.changed(nic)

        op = start_operation(self.state, nic, "networkInterfaces.put", work, failed)
        if not op.faulted:
            # Azure's network RP answers a NIC PUT with the NIC provisioned already (Microsoft's
            # NetworkInterfaceCreate example: 200/201, Succeeded); its Azure-AsyncOperation only confirms it.
            # An operation-stage fault (a test's) keeps it Updating until the operation says how it ended.
            provisioned()
        return Outcome(200 if existing else 201, nic.body, op)

    def update_tags(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        """`network_interfaces.update_tags`: synchronous, the tags replaced as a whole."""
        nic = get_existing(self.state, scope, NIC_TYPE, name)
        ensure_idle(self.state, nic.id)
        nic.body["tags"] = dict(request.get("tags") or {})
        nic.body["etag"] = etag()
        self.state.store.changed(nic)
        return Outcome(200, nic.body)

    def get(self, scope: Scope, name: str) -> dict[str, Any]:
        return get_existing(self.state, scope, NIC_TYPE, name).body

    def list(self, subscription: str, resource_group: str | None) -> list[dict[str, Any]]:
        return [n.body for n in listed(self.state, NIC_TYPE, subscription, resource_group)]

    def delete(self, scope: Scope, name: str) -> Outcome:
        nic = deletable(self.state, scope, NIC_TYPE, name)
        if nic is None:
            return Outcome(204)
        self.check_not_reserved(nic, for_vm=None)
        vm_ref = (nic.properties.get("virtualMachine") or {}).get("id")
        if vm_ref:
            raise errors.ArmError(
                400,
                "NicInUse",
                f"Network Interface {nic.id} is used by existing resource {vm_ref}. In order to delete the "
                "network interface, it must be dissociated from the resource. To learn more, see "
                "aka.ms/deletenic.",
            )

        async def work() -> None:
            self.state.store.delete(nic.id)

        return Outcome(202, None, start_operation(self.state, nic, "networkInterfaces.delete", work, None))

    # ---- rules the VM backend applies

    def reservation(self, nic: Resource) -> tuple[str, float] | None:
        """(reserved VM id, remaining wall seconds) while the NIC is reserved."""
        until = nic.extra.get("reserved_until")
        if until is None:
            return None
        remaining = until - self.state.clock.now()
        if remaining <= 0:
            nic.extra.pop("reserved_until", None)
            nic.extra.pop("reserved_for", None)
            return None
        return nic.extra["reserved_for"], remaining

    def check_not_reserved(self, nic: Resource, for_vm: str | None) -> None:
        """Raises NicReservedForAnotherVm unless the reservation is for `for_vm` itself."""
        held = self.reservation(nic)
        if held is None:
            return
        vm_id, remaining = held
        if for_vm is not None and arm_ids.key(vm_id) == arm_ids.key(for_vm):
            return
        raise nic_reserved_error(vm_id, max(1, math.ceil(remaining)))

    def reserve(self, nic: Resource, vm_id: str) -> None:
        wall = self.state.clock.scaled(RESERVATION_AZURE_S)
        if wall <= 0:
            return
        nic.extra["reserved_until"] = self.state.clock.now() + wall
        nic.extra["reserved_for"] = vm_id

    def release(self, nic: Resource, vm_id: str) -> None:
        """The reserving VM now runs on this NIC: the reservation has served its purpose."""
        if arm_ids.key(nic.extra.get("reserved_for", "")) == arm_ids.key(vm_id):
            nic.extra.pop("reserved_until", None)
            nic.extra.pop("reserved_for", None)

    def attach(self, nic: Resource, vm_id: str, primary: bool) -> None:
        nic.properties["virtualMachine"] = {"id": vm_id}
        nic.properties["primary"] = primary
        nic.properties.setdefault("macAddress", _mac(nic.id))
        self.state.store.changed(nic)

    def detach(self, nic: Resource) -> None:
        nic.properties.pop("virtualMachine", None)
        self.state.store.changed(nic)

    # ---- helpers

    def _ip_config(self, nic_id: str, request: dict[str, Any], old: dict[str, Any], index: int,
                   default_subnet: dict[str, Any] | None) -> dict[str, Any]:
        name = request.get("name") or f"ipconfig{index + 1}"
        props = request.get("properties") or {}
        subnet_ref = (props.get("subnet") or default_subnet or {}).get("id")
        if subnet_ref and self.state.store.get(subnet_ref) is None:
            raise errors.invalid(
                f"Resource {subnet_ref} referenced by resource {nic_id} was not found. Please make sure that "
                "the referenced resource exists, and that both resources are in the same region.",
                code="InvalidResourceReference",
            )
        previous = {c["name"].lower(): c for c in old.get("ipConfigurations", [])}.get(name.lower())
        address = props.get("privateIPAddress") or (
            previous["properties"].get("privateIPAddress") if previous else next_private_ip(self.state, subnet_ref)
        )
        out_props: dict[str, Any] = {
            **copy.deepcopy(props),
            "provisioningState": "Updating",
            "privateIPAddress": address,
            "privateIPAllocationMethod": props.get("privateIPAllocationMethod", "Dynamic"),
            "privateIPAddressVersion": props.get("privateIPAddressVersion", "IPv4"),
            "primary": bool(props.get("primary", index == 0)),
        }
        if subnet_ref:
            out_props["subnet"] = {"id": subnet_ref}
        return {
            "id": f"{nic_id}/ipConfigurations/{name}",
            "name": name,
            "etag": etag(),
            "type": f"{NIC_TYPE}/ipConfigurations",
            "properties": out_props,
        }



def _mac(resource_id: str) -> str:
    digest = uuid.uuid5(uuid.NAMESPACE_URL, resource_id.lower()).hex[:12].upper()
    return "-".join(digest[i : i + 2] for i in range(0, 12, 2))
