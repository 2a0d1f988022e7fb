"""ensure_public_ip: the machine's public IP `<vm>-pip` (spec `public_ip`), made by ensure_nic just before the
NIC that carries it, owned and tagged exactly like the NIC (activities/ownership.py), in the machine's zone.

Azure deletes a public IP with its VM only when the VM created it (networkInterfaceConfigurations); azmc makes
its NICs itself, so the public IP is deleted by azmc's own flows after the NIC that holds it: compensation,
`delete` and the fleet sweep, each verifying it gone like the NIC (its `deleteOption: Delete` says the intent).
"""

from azure.mgmt.network import models as nm

from activities.arm import classified, get_or_none, log, wait_heartbeating
from activities.clients import AzureClients
from activities.ownership import owner_of
from activities.reading.graph import PUBLIC_IP_TYPE
from models.naming import public_ip_name
from models.spec import MachineSpec


def build_public_ip(spec: MachineSpec, tags: dict[str, str]) -> nm.PublicIPAddress:
    assert spec.public_ip is not None
    return nm.PublicIPAddress(  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
        location=spec.location,
        tags=tags,
        sku=nm.PublicIPAddressSku(name=spec.public_ip.sku, tier="Regional"),
        zones=[spec.zone] if spec.zone else None,  # a zonal machine's address in its zone; regional otherwise
        public_ip_allocation_method=spec.public_ip.allocation,
        public_ip_address_version="IPv4",
        delete_option="Delete",
    )


def _matches(pip: nm.PublicIPAddress, spec: MachineSpec, tags: dict[str, str]) -> bool:
    assert spec.public_ip is not None
    return (pip.provisioning_state == "Succeeded" and (pip.tags or {}) == tags
            and (pip.sku.name if pip.sku else "") == spec.public_ip.sku)


async def ensure_public_ip(clients: AzureClients, spec: MachineSpec) -> str:
    """The public IP's ARM id, "" when the spec asks for none (no request at all then)."""
    if spec.public_ip is None:
        return ""
    name, rg = public_ip_name(spec.name), spec.resource_group
    listed = clients.read_cache.listed_recently(rg, spec.name)
    if listed is None:  # a crowd's shared list of the group (activities/reading/group_snapshots.py)
        listed = await clients.snapshots.listed(rg, spec.name)
    if listed is not None and not any(r.type == PUBLIC_IP_TYPE and r.name.lower() == name.lower() for r in listed):
        existing = None  # ARM listed the machine's resources moments ago: none of this name
    else:
        async with classified(f"get public IP {name}"):
            existing = await get_or_none(clients.network.public_ip_addresses.get(rg, name))
    owner = owner_of(clients, rg, spec.name)
    tags = owner.tags(spec)
    if existing is not None:
        owner.require("public IP", name, existing.tags)
        if _matches(existing, spec, tags):
            log(spec.name, "public IP %s already exists; reusing it", name)
            return str(existing.id)
    async with classified(f"create public IP {name}"):
        poller = await clients.network.public_ip_addresses.begin_create_or_update(
            rg, name, build_public_ip(spec, tags), polling=clients.polling(final_get=False))
        pip = await wait_heartbeating(poller)
    log(spec.name, "public IP %s ready", name)
    return str(pip.id)
