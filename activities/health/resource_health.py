"""Resource Health's view of one VM: availabilityStatuses/current (one ARM read)."""

from activities.arm import classified, get_or_none, log_start
from activities.clients import AzureClients
from models.activity_io import MachineRef
from models.health_io import ResourceHealthReading


def vm_id(clients: AzureClients, machine: MachineRef) -> str:
    return (f"/subscriptions/{clients.subscription_id}/resourceGroups/{machine.resource_group}/providers/"
            f"Microsoft.Compute/virtualMachines/{machine.name}")


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
