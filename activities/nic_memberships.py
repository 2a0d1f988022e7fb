"""The NIC's memberships a spec asks for (issue 28): its NSG, and on its ip configuration the application
security groups, load balancer backend pools and public IP; plus accelerated networking as resolved for the
size. Put on the NIC body `build_nic` makes, and compared by `_matches`, so a changed spec is one NIC PUT."""

from azure.mgmt.network import models as nm

from models.spec import MachineSpec


def accelerated(spec: MachineSpec) -> bool:
    """The NIC's enableAcceleratedNetworking. None is "what the size supports": the machine's workflow writes
    the size's answer into the spec it creates with (workflows/machine/fallback.py); unknown there, off."""
    return bool(spec.accelerated_networking)


def add_memberships(nic: nm.NetworkInterface, spec: MachineSpec, public_ip_id: str = "") -> None:
    """Only what the spec sets: a plain machine's NIC body stays exactly as before."""
    if spec.network_security_group_id:
        nic.network_security_group = nm.NetworkSecurityGroup(id=spec.network_security_group_id)
    ipc = (nic.ip_configurations or [])[0]
    if spec.application_security_group_ids:
        ipc.application_security_groups = [nm.ApplicationSecurityGroup(id=i)
                                           for i in spec.application_security_group_ids]
    if spec.load_balancer_backend_address_pool_ids:
        ipc.load_balancer_backend_address_pools = [nm.BackendAddressPool(id=i)
                                                   for i in spec.load_balancer_backend_address_pool_ids]
    if public_ip_id:
        ipc.public_ip_address = nm.PublicIPAddress(id=public_ip_id)


def _ids(refs: list | None) -> set[str]:
    return {(ref.id or "").lower() for ref in refs or []}


def memberships_match(nic: nm.NetworkInterface, spec: MachineSpec, public_ip_id: str = "") -> bool:
    """The NIC already has exactly the spec's NSG, ASGs, backend pools and public IP."""
    configs = nic.ip_configurations or []
    primary = next((c for c in configs if c.primary), configs[0] if configs else None)
    if primary is None:
        return False
    nsg = (nic.network_security_group.id or "") if nic.network_security_group else ""
    pip = (primary.public_ip_address.id or "") if primary.public_ip_address else ""
    return (nsg.lower() == spec.network_security_group_id.lower()
            and _ids(primary.application_security_groups) == {i.lower() for i in spec.application_security_group_ids}
            and _ids(primary.load_balancer_backend_address_pools)
            == {i.lower() for i in spec.load_balancer_backend_address_pool_ids}
            and pip.lower() == public_ip_id.lower())
