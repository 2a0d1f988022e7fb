"""ensure_nic: the machine's NIC `<vm>-nic`, created once, reused while it is ours and matches the spec."""

from azure.mgmt.network import models as nm

from activities.arm import classified, get_or_none, log, wait_heartbeating
from activities.clients import AzureClients
from activities.nic_memberships import accelerated, add_memberships, memberships_match
from activities.ownership import Owner, owner_of
from activities.public_ip import ensure_public_ip
from activities.reading.graph import NIC_TYPE
from models.naming import nic_name
from models.spec import MachineSpec


def build_nic(spec: MachineSpec, tags: dict[str, str], public_ip_id: str = "") -> nm.NetworkInterface:
    nic = nm.NetworkInterface(  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
        location=spec.location,
        tags=tags,
        enable_accelerated_networking=accelerated(spec),
        ip_configurations=[
            nm.NetworkInterfaceIPConfiguration(  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
                name="ipconfig1",
                subnet=nm.Subnet(id=spec.subnet_id),
                private_ip_allocation_method="Dynamic",
                primary=True,
            )
        ],
    )
    add_memberships(nic, spec, public_ip_id)
    return nic


def _matches(nic: nm.NetworkInterface, spec: MachineSpec, owner: Owner, public_ip_id: str = "") -> bool:
    """Reusable without a PUT: provisioned, same subnet, same accelerated networking, same memberships, our
    tags (a LEGACY NIC lacks the owner tag, so the PUT below adopts it)."""
    configs = nic.ip_configurations or []
    subnets = {(c.subnet.id or "").lower() for c in configs if c.subnet}
    return (
        nic.provisioning_state == "Succeeded"
        and subnets == {spec.subnet_id.lower()}
        and bool(nic.enable_accelerated_networking) == accelerated(spec)
        and memberships_match(nic, spec, public_ip_id)
        and (nic.tags or {}) == owner.tags(spec)
    )


async def ensure_nic(clients: AzureClients, spec: MachineSpec) -> str:
    public_ip_id = await ensure_public_ip(clients, spec)  # before the NIC that refers to it
    name = nic_name(spec.name)
    rg = spec.resource_group
    listed = clients.read_cache.listed_recently(rg, spec.name)
    if listed is None:  # a crowd's shared list of its group, at most TRUST_S old (reading/group_snapshots.py)
        listed = await clients.snapshots.listed(rg, spec.name)
    if listed is not None and not any(res.type == NIC_TYPE and res.name.lower() == name.lower() for res in listed):
        # ARM listed the machine's resources moments ago (find_vm) and no NIC of this name was there.
        existing = None
    else:
        async with classified(f"get NIC {name}"):
            existing = await get_or_none(clients.network.network_interfaces.get(rg, name))
    owner = owner_of(clients, rg, spec.name)
    if existing is not None:
        owner.require("NIC", name, existing.tags)
        if spec.accelerated_networking is None:
            # "What the size supports" was decided when the NIC was made: an existing NIC keeps its setting.
            spec = spec.model_copy(update={"accelerated_networking": bool(existing.enable_accelerated_networking)})
        if _matches(existing, spec, owner, public_ip_id):
            log(spec.name, "NIC %s already exists; reusing it", name)
            return str(existing.id)
        log(spec.name, "NIC %s exists but differs from the spec; updating it", name)
    async with classified(f"create NIC {name}"):
        body = build_nic(spec, owner.tags(spec), public_ip_id)
        # The id is all the caller needs: the PUT's own answer has it (no final GET).
        poller = await clients.network.network_interfaces.begin_create_or_update(
            rg, name, body, polling=clients.polling(final_get=False))
        nic = await wait_heartbeating(poller)
    clients.read_cache.saw_listed(rg, spec.name, None)  # the listing no longer says what exists
    log(spec.name, "NIC %s ready", name)
    return str(nic.id)
