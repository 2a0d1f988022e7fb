"""Resource Health's view of one VM: availabilityStatuses/current (one ARM read)."""

from urllib.parse import quote

from activities.arm import classified, get_or_none, log_start
from activities.clients import AzureClients
from models.activity_io import MachineRef
from models.health_io import ResourceHealthReading


def vm_id(clients: AzureClients, machine: MachineRef) -> str:
    """The VM's id as a URL path: the SDK puts `resourceUri` into the URL as it is (its only path parameter it does
    not escape), so each name is escaped here and stays one segment, whatever it holds."""
    subscription, group, name = (quote(part, safe="") for part in (clients.subscription_id, machine.resource_group,
                                                                   machine.name))
    return f"/subscriptions/{subscription}/resourceGroups/{group}/providers/Microsoft.Compute/virtualMachines/{name}"


async def read_resource_health(clients: AzureClients, machine: MachineRef) -> ResourceHealthReading:
    """The current availability status; the empty reading when Azure has none for the VM (yet)."""
    async with classified(f"read Resource Health of VM {machine.name}"):
        status = await get_or_none(clients.health.availability_statuses.get_by_resource(vm_id(clients, machine)))
    props = status.properties if status is not None else None
    if props is None:
        return ResourceHealthReading()
    reading = ResourceHealthReading(
        state=str(getattr(props.availability_state, "value", props.availability_state) or ""),
        summary=props.summary or "", reason_type=props.reason_type or "", context=props.context or "",
        since=props.occured_time)
    log_start(machine.name, "Resource Health: %s", reading.state or "none")
    return reading
