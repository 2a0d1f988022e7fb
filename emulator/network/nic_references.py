"""What a NIC PUT refers to must exist, as Azure's network RP checks: its NSG, and per ip configuration its
public IP, application security groups and load balancer backend pools (400 InvalidResourceReference)."""

from __future__ import annotations

from typing import Any

from emulator.arm import errors
from emulator.network.network_extras import LB_TYPE
from emulator.state import EmulatorState


def _missing(nic_id: str, ref: str) -> errors.ArmError:
    return errors.invalid(
        f"Resource {ref} referenced by resource {nic_id} was not found. Please make sure that the referenced "
        "resource exists, and that both resources are in the same region.",
        code="InvalidResourceReference",
    )


def _exists(state: EmulatorState, ref: str) -> bool:
    parts = ref.rstrip("/").split("/")
    # A backend pool lives inside its load balancer's body: .../loadBalancers/<lb>/backendAddressPools/<pool>
    if len(parts) >= 2 and parts[-2].lower() == "backendaddresspools":
        lb = state.store.get("/".join(parts[:-2]))
        if lb is None or lb.type != LB_TYPE:
            return False
        pools = lb.properties.get("backendAddressPools", [])
        return any(p["name"].lower() == parts[-1].lower() for p in pools)
    return state.store.get(ref) is not None


def _ids(value: Any) -> list[str]:
    refs = value if isinstance(value, list) else [value] if value else []
    return [str(r["id"]) for r in refs if isinstance(r, dict) and r.get("id")]


def check_nic_references(state: EmulatorState, nic_id: str, properties: dict[str, Any]) -> None:
    """Raises InvalidResourceReference naming the first reference that does not exist."""
    wanted = _ids(properties.get("networkSecurityGroup"))
    for ipc in properties.get("ipConfigurations") or []:
        ipc_props = ipc.get("properties") or {}
        for field in ("publicIPAddress", "applicationSecurityGroups", "loadBalancerBackendAddressPools"):
            wanted += _ids(ipc_props.get(field))
    for ref in wanted:
        if not _exists(state, ref):
            raise _missing(nic_id, ref)
